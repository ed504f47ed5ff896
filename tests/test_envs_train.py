"""MaskablePPO (sb3-contrib) trains on each single-agent env for a tiny budget: a smoke test of
the whole stack, in one process (DummyVecEnv) and in worker processes (SubprocVecEnv)."""

from __future__ import annotations

import gymnasium as gym
import numpy as np
import pytest
from sb3_contrib import MaskablePPO
from sb3_contrib.common.maskable.utils import get_action_masks
from stable_baselines3.common.env_util import make_vec_env
from stable_baselines3.common.vec_env import DummyVecEnv, SubprocVecEnv

import pyanitsa.envs  # noqa: F401  (registers the environments)

# stable-baselines3's make_vec_env asks every env for render_mode="rgb_array"; ours render ansi
pytestmark = [pytest.mark.filterwarnings("ignore:.*render_mode='rgb_array'.*"),
              pytest.mark.usefixtures("one_torch_thread")]

ENVS = {
    "pyanitsa/Tactical-v0": {"players": 2, "seat": "random"},
    "pyanitsa/Classic-v0": {"rules": {"deck": {"ranks": 6, "suits": 2}}, "players": 2},
}



@pytest.mark.parametrize("vec_cls", [DummyVecEnv, SubprocVecEnv])
@pytest.mark.parametrize("env_id", list(ENVS))
def test_maskable_ppo_trains(env_id: str, vec_cls: type) -> None:
    # Worker processes start fresh: the "module:id" form makes gym.make import (and so register)
    # the environments there first.
    make_id = f"pyanitsa.envs:{env_id}" if vec_cls is SubprocVecEnv else env_id
    venv = make_vec_env(make_id, n_envs=2, seed=0, vec_env_cls=vec_cls, env_kwargs=ENVS[env_id])
    try:
        model = MaskablePPO("MlpPolicy", venv, n_steps=64, batch_size=64, n_epochs=2, seed=0,
                            device="cpu")
        model.learn(total_timesteps=256)
        assert model.num_timesteps >= 256
        obs = venv.reset()
        for _ in range(20):
            masks = get_action_masks(venv)
            actions, _ = model.predict(obs, action_masks=masks, deterministic=True)
            assert all(m[a] for m, a in zip(masks, actions, strict=True))
            obs, _, _, infos = venv.step(actions)
            assert not any(info["illegal_action"] for info in infos)
    finally:
        venv.close()


def test_predict_on_a_single_env() -> None:
    env = gym.make("pyanitsa/Tactical-v0")
    model = MaskablePPO("MlpPolicy", env, n_steps=36, batch_size=36, n_epochs=1, seed=0,
                        device="cpu")
    model.learn(total_timesteps=36)
    obs, info = env.reset(seed=0)
    done = False
    while not done:
        action, _ = model.predict(obs, action_masks=env.unwrapped.action_masks())
        assert info["action_mask"][action]
        obs, reward, done, _, info = env.step(action)
    assert np.isfinite(reward)
