"""Record and cycle hunting on the batch core: a seeded local search over two-player deals.

A deal is a permutation of the deck's card ids, seat 0 taking the first half as its stack (top
card first). The search keeps ``chains`` current deals; each generation every chain proposes
``proposals`` neighbours (one to three card swaps, between or within the stacks), the whole
generation plays in one parallel call, and a chain moves to its best neighbour when that game is
at least as long (ties move too, so a chain drifts along plateaus). A chain that has not got
longer for ``patience`` generations, or that found a cycle, restarts from a random deal;
``patience=0`` restarts a chain at its first generation without a longer game: short greedy
climbs from random deals (each restart's first generation always moves, from fitness -1). Every
random draw comes from one ``numpy`` generator
whose state, with the chains, is the whole search state: saving it between generations and
loading it again continues the same stream exactly.

``method="blocks"`` (the cycle hunt's default) searches another space: each generation plays
``chains * proposals`` random compositions of cycling block pairs (:mod:`pyanitsa.research.hunt_blocks`),
deals built to cycle from their first round. Neither random deals nor climbing on length
reach a 32-card cycle in 10^8 deals (docs/research.md); compositions do in seconds.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

import numpy as np
from numba import njit, prange

from pyanitsa.batch.classic import (
    N_RESULT,
    PMAX,
    R_OUTCOME,
    R_ROUNDS,
    R_SHOWDOWNS,
    play_any,
)
from pyanitsa.batch.classic_round import deal_into, deal_work
from pyanitsa.batch.encode import CAPPED, CYCLE, R_CLEN, R_CSTART, params, ring_size, strength_table
from pyanitsa.errors import InvalidRulesError, PyanitsaRuntimeError
from pyanitsa.records import Record
from pyanitsa.research.hunt_blocks import Composer
from pyanitsa.rules import Rules

SLICE = 16
"""Games per unit of parallel work (results never depend on it)."""


@njit(cache=True, parallel=True)
def play_deals(prm, table, deals, dealer, cap):
    """Play two-player deals ``deals[G, n]`` (card ids, seat 0 the first half); the result rows."""
    games, n = deals.shape
    out = np.zeros((games, N_RESULT), np.int64)
    elim = np.full((games, PMAX), -1, np.int64)
    for c in prange((games + SLICE - 1) // SLICE):
        stk, pile, cnt, g, tab, sm, buf, rng, init, ilen, players = deal_work(cap, n)
        for i in range(c * SLICE, min(games, (c + 1) * SLICE)):
            deal_into(init, ilen, table, deals[i])
            play_any(stk, pile, cnt, g, tab, sm, buf, prm, players, init, ilen, dealer, rng,
                     out, i, elim)
    return out


@dataclass(frozen=True)
class Found:
    """A game worth keeping: a new longest game, a cycle, or a game the rules' cap stopped."""

    kind: str
    """``record``, ``cycle`` or ``capped``."""
    deal: tuple[tuple[int, ...], tuple[int, ...]]
    """The two stacks, card ids, top card first."""
    rounds: int
    showdowns: int
    """Showdowns played: the cards each player turned face up (the literature's cards played)."""
    period: int | None
    """A cycle's period in rounds."""
    start: int | None
    """The rounds played before a cycle's repeating position first stood."""
    at_deal: int
    """How many deals the hunt had played when it found this one."""


@dataclass
class HuntState:
    """Everything a hunt needs to go on: saved between generations, it resumes exactly."""

    rng: dict[str, Any]
    """The ``numpy`` bit generator's state."""
    deals: np.ndarray
    """``[chains, n]`` each chain's current deal."""
    fitness: np.ndarray
    """``[chains]`` its game's length key (see :func:`length_key`)."""
    stale: np.ndarray
    """``[chains]`` generations since it last got longer."""
    played: int = 0
    """Deals played so far."""
    best: int = -1
    """The longest finished game's length key so far."""
    cycles: set[str] = field(default_factory=set)
    """The deals of the cycles found (JSON), so each is stored once."""

    def to_json(self, *, with_cycles: bool = False) -> dict[str, Any]:
        """The state as JSON; ``with_cycles`` adds the cycles' deals (one searcher of several:
        the store's finds are all searchers')."""
        obj = {"rng": self.rng, "deals": self.deals.tolist(), "fitness": self.fitness.tolist(),
               "stale": self.stale.tolist(), "played": self.played, "best": self.best}
        if with_cycles:
            obj["cycles"] = sorted(self.cycles)
        return obj

    @classmethod
    def from_json(cls, obj: dict[str, Any], cycles: set[str] | None = None) -> HuntState:
        """A state from :meth:`to_json`; ``cycles`` when the JSON has none."""
        known = set(obj["cycles"]) if "cycles" in obj else set(cycles or ())
        deals = np.array(obj["deals"], dtype=np.int64)
        return cls(obj["rng"], deals if deals.size else deals.reshape(0, 0),
                   np.array(obj["fitness"], dtype=np.int64),
                   np.array(obj["stale"], dtype=np.int64), obj["played"], obj["best"], known)


def length_key(rounds: np.ndarray, showdowns: np.ndarray) -> np.ndarray:
    """Longer means more rounds, then more showdowns: one integer to compare."""
    return rounds * (1 << 24) + showdowns


class Hunt:
    """A seeded search for long games and cycles of two-player classic deals (see the module).

    ``method="climb"`` restarts a chain as soon as it found a cycle and scores cycles like any
    game; ``method="blocks"`` plays compositions of cycling blocks, ``chains * proposals`` a
    generation (no chains, no climbing).
    """

    def __init__(self, rules: Rules, *, chains: int = 32, proposals: int = 8,
                 patience: int = 200, method: str = "climb") -> None:
        if rules.mode != "classic":
            raise InvalidRulesError(f"mode: hunt plays classic deals, not {rules.mode}")
        if rules.random_play:
            raise InvalidRulesError(f"pickup_order: {rules.pickup_order}: a hunt needs rules "
                                    "without random play (a deal must decide its game)")
        if rules.deck.size < 2:
            raise InvalidRulesError(f"deck: {rules.deck} has fewer than two cards")
        self.rules = rules
        self.prm = params(rules)  # refuses pickup_order: agent
        self.table = strength_table(rules).astype(np.int64)
        self.cap = ring_size(rules.deck.size)
        self.dealer = rules.dealer if rules.dealer != "random" else 0
        self.chains, self.proposals, self.patience = chains, proposals, patience
        self.n = rules.deck.size
        self.method = method
        self.composer: Composer | None = None
        if method == "blocks":
            self.composer = self._composer(rules)

    def _composer(self, rules: Rules) -> Composer:
        half = (self.n + 1) // 2
        lead = half if self.dealer == 0 else self.n - half
        composer = Composer(rules, self.prm, self.table, (lead, self.n - lead))
        if not composer.sizes_fit() or composer.draw(np.random.Generator(np.random.PCG64(0)),
                                                     tries=256) is None:
            raise InvalidRulesError(
                f"deck: {rules.deck}: no composition of the {len(composer.patterns)} cycling "
                f"4 + 4 block pairs of these rules fills stacks of {lead} and {self.n - lead} "
                "cards; hunt it with method='climb'")
        return composer

    @property
    def generation(self) -> int:
        """Deals played per generation."""
        return self.chains * self.proposals

    def start(self, seed: int, searcher: int = 0) -> HuntState:
        """A new search; searcher ``i > 0`` of several draws from its own stream of ``seed``
        (searcher 0's is the single hunt's)."""
        bits = np.random.PCG64(seed if searcher == 0 else np.random.SeedSequence([seed, searcher]))
        rng = np.random.Generator(bits)
        chains = self.chains if self.composer is None else 0
        deals = np.array([rng.permutation(self.n) for _ in range(chains)],
                         dtype=np.int64).reshape(chains, self.n)
        return HuntState(rng.bit_generator.state, deals, np.full(chains, -1, dtype=np.int64),
                         np.zeros(chains, dtype=np.int64))

    def _neighbours(self, rng: np.random.Generator, deals: np.ndarray) -> np.ndarray:
        """``proposals`` copies of each chain's deal, each with one to three card swaps."""
        cand = np.repeat(deals, self.proposals, axis=0)
        rows = np.arange(cand.shape[0])
        swaps = 1 + np.minimum(rng.geometric(0.5, size=cand.shape[0]) - 1, 2)
        for k in range(3):
            a = rng.integers(0, self.n, size=cand.shape[0])
            b = rng.integers(0, self.n, size=cand.shape[0])
            on = rows[swaps > k]
            ca, cb = cand[on, a[on]], cand[on, b[on]]
            cand[on, a[on]], cand[on, b[on]] = cb, ca
        return cand

    def step(self, state: HuntState) -> list[Found]:
        """One generation: play every chain's neighbours, move, restart, and return the finds."""
        rng = np.random.Generator(np.random.PCG64())
        rng.bit_generator.state = state.rng
        if self.composer is not None:
            return self._compose_step(state, rng)
        cand = self._neighbours(rng, state.deals)
        out = play_deals(self.prm, self.table, cand, self.dealer, self.cap)
        outcome = out[:, R_OUTCOME]
        rounds, showdowns = out[:, R_ROUNDS], out[:, R_SHOWDOWNS]
        keys = length_key(rounds, showdowns)
        found = self._finds(state, cand, out, keys)
        by_chain = keys.reshape(self.chains, self.proposals)
        pick = by_chain.argmax(axis=1)
        best = by_chain[np.arange(self.chains), pick]
        move = best >= state.fitness
        chosen = pick + np.arange(self.chains) * self.proposals
        better = best > state.fitness
        state.deals[move] = cand[chosen[move]]
        state.fitness[move] = best[move]
        state.stale = np.where(better, 0, state.stale + 1)
        cycled = (outcome.reshape(self.chains, self.proposals) == CYCLE).any(axis=1)
        restart = cycled | (state.stale > self.patience)
        for c in np.flatnonzero(restart):
            state.deals[c] = rng.permutation(self.n)
            state.fitness[c] = -1
            state.stale[c] = 0
        state.played += cand.shape[0]
        state.rng = rng.bit_generator.state
        return found

    def _compose_step(self, state: HuntState, rng: np.random.Generator) -> list[Found]:
        """A generation of compositions (a random deal where a draw got stuck) played at once."""
        assert self.composer is not None
        cand = np.empty((self.generation, self.n), dtype=np.int64)
        for i in range(self.generation):
            drawn = self.composer.draw(rng)
            if drawn is None:
                cand[i] = rng.permutation(self.n)
                continue
            lead, other = drawn
            cand[i] = np.concatenate((lead, other) if self.dealer == 0 else (other, lead))
        out = play_deals(self.prm, self.table, cand, self.dealer, self.cap)
        found = self._finds(state, cand, out, length_key(out[:, R_ROUNDS], out[:, R_SHOWDOWNS]))
        state.played += cand.shape[0]
        state.rng = rng.bit_generator.state
        return found

    def _finds(self, state: HuntState, cand: np.ndarray, out: np.ndarray,
               keys: np.ndarray) -> list[Found]:
        half = (self.n + 1) // 2
        found: list[Found] = []
        outcome = out[:, R_OUTCOME]
        finished = (outcome != CYCLE) & (outcome != CAPPED)
        for i in np.flatnonzero((outcome == CYCLE) | (outcome == CAPPED)):
            deal = (tuple(int(x) for x in cand[i, :half]), tuple(int(x) for x in cand[i, half:]))
            text = repr(deal)
            if text in state.cycles:
                continue
            state.cycles.add(text)
            cyc = outcome[i] == CYCLE
            found.append(Found("cycle" if cyc else "capped", deal, int(out[i, R_ROUNDS]),
                               int(out[i, R_SHOWDOWNS]), int(out[i, R_CLEN]) if cyc else None,
                               int(out[i, R_CSTART]) if cyc else None, state.played + int(i) + 1))
        if finished.any():
            i = int(np.flatnonzero(finished)[keys[finished].argmax()])
            if keys[i] > state.best:
                state.best = int(keys[i])
                deal = (tuple(int(x) for x in cand[i, :half]),
                        tuple(int(x) for x in cand[i, half:]))
                found.append(Found("record", deal, int(out[i, R_ROUNDS]),
                                   int(out[i, R_SHOWDOWNS]), None, None,
                                   state.played + i + 1))
        return found

    def record(self, found: Found) -> Record:
        """The replayable record of a find."""
        return Record(self.rules, found.deal, dealer=self.dealer)

    def rows(self, finds: list[Found]) -> list[tuple[Any, ...]]:
        """The hunt store's rows of ``finds``, each replayed by the reference engine first."""
        rows = []
        for found in finds:
            record = self.record(found)
            result = record.play()
            if result.rounds != found.rounds:
                raise HuntMismatch(f"the batch core played {found.rounds} rounds, the "
                                   f"reference engine {result.rounds}: {record.dumps()}")
            rows.append((found.kind, found.rounds, found.showdowns, found.period, found.start,
                         found.at_deal, record.dumps(), json.dumps(result.to_json())))
        return rows

    def advance(self, state: HuntState, until: int, stop_on_cycle: bool
                ) -> list[tuple[Any, ...]]:
        """Generations until ``until`` deals are played (or, with ``stop_on_cycle``, the end of
        the one that found a cycle); the store's rows of their finds. A pure function of the
        state: the unit of work of a hunt with several searchers, on any backend."""
        rows: list[tuple[Any, ...]] = []
        while state.played < until:
            rows.extend(self.rows(self.step(state)))
            if stop_on_cycle and any(r[0] == "cycle" for r in rows):
                break
        return rows


class HuntMismatch(PyanitsaRuntimeError):
    """The batch core and the reference engine disagree about a find (a bug, never input)."""
