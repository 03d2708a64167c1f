"""The number and open-answer probes of a review of the extraction rules, with the
reviewer's careful-reader answers (tests/cases/numbers_review_probes.json): every probe
reads as the reviewer reads it ("or_none": no number is also accepted; "accept": other values
also accepted), and the measuring harness's label comparison agrees with the reviewer, except the recorded
disagreements ("bench_kit"), which are strict expected failures (a fix makes the run fail
until the probe's record is removed)."""

from __future__ import annotations

import functools
import importlib.util
import json
from pathlib import Path

import pytest

from bench_kit.scoring.extract.numbers import answer_number
from bench_kit.scoring.metrics.answers import mmmu_open_match

PROBES = json.loads((Path(__file__).parents[1] / "cases" / "numbers_review_probes.json")
                    .read_text(encoding="utf-8"))


def _params(cases: list[dict]) -> list:
    """The probes; a recorded disagreement is a strict expected failure."""
    return [pytest.param(case, id=case["probe"], marks=[pytest.mark.xfail(
        strict=True, reason=f"reads {case['bench_kit']!r}")] if "bench_kit" in case else [])
        for case in cases]


@pytest.mark.parametrize("case", _params(PROBES["answer_number"]))
def test_answer_number_probe(case):
    """The reviewer's answer is the oracle, never the extractor's own reading."""
    value = answer_number(case["input"])[0].value
    expected = case["expected"]
    if value is None:
        assert expected is None or case.get("or_none", False)
    else:  # "accept": other values the reviewer also accepts ("0.5 or 50%": 0.5 or 50)
        assert any(value == pytest.approx(answer, rel=1e-9)
                   for answer in [expected, *case.get("accept", [])] if answer is not None)


@pytest.mark.parametrize("case", _params(PROBES["mmmu_open_match"]))
def test_mmmu_open_match_probe(case):
    assert mmmu_open_match(case["input"], case["golds"]) is case["expected"]


@functools.cache
def _harness():
    """benchmarks/intent_agreement.py, the measuring harness (a script, not a module)."""
    script = Path(__file__).resolve().parents[2] / "benchmarks" / "intent_agreement.py"
    spec = importlib.util.spec_from_file_location("intent_agreement_probes", script)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.mark.parametrize("case", _params(PROBES["label_is_correct"]))
def test_label_is_correct_probe(case):
    """The harness calls a reader's answer right only when the reviewer does."""
    row = {"golds": case["golds"], **{key: case[key] for key in ("answer_type", "precision")
                                      if key in case}}
    assert _harness().label_is_correct(case["input"], row) is case["expected"]
