"""The open-answer probes of review json4 (the exact-gold verdict and the JSON answer
reading), with the reviewer's careful-reader answers (tests/cases/open_review_probes.json):
every probe reads as the reviewer reads it, except the recorded disagreements
("bench_kit"), which are strict expected failures (a fix makes the run fail until the
probe's record is removed)."""

from __future__ import annotations

import pytest
from conftest import review_probes

from bench_kit.scoring.extract.response import clean_response
from bench_kit.scoring.metrics.answers import mmmu_open_match


@pytest.mark.parametrize("case", review_probes("open_review_probes"))
def test_review_probe(case):
    """The reviewer's answer is the oracle, never the scorer's own reading."""
    response = case["response"]
    assert mmmu_open_match(clean_response(response), case["golds"], raw=response) \
        is case["expected"]
