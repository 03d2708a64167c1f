"""Wilson intervals against reference values (scipy.stats.binomtest(...).proportion_ci
(method="wilson"), equal to Newcombe 1998, method 3)."""

from __future__ import annotations

import pytest

from bench_kit.eval.stats import mean_or_none, proportion, wilson_interval

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
