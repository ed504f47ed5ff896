"""Environments, installed as ``pyanitsa.envs``.

Adapters that expose the rules core to RL libraries; those libraries are imported here, never by
the core ``pyanitsa`` package. Importing this package registers the Gymnasium environments:

- ``pyanitsa/Tactical-v0`` (:class:`TacticalEnv`): order a tactical hand one rank per step;
- ``pyanitsa/Classic-v0`` (:class:`ClassicEnv`): order the classic tables you win, rank by rank.

The PettingZoo environments (every seat a learner) are in :mod:`pyanitsa.envs.multi`:
``tactical_env``/``tactical_parallel_env`` and ``classic_env``/``classic_parallel_env``.
"""

from __future__ import annotations

import gymnasium
from gymnasium.envs.registration import WrapperSpec

from pyanitsa.envs.classic import ClassicEnv
from pyanitsa.envs.tactical import TacticalEnv

ENV_IDS = ("pyanitsa/Tactical-v0", "pyanitsa/Classic-v0")

_ENTRY_POINTS = {
    "pyanitsa/Tactical-v0": "pyanitsa.envs.tactical:TacticalEnv",
    "pyanitsa/Classic-v0": "pyanitsa.envs.classic:ClassicEnv",
}

_MASKS = WrapperSpec("ActionMasks", "pyanitsa.envs._common:ActionMasks", {})
"""``action_masks()`` on the outermost wrapper of ``gymnasium.make`` (see ActionMasks)."""


def register_envs() -> None:
    """Register the environments with Gymnasium (done on import; repeated calls do nothing)."""
    for env_id, entry_point in _ENTRY_POINTS.items():
        if env_id not in gymnasium.registry:
            gymnasium.register(id=env_id, entry_point=entry_point,
                               additional_wrappers=(_MASKS,))


register_envs()

__all__ = ["ENV_IDS", "ClassicEnv", "TacticalEnv", "register_envs"]
