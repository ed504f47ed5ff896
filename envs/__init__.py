"""Environments, installed as ``pyanitsa.envs``.

Adapters that expose the rules core to RL libraries; those libraries are imported lazily here,
never by the core ``pyanitsa`` package.
"""
