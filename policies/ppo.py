"""``ppo:PATH``: a tactical hand orderer that plays from a trained policy network.

The agent orders its hand exactly as the learner does in ``pyanitsa/Tactical-v0``: one rank per
step, the observation built by the env's own :class:`~pyanitsa.observation.TacticalSeat`, the
illegal ranks masked out. ``order_hands`` orders many hands with one forward pass per step for
all of them (a tournament or an evaluation asks for thousands at once).

Saved policies (written by ``pyanitsa train``; the files are read and written in
:mod:`pyanitsa.policies.files`):

* ``NAME.pt`` plus ``NAME.json``: the policy network's ``state_dict`` (tensors only, loaded with
  ``torch.load(weights_only=True)``: no code runs) and a sidecar with the architecture, the
  observation layout (rules, players, action count), the training config, seed and package
  versions. The network is rebuilt from the sidecar with stable-baselines3's policy class. This
  is the safe default.
* ``NAME.npz`` beside them: the actor alone, in numpy (:mod:`pyanitsa.policies.numpy_actor`).
  When it is there the agent plays from it, and torch, gymnasium and stable-baselines3 are not
  imported at all; ``backend=torch`` plays from the ``.pt`` instead (same orders).
* An **ensemble** (``members: N`` in the sidecar; ``distill.members`` makes one): the same
  files holding N networks of one architecture, each card drawn from the mean of their
  distributions over the legal ranks. Fits of one teacher err in different directions, and
  their mean leaves a best response less than any one of them (BENCHMARKS.md).
* ``NAME.zip``: stable-baselines3's full save, which unpickles Python objects (running code from
  the file); loaded only with ``trust=True``: ``ppo:runs/x/model.zip(trust=True)``.

Spec forms: ``ppo:PATH`` with ``PATH`` a ``.pt`` file, its stem (``runs/x/model``), a run
folder (its ``model.pt``), a ``.zip`` (with ``trust=True``), or a bundled name from
``policies/shipped/`` (``pyanitsa.policies.shipped``) (``ppo:tactical-2p``). Parameters: ``greedy`` (default False:
each rank is sampled from the policy with the agent's seeded rng, so the same seed gives the
same order on either backend; True: the most probable legal rank, one order a hand, which
``mix`` lists), ``deterministic`` (its older name, still accepted), ``trust``, and ``backend``:
``auto`` (default: numpy when the ``.npz`` is there, else torch), ``numpy`` or ``torch``.

Importing this module is cheap: torch and stable-baselines3 load only when a torch policy does.
"""

from __future__ import annotations

import dataclasses
import os
from collections.abc import Sequence
from typing import Any

import numpy as np

from pyanitsa.agents.specs import register_scheme
from pyanitsa.agents.warm import Warming, dummy_decision
from pyanitsa.cards import Card
from pyanitsa.observation import TacticalLayout, TacticalSeat
from pyanitsa.policies.files import (
    POLICIES_DIR,
    build_policy,
    bundled_policies,
    load_numpy_policy,
    load_policy,
    resolve_path,
    save_policy,
)
from pyanitsa.policies.meta import (
    FORMAT,
    PolicyLoadError,
    PolicyMeta,
    package_versions,
    policy_meta,
)
from pyanitsa.policies.numpy_actor import NumpyActor
from pyanitsa.protocol import BaseAgent, HandView, Mix
from pyanitsa.rules import Rules

__all__ = [  # the files' and the sidecar's names too, which users import from here
    "BACKENDS", "FORMAT", "POLICIES_DIR", "PolicyAgent", "PolicyLoadError", "PolicyMeta",
    "action_logits", "build_policy", "bundled_policies", "load_agent", "load_numpy_policy",
    "load_policy", "package_versions", "policy_meta", "resolve_path",
    "save_policy",
]

BACKENDS = ("auto", "numpy", "torch")


class PolicyAgent(Warming, BaseAgent):
    """Plays tactical hands from a policy network trained on ``pyanitsa/Tactical-v0``."""

    def __init__(self, policy: Any, meta: PolicyMeta, *, greedy: bool | None = None,
                 deterministic: bool | None = None) -> None:
        self.policy = policy
        """The network (numpy or torch), or a list of them: an ensemble's members."""
        self.members = list(policy) if isinstance(policy, (list, tuple)) else [policy]
        self.meta = meta
        self.greedy = _greedy(greedy, deterministic)
        """Play the most probable order (else sample it: the default, issue 14)."""
        self.rules = meta.make_rules()
        self.players = meta.players
        self.layout = TacticalLayout(self.rules, self.players)
        if self.layout.size != meta.obs_size or self.layout.ranks != meta.actions:
            raise PolicyLoadError(f"the policy expects {meta.obs_size} inputs and "
                                  f"{meta.actions} actions; the rules give "
                                  f"{self.layout.size} and {self.layout.ranks}")

    @classmethod
    def load(cls, path: str | os.PathLike[str], *, trust: bool = False,
             greedy: bool | None = None, deterministic: bool | None = None,
             backend: str = "auto") -> PolicyAgent:
        return load_agent(str(path), trust=trust, greedy=greedy, deterministic=deterministic,
                          backend=backend)

    def warm(self, rules: Rules, players: int) -> None:
        if rules == self.rules and players == self.players:  # else every decision refuses
            dummy_decision(self, rules, players)  # sets up torch

    def check_game(self, rules: Rules, players: int) -> None:
        """Refuse rules and seats other than those the policy was trained for, naming the
        first that differs (its inputs and actions would mean something else)."""
        if players != self.players:
            raise PolicyLoadError(f"agent {self.name!r} was trained for {self.players} players, "
                                  f"not {players}")
        for f in dataclasses.fields(self.rules):
            mine, theirs = getattr(self.rules, f.name), getattr(rules, f.name)
            if mine != theirs:
                raise PolicyLoadError(f"agent {self.name!r} was trained for {f.name}: "
                                      f"{_text(mine)}; this game has {f.name}: {_text(theirs)}")

    def _check(self, view: HandView) -> None:
        if view.players != self.players or view.rules != self.rules:
            raise PolicyLoadError(
                f"agent {self.name!r} was trained for {self.players} players, deck "
                f"{self.rules.deck}, rules {self.meta.rules}; this game has {view.players} "
                f"players, deck {view.rules.deck}")

    def order_hand(self, view: HandView, rng: np.random.Generator) -> list[Card]:
        return self.order_hands([view], [rng])[0]

    def mix(self, view: HandView) -> Mix | None:
        """The greedy policy's one order (None when it samples: its distribution is the
        network's, not listed)."""
        if not self.greedy:
            return None
        return [(tuple(self.order_hand(view, np.random.default_rng(0))), 1.0)]

    def order_hands(self, views: Sequence[HandView],
                    rngs: Sequence[np.random.Generator]) -> list[list[Card]]:
        """Every hand at once: one forward pass of the network per position of the order."""
        if not views:
            return []
        seats = []
        for v in views:
            self._check(v)
            s = TacticalSeat(self.layout)
            s.deal(v.seat, v.hand)
            seats.append(s)
        obs = np.empty((len(seats), self.layout.size), np.float32)
        masks = np.empty((len(seats), self.layout.ranks), bool)
        for _ in range(self.layout.hand_size):
            for i, s in enumerate(seats):
                obs[i] = s.obs
                masks[i] = s.mask
            logits = self.logits(obs, masks)
            if self.greedy:
                actions = logits.argmax(axis=1)
            else:
                actions = [_sample(row, rng) for row, rng in zip(logits, rngs, strict=True)]
            for s, a in zip(seats, actions, strict=True):
                s.play(int(a))
        return [s.order() for s in seats]

    def logits(self, obs: np.ndarray, masks: np.ndarray | None = None) -> np.ndarray:
        """The policy's action logits for a batch of observations, from numpy or torch, with
        ``-inf`` where ``masks`` is False. An ensemble's are the log of the mean of its
        members' distributions (each over the legal ranks when ``masks`` is given)."""
        outs = [self._member_logits(net, obs) for net in self.members]
        if masks is not None:
            outs = [np.where(masks, out, -np.inf) for out in outs]
        if len(outs) == 1:
            return outs[0]
        mean = sum(_softmax(out) for out in outs) / len(outs)
        with np.errstate(divide="ignore"):  # a masked rank: probability 0, logit -inf
            return np.log(mean)

    def _member_logits(self, net: Any, obs: np.ndarray) -> np.ndarray:
        if isinstance(net, NumpyActor):
            out = net.logits(obs)
        else:
            import torch

            with torch.no_grad():
                out = action_logits(net, torch.from_numpy(obs)).numpy()
        # one prior for both backends: the networks' own outputs exclude it
        return out + self.layout.log_prior(obs) if self.meta.prior == "hand" else out


def _text(value: object) -> str:
    return str(value) if not isinstance(value, str) else value


def action_logits(policy: Any, obs: Any, features: Any = None) -> Any:
    """The policy's action logits for a batch of observations (no masking, no sampling);
    ``features``: the extractor's output for ``obs``, when the caller already has it."""
    if features is None:
        features = policy.extract_features(obs, policy.pi_features_extractor)
    latent = policy.mlp_extractor.forward_actor(features)
    return policy.action_net(latent)


def _softmax(logits: np.ndarray) -> np.ndarray:
    z = np.exp(logits - logits.max(axis=1, keepdims=True))
    return z / z.sum(axis=1, keepdims=True)


def _sample(logits: np.ndarray, rng: np.random.Generator) -> int:
    z = logits - logits.max()
    p = np.exp(z)
    p /= p.sum()
    return int(rng.choice(len(p), p=p))


def _greedy(greedy: bool | None, deterministic: bool | None) -> bool:
    """``greedy``, or ``deterministic``: its name when greedy play was the default, which
    specs and configs written then still use. Sampling unless one of them asks."""
    for name, value in (("greedy", greedy), ("deterministic", deterministic)):
        if value is not None and not isinstance(value, bool):
            raise ValueError(f"{name}: {value!r} is not True or False")
    if greedy is not None and deterministic is not None and greedy != deterministic:
        raise ValueError(f"greedy={greedy} and deterministic={deterministic} disagree "
                         f"(deterministic is the older name of greedy: give one)")
    return bool(greedy if greedy is not None else deterministic)


_CACHE: dict[tuple[str, float, bool, str], tuple[Any, PolicyMeta]] = {}


def load_agent(arg: str, *, trust: bool = False, greedy: bool | None = None,
               deterministic: bool | None = None, backend: str = "auto") -> PolicyAgent:
    """The ``ppo:`` scheme's loader (a file's network is loaded once per process)."""
    if backend not in BACKENDS:
        raise ValueError(f"backend: {backend!r} is not one of {', '.join(BACKENDS)}")
    path = resolve_path(arg)
    npz = path.with_suffix(".npz")
    if backend == "auto":
        backend = "numpy" if path.suffix != ".zip" and npz.is_file() else "torch"
    weights = npz if backend == "numpy" and npz.is_file() else path
    key = (str(weights.resolve()), weights.stat().st_mtime, trust, backend)
    if key not in _CACHE:
        _CACHE[key] = (load_numpy_policy(path) if backend == "numpy"
                       else load_policy(path, trust=trust))
    policy, meta = _CACHE[key]
    return PolicyAgent(policy, meta, greedy=greedy, deterministic=deterministic)


def _ppo_scheme(arg: str, trust: bool = False, greedy: bool = False, backend: str = "auto",
                deterministic: bool | None = None) -> PolicyAgent:
    """A trained policy: ``ppo:RUN_DIR``, ``ppo:PATH.pt``, a shipped name such as
    ``ppo:tactical-2p``, or ``ppo:PATH.zip(trust=True)`` for a full stable-baselines3 save. It
    samples its order with the agent's seeded rng; ``greedy=True`` plays the most probable one
    (``deterministic=True``, the older name, too); ``backend=torch`` plays from the ``.pt``
    even when the numpy ``.npz`` is there."""
    for name, value in (("trust", trust), ("greedy", greedy)):
        if not isinstance(value, bool):
            raise ValueError(f"{name}: {value!r} is not True or False")
    asked = greedy or None  # the listed default False does not outvote deterministic=True
    _greedy(asked, deterministic)  # refused before a file is read
    return load_agent(arg, trust=trust, greedy=asked, deterministic=deterministic,
                      backend=backend)


register_scheme("ppo", _ppo_scheme)
