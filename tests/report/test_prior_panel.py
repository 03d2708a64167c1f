"""The vision section's blind-accuracy-per-template table (the `prior` baseline first)."""

from __future__ import annotations

from datetime import datetime, timezone

from conftest import make_item

from bench_kit.report.inputs import ModelRun
from bench_kit.report.panels import prior_by_template
from bench_kit.types import Item, Prediction, Score


def _items() -> list[Item]:
    rows = [("absent.1", "absent", "0"), ("absent.2", "absent", "0"), ("absent.3", "absent", "1"),
            ("total.1", "total", "5"), ("total.2", "total", "4")]
    return [Item.model_validate(make_item(id=i, source=f"template:{t}", answers=[g]))
            for i, t, g in rows]


def _run(model: str, hits: dict[str, bool], prior: bool) -> ModelRun:
    scores = {i: Score(id=i, model=model, mode="no_image", metric="exact", extracted="x",
                       parse="ok", score=float(h), hit=h) for i, h in hits.items()}
    protocol = {"prior": "neighbours"} if prior else {"prompt_version": "builtin"}
    predictions = {i: Prediction(id=i, model=model, mode="no_image", prompt_sha="p",
                                 response="x", protocol=protocol,
                                 created_at=datetime(2026, 1, 1, tzinfo=timezone.utc))
                   for i in hits}
    return ModelRun(model, {}, {"no_image": scores}, {"no_image": predictions})


def test_templates_are_ranked_by_the_prior_models_blind_accuracy():
    prior = _run("prior", {"absent.1": True, "absent.2": True, "absent.3": False,
                           "total.1": False, "total.2": False}, prior=True)
    # A model that does better on `total` blind must not decide the order.
    other = _run("guess", {"absent.1": False, "absent.2": False, "absent.3": False,
                           "total.1": True, "total.2": True}, prior=False)
    image_only = ModelRun("seeing", {}, {"image": {}})
    panel = prior_by_template([other, prior, image_only], _items())
    assert panel["models"] == ["guess", "prior"] and panel["priors"] == ["prior"]
    rows = {r["template"]: r for r in panel["rows"]}
    assert [r["template"] for r in panel["rows"]] == ["absent", "total"]
    assert rows["absent"]["values"] == [0.0, round(2 / 3, 6)]
    assert rows["absent"]["items"] == 3 and rows["absent"]["top_gold"] == 2 / 3
    assert rows["total"]["top_gold"] == 0.5
    # Without a prior model the best blind accuracy orders the templates.
    fallback = prior_by_template([other], _items())
    assert fallback["priors"] == [] and fallback["rows"][0]["template"] == "total"
    assert prior_by_template([image_only], _items()) is None
