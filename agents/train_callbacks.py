"""The league, evaluation and progress callbacks of ``pyanitsa train``, and the opponent pool.

* :class:`OpponentPool`: the agent at every opponent seat, one member drawn by weight per hand.
* ``League``: every ``self_play.every`` steps it freezes the learner's weights to
  ``snapshots/step_N.pt`` and swaps every env's opponents to a new pool through
  ``vec_env.env_method("set_opponents", pool)``.
* ``Evaluator``: duplicate matches against the baselines; ``eval.csv`` and the learning curve.
* ``Progress``: a tqdm bar over env steps with the ETA and the last evaluation.
"""

from __future__ import annotations

import csv
import sys
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from pyanitsa.agents.protocol import Agent, BaseAgent, HandView
from pyanitsa.agents.specs import make_agent
from pyanitsa.agents.train_config import TrainConfig
from pyanitsa.cards import Card


class OpponentPool(BaseAgent):
    """An agent that orders each hand as one pool member drawn by weight (with the game's rng).

    Pickles as its specs and weights only; members are built on first use in each process (a
    ``ppo:`` snapshot loads its frozen weights there).
    """

    def __init__(self, entries: Sequence[tuple[str, float]]) -> None:
        if not entries:
            raise ValueError("an opponent pool needs at least one member")
        self.entries = [(str(s), float(w)) for s, w in entries]
        total = sum(w for _, w in self.entries)
        self.probs = np.array([w / total for _, w in self.entries])
        self._agents: list[Agent] | None = None
        self.spec = "pool(" + ", ".join(f"{s}:{w:g}" for s, w in self.entries) + ")"

    def __getstate__(self) -> dict[str, Any]:
        return {"entries": self.entries}

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.__init__(state["entries"])  # type: ignore[misc]

    @property
    def agents(self) -> list[Agent]:
        if self._agents is None:
            self._agents = [make_agent(s) for s, _ in self.entries]
        return self._agents

    def order_hand(self, view: HandView, rng: np.random.Generator) -> Sequence[Card]:
        i = int(rng.choice(len(self.entries), p=self.probs)) if len(self.entries) > 1 else 0
        return self.agents[i].order_hand(view, rng)


# -- callbacks ----------------------------------------------------------------------------------


def _callbacks_base() -> type:
    from stable_baselines3.common.callbacks import BaseCallback

    return BaseCallback


def make_callbacks(cfg: TrainConfig, run: Path, meta_fn: Any, log: Any) -> list[Any]:
    """The league, evaluation and progress callbacks (classes built lazily: SB3 is heavy)."""
    from pyanitsa.agents.duplicate import duplicate_match
    from pyanitsa.agents.policy import PolicyAgent, save_policy

    base = _callbacks_base()
    rules = meta_fn().make_rules()

    class League(base):  # type: ignore[misc, valid-type]
        """Freezes snapshots and swaps the envs' opponents."""

        def __init__(self) -> None:
            super().__init__()
            self.next = max(cfg.self_play.start, cfg.self_play.every)
            self.snapshots: list[str] = []

        def _on_step(self) -> bool:
            sp = cfg.self_play
            if sp.every and self.num_timesteps >= self.next:
                self.next += sp.every
                path = save_policy(self.model.policy, meta_fn(),
                                   run / "snapshots" / f"step_{self.num_timesteps}.pt")
                flag = "" if sp.deterministic else "(deterministic=False)"
                self.snapshots = (self.snapshots + [f"ppo:{path.resolve()}{flag}"])[-sp.keep:]
                entries = [(o.spec, o.weight) for o in cfg.opponents]
                share = sp.weight / len(self.snapshots)
                entries += [(s, share) for s in self.snapshots]
                self.training_env.env_method("set_opponents", OpponentPool(entries))
                log(f"step {self.num_timesteps}: snapshot {path.name}; pool of "
                    f"{len(entries)}")
            return True

    class Evaluator(base):  # type: ignore[misc, valid-type]
        """Duplicate matches against the baselines; eval.csv and learning_curve.png."""

        def __init__(self) -> None:
            super().__init__()
            self.next = cfg.eval.every or cfg.total_steps + 1
            self.rows: list[dict[str, Any]] = []
            self.latest = ""
            self.seconds = 0.0
            self.baselines = [make_agent(s) for s in cfg.eval.baselines]

        def _on_step(self) -> bool:
            if self.num_timesteps >= self.next:
                self.next += cfg.eval.every
                if self.num_timesteps < cfg.total_steps:  # the final evaluation follows
                    self.evaluate(cfg.eval.deals)
            return True

        def evaluate(self, deals: int, final: bool = False) -> list[Any]:
            start = time.perf_counter()
            me = PolicyAgent(self.model.policy, meta_fn(), deterministic=True)
            out = []
            for spec, opp in zip(cfg.eval.baselines, self.baselines, strict=True):
                res = duplicate_match(rules, me, opp, deals, cfg.eval.seed, label=spec)
                out.append(res)
                row = {"step": self.num_timesteps, "baseline": spec, "deals": res.deals,
                       "score": round(res.score, 5), "low": round(res.low, 5),
                       "high": round(res.high, 5), "margin": round(res.margin, 4),
                       "final": int(final)}
                self.rows.append(row)
                if self.logger is not None:
                    self.logger.record(f"eval/{spec}", res.score)
            self.seconds += time.perf_counter() - start
            self.latest = " ".join(f"{r.opponent.split('(')[0]}={r.score:.3f}" for r in out)
            log(f"step {self.num_timesteps}: eval {self.latest}")
            write_eval(run, self.rows)
            return out

    class Progress(base):  # type: ignore[misc, valid-type]
        """A tqdm bar over env steps with the ETA and the last evaluation."""

        def __init__(self, evaluator: Any) -> None:
            super().__init__()
            self.bar: Any = None
            self.evaluator = evaluator

        def _on_training_start(self) -> None:
            from tqdm import tqdm

            self.bar = tqdm(total=cfg.total_steps, unit="step", unit_scale=True,
                            dynamic_ncols=True, desc=cfg.name, disable=not cfg.progress,
                            file=sys.stderr)

        def _on_step(self) -> bool:
            self.bar.update(self.num_timesteps - self.bar.n)
            if self.evaluator.latest:
                self.bar.set_postfix_str(self.evaluator.latest, refresh=False)
            return True

        def _on_training_end(self) -> None:
            self.bar.close()

    evaluator = Evaluator()
    return [League(), evaluator, Progress(evaluator)]


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

    fig, ax = plt.subplots(figsize=(7, 4))
    for spec in dict.fromkeys(r["baseline"] for r in rows):
        pts = [r for r in rows if r["baseline"] == spec and not r["final"]]
        if not pts:
            pts = [r for r in rows if r["baseline"] == spec]
        xs = [r["step"] for r in pts]
        ax.plot(xs, [r["score"] for r in pts], marker=".", label=spec)
        ax.fill_between(xs, [r["low"] for r in pts], [r["high"] for r in pts], alpha=0.15)
    ax.axhline(0.5, color="grey", lw=0.8, ls="--")
    ax.set_xlabel("env steps")
    ax.set_ylabel("duplicate pair score (95% CI)")
    ax.set_title(f"{run.name}: evaluation against baselines")
    ax.legend(fontsize=7, loc="best")
    fig.tight_layout()
    fig.savefig(run / "learning_curve.png", dpi=100)
    plt.close(fig)


__all__ = ["OpponentPool", "make_callbacks", "write_eval"]
