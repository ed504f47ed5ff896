"""The tactical engine (RULES.md §3): Тактический пьяница with копилки.

Each seat's hand is already in its chosen order (first played first); choosing the order is the
agents' business. :class:`TacticalGame` plays it out one round (тур) at a time.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from pyanitsa.cards import Card, Seat
from pyanitsa.errors import InvalidRulesError
from pyanitsa.events import Play, RoundEnd, RoundEvent, Showdown
from pyanitsa.results import TacticalResult, Termination
from pyanitsa.showdown import Judge

if TYPE_CHECKING:
    from pyanitsa.rules import Rules


class TacticalGame:
    """A tactical game in progress; ``hands`` are the seats' ordered hands, first played first."""

    def __init__(self, rules: Rules, hands: Sequence[Sequence[Card]], *,
                 log: bool = False) -> None:
        if rules.mode != "tactical":
            raise InvalidRulesError(f"mode: {rules.mode} rules given to the tactical engine")
        rules.check_players(len(hands))
        self.rules = rules
        self.players = len(hands)
        self.judge = Judge(rules)
        self.hands = [tuple(h) for h in hands]
        self.next = [0] * self.players
        """Index of each seat's next card in its hand."""
        self.kopilki: list[list[Card]] = [[] for _ in range(self.players)]
        """Each seat's копилка (score pile)."""
        self.out_of_game: list[Card] = []
        """Cards that left the game in splits (§3.5)."""
        self.rounds = 0
        self.showdowns = 0
        self.events: list[RoundEvent] | None = [] if log else None
        self.result: TacticalResult | None = None

    @property
    def is_over(self) -> bool:
        return self.result is not None

    def left(self, seat: Seat) -> int:
        """Cards still in a seat's hand."""
        return len(self.hands[seat]) - self.next[seat]

    def copy(self) -> TacticalGame:
        new = object.__new__(TacticalGame)
        new.__dict__.update(self.__dict__)
        new.next = list(self.next)
        new.kopilki = [list(k) for k in self.kopilki]
        new.out_of_game = list(self.out_of_game)
        new.events = list(self.events) if self.events is not None else None
        return new

    def play(self) -> TacticalResult:
        while self.result is None:
            self.play_round()
        assert self.result is not None
        return self.result

    def play_round(self) -> bool:
        """Play one тур, or end the game (§3.6). Returns False once the game is over."""
        if self.result is not None:
            return False
        holders = [s for s in range(self.players) if self.left(s) > 0]
        if len(holders) <= 1:
            for s in holders:
                self.kopilki[s].extend(self.hands[s][self.next[s]:])
                self.next[s] = len(self.hands[s])
            self._finish()
            return False
        self.rounds += 1
        hands, nxt, top_of = self.hands, self.next, self.judge.top
        pot: list[Card] = []
        owners: list[Seat] = []
        steps: list[int] = []
        showdowns: list[Showdown] | None = [] if self.events is not None else None
        contenders = holders
        step = 0
        gains: dict[Seat, list[Card]] = {}
        removed: list[Card] = []
        end: RoundEnd
        while True:
            faces = []
            for s in contenders:
                c = hands[s][nxt[s]]
                nxt[s] += 1
                faces.append(c)
                pot.append(c)
                owners.append(s)
                steps.append(step)
            self.showdowns += 1
            idx = top_of(faces)
            if showdowns is not None:
                showdowns.append(Showdown(step, tuple(contenders), tuple(faces),
                                          None if idx is None else
                                          tuple(contenders[i] for i in idx)))
            if idx is None:
                for c, o in zip(pot, owners, strict=True):
                    gains.setdefault(o, []).append(c)
                end = "void"
                break
            if len(idx) == 1:
                gains[contenders[idx[0]]] = list(pot)
                end = "taken"
                break
            contenders = [contenders[i] for i in idx]
            if any(self.left(s) == 0 for s in contenders):
                # Strongest cards first, dealt round the tied players: the remainder that leaves
                # the game is the weakest, as in the seed's "карта меньшего значения выходит".
                strength = self.judge.strength
                ranked = sorted(pot, key=lambda c: -strength[c])
                k = len(contenders)
                share = len(pot) // k
                for j, s in enumerate(contenders):
                    gains[s] = ranked[j:share * k:k]
                removed = ranked[share * k:]
                end = "split"
                break
            step += 1
        for s, cards in gains.items():
            self.kopilki[s].extend(cards)
        self.out_of_game.extend(removed)
        if self.events is not None:
            assert showdowns is not None
            plays = tuple(Play(o, c, True, st) for o, c, st in zip(owners, pot, steps,
                                                                    strict=True))
            taker = next(iter(gains)) if end == "taken" else None
            self.events.append(RoundEvent(
                self.rounds, None, plays, tuple(showdowns), end, taker=taker,
                gains=tuple((s, len(c)) for s, c in sorted(gains.items())),
                removed=len(removed)))
        return True

    def _finish(self) -> None:
        scores = tuple(len(k) for k in self.kopilki)
        best = min(scores) if self.rules.misere else max(scores)
        winners = tuple(s for s in range(self.players) if scores[s] == best)
        outcome = Termination.WIN if len(winners) == 1 else Termination.DRAW
        self.result = TacticalResult(outcome, winners, scores, len(self.out_of_game),
                                     self.rounds, self.showdowns)
