"""Paired comparisons of two models on the same items (docs/METRICS.md#statistics).

McNemar's test on the discordant pairs, a cluster bootstrap CI of the accuracy
difference, Holm's step-down correction across comparisons, and the minimum detectable
difference of a paired design (Connor 1987).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from bench_kit.stats.intervals import Estimate, cluster_draws, percentile_interval

# Below this many discordant pairs the chi-square approximation is poor: use the exact test.
EXACT_BELOW = 25


@dataclass(frozen=True)
class McNemar:
    """McNemar's test: b = only A right, c = only B right."""

    b: int
    c: int
    statistic: float | None
    p_value: float
    method: str  # "exact" (binomial) or "chi2" (continuity-corrected)


def mcnemar(b: int, c: int, exact_below: int = EXACT_BELOW) -> McNemar:
    """McNemar's test of two paired 0/1 outcomes from the discordant counts.

    Exact two-sided binomial test (p = 0.5) when b + c < `exact_below`, else the
    chi-square statistic with Edwards' continuity correction, (|b − c| − 1)² / (b + c).

    >>> round(mcnemar(1, 9).p_value, 6)
    0.021484
    >>> m = mcnemar(150, 86); round(m.statistic, 3), m.method
    (16.818, 'chi2')
    """
    from scipy.stats import binomtest, chi2

    if b < 0 or c < 0:
        raise ValueError(f"discordant counts must be >= 0, got b={b}, c={c}")
    n = b + c
    if n == 0:
        return McNemar(b=b, c=c, statistic=None, p_value=1.0, method="exact")
    if n < exact_below:
        return McNemar(b=b, c=c, statistic=None, method="exact",
                       p_value=float(binomtest(b, n, 0.5).pvalue))
    statistic = (abs(b - c) - 1) ** 2 / n
    return McNemar(b=b, c=c, statistic=statistic, method="chi2",
                   p_value=float(chi2.sf(statistic, 1)))


def holm(p_values: list[float]) -> list[float]:
    """Holm–Bonferroni adjusted p-values, in the input order (monotone, capped at 1).

    >>> holm([0.01, 0.04, 0.03, 0.005])
    [0.03, 0.06, 0.06, 0.02]
    """
    m = len(p_values)
    order = sorted(range(m), key=lambda i: (p_values[i], i))
    adjusted = [0.0] * m
    running = 0.0
    for rank, i in enumerate(order):
        running = max(running, min(1.0, (m - rank) * p_values[i]))
        adjusted[i] = float(f"{running:.12g}")
    return adjusted


def paired_bootstrap(hits_a: list[bool], hits_b: list[bool], *,
                     clusters: list[str] | None = None, n_resamples: int = 1000,
                     seed: int = 0, level: float = 0.95) -> Estimate:
    """Bootstrap CI of accuracy(A) − accuracy(B) on the same items, resampling clusters."""
    import numpy as np

    if len(hits_a) != len(hits_b) or not hits_a:
        raise ValueError("paired bootstrap needs two equally long, non-empty outcome lists")
    clusters = clusters or [f"\x00{i}" for i in range(len(hits_a))]
    diff = np.asarray(hits_a, dtype=float) - np.asarray(hits_b, dtype=float)
    sample = cluster_draws(clusters, n_resamples, seed)
    replicates = sample.totals(diff) / sample.totals(np.ones(len(diff)))
    low, high = percentile_interval(replicates, level)
    return Estimate(value=float(diff.mean()), low=low, high=high, n_resamples=n_resamples,
                    clusters=len(set(clusters)))


def _z(p: float) -> float:
    from scipy.stats import norm

    return float(norm.ppf(p))


def paired_sample_size(delta: float, discordance: float, *, alpha: float = 0.05,
                       power: float = 0.8) -> float:
    """Items needed to detect a paired difference `delta` (Connor 1987, McNemar power).

    n = (z₁₋α/₂ √ψ + z_power √(ψ − δ²))² / δ², ψ = share of items the models disagree on.

    >>> round(paired_sample_size(0.02, 0.1)), round(paired_sample_size(0.02, 0.3))
    (1960, 5884)
    """
    if not 0 < delta <= math.sqrt(discordance) <= 1:
        raise ValueError("need 0 < delta <= sqrt(discordance) <= 1")
    za, zb = _z(1 - alpha / 2), _z(power)
    return (za * math.sqrt(discordance) + zb * math.sqrt(discordance - delta ** 2)) ** 2 / delta ** 2


def min_detectable_difference(n: int, discordance: float, *, alpha: float = 0.05,
                              power: float = 0.8) -> float | None:
    """The smallest paired accuracy difference detectable with `n` items (inverse of
    `paired_sample_size`), or None when no difference is (ψ = 0, or too few items).

    >>> round(min_detectable_difference(1960, 0.1), 4)
    0.02
    """
    from scipy.optimize import brentq

    if n < 1 or discordance <= 0:
        return None
    za, zb = _z(1 - alpha / 2), _z(power)
    top = math.sqrt(discordance)

    def gap(delta: float) -> float:
        return math.sqrt(n) * delta - zb * math.sqrt(max(0.0, discordance - delta ** 2)) \
            - za * math.sqrt(discordance)

    if gap(top) < 0:
        return None
    return float(brentq(gap, 0.0, top, xtol=1e-12))


def min_detectable_difference_unpaired(n: int, accuracy: float, *, alpha: float = 0.05,
                                       power: float = 0.8) -> float | None:
    """Smallest difference two independent runs of `n` items each can detect (normal
    approximation at the observed accuracy), or None for n = 0 or accuracy at 0/1."""
    if n < 1 or not 0 < accuracy < 1:
        return None
    return (_z(1 - alpha / 2) + _z(power)) * math.sqrt(2 * accuracy * (1 - accuracy) / n)
