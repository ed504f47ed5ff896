"""How tournaments report: the SPRT in words, the gauntlet plot, live standings during a run."""

from __future__ import annotations

import pytest

from pyanitsa.ratings.sprt import SprtResult, sprt_statement


def sprt_result(decision, llr, lower=-2.944439, upper=2.944439):
    return SprtResult(0, ("cand", "opp"), decision, llr, lower, upper, 40, 0.61, 0.0, 20.0)


@pytest.mark.parametrize(("decision", "llr", "text"), [
    ("H1", 3.14159, "accepted H1 at LLR 3.14 ≥ 2.94"),
    ("H0", -3.0141, "accepted H0 at LLR -3.01 ≤ -2.94"),
    (None, 1.2, "continuing: LLR 1.20 in (-2.94, 2.94)"),
    (None, -0.5, "continuing: LLR -0.50 in (-2.94, 2.94)"),
])
def test_sprt_is_stated_against_the_bound_it_crossed(decision, llr, text):
    assert sprt_statement(decision, llr, -2.944439, 2.944439) == text
    result = sprt_result(decision, llr)
    assert result.verdict.startswith(text)
    assert "[" not in result.verdict and "+" not in result.verdict


def test_an_llr_just_inside_a_bound_does_not_print_equal_to_it():
    text = sprt_statement(None, 2.9431, -2.944439, 2.944439)
    assert text == "continuing: LLR 2.943 in (-2.944, 2.944)"


def test_console_and_markdown_state_the_sprt_in_words():
    from pyanitsa.tournaments import report

    line = report.sprt_line(sprt_result("H1", 3.14159))
    assert line == ("SPRT cand vs opp: accepted H1 at LLR 3.14 ≥ 2.94 (cand is at least 20 Elo "
                    "stronger; 40 pairs, score 0.610)")
    running = report.sprt_line(sprt_result(None, 1.2))
    assert running == "SPRT cand vs opp: continuing: LLR 1.20 in (-2.94, 2.94) (40 pairs, " \
                      "score 0.610)"


# -- the gauntlet plot -------------------------------------------------------------------------


def game(pairing, deal, rotation, seats, places):
    from pyanitsa.workers.games import GameRow, points_from_places

    return GameRow(pairing, deal, rotation, 1, tuple(seats), "win", points_from_places(places),
                   tuple(places), None, 10, 10, None, None, None, None, None, 0.0)


def gauntlet_summary(tmp_path):
    """cand against b, c, d: it wins every game against b, splits every deal with c and loses
    every game against d (pairings 0, 1, 2; two rotations a deal)."""
    from pyanitsa.tournaments.config import parse_config
    from pyanitsa.tournaments.stats import summarize

    c = parse_config({"agents": ["cand", "b", "c", "d"], "format": "gauntlet",
                      "candidate": "cand", "rules": {"preset": "tactical"}, "deals": 6,
                      "bootstrap": 0, "output": str(tmp_path)})
    rows = []
    for deal in range(6):
        rows += [game(0, deal, 0, (0, 1), (1, 2)), game(0, deal, 1, (1, 0), (2, 1)),
                 game(1, deal, 0, (0, 2), (1, 2)), game(1, deal, 1, (2, 0), (1, 2)),
                 game(2, deal, 0, (0, 3), (2, 1)), game(2, deal, 1, (3, 0), (1, 2))]
    return summarize(c, rows), rows


def test_a_gauntlet_plots_the_candidate_against_each_opponent(tmp_path, monkeypatch):
    from pyanitsa.tournaments import plots, report

    summary, rows = gauntlet_summary(tmp_path)
    figures = []
    real_figure = plots._figure
    monkeypatch.setattr(plots, "_figure", lambda w, h: figures.append(real_figure(w, h))
                        or figures[-1])
    written = report.write_reports(tmp_path, summary, rows)
    names = sorted(p.name for p in written)
    assert "gauntlet.png" in names and "heatmap.png" not in names
    assert (tmp_path / "gauntlet.png").read_bytes()[:4] == b"\x89PNG"
    gauntlet = next(f for f in figures if "gauntlet of cand" in f.axes[0].get_title())
    ax = gauntlet.axes[0]
    # one point with its interval per opponent, best result on top (matplotlib's y grows up)
    assert [t.get_text() for t in ax.get_yticklabels()] == ["d", "c", "b"]
    assert len(ax.containers) == 3
    xs = [float(container.lines[0].get_xdata()[0]) for container in ax.containers]
    assert xs == pytest.approx([0.0, 50.0, 100.0])
    md = (tmp_path / "report.md").read_text()
    assert "| opponent | score | Elo | blocks |" in md and "![head to head](gauntlet.png)" in md
    assert "| b | 100.0" in md and "| d | 0.0" in md
    console = report.console_table(summary)
    assert "cand against" in console and "head-to-head score" not in console


def test_a_round_robin_keeps_its_heatmap(tmp_path):
    from pyanitsa.tournaments import report
    from pyanitsa.tournaments.config import parse_config
    from pyanitsa.tournaments.stats import summarize

    c = parse_config({"agents": ["a", "b"], "rules": {"preset": "tactical"}, "deals": 1,
                      "bootstrap": 0, "output": str(tmp_path)})
    rows = [game(0, 0, 0, (0, 1), (1, 2)), game(0, 0, 1, (1, 0), (1, 2))]
    names = {p.name for p in report.write_reports(tmp_path, summarize(c, rows), rows)}
    assert "heatmap.png" in names and "gauntlet.png" not in names
    assert "head-to-head score" in report.console_table(summarize(c, rows))


# -- live standings ----------------------------------------------------------------------------


@pytest.mark.parametrize("anchor", [None, "weak"])
def test_live_standings_come_as_events_and_agree_with_the_reports(tmp_path, monkeypatch,
                                                                  anchor):
    from pathlib import Path

    from pyanitsa.tournaments.config import parse_config
    from pyanitsa.tournaments.runner import run_tournament
    from pyanitsa.tournaments.stats import summarize
    from pyanitsa.tournaments.store import Store

    monkeypatch.syspath_prepend(str(Path(__file__).resolve().parent))
    agents = [{"name": n.lower(), "spec": f"tournament_agents:{n}"}
              for n in ("Strong", "Weak", "Random")]
    c = parse_config({"name": "t", "agents": agents, "rules": {"preset": "tactical"},
                      "deals": 30, "seed": 3, "bootstrap": 0, "workers": 1,
                      "anchor": anchor, "output": str(tmp_path / "out")})
    events = []
    run_tournament(c, events=events.append, standings_every=0)
    live = [e for e in events if e["event"] == "standings"]
    assert len(live) >= 2 and events[-2] is live[-1] and events[-1]["event"] == "finish"
    assert [e["games"] for e in live] == sorted(e["games"] for e in live)
    final = live[-1]
    assert final["games"] == 180
    with Store.open(c.output_dir) as store:
        summary = summarize(c, store.rows())
    by_name = {a.name: a for a in summary.agents}
    assert [r["agent"] for r in final["standings"]] == \
        sorted(by_name, key=lambda n: -by_name[n].rating)
    for r in final["standings"]:
        agent = by_name[r["agent"]]
        assert r["games"] == agent.games and r["score"] == pytest.approx(agent.score)
        assert r["elo"] == pytest.approx(agent.rating, abs=10)
    if anchor is not None:
        assert next(r["elo"] for r in final["standings"] if r["agent"] == anchor) == 0.0


def test_without_a_terminal_progress_is_plain_periodic_lines():
    import io

    from pyanitsa.tournaments.events import Progress

    out = io.StringIO()
    progress = Progress(100, 0, "t", file=out, tty=False, log_every=0)
    progress.update(40)
    progress.show([{"agent": "strong", "games": 40, "score": 0.75, "elo": 120.4},
                   {"agent": "weak", "games": 40, "score": 0.25, "elo": -120.4}])
    progress.update(60)
    progress.close()
    text = out.getvalue()
    assert "\r" not in text and "\x1b" not in text
    lines = text.splitlines()
    assert lines[0].startswith("t: 40/100 games (40%), ")
    assert lines[1].split() == ["agent", "score", "Elo", "games"]
    assert lines[2].split() == ["strong", "0.750", "+120", "40"]
    assert lines[3].split() == ["weak", "0.250", "-120", "40"]
    assert lines[4].startswith("t: 100/100 games in ") and len(lines) == 5


def test_without_a_terminal_standings_are_written_at_most_every_log_interval():
    import io

    from pyanitsa.tournaments.events import Progress

    out = io.StringIO()
    progress = Progress(10, 0, "t", file=out, tty=False, log_every=3600)
    progress.show([{"agent": "a", "games": 1, "score": 1.0, "elo": 0.0}])
    assert out.getvalue() == ""


def test_on_a_terminal_the_standings_are_tqdm_status_lines_under_the_bar():
    import io

    from pyanitsa.tournaments.events import Progress

    out = io.StringIO()
    progress = Progress(100, 0, "t", file=out, tty=True)
    progress.update(10)
    rows = [{"agent": f"agent{i}", "games": 10, "score": 0.5, "elo": 0.0} for i in range(10)]
    progress.show(rows)
    assert len(progress.status) == 10  # the header, the best 8, "… 2 more"
    assert [b.desc.split()[0] for b in progress.status[1:3]] == ["agent0", "agent1"]
    assert progress.status[-1].desc.strip() == "… 2 more"
    progress.show(rows[:2])  # fewer agents shown: the lines left over go blank
    assert [b.desc for b in progress.status[3:]] == [""] * 7
    progress.close()
    assert "agent0" in out.getvalue()


def test_a_resumed_run_counts_its_stored_games_in_the_live_standings(tmp_path, monkeypatch):
    import sqlite3
    from pathlib import Path

    from pyanitsa.tournaments.config import parse_config
    from pyanitsa.tournaments.runner import run_tournament
    from pyanitsa.tournaments.store import DB_NAME

    monkeypatch.syspath_prepend(str(Path(__file__).resolve().parent))
    agents = [{"name": n.lower(), "spec": f"tournament_agents:{n}"} for n in ("Strong", "Weak")]
    c = parse_config({"name": "t", "agents": agents, "rules": {"preset": "tactical"},
                      "deals": 6, "seed": 3, "bootstrap": 0, "workers": 1,
                      "output": str(tmp_path / "out")})
    run_tournament(c)
    with sqlite3.connect(c.output_dir / DB_NAME) as conn:  # as if killed after three deals
        conn.execute("DELETE FROM games WHERE deal >= 3")
    conn.close()
    events = []
    result = run_tournament(c, resume=True, events=events.append)
    assert result.played == 6
    (final,) = [e for e in events if e["event"] == "standings"]
    assert final["games"] == 12 and [r["games"] for r in final["standings"]] == [12, 12]


def test_a_negative_lower_bound_is_printed_as_measured_and_said_what_it_means():
    """The console shows a lower bound below 0 as it is (it used to print ">=0.00") and says
    that it means the response found nothing, not that the agent is unexploitable."""
    from pyanitsa.tournaments.strength import console_line

    exploit = {"ppo": {"exploitability": -0.098, "method": "lower_bound"},
               "random": {"exploitability": 0.64, "method": "lower_bound"},
               "descending": {"exploitability": 24.67, "method": "exact"}}
    line = console_line(exploit)
    assert "ppo >=-0.10, random >=0.64, descending 24.67" in line
    assert "below 0" in line and "found nothing" in line
    del exploit["ppo"]
    assert "below 0" not in console_line(exploit)
