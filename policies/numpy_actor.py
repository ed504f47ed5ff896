"""A saved policy's actor in numpy: what ``ppo:`` plays with, so playing needs no torch.

``NAME.npz`` sits beside ``NAME.pt`` and ``NAME.json`` (``save_policy`` writes all three). It
holds only what choosing an action needs, the policy head of stable-baselines3's actor-critic
(features -> ``mlp_extractor.policy_net`` -> ``action_net``; the observation is a flat ``Box``,
so the features extractor is the identity), as float32 arrays named ``pi.0.weight``,
``pi.0.bias``, ..., ``action.weight``, ``action.bias`` in torch's ``(out, in)`` layout. An
ensemble's sidecar says ``members: N``, and member ``K``'s arrays are named ``mK.pi.0.weight``
and so on (:func:`~pyanitsa.policies.meta.member_prefix`).

Loading runs no code and allocates nothing the sidecar does not announce: every member's
``.npy`` header is read and checked against the shapes the sidecar's ``net_arch`` gives before
``np.load(allow_pickle=False)`` reads an array.
"""

from __future__ import annotations

import io
import itertools
import os
import zipfile
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

import numpy as np

from pyanitsa.observation import TacticalLayout
from pyanitsa.policies.features import ModelFeatures
from pyanitsa.policies.meta import PolicyLoadError, PolicyMeta, member_prefix


def _relu(x: np.ndarray) -> np.ndarray:
    return np.maximum(x, 0.0)


def _sigmoid(x: np.ndarray) -> np.ndarray:
    return 1.0 / (1.0 + np.exp(-x))


def _elu(x: np.ndarray) -> np.ndarray:
    return np.where(x > 0, x, np.expm1(np.minimum(x, 0.0)))


def _leaky_relu(x: np.ndarray) -> np.ndarray:
    return np.where(x > 0, x, 0.01 * x)  # torch.nn.LeakyReLU's default slope


ACTIVATIONS: dict[str, Callable[[np.ndarray], np.ndarray]] = {
    "ReLU": _relu,
    "Tanh": np.tanh,
    "Sigmoid": _sigmoid,
    "ELU": _elu,
    "LeakyReLU": _leaky_relu,
    "SiLU": lambda x: x * _sigmoid(x),
    "Identity": lambda x: x,
}
"""The ``torch.nn`` hidden activations (with their default arguments) the numpy actor has."""

SB3_KEYS = {"pi": "mlp_extractor.policy_net", "action": "action_net"}
"""Where stable-baselines3's ``state_dict`` keeps the actor's layers (hidden layers at even
indices of the ``nn.Sequential``, activations between them)."""

_HEADER_SLACK = 4096
"""Bytes a member may hold beyond its data: the ``.npy`` header (numpy pads it to 64)."""


_HEADER_READERS = {(1, 0): np.lib.format.read_array_header_1_0,
                   (2, 0): np.lib.format.read_array_header_2_0}


def actor_shapes(meta: PolicyMeta) -> dict[str, tuple[int, ...]]:
    """The arrays the sidecar's actors (every member's) hold, by name, in order."""
    dims = [meta.input_size, *meta.net_arch["pi"]]
    shapes: dict[str, tuple[int, ...]] = {}
    for m in range(meta.members):
        pre = member_prefix(m, meta.members)
        for i, (fan_in, fan_out) in enumerate(itertools.pairwise(dims)):
            shapes[f"{pre}pi.{i}.weight"] = (fan_out, fan_in)
            shapes[f"{pre}pi.{i}.bias"] = (fan_out,)
        shapes[f"{pre}action.weight"] = (meta.actions, dims[-1])
        shapes[f"{pre}action.bias"] = (meta.actions,)
    return shapes


class NumpyActor:
    """Action logits of a policy network for a batch of observations, in numpy (float64)."""

    def __init__(self, arrays: Mapping[str, np.ndarray], meta: PolicyMeta,
                 prefix: str = "") -> None:
        if meta.activation not in ACTIVATIONS:
            raise PolicyLoadError(f"activation {meta.activation!r}: the numpy actor has "
                                  f"{', '.join(ACTIVATIONS)}; play it with backend=torch")
        self.activation = ACTIVATIONS[meta.activation]
        hidden = len(meta.net_arch["pi"])
        self.features = meta.features
        self.layout = (TacticalLayout(meta.make_rules(), meta.players)
                       if meta.features != "obs" else None)
        self.model = (ModelFeatures(self.layout, meta.opponent_model)
                      if meta.features == "model" else None)
        # float64: the rounding left is torch's float32 alone, so greedy play matches it
        self.layers = [(np.asarray(arrays[f"{prefix}{name}.weight"], np.float64).T.copy(),
                        np.asarray(arrays[f"{prefix}{name}.bias"], np.float64))
                       for name in [*(f"pi.{i}" for i in range(hidden)), "action"]]

    def logits(self, obs: np.ndarray) -> np.ndarray:
        """``(batch, actions)`` logits of ``(batch, obs_size)`` observations, unmasked."""
        if self.layout is not None:
            x = self.layout.features(obs, "last")
            obs = x if self.model is None else np.concatenate([x, self.model(obs)], axis=1)
        x = np.asarray(obs, np.float64)
        *hidden, (w, b) = self.layers
        for hw, hb in hidden:
            x = self.activation(x @ hw + hb)
        return x @ w + b


def actor_arrays(state: Mapping[str, Any], meta: PolicyMeta) -> dict[str, np.ndarray]:
    """The actors' float32 arrays out of a stable-baselines3 ``state_dict`` (tensors or arrays;
    an ensemble's keys carry the same member prefixes as the arrays)."""
    out = {}
    for name, shape in actor_shapes(meta).items():
        pre = name[:name.index(".") + 1] if name.startswith("m") else ""
        head, *index, kind = name[len(pre):].split(".")
        key = pre + ".".join([SB3_KEYS[head], *(str(2 * int(i)) for i in index), kind])
        value = state[key]
        value = value.detach().cpu().numpy() if hasattr(value, "detach") else value
        array = np.ascontiguousarray(value, np.float32)
        if array.shape != shape:
            raise PolicyLoadError(f"{key}: shape {array.shape}, the sidecar says {shape}")
        out[name] = array
    return out


def save_actor(arrays: Mapping[str, np.ndarray], path: str | os.PathLike[str]) -> Path:
    """Write ``arrays`` to ``path`` (an uncompressed ``.npz``), atomically."""
    out = Path(path)
    tmp = out.with_name(out.name + ".tmp")
    with open(tmp, "wb") as f:
        np.savez(f, **arrays)
    os.replace(tmp, out)
    return out


def load_actor(path: str | os.PathLike[str], meta: PolicyMeta) -> NumpyActor | list[NumpyActor]:
    """The actor in ``path`` (an ensemble's: a list of them), checked array by array against
    the sidecar before reading."""
    p = Path(path)
    shapes = actor_shapes(meta)
    need = 4 * sum(int(np.prod(s)) for s in shapes.values())
    top = need + len(shapes) * (_HEADER_SLACK + 256) + 1024  # headers, zip entries
    have = p.stat().st_size
    if not need <= have <= top:
        raise PolicyLoadError(f"{p}: {have:,} bytes, but the sidecar's net_arch needs "
                              f"{need:,} bytes of weights (and at most {top:,} in all)")
    data = p.read_bytes()  # read once: what is checked is what is loaded
    try:
        _check_members(io.BytesIO(data), shapes)
        with np.load(io.BytesIO(data), allow_pickle=False) as npz:
            arrays = {name: npz[name] for name in shapes}
    except PolicyLoadError as exc:
        raise PolicyLoadError(f"{p}: {exc}") from None
    except (ValueError, OSError, EOFError, zipfile.BadZipFile) as exc:
        raise PolicyLoadError(f"{p}: not a policy .npz ({type(exc).__name__}: "
                              f"{str(exc).splitlines()[0] if str(exc) else ''})") from None
    if meta.members == 1:
        return NumpyActor(arrays, meta)
    return [NumpyActor(arrays, meta, member_prefix(m, meta.members)) for m in range(meta.members)]


def _check_members(data: io.BytesIO, shapes: Mapping[str, tuple[int, ...]]) -> None:
    """Every expected member, nothing else, each a little-endian float32 C array of its shape."""
    with zipfile.ZipFile(data) as z:
        # exact names, once each: np.load would also read a member "x" (no .npy) as "x"
        names, want = z.namelist(), {f"{name}.npy" for name in shapes}
        if len(names) != len(want) or set(names) != want:
            missing, extra = sorted(want - set(names)), sorted(set(names) - want)
            raise PolicyLoadError(f"members differ from the sidecar's net_arch (missing "
                                  f"{missing[:3]}, unexpected {extra[:3]}, {len(names)} in all)")
        for name, shape in shapes.items():
            info = z.getinfo(f"{name}.npy")
            size = 4 * int(np.prod(shape))
            if not size < info.file_size <= size + _HEADER_SLACK:
                raise PolicyLoadError(f"{name}: {info.file_size:,} bytes for {size:,} of data")
            with z.open(info) as f:
                version = np.lib.format.read_magic(f)
                read = _HEADER_READERS.get(version)
                if read is None:
                    raise PolicyLoadError(f"{name}: .npy format {version} is not 1.0 or 2.0")
                got, fortran, dtype = read(f, max_header_size=_HEADER_SLACK)
            if got != shape or fortran or dtype != np.dtype("<f4"):
                raise PolicyLoadError(f"{name}: a {dtype.str} array of shape {got}"
                                      f"{' (Fortran order)' if fortran else ''}, the sidecar "
                                      f"says <f4 {shape}")
