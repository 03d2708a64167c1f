"""The pieces of the suspect-gold likelihood (gold_review.py): how a model that does not
know an item answers it (`Misses`), the lure's share of the wrong votes, the vote
probabilities per model and difficulty, and the shrinkage of the difficulty weights."""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass


def sigmoid(x):
    """The logistic function, elementwise on numpy arrays."""
    import numpy as np

    return 1.0 / (1.0 + np.exp(-x))


@dataclass(frozen=True)
class Misses:
    """How a model that does not know an item answers it: the item's lure with
    probability `lure` (ρ), else a guess that hits the truth `luck` times as often as a
    uniform guess over the K answers (1: a fair guess; below 1: misses avoid the truth)."""

    lure: float = 0.0
    luck: float = 1.0

    def shares(self, space: int) -> tuple[float, float]:
        """(P(the truth), P(one given non-lure wrong answer)) for a model that does not
        know, over K = `space` answers.

        >>> Misses(0.4, 1.0).shares(4)
        (0.15, 0.15)
        """
        k = max(1, space)
        right = self.luck * (1.0 - self.lure) / k
        return right, (1.0 - self.lure - right) / max(1, k - 1)


def lure_loglik(counts: Sequence[int], misses: Misses, space: int) -> float:
    """log of the lure's share of P(the wrong votes): each wrong vote is the item's lure
    with probability ρ + w, any other wrong answer with w (`Misses.shares`); the lure
    unknown, uniform over the K − 1 wrong answers (the (1 − s)·w part is counted per vote
    apart).

    >>> lure_loglik([3], Misses(0.0), 4)
    0.0
    >>> round(lure_loglik([2], Misses(0.5), 2), 4) == round(2 * math.log(1 + 0.5 / 0.25), 4)
    True
    """
    if not counts or space <= 1 or misses.lure <= 0.0:
        return 0.0
    _, wrong = misses.shares(space)
    k = max(space - 1, len(counts))
    step = math.log1p(misses.lure / max(wrong, 1e-12))
    terms = [c * step for c in counts] + [0.0] * (k - len(counts))
    top = max(terms)
    return top + math.log(sum(math.exp(t - top) for t in terms) / k)


def smoothed_weights(grid, counts, strength: float):
    """Difficulty weights: the expected counts plus `strength` pseudo-items spread as a
    normal with the counts' own mean and spread. A shrinkage prior on the shape: free
    grid weights alone overfit the hard tail, since "hard, the gold right, the panel on
    the lure" and "the gold wrong" explain the same votes and EM feeds the tail."""
    import numpy as np

    share = counts / counts.sum()
    mean = float(share @ grid)
    sd = max(float(np.sqrt(share @ (grid - mean) ** 2)), 0.3)
    normal = np.exp(-0.5 * ((grid - mean) / sd) ** 2)
    counts = counts + strength * normal / normal.sum() + 0.5
    return counts / counts.sum()


def vote_rates(s, yes_task: bool, truth: str, shares: tuple[float, float], q, luck: float = 1.0):
    """(P(vote = T), P(one given wrong vote) before the lure term) per model and d:
    s the knowing probabilities, `shares` from `Misses.shares`, q the yes rates of a
    guess and `luck` its hit factor (yes/no)."""
    if yes_task:
        guess = luck * (q if truth == "yes" else 1.0 - q)
        return s + (1.0 - s) * guess, (1.0 - s) * (1.0 - guess)
    right, wrong = shares
    return s + (1.0 - s) * right, (1.0 - s) * wrong
