"""The tests behind the model-audit verdicts: binomial tails, the max-over-wrong-answers
null, Benjamini–Hochberg."""

from __future__ import annotations

import numpy as np
import pytest

from bench_kit.audit.results.significance import (
    bh_qvalues,
    binomial_p_greater,
    false_call_bound,
    max_share_p,
)


def test_binomial_tail_is_scipys():
    from scipy.stats import binomtest

    for hits, n, chance in [(3, 4, 0.5), (7, 18, 0.25), (18, 18, 0.5), (1, 30, 0.1)]:
        expected = binomtest(hits, n, chance, alternative="greater").pvalue
        assert binomial_p_greater(hits, n, chance) == pytest.approx(expected, rel=1e-9)


@pytest.mark.parametrize("top, votes, p_right, wrong", [
    (4, 6, 0.25, 3), (5, 6, 0.25, 3), (3, 6, 0.1, 3), (5, 10, 0.3, 5), (2, 3, 0.2, 7),
    (6, 6, 0.5, 1),
])
def test_max_share_p_matches_a_simulation_of_its_null(top, votes, p_right, wrong):
    rng = np.random.default_rng(7)
    trials = 200_000
    right = rng.random((trials, votes)) < p_right
    cell = rng.integers(0, wrong, (trials, votes))
    counts = np.stack([((cell == c) & ~right).sum(axis=1) for c in range(wrong)], axis=1)
    simulated = (counts.max(axis=1) >= top).mean()
    assert max_share_p(top, votes, p_right, wrong) == pytest.approx(simulated, abs=0.004)


def test_the_maximum_costs_more_than_a_named_distractor():
    # "4 of 6 on one distractor" named in advance: P(Bin(6, 1/4) >= 4) = 0.038; the most
    # popular of three distractors reaches 4 about one time in nine
    assert binomial_p_greater(4, 6, 0.25) == pytest.approx(0.0376, abs=1e-4)
    assert max_share_p(4, 6, 0.25, 3) == pytest.approx(0.1128, abs=1e-4)


def test_bh_qvalues_match_scipy_and_bound_false_calls():
    from scipy.stats import false_discovery_control

    p = np.random.default_rng(3).random(50) ** 3
    assert bh_qvalues(list(p)) == pytest.approx(list(false_discovery_control(p)), abs=1e-4)
    assert bh_qvalues([]) == []
    assert false_call_bound([0.01, 0.04, 0.02]) == pytest.approx(0.12)
    assert false_call_bound([]) == 0.0


