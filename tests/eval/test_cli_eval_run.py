"""`bench-kit eval run` through click's CliRunner."""

from __future__ import annotations

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


def test_failed_calls_are_counted_not_fatal(bench) -> None:
    with FakeOpenAI() as server:
        server.down = True
        params = yaml.safe_load((bench / "params.yaml").read_text())
        params["eval"]["models"]["vlm"] = {"adapter": "openai", "model": "m",
                                           "base_url": server.url, "max_retries": 1,
                                           "backoff_s": 0}
        (bench / "params.yaml").write_text(yaml.safe_dump(params))
        result = _run("--model", "vlm", "--limit", "2")
    assert result.exit_code == 0, result.output
    assert "2 items: 0 from cache, 2 called, 2 errors" in result.stderr
    rows = read_jsonl(bench / "scratch" / "eval" / "vlm" / "image.jsonl")
    assert all(r["response"] is None and r["error"].startswith("HTTP 503") for r in rows)


def test_help_has_an_example() -> None:
    result = CliRunner().invoke(cli, ["eval", "run", "--help"])
    assert result.exit_code == 0
    assert "Example:" in result.output and "bench-kit eval run --items" in result.output
