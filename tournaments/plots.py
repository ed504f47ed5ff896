"""The tournament plots: head to head (a heatmap for a round robin, the candidate against each
opponent for a gauntlet) and the ratings with their intervals."""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any

from pyanitsa.tournaments.anchor import scale_label
from pyanitsa.tournaments.stats import Summary


def order(summary: Summary) -> list[int]:
    """Agent indices, best first: by rating, else by score."""
    agents = summary.agents

    def key(i: int) -> tuple[float, float]:
        a = agents[i]
        rating = a.rating if a.rating is not None else -math.inf
        score = a.score if a.games else -math.inf
        return (-rating, -score)

    return sorted(range(len(agents)), key=key)


def head_to_head_file(summary: Summary) -> str:
    """The head-to-head plot's file name: ``gauntlet.png`` for a gauntlet, else
    ``heatmap.png``."""
    return "gauntlet.png" if summary.config.format == "gauntlet" else "heatmap.png"


def plot_head_to_head(path: Path, summary: Summary) -> None:
    if summary.config.format == "gauntlet":
        plot_gauntlet(path, summary)
    else:
        plot_heatmap(path, summary)


def _figure(width: float, height: float) -> Any:
    from matplotlib.figure import Figure  # Agg canvas, no pyplot state

    return Figure(figsize=(width, height), dpi=110, layout="constrained")


def plot_heatmap(path: Path, summary: Summary) -> None:
    import numpy as np

    idx = order(summary)
    names = [summary.agents[i].name for i in idx]
    n = len(idx)
    grid = np.full((n, n), np.nan)
    for a, i in enumerate(idx):
        for b, j in enumerate(idx):
            s = summary.h2h.score[i][j]
            if i != j and s is not None:
                grid[a, b] = 100 * s
    fig = _figure(max(4.5, 1.8 + 0.75 * n), max(3.6, 1.4 + 0.6 * n))
    ax = fig.add_subplot()
    im = ax.imshow(grid, cmap="RdBu", vmin=0, vmax=100)
    ax.set_xticks(range(n), names, rotation=40, ha="right")
    ax.set_yticks(range(n), names)
    for a in range(n):
        for b in range(n):
            if not np.isnan(grid[a, b]):
                ax.text(b, a, f"{grid[a, b]:.0f}", ha="center", va="center", fontsize=8,
                        color="white" if abs(grid[a, b] - 50) > 30 else "black")
    ax.set_title(f"{summary.config.name}: row's score vs column (%)")
    fig.colorbar(im, ax=ax, shrink=0.8)
    fig.savefig(path)


def plot_ratings(path: Path, summary: Summary) -> None:
    idx = order(summary)[::-1]
    agents = [summary.agents[i] for i in idx if summary.agents[i].rating is not None]
    fig = _figure(6.5, 1.7 + 0.4 * max(1, len(agents)))
    ax = fig.add_subplot()
    if agents:
        y = list(range(len(agents)))
        x = [a.rating for a in agents]
        if all(a.rating_low is not None for a in agents):
            err = [[max(0.0, a.rating - a.rating_low) for a in agents],  # type: ignore
                   [max(0.0, a.rating_high - a.rating) for a in agents]]  # type: ignore
        else:
            err = None
        ax.errorbar(x, y, xerr=err, fmt="o", capsize=4, color="tab:blue")
        ax.set_yticks(y, [a.name for a in agents])
        ax.axvline(0, color="grey", lw=0.8, ls=":")
    ax.set_xlabel(f"{scale_label(summary.config)}, 95% bootstrap interval")
    ax.set_title(f"{summary.config.name}: ratings")
    fig.savefig(path)




def gauntlet_rows(summary: Summary) -> list[tuple[int, float, float | None, float | None, int]]:
    """The candidate against each opponent it met, weakest opponent first: (opponent, score,
    low, high, blocks), the score being the candidate's head-to-head score with its 95%
    interval over duplicate blocks."""
    c = summary.config.candidate_index
    h = summary.h2h
    rows = [(j, s, h.low[c][j], h.high[c][j], h.blocks[c][j])
            for j, s in enumerate(h.score[c]) if j != c and s is not None]
    return sorted(rows, key=lambda r: (-r[1], summary.agents[r[0]].name))


def plot_gauntlet(path: Path, summary: Summary) -> None:
    """A forest plot: the candidate's score against each opponent with its 95% interval, the
    even line at 50%, and the Elo difference on the top axis."""
    import numpy as np

    c = summary.config.candidate_index
    rows = gauntlet_rows(summary)[::-1]  # matplotlib's y grows upwards: weakest opponent on top
    decided = {s.agents[1]: s.decision for s in summary.sprt if s.decision is not None}
    fig = _figure(7.0, 1.9 + 0.42 * max(1, len(rows)))
    ax = fig.add_subplot()
    if rows:
        y = np.arange(len(rows))
        x = np.array([100 * r[1] for r in rows])
        low = np.array([100 * r[2] if r[2] is not None else np.nan for r in rows])
        high = np.array([100 * r[3] if r[3] is not None else np.nan for r in rows])
        err = np.vstack([np.nan_to_num(x - low), np.nan_to_num(high - x)])
        colours = ["tab:blue" if lo > 50 else "tab:red" if hi < 50 else "tab:grey"
                   for lo, hi in zip(np.nan_to_num(low, nan=50), np.nan_to_num(high, nan=50),
                                     strict=True)]
        for k, colour in enumerate(colours):  # errorbar takes one colour a call
            ax.errorbar(x[k], y[k], xerr=err[:, k:k + 1], fmt="o", color=colour, capsize=4)
        names = [summary.agents[r[0]].name for r in rows]
        ax.set_yticks(y, [f"{n} ({decided[n]})" if n in decided else n for n in names])
        for yi, (_, score, lo, hi, blocks) in zip(y, rows, strict=True):
            ci = "" if lo is None or hi is None else f" [{100 * lo:.0f}–{100 * hi:.0f}]"
            ax.annotate(f"{100 * score:.1f}{ci}, {blocks} blocks", (1.0, yi),
                        xycoords=("axes fraction", "data"), xytext=(6, 0),
                        textcoords="offset points", va="center", fontsize=8)
        ax.set_ylim(-0.7, len(rows) - 0.3)
    ax.axvline(50, color="grey", lw=0.8, ls=":")
    ax.set_xlim(0, 100)
    ax.set_xlabel(f"{summary.agents[c].name}'s score against the opponent (%), 95% interval "
                  "over duplicate blocks")
    top = ax.secondary_xaxis("top", functions=(_elo_of_percent, _percent_of_elo))
    top.set_xticks([-400, -200, 0, 200, 400])
    top.set_xlabel("Elo difference")
    ax.set_title(f"{summary.config.name}: gauntlet of {summary.agents[c].name}")
    fig.savefig(path)


def _elo_of_percent(p: Any) -> Any:
    """:func:`~pyanitsa.ratings.sprt.elo_of_score` on arrays of percents, as matplotlib's
    secondary axis needs (clipped: the axis runs from 0 to 100)."""
    import numpy as np

    q = np.clip(np.asarray(p, dtype=float) / 100, 1e-6, 1 - 1e-6)
    return -400.0 * np.log10(1.0 / q - 1.0)


def _percent_of_elo(elo: Any) -> Any:
    import numpy as np

    return 100.0 / (1.0 + 10.0 ** (-np.asarray(elo, dtype=float) / 400.0))

