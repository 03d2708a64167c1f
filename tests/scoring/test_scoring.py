"""Per-item scoring: the case table tests/cases/score_item.json, checklist parsing, the
metric registry and the settings model."""

from __future__ import annotations

import pytest
from conftest import cases

from bench_kit.errors import ConfigError, InputError, UnknownNameError
from bench_kit.params import section
from bench_kit.scoring.extract.checklist import parse_checklist
from bench_kit.scoring.item import (
    DEFAULT_METRIC,
    METRICS,
    ItemScore,
    ScoreSettings,
    score_item,
    strip_reasoning,
)
from bench_kit.types import TASKS, Item

BASE = {"id": "q1", "question": "What is shown?", "capability": "perception.shape",
        "layer": "perception", "difficulty": "easy", "created_at": "2026-11-01T00:00:00Z"}


def make_item(**fields) -> Item:
    return Item.model_validate({**BASE, **fields})


@pytest.mark.parametrize("case", cases("score_item"))
def test_score_item(case):
    size = tuple(case["image_size"]) if "image_size" in case else None
    settings = ScoreSettings(**case["settings"]) if "settings" in case else None
    result = score_item(make_item(**case["item"]), case["response"], image_size=size,
                        settings=settings)
    expected = case["expected"]
    assert isinstance(result, ItemScore)
    assert (result.metric, result.extracted, result.parse, result.hit) == \
        (expected["metric"], expected["extracted"], expected["parse"], expected["hit"])
    assert result.score == pytest.approx(expected["score"])


@pytest.mark.parametrize("case", cases("parse_checklist"))
def test_parse_checklist(case):
    assert parse_checklist(case["response"], case["names"]) == case["expected"]


def test_every_task_has_a_registered_default_metric():
    assert set(DEFAULT_METRIC) == set(TASKS)
    for name in DEFAULT_METRIC.values():
        assert name in METRICS


def test_registered_metrics():
    assert {"accuracy", "choice", "yesno", "exact", "contains", "numeric", "relaxed", "anls",
            "vqa", "iou", "mmmu_open", "checklist"} <= set(METRICS.names())


def test_unknown_metric_names_the_known_ones():
    item = make_item(task="open", answers=["cat"], metric="acuracy")
    with pytest.raises(UnknownNameError, match="did you mean 'accuracy'"):
        score_item(item, "cat")


def test_non_numeric_gold_of_a_numeric_item_is_an_input_error():
    item = make_item(id="n7", task="numeric", answers=["many"])
    with pytest.raises(InputError, match="n7") as info:
        score_item(item, "3")
    assert info.value.field == "answers"


def test_bad_grounding_gold_is_an_input_error():
    item = make_item(id="g1", task="grounding", answers=["10,20,30"])
    with pytest.raises(InputError, match="x1,y1,x2,y2") as info:
        score_item(item, "[1, 2, 3, 4]", image_size=(64, 64))
    assert info.value.field == "answers"


def test_unknown_chart_unit_is_an_input_error_naming_the_item():
    item = make_item(id="c3", task="open", metric="relaxed", answers=["12"],
                     meta={"chart_unit": "kilo"})
    with pytest.raises(InputError, match="c3.*'kilo'") as info:
        score_item(item, "12")
    assert info.value.field == "meta.chart_unit"


def test_grounding_needs_the_image_size_only_to_read_a_box():
    item = make_item(id="g2", task="grounding", answers=["0,0,10,10"])
    assert score_item(item, "").parse == "failed"  # an error row: nothing to convert
    with pytest.raises(InputError, match="image size") as info:
        score_item(item, "[0, 0, 10, 10]")
    assert info.value.field == "image"


def test_failed_parse_scores_zero_without_extracted_answer():
    item = make_item(task="numeric", answers=["0"])
    result = score_item(item, "I cannot count them.")
    assert result == ItemScore("numeric", None, "failed", 0.0, False)


def test_score_settings_come_from_the_params_section():
    settings = section({"score": {"numeric_tolerance": 0.5, "iou_threshold": 0.75}}, "score",
                       ScoreSettings)
    assert (settings.numeric_tolerance, settings.iou_threshold) == (0.5, 0.75)
    assert section({}, "score", ScoreSettings) == ScoreSettings()


@pytest.mark.parametrize("bad", [{"iou_threshold": 0}, {"numeric_tolerance": -1},
                                 {"iou_treshold": 0.5}])
def test_bad_score_settings_name_the_key(bad):
    with pytest.raises(ConfigError, match="score"):
        section({"score": bad}, "score", ScoreSettings)


def test_strip_reasoning_is_exported():
    assert strip_reasoning("<think>B?</think>C") == "C"
