"""A saved policy on disk (``ppo:``, :mod:`pyanitsa.policies.ppo`): writing its files,
rebuilding its network from the sidecar, finding the file a spec names and loading it.

The formats are described in :mod:`pyanitsa.policies.ppo`; torch and stable-baselines3 are
imported only inside the functions that need them.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import numpy as np

from pyanitsa.errors import PyanitsaError
from pyanitsa.observation import TacticalLayout
from pyanitsa.policies.meta import (
    PolicyLoadError,
    PolicyMeta,
    member_prefix,
    policy_meta,
    read_sidecar,
)
from pyanitsa.policies.numpy_actor import (
    ACTIVATIONS,
    NumpyActor,
    actor_arrays,
    load_actor,
    save_actor,
)
from pyanitsa.rules import Rules

POLICIES_DIR = Path(__file__).resolve().parent / "shipped"
"""Policies shipped with the package (``ppo:NAME`` finds ``NAME.pt`` here)."""

def save_policy(policy: Any, meta: PolicyMeta, path: str | os.PathLike[str]) -> Path:
    """Write ``PATH.pt`` (the state_dict), ``PATH.npz`` (the actor in numpy, when the numpy
    actor has the activation) and ``PATH.json`` (the sidecar); returns the ``.pt``. ``policy``
    may be a list of ``meta.members`` networks (an ensemble: each one's names prefixed)."""
    import torch

    pt = Path(path).with_suffix(".pt")
    pt.parent.mkdir(parents=True, exist_ok=True)
    members = list(policy) if isinstance(policy, (list, tuple)) else [policy]
    if len(members) != meta.members:
        raise ValueError(f"{len(members)} networks, but the sidecar says members: "
                         f"{meta.members}")
    state = {member_prefix(m, len(members)) + k: v.detach().cpu().clone()
             for m, net in enumerate(members) for k, v in net.state_dict().items()}
    tmp = pt.with_suffix(".pt.tmp")
    torch.save(state, tmp)
    os.replace(tmp, pt)
    npz = pt.with_suffix(".npz")
    if meta.activation in ACTIVATIONS:
        save_actor(actor_arrays(state, meta), npz)
    else:  # a stale actor beside new weights would play the old policy
        npz.unlink(missing_ok=True)
    pt.with_suffix(".json").write_text(json.dumps(meta.to_json(), indent=1, sort_keys=True)
                                       + "\n", encoding="utf-8")
    return pt


def build_policy(meta: PolicyMeta) -> Any:
    """An untrained stable-baselines3 policy with the sidecar's architecture."""
    import torch
    from gymnasium import spaces

    extra: dict[str, Any] = {}
    if meta.prior == "hand":
        from pyanitsa.policies.prior import PriorPolicy as cls

        extra = cls.kwargs_for(TacticalLayout(meta.make_rules(), meta.players))
    elif meta.algorithm == "MaskablePPO":
        from sb3_contrib.common.maskable.policies import MaskableActorCriticPolicy as cls
    else:
        from stable_baselines3.common.policies import ActorCriticPolicy as cls
    if meta.features == "last":
        from pyanitsa.policies.prior import LastPlayed

        extra.update(LastPlayed.kwargs_for(TacticalLayout(meta.make_rules(), meta.players)))
    elif meta.features == "model":
        from pyanitsa.policies.prior import OpponentModel

        extra.update(OpponentModel.kwargs_for(TacticalLayout(meta.make_rules(), meta.players),
                                              str(meta.opponent_model)))
    activation = getattr(torch.nn, meta.activation, None)
    if activation is None:
        raise PolicyLoadError(f"activation {meta.activation!r} is not a torch.nn class")
    obs = spaces.Box(0.0, 1.0, (meta.obs_size,), np.float32)
    act = spaces.Discrete(meta.actions)
    return cls(obs, act, lambda _: 0.0, net_arch=meta.net_arch, activation_fn=activation,
               **extra)


# -- finding and loading --------------------------------------------------------------------------


def resolve_path(arg: str) -> Path:
    """The file a ``ppo:ARG`` names: a ``.pt``/``.zip``, a stem, a run folder or a bundled name."""
    text = arg.strip()
    if not text:
        raise PolicyLoadError("ppo: give a path (ppo:runs/x/model.pt) or a bundled name "
                              f"({', '.join(bundled_policies()) or 'none installed'})")
    p = Path(text).expanduser()
    candidates = [p]
    if p.is_dir():
        candidates = [p / f"model{s}" for s in SUFFIXES]
    elif p.suffix not in SUFFIXES:
        candidates = [p.with_name(p.name + s) for s in SUFFIXES]
        if "/" not in text and os.sep not in text:
            candidates += [POLICIES_DIR / f"{text}{s}" for s in SUFFIXES[:2]]
    for c in candidates:
        if c.is_file():
            return c
    names = ", ".join(bundled_policies()) or "none installed"
    raise PolicyLoadError(f"ppo:{text}: no policy file (looked for "
                          f"{', '.join(str(c) for c in candidates)}; bundled: {names})")


SUFFIXES = (".pt", ".npz", ".zip")
"""What a policy's weights file may be called, in the order a stem looks for them."""


def bundled_policies() -> list[str]:
    if not POLICIES_DIR.is_dir():
        return []
    return sorted({p.stem for s in SUFFIXES[:2] for p in POLICIES_DIR.glob(f"*{s}")})


def load_policy(path: str | os.PathLike[str], *, trust: bool = False) -> tuple[Any, PolicyMeta]:
    """Load a saved policy: weights-only from ``.pt`` + ``.json``, or a trusted SB3 ``.zip``."""
    p = Path(path)
    if p.suffix == ".zip":
        if not trust:
            raise PolicyLoadError(
                f"{p}: a stable-baselines3 .zip unpickles code; load it only if you trust it, "
                f"with ppo:{p}(trust=True), or use the weights-only {p.with_suffix('.pt')}")
        return _load_zip(p)
    if p.suffix == ".npz":
        raise PolicyLoadError(f"{p}: torch plays from the .pt weights, and "
                              f"{p.with_suffix('.pt').name} is missing")
    meta = read_sidecar(p)
    side = p.with_suffix(".json")
    weights = meta.members * meta.parameters()  # float32, checked before a network is built
    have = p.stat().st_size
    if have < 4 * weights:
        raise PolicyLoadError(f"{side}: net_arch asks for {weights:,} weights "
                              f"({4 * weights:,} bytes) but {p.name} holds {have:,} bytes")
    try:
        meta.make_rules()
    except PyanitsaError as exc:
        raise PolicyLoadError(f"{side}: rules: {exc}") from None
    import torch  # after the sidecar checks: a bad sidecar is refused without the import

    nets = [build_policy(meta) for _ in range(meta.members)]
    try:
        state = torch.load(p, map_location="cpu", weights_only=True)
        prefixes = tuple(member_prefix(m, meta.members) for m in range(meta.members))
        stray = [k for k in state if not k.startswith(prefixes)]
        if stray:
            raise ValueError(f"{stray[0]!r} belongs to none of the {meta.members} members")
        for m, net in enumerate(nets):
            pre = member_prefix(m, meta.members)
            net.load_state_dict({k[len(pre):]: v for k, v in state.items() if k.startswith(pre)}
                                if pre else state)
    except Exception as exc:  # an unpickling refusal or a shape mismatch: one clear line
        raise PolicyLoadError(f"{p}: cannot load the weights ({type(exc).__name__}: "
                              f"{str(exc).splitlines()[0]})") from None
    for net in nets:
        net.set_training_mode(False)
    return (nets[0] if meta.members == 1 else nets), meta


def load_numpy_policy(path: str | os.PathLike[str]) -> tuple[NumpyActor | list[NumpyActor],
                                                             PolicyMeta]:
    """Load the numpy actor ``PATH.npz`` beside a policy's ``.pt`` (no torch imported)."""
    p = Path(path)
    npz = p.with_suffix(".npz")
    if p.suffix == ".zip" or not npz.is_file():
        raise PolicyLoadError(f"{p}: no numpy weights {npz.name} (write them with "
                              f"save_policy, or play with backend=torch)")
    meta = read_sidecar(p)
    return load_actor(npz, meta), meta


def _load_zip(p: Path) -> tuple[Any, PolicyMeta]:
    from sb3_contrib import MaskablePPO
    from stable_baselines3 import PPO

    side = p.with_suffix(".json")
    extra = json.loads(side.read_text(encoding="utf-8")) if side.is_file() else {}
    errors = []
    for cls in (MaskablePPO, PPO):
        try:
            model = cls.load(p, device="cpu")
            break
        except Exception as exc:  # the other algorithm's zip: try the next class
            errors.append(f"{cls.__name__}: {exc}")
    else:
        raise PolicyLoadError(f"{p}: not a MaskablePPO or PPO save ({'; '.join(errors)})")
    rules = extra.get("rules") or {"mode": "tactical", "deck": "36"}
    players = int(extra.get("players", 2))
    meta = policy_meta(model.policy, type(model).__name__, Rules.from_options(
        {k: v for k, v in rules.items() if k != "mode"}, mode=rules.get("mode", "tactical")),
        players)
    model.policy.set_training_mode(False)
    return model.policy, meta
