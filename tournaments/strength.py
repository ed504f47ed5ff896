"""Each agent's full-deal exploitability beside its tournament results (``exploit:``), at
the tournament's table size (NashConv / N from three seats on).

Ratings and the meta-game say who beats whom *in this field*; exploitability says what a best
response gains against an agent, whoever else is in the field (:mod:`pyanitsa.solvers.exploitability`).
The measurements are stored in ``exploit.json`` in the output folder, one agent at a time as
each finishes (written atomically), keyed by the spec, the rules and the ``exploit:`` settings:
a report that is built again, or a run that was stopped, measures only what is missing.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

from pyanitsa.tournaments.config import TournamentConfig

CACHE = "exploit.json"
KEYS = ("exploitability", "ci95", "method", "deals", "unit", "seconds")


def _key(config: TournamentConfig, spec: str) -> str:
    assert config.exploit is not None
    # the table size only from three seats on: two-player caches keep their keys
    seats = {} if config.players == 2 else {"players": config.players}
    return json.dumps({"spec": spec, "rules": config.result_fields()["rules"],
                       **config.exploit.model_dump(), **seats}, sort_keys=True)


def _load(path: Path) -> dict[str, Any]:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return data if isinstance(data, dict) else {}


def _save(path: Path, data: dict[str, Any]) -> None:
    tmp = path.with_suffix(".tmp")
    tmp.write_text(json.dumps(data, indent=1) + "\n", encoding="utf-8")
    os.replace(tmp, path)


def measure(config: TournamentConfig, folder: Path, *, progress: bool = False
            ) -> dict[str, dict[str, Any]] | None:
    """``{agent name: exploit report}`` for every agent (None without ``exploit:``)."""
    if config.exploit is None:
        return None
    from tqdm import tqdm

    from pyanitsa.agents.specs import make_agent
    from pyanitsa.solvers.exploitability import exploit_deals

    path = folder / CACHE
    cache = _load(path)
    rules = config.build_rules()
    e = config.exploit
    out: dict[str, dict[str, Any]] = {}
    todo = [a for a in config.agents if _key(config, a.spec) not in cache]
    # at 3+ seats the measurement reports each seat of each deal
    steps, unit = (e.deals, "deal") if config.players == 2 else (e.deals * config.players, "seat")
    with tqdm(total=len(todo) * steps, unit=unit, disable=not progress or not todo, leave=False, dynamic_ncols=True, desc="exploitability") as bar:
        for entry in config.agents:
            key = _key(config, entry.spec)
            if key not in cache:
                bar.set_postfix_str(entry.name)
                rep = exploit_deals(rules, make_agent(entry.spec), deals=e.deals, seed=e.seed,
                                    samples=e.samples, fresh=e.fresh, players=config.players,
                                    progress=bar.update)
                cache[key] = {k: rep[k] for k in KEYS}
                _save(path, cache)
            out[entry.name] = cache[key]
    return out


def markdown_section(exploit: dict[str, dict[str, Any]], elo: dict[str, float | None],
                     vs_nash: dict[str, float] | None) -> list[str]:
    """The report.md table: exploitability next to Elo and the score against the Nash mix."""
    rows = sorted(exploit.items(), key=lambda kv: kv[1]["exploitability"])
    head = ["agent", "exploitability", "95% interval", "method", "Elo", "vs Nash mix"]
    lines = ["## Exploitability on full deals", "",
             "What a best response gains against each agent, in "
             f"{next(iter(exploit.values()))['unit']} over "
             f"{next(iter(exploit.values()))['deals']} seeded deals (`pyanitsa exploit`): 0 at "
             "an equilibrium, whoever else is in the field (at 3+ seats NashConv / N: in each "
             "seat, what a best response gains over the agent when the agent holds every other "
             "seat). A `lower_bound` comes from a "
             "best response fitted on samples of the agent and scored on fresh ones (below 0 when "
             "that response found nothing to gain: the agent's exploitability is then only "
             "known to be small). A high "
             "rating with a high exploitability means the agent beats this field, not that "
             "it is strong.", "",
             "| " + " | ".join(head) + " |", "|" + "|".join(["---"] + ["---:"] * 5) + "|"]
    for name, rep in rows:
        lo, hi = rep["ci95"]
        rating = elo.get(name)
        score = None if vs_nash is None else vs_nash.get(name)
        lines.append(f"| {name} | {rep['exploitability']:.3f} | [{lo:.3f}, {hi:.3f}] | "
                     f"{rep['method']} | {'–' if rating is None else f'{rating:+.0f}'} | "
                     f"{'–' if score is None else f'{100 * score:.1f}%'} |")
    return [*lines, ""]


def console_line(exploit: dict[str, dict[str, Any]]) -> str:
    """One line, weakest last. A lower bound prints as ``>=`` with its estimate as measured:
    what a response fitted on samples gains on fresh ones. Below 0 it says the response found
    nothing to gain, which the line then spells out (it does not show the agent unexploitable)."""
    parts = []
    for name, rep in sorted(exploit.items(), key=lambda kv: kv[1]["exploitability"]):
        value = rep["exploitability"]
        parts.append(f"{name} {value:.2f}" if rep["method"] == "exact" else f"{name} >={value:.2f}")
    unit = next(iter(exploit.values())).get("unit", "cards a game")
    line = f"exploitability ({unit}, lower is stronger; >= a lower bound): " + ", ".join(parts)
    if any(rep["method"] != "exact" and rep["exploitability"] < 0 for rep in exploit.values()):
        line += ("; a bound below 0: the sampled response found nothing to gain there, which "
                 "is no proof the agent cannot be exploited")
    return line
