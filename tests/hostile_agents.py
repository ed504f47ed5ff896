"""Hostile agents for tests/test_agents_hostile.py, named by spec as ``hostile_agents:Class``.

The tests put this folder on ``sys.path`` (and ``PYTHONPATH`` for subprocesses), so the specs
import in tournament workers too. Each misbehaves in one way; the tests check that only its own
games suffer.
"""

from __future__ import annotations

import contextlib
import os
import signal
import sys
import time
from typing import ClassVar

import numpy as np
import tournament_agents
from tournament_agents import Slow, Strong  # noqa: F401 - the tests name hostile_agents:Strong


class _Base(tournament_agents._Base):
    def order_hand(self, view, rng):
        return list(view.hand)


class Exiting(_Base):
    """Calls ``sys.exit(7)`` in every decision."""

    def order_hand(self, view, rng):
        sys.exit(7)

    def order_pickup(self, view, rng):
        sys.exit(7)


class Interrupting(_Base):
    """Raises KeyboardInterrupt itself (no signal) in every decision."""

    def order_hand(self, view, rng):
        raise KeyboardInterrupt

    def order_pickup(self, view, rng):
        raise KeyboardInterrupt


class BaseRaising(_Base):
    """Raises a bare BaseException subclass of its own."""

    class Boom(BaseException):
        pass

    def order_hand(self, view, rng):
        raise self.Boom("no Exception here")


class ExitingAtBirth(_Base):
    """Calls ``sys.exit(5)`` in its constructor."""

    def __init__(self) -> None:
        sys.exit(5)


class SignalsItself(_Base):
    """Sends SIGINT to its own process during a decision, as a user's Ctrl-C would arrive,
    then waits for it (or, with ``swallow=True``, catches the KeyboardInterrupt and answers)."""

    def __init__(self, swallow: bool = False) -> None:
        self.swallow = swallow

    def order_hand(self, view, rng):
        try:
            os.kill(os.getpid(), signal.SIGINT)
            time.sleep(2)
        except KeyboardInterrupt:
            if not self.swallow:
                raise
        return list(view.hand)


class Sleepy(Slow):
    """Answers after ``delay`` seconds (so a run lasts long enough to be interrupted)."""

    def __init__(self, delay: float = 0.01) -> None:
        super().__init__(delay)


class Vandal(_Base):
    """Writes to everything its view reaches (the view, its rules, their deck, the rank table),
    then plays like _Base."""

    def order_hand(self, view, rng):
        order = list(view.hand)
        vandalise(view)
        return order

    def order_pickup(self, view, rng):
        order = list(view.cards)
        vandalise(view)
        return order


def vandalise(view) -> None:
    rules = view.rules
    ranks = view.ranks
    for key, value in (("misere", not rules.misere), ("max_rounds", 1),
                       ("weakest_beats_ace", not rules.weakest_beats_ace)):
        object.__setattr__(rules, key, value)
    deck = rules.deck
    deck.__dict__["values"] = tuple(reversed(deck.values))
    object.__setattr__(deck, "ranks", deck.ranks + 1)
    for key in ("rank_of", "counts"):
        with contextlib.suppress(AttributeError):  # a table that cannot be written to
            object.__setattr__(ranks, key, tuple(reversed(getattr(ranks, key))))
    object.__setattr__(view, "seat", 99)


# -- reading the generator ------------------------------------------------------------------------

_MUL1, _MUL2 = 0xBF58476D1CE4E5B9, 0x94D049BB133111EB
_MASK = (1 << 64) - 1
_GOLDEN = 0x9E3779B97F4A7C15
_OLD_AGENT_STREAM = 0xA6E7


def _mix64(z: int) -> int:
    z = ((z ^ (z >> 30)) * _MUL1) & _MASK
    z = ((z ^ (z >> 27)) * _MUL2) & _MASK
    return z ^ (z >> 31)


def _unshift(z: int, k: int) -> int:
    x = z
    for _ in range(64 // k + 1):
        x = z ^ (x >> k)
    return x


def _unmix64(z: int) -> int:
    z = _unshift(z, 31)
    z = (z * pow(_MUL2, -1, 1 << 64)) & _MASK
    z = _unshift(z, 27)
    z = (z * pow(_MUL1, -1, 1 << 64)) & _MASK
    return _unshift(z, 30)


def game_seed_from(entropy: int, seat: int) -> int:
    """Run ``derive_seed(game_seed, 0xA6E7, seat)`` (how agent generators were seeded) backwards:
    each SplitMix64 step is a bijection."""
    s = entropy & _MASK
    for p in (seat, _OLD_AGENT_STREAM):
        s = ((_unmix64(s) - _GOLDEN) & _MASK) ^ _mix64((p + _GOLDEN) & _MASK)
    return (_unmix64(s) - _GOLDEN) & _MASK


class SeedReader(_Base):
    """Reads its generator's seed, runs the seed derivation backwards to a game seed and deals
    from it. It notes in ``log`` whether the deal it found gives it its own hand, and its
    guess of each unseen card's holder: from the deal it found, which is the truth when the
    generator gives the game away."""

    log: list[tuple[bool, dict[int, int]]] = []

    def order_hand(self, view, rng):
        from pyanitsa.dealing import deal
        from pyanitsa.rng import Rng

        entropy = rng.bit_generator.seed_seq.entropy
        found = deal(view.rules, view.players, Rng(game_seed_from(int(entropy), view.seat)))
        recovered = sorted(found.seats[view.seat]) == sorted(view.hand)
        holder = {c: s for s, cards in enumerate(found.seats) for c in cards if s != view.seat}
        others = [s for s in range(view.players) if s != view.seat]
        mine = set(view.hand)
        guess = {c: holder.get(c, others[c % len(others)]) for c in range(view.rules.deck.size)
                 if c not in mine}
        SeedReader.log.append((recovered, guess))
        return list(view.hand)


# -- a cheater: everything the generator and a guessable seed can give away ---------------------

GUESSED_SEEDS = range(4)
"""Tournament seeds the cheater tries (the default is 0), with ..."""
GUESSED_PAIRINGS, GUESSED_DEALS = range(3), range(64)
"""... the first pairings and deals of each."""


def _deal_seeds():
    from pyanitsa.rng import derive_seed

    for seed in GUESSED_SEEDS:
        for p in GUESSED_PAIRINGS:
            for d in GUESSED_DEALS:
                yield seed, derive_seed(seed, p, d)


class Cheater(_Base):
    """A two-seat tactical bot that tries every way its generator and a guessable seed give the
    game away, and plays the exact best response to what it learns:

    1. the old SplitMix64 derivation, run backwards from its generator's seed to the deal seed;
    2. ``agent_key: seed`` with a seed it guesses (the default 0, ...): the key is then
       ``key_from_seed(seed)``, and a deal seed ``derive_seed(seed, pairing, deal)`` whose
       generator for its seat is its own gives the deal and the other seat's generator, so
       ``random``'s order is known;
    3. a deal of those seeds that gives it its own hand: the other hand is known.

    With the other order known it plays :func:`dp_response` to it; otherwise exactly
    ``tie_aware`` (same generator use), so when it learns nothing its games are tie_aware's.
    ``found`` counts the decisions where each attack worked."""

    found: ClassVar[dict[str, int]] = {"inverted": 0, "keyed": 0, "hand": 0}
    _by_entropy: ClassVar[dict[int, tuple[int, bytes]]] = {}
    _hand_sets: ClassVar[dict[object, set[tuple[int, ...]]]] = {}

    @classmethod
    def _table(cls) -> dict[int, tuple[int, bytes]]:
        from pyanitsa.agents.seeding import agent_seed, key_from_seed

        if not cls._by_entropy:
            for seed, game in _deal_seeds():
                key = key_from_seed(seed)
                for seat in range(2):
                    cls._by_entropy[agent_seed(game, seat, key)] = (game, key)
        return cls._by_entropy

    def order_hand(self, view, rng):
        from pyanitsa.agents.scripted import TieAware

        opponent = self._opponent_order(view, int(rng.bit_generator.seed_seq.entropy))
        if opponent is None:
            return TieAware().order_hand(view, rng)
        from pyanitsa.agents.search import cards_for_ranks
        from pyanitsa.solvers.best_response import dp_response

        rank_of = view.ranks.rank_of
        _, order = dp_response(view.rules, view.hand_ranks(), [rank_of[c] for c in opponent])
        return cards_for_ranks(view.hand, [int(r) for r in order], view.ranks)

    def _opponent_order(self, view, entropy):
        from pyanitsa.agents.seeding import agent_seed
        from pyanitsa.dealing import deal
        from pyanitsa.rng import Rng

        other = 1 - view.seat
        mine = sorted(view.hand)
        old = game_seed_from(entropy, view.seat)
        if sorted(deal(view.rules, 2, Rng(old)).seats[view.seat]) == mine:
            Cheater.found["inverted"] += 1  # the old derivation: the other generator is old too
            return None
        hit = self._table().get(entropy)
        if hit is not None:
            game, key = hit
            rank_of = view.ranks.rank_of  # the referee shows a hand sorted by rank, then card
            hand = sorted(deal(view.rules, 2, Rng(game)).seats[other], key=lambda c: (rank_of[c], c))
            perm = np.random.default_rng(agent_seed(game, other, key)).permutation(len(hand))
            Cheater.found["keyed"] += 1
            return [hand[i] for i in perm]
        if tuple(mine) in self._hands(view.rules):
            Cheater.found["hand"] += 1
        return None

    @classmethod
    def _hands(cls, rules) -> set[tuple[int, ...]]:
        from pyanitsa.dealing import deal
        from pyanitsa.rng import Rng

        if rules not in cls._hand_sets:
            cls._hand_sets[rules] = {tuple(sorted(h)) for _, g in _deal_seeds()
                                     for h in deal(rules, 2, Rng(g)).seats}
        return cls._hand_sets[rules]


class Flooding(_Base):
    """Writes ``mib`` MiB to stdout and as much straight to descriptor 2 in every decision
    (an agent that would fill the disk through workers.log), then plays like _Base."""

    def __init__(self, mib: float = 1.0) -> None:
        self.size = int(mib * (1 << 20))

    def order_hand(self, view, rng):
        line = "flood " * 15 + "\n"
        sys.stdout.write(line * (self.size // len(line)))
        sys.stdout.flush()
        os.write(2, b"x" * self.size)
        return list(view.hand)


class LastWords(_Base):
    """In seat 1, writes a line straight to descriptor 1, then kills its own process."""

    def order_hand(self, view, rng):
        if view.seat == 1:
            os.write(1, b"last words\n")
            os._exit(3)
        return list(view.hand)


class Lenient(_Base):
    """Answers with card names as strings ("3", "17"), the lenient answer ``int()`` took."""

    def order_hand(self, view, rng):
        return [str(c) for c in view.hand]
