"""Boundaries, defaults and messages of bench_kit.stats (each test kills mutants that the
reference-value tests in test_stats.py let survive; see docs/TESTING.md)."""

from __future__ import annotations

import math

import numpy as np
import pytest

from bench_kit.stats.intervals import (
    ClusterDraws,
    bootstrap_accuracy,
    cluster_draws,
    macro_replicates,
    percentile_interval,
    proportion,
    wilson_interval,
)
from bench_kit.stats.paired import (
    holm,
    mcnemar,
    min_detectable_difference,
    min_detectable_difference_unpaired,
    paired_bootstrap,
    paired_sample_size,
)

Z_95 = 1.959963984540054


def test_wilson_edges_are_exact_for_every_small_n() -> None:
    # float noise at 0/n and n/n (e.g. 2.8e-17 at 0/7) is clamped to exactly 0 and 1
    for n in range(1, 80):
        assert wilson_interval(0, n)[0] == 0.0
        assert wilson_interval(n, n)[1] == 1.0


@pytest.mark.parametrize(("hits", "n", "message"), [
    (0, 0, "a Wilson interval needs n >= 1, got n=0"),
    (11, 10, "hits must be within 0..10, got 11"),
    (-1, 10, "hits must be within 0..10, got -1"),
])
def test_wilson_refuses_with_a_message(hits, n, message) -> None:
    with pytest.raises(ValueError, match=f"^{message}$"):
        wilson_interval(hits, n)


def test_proportion_keeps_counts_and_passes_z_on() -> None:
    p = proportion(3, 10)
    assert (p.hits, p.n, p.value) == (3, 10, 0.3)
    assert (p.low, p.high) == wilson_interval(3, 10)
    narrow = proportion(3, 10, z=1.0)
    assert (narrow.low, narrow.high) == wilson_interval(3, 10, 1.0)
    assert narrow.high - narrow.low < p.high - p.low


def test_percentile_interval_tails_and_single_values() -> None:
    assert percentile_interval(np.arange(101), 0.9) == pytest.approx((5.0, 95.0))
    assert percentile_interval(np.arange(101), 0.5) == pytest.approx((25.0, 75.0))
    assert percentile_interval([0.3, float("nan")]) == (0.3, 0.3)  # one finite replicate
    with pytest.raises(ValueError, match="^no finite bootstrap replicates$"):
        percentile_interval([float("nan")] * 3)


def test_cluster_draws_accepts_one_resample_and_refuses_zero() -> None:
    draws = cluster_draws(["a", "b", "a"], 1, seed=0)
    assert draws.draws.shape == (1, 2) and draws.draws.sum() == 2
    assert list(draws.index) == [0, 1, 0]
    with pytest.raises(ValueError, match="^n_resamples must be >= 1, got 0$"):
        cluster_draws(["a"], 0, seed=0)


def test_macro_replicates_by_hand() -> None:
    # items: 0 (stratum a, hit), 1 (stratum b, miss); three replicates drawn by hand
    sample = ClusterDraws(draws=np.array([[1, 1], [2, 0], [0, 2]]), index=np.array([0, 1]),
                          clusters=2)
    replicates = macro_replicates([True, False], sample, ["a", "b"])
    # both strata: (1 + 0) / 2; only a: 1; only b: 0 (an absent stratum is left out)
    assert list(replicates) == [0.5, 1.0, 0.0]


def test_macro_bootstrap_uses_each_strata_own_items() -> None:
    # strata of unequal sizes, each all-right or all-wrong: every replicate is exactly 1/3
    hits = [True] * 100 + [False] * 20 + [False] * 40
    strata = ["a"] * 100 + ["b"] * 20 + ["c"] * 40
    est = bootstrap_accuracy(hits, strata=strata, n_resamples=200)
    assert est.value == pytest.approx(1 / 3)
    assert est.low == pytest.approx(1 / 3) and est.high == pytest.approx(1 / 3)


def test_bootstrap_defaults_level_and_messages() -> None:
    hits = [True, False, True, True, False] * 8
    default = bootstrap_accuracy(hits)
    assert default == bootstrap_accuracy(hits, seed=0, n_resamples=1000, level=0.95)
    assert default.n_resamples == 1000 and default.clusters == len(hits)
    few = [bootstrap_accuracy(hits, n_resamples=20, seed=s) for s in range(3)]
    assert len(set(few)) > 1 and few[0] == bootstrap_accuracy(hits, n_resamples=20)
    half = bootstrap_accuracy(hits, level=0.5)
    assert half.high - half.low < default.high - default.low
    with pytest.raises(ValueError, match="^bootstrap needs at least one item$"):
        bootstrap_accuracy([])
    for kwargs in ({"clusters": ["a"]}, {"strata": ["a"]}):
        with pytest.raises(ValueError,
                           match="^hits, strata and clusters must have one entry per item$"):
            bootstrap_accuracy([True, False], **kwargs)


@pytest.mark.parametrize(("b", "c"), [(-1, 1), (1, -1)])
def test_mcnemar_refuses_a_negative_count(b, c) -> None:
    with pytest.raises(ValueError, match=f"^discordant counts must be >= 0, got b={b}, c={c}$"):
        mcnemar(b, c)


@pytest.mark.parametrize(("b", "c", "method"), [(0, 0, "exact"), (3, 5, "exact"),
                                                (20, 10, "chi2")])
def test_mcnemar_keeps_the_counts_in_every_branch(b, c, method) -> None:
    result = mcnemar(b, c)
    assert (result.b, result.c, result.method) == (b, c, method)


def test_holm_caps_at_one() -> None:
    assert holm([0.6, 0.7]) == [1.0, 1.0]
    assert holm([0.2, 0.7]) == [0.4, 0.7]
    assert holm([]) == []


def test_paired_bootstrap_defaults_level_and_messages() -> None:
    a = [True, False, True, True, False, True] * 6
    b = [False, False, True, False, True, True] * 6
    default = paired_bootstrap(a, b)
    assert default == paired_bootstrap(a, b, seed=0, n_resamples=1000, level=0.95)
    assert default == paired_bootstrap(a, b)  # seeded: the same twice
    assert default.n_resamples == 1000 and default.clusters == len(a)
    assert default.value == pytest.approx(1 / 6)
    assert paired_bootstrap(a, b, clusters=[str(i % 4) for i in range(36)]).clusters == 4
    few = [paired_bootstrap(a, b, n_resamples=20, seed=s) for s in range(3)]
    assert len(set(few)) > 1 and few[0] == paired_bootstrap(a, b, n_resamples=20)
    half = paired_bootstrap(a, b, level=0.5)
    assert half.high - half.low < default.high - default.low
    for x, y in (([True], [True, False]), ([], [])):
        with pytest.raises(ValueError, match="^paired bootstrap needs two equally long, "
                                             "non-empty outcome lists$"):
            paired_bootstrap(x, y)


def test_paired_sample_size_boundaries() -> None:
    # delta = sqrt(discordance) is allowed: the second term vanishes, n = z^2
    assert paired_sample_size(0.5, 0.25) == pytest.approx(Z_95 ** 2)
    assert paired_sample_size(0.5, 1.0) > 0  # discordance 1 is allowed
    for delta, discordance in ((0.0, 0.25), (0.6, 0.25), (0.5, 1.5), (-0.1, 0.25)):
        with pytest.raises(ValueError, match=r"^need 0 < delta <= sqrt\(discordance\) <= 1$"):
            paired_sample_size(delta, discordance)


def test_min_detectable_difference_inverts_the_sample_size_exactly() -> None:
    n = paired_sample_size(0.3, 0.25)
    assert min_detectable_difference(n, 0.25) == pytest.approx(0.3, abs=1e-9)
    # gap(top) between 0 and 1: a difference is detectable, just below sqrt(discordance)
    found = min_detectable_difference(100, 0.01)
    assert found is not None and 0 < found < 0.1
    assert min_detectable_difference(3, 0.01) is None  # sqrt(3) < z: nothing detectable
    assert min_detectable_difference(100, 0.0) is None


def test_unpaired_mdd_edges() -> None:
    one = min_detectable_difference_unpaired(1, 0.5)
    assert one == pytest.approx((Z_95 + 0.8416212335729143) * math.sqrt(0.5))
    for accuracy in (0.0, 1.0, 1.5):
        assert min_detectable_difference_unpaired(10, accuracy) is None
    assert min_detectable_difference_unpaired(0, 0.5) is None
