"""The tests behind the model-audit verdicts (docs/MODEL_AUDITS.md, "Statistics").

- `binomial_p_greater`: one-sided binomial tail (scipy), blind hits against chance;
- `max_share_p`: the tail of the *largest* vote count among the wrong answers when each
  voter is right with some probability and otherwise picks a wrong answer uniformly —
  the null of "the gold is right; the models that miss scatter", which accounts for taking
  the most popular of several wrong answers;
- `bh_qvalues`: Benjamini–Hochberg q-values over the items of one verdict family, and
  `false_call_bound`, the expected number of false calls among a family's calls.
"""

from __future__ import annotations

import math
from typing import Sequence


def sig(value: float, digits: int = 4) -> float:
    """`value` to `digits` significant digits (tiny p-values stay visible, unlike round()).

    >>> sig(4.1234e-08), sig(0.053333)
    (4.123e-08, 0.05333)
    """
    return float(f"{value:.{digits}g}")


def binomial_p_greater(hits: int, n: int, chance: float) -> float:
    """One-sided exact binomial p-value P(X >= hits) for X ~ Bin(n, chance).

    >>> round(binomial_p_greater(3, 3, 0.25), 4)
    0.0156
    >>> binomial_p_greater(0, 4, 0.5)
    1.0
    """
    if hits <= 0:
        return 1.0
    from scipy.stats import binom

    return float(min(1.0, max(0.0, binom.sf(hits - 1, n, chance))))


def max_share_p(top: int, votes: int, p_right: float, wrong_options: int) -> float:
    """P(the most popular wrong answer gets >= `top` of `votes` votes) under the null.

    Each vote is right with probability `p_right`, else one of `wrong_options` wrong
    answers chosen uniformly. Exact: sum over W wrong votes of Bin(W; votes, 1-p_right)
    times P(no cell of a uniform multinomial(W, wrong_options) reaches `top`).

    >>> round(max_share_p(6, 6, 0.25, 3), 6)   # 6/6 on one distractor of a 4-option mc
    0.000732
    >>> round(max_share_p(6, 6, 0.5, 1), 6)    # 6/6 on the wrong side of a yes/no
    0.015625
    """
    if top <= 0:
        return 1.0
    if top > votes or wrong_options < 1:
        return 0.0 if wrong_options >= 1 else 1.0
    import numpy as np
    from scipy.stats import binom

    # coefficient of x^W in (sum_{j<top} x^j / (j! L^j))^L, times W!, is P(max < top | W)
    cell = np.array([1.0 / (math.factorial(j) * wrong_options ** j) for j in range(top)])
    poly = np.array([1.0])
    for _ in range(wrong_options):
        poly = np.convolve(poly, cell)[:votes + 1]
    below = 0.0
    for wrong in range(votes + 1):
        inside = poly[wrong] * math.factorial(wrong) if wrong < len(poly) else 0.0
        below += binom.pmf(wrong, votes, 1.0 - p_right) * min(1.0, inside)
    return float(min(1.0, max(0.0, 1.0 - below)))


def bh_qvalues(p_values: Sequence[float]) -> list[float]:
    """Benjamini–Hochberg adjusted p-values (q-values), in the input order.

    >>> bh_qvalues([0.01, 0.04, 0.03, 0.5])
    [0.04, 0.05333, 0.05333, 0.5]
    """
    m = len(p_values)
    if not m:
        return []
    order = sorted(range(m), key=lambda i: p_values[i])
    q = [1.0] * m
    running = 1.0
    for rank in range(m, 0, -1):
        i = order[rank - 1]
        running = min(running, p_values[i] * m / rank)
        q[i] = sig(min(1.0, running))
    return q


def false_call_bound(q_values: Sequence[float]) -> float:
    """Expected number of false calls among calls with these q-values, at most.

    Calling every item with q <= max(q) is BH at level max(q), which keeps the expected
    share of false calls at or below max(q); so the expected count is <= calls * max(q).
    """
    return round(len(q_values) * max(q_values), 2) if q_values else 0.0
