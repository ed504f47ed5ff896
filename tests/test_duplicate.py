"""Duplicate pairs are played by the referee's one engine (agents.game.play_games): the pairs
of solvers.duplicate.play_pairs are its games, each agent asked for all its hands at once, and
an agent that fails falls back to game-by-game decisions, which name the forfeit."""

from __future__ import annotations

import pytest

from pyanitsa.agents import make_agent
from pyanitsa.agents.game import AgentFailure, play_game, play_games
from pyanitsa.protocol import BaseAgent
from pyanitsa.rng import derive_seed
from pyanitsa.rules import preset
from pyanitsa.solvers.duplicate import play_pairs

RULES = preset("tactical")
SEEDS = [derive_seed(4, i) for i in range(12)]


class Counting(BaseAgent):
    """``mixed`` (it samples from its generator), counting the calls it gets."""

    def __init__(self) -> None:
        self.inner = make_agent("mixed")
        self.batches: list[int] = []
        self.singles = 0

    def order_hand(self, view, rng):  # noqa: ANN001, ANN201
        self.singles += 1
        return self.inner.order_hand(view, rng)

    def order_hands(self, views, rngs):  # noqa: ANN001, ANN201
        self.batches.append(len(views))
        return [self.inner.order_hand(v, r) for v, r in zip(views, rngs, strict=True)]


class BrokenBatch(Counting):
    """Fails when asked for many hands at once, plays well one hand at a time."""

    def order_hands(self, views, rngs):  # noqa: ANN001, ANN201
        raise RuntimeError("no batches today")


class Illegal(BaseAgent):
    def order_hand(self, view, rng):  # noqa: ANN001, ANN201
        return list(view.hand)[:-1]  # a card short


def one_by_one(agent, opponent):
    return [play_game(RULES, [agent, opponent] if k == 0 else [opponent, agent], gs).result
            for gs in SEEDS for k in (0, 1)]


def test_pairs_are_the_referees_games_and_each_agent_is_asked_once():
    agent, opponents = Counting(), [make_agent("descending"), Counting()]
    games = play_pairs(RULES, agent, opponents, SEEDS)
    # the agent's 24 hands once for both opponents; the sampling opponent's 24 hands at once
    assert agent.batches == [2 * len(SEEDS)] and agent.singles == 0
    assert opponents[1].batches == [2 * len(SEEDS)]
    for opponent, results in zip(opponents, games, strict=True):
        assert results == one_by_one(agent, opponent)


def test_together_plays_the_same_games_as_deciding_game_by_game():
    a, b = make_agent("mixed"), make_agent("tie_aware")
    seatings = [(a, b), (b, a)] * len(SEEDS)
    seeds = [gs for gs in SEEDS for _ in (0, 1)]
    apart = play_games(RULES, seatings, seeds)
    together = play_games(RULES, seatings, seeds, together=True)
    assert [t.outcome.record for t in together] == [t.outcome.record for t in apart]
    assert [t.outcome.result for t in together] == [t.outcome.result for t in apart]


def test_a_failing_batch_falls_back_to_one_hand_at_a_time():
    agent, opponent = BrokenBatch(), make_agent("descending")
    (results,) = play_pairs(RULES, agent, [opponent], SEEDS)
    assert agent.singles == 2 * len(SEEDS)
    assert results == one_by_one(Counting(), opponent)


def test_an_illegal_order_is_the_referees_forfeit():
    with pytest.raises(AgentFailure, match="hand order") as caught:
        play_pairs(RULES, Illegal(), [make_agent("descending")], SEEDS)
    assert caught.value.kind == "illegal" and caught.value.seat == 0
