"""Agent generators: seeded by a one-way, keyed derivation, so a generator says nothing of the deal.

Each agent gets a ``numpy.random.Generator`` per game and seat, and it can read that generator's
seed (``rng.bit_generator.seed_seq.entropy``). The seed used to be ``derive_seed(game_seed,
stream, seat)``; SplitMix64's steps are bijections, so an agent could run them backwards to the
game seed and deal every hand. Now the seed is 128 bits of BLAKE2b keyed with a 32-byte key,
over the game seed, the seat and a purpose: without the key, the seed is unrelated to the game.

Where the key comes from:

* a tournament makes one with its database and keeps it there, so its workers (any number,
  either backend) and every ``--resume`` derive the same generators (the views and generators
  agents get do not hold it). By default it is :func:`key_from_seed` of the tournament's seed,
  so one config plays the same games anywhere (and an agent that guesses the seed can find its
  game: a config without a seed draws a random one); ``agent_key: random`` draws it from
  ``os.urandom``, a secret even from an agent that knows the seed, and keys the deals too
  (:func:`keyed_deal_seed`);
* ``play``, ``simulate`` and the other tools derive it from the game seed through a one-way
  function (:func:`key_from_seed`), so a ``--seed`` reproduces its games anywhere, and game
  ``i`` of ``simulate`` is exactly ``play --seed derive_seed(SEED, i)``. That key is no secret
  from an agent that can guess the seed, but neither is the deal, which the seed makes.
"""

from __future__ import annotations

import hashlib
import os

import numpy as np

from pyanitsa.cards import Seat
from pyanitsa.errors import PyanitsaError
from pyanitsa.rng import MASK64

AgentKey = bytes
"""32 bytes that key the derivation."""
KEY_BYTES = 32
DECIDE = b"decide"
"""The purpose of the generators the referee hands to agents."""
_SEED_KEY = b"pyanitsa:seedkey"
"""BLAKE2b personalisation of :func:`key_from_seed` (16 bytes)."""
_DEAL_KEY = b"pyanitsa:deals"
"""BLAKE2b personalisation of :func:`keyed_deal_seed`."""


def new_key() -> AgentKey:
    """A fresh secret key (a tournament's)."""
    return os.urandom(KEY_BYTES)


def key_from_seed(seed: int) -> AgentKey:
    """The key of tools that have only the user's seed: a one-way function of it."""
    return hashlib.blake2b((seed & MASK64).to_bytes(8, "little"), digest_size=KEY_BYTES,
                           person=_SEED_KEY).digest()


class AgentKeyError(PyanitsaError):
    """Something given as an agent key that is not one."""


def check_key(key: object) -> AgentKey:
    """``key`` if it is a key (32 bytes); else :class:`AgentKeyError`."""
    if type(key) is not bytes or len(key) != KEY_BYTES:
        raise AgentKeyError(f"an agent key is {KEY_BYTES} bytes, not {type(key).__name__}")
    return key


def agent_seed(game_seed: int, seat: Seat, key: AgentKey, *, purpose: bytes = DECIDE) -> int:
    """The 128-bit seed of ``seat``'s generator in game ``game_seed``."""
    message = (game_seed & MASK64).to_bytes(8, "little") + seat.to_bytes(2, "little") + purpose
    digest = hashlib.blake2b(message, key=key, digest_size=16).digest()
    return int.from_bytes(digest, "little")


def keyed_deal_seed(seed: int, pairing: int, deal: int, key: AgentKey) -> int:
    """The 64-bit seed of a deal of an ``agent_key: random`` tournament: BLAKE2b keyed with the
    secret key, so a bot that knows the tournament's seed still cannot compute its cards."""
    message = b"".join((n & MASK64).to_bytes(8, "little") for n in (seed, pairing, deal))
    digest = hashlib.blake2b(message, key=check_key(key), digest_size=8, person=_DEAL_KEY)
    return int.from_bytes(digest.digest(), "little")


def seat_rng(game_seed: int, seat: Seat, key: AgentKey | None = None) -> np.random.Generator:
    """The generator of ``seat``'s agent in game ``game_seed``: independent of the deal, of the
    other seats, and, without ``key``, of everything an agent can see. ``key=None``: the key
    of :func:`key_from_seed` (``play`` and ``simulate``)."""
    if key is None:
        key = key_from_seed(game_seed)
    return np.random.default_rng(agent_seed(game_seed, seat, key))
