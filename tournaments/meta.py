"""The meta-game in a tournament's reports: report.md's section and the console line (the
maths, on plain matrices, is :mod:`pyanitsa.solvers.meta_game`)."""

from __future__ import annotations

import re
from collections.abc import Sequence

from pyanitsa.solvers.meta_game import Matrix, MetaGame

INTRO = ("Elo gives every agent one number, so it assumes strength is transitive; when agents "
         "beat each other in a circle no order fits every pair, and the ratings depend on who "
         "else is in the pool. The Nash mixture is the mix of agents that no agent beats on "
         "average (the maximum-entropy Nash equilibrium of the head-to-head game: Nash "
         "averaging); an agent's score against it is 50 if the mix uses it, and lower the "
         "more the field's best mix beats it.")


_MARKUP = re.compile(r"([\\`*_{}\[\]()#+\-.!<>~&])")


def md_text(text: str) -> str:
    """Text nobody vetted (a bot's words in a forfeit reason, a config's names) as literal
    Markdown: every character Markdown or inline HTML could read as markup is escaped and the
    lines are joined, so a bot cannot put a link, an image or HTML in a report. ``|`` is left
    to :func:`_md_table`, which escapes it in every cell."""
    return _MARKUP.sub(r"\\\1", " ".join(text.split()))


def _md_table(headers: Sequence[str], rows: Sequence[Sequence[str]],
              right: Sequence[bool]) -> str:
    align = ["---:" if r else "---" for r in right]
    return "\n".join(["| " + " | ".join(headers) + " |", "| " + " | ".join(align) + " |",
                      *["| " + " | ".join(c.replace("|", "\\|") for c in r) + " |"
                        for r in rows]])


def _pct(score: Matrix, low: Matrix, high: Matrix, i: int, j: int) -> str:
    """A head-to-head score in percent with its 95% interval."""
    s, lo, hi = score[i][j], low[i][j], high[i][j]
    if s is None:
        return ""
    return f"{100 * s:.1f}" + ("" if lo is None or hi is None else
                               f" [{100 * lo:.0f}–{100 * hi:.0f}]")


def _listed(items: Sequence[str], limit: int = 20) -> list[str]:
    more = [f"- … and {len(items) - limit} more (all in results.json)"] \
        if len(items) > limit else []
    return [f"- {x}" for x in items[:limit]] + more


def _elo(x: float | None) -> str:
    return "–" if x is None else f"{round(x):+d}"


def _gap(elo: dict[str, float | None], a: str, b: str) -> float | None:
    ea, eb = elo.get(a), elo.get(b)
    return None if ea is None or eb is None else ea - eb


def _round(c: Sequence[str]) -> str:
    return " > ".join((*c, c[0]))


def console_line(m: MetaGame) -> str:
    """One line for the console: the Nash mixture and the cycles."""
    mix = ", ".join(f"{n} {100 * p:.0f}%" for n, p in zip(m.names, m.nash, strict=True)
                    if p > 0.005)
    more = f" (+{len(m.cycles) - 3} more)" if len(m.cycles) > 3 else ""
    cyc = f"{len(m.cycles)} cycle(s) at 95%: " + "; ".join(map(_round, m.cycles[:3])) + more \
        if m.cycles else "no cycle at 95%"
    return f"meta-game: Nash mix {mix}; {cyc}"


def markdown_section(m: MetaGame, names: Sequence[str], score: Matrix, low: Matrix,
                     high: Matrix, elo: dict[str, float | None]) -> list[str]:
    """The report's section: why Elo alone misleads, the mixture, the cycles, the upsets.

    ``names`` index the head-to-head matrices (all the config's agents), ``elo`` maps names
    to ratings."""
    rank = sorted(range(len(m.names)), key=lambda k: (-round(m.vs_nash[k], 9), -m.nash[k], k))
    table = [(m.names[k], f"{100 * m.nash[k]:.1f}", f"{100 * m.vs_nash[k]:.1f}",
              _elo(elo.get(m.names[k]))) for k in rank]
    out = ["## The meta-game, and why Elo alone misleads", "", INTRO, "",
           _md_table(["agent", "Nash mix %", "score vs Nash %", "Elo"], table,
                     [False, True, True, True]), ""]
    if m.missing_pairs:
        out += [f"{m.missing_pairs} pair(s) never met; they count as even.", ""]
    ix = list(names).index
    found = [_round(c) + ": " + ", ".join(
        f"{x} {_pct(score, low, high, ix(x), ix(y))} vs {y}"
        for x, y in zip(c, (*c[1:], c[0]), strict=True)) for c in m.cycles]
    if found:
        out += ["Cycles at 95% (each of the three head-to-head scores has its 95% interval "
                "above 50):", "", *_listed(found), ""]
    else:
        out += ["No cycle at 95% (three agents beating each other in a circle, each score "
                "above 50 at 95%).", ""]
    ups = [f"{w} scores {_pct(score, low, high, ix(w), ix(lo))} against {lo} but is rated "
           f"{_elo(_gap(elo, lo, w))[1:]} Elo below it" for w, lo in m.inversions]
    if ups:
        out += ["Head-to-head results above 50 at 95% against the rating order:", "",
                *_listed(ups), ""]
    return out
