"""Equilibrium play at any table: an offline Monte Carlo CFR solve of the whole n-player
tactical game, and the strategy file it writes.

The solve (:class:`Solver`, kernels in :mod:`pyanitsa.solvers.mccfr_kernels`) learns one
behaviour strategy shared by every seat, ``σ(next rank | ranks still held, rank played
last)``, over chance-sampled deals, against the exact tactical game of RULES.md §3 (ties, splits
and the lone holder's banked cards included). That key forgets the dealt hand and the order
of the earlier cards: an imperfect-recall abstraction of a game whose real decision is one
order of the dealt hand, so the result is an approximate symmetric equilibrium, measured by
:func:`pyanitsa.solvers.exploitability_n.exploit_table` (docs/strength.md).

The file (:class:`Strategy`, ``np.savez_compressed``) holds the average strategy, each row
scaled to its largest entry and rounded to ``uint8``, and a JSON header: format version, the
rules (:meth:`Rules.to_json`), players, deals played, seed, the abstraction and a SHA-256 of
the table; nothing else (no time), so the same solve writes the same bytes. A row never visited is all zero and plays a uniformly random card order.
"""

from __future__ import annotations

import hashlib
import json
import os
import time
import zipfile
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

import numpy as np

from pyanitsa.agents.lazy import lazy_module
from pyanitsa.errors import CorruptFileError, PyanitsaError
from pyanitsa.ranks import rank_table
from pyanitsa.rules import Rules
from pyanitsa.solvers.exploitability_n import payoff_weights

mk = lazy_module("pyanitsa.solvers.mccfr_kernels")
kernels = lazy_module("pyanitsa.agents.kernels")

FORMAT_VERSION = 1
"""Version of the strategy file; a file of another version is refused."""
MAX_LOOKUP = 1 << 25
"""Mixed-radix indices of the deck's sub-multisets above which a table is refused (the lookup
is an ``int32`` a index: 128 MB)."""
MAX_ENTRIES = 1 << 28
"""Table entries (rows x ranks) above which a table is refused (two float64 tables: 4 GB)."""
Objective = Literal["margin", "win"]


class StrategyFileError(PyanitsaError):
    """A strategy file for other rules, another player count, or another format version; or a
    table the solver cannot hold."""


@dataclass(frozen=True)
class Layout:
    """How a table is indexed for ``rules`` and ``players``."""

    rules: Rules
    players: int
    hand: int
    """Cards a seat holds (RULES.md §3.1: the deck divided equally)."""
    deck: np.ndarray
    """Rank index of every card of the deck."""
    counts: np.ndarray
    """Cards of each rank in the deck."""
    mult: np.ndarray
    lookup: np.ndarray
    states: int
    use_last: bool
    """Whether a row depends on the rank played last."""

    @property
    def ranks(self) -> int:
        return int(self.counts.shape[0])

    @property
    def rows(self) -> int:
        return self.states * (self.ranks + 1)


def layout(rules: Rules, players: int, use_last: bool = True) -> Layout:
    """The table layout, refused (:class:`StrategyFileError`) when too large or not tactical."""
    if rules.mode != "tactical":
        raise StrategyFileError(f"mode: {rules.mode}: the solve is of the tactical game")
    rules.check_players(players)
    table = rank_table(rules)
    counts = np.array(table.counts, np.int64)
    hand = rules.deck.size // players
    size = int(np.prod(counts + 1, dtype=np.float64))
    if size > MAX_LOOKUP:
        raise StrategyFileError(f"deck: {rules.deck} has {size:,} sub-multisets of ranks, over "
                                f"{MAX_LOOKUP:,}: too large for the table")
    mult, lookup, states = mk.layout(counts, hand)
    if states * (len(counts) + 1) * len(counts) > MAX_ENTRIES:
        raise StrategyFileError(f"players: {players} with deck {rules.deck} give {states:,} "
                                "hand states: too large for the table")
    return Layout(rules, players, hand, np.array(table.rank_of, np.int8), counts, mult, lookup,
                  int(states), use_last)


@dataclass(frozen=True)
class Strategy:
    """A stored average strategy (see the module)."""

    layout: Layout
    table: np.ndarray
    """``uint8`` ``[rows, ranks]``: the row's policy up to scale (all zero: uniform)."""
    deals: int
    seed: int
    objective: str

    def header(self) -> dict[str, Any]:
        return {"format": "pyanitsa-mccfr", "version": FORMAT_VERSION,
                "rules": self.layout.rules.to_json(), "players": self.layout.players,
                "last": self.layout.use_last, "deals": self.deals, "seed": self.seed,
                "objective": self.objective, "digest": digest(self.table)}

    def save(self, path: str | Path) -> None:
        """Write the file (deterministic bytes: no timestamps in the archive)."""
        head = np.frombuffer(json.dumps(self.header(), sort_keys=True).encode(), np.uint8)
        path = Path(path)
        path.parent.mkdir(parents=True, exist_ok=True)
        with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as zf:
            for name, arr in (("header", head), ("table", self.table)):
                info = zipfile.ZipInfo(f"{name}.npy", date_time=(1980, 1, 1, 0, 0, 0))
                info.compress_type = zipfile.ZIP_DEFLATED
                with zf.open(info, "w") as fh:
                    np.lib.format.write_array(fh, np.ascontiguousarray(arr),
                                              allow_pickle=False)

    def sample(self, counts: np.ndarray, rng: np.random.Generator) -> np.ndarray:
        """A rank order of the hand ``counts`` drawn from the strategy with ``rng``."""
        lay = self.layout
        st = np.array([rng.integers(0, 1 << 63)], np.uint64)
        order = np.empty(int(counts.sum()), np.int8)
        mk.sample_order(self.table, lay.lookup, lay.mult, lay.use_last,
                        np.asarray(counts, np.int64), order, st)
        return order

    def probs(self, counts: np.ndarray, orders: np.ndarray) -> np.ndarray:
        """The probability of each rank order of the hand ``counts``."""
        lay = self.layout
        return mk.order_probs(self.table, lay.lookup, lay.mult, lay.use_last,
                              np.asarray(counts, np.int64), np.ascontiguousarray(orders, np.int8))


def digest(table: np.ndarray) -> str:
    return hashlib.sha256(np.ascontiguousarray(table).tobytes()).hexdigest()


def quantize(avg: np.ndarray) -> np.ndarray:
    """Each row scaled to its largest entry, 255 at most; rows never visited stay zero."""
    top = avg.max(axis=1, keepdims=True)
    scale = np.divide(255.0, top, out=np.zeros_like(top), where=top > 0)
    return np.rint(np.maximum(avg, 0.0) * scale).astype(np.uint8)


def load(path: str | Path, rules: Rules | None = None, players: int | None = None) -> Strategy:
    """Read a strategy file; with ``rules`` / ``players``, refuse one solved for others."""
    try:
        with np.load(path, allow_pickle=False) as data:
            head = json.loads(bytes(data["header"]).decode())
            table = data["table"]
    except (OSError, ValueError, KeyError, zipfile.BadZipFile, EOFError) as exc:
        if isinstance(exc, FileNotFoundError):
            raise StrategyFileError(f"strategy={str(path)!r}: no such file") from None
        raise CorruptFileError(f"strategy file {path}: damaged or not a strategy file "
                               f"({type(exc).__name__})") from None
    if not isinstance(head, dict) or head.get("format") != "pyanitsa-mccfr":
        raise CorruptFileError(f"strategy file {path}: not a pyanitsa strategy file")
    if head.get("version") != FORMAT_VERSION:
        raise StrategyFileError(f"strategy file {path}: version {head.get('version')!r}, this "
                                f"pyanitsa reads version {FORMAT_VERSION}")
    stored = Rules.from_json(head["rules"])
    lay = layout(stored, int(head["players"]), bool(head["last"]))
    if table.dtype != np.uint8 or table.shape != (lay.rows, lay.ranks) or \
            digest(table) != head.get("digest"):
        raise CorruptFileError(f"strategy file {path}: damaged (its table does not match its "
                               "header)")
    return check(Strategy(lay, table, int(head["deals"]), int(head["seed"]),
                          str(head["objective"])), path, rules, players)


def check(strat: Strategy, path: str | Path, rules: Rules | None, players: int | None
          ) -> Strategy:
    """``strat``, unless it was solved for other ``rules`` or ``players`` than given."""
    if rules is not None and strat.layout.rules != rules:
        raise StrategyFileError(f"strategy file {path}: solved for rules "
                                f"{json.dumps(strat.layout.rules.to_json())}, not "
                                f"{json.dumps(rules.to_json())}")
    if players is not None and strat.layout.players != players:
        raise StrategyFileError(f"strategy file {path}: solved for players="
                                f"{strat.layout.players}, not {players}")
    return strat


DEFAULT_BATCH = 256
"""Deals a batch plays against the same regrets (the parallel unit; part of the seed's
meaning: another batch size is another solve)."""


class Solver:
    """The running solve: regrets and the average strategy, both ``float64 [rows, ranks]``.

    ``eps`` is the traverser's exploration; ``batch`` deals share one snapshot of the regrets
    and are weighted by their batch number in both sums (linear CFR averaging)."""

    def __init__(self, rules: Rules, players: int, *, seed: int = 0, eps: float = 0.1,
                 use_last: bool = True, objective: Objective = "margin",
                 batch: int = DEFAULT_BATCH) -> None:
        if not 0.0 <= eps < 1.0:
            raise PyanitsaError(f"eps={eps!r}: an exploration probability, from 0 to below 1")
        if batch < 1:
            raise PyanitsaError(f"batch={batch!r}: at least 1 deal")
        self.weights = payoff_weights(objective)
        self.layout = layout(rules, players, use_last)
        self.seed, self.eps, self.objective, self.batch = seed, eps, objective, batch
        shape = (self.layout.rows, self.layout.ranks)
        self.reg = np.zeros(shape, np.float64)
        self.avg = np.zeros(shape, np.float64)
        self.batches = 0
        self.seconds = 0.0
        self.prm = kernels.params(rules)
        self.key = np.uint64(int(seed) & ((1 << 64) - 1))

    @property
    def deals(self) -> int:
        return self.batches * self.batch

    def step(self) -> None:
        """One batch of deals."""
        lay = self.layout
        start = time.perf_counter()
        self.batches += 1
        mk.run_batch(self.reg, self.avg, lay.lookup, lay.mult, lay.use_last, lay.deck,
                     lay.players, lay.hand, self.prm, self.key, self.deals - self.batch,
                     self.batch, self.eps, float(self.batches), *self.weights)
        self.seconds += time.perf_counter() - start

    def run(self, *, deals: int | None = None, seconds: float | None = None,
            progress: Callable[[Solver], None] | None = None) -> None:
        """Batches until ``deals`` deals in all, or ``seconds`` more of solving, whichever
        comes first (at least one batch); ``progress`` after each."""
        if deals is None and seconds is None:
            raise PyanitsaError("give deals or seconds (or both)")
        stop = None if seconds is None else self.seconds + seconds
        while True:
            self.step()
            if progress is not None:
                progress(self)
            if deals is not None and self.deals >= deals:
                return
            if stop is not None and self.seconds >= stop:
                return

    def strategy(self) -> Strategy:
        return Strategy(self.layout, quantize(self.avg), self.deals, self.seed, self.objective)


STRATEGIES = Path(__file__).resolve().parent / "strategies"
"""The shipped strategy files (package data ``pyanitsa.solvers.strategies``)."""


def stored_path(rules: Rules, players: int) -> Path | None:
    """The shipped strategy file for these rules and players, if one was solved (headers
    only: nothing is loaded)."""
    for path in sorted(STRATEGIES.glob("*.npz")):
        if _stored_key(path) == (json.dumps(rules.to_json(), sort_keys=True), players):
            return path
    return None


def stored_strategy(rules: Rules, players: int) -> Strategy | None:
    """The shipped strategy for these rules and players, if one was solved."""
    path = stored_path(rules, players)
    return None if path is None else cached_load(str(path))


_KEYS: dict[Path, tuple[str, int]] = {}
_LOADED: dict[tuple[str, int, int], Strategy] = {}


def _stored_key(path: Path) -> tuple[str, int]:
    if path not in _KEYS:  # the header only: np.load reads members on demand
        with np.load(path, allow_pickle=False) as data:
            head = json.loads(bytes(data["header"]).decode())
        _KEYS[path] = (json.dumps(Rules.from_json(head["rules"]).to_json(), sort_keys=True),
                       int(head["players"]))
    return _KEYS[path]


def cached_load(path: str, rules: Rules | None = None, players: int | None = None
                ) -> Strategy:
    """:func:`load`, once per file version a process (a table is megabytes)."""
    try:
        stat = os.stat(path)
    except OSError:
        raise StrategyFileError(f"strategy={path!r}: no such file") from None
    key = (path, stat.st_mtime_ns, stat.st_size)
    if key not in _LOADED:
        _LOADED[key] = load(path)
    return check(_LOADED[key], path, rules, players)
