"""``pyanitsa match A B`` end to end, and ``pyanitsa.tournaments.match``: the figures per
duplicate pair, recomputed here from the stored games."""

from __future__ import annotations

import json
import math
import re

import pytest
from scipy import stats as sps

from pyanitsa.cli import main
from pyanitsa.ratings.sprt import elo_of_score
from pyanitsa.tournaments import MatchResult, match
from pyanitsa.tournaments.store import Store

KEYS = {"agents", "pairs_played", "score", "ci95", "elo", "elo_ci95", "los", "pairs",
        "standings", "anchor", "sprt", "output", "seconds"}


def cli_json(capsys, *argv):
    assert main(["match", *argv, "--json", "--quiet"]) == 0
    return json.loads(capsys.readouterr().out)


def pair_scores(folder):
    """A's points per deal, averaged over the deal's two games, by hand from the rows."""
    with Store.open(folder) as store:
        rows = store.rows()
    by_deal = {}
    for r in rows:
        by_deal.setdefault(r.deal, []).append(r.points[r.seats.index(0)])
    assert all(len(v) == 2 for v in by_deal.values())
    return [sum(v) / 2 for _, v in sorted(by_deal.items())]


def test_random_descending_json_has_the_figures_of_its_pairs(capsys, tmp_path):
    out = cli_json(capsys, "random", "descending", "--deals", "200", "--output",
                   str(tmp_path / "m"))
    assert out.keys() >= KEYS
    scores = pair_scores(tmp_path / "m")
    n = len(scores)
    assert out["pairs_played"] == n == 200
    mean = sum(scores) / n
    sd = math.sqrt(sum((s - mean) ** 2 for s in scores) / (n - 1))
    half = sps.t.ppf(0.975, n - 1) * sd / math.sqrt(n)
    assert out["score"] == pytest.approx(mean)
    assert out["ci95"] == pytest.approx([mean - half, mean + half])
    assert out["elo"] == pytest.approx(elo_of_score(mean))
    assert out["elo_ci95"] == pytest.approx([elo_of_score(mean - half),
                                             elo_of_score(mean + half)])
    assert out["los"] == pytest.approx(sps.norm.cdf((mean - 0.5) / (sd / math.sqrt(n))))
    p = out["pairs"]
    assert (p["wins"], p["draws"], p["losses"]) == (sum(s > 0.5 for s in scores),
                                                    scores.count(0.5),
                                                    sum(s < 0.5 for s in scores))
    assert p["pentanomial"] == [scores.count(k / 4) for k in range(5)]
    a, b = out["standings"]
    assert (a["name"], b["name"], a["games"], b["games"]) == ("random", "descending", 400, 400)
    assert a["wins"] == b["losses"] and a["forfeits"] == b["forfeits"] == 0
    assert out["output"] == str(tmp_path / "m") and (tmp_path / "m" / "report.md").is_file()


def test_the_text_report_and_the_progress_bar(capsys):
    assert main(["match", "descending", "ascending", "--deals", "30"]) == 0
    cap = capsys.readouterr()
    for word in ("descending vs ascending: 30 duplicate pairs", "score ", "Elo ", "LOS ",
                 "pairs     W ", "ratings   mean 0"):
        assert word in cap.out
    # progress on stderr: tqdm's bar on a terminal, plain lines elsewhere (as here)
    assert "match: 60/60 games" in cap.err and "games/s" in cap.err


def test_self_play_is_even_on_every_pair(capsys):
    out = cli_json(capsys, "descending", "descending", "--deals", "12", "--seed", "4")
    assert out["agents"] == ["descending", "descending#2"]
    assert out["score"] == 0.5 and out["elo"] == 0.0 and out["los"] == 0.5
    assert out["ci95"] == [0.5, 0.5] and out["pairs"]["pentanomial"] == [0, 0, 12, 0, 0]


def test_api_matches_the_command_and_anchor_moves_the_ratings(capsys):
    cli = cli_json(capsys, "tie_aware", "random", "--deals", "40", "--seed", "9", "--anchor",
                   "random")
    api = match("tie_aware", "random", deals=40, seed=9, anchor="random")
    assert isinstance(api, MatchResult)
    got = api.to_json()
    for key in ("score", "ci95", "elo", "los", "pairs", "standings", "anchor"):
        assert got[key] == cli[key], key
    first, second = api.standings
    assert second.elo == 0.0 and (second.low, second.high) == (0.0, 0.0)
    free = match("tie_aware", "random", deals=40, seed=9)
    assert free.standings[0].elo == pytest.approx(-free.standings[1].elo)
    assert first.elo == pytest.approx(free.standings[0].elo - free.standings[1].elo)
    assert api.output is None


def test_without_a_seed_one_is_drawn_and_printed_and_replays_the_match(capsys):
    drawn = [cli_json(capsys, "random", "descending", "--deals", "8") for _ in range(2)]
    assert drawn[0]["seed"] != drawn[1]["seed"]
    again = cli_json(capsys, "random", "descending", "--deals", "8", "--seed",
                     str(drawn[0]["seed"]))
    assert again["seed"] == drawn[0]["seed"] and again["pairs"] == drawn[0]["pairs"]
    assert again["score"] == drawn[0]["score"]
    assert main(["match", "random", "descending", "--deals", "2", "--quiet"]) == 0
    assert re.search(r"in [0-9.]+ s, seed [0-9]+\n", capsys.readouterr().out)


def test_sprt_stops_the_match(capsys):
    out = cli_json(capsys, "tie_aware", "random", "--sprt", "elo0=0,elo1=50", "--seed", "0")
    s = out["sprt"]
    assert s["decision"] == "H1" and s["elo1"] == 50.0
    assert s["blocks"] == out["pairs_played"] < 10_000
    assert s["llr"] >= s["upper"]
    assert main(["match", "tie_aware", "random", "--sprt", "--quiet", "--seed", "0"]) == 0
    assert re.search(r"SPRT      accepted H1 at LLR [0-9.]+ ≥ 2\.94: tie_aware is at least 20 "
                     r"Elo stronger \([0-9]+ pairs\)\n", capsys.readouterr().out)


def test_resume_continues_a_kept_match(capsys, tmp_path):
    folder = str(tmp_path / "r")
    first = cli_json(capsys, "random", "descending", "--deals", "10", "--output", folder)
    assert first["pairs_played"] == 10
    more = cli_json(capsys, "random", "descending", "--deals", "25", "--output", folder,
                    "--resume")  # with the seed drawn for the first part
    whole = cli_json(capsys, "random", "descending", "--deals", "25", "--seed",
                     str(first["seed"]))
    assert more["seed"] == first["seed"] == whole["seed"]
    assert more["pairs_played"] == 25 and more["score"] == whole["score"]
    assert main(["match", "random", "descending", "--output", folder, "--quiet"]) == 2
    assert "already holds a tournament" in capsys.readouterr().err


@pytest.mark.parametrize(("argv", "message"), [
    (["random"], "the following arguments are required: B"),
    (["random", "descnding"], "B: unknown agent 'descnding'"),
    (["rndom", "descending"], "A: unknown agent 'rndom'"),
    (["random", "descending", "--deals", "0"], "argument --deals: 0 is not a positive"),
    (["random", "descending", "--deals", "x"], "argument --deals: 'x' is not an integer"),
    (["random", "descending", "--seed", "-1"], "argument --seed: -1 is outside"),
    (["random", "descending", "--workers", "0"], "argument --workers: 0 is not a positive"),
    (["random", "descending", "--time-limit", "nan"], "argument --time-limit:"),
    (["random", "descending", "--anchor", "x"], "anchor: 'x' is not one of the agents"),
    (["random", "descending", "--resume"], "--resume: needs --output DIR"),
    (["random", "descending", "--overwrite"], "--overwrite: needs --output DIR"),
    (["random", "descending", "--sprt", "foo"], "--sprt 'foo': use KEY=VALUE"),
    (["random", "descending", "--sprt", "elo1=x"], "--sprt elo1: 'x' is not a number"),
    (["random", "descending", "--sprt", "elo1=inf"], "--sprt elo1: 'inf' is not a finite"),
    (["random", "descending", "--sprt", "elo0=5,elo1=1"], "sprt: elo1 (1) must be above"),
    (["random", "descending", "--sprt", "alpha=0.7"], "sprt.alpha: Input should be less"),
    (["random", "descending", "--preset", "nope"], "rules: preset: unknown preset 'nope'"),
    (["random", "descending", "--set", "stakes=2"], "stakes: is a classic-mode option"),
    (["random", "descending", "--set", "bogus"], "--set 'bogus': use KEY=VALUE"),
])
def test_bad_input_is_one_line_and_exit_2(capsys, argv, message):
    try:
        code = main(["--debug", "match", *argv, "--quiet"])
    except SystemExit as exc:  # argparse's errors
        code = exc.code
    assert code == 2
    err = capsys.readouterr().err
    assert message in err, err
    assert err.count("\n") == 1 and "Traceback" not in err
