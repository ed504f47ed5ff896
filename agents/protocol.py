"""The agent protocol and views, kept in the core (:mod:`pyanitsa.protocol`); this name stays
for code written against it."""

from pyanitsa.protocol import (  # noqa: F401
    Agent,
    BaseAgent,
    Deterministic,
    HandView,
    Mix,
    PickupView,
    UnsupportedDecisionError,
    check_game,
    hand_view,
    pickup_view,
    view_for,
)
