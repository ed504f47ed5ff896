"""Random rules for the tests, drawn from :func:`pyanitsa.rules.option_domains`: every option of
a mode, so an option or a value added to ``Rules`` is fuzzed by every test that draws here (the
parity tests on both engines, the property tests) without a line of test code naming it.

A test may bias an option (``shape``: a function of the generator, or a hypothesis strategy),
say to keep ``max_rounds`` small; every other option is drawn uniformly from its domain. A
combination the rules refuse (``stakes`` without ``dispute: down_up``) is repaired by leaving out
the option the error names first, as a user would read the message.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Mapping
from typing import Any

from hypothesis import strategies as st

from pyanitsa.cards import Deck
from pyanitsa.errors import InvalidRulesError
from pyanitsa.rules import Mode, Rules, option_domains

Shape = Mapping[str, Callable[[random.Random], Any]]


def _draw(rnd: random.Random, domain: tuple[Any, ...] | range) -> Any:
    return rnd.choice(domain) if isinstance(domain, tuple) else rnd.randrange(
        domain.start, domain.stop)


def random_options(rnd: random.Random, mode: Mode, shape: Shape | None = None,
                   refuse: Mapping[str, tuple[Any, ...]] | None = None) -> dict[str, Any]:
    """One value of every option of ``mode``: ``shape[name](rnd)`` where given, else uniform
    over the option's domain leaving out the values in ``refuse[name]``."""
    shape, refuse = shape or {}, refuse or {}
    out = {}
    for name, domain in option_domains(mode).items():
        if name in shape:
            out[name] = shape[name](rnd)
        else:
            allowed = domain if not isinstance(domain, tuple) else tuple(
                v for v in domain if v not in refuse.get(name, ()))
            out[name] = _draw(rnd, allowed)
    return out


def valid_rules(options: dict[str, Any], mode: Mode, deck: Deck) -> Rules:
    """``Rules`` of ``options``, each option a refusal names left out (so at its default)."""
    options = dict(options)
    while True:
        try:
            return Rules.from_options(options, mode=mode, deck=deck)
        except InvalidRulesError as exc:
            key = str(exc).split(":", 1)[0]
            if key not in options:
                raise  # not a combination this repair understands: the test should see it
            del options[key]


def option_strategies(mode: Mode, shape: Mapping[str, st.SearchStrategy] | None = None,
                      refuse: Mapping[str, tuple[Any, ...]] | None = None
                      ) -> st.SearchStrategy[dict[str, Any]]:
    """:func:`random_options` for hypothesis: a dict of every option of ``mode``."""
    shape, refuse = shape or {}, refuse or {}
    parts = {}
    for name, domain in option_domains(mode).items():
        if name in shape:
            parts[name] = shape[name]
        elif isinstance(domain, tuple):
            parts[name] = st.sampled_from([v for v in domain if v not in refuse.get(name, ())])
        else:
            parts[name] = st.integers(domain.start, domain.stop - 1)
    return st.fixed_dictionaries(parts)
