"""Hand-built games checked against RULES.md by reasoning (each case cites its section)."""

from __future__ import annotations

from collections import Counter

import pytest

from pyanitsa import ClassicGame, Record, TacticalGame


def record(stacks: list[list], rules: dict | None = None, *, deck: str | dict = "36",
           dealer: int = 0) -> Record:
    return Record.from_json({"mode": "classic", "deck": deck, "rules": rules or {},
                             "dealer": dealer, "stacks": stacks})


def tactical(hands: list[list], rules: dict | None = None, *, deck: str | dict = "36") -> Record:
    return Record.from_json({"mode": "tactical", "deck": deck, "rules": rules or {},
                             "hands": hands})


def names(game: ClassicGame | TacticalGame, cards) -> list:
    return game.rules.deck.cards_json(list(cards))


def one_round(rec: Record) -> ClassicGame:
    game = rec.game(log=True)
    assert isinstance(game, ClassicGame)
    assert game.play_round()
    return game


def result(rec: Record) -> dict:
    return rec.play().to_json()


def classic_result(outcome: str, winner: int | None, rounds: int, showdowns: int,
                   eliminated: list[int], cycle_start: int | None = None,
                   cycle_length: int | None = None) -> dict:
    return {"outcome": outcome, "winner": winner, "rounds": rounds, "showdowns": showdowns,
            "eliminated": eliminated, "cycle_start": cycle_start, "cycle_length": cycle_length}


# -- disputes (§2.3) ---------------------------------------------------------------------------

def test_dispute_one_up() -> None:
    # §2.3 one_up: Ks ties Kh; each adds one face-up card; 9c beats 7d; §2.5 bottom, table order.
    game = one_round(record([["Ks", "9c", "6s"], ["Kh", "7d", "8h"]]))
    event = game.events[0]
    assert [s.step for s in event.showdowns] == [0, 1]
    assert event.showdowns[0].top == (0, 1)
    assert event.taker == 0
    assert all(p.face_up for p in event.plays)
    assert names(game, game.stacks[0]) == ["6s", "Ks", "Kh", "9c", "7d"]
    assert names(game, game.stacks[1]) == ["8h"]
    assert (game.rounds, game.showdowns) == (1, 2)


def test_two_equal_below_a_third_start_no_dispute() -> None:
    # §2.2: only the top matters; 9c 9d under Ks: seat 2 takes at once, one showdown.
    game = one_round(record([["9c", "6c"], ["9d", "6d"], ["Ks", "6h"]]))
    assert game.events[0].taker == 2
    assert len(game.events[0].showdowns) == 1
    assert names(game, game.stacks[2]) == ["6h", "9c", "9d", "Ks"]


def test_down_up_stakes_2_with_short_stack() -> None:
    # §2.3 down_up, stakes 2: seat 0 (3 cards left) puts 6c 7c down and Ac up; seat 1 has only
    # 2 cards (< stakes + 1), so it puts all but its last down (8d) and the last up (9d).
    # Table order: a stake comes right before its owner's face-up card of the same step.
    rec = record([["Ks", "6c", "7c", "Ac"], ["Kh", "8d", "9d"]],
                 {"dispute": "down_up", "stakes": 2})
    game = one_round(rec)
    plays = [(p.seat, game.rules.deck.card_name(p.card), p.face_up, p.step)
             for p in game.events[0].plays]
    assert plays == [(0, "Ks", True, 0), (1, "Kh", True, 0),
                     (0, "6c", False, 1), (0, "7c", False, 1), (0, "Ac", True, 1),
                     (1, "8d", False, 1), (1, "9d", True, 1)]
    assert names(game, game.stacks[0]) == ["Ks", "Kh", "6c", "7c", "Ac", "8d", "9d"]
    assert result(rec) == classic_result("win", 0, 1, 2, [1])


def test_down_up_one_card_left_goes_without_stake() -> None:
    # §2.3: a player with one card left disputes "без промежутка": that card goes face up.
    rec = record([["Ks", "6c", "7c", "Ac"], ["Kh", "9d"]], {"dispute": "down_up", "stakes": 3})
    game = one_round(rec)
    plays = [(p.seat, game.rules.deck.card_name(p.card), p.face_up) for p in
             game.events[0].plays if p.step == 1]
    assert plays == [(0, "6c", False), (0, "7c", False), (0, "Ac", True), (1, "9d", True)]


# -- dispute_exhausted (§2.4) ------------------------------------------------------------------

def test_exhausted_takes_pot() -> None:
    # §2.4 takes_pot: Ks ties Kh, seat 0 has no cards: seat 0 takes the pot [Kh Ks] (dealer 1
    # leads, table order). The exhausted step is no showdown (§2.10). Round 2 (leader 1):
    # 7d vs Kh: seat 0 wins and seat 1 is out.
    rec = record([["Ks"], ["Kh", "7d"]], {"dispute_exhausted": "takes_pot"}, dealer=1)
    game = one_round(rec)
    assert game.events[0].taker == 0
    assert game.events[0].exhausted == "takes_pot"
    assert names(game, game.stacks[0]) == ["Kh", "Ks"]
    assert game.in_game == [True, True]
    assert result(rec) == classic_result("win", 0, 2, 2, [1])


def test_exhausted_earliest_wins() -> None:
    # §2.4 earliest_wins: the disputing player earliest in play order (seat 1, the dealer who
    # leads) takes the table although seat 0 is the one without cards; seat 0 is out.
    rec = record([["Ks"], ["Kh", "7d"]], {"dispute_exhausted": "earliest_wins"}, dealer=1)
    game = one_round(rec)
    assert game.events[0].taker == 1
    assert names(game, game.stacks[1]) == ["7d", "Kh", "Ks"]
    assert result(rec) == classic_result("win", 1, 1, 1, [0])


def test_exhausted_drops_out_two_go_on() -> None:
    # §2.4 drops_out: three kings tie; seat 0 has no cards and leaves the dispute; seats 1 and 2
    # go on with the step (a showdown): 9c beats 7d. Seats 0 and 1 are out, in play order.
    rec = record([["Ks"], ["Kh", "7d"], ["Kd", "9c"]], {"dispute_exhausted": "drops_out"})
    game = one_round(rec)
    assert game.events[0].taker == 2
    assert names(game, game.stacks[2]) == ["Ks", "Kh", "Kd", "7d", "9c"]
    assert result(rec) == classic_result("win", 2, 1, 2, [0, 1])


def test_exhausted_drops_out_none_left() -> None:
    # §2.4 drops_out with no player left: the table leaves the game; both are out (§2.6), and
    # with no player left the game is a draw (§2.8).
    rec = record([["Ks"], ["Kh"]], {"dispute_exhausted": "drops_out"})
    game = one_round(rec)
    assert game.events[0].end == "discarded"
    assert sorted(names(game, game.out_of_game)) == ["Kh", "Ks"]
    assert result(rec) == classic_result("draw", None, 1, 1, [0, 1])


def test_exhausted_drops_out_one_left_takes() -> None:
    # §2.4 drops_out, two players: seat 0 drops, seat 1 is the one left and takes the table.
    rec = record([["Ks"], ["Kh", "7d"]], {"dispute_exhausted": "drops_out"})
    assert result(rec) == classic_result("win", 1, 1, 1, [0])


def test_exhausted_discard() -> None:
    # §2.4 discard: the table [Ks Kh] leaves the game; seat 0 is out; seat 1 alone wins (§2.8).
    rec = record([["Ks"], ["Kh", "7d"]], {"dispute_exhausted": "discard"})
    game = one_round(rec)
    assert game.events[0].end == "discarded"
    assert names(game, game.out_of_game) == ["Ks", "Kh"]
    assert names(game, game.stacks[1]) == ["7d"]
    assert result(rec) == classic_result("win", 1, 1, 1, [0])


def test_exhausted_draw_keeps_eliminated() -> None:
    # Round 1: As 7d 6c, seat 0 takes, seat 2 is out. Round 2: Ks ties Kh and seat 1 has no
    # cards: §2.4 draw ends the game at once; eliminated stays [2]; the table stays put.
    rec = record([["As", "Ks"], ["7d", "Kh"], ["6c"]], {"dispute_exhausted": "draw"})
    game = rec.game(log=True)
    res = game.play()
    assert res.to_json() == classic_result("draw", None, 2, 2, [2])
    assert game.events[-1].end == "draw"
    assert names(game, game.table) == ["Ks", "Kh"]
    assert game.in_game == [True, True, False]


# -- collecting (§2.5) -------------------------------------------------------------------------

def test_won_pile_refill_turn_over() -> None:
    # §2.5 won_pile + turn_over: round 1 As beats 6c onto seat 0's pile [As 6c]; round 2 seat 0's
    # stack is empty, the pile becomes the stack with As (first put on it) on top: As beats 7c.
    # (Turned the other way, 6c would have lost to 7c.)
    rec = record([["As"], ["6c", "7c", "8c"]], {"pickup_to": "won_pile"})
    game = one_round(rec)
    assert names(game, game.stacks[0]) == []
    assert names(game, game.piles[0]) == ["As", "6c"]
    assert game.count(0) == 2
    assert game.play_round()
    assert game.events[1].taker == 0
    assert names(game, game.stacks[0]) == ["6c"]
    assert names(game, game.piles[0]) == ["As", "7c"]
    assert names(game, game.stacks[1]) == ["8c"]
    # Round 3: 6c loses to 8c, which go onto seat 1's pile; seat 0 still holds its pile.
    assert game.play_round()
    assert names(game, game.piles[1]) == ["6c", "8c"]
    assert names(game, game.stacks[0]) == [] and game.in_game == [True, True]


# One round, dealer 1 (play order 1, 2, 0), down_up with one stake:
#   step 0: Kh (1), Kd (2), 8c (0) -> seats 1 and 2 tie;
#   step 1: seat 1 puts 7h down, Ah up; seat 2 puts 9d down, Jd up -> seat 1 takes.
# Table order: Kh Kd 8c 7h Ah 9d Jd.
PICKUPS = {
    "table": ["Kh", "Kd", "8c", "7h", "Ah", "9d", "Jd"],
    # by seat in the round's play order 1, 2, 0
    "by_seat": ["Kh", "7h", "Ah", "Kd", "9d", "Jd", "8c"],
    "winner_first": ["Kh", "7h", "Ah", "Kd", "8c", "9d", "Jd"],
    "loser_first": ["Kd", "8c", "9d", "Jd", "Kh", "7h", "Ah"],
    # rank order, equal ranks (Kh, Kd) in table order
    "high_first": ["Ah", "Kh", "Kd", "Jd", "9d", "8c", "7h"],
    "low_first": ["7h", "8c", "9d", "Jd", "Kh", "Kd", "Ah"],
    # last showdown first (with its stakes), higher first; then step 0
    "natural": ["Ah", "Jd", "9d", "7h", "Kh", "Kd", "8c"],
}


@pytest.mark.parametrize("order", sorted(PICKUPS))
def test_pickup_orders(order: str) -> None:
    # §2.5 pickup_order: the first card listed goes under first and is played first.
    rec = record([["8c", "6s"], ["Kh", "7h", "Ah"], ["Kd", "9d", "Jd"]],
                 {"dispute": "down_up", "pickup_order": order}, dealer=1)
    game = one_round(rec)
    event = game.events[0]
    assert [game.rules.deck.card_name(p.card) for p in event.plays] == PICKUPS["table"]
    assert event.taker == 1
    assert names(game, event.pickup) == PICKUPS[order]
    # Seat 1 used its whole stack, so its stack is now exactly the pickup.
    assert names(game, game.stacks[1]) == PICKUPS[order]
    # Seat 2 is out, seat 0 kept 6s.
    assert event.eliminated == (2,)
    assert names(game, game.stacks[0]) == ["6s"]


def test_natural_order_one_up_three_steps() -> None:
    # §2.5 natural: showdown by showdown from the last back; within one, higher rank first.
    # Step 0: Qs Qh (tie); step 1: 7c 7d (tie); step 2: 9s 8h -> seat 0.
    rec = record([["Qs", "7c", "9s"], ["Qh", "7d", "8h"]], {"pickup_order": "natural"})
    game = one_round(rec)
    assert names(game, game.events[0].pickup) == ["9s", "8h", "7c", "7d", "Qs", "Qh"]


@pytest.mark.parametrize(("wba", "taker", "pickup"), [
    (False, 1, ["X1", "As"]),   # jokers above the ace
    (True, 1, ["As", "X1"]),    # §1: with wba in 54 the jokers are the weakest rank
])
def test_high_first_uses_rank_order_of_54(wba: bool, taker: int, pickup: list[str]) -> None:
    rec = record([["As", "5c"], ["X1", "5d"]], {"pickup_order": "high_first",
                                                 "weakest_beats_ace": wba}, deck="54")
    game = one_round(rec)
    assert game.events[0].taker == taker
    assert names(game, game.events[0].pickup) == pickup


# -- cycles in a showdown (§1 cycle_rule) ------------------------------------------------------

def test_void_cycle_three_players_returns_own_cards() -> None:
    # §1 cycle_rule void: A, K, 6 with wba is a cycle; nobody wins; each takes back their own
    # card to their own stack bottom (§2.5).
    rec = record([["As", "7c"], ["Ks", "8c"], ["6s", "9c"]], {"weakest_beats_ace": True})
    game = one_round(rec)
    assert game.events[0].end == "void"
    assert game.events[0].showdowns[0].top is None
    assert [names(game, s) for s in game.stacks] == [["7c", "As"], ["8c", "Ks"], ["9c", "6s"]]
    assert (game.rounds, game.showdowns) == (1, 1)


def test_void_cycle_in_dispute_voids_whole_round_ignoring_pickup_order() -> None:
    # §1: a cycle in a dispute step voids the whole round; every player, disputing or not,
    # takes back all their own cards in table order to their own pile, ignoring pickup_order.
    # Step 0: Qs Qh Qd 7c -> seats 0-2 tie; step 1: As Ks 6s -> cycle.
    rec = record([["Qs", "As", "8s"], ["Qh", "Ks", "8h"], ["Qd", "6s", "8d"], ["7c", "9c"]],
                 {"weakest_beats_ace": True, "pickup_to": "won_pile",
                  "pickup_order": "high_first"})
    game = one_round(rec)
    assert game.events[0].end == "void"
    assert [names(game, p) for p in game.piles] == [["Qs", "As"], ["Qh", "Ks"], ["Qd", "6s"],
                                                    ["7c"]]
    assert [names(game, s) for s in game.stacks] == [["8s"], ["8h"], ["8d"], ["9c"]]
    assert game.showdowns == 2


def test_weakest_wins_cycle() -> None:
    # §1 cycle_rule weakest_wins: in A, K, 6 the 6 takes the table.
    rec = record([["As", "7c"], ["Ks", "8c"], ["6s", "9c"]],
                 {"weakest_beats_ace": True, "cycle_rule": "weakest_wins"})
    game = one_round(rec)
    assert game.events[0].taker == 2
    assert names(game, game.stacks[2]) == ["9c", "As", "Ks", "6s"]


# -- elimination, leader, misère (§2.6-§2.8) ---------------------------------------------------

# Round 1 (leader 0): As 7c Qs Ks -> seat 0 takes; seat 1 is out.
# Round 2: 9c Jd Td from seats 0, 2, 3 -> seat 2 takes; seat 3 is out.
LEADER_STACKS = [["As", "9c", "6c"], ["7c"], ["Qs", "Jd"], ["Ks", "Td"]]


@pytest.mark.parametrize(("flag", "leaders"), [
    # §2.7 true: after round 1 (one out) the lead moves 1 seat from 0 to seat 1, which is out,
    # so it passes to seat 2. After round 2 (led by 2, one out) it moves to seat 3, out -> 0.
    (True, [0, 2, 0]),
    # §2.7 false: the leader keeps the lead.
    (False, [0, 0, 0]),
])
def test_new_tour_on_elimination(flag: bool, leaders: list[int]) -> None:
    rec = record(LEADER_STACKS, {"new_tour_on_elimination": flag})
    game = rec.game(log=True)
    for _ in range(3):
        assert game.play_round()
    assert [e.leader for e in game.events] == leaders
    assert [e.eliminated for e in game.events[:2]] == [(1,), (3,)]


def test_new_tour_moves_to_a_live_seat() -> None:
    # §2.7: seat 3 goes out in round 1 led by 0: the lead moves 1 seat, to seat 1 (in play).
    rec = record([["As", "6c", "6d"], ["Ks", "7c", "7d"], ["Qs", "8c", "8d"], ["9s"]],
                 {"new_tour_on_elimination": True})
    game = rec.game(log=True)
    game.play_round()
    game.play_round()
    assert [e.leader for e in game.events] == [0, 1]
    assert game.events[0].eliminated == (3,)


def test_misere_classic_first_out_wins() -> None:
    # §2.8 misère: the game stops after the first round in which someone goes out.
    rec = record([["As", "Ks"], ["6c"], ["7c", "8c"]], {"misere": True})
    assert result(rec) == classic_result("win", 1, 1, 1, [1])


def test_misere_classic_first_in_play_order_wins() -> None:
    # §2.8 misère: seats 1 and 2 both go out in round 1; play order from dealer 2 is 2, 0, 1,
    # so seat 2 wins, and both are listed in play order.
    rec = record([["As", "Ks"], ["6c"], ["7c"]], {"misere": True}, dealer=2)
    assert result(rec) == classic_result("win", 2, 1, 1, [2, 1])


# -- end of game (§2.8, §2.9) ------------------------------------------------------------------

# Research deck 1..4, one suit, default rules (bottom, table order). Positions at round start:
#   0: [1 3] [4 2]   R1 1<4 -> P1 [2 1 4]      1: [3] [2 1 4]
#   R2 3>2 -> [3 2] [1 4]                     2: [3 2] [1 4]
#   R3 3>1 -> [2 3 1] [4]                     3
#   R4 2<4 -> [3 1] [2 4]                     4
#   R5 3>2 -> [1 3 2] [4]                     5
#   R6 1<4 -> [3 2] [1 4]                     6 == position 2: cycle_start 2, cycle_length 4.
CYCLE_STACKS = [[1, 3], [4, 2]]
CYCLE_DECK = {"ranks": 4}


def test_cycle_detected() -> None:
    rec = record(CYCLE_STACKS, deck=CYCLE_DECK)
    assert result(rec) == classic_result("cycle", None, 6, 6, [], 2, 4)


def test_cycle_positions_by_hand() -> None:
    game = record(CYCLE_STACKS, deck=CYCLE_DECK).game()
    seen = []
    while not game.is_over:
        seen.append([names(game, s) for s in game.stacks])
        game.play_round()
    assert seen[:7] == [[[1, 3], [4, 2]], [[3], [2, 1, 4]], [[3, 2], [1, 4]],
                        [[2, 3, 1], [4]], [[3, 1], [2, 4]], [[1, 3, 2], [4]],
                        [[3, 2], [1, 4]]]


def test_cycle_ignores_suits() -> None:
    # §2.9: positions compare ranks, not suits. Same game as above with two suits, where the
    # repeated position holds other copies: still a cycle at the same round.
    rec = record([[1, 3], [4, 2]], deck={"ranks": 4, "suits": 2})
    assert result(rec) == classic_result("cycle", None, 6, 6, [], 2, 4)


def test_cycle_detection_off_plays_to_cap() -> None:
    # §2.8: max_rounds rounds played ends the game as capped.
    rec = record(CYCLE_STACKS, {"detect_cycles": False, "max_rounds": 5}, deck=CYCLE_DECK)
    assert result(rec) == classic_result("capped", None, 5, 5, [])


def test_cap_checked_before_cycle() -> None:
    # §2.8: "max_rounds rounds played" is checked before "a repeated position": with the cap at
    # 6 the game that would be found cycling at round 6 is capped instead; at 7 it cycles.
    assert result(record(CYCLE_STACKS, {"max_rounds": 6}, deck=CYCLE_DECK)) == \
        classic_result("capped", None, 6, 6, [])
    assert result(record(CYCLE_STACKS, {"max_rounds": 7}, deck=CYCLE_DECK))["outcome"] == "cycle"


def test_no_cycle_detection_with_shuffled_pickup() -> None:
    # §2.9: detection is off when a choice is random.
    rec = Record.from_json({"mode": "classic", "deck": CYCLE_DECK, "dealer": 0,
                            "rules": {"pickup_order": "shuffled", "max_rounds": 40},
                            "stacks": CYCLE_STACKS, "seed": 1})
    assert result(rec)["outcome"] in ("win", "capped")


# -- tactical (§3) -----------------------------------------------------------------------------

def test_tactical_split_with_remainder_removed() -> None:
    # §3.5: two tied on their last cards with a lower third: pot 3, k 2: one card each, 1 removed.
    rec = tactical([["Ks"], ["Kh"], ["7c"]])
    game = rec.game(log=True)
    res = game.play()
    assert res.to_json() == {"outcome": "draw", "winners": [0, 1], "scores": [1, 1, 0],
                             "removed": 1, "rounds": 1, "showdowns": 1}
    # The lower card leaves the game (seed 001 "карта меньшего значения выходит").
    assert names(game, game.out_of_game) == ["7c"]
    assert game.events[0].end == "split"


def test_tactical_even_split() -> None:
    # §3.5: two players tied on their last cards split the round.
    rec = tactical([["Ks"], ["Kh"]])
    assert result(rec) == {"outcome": "draw", "winners": [0, 1], "scores": [1, 1], "removed": 0,
                           "rounds": 1, "showdowns": 1}


def test_tactical_dispute() -> None:
    # §3.4: Ks ties Kh; both play their next card: 8c beats 7c; seat 1 banks all 4 cards.
    rec = tactical([["Ks", "7c"], ["Kh", "8c"]])
    assert result(rec) == {"outcome": "win", "winners": [1], "scores": [0, 4], "removed": 0,
                           "rounds": 1, "showdowns": 2}


def test_tactical_split_counts_every_card_of_the_round() -> None:
    # §3.5: Qs Qh 7c tie on Q; dispute Ks Kh (last cards for seats 0, 1): they tie again with
    # no card left: pot = 5 cards (tied or not), k = 2: 2 each, 1 removed. Seat 2 keeps 8c and
    # then alone holds cards: banked (§3.6).
    rec = tactical([["Qs", "Ks"], ["Qh", "Kh"], ["7c", "8c"]])
    assert result(rec) == {"outcome": "draw", "winners": [0, 1], "scores": [2, 2, 1],
                           "removed": 1, "rounds": 1, "showdowns": 2}


def test_tactical_void_round() -> None:
    # §3.3: a void round puts each card into its owner's копилка.
    rec = tactical([["As"], ["Ks"], ["6s"]], {"weakest_beats_ace": True})
    game = rec.game(log=True)
    assert game.play().to_json() == {"outcome": "draw", "winners": [0, 1, 2],
                                     "scores": [1, 1, 1], "removed": 0, "rounds": 1,
                                     "showdowns": 1}
    assert game.events[0].end == "void"
    assert [names(game, k) for k in game.kopilki] == [["As"], ["Ks"], ["6s"]]


def test_tactical_last_holder_banks() -> None:
    # §3.6: after As beats Kd, seat 0 alone holds 7c 8c: they go into its копилка (not a round).
    rec = tactical([["As", "7c", "8c"], ["Kd"]])
    game = rec.game()
    assert game.play().to_json() == {"outcome": "win", "winners": [0], "scores": [4, 0],
                                     "removed": 0, "rounds": 1, "showdowns": 1}
    assert Counter(names(game, game.kopilki[0])) == Counter(["As", "Kd", "7c", "8c"])


def test_tactical_misere() -> None:
    # §3.7 misère: lowest score wins.
    rec = tactical([["As", "7c", "8c"], ["Kd"]], {"misere": True})
    assert result(rec) == {"outcome": "win", "winners": [1], "scores": [4, 0], "removed": 0,
                           "rounds": 1, "showdowns": 1}


@pytest.mark.parametrize(("dealer", "taker", "out", "pickup"), [
    (0, 1, [2], ["7c", "Ks", "Kh"]),
    (2, 2, [1], ["Kh", "7c", "Ks"]),
])
def test_takes_pot_first_empty_in_play_order(dealer: int, taker: int, out: list[int],
                                             pickup: list[str]) -> None:
    # §2.4 takes_pot: seats 1 and 2 tie and both have no cards: the first of them in play order
    # takes everything on the table, including the non-disputing 7c.
    rec = record([["7c", "8c"], ["Ks"], ["Kh"]], dealer=dealer)
    game = one_round(rec)
    assert game.events[0].taker == taker
    assert names(game, game.events[0].pickup) == pickup
    assert list(game.events[0].eliminated) == out


@pytest.mark.parametrize(("rule", "taker"), [("earliest_wins", 1), ("takes_pot", 2)])
def test_earliest_wins_is_earliest_disputer(rule: str, taker: int) -> None:
    # §2.4: seat 0 leads but is not in the dispute; seats 1 and 2 tie and seat 2 has no cards.
    # earliest_wins: seat 1 (earliest disputing player); takes_pot: seat 2 (the one with none).
    rec = record([["7c", "8c"], ["Ks", "9c"], ["Kh"]], {"dispute_exhausted": rule})
    game = one_round(rec)
    assert game.events[0].taker == taker
    assert game.events[0].exhausted == rule


def test_leader_out_passes_lead() -> None:
    # §2.7: a leader who is out passes the lead for good to the next seat clockwise in the game.
    rec = record([["6c"], ["As", "7c"], ["Ks", "8c"]])
    game = rec.game(log=True)
    game.play_round()
    game.play_round()
    assert game.events[0].eliminated == (0,)
    assert [e.leader for e in game.events] == [0, 1]
