"""Players, installed as ``pyanitsa.agents``.

One protocol (:class:`Agent`: ``order_hand`` for tactical hands, ``order_pickup`` for classic
pickups), views that hold exactly what a seat may know, spec strings that name agents on the
command line, in YAML and in Python, and :func:`play_game`, the loop every tool shares.
"""

from pyanitsa.agents.game import AgentFailure, GameOutcome, check_order, play_game, seat_rng
from pyanitsa.agents.specs import (
    AgentSpecError,
    builtin_agents,
    make_agent,
    parse_spec,
    register,
    register_scheme,
)
from pyanitsa.protocol import (
    Agent,
    BaseAgent,
    HandView,
    PickupView,
    UnsupportedDecisionError,
    hand_view,
    pickup_view,
)

__all__ = [
    "Agent", "AgentFailure", "AgentSpecError", "BaseAgent", "GameOutcome", "HandView",
    "PickupView", "UnsupportedDecisionError", "builtin_agents", "check_order", "hand_view",
    "make_agent", "parse_spec", "pickup_view", "play_game", "register", "register_scheme",
    "seat_rng",
]
