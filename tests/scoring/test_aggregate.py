"""Aggregation rules: errors out of n, parse failures wrong and counted, missing/extra
reported, vision gain arithmetic and per-group breakdowns."""

from __future__ import annotations

from datetime import datetime, timezone

import pytest
from conftest import make_item

from bench_kit.scoring.aggregate import (
    accuracy_block,
    model_metrics,
    plot_rows,
    summary_line,
)
from bench_kit.types import Item, Prediction, Score

CAPS = {"a1": "perception.count", "a2": "perception.count", "a3": "perception.ocr",
        "a4": "reasoning.compare", "a5": "reasoning.compare"}
LAYER = {"perception.count": "perception", "perception.ocr": "perception",
         "reasoning.compare": "reasoning"}


def _items() -> list[Item]:
    return [Item.model_validate(make_item(id=i, capability=c, layer=LAYER[c],
                                          difficulty="hard" if i == "a5" else "easy"))
            for i, c in CAPS.items()]


def _score(item_id: str, mode: str, *, hit: bool = False, parse: str = "ok",
           error: str | None = None, score: float | None = None) -> Score:
    return Score(id=item_id, model="m", mode=mode, metric="numeric",
                 extracted=None if parse == "failed" else "1", parse=parse,
                 score=float(hit) if score is None else score, hit=hit, error=error)


def _prediction(score: Score, *, cost: float = 0.5, latency: float = 1.0) -> Prediction:
    return Prediction(id=score.id, model="m", mode=score.mode, prompt_sha="x",
                      response=None if score.error else "1", error=score.error,
                      latency_s=latency, cost=cost, truncated=score.parse == "failed",
                      created_at=datetime(2026, 1, 1, tzinfo=timezone.utc))


def _metrics() -> dict:
    image = [_score("a1", "image", hit=True), _score("a2", "image", error="timeout"),
             _score("a3", "image", parse="failed"), _score("a4", "image", hit=True)]
    no_image = [_score(i, "no_image", hit=i == "a1") for i in CAPS]
    scores = {"image": image, "no_image": no_image}
    predictions = {mode: [_prediction(s) for s in rows] for mode, rows in scores.items()}
    return model_metrics("m", _items(), scores, predictions, {"image": 2})


def test_mode_counts_follow_the_rules():
    image = _metrics()["image"]
    assert {k: image[k] for k in ("n", "hits", "errors", "parse_failed", "missing", "extra",
                                  "items", "truncated")} == {
        "n": 3, "hits": 2, "errors": 1, "parse_failed": 1, "missing": 1, "extra": 2,
        "items": 5, "truncated": 1}
    assert image["accuracy"] == pytest.approx(2 / 3, abs=1e-6)
    assert image["ci_low"] < image["accuracy"] < image["ci_high"]
    assert image["cost"] == 2.0  # errors cost money too
    assert image["latency_s_mean"] == 1.0


def test_breakdowns_per_capability_layer_difficulty_task():
    image = _metrics()["image"]
    count = image["by_capability"]["perception.count"]
    assert (count["n"], count["hits"], count["errors"]) == (1, 1, 1)
    assert image["by_capability"]["perception.ocr"]["parse_failed"] == 1
    assert "hard" not in image["by_difficulty"]  # a5 has no image prediction
    assert image["by_layer"]["perception"]["n"] == 2
    assert image["by_task"]["numeric"]["n"] == 3
    assert image["by_variant_kind"]["original"]["n"] == 3
    # macro = mean of per-capability accuracies (1, 0, 1)
    assert image["accuracy_macro"] == pytest.approx(2 / 3, abs=1e-6)


def test_vision_gain_is_image_minus_no_image():
    metrics = _metrics()
    gain = metrics["vision_gain"]
    assert gain["overall"] == pytest.approx(2 / 3 - 1 / 5, abs=1e-6)
    assert gain["by_capability"] == {"perception.count": pytest.approx(1 - 0.5),
                                     "perception.ocr": 0.0, "reasoning.compare": 1.0}
    assert gain["by_layer"]["reasoning"] == 1.0
    assert "vision_gain_blank" not in metrics


def test_empty_group_has_no_accuracy_and_no_gain():
    scores = {"image": [_score("a1", "image", error="refused")],
              "no_image": [_score("a1", "no_image", hit=True)]}
    metrics = model_metrics("m", _items(), scores, {})
    assert metrics["image"]["accuracy"] is None and metrics["image"]["ci_low"] is None
    assert metrics["image"]["errors"] == 1 and metrics["image"]["n"] == 0
    assert metrics["vision_gain"]["overall"] is None
    assert metrics["vision_gain"]["by_capability"] == {"perception.count": None}


@pytest.mark.parametrize(("rows", "expected"), [
    ([], {"n": 0, "hits": 0, "errors": 0, "parse_failed": 0, "accuracy": None}),
    ([("ok", True, None), ("failed", False, None)],
     {"n": 2, "hits": 1, "errors": 0, "parse_failed": 1, "accuracy": 0.5}),
    ([("ok", True, "timeout"), ("lenient", True, None)],
     {"n": 1, "hits": 1, "errors": 1, "parse_failed": 0, "accuracy": 1.0}),
])
def test_accuracy_block(rows, expected):
    block = accuracy_block([_score("a1", "image", parse=p, hit=h, error=e) for p, h, e in rows])
    assert {k: block[k] for k in expected} == expected


def test_plot_rows_and_summary_line():
    metrics = _metrics()
    rows = plot_rows(metrics)
    assert rows[0] == {"model": "m", "mode": "image", "capability": "perception.count",
                       "accuracy": 1.0}
    assert {r["mode"] for r in rows} == {"image", "no_image"}
    line = summary_line(metrics)
    assert line.startswith("image 2/3 = 66.7% (1 parse failures, 1 errors, 1 missing, 2 extra)")
    assert "no_image 1/5 = 20.0% (0 parse failures, 0 errors)" in line
    assert line.endswith("vision gain +46.7 pts")


def test_blank_image_gain():
    scores = {"image": [_score("a1", "image", hit=True)],
              "blank_image": [_score("a1", "blank_image")]}
    metrics = model_metrics("m", _items(), scores, {})
    assert metrics["vision_gain_blank"]["overall"] == 1.0
    assert "vision_gain" not in metrics


def test_wilson_intervals_follow_alpha():
    items = _items()
    scores = [_score(i.id, "image", hit=n < 3) for n, i in enumerate(items)]
    preds = [_prediction(s) for s in scores]
    wide = model_metrics("m", items, {"image": scores}, {"image": preds}, alpha=0.01)
    usual = model_metrics("m", items, {"image": scores}, {"image": preds})
    assert (wide["ci_level"], usual["ci_level"]) == (0.99, 0.95)
    assert wide["image"]["ci_low"] < usual["image"]["ci_low"] < 0.6
    assert wide["image"]["ci_high"] > usual["image"]["ci_high"] > 0.6
    # 3/5 at 99%, by hand: z = 2.5758, centre 0.54298, half-width 0.37432.
    assert wide["image"]["ci_low"] == pytest.approx(0.1687, abs=1e-4)
