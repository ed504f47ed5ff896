"""The sidecar of a saved policy (``NAME.json``): what rebuilds the network and the observations
it expects, checked before anything is allocated. Neither torch nor gymnasium is needed here."""

from __future__ import annotations

import contextlib
import itertools
import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pyanitsa.errors import PyanitsaError
from pyanitsa.rules import Rules

FORMAT = "pyanitsa-policy/1"
"""The sidecar's ``format``: bump when the observation layout or the file set changes."""

ALGORITHMS = ("MaskablePPO", "PPO")
PRIORS = ("none", "hand")
"""``prior``: ``hand`` adds ``log(cards of each rank in hand)`` to the logits
(:mod:`pyanitsa.policies.prior`), so equal outputs play ``random``."""
FEATURES = ("obs", "last", "model")
"""``features``: what the network reads, the observation, the observation with the rank
played last and the share placed after it (:data:`pyanitsa.observation.FEATURES`), or those
and an opponent model's pair marginals (``model``, :mod:`pyanitsa.policies.features`,
the agent named by the sidecar's ``opponent_model``)."""
OPPONENT_MODELS = ("random", "ascending", "descending", "strongest_first", "strongest_last",
                   "sacrifice", "tie_aware", "mixed")
"""What ``opponent_model`` may name (with parameters): the scripted agents. A sidecar comes
from anywhere, so it cannot name an agent that runs a process or imports a module."""


class PolicyLoadError(PyanitsaError):
    """A policy file that cannot be loaded (missing, untrusted, or for other rules)."""


def package_versions() -> dict[str, str]:
    """Versions of the packages a policy file depends on."""
    from importlib import metadata

    out = {}
    for name in ("pyanitsa", "torch", "stable-baselines3", "sb3-contrib", "gymnasium", "numpy"):
        with contextlib.suppress(metadata.PackageNotFoundError):
            out[name] = metadata.version(name)
    return out


@dataclass(frozen=True)
class PolicyMeta:
    """What rebuilds a policy network and the observations it expects (the ``.json`` sidecar)."""

    algorithm: str
    """``MaskablePPO`` or ``PPO``: which stable-baselines3 policy class holds the weights."""
    net_arch: dict[str, list[int]]
    """Hidden layer sizes: ``{"pi": [...], "vf": [...]}``."""
    activation: str
    """The hidden activation, a ``torch.nn`` class name (``Tanh``, ``ReLU``)."""
    rules: dict[str, Any]
    """The rules the policy was trained for (:meth:`Rules.to_json`)."""
    players: int
    obs_size: int
    actions: int
    extra: dict[str, Any]
    """Provenance: config, seed, steps, package versions (not needed to play)."""
    prior: str = "none"
    """What is added to the network's logits: ``none`` or ``hand`` (:data:`PRIORS`)."""
    features: str = "obs"
    """What the network reads: ``obs``, ``last`` or ``model`` (:data:`FEATURES`)."""
    opponent_model: str | None = None
    """With ``features: model``, the agent spec whose marginals the network reads."""
    members: int = 1
    """Networks of this architecture in the files (:data:`MAX_MEMBERS` at most): the policy
    plays each card from the mean of their distributions (``distill.members``)."""

    @property
    def input_size(self) -> int:
        """The network's first layer's inputs: the observation, plus ``actions + 1`` numbers
        (the rank played last, the share placed) with ``features: last``, and ``2 * actions``
        more (the model's pair marginals) with ``features: model``."""
        extra = {"obs": 0, "last": self.actions + 1, "model": 3 * self.actions + 1}
        return self.obs_size + extra[self.features]

    def to_json(self) -> dict[str, Any]:
        return {"format": FORMAT, "algorithm": self.algorithm, "net_arch": self.net_arch,
                "activation": self.activation, "rules": self.rules, "players": self.players,
                "obs_size": self.obs_size, "actions": self.actions, "prior": self.prior,
                "features": self.features,
                **({"opponent_model": self.opponent_model} if self.features == "model" else {}),
                **({"members": self.members} if self.members > 1 else {}),
                **self.extra}

    @classmethod
    def from_json(cls, obj: dict[str, Any], where: str) -> PolicyMeta:
        if obj.get("format") != FORMAT:
            raise PolicyLoadError(f"{where}: format {obj.get('format')!r} is not {FORMAT!r}")
        known = ("format", "algorithm", "net_arch", "activation", "rules", "players",
                 "obs_size", "actions")
        missing = [k for k in known if k not in obj]
        if missing:
            raise PolicyLoadError(f"{where}: missing {missing[0]!r}")
        if obj["algorithm"] not in ALGORITHMS:
            raise PolicyLoadError(f"{where}: algorithm {obj['algorithm']!r} is not one of "
                                  f"{', '.join(ALGORITHMS)}")
        _check_sizes(obj, where)
        prior = obj.get("prior", "none")  # older sidecars have none
        if prior not in PRIORS:
            raise PolicyLoadError(f"{where}: prior {_short(prior)} is not one of "
                                  f"{', '.join(PRIORS)}")
        features = obj.get("features", "obs")  # older sidecars read the observation
        if features not in FEATURES:
            raise PolicyLoadError(f"{where}: features {_short(features)} is not one of "
                                  f"{', '.join(FEATURES)}")
        model = obj.get("opponent_model")
        if features == "model" and not is_opponent_model(model):
            raise PolicyLoadError(f"{where}: features 'model' needs opponent_model, one of "
                                  f"{', '.join(OPPONENT_MODELS)}, not {_short(model)}")
        members = obj.get("members", 1)  # older sidecars hold one network
        if type(members) is not int or not 1 <= members <= MAX_MEMBERS:
            raise PolicyLoadError(f"{where}: members should be an integer 1..{MAX_MEMBERS}, "
                                  f"not {_short(members)}")
        return cls(obj["algorithm"], obj["net_arch"], obj["activation"], obj["rules"],
                   obj["players"], obj["obs_size"], obj["actions"],
                   {k: v for k, v in obj.items()
                    if k not in (*known, "prior", "features", "opponent_model", "members")},
                   prior, features, model if features == "model" else None, members)

    def parameters(self) -> int:
        """How many numbers one network holds (a weights file carries ``members`` of them)."""
        def mlp(sizes: list[int], out: int) -> int:
            dims = [self.input_size, *sizes]
            hidden = sum(a * b + b for a, b in itertools.pairwise(dims))
            return hidden + dims[-1] * out + out
        return mlp(self.net_arch["pi"], self.actions) + mlp(self.net_arch["vf"], 1)

    def make_rules(self) -> Rules:
        return Rules.from_json(self.rules)


MAX_MEMBERS = 16
"""The most networks one policy may average."""
MAX_UNITS = 4096
"""The widest hidden layer a sidecar may ask for."""
MAX_LAYERS = 8
"""The deepest network a sidecar may ask for (per head)."""
MAX_INPUTS = 1 << 16
"""The largest ``obs_size`` and ``actions`` a sidecar may ask for."""


def _check_sizes(obj: dict[str, Any], where: str) -> None:
    """Refuse a sidecar whose sizes are not small positive integers, before any allocation."""
    def count(key: str, value: Any, top: int) -> None:
        if type(value) is not int or not 1 <= value <= top:
            raise PolicyLoadError(f"{where}: {key} should be an integer 1..{top}, "
                                  f"not {_short(value)}")
    count("players", obj["players"], 16)
    count("obs_size", obj["obs_size"], MAX_INPUTS)
    count("actions", obj["actions"], MAX_INPUTS)
    arch = obj["net_arch"]
    if not isinstance(arch, dict) or set(arch) != {"pi", "vf"}:
        raise PolicyLoadError(f'{where}: net_arch should be {{"pi": [...], "vf": [...]}}, '
                              f"not {_short(arch)}")
    for head in ("pi", "vf"):
        sizes = arch[head]
        if not isinstance(sizes, list) or len(sizes) > MAX_LAYERS:
            raise PolicyLoadError(f"{where}: net_arch.{head} should be a list of at most "
                                  f"{MAX_LAYERS} layer sizes, not {_short(sizes)}")
        for i, units in enumerate(sizes):
            count(f"net_arch.{head}.{i}", units, MAX_UNITS)


def is_opponent_model(spec: Any) -> bool:
    """Whether ``spec`` names one of :data:`OPPONENT_MODELS` (parameters allowed)."""
    if not isinstance(spec, str):
        return False
    head, paren, _ = spec.strip().partition("(")
    return head.strip() in OPPONENT_MODELS and (not paren or spec.strip().endswith(")"))


def _short(value: Any) -> str:
    try:
        text = repr(value)
    except ValueError:  # an integer too long to print
        return f"a {type(value).__name__} too long to print"
    return text if len(text) <= 60 else text[:57] + "..."


def member_prefix(member: int, members: int) -> str:
    """What the names of member ``member``'s weights start with in the ``.pt`` and ``.npz``:
    nothing in a one-network policy (the format before ensembles), ``mK.`` in an ensemble."""
    return "" if members == 1 else f"m{member}."


def policy_meta(policy: Any, algorithm: str, rules: Rules, players: int,
                extra: dict[str, Any] | None = None, members: int = 1) -> PolicyMeta:
    """The sidecar of a live stable-baselines3 policy (``members`` networks of its shape)."""
    arch = policy.net_arch
    extractor = getattr(policy, "features_extractor", None)
    if isinstance(arch, list):
        arch = {"pi": list(arch), "vf": list(arch)}
    return PolicyMeta(algorithm, {k: list(v) for k, v in arch.items()},
                      policy.activation_fn.__name__, rules.to_json(), players,
                      int(policy.observation_space.shape[0]), int(policy.action_space.n),
                      {"versions": package_versions(), **(extra or {})},
                      getattr(policy, "prior_kind", "none"),
                      getattr(extractor, "features_kind", "obs"),
                      getattr(extractor, "opponent_model", None), members)


def read_sidecar(p: Path) -> PolicyMeta:
    """The checked sidecar ``.json`` of the weights file ``p``."""
    side = p.with_suffix(".json")
    if not side.is_file():
        raise PolicyLoadError(f"{p}: the sidecar {side.name} is missing")
    try:
        obj = json.loads(side.read_text(encoding="utf-8"))
    except (ValueError, RecursionError) as exc:  # not JSON, or integers over 4,300 digits
        raise PolicyLoadError(f"{side}: not JSON ({exc})") from None
    if not isinstance(obj, dict):
        raise PolicyLoadError(f"{side}: not a JSON object")
    return PolicyMeta.from_json(obj, str(side))
