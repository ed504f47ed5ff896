"""Ratings and the statistics of results, installed as ``pyanitsa.ratings``: the
Plackett–Luce / Bradley–Terry fit on Elo's scale with bootstrap intervals and an anchor
(:mod:`~pyanitsa.ratings.plackett_luce`), the SPRT and logistic Elo
(:mod:`~pyanitsa.ratings.sprt`), the one 95% interval of a mean score, the likelihood of
superiority and duplicate pair counts (:mod:`~pyanitsa.ratings.scores`).

Plain inputs only (places, scores, counts, floats): the wing knows no tournament, config or
game row, and imports nothing of ours but the core's seeded generator. The tournaments and the
solvers' duplicate evaluation turn their results into these inputs.
"""
