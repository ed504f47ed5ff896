"""The search agent and its compiled kernels.

The kernels must give exactly the reference engine's scores (ties, disputes, splits, void
cycles, ``weakest_beats_ace``, misère); ``mc_search`` must find the exact best response on tiny
deals when given a large budget; decisions are reproducible from the rng; classic pickups work.
"""

from __future__ import annotations

import numpy as np
import pytest

from pyanitsa.agents import kernels, make_agent, play_game
from pyanitsa.agents.search import MCSearch, OpponentModel, OrderSearch, PickupRollouts
from pyanitsa.cards import Deck
from pyanitsa.protocol import hand_view
from pyanitsa.ranks import rank_table
from pyanitsa.rules import Rules, preset
from pyanitsa.tactical import TacticalGame


def random_rules(rng: np.random.Generator, players: int) -> Rules:
    while True:
        deck = Deck.research(int(rng.integers(1, 8)), int(rng.integers(1, 5)),
                             int(rng.integers(0, 3)))
        if deck.size >= players:
            break
    return Rules.default("tactical").replace(
        deck=deck, weakest_beats_ace=bool(rng.integers(2)), misere=bool(rng.integers(2)),
        cycle_rule=("void", "weakest_wins")[int(rng.integers(2))])


def test_kernels_match_the_reference_engine_on_random_hands() -> None:
    rng = np.random.default_rng(20260)
    pairs = 0
    kinds = {"split": 0, "void": 0, "removed": 0}
    for _ in range(4000):
        players = int(rng.integers(2, 6))
        rules = random_rules(rng, players)
        table = rank_table(rules)
        deal = rng.permutation(rules.deck.size)
        # equal hands mostly; unequal lengths too (records allow them)
        if rng.integers(4):
            n = int(rng.integers(1, rules.deck.size // players + 1))
            lens = [n] * players
        else:
            lens = [int(rng.integers(1, rules.deck.size // players + 1)) for _ in range(players)]
        hands, pos = [], 0
        for n in lens:
            hands.append([int(c) for c in deal[pos:pos + n]])
            pos += n
        game = TacticalGame(rules, hands, log=True)
        result = game.play()
        width = max(lens)
        arr = np.zeros((1, players, width), np.int8)
        for s, h in enumerate(hands):
            arr[0, s, :len(h)] = [table.rank_of[c] for c in h]
        prm = kernels.params(rules)
        scores, removed = kernels.scores_many(arr, np.array([lens], np.int64), prm)
        assert tuple(scores[0]) == result.scores, (rules, hands)
        assert removed[0] == result.removed
        if players == 2:
            s0, s1 = kernels.scores2(arr[:, 0], lens[0], arr[:, 1], lens[1], prm)
            assert (int(s0[0]), int(s1[0])) == result.scores, (rules, hands)
        ends = {e.end for e in game.events or []}
        kinds["split"] += "split" in ends
        kinds["void"] += "void" in ends
        kinds["removed"] += result.removed > 0
        pairs += players == 2
    assert pairs > 800, pairs  # the two-player kernel was checked too (1 deal in 4 expected)
    assert all(v > 20 for v in kinds.values()), kinds  # the hard cases were exercised


def test_candidate_scoring_kernels_agree() -> None:
    """evaluate2, evaluate_many and the cached-prefix neighbour pass give the same values."""
    rng = np.random.default_rng(7)
    for _ in range(150):
        rules = random_rules(rng, 2)
        if rules.deck.size < 4:
            continue
        table = rank_table(rules)
        cmp = kernels.cmp_table(table)
        ro = np.array(table.rank_of, np.int8)
        perm = rng.permutation(rules.deck.size)
        n = int(rng.integers(2, rules.deck.size // 2 + 1))
        m = n if rng.integers(3) else int(rng.integers(1, rules.deck.size - n + 1))
        mine, theirs = ro[perm[:n]], ro[perm[n:n + m]]
        samples = int(rng.integers(1, 12))
        opp = np.array([rng.permutation(theirs) for _ in range(samples)], np.int8)
        w = rng.random(samples)
        w /= w.sum()
        lens = np.full((samples, 1), m, np.int64)
        search = OrderSearch(rules, mine, opp[:, None, :], lens, w, "win", None)
        cur = rng.permutation(mine).astype(np.int8)
        nbs = search.neighbours(cur)
        if len(nbs) == 0:
            continue
        prm = kernels.params(rules)
        v2 = kernels.evaluate2(nbs, n, opp, m, w, prm, 1.0, 1e-4, 0.0)
        vm = kernels.evaluate_many(nbs, n, opp[:, None, :], lens, w, prm, 1.0, 1e-4, 0.0)
        np.testing.assert_allclose(v2, vm, atol=1e-12)
        best, value, count = kernels.best_neighbour2(cur, n, opp, m, w, cmp, rules.misere,
                                                     1.0, 1e-4, 0.0)
        assert count >= 1
        assert value == pytest.approx(v2.max(), abs=1e-12)
        again = kernels.evaluate2(best[None], n, opp, m, w, prm, 1.0, 1e-4, 0.0)
        assert again[0] == pytest.approx(value, abs=1e-12)


def test_distinct_orders_enumerates_the_multiset() -> None:
    for ranks in ([0], [1, 1, 1], [0, 1, 2, 3], [2, 0, 2, 1, 1], [3, 3, 0, 1, 2, 2]):
        orders = kernels.distinct_orders(ranks)
        assert len(orders) == kernels.count_orders(ranks)
        assert len({tuple(r) for r in orders}) == len(orders)
        assert all(sorted(r) == sorted(ranks) for r in orders.tolist())


def tiny_deal(seed: int, ranks: int = 6, suits: int = 2, misere: bool = False,
              wba: bool = False) -> tuple[Rules, tuple]:
    from pyanitsa.dealing import deal
    from pyanitsa.rng import Rng

    rules = Rules.default("tactical").replace(deck=Deck.research(ranks, suits), misere=misere,
                                              weakest_beats_ace=wba)
    return rules, deal(rules, 2, Rng(seed)).seats


def exact_values(rules: Rules, mine: list[int], fixed: list[int], objective: str) -> dict:
    """Every distinct order of my ranks scored by the reference engine against one order."""
    table = rank_table(rules)
    out = {}
    for order in kernels.distinct_orders(mine).tolist():
        pools: dict[int, list[int]] = {}
        for c in range(rules.deck.size):
            pools.setdefault(table.rank_of[c], []).append(c)
        hand = [pools[r].pop() for r in order]
        opp = [pools[r].pop() for r in fixed]
        s0, s1 = TacticalGame(rules, [hand, opp]).play().scores
        margin = (s1 - s0) if rules.misere else (s0 - s1)
        win = 1.0 if margin > 0 else (0.5 if margin == 0 else 0.0)
        out[tuple(order)] = win + 1e-4 * margin if objective == "win" else float(margin)
    return out


@pytest.mark.parametrize("exhaustive", [0, 720])
def test_large_budget_finds_the_exact_best_response_to_a_fixed_order(exhaustive: int) -> None:
    """Against a deterministic opponent (``descending``), every sample is the same order, so
    the best response on the samples is the exact best response; local search with restarts
    (``exhaustive=0``) and enumeration (``exhaustive=720``) must both reach its value."""
    found = 0
    for seed in range(12):
        rules, seats = tiny_deal(seed, misere=seed % 3 == 0, wba=seed % 2 == 0)
        table = rank_table(rules)
        for objective in ("win", "margin"):
            agent = MCSearch(samples=8, opponent="descending", objective=objective,
                             restarts=20, exhaustive=exhaustive)
            view = hand_view(rules, 0, seats, 0)
            order = agent.order_hand(view, np.random.default_rng(seed))
            assert sorted(order) == sorted(view.hand)
            fixed = [table.rank_of[c] for c in make_agent("descending").order_hand(
                hand_view(rules, 1, seats, 0), np.random.default_rng(0))]
            values = exact_values(rules, view.hand_ranks(), fixed, objective)
            mine = tuple(table.rank_of[c] for c in order)
            assert values[mine] == pytest.approx(max(values.values()), abs=1e-9), (seed,
                                                                                   objective)
            assert agent.last_info["value"] == pytest.approx(values[mine], abs=1e-9)
            assert agent.last_info["distinct_samples"] == 1
            found += 1
    assert found == 24


def test_large_sample_best_response_to_uniform_is_near_exact() -> None:
    """Against ``uniform`` with many samples, the chosen order's exact value (all opponent
    orders enumerated) is within sampling error of the exact best response."""
    from pyanitsa.solvers.exact import payoff_matrix

    rules, seats = tiny_deal(3, ranks=5, suits=2)
    table = rank_table(rules)
    view = hand_view(rules, 0, seats, 0)
    agent = MCSearch(samples=3000, opponent="uniform", objective="margin")
    order = agent.order_hand(view, np.random.default_rng(1))
    mine = kernels.distinct_orders(view.hand_ranks())
    theirs = kernels.distinct_orders([table.rank_of[c] for c in seats[1]])
    means = payoff_matrix(rules, mine, theirs).mean(axis=1)
    idx = {tuple(r): i for i, r in enumerate(mine.tolist())}
    chosen = means[idx[tuple(table.rank_of[c] for c in order)]]
    assert chosen >= means.max() - 0.05


def test_decisions_are_reproducible_and_inspectable() -> None:
    rules = preset("tactical")
    from pyanitsa.dealing import deal
    from pyanitsa.rng import Rng

    seats = deal(rules, 2, Rng(5)).seats
    view = hand_view(rules, 1, seats, 0)
    a = make_agent("mc_search(samples=24)")
    first = a.order_hand(view, np.random.default_rng(9))
    info = dict(a.last_info)
    second = a.order_hand(view, np.random.default_rng(9))
    assert first == second
    assert sorted(first) == sorted(view.hand)
    assert info["samples"] == 24 and info["stopped"] in ("local_optimum", "budget")
    assert info["evaluations"] > 0 and info["passes"] >= 1


def test_time_budget_stops_the_search() -> None:
    rules = preset("tactical")
    from pyanitsa.dealing import deal
    from pyanitsa.rng import Rng

    seats = deal(rules, 2, Rng(1)).seats
    view = hand_view(rules, 0, seats, 0)
    agent = MCSearch(samples=100_000, budget_ms=30.0, opponent="uniform", restarts=50)
    agent.order_hand(view, np.random.default_rng(0))  # warm the kernels
    order = agent.order_hand(view, np.random.default_rng(0))
    assert sorted(order) == sorted(view.hand)
    assert agent.last_info["stopped"] == "budget"
    assert agent.last_info["samples"] < 100_000
    assert agent.last_info["ms"] < 500  # generous: a shared machine


def test_many_players_and_set_aside_cards() -> None:
    rules = preset("tactical")  # 36 cards, 5 players: 7 each, 1 set aside
    agents = [make_agent("mc_search(samples=16, opponent='uniform|descending')")] + [
        make_agent("random") for _ in range(4)]
    out = play_game(rules, agents, seed=3)
    assert len(out.record.seats[0]) == 7
    assert agents[0].last_info["distinct_samples"] >= 1


def test_opponent_model_mixture_weights() -> None:
    model = OpponentModel("2*uniform|descending")
    assert [p is None for p in model.parts] == [True, True, False]
    with pytest.raises(ValueError):
        OpponentModel("uniform||descending")


def test_classic_pickups_by_rollouts() -> None:
    rules = preset("classic-ru", pickup_order="agent", deck="ranks=6,suits=2", max_rounds=300)
    agents = [make_agent("mc_search(pickup_rollouts=2, pickup_horizon=20)"),
              make_agent("pickup_table")]
    out = play_game(rules, agents, seed=4)
    assert out.record.decisions  # the game was decided by pickups
    # replaying the record gives the same result (decisions are legal and complete)
    assert out.record.play() == out.result


def test_pickup_world_samples_are_consistent() -> None:
    """A sampled world holds every card exactly once, in places of the right sizes."""
    from pyanitsa.protocol import pickup_view

    rules = preset("classic-ru", pickup_order="agent", deck="36")
    views = []

    def grab(request):  # the first few pickup requests of a real game
        views.append(pickup_view(request))
        return request.cards

    from pyanitsa.classic import ClassicGame
    from pyanitsa.dealing import deal
    from pyanitsa.rng import Rng

    dealt = deal(rules, 3, Rng(2))
    game = ClassicGame(rules, dealt.seats, dealer=dealt.dealer, pickup=grab)
    for _ in range(60):
        if not game.play_round():
            break
    rng = np.random.default_rng(0)
    for view in views[:: max(1, len(views) // 8)]:
        chooser = PickupRollouts(view, 10)
        stacks, piles = chooser.sample_world(rng)
        placed = [c for s in stacks for c in s] + [c for p in piles for c in p] + list(view.cards)
        assert len(placed) == len(set(placed)) == rules.deck.size
        assert [len(s) for s in stacks] == list(view.stack_sizes)
        assert [len(p) for p in piles] == list(view.pile_sizes)
        me = view.seat
        assert stacks[me][len(stacks[me]) - len(view.known_tail):] == list(view.known_tail)
        cands = chooser.candidates(rng, 2)
        assert all(sorted(c) == sorted(view.cards) for c in cands)


def _pickup_views(rules, players: int, seed: int, rounds: int) -> list:
    from pyanitsa.classic import ClassicGame
    from pyanitsa.dealing import deal
    from pyanitsa.protocol import pickup_view
    from pyanitsa.rng import Rng

    views = []

    def grab(request):
        views.append(pickup_view(request))
        return request.cards

    rng = Rng(seed)
    dealt = deal(rules, players, rng)
    game = ClassicGame(rules, dealt.seats, dealer=dealt.dealer, pickup=grab,
                       rng=Rng(rng.state) if rules.random_play else None)
    for _ in range(rounds):
        if not game.play_round():
            break
    return views


@pytest.mark.parametrize(("options", "players"), [
    ({"preset": "classic-ru"}, 2),
    ({"preset": "classic-ru", "pickup_to": "won_pile", "refill": "shuffle"}, 3),
    ({"preset": "classic-ua", "misere": True, "max_rounds": 150}, 4),
    ({"preset": "war-52", "dispute_exhausted": "drops_out", "new_tour_on_elimination": True}, 5),
])
def test_pickup_rollouts_on_the_batch_core_score_as_the_reference_engine(options: dict,
                                                                         players: int) -> None:
    """Every rollout the agent plays with the batch core is worth what the same game played on
    the reference engine is worth (result, or card share at the horizon)."""
    from pyanitsa.batch import play_positions
    from pyanitsa.classic import ClassicGame
    from pyanitsa.results import Termination

    rules = Rules.from_options({**options, "pickup_order": "agent"}, deck="ranks=6,suits=3")
    rng = np.random.default_rng(1)
    checked = 0
    for seed in range(60):
        if checked >= 100:
            break
        for view in _pickup_views(rules, players, seed, 400)[::7]:
            chooser = PickupRollouts(view, int(rng.integers(1, 90)))
            if chooser.settled:
                continue
            world = chooser.freeze(chooser.sample_world(rng))
            positions = [chooser.position(c, world, int(rng.integers(1 << 62)))
                         for c in chooser.candidates(rng, 2)]
            values = chooser.values(play_positions(chooser.sim_rules, positions,
                                                   horizon=chooser.horizon))
            for pos, value in zip(positions, values, strict=True):
                stop = min(rules.max_rounds, pos.rounds + chooser.horizon)
                game = ClassicGame.from_position(chooser.sim_rules.replace(max_rounds=stop), pos)
                res = game.play()
                if res.outcome is Termination.CAPPED and res.rounds < rules.max_rounds:
                    total = sum(game.count(s) for s in range(players))
                    share = game.count(view.seat) / total if total else 0.5
                    want = 1.0 - share if rules.misere and total else share
                elif res.outcome is Termination.WIN:
                    want = 1.0 if res.winner == view.seat else 0.0
                else:
                    want = 0.5
                assert value == pytest.approx(want), (pos, res)
                checked += 1
    assert checked >= 100


@pytest.mark.parametrize("how", PickupRollouts.FIXED)
def test_pickup_candidates_reproduce_the_engine_orders(how: str) -> None:
    """The fixed candidate orders, built from the view alone, are the engine's own orders."""
    from pyanitsa.classic import ClassicGame
    from pyanitsa.dealing import deal
    from pyanitsa.protocol import pickup_view
    from pyanitsa.rng import Rng

    for players, options in ((2, {"dispute": "down_up", "stakes": 2}), (3, {}),
                             (4, {"dispute": "down_up"})):
        base = preset("classic-ru", deck="ranks=5,suits=4", **options)
        dealt = deal(base, players, Rng(players))
        mine = ClassicGame(base.replace(pickup_order="agent"), dealt.seats, dealer=dealt.dealer,
                           pickup=lambda r: PickupRollouts(pickup_view(r), 1).fixed_order(how))
        ref = ClassicGame(base.replace(pickup_order=how), dealt.seats, dealer=dealt.dealer,
                          log=True)
        for _ in range(150):
            if not (mine.play_round() and ref.play_round()):
                break
        expected = [tuple(e.pickup) for e in ref.events or [] if e.pickup]
        assert [tuple(d) for d in mine.decisions][:len(expected)] == expected[:len(
            mine.decisions)]
        assert len(expected) > 5


def test_agents_benchmark_smoke(capsys: pytest.CaptureFixture[str], benchmark_module) -> None:
    """benchmarks/agents_bench.py runs (tiny budgets) and reports what BENCHMARKS.md quotes."""
    import json

    module = benchmark_module("agents_bench")
    assert module.main(["--only", "h2h", "--pairs", "2", "--opponents", "descending",
                        "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    row = report["h2h"]["rows"][0]
    assert row["pairs"] == 2 and row["decisions"] == 4 and 0 <= row["score"] <= 1


def test_pickup_time_budget_stops_the_rollouts() -> None:
    """With ``budget_ms`` the rollouts run one world per batch call and stop when time is up;
    the answer is still a legal order of the table."""
    import time

    rules = preset("classic-ru", pickup_order="agent", deck="36")
    views = [v for v in _pickup_views(rules, 2, 3, 200) if len(set(v.cards)) > 2]
    agent = MCSearch(pickup_rollouts=1_000_000, budget_ms=20.0)
    rng = np.random.default_rng(0)
    searched = 0
    for view in views[:3]:
        start = time.perf_counter()
        order = agent.order_pickup(view, rng)
        assert time.perf_counter() - start < 2.0
        assert sorted(order) == sorted(view.cards)
        info = agent.last_info
        if info["stopped"] != "trivial":
            assert info["stopped"] == "budget" and 1 <= info["rollouts"] < 1_000_000
            searched += 1
    assert searched >= 1
