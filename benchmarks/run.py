"""Speed of the pure-Python reference engine, next to the C yardsticks measured in the same run.

    make bench                                  # or: .venv/bin/python benchmarks/run.py
    .venv/bin/python benchmarks/run.py --quick  # a smoke run of a second or two
    .venv/bin/python benchmarks/run.py --json --only tactical-36

Every workload plays a fixed list of two-player games (game ``i`` is seeded with
``derive_seed(seed, i)`` and dealt with ``deal(rules, 2, Rng(game_seed))``), times it ``--repeats``
times and reports the median. The machines are noisy, so the C programs of
``../shared/yardstick`` are compiled and timed in the same run and the ratio ours/C is the
number to compare between runs, not the absolute speed.
"""

from __future__ import annotations

import argparse
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

REPO_ROOT = Path(__file__).resolve().parents[1]
YARDSTICK_DIR = REPO_ROOT.parent / "shared" / "yardstick"

if __name__ == "__main__":
    # `python benchmarks/run.py` puts benchmarks/ (not the repo) first on sys.path; import the
    # checkout itself so the script works whatever state the editable install is in.
    sys.path.insert(0, str(REPO_ROOT))

from pyanitsa import ClassicGame, Rng, Rules, TacticalGame, deal, derive_seed, preset  # noqa: E402

PLAYERS = 2
DEFAULT_SEED = 7
DEFAULT_REPEATS = 3


# -- workloads ----------------------------------------------------------------------------------


def play_classic(rules: Rules, games: int, seed: int) -> list[int]:
    """Play ``games`` classic games; return each game's rounds."""
    rounds = []
    for i in range(games):
        rng = Rng(derive_seed(seed, i))
        dealt = deal(rules, PLAYERS, rng)
        # the same generator that dealt goes on to shuffle pickups (`pickup_order: shuffled`)
        game = ClassicGame(rules, dealt.seats, dealer=dealt.dealer, rng=rng)
        rounds.append(game.play().rounds)
    return rounds


def play_tactical(rules: Rules, games: int, seed: int) -> list[int]:
    """Play ``games`` tactical games with the hands in dealt order (a uniformly random order)."""
    rounds = []
    for i in range(games):
        dealt = deal(rules, PLAYERS, Rng(derive_seed(seed, i)))
        rounds.append(TacticalGame(rules, dealt.seats).play().rounds)
    return rounds


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
    play: Callable[[Rules, int, int], list[int]]
    """``play(rules, games, seed)`` -> rounds of each game."""
    games: int
    """Games per repeat by default (a repeat takes about 1-1.5 s on a 2020s core)."""
    quick_games: int
    yardstick: Yardstick | None


WORKLOADS = {
    w.name: w
    for w in [
        Workload(
            "classic-war52",
            "war-52, pickup_order winner_first (the C yardstick's rules)",
            preset("war-52").replace(pickup_order="winner_first"),
            play_classic,
            games=500, quick_games=30,
            yardstick=Yardstick("war.c", ("7", "0", "1"), 200_000, 20_000),
        ),
        Workload(
            "classic-war52-shuffled",
            "war-52, pickup_order shuffled",
            preset("war-52").replace(pickup_order="shuffled"),
            play_classic,
            games=600, quick_games=40,
            yardstick=Yardstick("war.c", ("7", "1", "1"), 100_000, 10_000),
        ),
        Workload(
            "tactical-36",
            "tactical preset, 36 cards, hands in dealt order",
            preset("tactical"),
            play_tactical,
            games=20_000, quick_games=1_500,
            yardstick=Yardstick("tactical.c", ("7",), 2_000_000, 200_000),
        ),
    ]
}


# -- measuring ----------------------------------------------------------------------------------


@dataclass
class WorkloadResult:
    name: str
    description: str
    games: int
    repeats: int
    seconds: list[float]
    """Wall time of each repeat."""
    median_seconds: float
    games_per_s: float
    """Games over the median time."""
    rounds_per_s: float
    mean_rounds: float
    mean_rounds_se: float
    """Standard error of the mean game length (for comparing it with the C program's)."""
    median_rounds: float
    c: dict | None = None
    """The C yardstick's JSON line (its median repeat), or None when it was not run."""
    ratio_games_per_s: float | None = None
    ratio_rounds_per_s: float | None = None
    """Ours over C; None when the C program does not report rounds."""


def time_workload(workload: Workload, games: int, seed: int, repeats: int) -> WorkloadResult:
    """Play the same games ``repeats`` times and summarise the median repeat."""
    seconds = []
    for _ in range(repeats):
        start = time.perf_counter()
        rounds = workload.play(workload.rules, games, seed)
        seconds.append(time.perf_counter() - start)
    median_seconds = statistics.median(seconds)
    return WorkloadResult(
        name=workload.name,
        description=workload.description,
        games=games,
        repeats=repeats,
        seconds=seconds,
        median_seconds=median_seconds,
        games_per_s=games / median_seconds,
        rounds_per_s=sum(rounds) / median_seconds,
        mean_rounds=statistics.fmean(rounds),
        mean_rounds_se=statistics.stdev(rounds) / len(rounds) ** 0.5 if games > 1 else 0.0,
        median_rounds=statistics.median(rounds),
    )


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
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or "unknown"


def gcc_version() -> str | None:
    gcc = shutil.which("gcc")
    if gcc is None:
        return None
    out = subprocess.run([gcc, "--version"], capture_output=True, text=True).stdout
    return out.splitlines()[0] if out else None


def machine_info() -> dict:
    return {
        "cpu": cpu_model(),
        "cpus": os.cpu_count(),
        "python": platform.python_version(),
        "implementation": platform.python_implementation(),
        "platform": platform.platform(),
        "gcc": gcc_version(),
        "loadavg": [round(x, 2) for x in os.getloadavg()],
        "date": datetime.now().astimezone().isoformat(timespec="seconds"),
    }


# -- output -------------------------------------------------------------------------------------


def fmt(value: float | None, spec: str = ",.0f") -> str:
    return "-" if value is None else format(value, spec)


def format_table(results: list[WorkloadResult]) -> str:
    """One row per workload; ours/C is the rounds/s ratio where C counts rounds, else games/s."""
    header = ("workload", "games", "median s", "games/s", "rounds/s", "mean rounds",
              "C mean", "C games/s", "C rounds/s", "ours/C")
    rows = [header]
    for r in results:
        c = r.c or {}
        ratio = r.ratio_rounds_per_s if r.ratio_rounds_per_s is not None else r.ratio_games_per_s
        rows.append((
            r.name, str(r.games), fmt(r.median_seconds, ".3f"), fmt(r.games_per_s),
            fmt(r.rounds_per_s), f"{r.mean_rounds:.1f} ± {r.mean_rounds_se:.2g}",
            fmt(c.get("mean_rounds"), ".1f"), fmt(c.get("games_per_s")),
            fmt(c.get("rounds_per_s")), fmt(ratio, ".2e"),
        ))
    widths = [max(len(row[i]) for row in rows) for i in range(len(header))]
    lines = ["  ".join(cell.ljust(w) if i == 0 else cell.rjust(w)
                       for i, (cell, w) in enumerate(zip(row, widths, strict=True)))
             for row in rows]
    lines.insert(1, "  ".join("-" * w for w in widths))
    return "\n".join(lines)


def format_machine(machine: dict) -> str:
    return (f"{machine['date']}  {machine['cpu']} ({machine['cpus']} CPUs, load "
            f"{' '.join(map(str, machine['loadavg']))})  {machine['implementation']} "
            f"{machine['python']}  {machine['gcc'] or 'no gcc'}")


# -- main ---------------------------------------------------------------------------------------


def parse_args(argv: Sequence[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    parser.add_argument("--quick", action="store_true", help="a fast smoke run")
    parser.add_argument("--only", action="append", choices=list(WORKLOADS), metavar="NAME",
                        help=f"run only this workload (repeatable): {', '.join(WORKLOADS)}")
    parser.add_argument("--games", type=int, help="games per repeat for every workload")
    parser.add_argument("--repeats", type=int, default=DEFAULT_REPEATS)
    parser.add_argument("--seed", type=int, default=DEFAULT_SEED)
    parser.add_argument("--no-c", action="store_true", help="skip the C yardsticks")
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
    notes: list[str] = field(default_factory=list)

    def to_json(self) -> dict:
        return {"machine": self.machine, "notes": self.notes,
                "workloads": {name: asdict(r) for name, r in self.workloads.items()}}


def run(args: argparse.Namespace) -> Report:
    workloads = [WORKLOADS[name] for name in (args.only or WORKLOADS)]
    report = Report(machine_info())
    log = sys.stderr if args.json else sys.stdout
    with tempfile.TemporaryDirectory(prefix="pyanitsa-bench-") as tmp:
        binaries: dict[str, Path] = {}
        if args.no_c:
            report.notes.append("C yardsticks skipped (--no-c)")
        else:
            sources = {w.yardstick.source for w in workloads if w.yardstick is not None}
            binaries, problem = build_yardsticks(sources, Path(tmp))
            if problem:
                report.notes.append(problem)
                print(problem, file=sys.stderr)
        for w in workloads:
            games = args.games or (w.quick_games if args.quick else w.games)
            print(f"{w.name}: {games} games x {args.repeats}", file=log, flush=True)
            result = time_workload(w, games, args.seed, args.repeats)
            stick = w.yardstick
            if stick is not None and stick.source in binaries:
                c_games = stick.quick_games if args.quick else stick.games
                add_ratios(result, run_yardstick(binaries[stick.source], c_games, stick.args,
                                                 args.repeats))
            report.workloads[w.name] = result
    return report


def main(argv: Sequence[str] | None = None) -> int:
    args = parse_args(argv)
    report = run(args)
    if args.json:
        print(json.dumps(report.to_json(), indent=2))
    else:
        print()
        print(format_machine(report.machine))
        print()
        print(format_table(list(report.workloads.values())))
        print("\nours/C: rounds/s ratio where the C program reports rounds, else games/s. "
              "Median of repeats; C and Python timed in the same run.")
        for note in report.notes:
            print(f"note: {note}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
