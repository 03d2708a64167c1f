"""Statistics that make a score trustworthy (docs/METRICS.md#statistics).

Pure functions on counts and lists of numbers, no I/O. Confidence intervals for one
accuracy live here; paired comparisons and bootstrap composites join them here too.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import TYPE_CHECKING

from pydantic import BaseModel, ConfigDict, Field

# Two-sided 95%: the 0.975 quantile of the standard normal distribution.
Z_95 = 1.959963984540054

if TYPE_CHECKING:  # numpy is imported lazily at run time
    import numpy as np
    from numpy.typing import ArrayLike, NDArray


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


def z_for_alpha(alpha: float) -> float:
    """The two-sided normal quantile of a (1 - alpha) interval (scipy's `norm.ppf`).

    >>> round(z_for_alpha(0.05), 6), round(z_for_alpha(0.01), 6)
    (1.959964, 2.575829)

    Raises:
        ValueError: alpha outside (0, 1).
    """
    if not 0.0 < alpha < 1.0:
        raise ValueError(f"alpha must be within (0, 1), got {alpha}")
    if alpha == 0.05:
        return Z_95
    from scipy.stats import norm

    return float(norm.ppf(1.0 - alpha / 2.0))


def proportion(hits: int, n: int, z: float = Z_95) -> Proportion | None:
    """`hits / n` with its Wilson interval, or None for an empty group (n = 0); `z` from
    `z_for_alpha(report.alpha)` (1.96 for a 95% interval)."""
    if n == 0:
        return None
    low, high = wilson_interval(hits, n, z)
    return Proportion(hits=hits, n=n, value=hits / n, low=low, high=high)


def mean_or_none(values: list[float]) -> float | None:
    """Arithmetic mean, or None for an empty list (never a division-by-zero NaN)."""
    return sum(values) / len(values) if values else None


def percentile_interval(samples: ArrayLike, level: float = 0.95) -> tuple[float, float]:
    """The central `level` percentile interval of bootstrap replicates (numpy array-like)."""
    import numpy as np

    values = np.asarray(samples, dtype=float)
    values = values[~np.isnan(values)]
    if values.size == 0:
        raise ValueError("no finite bootstrap replicates")
    tail = 100 * (1 - level) / 2
    low, high = np.percentile(values, [tail, 100 - tail])
    return float(low), float(high)


@dataclass(frozen=True)
class ClusterDraws:
    """Bootstrap draws of whole clusters: `draws[r, c]` = how often replicate r drew
    cluster c; `index[i]` = the cluster of item i."""

    draws: NDArray[np.int64]  # (n_resamples x clusters)
    index: NDArray[np.int64]  # (items,)
    clusters: int

    def totals(self, values: ArrayLike) -> NDArray[np.float64]:
        """Per replicate, the sum of `values` (one per item) over the drawn items."""
        import numpy as np

        per_cluster = np.bincount(self.index, weights=np.asarray(values, dtype=float),
                                  minlength=self.clusters)
        return np.asarray(self.draws @ per_cluster, dtype=np.float64)


def cluster_draws(clusters: list[str], n_resamples: int, seed: int) -> ClusterDraws:
    """Seeded resampling of whole clusters with replacement.

    Resampling clusters (`group`: the questions sharing one image) keeps their
    correlation inside every replicate, which is what widens the interval when an image
    carries several questions. Memory is replicates x clusters, not x items.
    """
    import numpy as np

    if n_resamples < 1:
        raise ValueError(f"n_resamples must be >= 1, got {n_resamples}")
    names = sorted(set(clusters))
    position = {name: i for i, name in enumerate(names)}
    rng = np.random.default_rng(seed)
    draws = rng.multinomial(len(names), [1.0 / len(names)] * len(names), size=n_resamples)
    return ClusterDraws(draws=draws, clusters=len(names),
                        index=np.array([position[c] for c in clusters], dtype=np.int64))


def macro_replicates(hits: ArrayLike, sample: ClusterDraws,
                     strata: list[str]) -> NDArray[np.float64]:
    """Per replicate, the mean over strata (capabilities) of the accuracy in each stratum;
    a stratum absent from a replicate is left out of that replicate's mean."""
    import numpy as np

    hit_array = np.asarray(hits, dtype=float)
    rates = []
    for name in sorted(set(strata)):
        mask = np.array([s == name for s in strata], dtype=float)
        count = sample.totals(mask)
        with np.errstate(invalid="ignore", divide="ignore"):
            rates.append(np.where(count > 0, sample.totals(hit_array * mask) / count, np.nan))
    replicates: NDArray[np.float64] = np.nanmean(np.vstack(rates), axis=0)
    return replicates


def macro_accuracy(hits: list[bool], strata: list[str]) -> float:
    """Mean over strata of the accuracy in each stratum (every capability weighs the same)."""
    groups: dict[str, list[bool]] = {}
    for hit, name in zip(hits, strata):
        groups.setdefault(name, []).append(hit)
    return sum(sum(g) / len(g) for g in groups.values()) / len(groups)


@dataclass(frozen=True)
class Estimate:
    """A point estimate with a bootstrap percentile interval."""

    value: float
    low: float
    high: float
    n_resamples: int
    clusters: int


def bootstrap_accuracy(hits: list[bool], *, strata: list[str] | None = None,
                       clusters: list[str] | None = None, n_resamples: int = 1000,
                       seed: int = 0, level: float = 0.95) -> Estimate:
    """Seeded cluster bootstrap of micro accuracy, or of macro accuracy when `strata` is given.

    Args:
        hits: one 0/1 outcome per item.
        strata: per item, the stratum (capability) whose accuracies are averaged (macro).
        clusters: per item, its cluster (`group`; None = the item alone).
        n_resamples: bootstrap replicates (>= 1,000 for a reported interval).
        seed: the random seed; the same inputs and seed give the same interval.

    >>> est = bootstrap_accuracy([True, False] * 50, seed=1)
    >>> est.value, est.low < 0.5 < est.high
    (0.5, True)
    """
    import numpy as np

    if not hits:
        raise ValueError("bootstrap needs at least one item")
    clusters = clusters or [f"\x00{i}" for i in range(len(hits))]
    if len(clusters) != len(hits) or (strata is not None and len(strata) != len(hits)):
        raise ValueError("hits, strata and clusters must have one entry per item")
    sample = cluster_draws(clusters, n_resamples, seed)
    outcome = np.asarray(hits, dtype=float)
    if strata is None:
        value = float(outcome.mean())
        replicates = sample.totals(outcome) / sample.totals(np.ones(len(hits)))
    else:
        value = macro_accuracy(hits, strata)
        replicates = macro_replicates(outcome, sample, strata)
    low, high = percentile_interval(replicates, level)
    return Estimate(value=value, low=low, high=high, n_resamples=n_resamples,
                    clusters=len(set(clusters)))


class ReportAlpha(BaseModel):
    """`report.alpha` alone (other `report:` keys ignored): the significance level that
    sets every interval's confidence level, read by the stages that compute intervals."""

    model_config = ConfigDict(extra="ignore")

    alpha: float = Field(0.05, gt=0, lt=1)
