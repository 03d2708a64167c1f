"""Statistics that make a score trustworthy (DOMAIN §4).

Pure functions on counts and lists of numbers, no I/O. Confidence intervals for one
accuracy live here; paired comparisons and bootstrap composites join them here too.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

# Two-sided 95%: the 0.975 quantile of the standard normal distribution.
Z_95 = 1.959963984540054


@dataclass(frozen=True)
class Proportion:
    """A hit count over n >= 1 trials, its rate and its Wilson interval."""

    hits: int
    n: int
    value: float
    low: float
    high: float


def wilson_interval(hits: int, n: int, z: float = Z_95) -> tuple[float, float]:
    """Wilson score interval for a binomial proportion (no continuity correction).

    Unlike the normal (Wald) interval it stays inside [0, 1] and is sensible at 0/n and
    n/n, which matter for small per-capability groups.

    >>> [round(v, 4) for v in wilson_interval(5, 10)]
    [0.2366, 0.7634]
    >>> [round(v, 4) for v in wilson_interval(0, 10)]
    [0.0, 0.2775]

    Raises:
        ValueError: n < 1 or hits outside 0..n (an empty group has no interval).
    """
    if n < 1:
        raise ValueError(f"a Wilson interval needs n >= 1, got n={n}")
    if not 0 <= hits <= n:
        raise ValueError(f"hits must be within 0..{n}, got {hits}")
    p = hits / n
    z2 = z * z
    denom = 1.0 + z2 / n
    centre = (p + z2 / (2 * n)) / denom
    half = (z / denom) * math.sqrt(p * (1.0 - p) / n + z2 / (4.0 * n * n))
    # Clamp float noise at the edges (0/n must give exactly 0.0, n/n exactly 1.0).
    low = 0.0 if hits == 0 else max(0.0, centre - half)
    high = 1.0 if hits == n else min(1.0, centre + half)
    return low, high


def proportion(hits: int, n: int, z: float = Z_95) -> Proportion | None:
    """`hits / n` with its Wilson interval, or None for an empty group (n = 0)."""
    if n == 0:
        return None
    low, high = wilson_interval(hits, n, z)
    return Proportion(hits=hits, n=n, value=hits / n, low=low, high=high)


def mean_or_none(values: list[float]) -> float | None:
    """Arithmetic mean, or None for an empty list (never a division-by-zero NaN)."""
    return sum(values) / len(values) if values else None
