"""`bench-kit eval run` through click's CliRunner."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import yaml
from click.testing import CliRunner
from conftest import make_item, without_cached, write_png
from openai_server import FakeOpenAI

from bench_kit.cli import cli
from bench_kit.io import read_jsonl, write_jsonl

MODELS = {"random": {"adapter": "random", "seed": 5},
          "off": {"adapter": "random", "enabled": False},
          "keyed": {"adapter": "openai", "model": "m", "base_url": "http://127.0.0.1:9/v1",
                    "api_key_env": "BK_CLI_ABSENT_KEY"}}


@pytest.fixture
def bench(tmp_path: Path, monkeypatch) -> Path:
    """A project folder with params.yaml and datasets/t/splits/test.jsonl; cwd is set to it."""
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("BK_CLI_ABSENT_KEY", raising=False)
    write_png(tmp_path / "datasets" / "t" / "images" / "a.png", size=(50, 40))
    rows = [make_item(id=f"q{n}", image="images/a.png", question=f"Which one, {n}?",
                      task="mc", choices={"A": "x", "B": "y"}, answers=["A"])
            for n in range(4)]
    write_jsonl(tmp_path / "datasets" / "t" / "splits" / "test.jsonl", rows)
    (tmp_path / "params.yaml").write_text(yaml.safe_dump(
        {"bench": "t", "eval": {"split": "test", "cache": ".bench_kit/cache.sqlite",
                                "models": MODELS}}))
    return tmp_path


def _run(*args: str):
    return CliRunner().invoke(cli, ["eval", "run", *args])


def test_run_writes_predictions_and_a_rerun_comes_from_the_cache(bench) -> None:
    out = "scratch/eval/random/image.jsonl"  # a hand run never writes over results/
    result = _run("--model", "random")  # items, root, mode and out from the defaults
    assert result.exit_code == 0, result.output
    assert result.stderr.splitlines()[-1] == \
        f"eval random/image: 4 items: 0 from cache, 4 called, 0 errors, 0 unsupported -> {out}"
    first = without_cached(bench / out)
    assert [p["id"] for p in read_jsonl(bench / out)] == ["q0", "q1", "q2", "q3"]
    assert [p["cached"] for p in read_jsonl(bench / out)] == [False] * 4
    result = _run("--model", "random")
    assert "4 items: 4 from cache, 0 called, 0 errors" in result.stderr
    assert without_cached(bench / out) == first  # only `cached` changed
    assert [p["cached"] for p in read_jsonl(bench / out)] == [True] * 4


def test_explicit_paths_limit_and_mode(bench) -> None:
    result = _run("--items", "datasets/t/splits/test.jsonl", "--root", "datasets/t",
                  "--model", "random", "--mode", "no_image", "--out", "custom/p.jsonl",
                  "--limit", "2")
    assert result.exit_code == 0, result.output
    rows = read_jsonl(bench / "custom" / "p.jsonl")
    assert [(r["id"], r["mode"]) for r in rows] == [("q0", "no_image"), ("q1", "no_image")]
    assert rows[0]["protocol"]["images"] == []


@pytest.mark.parametrize(("args", "message"), [
    (["--model", "off"], "eval.models.off: model 'off' is disabled"),
    (["--model", "keyed"], "eval.models.keyed.api_key_env: environment variable "
                           "BK_CLI_ABSENT_KEY is not set"),
    (["--model", "randm"], "no model named 'randm'; did you mean 'random'?"),
    (["--model", "random", "--items", "nowhere.jsonl"], "nowhere.jsonl: file not found"),
])
def test_user_mistakes_get_one_line_and_no_output(bench, args, message) -> None:
    result = _run(*args)
    assert result.exit_code == 1
    assert result.stderr.count("\n") == 1 and message in result.stderr
    assert result.stderr.startswith("error: ")
    assert not (bench / "results").exists() and not (bench / "scratch").exists()


def test_a_missing_image_names_the_item(bench) -> None:
    (bench / "datasets" / "t" / "images" / "a.png").unlink()
    result = _run("--model", "random")
    assert result.exit_code == 1
    assert "item q0: image file" in result.stderr and "a.png' not found" in result.stderr
    assert result.stderr.count("\n") == 1


def _serve_vlm(bench: Path, server: FakeOpenAI, **settings) -> None:
    """Add model `vlm` on `server` to the bench's params, with `eval` settings."""
    params = yaml.safe_load((bench / "params.yaml").read_text())
    params["eval"]["models"]["vlm"] = {"adapter": "openai", "model": "m",
                                       "base_url": server.url, "max_retries": 1,
                                       "backoff_s": 0}
    params["eval"].update(settings)
    (bench / "params.yaml").write_text(yaml.safe_dump(params))


def _fail_items(bench: Path, failing: int) -> None:
    """Script the first `failing` of the 4 items to get HTTP 503 on every attempt."""
    path = bench / "datasets" / "t" / "splits" / "test.jsonl"
    rows = read_jsonl(path)
    for row in rows[:failing]:
        row["question"] += " [scenario:503]"
    write_jsonl(path, rows)


def test_failed_calls_fail_the_run_by_default_after_writing_them(bench) -> None:
    with FakeOpenAI() as server:
        server.down = True
        _serve_vlm(bench, server)
        result = _run("--model", "vlm", "--limit", "2")
    assert result.exit_code == 4, result.output
    assert "2 items: 0 from cache, 2 called, 2 errors" in result.stderr
    assert "error: 2 of 2 predictions failed (100.0% > eval.max_error_share 0)" \
        in result.stderr
    rows = read_jsonl(bench / "scratch" / "eval" / "vlm" / "image.jsonl")  # nothing lost
    assert all(r["response"] is None and r["error"].startswith("HTTP 503") for r in rows)


def test_one_failed_item_of_four_fails_the_run_until_a_rerun_recovers_it(bench) -> None:
    _fail_items(bench, 1)
    with FakeOpenAI() as server:
        _serve_vlm(bench, server)
        result = _run("--model", "vlm")
        assert result.exit_code == 4, result.output
        rows = read_jsonl(bench / "scratch" / "eval" / "vlm" / "image.jsonl")
        assert [r["error"] is not None for r in rows] == [True, False, False, False]
        path = bench / "datasets" / "t" / "splits" / "test.jsonl"
        rows = read_jsonl(path)
        rows[0]["question"] = rows[0]["question"].replace(" [scenario:503]", "")
        write_jsonl(path, rows)  # the server recovers for q0
        result = _run("--model", "vlm")
    assert result.exit_code == 0, result.output
    assert "4 items: 3 from cache, 1 called, 0 errors" in result.stderr


def test_allow_errors_keeps_exit_0_and_the_rows(bench) -> None:
    _fail_items(bench, 4)
    with FakeOpenAI() as server:
        _serve_vlm(bench, server)
        result = _run("--model", "vlm", "--allow-errors")
    assert result.exit_code == 0, result.output
    assert "4 called, 4 errors" in result.stderr and "max_error_share" not in result.stderr
    rows = read_jsonl(bench / "scratch" / "eval" / "vlm" / "image.jsonl")
    assert len(rows) == 4 and all(r["error"].startswith("HTTP 503") for r in rows)


@pytest.mark.parametrize(("limit", "code"), [(0.25, 0), (0.24, 4), (0.5, 0), (0, 4), (1, 0)])
def test_error_share_threshold_is_a_strict_bound(bench, limit, code) -> None:
    _fail_items(bench, 1)  # 1 of 4 rows fails: share 0.25
    with FakeOpenAI() as server:
        _serve_vlm(bench, server, max_error_share=limit)
        result = _run("--model", "vlm")
    assert result.exit_code == code, result.output
    assert ("25.0% > eval.max_error_share" in result.stderr) == (code == 4)


def test_format_json_prints_the_summary_also_on_a_failed_run(bench) -> None:
    _fail_items(bench, 1)
    with FakeOpenAI() as server:
        _serve_vlm(bench, server)
        result = _run("--model", "vlm", "--format", "json")
    assert result.exit_code == 4
    summary = json.loads(result.stdout)
    assert {k: summary[k] for k in ("total", "called", "failed", "error_share",
                                    "max_error_share", "unsupported")} == \
        {"total": 4, "called": 4, "failed": 1, "error_share": 0.25, "max_error_share": 0.0,
         "unsupported": 0}
    assert summary["out"] == "scratch/eval/vlm/image.jsonl"


def test_budget_exit_code_wins_over_the_error_share(bench) -> None:
    _fail_items(bench, 1)
    with FakeOpenAI() as server:
        _serve_vlm(bench, server)
        result = _run("--model", "vlm", "--max-requests", "2")
    assert result.exit_code == 3, result.output


@pytest.mark.parametrize("value", [-0.1, 1.5, "lots", True])
def test_a_bad_max_error_share_is_one_line_before_any_call(bench, value) -> None:
    with FakeOpenAI() as server:
        _serve_vlm(bench, server, max_error_share=value)
        result = _run("--model", "vlm")
        assert server.count() == 0
    assert result.exit_code == 1
    assert "params.yaml: eval.max_error_share: expected a number from 0 to 1" in result.stderr


def test_help_has_an_example() -> None:
    result = CliRunner().invoke(cli, ["eval", "run", "--help"])
    assert result.exit_code == 0
    assert "Example:" in result.output and "bench-kit eval run --items" in result.output
    assert "--allow-errors" in result.output and "4 more rows failed" in result.output
