"""Metric definitions: the case tables in tests/cases/, plus argument checks."""

from __future__ import annotations

import pytest
from conftest import cases

from bench_kit.errors import BenchKitError, InputError
from bench_kit.scoring.metrics.answers import (
    MME_COGNITION,
    MME_PERCEPTION,
    anls,
    auroc,
    iou,
    levenshtein,
    mme,
    mmmu_open_match,
    pope,
    relaxed_match,
    vqa_accuracy,
)


@pytest.mark.parametrize("case", cases("relaxed_match"))
def test_relaxed_match(case):
    assert relaxed_match(case["pred"], case["gold"], case.get("tolerance", 0.05),
                         chart_unit=case.get("chart_unit", 1.0),
                         multipliers=case.get("multipliers", "magnitude")) \
        is case["expected"]


@pytest.mark.parametrize("case", cases("anls"))
def test_anls(case):
    assert anls(case["pred"], case["golds"], case.get("threshold", 0.5)) \
        == pytest.approx(case["expected"])


@pytest.mark.parametrize("case", cases("vqa_accuracy"))
def test_vqa_accuracy(case):
    assert vqa_accuracy(case["pred"], case["golds"]) == pytest.approx(case["expected"])


@pytest.mark.parametrize("case", cases("iou"))
def test_iou(case):
    assert iou(case["a"], case["b"]) == pytest.approx(case["expected"])
    assert iou(case["b"], case["a"]) == pytest.approx(case["expected"])


@pytest.mark.parametrize("case", cases("pope"))
def test_pope(case):
    result = pope(case["golds"], case["preds"])
    assert set(result) == set(case["expected"])
    for key, value in case["expected"].items():
        assert result[key] == pytest.approx(value), key


@pytest.mark.parametrize("case", cases("mme"))
def test_mme(case):
    assert mme(case["rows"]) == case["expected"]  # every value here is exact in binary


@pytest.mark.parametrize("case", cases("mmmu_open_match"))
def test_mmmu_open_match(case):
    assert mmmu_open_match(case["response"], case["golds"]) is case["expected"]


def test_gsm8k_marker_survives_cleaning_but_headings_do_not():
    """The scorer reads the cleaned response: GSM8K's closing "#### 72" stays an answer
    line there, while a Markdown heading's marker is still removed."""
    from bench_kit.scoring.extract.response import clean_response

    text = "Natalia sold 48/2 = <<48/2=24>>24 clips in May.\n#### 72"
    assert clean_response(text).endswith("#### 72")
    assert mmmu_open_match(clean_response(text), ["72"])
    assert not mmmu_open_match(clean_response(text), ["24"])
    assert clean_response("#### Step 1\nThe total is 72.\n#### Answer") == \
        "Step 1\nThe total is 72.\nAnswer"


@pytest.mark.parametrize("case", cases("auroc"))
def test_auroc(case):
    assert auroc(case["scores"], case["labels"]) == pytest.approx(case["expected"])


def test_mme_category_lists_are_the_standard_ones():
    assert len(MME_PERCEPTION) == 10 and len(MME_COGNITION) == 4
    full = [{"image": f"{c}-{i}", "category": c, "hit": True}
            for c in MME_PERCEPTION + MME_COGNITION for i in range(3) for _ in range(2)]
    result = mme(full)
    assert (result["perception"], result["cognition"], result["total"]) == (2000, 800, 2800)


@pytest.mark.parametrize("a, b, expected", [
    ("kitten", "sitting", 3), ("", "abc", 3), ("abc", "abc", 0), ("flaw", "lawn", 2),
])
def test_levenshtein(a, b, expected):
    assert levenshtein(a, b) == expected == levenshtein(b, a)


@pytest.mark.parametrize("call", [
    lambda: auroc([0.1, 0.2], [1, 1]),
    lambda: auroc([0.1, 0.2], [0, 1, 1]),
    lambda: auroc([float("nan"), 0.2], [0, 1]),
    lambda: auroc([0.1, 0.2], [0, 2]),
    lambda: pope(["yes"], ["yes", "no"]),
    lambda: pope(["maybe"], ["yes"]),
    lambda: iou([0, 0, 1], [0, 0, 1, 1]),
    lambda: mme([{"image": "x", "hit": True}]),
], ids=["auroc one class", "auroc lengths", "auroc nan", "auroc label 2", "pope lengths",
        "pope gold", "iou three numbers", "mme no category"])
def test_bad_arguments_raise_a_user_error(call):
    with pytest.raises(InputError) as info:
        call()
    assert isinstance(info.value, BenchKitError) and str(info.value)
