"""RL training of ordering policies, installed as ``pyanitsa.training``: ``pyanitsa train``.

It sits above the envs, the agents, the solvers and the policies (it trains in the envs against
the agents' players, distils the solvers' ``nash`` and writes the policies' files), so none of
them imports it; the trained policy plays as ``ppo:`` from :mod:`pyanitsa.policies`, which needs
no env. Its command is :mod:`pyanitsa.cli.train`, in the front-end wing. Nothing is imported
here, so building the ``pyanitsa`` parser loads neither torch nor gymnasium.
"""
