"""Scripted agents: tactical heuristics, classic pickup agents and the human at the terminal.

Every agent of ours must return a valid order for every deck and 2-8 players; the pickup agents
for the engine's fixed orders must give exactly the engine's games; each heuristic must do what
its docstring says.
"""

from __future__ import annotations

import io

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pyanitsa.agents import (
    AgentFailure,
    AgentSpecError,
    HandView,
    PickupView,
    builtin_agents,
    check_order,
    hand_view,
    make_agent,
    play_game,
)
from pyanitsa.agents.human import Human, OrderError, parse_order
from pyanitsa.agents.odds import interleave_gap, showdown_odds, tie_chain
from pyanitsa.agents.pickup import table_steps
from pyanitsa.agents.scripted import threat_profile
from pyanitsa.cards import Deck
from pyanitsa.dealing import deal
from pyanitsa.errors import InvalidRulesError
from pyanitsa.ranks import rank_table
from pyanitsa.rng import Rng, derive_seed
from pyanitsa.rules import Rules, preset

OURS = {"pyanitsa.agents.scripted", "pyanitsa.agents.pickup", "pyanitsa.agents.human"}
AGENTS = [a for a in builtin_agents() if a.factory.__module__ in OURS and a.name != "human"]
HAND_SPECS = [a.name for a in AGENTS if "hand" in a.decisions] + [
    "strongest_first(k=0)", "strongest_first(k=99)", "strongest_last(k=1)",
    "sacrifice(assume='ascending')",
    "mixed(pool='random,ascending,tie_aware,strongest_last(k=2)', weights=(1, 0, 2, 1))"]
PICKUP_SPECS = [a.name for a in AGENTS if "pickup" in a.decisions] + [
    "pickup_shuffled(seed=5)"]
FIXED = ("table", "by_seat", "winner_first", "loser_first", "high_first", "low_first",
         "natural", "shuffled")

DECKS = [Deck.standard(n) for n in ("36", "32", "52", "54")] + [
    Deck.research(1, 8), Deck.research(2, 1, 1), Deck.research(5, 3, 1), Deck.research(13, 4, 2),
    Deck.research(60, 1)]


def test_we_register_the_agents_of_the_issue() -> None:
    names = {a.name for a in AGENTS}
    tactical = {"random", "ascending", "descending", "strongest_first", "strongest_last",
                "sacrifice", "tie_aware", "mixed"}
    fixed = {f"pickup_{how}" for how in FIXED}
    assert tactical | fixed <= names
    assert len(names - tactical - fixed) >= 2  # our own pickup heuristics
    for info in AGENTS:
        assert info.idea and len(info.idea) < 200, info.name


# -- every order is a permutation ---------------------------------------------------------------


def tactical_views(rules: Rules, players: int, seed: int) -> list[HandView]:
    dealt = deal(rules, players, Rng(seed))
    return [hand_view(rules, s, dealt.seats, len(dealt.set_aside)) for s in range(players)]


def assert_hand_orders(rules: Rules, players: int, seed: int) -> None:
    for view in tactical_views(rules, players, seed):
        for spec in HAND_SPECS:
            rng = np.random.default_rng(seed)
            chosen = make_agent(spec).order_hand(view, rng)
            check_order(chosen, view.hand, spec, rules)


@pytest.mark.parametrize("deck", DECKS, ids=str)
@pytest.mark.parametrize("wba", [False, True])
def test_hand_agents_order_every_deck_and_table_size(deck: Deck, wba: bool) -> None:
    for players in range(2, 9):
        rules = Rules.default("tactical").replace(deck=deck, weakest_beats_ace=wba,
                                                  misere=players == 5)
        try:
            rules.check_players(players)
        except InvalidRulesError:
            continue
        assert_hand_orders(rules, players, seed=players)


@settings(max_examples=40, deadline=None)
@given(ranks=st.integers(1, 60), suits=st.integers(1, 8), jokers=st.integers(0, 4),
       wba=st.booleans(), misere=st.booleans(), players=st.integers(2, 8),
       seed=st.integers(0, 2**32))
def test_hand_agents_order_random_research_decks(ranks: int, suits: int, jokers: int,
                                                 wba: bool, misere: bool, players: int,
                                                 seed: int) -> None:
    deck = Deck.research(ranks, suits, jokers)
    if deck.size < players:
        return
    rules = Rules.default("tactical").replace(deck=deck, weakest_beats_ace=wba, misere=misere)
    assert_hand_orders(rules, players, seed)


CLASSIC_RULES = [preset(p) for p in ("classic-ru", "classic-ua", "classic-zaklad", "war-52",
                                     "weak-ace", "misere")] + [
    Rules(deck=Deck.standard("54"), weakest_beats_ace=True, dispute="down_up", stakes=3,
          dispute_exhausted="discard", cycle_rule="weakest_wins"),
    Rules(deck=Deck.research(5, 4), dispute_exhausted="drops_out", pickup_to="won_pile"),
    Rules(deck=Deck.research(3, 2, 2), dispute="down_up", stakes=2,
          new_tour_on_elimination=True),
]


@pytest.mark.parametrize("rules", CLASSIC_RULES, ids=lambda r: str(r.to_options()))
def test_pickup_agents_order_every_table(rules: Rules) -> None:
    # play_game checks every pickup order and raises AgentFailure on a bad one.
    agent_rules = rules.replace(pickup_order="agent", max_rounds=150)
    for players in range(2, 9):
        if rules.deck.size < players:
            continue
        seats = [PICKUP_SPECS[(players + s) % len(PICKUP_SPECS)] for s in range(players)]
        play_game(agent_rules, [make_agent(s) for s in seats], seed=players)


# -- the fixed orders are the engine's ----------------------------------------------------------


def play_seed(rules: Rules, players: int, seed: int) -> int:
    """The generator's state after the deal: what the engine shuffles pickups with."""
    rng = Rng(seed)
    deal(rules, players, rng)
    return rng.state


@pytest.mark.parametrize("how", FIXED)
@pytest.mark.parametrize("rules", CLASSIC_RULES, ids=lambda r: str(r.to_options()))
def test_pickup_agents_play_the_engines_games(how: str, rules: Rules) -> None:
    # Agents switch cycle detection off, so the fixed-order game must not detect cycles either.
    fixed = rules.replace(pickup_order=how, detect_cycles=False, max_rounds=300)
    with_agents = fixed.replace(pickup_order="agent")
    disputes = 0
    for players in (2, 3, 5):
        for seed in range(3):
            spec = f"pickup_{how}"
            if how == "shuffled":
                spec = f"pickup_shuffled(seed={play_seed(fixed, players, seed)})"
            expected = play_game(fixed, [make_agent("random")] * players, seed, log=True)
            got = play_game(with_agents, [make_agent(spec)] * players, seed, log=True)
            assert got.result == expected.result, (how, players, seed)
            assert [e.pickup for e in got.events] == [e.pickup for e in expected.events]
            disputes += sum(len(e.showdowns) > 1 for e in got.events if e.pickup)
    assert disputes > 0  # tables of several steps were ordered too


def test_table_steps_follow_the_dispute_steps() -> None:
    rules = preset("war-52").replace(stakes=2, pickup_order="agent", max_rounds=400)
    seen = []

    def spy(view: PickupView, rng: np.random.Generator) -> list[int]:
        seen.append((view.rounds, table_steps(view)))
        return list(view.cards)

    agent = make_agent("pickup_table")
    agent.order_pickup = spy  # type: ignore[method-assign]
    out = play_game(rules, [agent] * 3, seed=4, log=True)
    by_round = {e.number: e for e in out.events}
    assert len(seen) > 20
    for rounds, steps in seen:
        assert steps == [p.step for p in by_round[rounds].plays]


# -- what each heuristic does -------------------------------------------------------------------

TACTICAL = preset("tactical")


def view_of(hand: str, rules: Rules = TACTICAL, players: int = 2) -> HandView:
    deck = rules.deck
    mine = deck.parse_cards(hand.split())
    rest = [c for c in range(deck.size) if c not in mine]
    return hand_view(rules, 0, [mine, rest[:len(mine)]], deck.size - 2 * len(mine))


HAND = "6c 6d 7c 8c 8d 9c Tc Td Jc Qc Qd Kc Kd Ah 7d 9d Jd As"


def ranks_of(view: HandView, order: list[int]) -> list[int]:
    return [view.ranks.rank_of[c] for c in order]


def test_ascending_descending_and_the_strongest_variants() -> None:
    view = view_of(HAND)
    rng = np.random.default_rng(0)
    asc = ranks_of(view, make_agent("ascending").order_hand(view, rng))
    desc = ranks_of(view, make_agent("descending").order_hand(view, rng))
    assert asc == sorted(asc) and desc == sorted(desc, reverse=True)
    first = ranks_of(view, make_agent("strongest_first(k=4)").order_hand(view, rng))
    assert first[:4] == desc[:4]
    last = ranks_of(view, make_agent("strongest_last(k=4)").order_hand(view, rng))
    assert last[-4:] == asc[-4:]
    orders = {tuple(make_agent("strongest_first").order_hand(view, np.random.default_rng(s)))
              for s in range(5)}
    assert len(orders) > 1  # the rest is random


def test_threat_profile_is_the_opponents_hand_when_they_hold_every_unseen_card() -> None:
    view = view_of(HAND)
    table = view.ranks
    expected = sorted((r for r in range(table.num_ranks) for _ in range(view.unseen[r])),
                      reverse=True)
    assert threat_profile(table, view.unseen, 18, 1, "descending") == expected
    assert threat_profile(table, view.unseen, 18, 1, "ascending") == expected[::-1]


@pytest.mark.parametrize("assume", ["descending", "ascending"])
def test_sacrifice_loses_its_weakest_cards_where_their_strongest_are_expected(assume: str
                                                                               ) -> None:
    # The opponent holds every unseen card: four aces I cannot beat, a six, and pairs of 7..Q
    # and one king, which my cards beat by one rank each.
    view = view_of("6c 6d 6h 7c 7d 8c 8d 9c 9d Tc Td Jc Jd Qc Qd Kc Kd Ks")
    order = ranks_of(view, make_agent(f"sacrifice(assume={assume!r})").order_hand(view, None))
    threats = threat_profile(view.ranks, view.unseen, 18, 1, assume)
    aces = [i for i, t in enumerate(threats) if t == view.ranks.ace]
    assert aces == ([0, 1, 2, 3] if assume == "descending" else [14, 15, 16, 17])
    assert sorted(order[i] for i in aces) == [0, 0, 0, 1]  # three sixes and a seven
    outcomes = [(view.ranks.beats(m, t), m == t) for m, t in zip(order, threats, strict=True)]
    assert outcomes.count((True, False)) == 13  # everything else wins but a king-king tie
    assert outcomes.count((False, True)) == 1


@pytest.mark.parametrize("wba", [False, True])
def test_sacrifice_crushes_a_strongest_first_opponent(wba: bool) -> None:
    rules = TACTICAL.replace(weakest_beats_ace=wba)
    me, them = make_agent("sacrifice"), make_agent("descending")
    wins = sum(play_game(rules, [me, them], seed).result.winners == (0,) for seed in range(60))
    assert wins >= 57


def test_sacrifice_uses_the_weakest_rank_against_aces_with_weakest_beats_ace() -> None:
    rules = TACTICAL.replace(weakest_beats_ace=True)
    view = view_of("6c 7c 7d 8c 8d 9c 9d Tc Td Jc Jd Qc Qd Kc Kd Ks Kh Qh", rules)
    order = ranks_of(view, make_agent("sacrifice").order_hand(view, None))
    threats = threat_profile(view.ranks, view.unseen, 18, 1, "descending")
    ace = view.ranks.ace
    assert [m for m, t in zip(order, threats, strict=True) if t == ace] [0] == view.ranks.weakest


def test_tie_aware_follows_the_likeliest_tie_with_the_strongest_card() -> None:
    # I hold one nine (three nines unseen: the likeliest tie) and three aces.
    view = view_of("6c 6d 6h 6s 7c 7d 7h 7s 8c 8d 8h 8s 9c Tc Td Ac Ad Ah")
    order = make_agent("tie_aware").order_hand(view, np.random.default_rng(1))
    names = [view.rules.deck.card_name(c) for c in order]
    assert names[names.index("9c") + 1].startswith("A")


def test_tie_aware_beats_random_on_average() -> None:
    me, them = make_agent("tie_aware"), make_agent("random")
    margin = 0
    for i in range(400):
        seed = derive_seed(3, i)
        for seat in (0, 1):
            agents = [me, them] if seat == 0 else [them, me]
            scores = play_game(TACTICAL, agents, seed).result.scores
            margin += scores[seat] - scores[1 - seat]
    assert margin > 0


def test_showdown_odds_and_tie_chain() -> None:
    table = rank_table(TACTICAL.replace(weakest_beats_ace=True))
    pool = [1] * table.num_ranks
    win, tie, lose = showdown_odds(table, pool, 1)
    assert win[table.weakest] == pytest.approx(1 / 9)  # it beats the ace only
    assert lose[table.ace] == pytest.approx(1 / 9)
    assert all(abs(w + t + lo - 1) < 1e-12 for w, t, lo in zip(win, tie, lose, strict=True))
    # the tie-prone item 0 gets the best follower 2; the chain is one permutation
    order = tie_chain([0, 1, 2, 3], [0.5, 0.0, 0.1, 0.0], [-1.0, 0.0, 1.0, 0.5],
                      np.random.default_rng(0))
    assert sorted(order) == [0, 1, 2, 3] and order[order.index(0) + 1] == 2
    assert interleave_gap(list(range(7)), 2) == [0, 4, 1, 5, 2, 6, 3]


def test_mixed_draws_from_its_pool_by_weight() -> None:
    view = view_of(HAND)
    asc = make_agent("ascending").order_hand(view, None)
    desc = make_agent("descending").order_hand(view, None)
    only = make_agent("mixed(pool='ascending,descending', weights=(1, 0))")
    assert all(only.order_hand(view, np.random.default_rng(s)) == asc for s in range(10))
    both = make_agent("mixed(pool='ascending, descending')")
    got = [list(both.order_hand(view, np.random.default_rng(s))) for s in range(20)]
    assert asc in got and desc in got
    nested = make_agent("mixed(pool='strongest_first(k=2),tie_aware', weights=[2, 1])")
    assert len(nested.members) == 2 and nested.members[0].k == 2


def test_spec_errors_name_the_problem() -> None:
    with pytest.raises(AgentSpecError, match="depth"):
        make_agent("sacrifice(depth=2)")
    with pytest.raises(AgentSpecError, match="assume"):
        make_agent("sacrifice(assume='sideways')")
    with pytest.raises(AgentSpecError, match="int"):
        make_agent("strongest_first(k='three')")
    with pytest.raises(AgentSpecError, match="weights"):
        make_agent("mixed(pool='ascending', weights=(1, 2))")
    with pytest.raises(AgentSpecError, match="nonsense"):
        make_agent("mixed(pool='ascending,nonsense')")


def test_random_orders_both_decisions() -> None:
    view = view_of(HAND)
    agent = make_agent("random")
    orders = {tuple(agent.order_hand(view, np.random.default_rng(s))) for s in range(5)}
    assert len(orders) == 5
    out = play_game(preset("classic-ru", pickup_order="agent", max_rounds=50),
                    [agent, agent], seed=1)
    assert out.record.decisions


def pickup_view_of(table: str, owners: list[int], known_tail: str = "", stack: int = 10,
                   rules: Rules | None = None) -> PickupView:
    rules = rules or preset("classic-ua", pickup_order="agent")
    deck = rules.deck
    cards = tuple(deck.parse_cards(table.split()))
    tail = tuple(deck.parse_cards(known_tail.split()))
    return PickupView(rules=rules, seat=0, players=2, cards=cards, owners=tuple(owners),
                      face_up=(True,) * len(cards), stack_sizes=(stack, 36 - stack - len(cards)),
                      pile_sizes=(0, 0), in_game=(True, True), known_tail=tail, my_pile=(),
                      seen=(0,) * 9, rounds=5)


def test_pickup_tie_aware_puts_the_likely_tie_before_the_strong_card() -> None:
    # Every other king is mine, so the king cannot tie; three eights are out there.
    view = pickup_view_of("Kc 8c", [0, 1], known_tail="Kd Kh Ks")
    order = make_agent("pickup_tie_aware").order_pickup(view, np.random.default_rng(0))
    assert [view.rules.deck.card_name(c) for c in order] == ["8c", "Kc"]


def test_pickup_strong_ties_plays_strongest_first_but_orders_pairs_for_ties() -> None:
    agent = make_agent("pickup_strong_ties")
    view = pickup_view_of("7c Ac 9c 6d", [1, 0, 1, 0])
    order = agent.order_pickup(view, np.random.default_rng(0))
    assert [view.rules.deck.card_name(c) for c in order] == ["Ac", "9c", "7c", "6d"]
    misere = pickup_view_of("7c Ac 9c 6d", [1, 0, 1, 0],
                            rules=preset("misere", pickup_order="agent"))
    order = agent.order_pickup(misere, np.random.default_rng(0))
    assert [misere.rules.deck.card_name(c) for c in order] == ["6d", "7c", "9c", "Ac"]
    pair = pickup_view_of("Kc 8c", [0, 1], known_tail="Kd Kh Ks")
    order = agent.order_pickup(pair, np.random.default_rng(0))
    assert [pair.rules.deck.card_name(c) for c in order] == ["8c", "Kc"]


# -- the human ----------------------------------------------------------------------------------


def human(text: str) -> tuple[Human, io.StringIO]:
    out = io.StringIO()
    return Human(stdin=io.StringIO(text), stdout=out), out


def names(rules: Rules, cards: list[int]) -> list[str]:
    return [rules.deck.card_name(c) for c in cards]


def test_human_orders_a_hand_and_is_asked_again_after_a_typo() -> None:
    view = view_of(HAND)
    agent, out = human("A Z K\nhelp\nAs Ah K 6 desc\n")
    order = agent.order_hand(view, np.random.default_rng(0))
    text = out.getvalue()
    assert "'Z' is neither a card nor a rank" in text and "try again" in text
    assert "ranks (A K 6" in text  # the help
    assert names(TACTICAL, order)[:4] == ["As", "Ah", "Kc", "6c"]
    ranks = ranks_of(view, order)
    assert ranks[4:] == sorted(ranks[4:], reverse=True)
    assert sorted(order) == sorted(view.hand)


def test_human_input_forms() -> None:
    rules, view = TACTICAL, view_of(HAND)
    rng = np.random.default_rng(0)
    assert parse_order("asc", view.hand, rules, rng) == list(view.hand)
    full = " ".join(names(rules, list(view.hand))[::-1]).lower().replace(" ", ", ")
    assert parse_order(full, view.hand, rules, rng) == list(view.hand)[::-1]
    got = parse_order("10 t random", view.hand, rules, rng)
    assert names(rules, got[:2]) == ["Tc", "Td"]
    for bad, why in (("As As asc", "no card As left"), ("Qs desc", "not in your hand"),
                     ("A K", "placed 2 of 18"), ("desc A", "put it last"),
                     ("table", "neither a card")):
        with pytest.raises(OrderError, match=why):
            parse_order(bad, view.hand, rules, rng)


def test_human_orders_a_pickup() -> None:
    view = pickup_view_of("7c Ac 9c 6d", [1, 0, 1, 0])
    agent, out = human("table\n")
    assert agent.order_pickup(view, None) == list(view.cards)
    assert "7c/P1 Ac/P0" in out.getvalue()
    agent, _ = human("9 high\n")
    assert names(view.rules, agent.order_pickup(view, None)) == ["9c", "Ac", "7c", "6d"]


def test_human_plays_a_game_and_leaving_is_a_forfeit() -> None:
    agent, out = human("desc\n")
    result = play_game(TACTICAL, [agent, make_agent("tie_aware")], seed=2).result
    assert sum(result.scores) + result.removed == 36
    assert "your hand (18 cards" in out.getvalue()
    agent, _ = human("")
    with pytest.raises(AgentFailure, match="no more input"):
        play_game(TACTICAL, [agent, make_agent("random")], seed=2)


def test_human_rejects_a_non_stream() -> None:
    with pytest.raises(ValueError, match="stdin"):
        Human(stdin=3)  # type: ignore[arg-type]
