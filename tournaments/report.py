"""Reports of a tournament, all built from the database: console table, report.md, results.csv,
results.json, the head-to-head plot (heatmap.png, or gauntlet.png for a gauntlet) and
ratings.png (Elo with 95% intervals)."""

from __future__ import annotations

import csv
import json
import math
import re
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from pyanitsa.ratings.sprt import SprtResult, elo_of_score
from pyanitsa.tournaments import fallbacks, seatings, strength
from pyanitsa.tournaments.meta import _md_table, console_line, markdown_section, md_text
from pyanitsa.tournaments.plots import (
    gauntlet_rows,
    head_to_head_file,
    order,
    plot_head_to_head,
    plot_ratings,
)
from pyanitsa.tournaments.sandboxing import bot_levels
from pyanitsa.tournaments.stats import AgentStats, Summary
from pyanitsa.workers.games import GameRow

FILES = ("report.md", "results.csv", "results.json", "ratings.png")
"""The files every report writes, besides the head-to-head plot (:func:`head_to_head_file`)."""


def _fmt(value: float | None, spec: str, empty: str = "–") -> str:
    return empty if value is None or (isinstance(value, float) and math.isnan(value)) \
        else format(value, spec)


def _elo(x: float) -> str:
    return f"{int(round(x)):+d}"


def _rating(a: AgentStats) -> str:
    return "–" if a.rating is None else _elo(a.rating)


def _interval(a: AgentStats) -> str:
    if a.rating_low is None or a.rating_high is None:
        return ""
    return f"[{_elo(a.rating_low)}, {_elo(a.rating_high)}]"


def _forfeits(a: AgentStats) -> str:
    if not a.forfeits:
        return "0"
    return f"{a.forfeit_count} (" + ", ".join(f"{k} {v}" for k, v in sorted(a.forfeits.items())) \
        + ")"


def describe(summary: Summary) -> str:
    c = summary.config
    rules = c.build_rules()
    preset = c.rules.get("preset")
    rules_text = f"{preset}" if preset else rules.mode
    extra = {k: v for k, v in c.rules.items() if k != "preset"}
    if extra:
        rules_text += " with " + ", ".join(f"{k}={v}" for k, v in extra.items())
    fmt = "round robin" if c.format == "round_robin" else \
        f"gauntlet of {c.names[c.candidate_index]}"
    if c.copies:
        fmt += " (an agent may sit at a table more than once)"
    dup = "duplicate deals" if c.duplicate else "single deals"
    return (f"{c.name}: {fmt}, {len(c.agents)} agents, {c.players} players a table, "
            f"{rules_text} (deck {rules.deck}), {c.deals} {dup} per pairing, seed {c.seed}; "
            f"{summary.counted} of {summary.games} games counted ({summary.scheduled} "
            "scheduled)" + (f"; anchor {c.anchor}: Elo 0" if c.anchor is not None else ""))


STANDING_HEADERS = ("#", "agent", "Elo", "95% CI", "games", "W", "D", "L", "score", "margin",
                    "rounds", "forfeits")
STANDING_RIGHT = (True, False, True, False, True, True, True, True, True, True, True, False)
"""Which standings columns are right-aligned (numbers)."""


def standings(summary: Summary) -> list[tuple[str, ...]]:
    rows = []
    for rank, i in enumerate(order(summary), 1):
        a = summary.agents[i]
        rows.append((str(rank), a.name, _rating(a), _interval(a), str(a.games), str(a.wins),
                     str(a.draws), str(a.losses), _fmt(a.score, ".3f"), _fmt(a.margin, "+.2f"),
                     _fmt(a.length, ".1f"), _forfeits(a)))
    return rows


def _text_table(headers: Sequence[str], rows: Sequence[Sequence[str]],
                right: Sequence[bool]) -> str:
    widths = [max(len(h), *(len(r[i]) for r in rows)) if rows else len(h)
              for i, h in enumerate(headers)]

    def line(cells: Sequence[str]) -> str:
        return "  ".join(c.rjust(w) if r else c.ljust(w)
                         for c, w, r in zip(cells, widths, right, strict=True)).rstrip()

    return "\n".join([line(headers), line(["-" * w for w in widths]), *map(line, rows)])


def console_table(summary: Summary) -> str:
    parts = [describe(summary), "",
             _text_table(STANDING_HEADERS, standings(summary), STANDING_RIGHT)]
    idx = order(summary)
    n = len(idx)
    if summary.config.format == "gauntlet":
        c = summary.agents[summary.config.candidate_index].name
        rows = [(summary.agents[j].name, f"{s:.3f}",
                 "" if lo is None or hi is None else f"[{lo:.3f}, {hi:.3f}]",
                 _signed(elo_of_score(s)), str(blocks))
                for j, s, lo, hi, blocks in gauntlet_rows(summary)]
        parts += ["", _text_table([f"{c} against", "score", "95% CI", "Elo", "blocks"], rows,
                                  [False, True, False, True, True])]
    elif n <= 12:
        headers = ["head-to-head score", *[str(k + 1) for k in range(n)]]
        rows = []
        for k, i in enumerate(idx):
            cells = [f"{k + 1}. {summary.agents[i].name}"]
            for j in idx:
                s = summary.h2h.score[i][j]
                cells.append("" if i == j else _fmt(s, ".2f", "·"))
            rows.append(cells)
        parts += ["", _text_table(headers, rows, [False] + [True] * n)]
    if summary.meta is not None:
        parts += ["", console_line(summary.meta)]
    if summary.seating is not None:
        parts.append(seatings.console_line(summary.seating))
    if summary.exploitability:
        parts.append(strength.console_line(summary.exploitability))
    parts += [sprt_line(s) for s in summary.sprt]
    return "\n".join(parts)


def sprt_line(s: SprtResult) -> str:
    """One pairing's SPRT on the console, e.g. ``SPRT a vs b: accepted H1 at LLR 3.01 ≥ 2.94
    (a is at least 20 Elo stronger; 57 pairs, score 0.640)``."""
    meaning = f"{s.meaning}; " if s.meaning else ""
    return (f"SPRT {s.agents[0]} vs {s.agents[1]}: {s.statement} ({meaning}{s.blocks} pairs, "
            f"score {s.score:.3f})")


# -- markdown ---------------------------------------------------------------------------------------


def _percent(s: float, low: float | None, high: float | None) -> str:
    if low is None or high is None:
        return f"{100 * s:.1f}"
    return f"{100 * s:.1f} [{100 * low:.0f}–{100 * high:.0f}]"


def head_to_head_section(summary: Summary) -> list[str]:
    """report.md's head to head: the matrix of a round robin, or a gauntlet's candidate
    against each opponent (its matrix would be blank but for one row and one column)."""
    h = summary.h2h
    names = [a.name for a in summary.agents]
    picture = f"![head to head]({head_to_head_file(summary)})"
    if summary.config.format == "gauntlet":
        c = summary.config.candidate_index
        cells = [(names[j], _percent(s, lo, hi), _signed(elo_of_score(s)), str(blocks))
                 for j, s, lo, hi, blocks in gauntlet_rows(summary)]
        return ["## Head to head", "",
                f"{names[c]}'s score against each opponent in percent (better place 100, same "
                "place 50), with a 95% interval over duplicate blocks (one deal in all its "
                "seat rotations), and the Elo difference of that score.", "",
                _md_table(["opponent", "score", "Elo", "blocks"], cells,
                          [False, True, True, True]), "", picture, ""]
    idx = order(summary)
    cells = [[names[i], *("" if i == j or h.score[i][j] is None else
                          _percent(h.score[i][j], h.low[i][j], h.high[i][j])  # type: ignore
                          for j in idx)] for i in idx]
    return ["## Head to head", "",
            "Row agent's score against the column agent in percent (better place 100, same "
            "place 50), with a 95% interval over duplicate blocks (one deal in all its seat "
            "rotations).", "",
            _md_table(["", *[names[j] for j in idx]], cells, [False] + [True] * len(idx)), "",
            picture, ""]


def markdown(summary: Summary, rows: Sequence[GameRow]) -> str:
    c = summary.config
    idx = order(summary)
    names = [a.name for a in summary.agents]
    out = [f"# Tournament `{c.name}`", "", describe(summary) + ".", ""]
    levels = bot_levels(c)
    if levels:
        out += ["Sandbox of the `cmd:` bots: " + ", ".join(
            f"{level} (`{key}`)" for key, level in levels.items()) + ".", ""]
    out += ["## Agents", "",
            _md_table(["agent", "spec"], [(a.name, f"`{a.spec}`") for a in c.agents],
                      [False, False]), ""]
    out += fallbacks.markdown_section(summary.fallbacks)
    out += ["## Standings", "",
            "Score is mean points per game (a game gives 1 point, split among the seats in "
            "first place); margin is the mean tactical score minus the best other score; "
            "Elo is the Plackett–Luce (Bradley–Terry for two seats) fit with a bootstrap "
            "95% interval over deals.", "",
            _md_table(STANDING_HEADERS, standings(summary), STANDING_RIGHT), ""]
    out += head_to_head_section(summary)
    r = summary.ratings
    if r is not None and r.los is not None:
        los_rows = [[names[i], *("" if i == j else f"{100 * r.los[i][j]:.0f}" for j in idx)]
                    for i in idx]
        out += ["## Likelihood of superiority", "",
                f"Percent of {r.bootstrap} bootstrap fits (deals resampled within each "
                "pairing) that rate the row agent above the column agent.", "",
                _md_table(["", *[names[j] for j in idx]], los_rows,
                          [False] + [True] * len(idx)), "",
                "![ratings](ratings.png)", ""]
    if summary.meta is not None:
        h = summary.h2h
        out += markdown_section(summary.meta, names, h.score, h.low, h.high,
                                {a.name: a.rating for a in summary.agents})
    if summary.seating is not None:
        out += seatings.markdown_section(summary.seating)
    if summary.exploitability:
        vs_nash = (None if summary.meta is None else
                   dict(zip(summary.meta.names, summary.meta.vs_nash, strict=True)))
        out += strength.markdown_section(summary.exploitability,
                                         {a.name: a.rating for a in summary.agents}, vs_nash)
    if summary.sprt:
        out += ["## SPRT", "",
                _md_table(["pairing", "test", "meaning", "pairs", "score", "Elo"],
                          [(f"{s.agents[0]} vs {s.agents[1]}", s.statement, s.meaning or "–",
                            str(s.blocks), f"{s.score:.3f}", _signed(elo_of_score(s.score)))
                           for s in summary.sprt], [False, False, False, True, True, True]),
                ""]
    forfeits = [row for row in rows if row.forfeit_seat is not None]
    if forfeits:
        groups: dict[tuple[str, str, str], list[GameRow]] = {}
        for f in forfeits:
            assert f.forfeit_seat is not None
            groups.setdefault((names[f.seats[f.forfeit_seat]], f.forfeit_kind or ""),
                              []).append(f)
        out += ["## Forfeits", "",
                _md_table(["agent", "kind", "games", "first game", "reason (first game)"],
                          [(md_text(agent), kind, str(len(fs)), f"{fs[0].pairing}/"
                            f"{fs[0].deal}/{fs[0].rotation}", md_text(_clip(_reason(fs[0]), 160)))
                           for (agent, kind), fs in groups.items()],
                          [False, False, True, False, False]), "",
                "Games are pairing/deal/rotation; every forfeit is in results.csv.", ""]
    out += ["## Files", "",
            "`results.csv` (one line per game), `results.json` (these statistics), "
            "`tournament.db` (SQLite; every game with its replayable record: "
            "`pyanitsa report DIR --records games.jsonl` exports them for `pyanitsa replay`).",
            ""]
    return "\n".join(out)


def _reason(row: GameRow) -> str:
    return re.sub(r"^seat \d+: ", "", row.forfeit_reason or "")


def _signed(x: float) -> str:
    return _elo(x) if math.isfinite(x) else ("+inf" if x > 0 else "-inf")


def _clip(text: str, n: int) -> str:
    return text if len(text) <= n else text[: n - 1] + "…"


# -- csv / json / records ----------------------------------------------------------------------------


CSV_COLUMNS = ("pairing", "deal", "rotation", "seed", "agents", "outcome", "points", "places",
               "scores", "rounds", "showdowns", "forfeit_agent", "forfeit_kind",
               "forfeit_reason", "counted")


def write_csv(path: Path, summary: Summary, rows: Sequence[GameRow]) -> None:
    names = summary.config.names
    counted = summary.counted_keys
    with open(path, "w", newline="", encoding="utf-8") as fh:
        w = csv.writer(fh)
        w.writerow(CSV_COLUMNS)
        for r in rows:
            w.writerow([r.pairing, r.deal, r.rotation, r.seed, ";".join(names[i] for i in r.seats),
                        r.outcome, ";".join(f"{p:.4g}" for p in r.points),
                        ";".join(map(str, r.places)),
                        "" if r.scores is None else ";".join(map(str, r.scores)),
                        "" if r.rounds is None else r.rounds,
                        "" if r.showdowns is None else r.showdowns,
                        "" if r.forfeit_seat is None else names[r.seats[r.forfeit_seat]],
                        r.forfeit_kind or "", r.forfeit_reason or "",
                        int(r.key in counted)])


def write_records(path: Path, rows: Sequence[GameRow]) -> int:
    """Every played game as ``{"record": ..., "result": ...}`` lines (``pyanitsa replay``)."""
    n = 0
    with open(path, "w", encoding="utf-8") as fh:
        for r in rows:
            if r.record is None or r.result is None:  # a forfeit
                continue
            result = json.dumps(r.result.to_json(), separators=(",", ":"))  # as stored
            fh.write(f'{{"record": {r.record.dumps()}, "result": {result}}}\n')
            n += 1
    return n


# -- all at once ---------------------------------------------------------------------------------------


def write_reports(folder: Path, summary: Summary, rows: Sequence[GameRow]) -> list[Path]:
    folder.mkdir(parents=True, exist_ok=True)
    paths = [folder / f for f in (*FILES, head_to_head_file(summary))]
    md, csv_path, js, rat, heat = paths
    md.write_text(markdown(summary, rows), encoding="utf-8")
    write_csv(csv_path, summary, rows)
    js.write_text(json.dumps(_clean(summary.to_json()), indent=1, ensure_ascii=False) + "\n",
                  encoding="utf-8")
    plot_head_to_head(heat, summary)
    plot_ratings(rat, summary)
    return paths


def _clean(value: Any) -> Any:
    """JSON without NaN or infinities (they become null)."""
    if isinstance(value, float):
        return value if math.isfinite(value) else None
    if isinstance(value, dict):
        return {k: _clean(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_clean(v) for v in value]
    return value
