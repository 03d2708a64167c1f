"""The LLM judge against a real OpenAI-compatible server returning scripted verdicts."""

from __future__ import annotations

import doctest
import importlib
from pathlib import Path

import pytest
import yaml
from click.testing import CliRunner
from conftest import make_item
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
    result = CliRunner().invoke(cli, args)
    assert "2 from cache, 0 called" in result.stderr
    assert server.count() == 2 and out.read_bytes() == first


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
