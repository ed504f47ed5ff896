"""``pyanitsa solve-table CONFIG``: the offline equilibrium of a whole n-player tactical game.

It runs :class:`pyanitsa.solvers.mccfr.Solver` for the config's deals or minutes, writes the
strategy file ``nash`` plays at that table (:mod:`pyanitsa.solvers.mccfr`), and, with
``curve.deals`` above zero, scores snapshots taken during the solve with the n-player
exploitability lower bound (:func:`pyanitsa.solvers.exploitability_n.exploit_table`) and plots
that curve against solve time beside the file (``NAME.curve.png`` and ``.curve.json``).
"""

from __future__ import annotations

import argparse
import json
import os
import tempfile
import time
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from pyanitsa.config import ConfigError, first_error, read_mapping
from pyanitsa.rules import Rules


class SolveConfigError(ConfigError):
    """A solve config that cannot be read or fails validation (names the field)."""


class _Model(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True, strict=True)


class Curve(_Model):
    """Scoring snapshots of the solve: exploitability against time."""

    snapshots: int = Field(6, ge=1, le=100)
    """Snapshots at equal steps of the budget (the last is the final strategy)."""
    deals: int = Field(0, ge=0)
    """Deals each snapshot is scored on (0: no curve)."""
    samples: int = Field(64, ge=1)
    """Worlds the response is fitted on, and fresh worlds it is scored on."""
    seed: int = 7
    baseline: str = "random"
    """An agent spec scored the same way, drawn as a line for comparison."""


class SolveConfig(_Model):
    """``pyanitsa solve-table`` config (YAML)."""

    name: str = Field(min_length=1)
    rules: dict[str, Any] = Field(default_factory=lambda: {"preset": "tactical"})
    """Rules options (:meth:`Rules.from_options`: ``preset``, ``deck`` and options)."""
    players: int = Field(ge=2, le=8)
    deals: int | None = Field(None, ge=1)
    """Deals to play (each seat traverses each deal once)."""
    minutes: float | None = Field(None, gt=0)
    """Solve time budget (wall clock); with ``deals`` too, whichever comes first."""
    seed: int = Field(0, ge=0, lt=1 << 63)
    eps: float = Field(0.1, ge=0.0, lt=1.0)
    """The traverser's exploration."""
    last: bool = True
    """Key rows by the rank played last too (else by the ranks held alone)."""
    objective: Literal["margin", "win"] = "margin"
    batch: int = Field(256, ge=1)
    threads: int = Field(2, ge=1)
    output: str = Field(min_length=1)
    """The strategy file; a relative path is relative to the config's folder."""
    curve: Curve = Curve()


def load_config(path: str, overrides: list[str]) -> tuple[SolveConfig, Rules]:
    data = read_mapping(path, overrides, error=SolveConfigError)
    try:
        cfg = SolveConfig.model_validate(data)
    except ValidationError as exc:
        raise SolveConfigError(f"{path}: {first_error(exc)}") from None
    if cfg.deals is None and cfg.minutes is None:
        raise SolveConfigError(f"{path}: deals or minutes: give one (or both)")
    try:
        rules = Rules.from_options(cfg.rules)
    except ValueError as exc:
        raise SolveConfigError(f"{path}: rules: {exc}") from None
    if rules.mode != "tactical":
        raise SolveConfigError(f"{path}: rules: mode {rules.mode}; the solve is of tactical "
                               "games (preset: tactical, or mode: tactical)")
    try:
        rules.check_players(cfg.players)
    except ValueError as exc:
        raise SolveConfigError(f"{path}: players: {exc}") from None
    return cfg, rules


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "solve-table", help="offline equilibrium of an n-player tactical game (MCCFR)",
        description="Solve the whole tactical game at a table of 2-8 players by Monte Carlo "
                    "CFR over deals (one behaviour strategy shared by every seat) and write "
                    "the strategy file `nash` plays there; optionally score snapshots with "
                    "the n-player exploitability bound and plot that curve.",
        epilog="example:\n  pyanitsa solve-table configs/solve/tactical36-3p.yaml")
    p.add_argument("config", help="a YAML solve config (configs/solve/)")
    p.add_argument("--set", dest="overrides", action="append", default=[],
                   metavar="KEY=VALUE", help="override a config field (repeatable)")
    p.add_argument("--no-progress", action="store_true", help="no progress bar (stderr)")
    p.set_defaults(run=run_solve_table)


def run_solve_table(args: argparse.Namespace) -> int:
    import numba
    from tqdm import tqdm

    from pyanitsa.solvers.mccfr import Solver

    cfg, rules = load_config(args.config, args.overrides)
    out = Path(cfg.output)
    if not out.is_absolute():
        out = Path(args.config).resolve().parent / out
    numba.set_num_threads(min(cfg.threads, numba.config.NUMBA_NUM_THREADS))
    solver = Solver(rules, cfg.players, seed=cfg.seed, eps=cfg.eps, use_last=cfg.last,
                    objective=cfg.objective, batch=cfg.batch)
    seconds = None if cfg.minutes is None else cfg.minutes * 60.0
    cpu0, wall0 = time.process_time(), time.perf_counter()
    snaps: list[tuple[float, int, Any]] = []
    marks = _marks(cfg, seconds)
    with tqdm(total=1000, desc=cfg.name, disable=args.no_progress, unit="", leave=False,
              bar_format="{desc}: {percentage:3.0f}%|{bar}| [{elapsed}<{remaining}{postfix}]"
              ) as bar:
        def progress(s: Solver) -> None:
            done = _done(cfg, s, seconds)
            bar.set_postfix_str(f"{s.deals:,} deals", refresh=False)
            bar.update(max(0, round(1000 * done) - bar.n))

        for mark in marks:
            solver.run(deals=None if mark[1] is None else mark[1],
                       seconds=None if mark[0] is None else mark[0] - solver.seconds,
                       progress=progress)
            if cfg.curve.deals:
                snaps.append((solver.seconds, solver.deals, solver.strategy()))
            if _done(cfg, solver, seconds) >= 1.0:
                break
    strat = solver.strategy()
    strat.save(out)
    cpu, wall = time.process_time() - cpu0, time.perf_counter() - wall0
    print(f"{cfg.name}: {solver.deals:,} deals in {wall:.1f} s wall, {cpu:.1f} s CPU "
          f"({cfg.threads} threads); {solver.layout.rows:,} rows; wrote {out} "
          f"({os.path.getsize(out) / 1e6:.2f} MB)")
    if cfg.curve.deals:
        _curve(cfg, rules, snaps, out, args.no_progress)
    return 0


def _marks(cfg: SolveConfig, seconds: float | None) -> list[tuple[float | None, int | None]]:
    """The budget cut into ``curve.snapshots`` equal steps of time and/or deals."""
    k = cfg.curve.snapshots if cfg.curve.deals else 1
    return [(None if seconds is None else seconds * (i + 1) / k,
             None if cfg.deals is None else -(-cfg.deals * (i + 1) // k)) for i in range(k)]


def _done(cfg: SolveConfig, s: Any, seconds: float | None) -> float:
    parts = []
    if seconds is not None:
        parts.append(s.seconds / seconds)
    if cfg.deals is not None:
        parts.append(s.deals / cfg.deals)
    return min(1.0, max(parts))


def _curve(cfg: SolveConfig, rules: Rules, snaps: list[tuple[float, int, Any]], out: Path,
           quiet: bool) -> None:
    """Score each snapshot and the baseline on the same deals; write the JSON and the plot."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from pyanitsa.agents.specs import make_agent
    from pyanitsa.solvers.cfr import NashAgent
    from pyanitsa.solvers.exploitability_n import exploit_table

    c = cfg.curve
    kw = {"players": cfg.players, "deals": c.deals, "seed": c.seed, "samples": c.samples,
          "fresh": c.samples, "objective": cfg.objective}
    points = []
    for secs, deals, strat in snaps:
        # not beside the output: nash reads every file there as a stored strategy
        with tempfile.TemporaryDirectory() as tmp:
            path = Path(tmp) / "snapshot.npz"
            strat.save(path)
            rep = exploit_table(rules, NashAgent(strategy=str(path)), **kw)
        points.append({"seconds": secs, "deals": deals, "gain": rep["exploitability"],
                       "ci95": rep["ci95"]})
        if not quiet:
            print(f"  {secs:8.1f} s  {deals:>10,} deals  exploitability {rep['exploitability']:.3f} "
                  f"[{rep['ci95'][0]:.3f}, {rep['ci95'][1]:.3f}]")
    base = exploit_table(rules, make_agent(c.baseline), **kw)
    doc = {"name": cfg.name, "players": cfg.players, "curve": points,
           "baseline": {"spec": c.baseline, "gain": base["exploitability"], "ci95": base["ci95"]},
           "response": {"deals": c.deals, "samples": c.samples, "fresh": c.samples,
                        "seed": c.seed}}
    out.with_suffix(".curve.json").write_text(json.dumps(doc, indent=1) + "\n")
    fig, ax = plt.subplots(figsize=(6, 4))
    ax.errorbar([p["seconds"] / 60 for p in points], [p["gain"] for p in points],
                yerr=[[p["gain"] - p["ci95"][0] for p in points],
                      [p["ci95"][1] - p["gain"] for p in points]], marker="o", label="nash")
    ax.axhline(base["exploitability"], color="grey", linestyle="--", label=c.baseline)
    ax.set_xlabel("solve time (minutes)")
    ax.set_ylabel("exploitability, cards a game (NashConv / N)")
    ax.set_title(f"{cfg.name}: {c.deals} deals, response K={c.samples}")
    ax.legend()
    fig.tight_layout()
    fig.savefig(out.with_suffix(".curve.png"), dpi=100)
    plt.close(fig)
    print(f"  {c.baseline}: {base['exploitability']:.3f} [{base['ci95'][0]:.3f}, {base['ci95'][1]:.3f}];"
          f" wrote {out.with_suffix('.curve.png')}")
