"""How tournaments report: the SPRT in words, the gauntlet plot, live standings during a run."""

from __future__ import annotations

import pytest

from pyanitsa.tournaments.sprt import SprtResult, sprt_statement


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
