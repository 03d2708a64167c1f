"""The variant gate on Chinese rewrites (bundled encoder + closed-class contrasts) and
English left as it was."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from bench_kit.authoring.gate import judge, score_pairs
from bench_kit.authoring.variants import VariantParams
from bench_kit.text.contrast import zh_contrasts

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def params() -> VariantParams:
    """The shipped `variants:` section."""
    raw = yaml.safe_load((ROOT / "params.yaml").read_text(encoding="utf-8"))
    return VariantParams(**raw["variants"])


def _verdict(params: VariantParams, kind: str, original: str, variant: str):
    ((cosine, ratio),) = score_pairs([(original, variant)])
    return cosine, params.judge(kind, original, variant, cosine, ratio)


def test_a_faithful_chinese_synonym_is_accepted(params):
    original, rewrite = "图表中哪个类别的数值最大？", "图表里哪一类的数值最高？"
    cosine, result = _verdict(params, "synonym", original, rewrite)
    # The English encoder alone under-rates it: the old gate rejected it.
    assert not judge(cosine, result.edit_ratio, params.limits("synonym")).accepted
    assert result.accepted, result.reason


@pytest.mark.parametrize("rewrite, differs", [
    ("图表中哪个类别的数值最小？", "extreme"),
    ("图中有几个白色的菱形？", None),
])
def test_a_chinese_meaning_change_is_rejected(params, rewrite, differs):
    original = ("图表中哪个类别的数值最大？" if differs else "图中有几个黑色的菱形？")
    _, result = _verdict(params, "synonym", original, rewrite)
    assert not result.accepted
    assert f"differs in {differs or 'colour'}" in (result.reason or "")


def test_kinds_that_change_the_meaning_on_purpose_are_not_penalised(params):
    original = "图中有黄色的正方形吗？"
    negated = "图中没有黄色的正方形吗？"
    assert zh_contrasts(original, negated) == ["negation"]
    _, as_negation = _verdict(params, "negation", original, negated)
    _, as_synonym = _verdict(params, "synonym", original, negated)
    assert as_negation.accepted, as_negation.reason
    assert not as_synonym.accepted


def test_english_is_judged_as_before(params):
    pairs = [("Which category has the largest value?", "Which category has the smallest value?"),
             ("How many red circles are there?", "What is the count of red circles?")]
    for (original, variant), (cosine, ratio) in zip(pairs, score_pairs(pairs)):
        for kind in ("synonym", "negation", "deixis"):
            assert (params.judge(kind, original, variant, cosine, ratio)
                    == judge(cosine, ratio, params.limits(kind)))


@pytest.mark.parametrize("a, b, differ", [
    ("从观看者的角度看，红色的圆形在绿色的五角星的左边吗？",
     "从观看者的角度看，绿色的五角星在红色的圆形的右边吗？", []),       # the converse
    ("从观看者的角度看，红色的圆形在绿色的五角星的左边吗？",
     "从观看者的角度看，绿色的五角星在红色的圆形的左边吗？", ["order"]),
    ("图中有紫色的菱形吗？", "请问画面里出现了紫色菱形没有？", []),         # a question tail
    ("图中有紫色的圆形吗？", "图中有紫色的三角形吗？", ["shape"]),
    ("图中有绿色的五角星吗？", "图中有不止一个绿色的五角星吗？", ["quantity"]),
])
def test_contrasts_read_chinese(a, b, differ):
    assert zh_contrasts(a, b) == differ
