"""Game theory, installed as ``pyanitsa.solvers``: best responses, exploitability, exact and
approximate equilibria of tactical deals, the zero-sum LP, their compiled kernels; the
meta-game and α-Rank of an empirical game of agents; and duplicate evaluation.

The wing's agents (``equilibrium``, ``nash``, ``best_response``) register their names with the
spec registry of :mod:`pyanitsa.agents` when imported; the registry finds this wing through
the ``pyanitsa.agent_modules`` entry points, so it names no module above it. Nothing is
imported here: the kernels load numba.
"""
