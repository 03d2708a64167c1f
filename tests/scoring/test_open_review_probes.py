"""The open-answer probes of review json4 (the exact-gold verdict and the JSON answer
reading), with the reviewer's careful-reader answers (tests/cases/open_review_probes.json):
every probe reads as the reviewer reads it, except the recorded disagreements
("bench_kit"), which are strict expected failures (a fix makes the run fail until the
probe's record is removed)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from bench_kit.scoring.extract.response import clean_response
from bench_kit.scoring.metrics.answers import mmmu_open_match

CASES = json.loads((Path(__file__).parents[1] / "cases" / "open_review_probes.json")
                   .read_text(encoding="utf-8"))["cases"]


def _param(case: dict):
    """A probe; a recorded disagreement is a strict expected failure."""
    marks = [pytest.mark.xfail(strict=True, reason=f"reads {case['bench_kit']!r}")] \
        if "bench_kit" in case else []
    return pytest.param(case, id=case["probe"], marks=marks)


@pytest.mark.parametrize("case", [_param(case) for case in CASES])
def test_review_probe(case):
    """The reviewer's answer is the oracle, never the scorer's own reading."""
    response = case["response"]
    assert mmmu_open_match(clean_response(response), case["golds"], raw=response) \
        is case["expected"]
