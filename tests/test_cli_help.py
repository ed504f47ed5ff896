"""Every subcommand's ``--help`` reads as plain text: a description, no reStructuredText markup
(a docstring pasted into argparse), lines that fit a terminal, every option explained."""

from __future__ import annotations

import argparse
import re

import pytest

from pyanitsa.cli import HelpFormatter, build_parser

RST = re.compile(r"``|:(func|mod|class|meth|attr|data|ref|doc):`|^\s*\.\. \w+|^\s*\.\. _", re.M)


def subcommands() -> dict[str, argparse.ArgumentParser]:
    (sub,) = [a for a in build_parser()._actions if isinstance(a, argparse._SubParsersAction)]
    return dict(sub.choices)


def help_text(parser: argparse.ArgumentParser, monkeypatch: pytest.MonkeyPatch) -> str:
    monkeypatch.setenv("COLUMNS", "80")  # argparse wraps to $COLUMNS
    return parser.format_help()


def test_the_subcommands_are_all_found():
    assert {"play", "replay", "demo", "tournament", "report", "train"} <= \
        set(subcommands())


@pytest.mark.parametrize("name", sorted(subcommands()))
def test_help_has_a_description_and_no_markup(name, monkeypatch):
    parser = subcommands()[name]
    assert parser.description and len(parser.description.split()) >= 5, \
        f"pyanitsa {name} --help has no description"
    text = help_text(parser, monkeypatch)
    assert not RST.search(text), f"pyanitsa {name} --help shows markup: {RST.search(text)[0]!r}"
    long = [line for line in text.splitlines() if len(line) > 100]
    assert not long, f"pyanitsa {name} --help has unwrapped lines: {long[0][:60]!r}..."
    unexplained = [a.option_strings[0] if a.option_strings else a.metavar or a.dest
                   for a in parser._actions
                   if not a.help and not isinstance(a, argparse._HelpAction)]
    assert not unexplained, f"pyanitsa {name} --help: {unexplained} have no help text"


def test_the_formatter_wraps_prose_and_keeps_examples_as_written():
    text = ("Prose that goes on\nacross lines\nand paragraphs.\n\nA second paragraph.\n\n"
            "examples:\n  pyanitsa bench --quick    # a comment\n")
    out = HelpFormatter("prog", width=30)._fill_text(text, 30, "")
    assert out.splitlines() == ["Prose that goes on across", "lines and paragraphs.", "",
                                "A second paragraph.", "", "examples:",
                                "  pyanitsa bench --quick    # a comment"]
