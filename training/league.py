"""The PSRO-style league of ``pyanitsa train`` (``league:``; this module imports stable-baselines3:
import it lazily).

Every ``league.every`` env steps a *generation* ends: the learner is frozen as
``snapshots/gen_K.pt`` (it samples its orders, ``deterministic=False``) and, unless
``league.best_responses`` is off, ``best_response(target=<that snapshot>)`` joins with it. The
population is the configured ``opponents``, every snapshot and every best response. The meta-game
between them is scored on a fixed deal set (:class:`MetaGame`): in two-player tactical an agent's
order depends only on its own view, so each member orders each (deal, seat) once, when it joins
(its orders are cached, in the checkpoint too), and every pair is scored from the cached orders by
the batch core in both seatings. Its symmetric zero-sum Nash equilibrium (``solve_lp``) decides
the next generation's opponent weights::

    weights = (1 - league.fixed_share) * nash + league.fixed_share * configured weights

so the scripted heuristics never leave training. Each generation is a log line, rows of
``league.csv`` (generation, step, member, kind, nash, weight, payoff: the member's meta payoff
against the training mixture, in cards a game, and its spec) and ``league.npz`` (the members, their
cached orders and the meta-game matrix, for checking by hand).

Snapshot files are named relative to the run folder (in the checkpoint and in ``league.csv``) and
resolved when a pool is built, so a run folder that was moved still resumes.
"""

from __future__ import annotations

import csv
import time
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

import numpy as np
from stable_baselines3.common.callbacks import BaseCallback

from pyanitsa.training.config import TrainConfig
from pyanitsa.training.pool import OpponentPool, generators_untouched

KINDS = ("opponent", "snapshot", "best_response")


@dataclass(frozen=True)
class Member:
    """One member of the league's population."""

    name: str
    """``gen_K``, ``br_K``, or the configured opponent's spec."""
    kind: str
    """One of :data:`KINDS`."""
    spec: str
    """The agent spec, with ``{run}`` standing for the run folder (resolved by :meth:`agent_spec`)."""
    fixed: float = 0.0
    """The configured weight (normalised over the opponents; 0 for snapshots and responses)."""

    def agent_spec(self, run: Path) -> str:
        return self.spec.replace("{run}", str(run.resolve()))


def snapshot_members(k: int, cfg: TrainConfig) -> list[Member]:
    """Generation ``k``'s snapshot and, unless switched off, its best response."""
    snap = f"ppo:{{run}}/snapshots/gen_{k}.pt(deterministic=False)"
    out = [Member(f"gen_{k}", "snapshot", snap)]
    lg = cfg.league
    if lg.best_responses:
        out.append(Member(f"br_{k}", "best_response",
                          f"best_response(target={snap!r}, samples={lg.br_samples}, "
                          f"restarts={lg.br_restarts})"))
    return out


class MetaGame:
    """The members' orders on the meta-game's deals, and the payoff matrix between them.

    ``orders[name]`` is an ``int8`` array ``(deals, 2, hand)``: the member's rank order in each
    seat of each deal, drawn with the keyed generator of
    :func:`pyanitsa.solvers.mixes.sample_rng` (``meta_seed``, the deal, the seat, the member's
    index), so the same member orders the same way in a resumed run.
    """

    def __init__(self, rules: Any, deals: int, seed: int) -> None:
        from pyanitsa.dealing import deal_from_seed
        from pyanitsa.protocol import hand_view
        from pyanitsa.rng import derive_seed

        self.rules, self.seed = rules, seed
        self.views = []
        for i in range(deals):
            dealt = deal_from_seed(rules, 2, derive_seed(seed, i))
            self.views.append([hand_view(rules, s, dealt.seats, len(dealt.set_aside))
                               for s in (0, 1)])
        self.orders: dict[str, np.ndarray] = {}

    def add(self, name: str, agent: Any, index: int) -> None:
        """Order every (deal, seat) as ``agent`` (member number ``index``) would."""
        from pyanitsa.agents.seeding import key_from_seed
        from pyanitsa.solvers.mixes import sample_rng

        key = key_from_seed(self.seed)
        views = [v for pair in self.views for v in pair]
        rngs = [sample_rng(self.seed, d, s, index, key)
                for d in range(len(self.views)) for s in (0, 1)]
        batched = getattr(agent, "order_hands", None)
        cards = (batched(views, rngs) if batched is not None else
                 [agent.order_hand(v, r) for v, r in zip(views, rngs, strict=True)])
        ranks = [[v.ranks.rank_of[c] for c in o] for v, o in zip(views, cards, strict=True)]
        self.orders[name] = np.array(ranks, np.int8).reshape(len(self.views), 2, -1)

    def matrix(self, names: list[str]) -> np.ndarray:
        """``m[i, j]``: member ``i``'s mean margin against member ``j`` over the deals, both
        seatings averaged (antisymmetric, zero diagonal)."""
        from pyanitsa.solvers.lp import payoff_matrix, zero_sum_payoff

        m = np.zeros((len(names), len(names)))
        for d in range(len(self.views)):
            rows = np.stack([self.orders[n][d, 0] for n in names])
            cols = np.stack([self.orders[n][d, 1] for n in names])
            pay = zero_sum_payoff(payoff_matrix(self.rules, rows, cols), "margin",
                                  self.rules.misere)
            m += (pay - pay.T) / 2  # i in seat 0 against j, and j in seat 0 against i
        return m / len(self.views)


def mixture(matrix: np.ndarray, fixed: np.ndarray, share: float) -> tuple[np.ndarray, np.ndarray]:
    """``(nash, weights)``: the symmetric meta-game's equilibrium and the training mixture."""
    from pyanitsa.solvers.lp import solve_lp

    _, nash, _ = solve_lp(matrix)
    weights = (1.0 - share) * nash + share * fixed / fixed.sum()
    return nash, weights / weights.sum()


class LeagueTrainer(BaseCallback):
    """Ends a generation every ``league.every`` steps (see the module) and swaps the opponents of
    every env to the new mixture."""

    def __init__(self, cfg: TrainConfig, run: Path, meta_fn: Any, log: Any) -> None:
        super().__init__()
        self.cfg, self.run, self.meta_fn, self.log = cfg, run, meta_fn, log
        total = sum(o.weight for o in cfg.opponents)
        names = [o.spec for o in cfg.opponents]
        # a spec listed twice is two members (their orders are cached by name)
        names = [n if names.count(n) == 1 else f"{n}#{i}" for i, n in enumerate(names)]
        self.members = [Member(n, "opponent", o.spec, o.weight / total)
                        for n, o in zip(names, cfg.opponents, strict=True)]
        self.next = cfg.league.every
        self.generation = 0
        self.weights = [m.fixed for m in self.members]
        self.rows: list[dict[str, Any]] = []
        self.meta: MetaGame | None = None
        self._orders: dict[str, np.ndarray] = {}
        self._resend = False

    @property
    def snapshots(self) -> list[str]:
        """The members beyond the configured opponents (run.json's ``league``)."""
        return [m.spec for m in self.members if m.kind != "opponent"]

    def state(self) -> dict[str, Any]:
        orders = self.meta.orders if self.meta is not None else self._orders
        return {"next": self.next, "generation": self.generation,
                "members": [asdict(m) for m in self.members], "weights": list(self.weights),
                "rows": [dict(r) for r in self.rows],
                "orders": {k: v.copy() for k, v in orders.items()}}

    def restore(self, state: dict[str, Any]) -> None:
        self.next, self.generation = state["next"], state["generation"]
        self.members = [Member(**m) for m in state["members"]]
        self.weights = list(state["weights"])
        self.rows = [dict(r) for r in state["rows"]]
        self._orders = {k: v.copy() for k, v in state["orders"].items()}
        self._resend = self.generation > 0  # the envs' saved pools name the old folder

    def pool(self) -> OpponentPool:
        return OpponentPool([(m.agent_spec(self.run), w)
                             for m, w in zip(self.members, self.weights, strict=True) if w > 0])

    def _on_training_start(self) -> None:
        if self._resend:
            self.training_env.env_method("set_opponents", self.pool())

    def _on_step(self) -> bool:
        if self.num_timesteps >= self.next:
            self.next += self.cfg.league.every
            # building members loads networks (torch's generator) and the meta-game's orders
            # are drawn from their own generators: the run's generators must not move, or a
            # resumed run (whose orders come from the checkpoint) would diverge
            with generators_untouched():
                self.new_generation(self.num_timesteps)
            self.training_env.env_method("set_opponents", self.pool())
        return True

    def new_generation(self, step: int) -> None:
        from pyanitsa.agents.specs import make_agent
        from pyanitsa.policies.files import save_policy

        start = time.perf_counter()
        self.generation += 1
        k = self.generation
        save_policy(self.model.policy, self.meta_fn(), self.run / "snapshots" / f"gen_{k}.pt")
        self.members += snapshot_members(k, self.cfg)
        meta = self._meta_game()
        for i, m in enumerate(self.members):
            if m.name not in meta.orders:
                meta.add(m.name, make_agent(m.agent_spec(self.run)), i)
        names = [m.name for m in self.members]
        matrix = meta.matrix(names)
        fixed = np.array([m.fixed for m in self.members])
        nash, weights = mixture(matrix, fixed, self.cfg.league.fixed_share)
        self.weights = [float(w) for w in weights]
        payoff = matrix @ weights
        for m, n, w, p in zip(self.members, nash, weights, payoff, strict=True):
            # the spec last: the longest, and a best response's holds commas (quoted)
            self.rows.append({"generation": k, "step": step, "member": m.name, "kind": m.kind,
                              "nash": round(float(n), 6), "weight": round(float(w), 6),
                              "payoff": round(float(p), 4), "spec": m.spec})
        self._write(names, meta, matrix)
        top = sorted(zip(weights, names, strict=True), reverse=True)[:4]
        self.log(f"step {step}: league generation {k}, {len(names)} members, "
                 f"{int((nash > 0).sum())} in the meta-Nash support; weights "
                 + " ".join(f"{n}={w:.2f}" for w, n in top)
                 + f"; gen_{k} scores {payoff[names.index(f'gen_{k}')]:+.2f} against the mix "
                 f"({time.perf_counter() - start:.1f} s)")

    def _meta_game(self) -> MetaGame:
        if self.meta is None:
            lg = self.cfg.league
            self.meta = MetaGame(self.meta_fn().make_rules(), lg.meta_deals, lg.meta_seed)
            self.meta.orders.update(self._orders)
        return self.meta

    def _write(self, names: list[str], meta: MetaGame, matrix: np.ndarray) -> None:
        with open(self.run / "league.csv", "w", newline="", encoding="utf-8") as fh:
            writer = csv.DictWriter(fh, fieldnames=list(self.rows[0]))
            writer.writeheader()
            writer.writerows(self.rows)
        np.savez(self.run / "league.npz", members=np.array(names),
                 orders=np.stack([meta.orders[n] for n in names]), matrix=matrix,
                 weights=np.array(self.weights))


def league_callback(cfg: TrainConfig, run: Path, meta_fn: Any, log: Any) -> BaseCallback:
    """The league of ``cfg``: :class:`LeagueTrainer` with ``league.every``, else self-play's."""
    from pyanitsa.training.callbacks import League

    if cfg.league.every:
        return LeagueTrainer(cfg, run, meta_fn, log)
    return League(cfg, run, meta_fn, log)


__all__ = ["LeagueTrainer", "Member", "MetaGame", "league_callback", "mixture",
           "snapshot_members"]
