"""The batch core's speed next to the reference engine's and to the plain C yardsticks of
``../shared/yardstick``, all measured in the same run (``benchmarks/run.py``, ``make bench``).

    python benchmarks/run.py                      # every workload, median of 3 repeats
    python benchmarks/run.py --quick              # a smoke run of some seconds
    python benchmarks/run.py --json --only tactical-36

Workloads play two-player games seeded like ``pyanitsa simulate`` (game ``i`` dealt from
``derive_seed(seed, i)``): the batch core on one thread, the reference engine on a smaller
sample, and the C program. The machines are noisy, so the ratio to C measured in the same run is
the number to compare between runs. ``enumerate-4x4`` runs ``pyanitsa enumerate`` on the 4-suit,
4-rank research deck (natural pickups, discard) in a child process on every core and reports its
wall time and peak memory. ``compile`` times the first call of a fresh process with an empty
numba cache (the one-off compile) and with a warm one.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import platform
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass, field
from datetime import datetime
from pathlib import Path

from pyanitsa.cli import argtypes
from pyanitsa.records import Record
from pyanitsa.rng import derive_seed
from pyanitsa.rules import Rules, preset

REPO_ROOT = Path(__file__).resolve().parents[1]
YARDSTICK_DIR = REPO_ROOT.parent / "shared" / "yardstick"
PLAYERS = 2
DEFAULT_SEED = 7
DEFAULT_REPEATS = 3
DESCRIPTION = """\
Time the batch core next to the reference engine and the plain C yardsticks of
../shared/yardstick, all in the same run. Workloads play two-player games seeded as
pyanitsa simulate deals them: the batch core on one thread, the reference engine on a smaller
sample, and the C program. Machines are noisy: compare the ratio to C measured in the same run
between runs. enumerate-4x4 runs pyanitsa enumerate on the 4-suit, 4-rank research deck in a
child process on every core (wall time and peak memory); compile times a fresh process's first
call with an empty numba cache and with a warm one."""
EXAMPLES = """\
examples:
  python benchmarks/run.py                      # every workload, median of 3 repeats
  python benchmarks/run.py --quick              # a smoke run of some seconds
  python benchmarks/run.py --json --only tactical-36"""


# -- workloads ----------------------------------------------------------------------------------


def reference_games(rules: Rules, games: int, seed: int) -> list[int]:
    """Play ``games`` seeded games with the reference engine (tactical hands in the order
    dealt, a uniformly random order); each game's rounds."""
    return [Record.dealt(rules, PLAYERS, derive_seed(seed, i)).play().rounds
            for i in range(games)]


def batch_games(rules: Rules, games: int, seed: int) -> list[int] | object:
    from pyanitsa.batch import simulate

    return simulate(rules, PLAYERS, games, seed, workers=1).rounds


@dataclass(frozen=True)
class Yardstick:
    """A C program of ``../shared/yardstick`` and its arguments after the game count."""

    source: str
    args: tuple[str, ...]
    games: int
    quick_games: int


@dataclass(frozen=True)
class Workload:
    name: str
    description: str
    rules: Rules
    reference: Callable[[Rules, int, int], list[int]]
    games: int
    """Batch-core games per repeat (about a second of work)."""
    quick_games: int
    ref_games: int
    """Reference-engine games per repeat."""
    quick_ref_games: int
    yardstick: Yardstick | None
    target: tuple[str, float, float]
    """(metric, least value the issue asks of the batch core, the C yardstick's figure the
    issue quotes). On a busy machine the C program is slower too, so the target is judged as
    a ratio to C measured in the same run: at least ``least / quoted`` of C."""


WORKLOADS = {
    w.name: w
    for w in [
        Workload("classic-war52", "war-52, pickup_order winner_first (the C yardstick's rules)",
                 preset("war-52").replace(pickup_order="winner_first"), reference_games,
                 games=100_000, quick_games=3_000, ref_games=300, quick_ref_games=20,
                 yardstick=Yardstick("war.c", ("7", "0", "1"), 200_000, 20_000),
                 target=("rounds_per_s", 50e6, 100e6)),
        Workload("classic-war52-shuffled", "war-52, pickup_order shuffled",
                 preset("war-52").replace(pickup_order="shuffled"), reference_games,
                 games=40_000, quick_games=2_000, ref_games=300, quick_ref_games=20,
                 yardstick=Yardstick("war.c", ("7", "1", "1"), 100_000, 10_000),
                 target=("rounds_per_s", 20e6, 48e6)),
        Workload("tactical-36", "tactical preset, 36 cards, hands in dealt order",
                 preset("tactical"), reference_games,
                 games=2_000_000, quick_games=50_000, ref_games=20_000, quick_ref_games=1_500,
                 yardstick=Yardstick("tactical.c", ("7",), 2_000_000, 200_000),
                 target=("games_per_s", 2e6, 5e6)),
    ]
}
ENUMERATE = "enumerate-4x4"
ENUM_ARGS = ("--set", "pickup_order=natural", "--set", "dispute_exhausted=discard")
ENUM_DECK, ENUM_QUICK_DECK = "ranks=4,suits=4", "ranks=4,suits=3"
ENUM_TARGET = (60.0, 500.0)
"""At most this many seconds and MB."""


# -- measuring ----------------------------------------------------------------------------------


@dataclass
class WorkloadResult:
    name: str
    description: str
    games: int
    repeats: int
    seconds: list[float]
    """Wall time of each batch-core repeat (one thread)."""
    median_seconds: float
    games_per_s: float
    rounds_per_s: float
    mean_rounds: float
    mean_rounds_se: float
    median_rounds: float
    first_call_seconds: float
    """The first (small) batch call in this process: loading or compiling the kernels."""
    reference: dict | None = None
    """The reference engine on ``reference.games`` games: median seconds, games/s, rounds/s."""
    ratio_reference: float | None = None
    """Batch games/s over the reference engine's."""
    c: dict | None = None
    """The C yardstick's JSON line (its median repeat), or None when it was not run."""
    ratio_games_per_s: float | None = None
    ratio_rounds_per_s: float | None = None
    """Ours over C; None when the C program does not report rounds."""
    target: dict | None = None


def _summary(rounds: Sequence[int], seconds: list[float], games: int) -> dict:
    import numpy as np

    r = np.asarray(rounds, dtype=np.float64)
    med = statistics.median(seconds)
    return {"median_seconds": med, "games_per_s": games / med,
            "rounds_per_s": float(r.sum()) / med, "mean_rounds": float(r.mean()),
            "mean_rounds_se": float(r.std(ddof=1) / len(r) ** 0.5) if len(r) > 1 else 0.0,
            "median_rounds": float(np.median(r))}


def time_workload(w: Workload, games: int, ref_games: int, seed: int, repeats: int,
                  reference: bool = True) -> WorkloadResult:
    start = time.perf_counter()
    batch_games(w.rules, 100, seed)
    first = time.perf_counter() - start
    seconds: list[float] = []
    rounds: Sequence[int] = []
    for _ in range(repeats):
        start = time.perf_counter()
        rounds = batch_games(w.rules, games, seed)  # type: ignore[assignment]
        seconds.append(time.perf_counter() - start)
    s = _summary(rounds, seconds, games)
    result = WorkloadResult(w.name, w.description, games, repeats, seconds, s["median_seconds"],
                            s["games_per_s"], s["rounds_per_s"], s["mean_rounds"],
                            s["mean_rounds_se"], s["median_rounds"], first)
    if reference:
        ref_seconds = []
        ref_rounds: list[int] = []
        for _ in range(repeats):
            start = time.perf_counter()
            ref_rounds = w.reference(w.rules, ref_games, seed)
            ref_seconds.append(time.perf_counter() - start)
        rs = _summary(ref_rounds, ref_seconds, ref_games)
        result.reference = {"games": ref_games, **rs}
        result.ratio_reference = result.games_per_s / rs["games_per_s"]
    return result


def judge_target(result: WorkloadResult, w: Workload) -> None:
    """Met when our figure is at least ``least / quoted`` of C's in the same run (or, with no C
    run, at least ``least`` outright)."""
    metric, least, quoted = w.target
    ours = getattr(result, metric)
    need = least / quoted
    ratio = None
    if result.c is not None:
        ratio = ours / result.c[metric] if metric in result.c else None
    result.target = {"metric": metric, "at_least": least, "c_quoted": quoted,
                     "ratio_to_c_needed": need, "ratio_to_c": ratio,
                     "met_absolute": ours >= least,
                     "met": ratio >= need if ratio is not None else ours >= least}


@dataclass
class EnumerateResult:
    name: str
    deck: str
    command: list[str]
    seconds: float
    peak_mb: float
    deals: int
    deals_per_s: float
    workers: int
    target: dict


# Runs the CLI and then reports the process's own peak RSS. Linux keeps ``ru_maxrss`` across
# exec, so for a child forked from this (large) benchmark process it would include the
# parent's pages; ``VmHWM`` belongs to the new program alone.
_PEAK_WRAPPER = """
import sys
from pyanitsa.cli import main
code = main(sys.argv[1:])
try:
    with open('/proc/self/status') as f:
        hwm = next(int(x.split()[1]) for x in f if x.startswith('VmHWM:'))
except OSError:
    import resource
    hwm = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
print('peak_kb', hwm, file=sys.stderr)
sys.exit(code)
"""


def time_enumerate(quick: bool, workers: int | None) -> EnumerateResult:
    """``pyanitsa enumerate`` in a child process: wall time and the child's own peak RSS."""
    deck = ENUM_QUICK_DECK if quick else ENUM_DECK
    n = workers or os.cpu_count() or 1
    args = ["enumerate", "--deck", deck, *ENUM_ARGS, "--workers", str(n), "--json",
            "--no-progress"]
    cmd = [sys.executable, "-c", _PEAK_WRAPPER, *args]
    start = time.perf_counter()
    proc = subprocess.run(cmd, capture_output=True, text=True)
    seconds = time.perf_counter() - start
    if proc.returncode != 0:
        raise RuntimeError(f"pyanitsa {' '.join(args)} failed: {proc.stderr[-500:]}")
    peak_kb = int(proc.stderr.strip().splitlines()[-1].split()[1])
    out = json.loads(proc.stdout.strip().splitlines()[-1])
    peak_mb = peak_kb / 1024
    return EnumerateResult(ENUMERATE, deck, ["pyanitsa", *args], seconds, peak_mb,
                           out["deals"], out["deals"] / seconds, n,
                           {"max_seconds": ENUM_TARGET[0], "max_mb": ENUM_TARGET[1],
                            "met": seconds < ENUM_TARGET[0] and peak_mb < ENUM_TARGET[1],
                            "applies": not quick})


COMPILE_SNIPPET = """
import time
t = time.perf_counter()
from pyanitsa.batch import simulate, play_records
from pyanitsa.research.enumeration_batch import enumerate_batch
from pyanitsa.rules import Rules, preset
simulate(preset("war-52"), 2, 10, 1)
simulate(preset("tactical"), 2, 10, 1)
enumerate_batch(Rules.from_options({}, deck="ranks=2,suits=2"), workers=1)
print(time.perf_counter() - t)
"""


def time_compile(cache_dir: Path) -> dict:
    """First calls (classic and tactical simulate, enumerate) in fresh processes: with an empty
    numba cache (compiling everything) and then with the cache it left (loading)."""
    env = {**os.environ, "NUMBA_CACHE_DIR": str(cache_dir)}
    out = {}
    for label in ("cold_seconds", "warm_seconds"):
        proc = subprocess.run([sys.executable, "-c", COMPILE_SNIPPET], capture_output=True,
                              text=True, env=env, check=True)
        out[label] = float(proc.stdout.strip().splitlines()[-1])
    return out


# -- the C yardsticks ---------------------------------------------------------------------------


def build_yardsticks(sources: set[str], build_dir: Path) -> tuple[dict[str, Path], str | None]:
    """Compile the C programs with ``gcc -O2``; return {source: binary} and a reason if not."""
    gcc = shutil.which("gcc")
    if gcc is None:
        return {}, "gcc not found: C yardsticks and ratios skipped"
    if not YARDSTICK_DIR.is_dir():
        return {}, f"no yardstick folder at {YARDSTICK_DIR}: C ratios skipped"
    binaries = {}
    for source in sorted(sources):
        binary = build_dir / Path(source).stem
        proc = subprocess.run([gcc, "-O2", "-o", str(binary), str(YARDSTICK_DIR / source)],
                              capture_output=True, text=True)
        if proc.returncode != 0:
            return {}, f"gcc failed on {source}: {proc.stderr.strip()[:300]}"
        binaries[source] = binary
    return binaries, None


def run_yardstick(binary: Path, games: int, args: Sequence[str], repeats: int) -> dict:
    """Run a C program ``repeats`` times; return the JSON line of the median-speed run."""
    runs = []
    for _ in range(repeats):
        out = subprocess.run([str(binary), str(games), *args], capture_output=True, text=True,
                             check=True).stdout
        runs.append(json.loads(out.strip().splitlines()[-1]))
    runs.sort(key=lambda r: r["games_per_s"])
    return runs[len(runs) // 2]


def add_ratios(result: WorkloadResult, c: dict) -> None:
    result.c = c
    result.ratio_games_per_s = result.games_per_s / c["games_per_s"]
    if "rounds_per_s" in c:
        result.ratio_rounds_per_s = result.rounds_per_s / c["rounds_per_s"]


# -- machine ------------------------------------------------------------------------------------


def cpu_model() -> str:
    with contextlib.suppress(OSError):
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    return platform.processor() or "unknown"


def gcc_version() -> str | None:
    gcc = shutil.which("gcc")
    if gcc is None:
        return None
    out = subprocess.run([gcc, "--version"], capture_output=True, text=True).stdout
    return out.splitlines()[0] if out else None


def machine_basics() -> dict:
    """The machine a benchmark ran on: CPU, cores, Python, platform, load, date (every
    benchmark script reports these)."""
    return {
        "cpu": cpu_model(),
        "cpus": os.cpu_count(),
        "python": platform.python_version(),
        "implementation": platform.python_implementation(),
        "platform": platform.platform(),
        "loadavg": [round(x, 2) for x in os.getloadavg()],
        "date": datetime.now().astimezone().isoformat(timespec="seconds"),
    }


def machine_info() -> dict:
    """:func:`machine_basics` with the numba and gcc versions."""
    import numba

    return machine_basics() | {"numba": numba.__version__, "gcc": gcc_version()}


# -- output -------------------------------------------------------------------------------------


def fmt(value: float | None, spec: str = ",.0f") -> str:
    return "-" if value is None else format(value, spec)


def format_table(results: list[WorkloadResult]) -> str:
    header = ("workload", "games", "median s", "games/s", "rounds/s", "mean rounds", "ref games/s",
              "x ref", "C mean", "C games/s", "C rounds/s", "ours/C", "target")
    rows = [header]
    for r in results:
        c = r.c or {}
        ratio = r.ratio_rounds_per_s if r.ratio_rounds_per_s is not None else r.ratio_games_per_s
        ref = r.reference or {}
        tgt = r.target or {}
        rows.append((
            r.name, str(r.games), fmt(r.median_seconds, ".3f"), fmt(r.games_per_s),
            fmt(r.rounds_per_s), f"{r.mean_rounds:.1f} ± {r.mean_rounds_se:.2g}",
            fmt(ref.get("games_per_s")), fmt(r.ratio_reference, ",.0f"),
            fmt(c.get("mean_rounds"), ".1f"), fmt(c.get("games_per_s")),
            fmt(c.get("rounds_per_s")), fmt(ratio, ".2f"),
            (f"{'met' if tgt.get('met') else 'MISSED'} (>= {tgt['ratio_to_c_needed']:.2f} of C;"
             f" {tgt['at_least']:.3g} {tgt['metric'].replace('_per_s', '/s')} "
             f"{'reached' if tgt['met_absolute'] else 'not reached'})") if tgt else "-",
        ))
    widths = [max(len(row[i]) for row in rows) for i in range(len(header))]
    lines = ["  ".join(cell.ljust(w) if i in (0, len(header) - 1) else cell.rjust(w)
                       for i, (cell, w) in enumerate(zip(row, widths, strict=True)))
             for row in rows]
    lines.insert(1, "  ".join("-" * w for w in widths))
    return "\n".join(lines)


def format_machine(machine: dict) -> str:
    return (f"{machine['date']}  {machine['cpu']} ({machine['cpus']} CPUs, load "
            f"{' '.join(map(str, machine['loadavg']))})  {machine['implementation']} "
            f"{machine['python']}  numba {machine.get('numba')}  {machine['gcc'] or 'no gcc'}")


# -- main ---------------------------------------------------------------------------------------


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    parser.add_argument("--quick", action="store_true", help="a fast smoke run")
    parser.add_argument("--only", action="append", choices=[*WORKLOADS, ENUMERATE, "compile"],
                        metavar="NAME", help="run only this workload (repeatable): "
                        f"{', '.join([*WORKLOADS, ENUMERATE, 'compile'])}")
    parser.add_argument("--games", type=argtypes.positive_at_most(10**8, "one benchmark"),
                        help="games per repeat for every workload")
    parser.add_argument("--repeats", type=argtypes.positive_at_most(1000, "one benchmark"),
                        default=DEFAULT_REPEATS, metavar="N",
                        help=f"timed repeats of each workload; the median counts (default "
                             f"{DEFAULT_REPEATS})")
    parser.add_argument("--seed", type=argtypes.seed, default=DEFAULT_SEED,
                        help=f"seed of the games, as for simulate (default {DEFAULT_SEED})")
    parser.add_argument("--workers", type=argtypes.workers, default=None,
                        help="threads for enumerate-4x4 (default: every core)")
    parser.add_argument("--no-c", action="store_true", help="skip the C yardsticks")
    parser.add_argument("--no-reference", action="store_true",
                        help="skip the reference engine figures")


def parse_args(argv: Sequence[str] | None) -> argparse.Namespace:
    from pyanitsa.cli import HelpFormatter

    parser = argparse.ArgumentParser(prog="benchmarks/run.py", description=DESCRIPTION,
                                     epilog=EXAMPLES,
                                     formatter_class=HelpFormatter)
    add_arguments(parser)
    args = parser.parse_args(argv)
    if args.games is not None and args.games < 1:
        parser.error("--games must be positive")
    if args.repeats < 1:
        parser.error("--repeats must be positive")
    return args


@dataclass
class Report:
    machine: dict
    workloads: dict[str, WorkloadResult] = field(default_factory=dict)
    enumerate: EnumerateResult | None = None
    compile: dict | None = None
    notes: list[str] = field(default_factory=list)

    def to_json(self) -> dict:
        return {"machine": self.machine, "notes": self.notes,
                "workloads": {name: asdict(r) for name, r in self.workloads.items()},
                "enumerate": asdict(self.enumerate) if self.enumerate else None,
                "compile": self.compile}


def run(args: argparse.Namespace) -> Report:
    only = args.only or [*WORKLOADS, ENUMERATE, *([] if args.quick else ["compile"])]
    workloads = [WORKLOADS[name] for name in only if name in WORKLOADS]
    report = Report(machine_info())
    log = sys.stderr if args.json else sys.stdout
    with tempfile.TemporaryDirectory(prefix="pyanitsa-bench-") as tmp:
        binaries: dict[str, Path] = {}
        if args.no_c:
            report.notes.append("C yardsticks skipped (--no-c)")
        elif workloads:
            sources = {w.yardstick.source for w in workloads if w.yardstick is not None}
            binaries, problem = build_yardsticks(sources, Path(tmp))
            if problem:
                report.notes.append(problem)
                print(problem, file=sys.stderr)
        for w in workloads:
            games = args.games or (w.quick_games if args.quick else w.games)
            ref_games = args.games or (w.quick_ref_games if args.quick else w.ref_games)
            print(f"{w.name}: {games} games x {args.repeats}", file=log, flush=True)
            result = time_workload(w, games, ref_games, args.seed, args.repeats,
                                   reference=not args.no_reference)
            stick = w.yardstick
            if stick is not None and stick.source in binaries:
                c_games = stick.quick_games if args.quick else stick.games
                add_ratios(result, run_yardstick(binaries[stick.source], c_games, stick.args,
                                                 args.repeats))
            judge_target(result, w)
            report.workloads[w.name] = result
        if ENUMERATE in only:
            print(f"{ENUMERATE}: pyanitsa enumerate in a child process", file=log, flush=True)
            report.enumerate = time_enumerate(args.quick, args.workers)
        if "compile" in only:
            print("compile: first calls with an empty numba cache", file=log, flush=True)
            report.compile = time_compile(Path(tmp) / "numba-cache")
    return report


def print_report(report: Report, as_json: bool) -> None:
    if as_json:
        print(json.dumps(report.to_json(), indent=2))
        return
    print()
    print(format_machine(report.machine))
    if report.workloads:
        print()
        print(format_table(list(report.workloads.values())))
        print("\nbatch core on one thread; x ref: games/s over the reference engine's; ours/C: "
              "rounds/s ratio where the C program reports rounds, else games/s. Median of "
              "repeats; all timed in the same run.")
    e = report.enumerate
    if e is not None:
        verdict = ("met" if e.target["met"] else "MISSED") if e.target["applies"] else \
            "quick deck; the target is for ranks=4,suits=4"
        print(f"\n{e.name}: deck {e.deck}, {e.deals:,} deals in {e.seconds:.1f} s on "
              f"{e.workers} workers ({e.deals_per_s:,.0f} deals/s), peak {e.peak_mb:.0f} MB "
              f"[target < {ENUM_TARGET[0]:.0f} s, < {ENUM_TARGET[1]:.0f} MB: {verdict}]")
    if report.compile is not None:
        print(f"\nfirst call in a fresh process: {report.compile['cold_seconds']:.1f} s with an "
              f"empty numba cache (compiling), {report.compile['warm_seconds']:.1f} s cached")
    for note in report.notes:
        print(f"note: {note}")


def main(argv: Sequence[str] | None = None) -> int:
    args = parse_args(argv)
    print_report(run(args), args.json)
    return 0


if __name__ == "__main__":
    sys.exit(main())
