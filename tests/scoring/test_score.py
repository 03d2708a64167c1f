"""`bench-kit eval score`: per-item scores and metrics from hand-made predictions, with the
real per-item scorer (bench_kit.scoring.item)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner
from conftest import make_item, write_png

from bench_kit.cli import cli
from bench_kit.io import read_json, write_jsonl
from bench_kit.scoring.item import ScoreSettings
from bench_kit.scoring.stage import read_scores, score_model

ITEMS = [
    make_item(id="q1", task="mc", question="Which colour is the circle?",
              choices={"A": "red", "B": "blue", "C": "green"}, answers=["B"],
              capability="perception.colour", image="img/a.png"),
    make_item(id="q2", task="yesno", question="Is there a square?", answers=["yes"],
              capability="perception.shape", image="img/a.png"),
    make_item(id="q3", question="How many circles are there?", answers=["3"],
              capability="perception.count", image="img/a.png"),
    make_item(id="q4", task="mc", question="Which bar is taller?",
              choices={"A": "left", "B": "right"}, answers=["A"], layer="reasoning",
              capability="reasoning.compare", difficulty="hard", image="img/b.png"),
    make_item(id="q5", task="grounding", question="Where is the red circle?",
              answers=["10,10,50,40"], capability="perception.grounding", image="img/b.png"),
    make_item(id="q6", task="yesno", question="Is there a dog?", answers=["no"],
              layer="alignment", capability="alignment.absent_object", image="img/a.png"),
]

# mode -> [(id, response, error)]
PREDICTIONS = {
    "image": [("q1", "The answer is B.", None),
              ("q2", None, "timeout after 60 s"),
              ("q3", "I cannot tell from here.", None),
              ("q4", "<think>Maybe B? No, the left one is taller.</think>\nA", None),
              ("q5", "[10, 10, 50, 40]", None),
              ("zz", "A", None)],                         # not an item: extra
    "no_image": [("q1", "A", None), ("q2", "Yes.", None), ("q3", "3", None),
                 ("q4", "B", None), ("q5", "I can't see any image.", None),
                 ("q6", "No.", None)],
}


def _prediction(item_id: str, mode: str, response: str | None, error: str | None,
                model: str = "m", rotation: int = 0) -> dict:
    return {"id": item_id, "model": model, "mode": mode, "rotation": rotation,
            "prompt_sha": "abc", "response": response, "error": error, "latency_s": 0.5,
            "tokens_in": 10, "tokens_out": 2, "cost": 0.001, "cached": False,
            "truncated": False, "created_at": "2026-11-01T00:00:00Z",
            "protocol": {"prompt_version": 1}}          # runner extras are tolerated


@pytest.fixture
def bench(tmp_path) -> dict[str, Path]:
    root = tmp_path / "datasets" / "demo"
    write_png(root / "img" / "a.png", size=(64, 48))
    write_png(root / "img" / "b.png", size=(100, 50))
    write_jsonl(root / "items.jsonl", ITEMS)
    results = tmp_path / "results" / "m"
    for mode, rows in PREDICTIONS.items():
        write_jsonl(results / f"{mode}.jsonl", [_prediction(i, mode, r, e) for i, r, e in rows])
    params = tmp_path / "params.yaml"
    params.write_text("score:\n  numeric_tolerance: 0.0\n  iou_threshold: 0.5\n")
    return {"items": root / "items.jsonl", "results": results, "out": tmp_path / "scores" / "m",
            "metrics": tmp_path / "metrics" / "m.json", "plots": tmp_path / "plots" / "m.json",
            "params": params, "tmp": tmp_path}


def _args(b: dict[str, Path], model: str = "m") -> list[str]:
    return ["eval", "score", "--items", str(b["items"]), "--model", model,
            "--results", str(b["results"]), "--out", str(b["out"]),
            "--metrics", str(b["metrics"]), "--plots", str(b["plots"]),
            "--params", str(b["params"])]


def test_scores_and_metrics_follow_the_rules(bench):
    result = CliRunner().invoke(cli, _args(bench))
    assert result.exit_code == 0, result.output
    assert result.output.strip() == (
        "score m: image 3/4 = 75.0% (1 parse failures, 1 errors, 1 missing, 1 extra); "
        "no_image 3/6 = 50.0% (1 parse failures, 0 errors); vision gain +25.0 pts -> "
        f"{bench['metrics']}")
    metrics = read_json(bench["metrics"])
    image, no_image = metrics["image"], metrics["no_image"]
    assert {k: image[k] for k in ("n", "hits", "errors", "parse_failed", "missing", "extra")} \
        == {"n": 4, "hits": 3, "errors": 1, "parse_failed": 1, "missing": 1, "extra": 1}
    assert (no_image["n"], no_image["hits"], no_image["missing"]) == (6, 3, 0)
    assert image["ci_low"] < 0.75 < image["ci_high"]
    assert metrics["vision_gain"]["overall"] == 0.25
    by_cap = image["by_capability"]
    assert by_cap["perception.shape"] == {"accuracy": None, "ci_low": None, "ci_high": None,
                                          "n": 0, "hits": 0, "parse_failed": 0, "errors": 1,
                                          "unsupported": 0}
    assert by_cap["perception.count"]["parse_failed"] == 1
    assert "alignment.absent_object" not in by_cap  # q6 has no image prediction
    assert metrics["vision_gain"]["by_capability"] == {
        "perception.colour": 1.0, "perception.count": -1.0, "perception.grounding": 1.0,
        "perception.shape": None, "reasoning.compare": 1.0}
    assert image["by_layer"]["reasoning"]["hits"] == 1
    assert image["by_difficulty"]["hard"]["n"] == 1
    assert image["cost"] == pytest.approx(0.005)  # every prediction of an item, errors too


def test_score_rows(bench):
    score_model(bench["items"], bench["results"], bench["out"], bench["metrics"], model="m",
                settings=ScoreSettings())
    rows = {s.id: s for s in read_scores(bench["out"] / "image.jsonl")}
    assert list(rows) == ["q1", "q2", "q3", "q4", "q5"]  # items order, no extra
    assert (rows["q1"].hit, rows["q1"].extracted, rows["q1"].parse) == (True, "B", "ok")
    assert rows["q2"].error == "timeout after 60 s" and not rows["q2"].hit
    assert rows["q3"].parse == "failed" and rows["q3"].extracted is None
    assert rows["q4"].hit and rows["q4"].extracted == "A"  # <think> block ignored
    assert rows["q5"].hit and rows["q5"].score == pytest.approx(1.0)
    assert {r.model for r in rows.values()} == {"m"} and {r.mode for r in rows.values()} \
        == {"image"}


def test_outputs_are_deterministic_and_plots_written(bench):
    runner = CliRunner()
    runner.invoke(cli, _args(bench))
    first = {p: p.read_bytes() for p in (bench["metrics"], bench["plots"],
                                         bench["out"] / "image.jsonl")}
    runner.invoke(cli, _args(bench))
    assert all(p.read_bytes() == data for p, data in first.items())
    text = bench["metrics"].read_text()
    assert list(json.loads(text)) == sorted(json.loads(text))  # sorted keys
    plots = read_json(bench["plots"])
    assert {"model": "m", "mode": "image", "capability": "perception.colour",
            "accuracy": 1.0} in plots
    assert all(set(r) == {"model", "mode", "capability", "accuracy"} for r in plots)


def test_circular_eval_needs_every_rotation_right(bench):
    # q1 asked 3 times with options rotated: gold B shows as B, A, C at rotations 0, 1, 2
    rows = [_prediction("q1", "image", "B", None), _prediction("q1", "image", "A", None,
                                                               rotation=1),
            _prediction("q1", "image", "C", None, rotation=2),
            _prediction("q4", "image", "A", None),
            _prediction("q4", "image", "A", None, rotation=1)]  # gold A shows as B
    write_jsonl(bench["results"] / "image.jsonl", rows)
    (bench["results"] / "no_image.jsonl").unlink()
    score_model(bench["items"], bench["results"], bench["out"], bench["metrics"], model="m")
    scores = {s.id: s for s in read_scores(bench["out"] / "image.jsonl")}
    assert scores["q1"].hit and scores["q1"].extracted == "B,B,B"
    assert not scores["q4"].hit and scores["q4"].extracted == "A,B"
    metrics = read_json(bench["metrics"])
    assert metrics["image"]["n"] == 2 and metrics["image"]["cost"] == pytest.approx(0.005)


def _rewrite(path: Path, lines: list[str]) -> None:
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")


BAD_INPUTS = [
    ("missing results", lambda b: [p.unlink() for p in b["results"].iterdir()]
     and b["results"].rmdir(), "results folder not found"),
    ("empty results", lambda b: [p.unlink() for p in b["results"].iterdir()],
     "no predictions file"),
    ("malformed line", lambda b: _rewrite(b["results"] / "no_image.jsonl",
                                          [json.dumps(_prediction("q1", "no_image", "A", None)),
                                           "{not json"]),
     "no_image.jsonl:2: malformed JSON"),
    ("missing field", lambda b: _rewrite(b["results"] / "image.jsonl", ['{"id": "q1"}']),
     "image.jsonl:1: field 'model'"),
    ("other model", lambda b: write_jsonl(b["results"] / "image.jsonl",
                                          [_prediction("q1", "image", "A", None, model="x")]),
     "image.jsonl:1: field 'model': prediction of model 'x' in the results of 'm'"),
    ("mode mismatch", lambda b: write_jsonl(b["results"] / "image.jsonl",
                                            [_prediction("q1", "no_image", "A", None)]),
     "image.jsonl:1: field 'mode'"),
    ("incomplete rotations", lambda b: write_jsonl(
        b["results"] / "image.jsonl", [_prediction("q1", "image", "A", None),
                                       _prediction("q1", "image", "A", None, rotation=2)]),
     "image.jsonl: field 'rotation': item 'q1': CircularEval rotations [0, 2] are incomplete"),
    ("missing image", lambda b: (b["items"].parent / "img" / "b.png").unlink(),
     "items.jsonl: field 'image': item 'q5': cannot read the size of image 'img/b.png'"),
    ("bad params", lambda b: b["params"].write_text("score:\n  iou_threshold: lots\n"),
     "score.iou_threshold"),
]


@pytest.mark.parametrize(("case", "breakage", "message"), BAD_INPUTS,
                         ids=[c[0] for c in BAD_INPUTS])
def test_bad_inputs_give_one_line_and_no_outputs(bench, case, breakage, message):
    breakage(bench)
    result = CliRunner().invoke(cli, _args(bench))
    assert result.exit_code == 1, result.output
    lines = result.output.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: "), result.output
    assert message in lines[0]
    for path in (bench["out"], bench["metrics"], bench["plots"]):
        assert not path.exists(), f"{case}: partial output {path}"


def test_help_has_an_example():
    result = CliRunner().invoke(cli, ["eval", "score", "--help"])
    assert result.exit_code == 0
    assert "bench-kit eval score --items" in result.output


def test_a_mode_no_longer_run_leaves_no_stale_scores(bench):
    score_model(bench["items"], bench["results"], bench["out"], bench["metrics"], model="m")
    assert (bench["out"] / "no_image.jsonl").exists()
    (bench["results"] / "no_image.jsonl").unlink()
    score_model(bench["items"], bench["results"], bench["out"], bench["metrics"], model="m")
    assert not (bench["out"] / "no_image.jsonl").exists()
    assert "no_image" not in read_json(bench["metrics"])


def test_duplicated_rows_are_counted_and_the_first_kept(bench):
    rows = [_prediction("q1", "image", "B", None), _prediction("q1", "image", "A", None),
            _prediction("q1", "image", "B", None), _prediction("q2", "image", "yes", None)]
    write_jsonl(bench["results"] / "image.jsonl", rows)
    result = CliRunner().invoke(cli, _args(bench))
    assert result.exit_code == 0, result.output
    assert "image 2/2 = 100.0% (0 parse failures, 0 errors, 4 missing, 2 duplicated)" \
        in result.output
    image = read_json(bench["metrics"])["image"]
    assert (image["n"], image["duplicated"], image["missing"], image["coverage"]) == \
        (2, 2, 4, round(2 / 6, 6))


def test_unsupported_items_are_counted_apart_from_errors(bench):
    rows = [_prediction("q1", "image", "B", None),
            _prediction("q2", "image", None, "unsupported: 2 images for a single-image model"),
            _prediction("q3", "image", None, "HTTP 503 after 3 retries"),
            _prediction("q4", "image", "B", None)]
    write_jsonl(bench["results"] / "image.jsonl", rows)
    result = CliRunner().invoke(cli, _args(bench))
    assert result.exit_code == 0, result.output
    assert "image 1/2 = 50.0% (0 parse failures, 1 errors, 1 unsupported, 2 missing)" \
        in result.output
    image = read_json(bench["metrics"])["image"]
    assert (image["n"], image["errors"], image["unsupported"]) == (2, 1, 1)
    assert image["by_capability"]["perception.shape"]["unsupported"] == 1


def test_strict_accuracy_sits_next_to_the_lenient_one(bench):
    rows = [_prediction("q1", "image", "B", None),                       # ok hit
            _prediction("q4", "image", "Looking closely, the left bar wins, so A seems "
                                       "right.", None),                 # lenient hit
            _prediction("q2", "image", "no", None)]                      # ok miss
    write_jsonl(bench["results"] / "image.jsonl", rows)
    score_model(bench["items"], bench["results"], bench["out"], bench["metrics"], model="m")
    image = read_json(bench["metrics"])["image"]
    assert (image["hits"], image["hits_strict"], image["hits_lenient"]) == (2, 1, 1)
    assert (image["accuracy"], image["accuracy_strict"]) == (round(2 / 3, 6), round(1 / 3, 6))
    parses = {s.id: s.parse for s in read_scores(bench["out"] / "image.jsonl")}
    assert parses == {"q1": "ok", "q2": "ok", "q4": "lenient"}


def _foreign_args(b: dict[str, Path], path: Path, *extra: str) -> list[str]:
    return ["eval", "score", "--items", str(b["items"]), "--model", "other",
            "--predictions", str(path), "--out", str(b["out"]), "--metrics",
            str(b["metrics"]), "--params", str(b["params"]), *extra]


def test_foreign_predictions_need_only_id_and_response(bench):
    foreign = bench["tmp"] / "other.jsonl"
    write_jsonl(foreign, [{"id": "q1", "response": "B", "logprob": -0.1},
                          {"id": "q3", "response": 3},
                          {"id": "q6", "response": "No"},
                          {"id": "q2", "response": None, "error": "timeout"}])
    result = CliRunner().invoke(cli, _foreign_args(bench, foreign, "--mode", "no_image"))
    assert result.exit_code == 0, result.output
    assert "no_image 3/3 = 100.0% (0 parse failures, 1 errors, 2 missing)" in result.output
    rows = read_scores(bench["out"] / "no_image.jsonl")
    assert [(r.id, r.model, r.mode, r.hit) for r in rows] == [
        ("q1", "other", "no_image", True), ("q2", "other", "no_image", False),
        ("q3", "other", "no_image", True), ("q6", "other", "no_image", True)]
    first = bench["metrics"].read_bytes()
    CliRunner().invoke(cli, _foreign_args(bench, foreign, "--mode", "no_image"))
    assert bench["metrics"].read_bytes() == first


@pytest.mark.parametrize(("rows", "message"), [
    ([{"response": "B"}], "other.jsonl:1: field 'id': a predictions row needs 'id'"),
    ([{"id": "q1"}], "other.jsonl:1: field 'response'"),
    ([{"id": "q1", "response": "B", "model": "m"}],
     "field 'model': prediction of model 'm' in the results of 'other'"),
    ([{"id": "q1", "response": "B", "mode": "no_image"}], "field 'mode'"),
])
def test_bad_foreign_rows_give_one_line(bench, rows, message):
    foreign = bench["tmp"] / "other.jsonl"
    write_jsonl(foreign, rows)
    result = CliRunner().invoke(cli, _foreign_args(bench, foreign))
    assert result.exit_code == 1
    assert message in result.output and len(result.output.strip().splitlines()) == 1
    assert not bench["metrics"].exists()


@pytest.mark.parametrize("extra", [[], ["--results", "somewhere"]])
def test_results_or_predictions_exactly_one(bench, extra):
    args = ["eval", "score", "--items", str(bench["items"]), "--model", "m", "--out",
            str(bench["out"]), "--metrics", str(bench["metrics"]), "--params",
            str(bench["params"])]
    if extra:
        args += extra + ["--predictions", str(bench["tmp"] / "x.jsonl")]
    result = CliRunner().invoke(cli, args)
    assert result.exit_code == 2
    assert "exactly one of --results DIR and --predictions FILE" in result.output


def test_format_json_prints_the_summary_on_stdout(bench):
    result = CliRunner().invoke(cli, _args(bench) + ["--format", "json"])
    assert result.exit_code == 0, result.stderr
    summary = json.loads(result.stdout)
    assert summary["model"] == "m" and summary["metrics_path"] == str(bench["metrics"])
    image = summary["modes"]["image"]
    assert {k: image[k] for k in ("n", "hits", "errors", "missing", "extra")} == \
        {"n": 4, "hits": 3, "errors": 1, "missing": 1, "extra": 1}
    assert summary["vision_gain"] == 0.25
    assert result.stderr == ""


def test_box_format_of_the_model_scales_boxes(tmp_path):
    """A 0-1000 box that fits inside the image reads as pixels under `auto` but on the grid
    when the model declares `box_format: norm1000`."""
    from bench_kit.models.config import ModelConfig, model_box_format
    from bench_kit.scoring.stage import score_predictions

    root = tmp_path / "bench"
    write_png(root / "img" / "a.png", size=(640, 480))
    write_jsonl(root / "items.jsonl", [make_item(
        id="g1", task="grounding", question="Where is the cat?", answers=["64,48,128,96"],
        capability="perception.grounding", image="img/a.png")])
    preds = tmp_path / "preds.jsonl"
    write_jsonl(preds, [{"id": "g1", "response": "[100, 100, 200, 200]"}])
    hits = {}
    for box_format in ("auto", "norm1000"):
        run = score_predictions(root / "items.jsonl", preds, tmp_path / box_format,
                                tmp_path / f"{box_format}.json", model="m",
                                box_format=box_format)
        hits[box_format] = run.metrics["image"]["hits"]
    assert hits == {"auto": 0, "norm1000": 1}
    assert ModelConfig(adapter="chance", box_format="norm1").box_format == "norm1"
    with pytest.raises(ValueError):
        ModelConfig(adapter="chance", box_format="thousand")
    assert model_box_format({}, "not-configured") == "auto"
