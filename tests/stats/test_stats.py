"""Wilson intervals, bootstrap, McNemar, Holm and power against reference values.

Wilson: scipy.stats.binomtest(...).proportion_ci(method="wilson") (Newcombe 1998, method 3).
"""

from __future__ import annotations

import math

import pytest

from bench_kit.stats.intervals import (
    bootstrap_accuracy,
    cluster_draws,
    mean_or_none,
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

REFERENCE = [
    # hits, n, low, high
    (0, 10, 0.0, 0.27753279986288926),
    (10, 10, 0.7224672001371109, 1.0),
    (5, 10, 0.236593090512564, 0.7634069094874361),
    (131, 320, 0.35688441529495185, 0.46401560099322303),
    (1, 1, 0.20654931437723745, 1.0),
    (0, 1, 0.0, 0.7934506856227626),
    (7, 50, 0.06950833427016292, 0.26186193710585537),
]


@pytest.mark.parametrize(("hits", "n", "low", "high"), REFERENCE)
def test_wilson_matches_reference(hits, n, low, high):
    got_low, got_high = wilson_interval(hits, n)
    assert got_low == pytest.approx(low, abs=1e-12)
    assert got_high == pytest.approx(high, abs=1e-12)


def test_edges_are_exact_and_interval_contains_the_estimate():
    assert wilson_interval(0, 3)[0] == 0.0
    assert wilson_interval(3, 3)[1] == 1.0
    for hits in range(0, 21):
        low, high = wilson_interval(hits, 20)
        assert 0.0 <= low <= hits / 20 <= high <= 1.0


def test_wider_z_gives_a_wider_interval():
    narrow = wilson_interval(5, 10, z=1.0)
    wide = wilson_interval(5, 10)
    assert wide[0] < narrow[0] and wide[1] > narrow[1]


@pytest.mark.parametrize(("hits", "n"), [(0, 0), (-1, 5), (6, 5)])
def test_invalid_counts_raise(hits, n):
    with pytest.raises(ValueError):
        wilson_interval(hits, n)


def test_proportion_and_mean_of_empty_groups_are_none():
    assert proportion(0, 0) is None
    assert mean_or_none([]) is None
    rate = proportion(5, 10)
    assert (rate.value, round(rate.low, 4), round(rate.high, 4)) == (0.5, 0.2366, 0.7634)
    assert mean_or_none([1.0, 0.0, 0.5]) == 0.5


# ---- bootstrap, McNemar, Holm, minimum detectable difference ---------------------------

MCNEMAR = [
    # b, c, method, statistic, p — exact: scipy.stats.binomtest(b, b+c, .5); chi2: Agresti
    # (2002) Table 10.1 (presidential approval, 150 vs 86), Edwards-corrected.
    (1, 9, "exact", None, 0.021484375),
    (0, 0, "exact", None, 1.0),
    (5, 5, "exact", None, 1.0),
    (2, 10, "exact", None, 0.0385742188),
    (12, 12, "exact", None, 1.0),
    (150, 86, "chi2", 16.8178, 4.1146e-05),
    (20, 5, "chi2", 7.84, 0.00510999),
]


@pytest.mark.parametrize(("b", "c", "method", "statistic", "p"), MCNEMAR)
def test_mcnemar_matches_references(b, c, method, statistic, p):
    got = mcnemar(b, c)
    assert got.method == method
    if statistic is None:
        assert got.statistic is None
    else:
        assert got.statistic == pytest.approx(statistic, abs=1e-4)
    assert got.p_value == pytest.approx(p, rel=1e-4)


def test_mcnemar_switches_to_chi2_at_25_discordant_and_is_symmetric():
    assert mcnemar(12, 12).method == "exact" and mcnemar(13, 12).method == "chi2"
    assert mcnemar(3, 17).p_value == mcnemar(17, 3).p_value
    with pytest.raises(ValueError):
        mcnemar(-1, 2)


@pytest.mark.parametrize(("p", "adjusted"), [
    # Holm (1979): step-down, monotone; values worked by hand from the definition.
    # multipletests(method="holm") output for the same vectors.
    ([0.01, 0.04, 0.03, 0.005], [0.03, 0.06, 0.06, 0.02]),
    ([0.5], [0.5]),
    ([0.2, 0.9, 0.01], [0.4, 0.9, 0.03]),
    ([0.04, 0.04], [0.08, 0.08]),
    ([], []),
])
def test_holm(p, adjusted):
    assert holm(p) == pytest.approx(adjusted)


@pytest.mark.parametrize(("discordance", "n"), [(0.1, 1960), (0.3, 5884)])
def test_paired_power_reproduces_domain_figures(discordance, n):
    # docs/METRICS.md#statistics: a 2-point difference needs ~2,000-5,900 paired items at 10-30% disagreement.
    assert round(paired_sample_size(0.02, discordance)) == n
    assert min_detectable_difference(n, discordance) == pytest.approx(0.02, abs=2e-5)


def test_unpaired_mdd_and_edge_cases():
    # two-sample, p = 0.5: n = (1.96 + 0.8416)^2 * 2 * 0.25 / 0.02^2 = 9,811 items per model
    assert min_detectable_difference_unpaired(9811, 0.5) == pytest.approx(0.02, abs=1e-5)
    assert min_detectable_difference(500, 0.0) is None
    assert min_detectable_difference(1, 0.2) is None  # too few items for any difference
    assert min_detectable_difference_unpaired(0, 0.5) is None
    bigger = min_detectable_difference(500, 0.3)
    assert bigger > min_detectable_difference(500, 0.1) > min_detectable_difference(5000, 0.1)


def test_bootstrap_is_seeded_and_close_to_wilson_without_clusters():
    hits = [True] * 200 + [False] * 200
    first = bootstrap_accuracy(hits, seed=3)
    assert first == bootstrap_accuracy(hits, seed=3)
    assert first != bootstrap_accuracy(hits, seed=4)
    low, high = wilson_interval(200, 400)
    assert first.value == 0.5 and first.n_resamples == 1000
    assert first.low == pytest.approx(low, abs=0.01) and first.high == pytest.approx(high, abs=0.01)


def test_clustered_bootstrap_is_wider_when_clusters_agree():
    # 40 images x 5 questions each, all questions of an image answered alike
    hits = [k % 2 == 0 for k in range(40) for _ in range(5)]
    groups = [f"img{k}" for k in range(40) for _ in range(5)]
    plain = bootstrap_accuracy(hits, seed=0)
    clustered = bootstrap_accuracy(hits, clusters=groups, seed=0)
    assert clustered.clusters == 40 and plain.clusters == 200
    # the effective sample is 40, not 200: the interval is about sqrt(5) times wider
    ratio = (clustered.high - clustered.low) / (plain.high - plain.low)
    assert 1.7 < ratio < 2.8


def test_macro_bootstrap_weighs_strata_equally():
    hits = [True] * 90 + [False] * 10 + [False] * 10  # capability a: 90/100, b: 0/10
    strata = ["a"] * 100 + ["b"] * 10
    macro = bootstrap_accuracy(hits, strata=strata, seed=0)
    assert macro.value == pytest.approx(0.45)
    assert macro.low < 0.45 < macro.high
    assert bootstrap_accuracy(hits, seed=0).value == pytest.approx(90 / 110)


def test_cluster_draws_take_whole_clusters():
    sample = cluster_draws(["g1", "g1", "g2", "g3"], 50, seed=1)
    assert sample.draws.shape == (50, 3) and list(sample.index) == [0, 0, 1, 2]
    assert (sample.draws.sum(axis=1) == 3).all()  # three clusters per replicate
    # both members of g1 count each time g1 is drawn
    assert (sample.totals([1, 1, 0, 0]) == 2 * sample.draws[:, 0]).all()


def test_paired_bootstrap_difference():
    a = [True] * 60 + [False] * 40
    b = [True] * 40 + [False] * 60
    diff = paired_bootstrap(a, b, seed=0)
    assert diff.value == pytest.approx(0.2)
    assert 0.1 < diff.low < 0.2 < diff.high < 0.3
    same = paired_bootstrap(a, a, seed=0)
    assert (same.value, same.low, same.high) == (0.0, 0.0, 0.0)
    with pytest.raises(ValueError):
        paired_bootstrap(a, b[:5])
    assert not math.isnan(diff.low)
