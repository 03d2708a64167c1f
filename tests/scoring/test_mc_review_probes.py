"""The multiple-choice probes of a review of the extraction rules, with the reviewer's
careful-reader answers (tests/cases/mc_review_probes.json): every probe reads as the
reviewer reads it, except the recorded disagreements ("bench_kit"), which are strict
expected failures (a fix makes the run fail until the probe's record is removed)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from bench_kit.scoring.extract.answers import extract_choice

CASES = json.loads((Path(__file__).parents[1] / "cases" / "mc_review_probes.json")
                   .read_text(encoding="utf-8"))["cases"]


def _param(case: dict):
    """A probe; a recorded disagreement is a strict expected failure."""
    marks = [pytest.mark.xfail(strict=True, reason=f"reads {case['bench_kit']!r}")] \
        if "bench_kit" in case else []
    return pytest.param(case, id=case["probe"], marks=marks)


@pytest.mark.parametrize("case", [_param(case) for case in CASES])
def test_review_probe(case):
    """The reviewer's answer is the oracle, never the extractor's own reading."""
    assert extract_choice(case["input"], case["choices"], case["question"]) == case["expected"]
