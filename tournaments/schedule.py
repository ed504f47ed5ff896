"""Who plays whom: a tournament's pairings (round robin or gauntlet), its schedule, and what
its workers are handed to play it.

What a game key names once the pairings are known (seats, seeds, hand-out order) is the
workers' as well: :mod:`pyanitsa.workers.schedule`.
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence

from pyanitsa.agents.seeding import AgentKey
from pyanitsa.tournaments.config import TournamentConfig
from pyanitsa.workers.schedule import Pairing, Schedule
from pyanitsa.workers.worker import WorkerConfig


def make_pairings(config: TournamentConfig) -> list[Pairing]:
    """Round robin: every combination of agents for the table size, in lexicographic order.
    Gauntlet: the candidate with every combination of ``players - 1`` agents of the field.

    With ``copies``, a round robin has every multiset instead (lexicographic, one agent alone
    left out: its seats share its points evenly), and a gauntlet the candidate with
    ``players - 1`` copies of each agent of the field, so the rotations of a deal put the
    candidate in every seat against one opponent."""
    n, k = len(config.agents), config.players
    combos: Sequence[tuple[int, ...]]
    if config.format == "round_robin":
        combos = list(itertools.combinations_with_replacement(range(n), k) if config.copies
                      else itertools.combinations(range(n), k))
        combos = [c for c in combos if len(set(c)) > 1]
    else:
        c = config.candidate_index
        field = [i for i in range(n) if i != c]
        combos = ([(c, *[j] * (k - 1)) for j in field] if config.copies else
                  [(c, *rest) for rest in itertools.combinations(field, k - 1)])
    return [Pairing(i, entries) for i, entries in enumerate(combos)]


def schedule_of(config: TournamentConfig, key: AgentKey | None = None) -> Schedule:
    """The schedule of ``config``; ``key``, the tournament's agent key, is needed for the
    seeds of an ``agent_key: random`` tournament's deals (counting games needs none)."""
    return Schedule(tuple(make_pairings(config)), config.players, config.deals,
                    config.duplicate, config.seed, config.agent_key == "random", key)


def worker_config(config: TournamentConfig, key: AgentKey) -> WorkerConfig:
    """What the workers need of ``config`` to play its games with the agent key ``key``."""
    return WorkerConfig(tuple(a.spec for a in config.agents), config.build_rules(),
                        config.players, schedule_of(config, key), config.time_limit,
                        config.engine, config.sandbox_policy())
