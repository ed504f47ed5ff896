"""The batch core's Python face: play records, run seeded simulations, score tactical orders.

Everything here gives exactly the reference engine's results (``pyanitsa.classic``,
``pyanitsa.tactical``); the reference engine stays the specification and the place that logs
events.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from pyanitsa.batch import classic as _classic
from pyanitsa.batch import encode as _enc
from pyanitsa.batch import tactical as _tactical
from pyanitsa.batch.encode import (
    CAPPED,
    CYCLE,  # noqa: F401  (re-exported by pyanitsa.batch)
    DRAW,
    OUTCOME_NAMES,
    WIN,
    params,
    ring_size,
    seats_array,
    strength_table,
)
from pyanitsa.classic import ClassicPosition
from pyanitsa.errors import InvalidRecordError, InvalidRulesError
from pyanitsa.records import Record
from pyanitsa.results import ClassicResult, Result, TacticalResult, Termination
from pyanitsa.rng import MASK64
from pyanitsa.rules import Rules

CHUNK = 256
"""Games per unit of parallel work (results never depend on it)."""


def set_workers(workers: int | None) -> int:
    """Use ``workers`` threads (capped by the cores numba was started with); returns the count."""
    import numba

    limit = numba.config.NUMBA_NUM_THREADS
    n = limit if workers is None else max(1, min(int(workers), limit))
    numba.set_num_threads(n)
    return n


# -- records ------------------------------------------------------------------------------------


def play_records(records: Sequence[Record]) -> list[Result]:
    """Play records with the batch core; the same results as ``record.play()`` for each.

    ``pickup_order: agent`` records need an agent's decisions and are not supported.
    """
    groups: dict[Rules, list[int]] = {}
    for i, rec in enumerate(records):
        if rec.mode == "classic":
            rec.rules.check_seed(rec.seed, InvalidRecordError)
        groups.setdefault(rec.rules, []).append(i)
    results: list[Result | None] = [None] * len(records)
    for rules, idx in groups.items():
        mode = rules.mode
        prm = params(rules)  # rejects pickup_order: agent
        cap = ring_size(rules.deck.size)
        group = [records[i] for i in idx]
        init, lens = seats_array(rules, [r.seats for r in group])
        if init.shape[2] < cap:  # pad to the ring size the core indexes with
            init = np.pad(init, ((0, 0), (0, 0), (0, cap - init.shape[2])))
        players = np.array([len(r.seats) for r in group], dtype=np.int64)
        if mode == "classic":
            dealers = np.array([r.leader for r in group], dtype=np.int64)
            seeds = np.array([(r.seed or 0) & MASK64 for r in group], dtype=np.uint64)
            out, elim = _classic.play_stacks(prm, players, init, lens, dealers, seeds, cap)
            for j, i in enumerate(idx):
                results[i] = classic_result(out[j], elim[j])
        else:
            scores, wins, out = _tactical.play_many(init, lens, players, prm)
            for j, i in enumerate(idx):
                results[i] = tactical_result(out[j], scores[j], wins[j], int(players[j]))
    return results  # type: ignore[return-value]


# -- positions ------------------------------------------------------------------------------------

UNFINISHED = 4
"""Outcome code of a game stopped by its horizon before it ended."""


@dataclass(frozen=True)
class ClassicBatch:
    """Classic games played on from positions, one row per position."""

    outcome: np.ndarray
    """0 win, 1 draw, 2 cycle, 3 capped (the rules' ``max_rounds``), 4 unfinished (stopped by
    the horizon)."""
    winner: np.ndarray
    """The winning seat, or -1."""
    rounds: np.ndarray
    """Rounds played in all, counting those before the position."""
    showdowns: np.ndarray
    counts: np.ndarray
    """``[G, P]`` cards each seat holds at the end (stack and won pile); ``P`` is the most
    seats of any position, with zeros past a game's own seats."""
    rows: np.ndarray = field(repr=False)
    eliminated: np.ndarray = field(repr=False)

    def result(self, i: int) -> ClassicResult | None:
        """Game ``i``'s result, as the reference engine gives it; None if unfinished."""
        if self.outcome[i] == UNFINISHED:
            return None
        return classic_result(self.rows[i], self.eliminated[i])


def play_positions(rules: Rules, positions: Sequence[ClassicPosition], *,
                   horizon: int | None = None) -> ClassicBatch:
    """Play classic games on from ``positions``, each for at most ``horizon`` more rounds.

    Game ``i`` is ``ClassicGame.from_position(rules, positions[i])`` played until it ends or
    has played ``horizon`` more rounds. The horizon works as a lower ``max_rounds`` (the end
    checks, cycle detection included, run at the start of every round, the horizon's too); a
    game it stops comes back ``UNFINISHED`` rather than capped. This is what search agents
    call for their rollouts.
    """
    if rules.mode != "classic":
        raise InvalidRulesError(f"mode: {rules.mode} rules given to play_positions")
    if horizon is not None and horizon < 0:
        raise ValueError(f"horizon={horizon}: must be >= 0 (or None)")
    prm = params(rules)  # rejects pickup_order: agent
    for pos in positions:
        pos.check(rules)
    games = len(positions)
    players = np.array([pos.players for pos in positions], dtype=np.int64)
    width = max(2, int(players.max())) if games else 2
    cap = ring_size(rules.deck.size)
    table = strength_table(rules)
    init = np.zeros((games, width, cap), dtype=np.uint8)
    pinit = np.zeros((games, width, cap), dtype=np.uint8)
    ilen = np.zeros((games, width), dtype=np.int64)
    plen = np.zeros((games, width), dtype=np.int64)
    pad = [-1] * _classic.PMAX
    flat: list[int] = []
    start_rows = []
    for i, pos in enumerate(positions):
        p = pos.players
        ilen[i, :p] = [len(x) for x in pos.stacks]
        plen[i, :p] = [len(x) for x in pos.piles]
        for stack, pile in zip(pos.stacks, pos.piles, strict=True):
            flat += stack
            flat += pile
        # the layout of a start vector (ST_LEADER, ST_ROUNDS, ST_SHOWDOWNS, ST_NELIM, ST_ELIM)
        start_rows.append([pos.leader, pos.rounds, pos.showdowns, len(pos.eliminated),
                           *pos.eliminated, *pad[len(pos.eliminated):]])
    starts = np.array(start_rows, dtype=np.int64).reshape(games, _classic.N_START)
    stops = np.full(games, rules.max_rounds, dtype=np.int64)
    if horizon is not None:
        stops = np.minimum(stops, starts[:, _classic.ST_ROUNDS] + horizon)
    seeds = np.array([(pos.seed or 0) & MASK64 for pos in positions], dtype=np.uint64)
    _classic.fill_positions(table[np.asarray(flat, dtype=np.int64)], ilen, plen, init, pinit)
    out, elim, counts = _classic.play_positions(prm, players, init, ilen, pinit, plen, starts,
                                                stops, seeds, cap)
    outcome = out[:, _enc.R_OUTCOME].copy()
    rounds = out[:, _enc.R_ROUNDS]
    outcome[(outcome == CAPPED) & (rounds < rules.max_rounds)] = UNFINISHED
    winner = np.where(outcome == WIN, out[:, _enc.R_WINNER], -1)
    return ClassicBatch(outcome, winner, rounds, out[:, _enc.R_SHOWDOWNS],
                        counts[:, :width], out, elim)


def classic_result(row: np.ndarray, elim: np.ndarray) -> ClassicResult:
    outcome = Termination(OUTCOME_NAMES[int(row[_enc.R_OUTCOME])])
    winner = int(row[_enc.R_WINNER])
    nelim = int(row[_enc.R_NELIM])
    cstart = int(row[_enc.R_CSTART])
    clen = int(row[_enc.R_CLEN])
    return ClassicResult(outcome, winner if winner >= 0 else None, int(row[_enc.R_ROUNDS]),
                         int(row[_enc.R_SHOWDOWNS]), tuple(int(s) for s in elim[:nelim]),
                         cstart if outcome is Termination.CYCLE else None,
                         clen if outcome is Termination.CYCLE else None)


def tactical_result(row: np.ndarray, scores: np.ndarray, wins: np.ndarray,
                    players: int) -> TacticalResult:
    winners = tuple(s for s in range(players) if wins[s])
    return TacticalResult(Termination.WIN if len(winners) == 1 else Termination.DRAW, winners,
                          tuple(int(x) for x in scores[:players]),
                          int(row[_tactical.T_REMOVED]), int(row[_tactical.T_ROUNDS]),
                          int(row[_tactical.T_SHOWDOWNS]))


# -- tactical evaluator -------------------------------------------------------------------------


@dataclass(frozen=True)
class TacticalBatch:
    """Results of many tactical games, one row per game."""

    scores: np.ndarray
    """``[G, P]`` cards in each seat's копилка."""
    winners: np.ndarray
    """``[G, P]`` bool: the seats that win or share the win."""
    rounds: np.ndarray
    showdowns: np.ndarray
    removed: np.ndarray


def tactical_scores(rules: Rules, hands: np.ndarray, *, lengths: np.ndarray | None = None
                    ) -> TacticalBatch:
    """Play tactical games from ordered hands: ``hands[G, P, n]`` card ids, first played first.

    ``lengths[G, P]`` gives each hand's length when they differ (default: all ``n``). Meant for
    search agents scoring thousands of candidate orders per call.
    """
    if rules.mode != "tactical":
        raise InvalidRulesError(f"mode: {rules.mode} rules given to tactical_scores")
    hands = np.asarray(hands)
    if hands.ndim != 3:
        raise ValueError(f"hands must be [games, players, cards], not shape {hands.shape}")
    games, players, n = hands.shape
    rules.check_players(players)
    strength = strength_table(rules)
    st = strength[hands]
    if lengths is None:
        lengths = np.full((games, players), n, dtype=np.int64)
    counts = np.full(games, players, dtype=np.int64)
    scores, wins, out = _tactical.play_many(st, np.asarray(lengths, dtype=np.int64), counts,
                                            params(rules))
    return TacticalBatch(scores[:, :players], wins[:, :players], out[:, _tactical.T_ROUNDS],
                         out[:, _tactical.T_SHOWDOWNS], out[:, _tactical.T_REMOVED])


# -- seeded simulation --------------------------------------------------------------------------


@dataclass
class Simulation:
    """Per-game arrays of a seeded run: game ``i`` is dealt from ``derive_seed(seed, i)``."""

    rules: Rules
    players: int
    seed: int
    rounds: np.ndarray
    showdowns: np.ndarray
    outcome: np.ndarray
    """Classic: 0 win, 1 draw, 2 cycle, 3 capped. Tactical: 0 one winner, 1 a shared win."""
    winner: np.ndarray
    """The winning seat, or -1 (a classic draw, a shared tactical win)."""
    scores: np.ndarray | None = None
    """Tactical only: ``[G, P]`` scores."""
    winners: np.ndarray | None = None
    """Tactical only: ``[G, P]`` bool, the seats that win or share the win."""
    seconds: float = 0.0
    extra: dict[str, Any] = field(default_factory=dict)

    @property
    def games(self) -> int:
        return int(self.rounds.shape[0])

    def summary(self) -> dict[str, Any]:
        """``games``, ``mean/median/p10/p90/max_rounds``, ``wins`` per seat (sole wins),
        ``draws`` (classic draws; tactical shared wins), ``cycles``, ``capped``, ``seconds``."""
        from pyanitsa.batch.tally import Tally

        tally = Tally(self.rules, self.players, self.seed)
        tally.add(self)
        return tally.summary(self.seconds)


def simulate(rules: Rules, players: int, games: int, seed: int, *, workers: int | None = 1,
             first: int = 0) -> Simulation:
    """Deal and play ``games`` seeded games (``first`` .. ``first + games - 1``).

    Game ``i`` is ``Record.dealt(rules, players, derive_seed(seed, i))``
    played to the end; tactical hands play in the order dealt (a uniformly random order).
    The result does not depend on ``workers``.
    """
    rules.check_players(players)
    prm = params(rules)  # rejects pickup_order: agent
    if games < 0:
        raise ValueError("games must be >= 0")
    set_workers(workers)
    strength = strength_table(rules)
    dealer_fixed = -1 if rules.dealer == "random" else int(rules.dealer)
    useed = np.uint64(seed & MASK64)
    chunk = CHUNK if rules.mode == "classic" else 16 * CHUNK
    start = time.perf_counter()
    if rules.mode == "classic":
        out, _ = _classic.simulate_chunks(prm, strength, players, rules.deal == "equal",
                                          dealer_fixed, useed, first, games, chunk,
                                          ring_size(rules.deck.size))
        seconds = time.perf_counter() - start
        outcome = out[:, _enc.R_OUTCOME]
        winner = np.where(outcome == WIN, out[:, _enc.R_WINNER], -1)
        return Simulation(rules, players, seed, out[:, _enc.R_ROUNDS],
                          out[:, _enc.R_SHOWDOWNS], outcome, winner, seconds=seconds)
    scores, wins, out = _tactical.simulate_chunks(prm, strength, players, dealer_fixed, useed,
                                                  first, games, chunk)
    seconds = time.perf_counter() - start
    winner = out[:, _tactical.T_WINNER]
    outcome = np.where(winner >= 0, WIN, DRAW)
    return Simulation(rules, players, seed, out[:, _tactical.T_ROUNDS],
                      out[:, _tactical.T_SHOWDOWNS], outcome, winner, scores, wins,
                      seconds=seconds)
