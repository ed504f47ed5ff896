"""pyanitsa: rules, records and tools for Пьяница (War) and Тактический пьяница."""

from pyanitsa.cards import Card, Deck, Seat
from pyanitsa.classic import ClassicGame, ClassicPosition, PickupRequest
from pyanitsa.classic_view import ClassicView
from pyanitsa.dealing import Deal, deal, deal_from_seed
from pyanitsa.errors import (
    IllegalActionError,
    InvalidCardError,
    InvalidDeckError,
    InvalidPositionError,
    InvalidRecordError,
    InvalidRulesError,
    PyanitsaError,
    PyanitsaRuntimeError,
)
from pyanitsa.records import Record, replay
from pyanitsa.results import ClassicResult, TacticalResult, Termination
from pyanitsa.rng import Rng, derive_seed
from pyanitsa.rules import PRESETS, Rules, preset
from pyanitsa.tactical import TacticalGame

__version__ = "0.1.0"

__all__ = [
    "PRESETS", "Card", "ClassicGame", "ClassicPosition", "ClassicResult", "ClassicView", "Deal", "Deck",
    "IllegalActionError", "InvalidCardError", "InvalidDeckError", "InvalidPositionError",
    "InvalidRecordError", "InvalidRulesError",
    "PickupRequest", "PyanitsaError", "PyanitsaRuntimeError", "Record", "Rng", "Rules", "Seat",
    "TacticalGame", "TacticalResult", "Termination", "deal", "deal_from_seed", "derive_seed",
    "preset", "replay",
]
