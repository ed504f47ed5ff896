"""A classic game between two rounds (:class:`ClassicPosition`) and its validation: what the
reference engine and the batch core continue a game from."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from pyanitsa.cards import Card, Seat
from pyanitsa.errors import InvalidPositionError

if TYPE_CHECKING:
    from pyanitsa.rules import Rules


@dataclass(frozen=True)
class ClassicPosition:
    """A classic game between two rounds: everything the rest of the game depends on.

    Take one from a game with :meth:`ClassicGame.position` and go on from it with
    :meth:`ClassicGame.from_position` or, many at a time, ``pyanitsa.batch.play_positions``.
    Cycle detection (§2.9) in a game continued from a position remembers positions from this
    one on.
    """

    stacks: tuple[tuple[Card, ...], ...]
    """Each seat's stack, top card first."""
    piles: tuple[tuple[Card, ...], ...]
    """Each seat's won pile (``pickup_to: won_pile``), the first card put on it first."""
    leader: Seat
    """The seat that leads the next round."""
    rounds: int = 0
    """Rounds played so far (``max_rounds`` counts them)."""
    showdowns: int = 0
    eliminated: tuple[Seat, ...] = ()
    """Seats that went out, in order."""
    seed: int | None = None
    """Generator state, for rules that shuffle during play (``pickup_order: shuffled``,
    ``refill: shuffle``)."""

    @property
    def players(self) -> int:
        return len(self.stacks)

    def check(self, rules: Rules) -> None:
        """Raise :class:`InvalidPositionError` naming what makes this position impossible."""
        p = len(self.stacks)
        if len(self.piles) != p:
            raise InvalidPositionError(f"piles: {len(self.piles)} piles for {p} stacks")
        rules.check_players(p)
        if not 0 <= self.leader < p:
            raise InvalidPositionError(f"leader: seat {self.leader} does not exist with {p} "
                                       "seats")
        if self.rounds < 0 or self.showdowns < 0:
            raise InvalidPositionError(f"rounds/showdowns: {self.rounds}/{self.showdowns} must "
                                       "be >= 0")
        size = rules.deck.size
        held = [c for group in (self.stacks, self.piles) for cards in group for c in cards]
        if len(set(held)) != len(held) or (held and not 0 <= min(held) <= max(held) < size):
            self._name_bad_card(rules)  # the fast check failed: find what to name
        for s in self.eliminated:
            if not 0 <= s < p or self.stacks[s] or self.piles[s]:
                raise InvalidPositionError(f"eliminated: seat {s} is not a seat without cards")
        if len(set(self.eliminated)) != len(self.eliminated):
            raise InvalidPositionError(f"eliminated: {list(self.eliminated)} repeats a seat")
        rules.check_seed(self.seed, InvalidPositionError)

    def _name_bad_card(self, rules: Rules) -> None:
        size = rules.deck.size
        seen: set[int] = set()
        for where, group in (("stacks", self.stacks), ("piles", self.piles)):
            for seat, cards in enumerate(group):
                for c in cards:
                    if not 0 <= c < size:
                        raise InvalidPositionError(f"{where}: seat {seat} holds card {c}, not "
                                                   f"in the {size}-card deck")
                    if c in seen:
                        raise InvalidPositionError(f"{where}: card "
                                                   f"{rules.deck.card_name(c)} is held twice")
                    seen.add(c)
