"""The callbacks of ``pyanitsa train`` (this module imports stable-baselines3: import it lazily).

* :class:`League`: every ``self_play.every`` steps it freezes the learner's weights to
  ``snapshots/step_N.pt`` and swaps every env's opponents to a new pool through
  ``vec_env.env_method("set_opponents", pool)``.
* :class:`Evaluator`: duplicate matches against the baselines; ``eval.csv`` and the learning
  curve (the final evaluation included).
* :class:`Checkpointer`: a checkpoint every ``checkpoint_every`` steps, and one when a signal
  asks the run to stop (:mod:`pyanitsa.training.checkpoint`).
* :class:`Progress`: a tqdm bar over env steps with the ETA and the last evaluation.

Each callback that counts has ``state()`` and ``restore(state)``: a checkpoint holds them.
"""

from __future__ import annotations

import csv
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from stable_baselines3.common.callbacks import BaseCallback

from pyanitsa.agents.specs import make_agent
from pyanitsa.training.config import TrainConfig
from pyanitsa.training.pool import OpponentPool

Log = Callable[[str], None]


class League(BaseCallback):
    """Freezes snapshots and swaps the envs' opponents."""

    def __init__(self, cfg: TrainConfig, run: Path, meta_fn: Any, log: Log) -> None:
        super().__init__()
        self.cfg, self.run, self.meta_fn, self.log = cfg, run, meta_fn, log
        self.next = max(cfg.self_play.start, cfg.self_play.every)
        self.snapshots: list[str] = []
        """Their specs, ``{run}`` standing for the run folder."""
        self._resend = False

    def state(self) -> dict[str, Any]:
        return {"next": self.next, "snapshots": list(self.snapshots)}

    def restore(self, state: dict[str, Any]) -> None:
        self.next, self.snapshots = state["next"], list(state["snapshots"])
        self._resend = bool(self.snapshots)  # the envs' saved pools name the old folder

    def pool(self) -> OpponentPool:
        """The configured opponents and the snapshots, their files found in the run folder (the
        snapshots are named relative to it, so a moved run folder still resumes)."""
        entries = [(o.spec, o.weight) for o in self.cfg.opponents]
        share = self.cfg.self_play.weight / max(len(self.snapshots), 1)
        base = str(self.run.resolve())
        entries += [(s.replace("{run}", base), share) for s in self.snapshots]
        return OpponentPool(entries)

    def _on_training_start(self) -> None:
        if self._resend:
            self.training_env.env_method("set_opponents", self.pool())

    def _on_step(self) -> bool:
        from pyanitsa.policies.files import save_policy

        sp, step = self.cfg.self_play, self.num_timesteps
        if sp.every and step >= self.next:
            self.next += sp.every
            path = save_policy(self.model.policy, self.meta_fn(),
                               self.run / "snapshots" / f"step_{step}.pt")
            flag = "(greedy=True)" if sp.deterministic else ""  # ppo: samples by default
            self.snapshots = (self.snapshots + [f"ppo:{{run}}/snapshots/{path.name}{flag}"]
                              )[-sp.keep:]
            pool = self.pool()
            self.training_env.env_method("set_opponents", pool)
            self.log(f"step {step}: snapshot {path.name}; pool of {len(pool.entries)}")
        return True


class Evaluator(BaseCallback):
    """Duplicate matches against the baselines; eval.csv and learning_curve.png."""

    def __init__(self, cfg: TrainConfig, run: Path, meta_fn: Any, log: Log) -> None:
        super().__init__()
        self.cfg, self.run, self.meta_fn, self.log = cfg, run, meta_fn, log
        self.rules = meta_fn().make_rules()
        self.next = cfg.eval.every or cfg.total_steps + 1
        self.rows: list[dict[str, Any]] = []
        self.latest = ""
        self.seconds = 0.0
        self.baselines = [make_agent(s) for s in cfg.eval.baselines]
        self.extra: list[Any] = []
        """An ensemble's members past the learner's network (``distill.members``)."""

        self.random_exploit: dict[str, Any] | None = None
        """``random``'s exploitability on the same deals: measured once, at the first."""

    def state(self) -> dict[str, Any]:
        return {"next": self.next, "rows": [dict(r) for r in self.rows], "latest": self.latest,
                "seconds": self.seconds, "random_exploit": self.random_exploit}

    def restore(self, state: dict[str, Any]) -> None:
        self.next, self.latest, self.seconds = state["next"], state["latest"], state["seconds"]
        self.rows = [dict(r) for r in state["rows"]]
        self.random_exploit = state.get("random_exploit")

    def _on_step(self) -> bool:
        if self.num_timesteps >= self.next:
            self.next += self.cfg.eval.every
            if self.num_timesteps < self.cfg.total_steps:  # the final evaluation follows
                self.evaluate(self.cfg.eval.deals)
        return True

    def evaluate(self, deals: int, final: bool = False) -> list[Any]:
        from pyanitsa.policies.ppo import PolicyAgent
        from pyanitsa.solvers.duplicate import duplicate_match

        start = time.perf_counter()
        nets = [self.model.policy, *self.extra]
        policy = nets if len(nets) > 1 else nets[0]
        me = PolicyAgent(policy, self.meta_fn())  # samples, seeded by the deals
        out = []
        for spec, opp in zip(self.cfg.eval.baselines, self.baselines, strict=True):
            res = duplicate_match(self.rules, me, opp, deals, self.cfg.eval.seed, label=spec)
            out.append(res)
            row = {"step": self.num_timesteps, "baseline": spec, "deals": res.deals,
                   "score": round(res.score, 5), "low": round(res.low, 5),
                   "high": round(res.high, 5), "margin": round(res.margin, 4),
                   "final": int(final)}
            self.rows.append(row)
            if self.logger is not None:
                self.logger.record(f"eval/{spec}", res.score)
        exploit = self.exploitability(me, PolicyAgent(policy, self.meta_fn(), greedy=True))
        for row in self.rows[-len(out):]:
            row.update(exploit)
        self.seconds += time.perf_counter() - start
        self.latest = " ".join(f"{r.opponent.split('(')[0]}={r.score:.3f}" for r in out)
        if exploit:
            self.latest += f" exploit={exploit['exploitability']:.2f}"
        self.log(f"step {self.num_timesteps}: eval {self.latest}")
        write_eval(self.run, self.rows)
        return out


    def exploitability(self, me: Any, greedy: Any) -> dict[str, float]:
        """eval.csv's exploitability columns (empty when not measured): the policy as it plays
        (``me``, sampling) measured exactly as ``random`` is on the same deals (a lower bound
        fitted on ``samples`` calls, scored on ``fresh`` others), with a 95% interval;
        ``random``'s; and the greedy policy's (exact: it lists its one order)."""
        ex = self.cfg.eval.exploit
        if ex is None or self.rules.mode != "tactical" or self.meta_fn().players != 2:
            return {}
        from pyanitsa.solvers.exploitability import exploit_deals

        def measure(agent: Any) -> dict[str, Any]:
            return exploit_deals(self.rules, agent, deals=ex.deals, seed=ex.seed,
                                 samples=ex.samples, fresh=ex.fresh)

        if self.random_exploit is None:
            rep = measure(make_agent("random"))
            self.random_exploit = {"exploitability": rep["exploitability"]}
        rep = measure(me)
        low, high = rep["ci95"]
        return {"exploitability": round(rep["exploitability"], 4),
                "exploit_low": round(low, 4), "exploit_high": round(high, 4),
                "random_exploitability": round(self.random_exploit["exploitability"], 4),
                "greedy_exploitability": round(measure(greedy)["exploitability"], 4)}


class Checkpointer(BaseCallback):
    """Saves at the start of a rollout: every ``checkpoint_every`` steps, and when ``stop``
    holds a signal (then the run stops at its next step, which the checkpoint does not hold)."""

    def __init__(self, every: int, save: Callable[[], Path], stop: dict[str, int],
                 log: Log) -> None:
        super().__init__()
        self.every, self.save, self.stop, self.log = every, save, stop, log
        self.next = every
        self.saved: Path | None = None
        self.saved_step = -1
        self.stopped = False

    def state(self) -> dict[str, Any]:
        return {"next": self.next}

    def restore(self, state: dict[str, Any]) -> None:
        self.next = state["next"]

    def _on_rollout_start(self) -> None:
        due = self.every and self.num_timesteps >= self.next
        if due:
            while self.next <= self.num_timesteps:
                self.next += self.every
        if due or self.stop["signum"]:
            self.saved, self.saved_step = self.save(), self.num_timesteps
        self.stopped = bool(self.stop["signum"])

    def _on_step(self) -> bool:
        return not self.stopped


class EntropySchedule(BaseCallback):
    """Sets ``model.ent_coef`` (a plain attribute SB3 reads in every update) at each rollout
    start from the step count, so a resumed run trains with the same values."""

    def __init__(self, cfg: TrainConfig) -> None:
        super().__init__()
        self.cfg = cfg

    def _on_rollout_start(self) -> None:
        self.model.ent_coef = self.cfg.ppo.ent_at(self.num_timesteps / self.cfg.total_steps)
        self.logger.record("train/ent_coef_scheduled", self.model.ent_coef)

    def _on_step(self) -> bool:
        return True


class PinThreads(BaseCallback):
    """Keeps torch on ``torch_threads`` threads. numba's OpenMP layer shares libgomp with torch
    and sets its thread count to numba's (the core count) whenever a parallel kernel of the
    batch core runs: the meta-game of the league, a best response in the pool, the
    exploitability evaluation. On a loaded two-core machine that made training about 10x slower
    (softmax and backward contending for the cores), so the count is set back before each
    rollout and before each update."""

    def __init__(self, threads: int) -> None:
        super().__init__()
        self.threads = threads

    def _pin(self) -> None:
        import torch

        if torch.get_num_threads() != self.threads:
            torch.set_num_threads(self.threads)

    def _on_rollout_start(self) -> None:
        self._pin()

    def _on_rollout_end(self) -> None:
        self._pin()

    def _on_step(self) -> bool:
        return True


class Progress(BaseCallback):
    """A tqdm bar over env steps with the ETA and the last evaluation."""

    def __init__(self, cfg: TrainConfig, evaluator: Evaluator) -> None:
        super().__init__()
        self.cfg = cfg
        self.bar: Any = None
        self.evaluator = evaluator

    def _on_training_start(self) -> None:
        from tqdm import tqdm

        # a resumed run's bar starts where the checkpoint was taken
        self.bar = tqdm(total=self.cfg.total_steps, initial=self.num_timesteps, unit="step",
                        unit_scale=True, dynamic_ncols=True, desc=self.cfg.name,
                        disable=not self.cfg.progress, file=sys.stderr)

    def _on_step(self) -> bool:
        self.bar.update(self.num_timesteps - self.bar.n)
        if self.evaluator.latest:
            self.bar.set_postfix_str(self.evaluator.latest, refresh=False)
        return True

    def _on_training_end(self) -> None:
        self.bar.close()


def write_eval(run: Path, rows: list[dict[str, Any]]) -> None:
    """``eval.csv`` and ``learning_curve.png`` from every evaluation so far."""
    if not rows:
        return
    with open(run / "eval.csv", "w", newline="", encoding="utf-8") as fh:
        writer = csv.DictWriter(fh, fieldnames=list(rows[0]))
        writer.writeheader()
        writer.writerows(rows)
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    exploits = [r for r in rows if r.get("exploitability") not in (None, "")]
    fig, axes = plt.subplots(1, 2 if exploits else 1, figsize=(12 if exploits else 7, 4),
                             squeeze=False)
    _plot_scores(axes[0][0], rows, run.name)
    if exploits:
        _plot_exploitability(axes[0][1], exploits)
    fig.tight_layout()
    fig.savefig(run / "learning_curve.png", dpi=100)
    plt.close(fig)


def _plot_scores(ax: Any, rows: list[dict[str, Any]], name: str) -> None:
    for spec in dict.fromkeys(r["baseline"] for r in rows):
        # the final evaluation is a point of the curve too (often with more deals), starred
        pts = sorted((r for r in rows if r["baseline"] == spec), key=lambda r: r["step"])
        xs = [r["step"] for r in pts]
        (line,) = ax.plot(xs, [r["score"] for r in pts], marker=".", label=spec)
        ax.fill_between(xs, [r["low"] for r in pts], [r["high"] for r in pts], alpha=0.15,
                        color=line.get_color())
        last = [r for r in pts if r["final"]]
        ax.plot([r["step"] for r in last], [r["score"] for r in last], marker="*", ms=10,
                ls="none", color=line.get_color())
    ax.axhline(0.5, color="grey", lw=0.8, ls="--")
    ax.set_xlabel("env steps (*: final evaluation)")
    ax.set_ylabel("duplicate pair score (95% CI)")
    ax.set_title(f"{name}: evaluation against baselines")
    ax.legend(fontsize=7, loc="best")


def _plot_exploitability(ax: Any, rows: list[dict[str, Any]]) -> None:
    """One point per evaluation (its rows repeat it once per baseline), with random's."""
    per_step = {(r["step"], r["final"]): r for r in rows}
    pts = sorted(per_step.values(), key=lambda r: (r["step"], r["final"]))
    xs = [r["step"] for r in pts]
    ax.plot(xs, [float(r["exploitability"]) for r in pts], marker=".", label="policy (greedy)")
    ax.fill_between(xs, [float(r["exploit_low"]) for r in pts],
                    [float(r["exploit_high"]) for r in pts], alpha=0.15)
    ax.axhline(float(pts[0]["random_exploitability"]), color="grey", lw=0.8, ls="--",
               label="uniform random (lower bound)")
    last = [r for r in pts if r["final"]]
    ax.plot([r["step"] for r in last], [float(r["exploitability"]) for r in last],
            marker="*", ms=10, ls="none", color="tab:blue")
    ax.set_xlabel("env steps (*: final evaluation)")
    ax.set_ylabel("exploitability, cards a game (95% CI)")
    ax.set_title("what a best response gains (lower is stronger)")
    ax.legend(fontsize=7, loc="best")


__all__ = ["Checkpointer", "EntropySchedule", "Evaluator", "League", "PinThreads", "Progress",
           "write_eval"]
