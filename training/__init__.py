"""RL training of ordering policies, installed as ``pyanitsa.training``: ``pyanitsa train``.

It sits above the envs and the agents (it trains in the one against players of the other), so
neither of them imports it; the trained policy plays as ``ppo:`` from ``pyanitsa.agents``,
which needs no env. Nothing is imported here, so building the ``pyanitsa`` parser (which
imports :mod:`pyanitsa.cli.train`) loads neither torch nor gymnasium.
"""
