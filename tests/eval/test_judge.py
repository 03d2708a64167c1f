"""The LLM judge against a real OpenAI-compatible server returning scripted verdicts."""

from __future__ import annotations

import doctest
import importlib
import json
from pathlib import Path

import pytest
import yaml
from click.testing import CliRunner
from conftest import make_item, write_png
from openai_server import FakeOpenAI

from bench_kit.cli import cli
from bench_kit.errors import ConfigError, InputError
from bench_kit.eval.judge import judge_item, judge_responses
from bench_kit.eval.judge_rubric import judge_prompt, parse_verdicts, rubric_dimensions
from bench_kit.io import read_json, read_jsonl, write_jsonl
from bench_kit.items import read_items

RUBRIC = "- accuracy: names the colour red\n- brevity: at most three words"


@pytest.fixture
def server():
    with FakeOpenAI() as running:
        yield running


def _setup(tmp_path: Path, url: str, rubrics: dict | None = None) -> tuple[Path, Path, Path]:
    rows = [make_item(id="q1", task="open", question="What colour? [scenario:verdict]",
                      answers=["red"], rubric=RUBRIC),
            make_item(id="q2", task="open", question="Which shape? [scenario:verdict]",
                      answers=["circle"], capability="perception.shape"),
            make_item(id="q3", task="open", question="Any text? [scenario:verdict]",
                      answers=["exit"], capability="reading.ocr")]
    items = tmp_path / "items.jsonl"
    write_jsonl(items, rows)
    results = tmp_path / "results" / "vlm"
    write_jsonl(results / "image.jsonl", [
        {"id": "q1", "response": "<think>hmm</think>Red."},
        {"id": "q2", "response": "A circle."},
        {"id": "q3", "response": None, "error": "HTTP 503"}])
    params = tmp_path / "params.yaml"
    params.write_text(yaml.safe_dump({
        "eval": {"cache": str(tmp_path / "cache.sqlite"), "models": {"grader": {
            "adapter": "openai", "model": "judge-llm", "base_url": url, "concurrency": 1,
            "backoff_s": 0, "max_retries": 0, "price_input": 1.0, "price_output": 0.0}}},
        "judge": {"model": "grader", "rubrics": rubrics or {"perception": "Names the shape.",
                                                            "reading": "Reads the text."},
                  }}))
    return items, results, params


def test_verdicts_parse_per_dimension_and_failures_are_counted(server, tmp_path) -> None:
    items, results, params = _setup(tmp_path, server.url)
    server.verdicts = ["accuracy: pass - says red\nbrevity: fail - it rambles",
                       "The shape looks right to me."]
    run = judge_responses(read_items(items), read_jsonl(results / "image.jsonl"),
                          judge="grader", model="vlm", params=params)
    one, two, three = run.verdicts
    assert (one.parse, one.verdicts, one.score, one.hit) == \
        ("ok", {"accuracy": True, "brevity": False}, 0.5, False)
    assert one.reasons == {"accuracy": "says red", "brevity": "it rambles"}
    assert (one.judge, one.judge_model, one.prompt_version) == ("grader", "judge-llm", "judge/1")
    assert one.cost == pytest.approx(0.001) and one.tokens_in == 1000
    assert (two.parse, two.verdicts, two.score, two.hit) == ("failed", None, None, None)
    assert two.reply == "The shape looks right to me." and two.dimensions == ["correctness"]
    assert (three.parse, three.error) == (None, "prediction failed: HTTP 503")
    assert server.count() == 2
    sent = server.requests[0]["body"]["messages"][0]["content"]
    assert "Model answer: Red." in sent and "hmm" not in sent  # reasoning left out
    assert "Reference answer: red" in sent and "Dimensions: accuracy, brevity" in sent
    metrics = run.metrics()
    assert {k: metrics[k] for k in ("judged", "parse_failed", "errors", "pass_rate")} == \
        {"judged": 1, "parse_failed": 1, "errors": 1, "pass_rate": 0.0}
    assert metrics["cost"] == pytest.approx(0.002)


def test_cli_writes_rows_and_metrics_and_a_rerun_calls_nothing(server, tmp_path) -> None:
    items, results, params = _setup(tmp_path, server.url)
    server.verdicts = ["accuracy: pass - red\nbrevity: pass - one word",
                       "correctness: PASS - circle"]
    out, metrics = tmp_path / "judge.jsonl", tmp_path / "judge.json"
    args = ["eval", "judge", "--items", str(items), "--results", str(results), "--model",
            "vlm", "--out", str(out), "--metrics", str(metrics), "--params", str(params)]
    result = CliRunner().invoke(cli, args)
    assert result.exit_code == 0, result.output
    assert "3 responses: 2 judged, 0 unparseable, 1 errors, 0 without rubric; 0 from " \
           "cache, 2 called" in result.stderr
    first = out.read_bytes()
    assert [r["hit"] for r in read_jsonl(out)] == [True, True, None]
    assert read_json(metrics)["pass_rate"] == 1.0
    result = CliRunner().invoke(cli, [*args, "--format", "json"])
    assert "2 from cache, 0 called" in result.stderr
    assert server.count() == 2 and out.read_bytes() == first
    summary = json.loads(result.stdout)
    assert (summary["judged"], summary["errors"], summary["from_cache"], summary["called"],
            summary["pass_rate"]) == (2, 1, 2, 0, 1.0)


def test_items_without_a_rubric_are_skipped(server, tmp_path) -> None:
    items, results, params = _setup(tmp_path, server.url, rubrics={"reading": "x"})
    server.verdicts = ["accuracy: pass - a\nbrevity: pass - b"]
    run = judge_responses(read_items(items), read_jsonl(results / "image.jsonl")[:2],
                          judge="grader", model="vlm", params=params)
    assert run.skipped == 1 and [v.id for v in run.verdicts] == ["q1"]


def test_a_failed_judge_call_is_an_error_not_a_verdict(server, tmp_path) -> None:
    items, results, params = _setup(tmp_path, server.url)
    server.down = True
    run = judge_responses(read_items(items), read_jsonl(results / "image.jsonl")[:1],
                          judge="grader", model="vlm", params=params)
    (verdict,) = run.verdicts
    assert verdict.parse is None and verdict.error.startswith("judge call failed: HTTP 503")


def test_judge_item_with_an_explicit_rubric(server, tmp_path) -> None:
    items, _, params = _setup(tmp_path, server.url)
    server.verdicts = ["correctness: fail - says blue"]
    item = read_items(items)[2]
    verdict = judge_item(item, "Blue.", judge="grader", params=params, rubric="Says exit.")
    assert (verdict.parse, verdict.hit, verdict.reasons) == \
        ("ok", False, {"correctness": "says blue"})
    with pytest.raises(InputError, match="item q3: no rubric"):
        judge_item(item.model_copy(update={"capability": "motion.speed"}), "Blue.",
                   judge="grader", params=params)


def test_no_judge_model_is_a_config_error(server, tmp_path) -> None:
    items, results, params = _setup(tmp_path, server.url)
    data = yaml.safe_load(params.read_text())
    del data["judge"]["model"]
    params.write_text(yaml.safe_dump(data))
    result = CliRunner().invoke(cli, ["eval", "judge", "--items", str(items), "--results",
                                      str(results), "--model", "vlm", "--out",
                                      str(tmp_path / "o.jsonl"), "--params", str(params)])
    assert result.exit_code == 1 and "judge.model: no judge model given" in result.stderr
    with pytest.raises(ConfigError, match="no model named 'nobody'"):
        judge_responses(read_items(items), [], judge="nobody", model="vlm", params=params)


DIMS = ["accuracy", "brevity"]


@pytest.mark.parametrize(("reply", "expected"), [
    ("accuracy: pass - red\nbrevity: fail - long", {"accuracy": True, "brevity": False}),
    ("- **Accuracy**: PASS — red\n* Brevity: fail: long", {"accuracy": True, "brevity": False}),
    ("Here is my grading.\naccuracy: pass\nbrevity: pass\nOverall fine.",
     {"accuracy": True, "brevity": True}),
    ("<think>accuracy: fail</think>accuracy: pass - ok\nbrevity: pass - ok",
     {"accuracy": True, "brevity": True}),
    ("accuracy: pass - red\naccuracy: pass - again\nbrevity: pass", {"accuracy": True,
                                                                     "brevity": True}),
    ("accuracy: pass - red", None),                        # a dimension missing
    ("accuracy: pass\naccuracy: fail\nbrevity: pass", None),  # judged twice, differently
    ("accuracy: yes\nbrevity: pass", None),                 # not pass/fail
    ("accuracy: partially - half\nbrevity: pass", None),
    ("Both look fine.", None),
    ("", None),
])
def test_parse_verdicts_table(reply, expected) -> None:
    parsed = parse_verdicts(reply, DIMS)
    assert (None if parsed is None else {k: v for k, (v, _) in parsed.items()}) == expected


def test_rubric_dimensions_and_prompt() -> None:
    assert rubric_dimensions("Visual Grounding: points at the box\nBrevity: short") == \
        [("visual_grounding", "points at the box"), ("brevity", "short")]
    with pytest.raises(ValueError, match="dimension 'brevity' twice"):
        rubric_dimensions("brevity: a\nBrevity: b")
    item = read_items_row(make_item(task="mc", choices={"A": "red", "B": "blue"},
                                    answers=["B"], question="Which?"))
    text, names = judge_prompt(item, "B", "Picks the blue option.")
    assert "Reference answer: B (blue)" in text and names == ["correctness"]


def read_items_row(row: dict):
    from bench_kit.types import Item

    return Item.model_validate(row)


@pytest.mark.parametrize("module", ["eval.judge_rubric", "models.budget", "models.imageprep"])
def test_doctests(module) -> None:
    result = doctest.testmod(importlib.import_module(f"bench_kit.{module}"))
    assert result.attempted > 0 and result.failed == 0


def _judged_project(tmp_path: Path, url: str) -> tuple[list[str], Path]:
    """Items q1-q4 (q4 without a rubric), predictions of `vlm`, a judge run over them."""
    rows = [make_item(id="q1", task="open", question="What colour? [scenario:verdict]",
                      answers=["red"], rubric="- accuracy: names red"),
            make_item(id="q2", task="open", question="Which shape? [scenario:verdict]",
                      answers=["circle"], rubric="- accuracy: names a circle"),
            make_item(id="q3", task="open", question="Any text? [scenario:verdict]",
                      answers=["exit"], rubric="- accuracy: reads EXIT"),
            make_item(id="q4", task="open", question="Which animal?", answers=["cat"],
                      capability="motion.speed")]
    items = tmp_path / "items.jsonl"
    write_jsonl(items, rows)
    write_png(tmp_path / "img" / "a.png")
    responses = {"q1": "Red.", "q2": "A round ball shape.", "q3": "EXIT", "q4": "A dog."}
    write_jsonl(tmp_path / "results" / "vlm" / "image.jsonl", [
        {"id": i, "model": "vlm", "mode": "image", "prompt_sha": "s", "response": r,
         "created_at": "2026-01-01T00:00:00Z"} for i, r in responses.items()])
    params = tmp_path / "params.yaml"
    params.write_text(yaml.safe_dump({
        "eval": {"cache": str(tmp_path / "cache.sqlite"), "models": {"grader": {
            "adapter": "openai", "model": "judge-llm", "base_url": url, "concurrency": 1,
            "backoff_s": 0, "max_retries": 0}}}, "judge": {"model": "grader"}}))
    common = ["--items", str(items), "--params", str(params), "--model", "vlm"]
    result = CliRunner().invoke(cli, ["eval", "judge", *common, "--results",
                                      str(tmp_path / "results" / "vlm"), "--out",
                                      str(tmp_path / "judge.jsonl")])
    assert result.exit_code == 0, result.output
    return common, tmp_path / "judge.jsonl"


def _score(tmp_path: Path, common: list[str], name: str, *extra: str):
    result = CliRunner().invoke(cli, ["eval", "score", *common, "--results",
                                      str(tmp_path / "results" / "vlm"), "--out",
                                      str(tmp_path / name), "--metrics",
                                      str(tmp_path / f"{name}.json"), *extra])
    return result, {r["id"]: r for r in read_jsonl(tmp_path / name / "image.jsonl")} \
        if result.exit_code == 0 else None


def test_judge_verdicts_become_score_rows(server, tmp_path) -> None:
    from bench_kit.report.panels import parse_counts
    from bench_kit.scoring.stage import read_scores

    # q1: the extractor hits, the judge fails it; q2: the extractor misses, the judge
    # passes it; q3: the judge's reply does not parse, so the extractor's outcome stays.
    server.verdicts = ["accuracy: fail - says red but hedges", "accuracy: pass - a circle",
                       "I am not sure."]
    common, judgements = _judged_project(tmp_path, server.url)
    _, plain = _score(tmp_path, common, "plain")
    assert (plain["q1"]["hit"], plain["q2"]["hit"], plain["q3"]["hit"]) == (True, False, True)
    result, judged = _score(tmp_path, common, "judged", "--judgements", str(judgements))
    assert result.exit_code == 0, result.output
    assert {i: (r["parse"], r["hit"], r["score"]) for i, r in judged.items()} == {
        "q1": ("judge", False, 0.0), "q2": ("judge", True, 1.0),
        "q3": (plain["q3"]["parse"], True, plain["q3"]["score"]),
        "q4": (plain["q4"]["parse"], plain["q4"]["hit"], plain["q4"]["score"])}
    assert judged["q2"]["extracted"] == plain["q2"]["extracted"]  # the extractor's reading
    metrics = read_json(tmp_path / "judged.json")["image"]
    assert metrics["judge"] == {"file": judgements.as_posix(), "judges": ["grader"],
                                "judged": 2, "hits_changed": 2, "unsettled": 1,
                                "unscored": 0}
    assert metrics["hits"] == read_json(tmp_path / "plain.json")["image"]["hits"]
    counts = parse_counts({s.id: s for s in read_scores(tmp_path / "judged" / "image.jsonl")})
    assert counts["judge"] == 2  # the report's judge column


def test_judgements_of_another_model_are_refused_by_line(server, tmp_path) -> None:
    server.verdicts = ["accuracy: pass - ok"] * 3
    common, judgements = _judged_project(tmp_path, server.url)
    rows = read_jsonl(judgements)
    rows[1]["model"] = "other"
    write_jsonl(judgements, rows)
    result, _ = _score(tmp_path, common, "judged", "--judgements", str(judgements))
    assert result.exit_code == 1
    assert f"{judgements}:2: field 'model': id=q2: verdict for model 'other', scoring " \
           f"'vlm'" in result.stderr
    assert not (tmp_path / "judged").exists()
