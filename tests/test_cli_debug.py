"""Errors keep their cause: one line by default, the traceback with the chained cause under
`--debug` (or BENCH_KIT_DEBUG=1); library log lines only with `--verbose`."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml
from click.testing import CliRunner
from conftest import make_item, write_png

from bench_kit.cli import cli
from bench_kit.io import write_jsonl


@pytest.fixture
def bad_params(tmp_path: Path) -> Path:
    path = tmp_path / "params.yaml"
    path.write_text("eval:\n  models: [1\n")  # an unclosed flow sequence
    return path


def _run(*args: str, env: dict[str, str] | None = None):
    return CliRunner().invoke(cli, list(args), env=env)


def test_an_error_is_one_line_without_debug(bad_params: Path, monkeypatch) -> None:
    monkeypatch.delenv("BENCH_KIT_DEBUG", raising=False)
    result = _run("models", "list", "--params", str(bad_params))
    assert result.exit_code == 1
    assert result.stderr.splitlines() == [
        f"error: {bad_params}:3: invalid YAML: expected ',' or ']', but got '<stream end>'"]


@pytest.mark.parametrize("how", ["flag", "env"])
def test_debug_prints_the_chained_cause_then_the_same_line(bad_params: Path, how: str,
                                                           monkeypatch) -> None:
    monkeypatch.delenv("BENCH_KIT_DEBUG", raising=False)
    args = ["models", "list", "--params", str(bad_params)]
    result = (_run("--debug", *args) if how == "flag"
              else _run(*args, env={"BENCH_KIT_DEBUG": "1"}))
    assert result.exit_code == 1
    err = result.stderr
    # the cause (PyYAML's parser error) first, then the library error raised from it
    cause = err.index("yaml.parser.ParserError: while parsing a flow sequence")
    link = err.index("The above exception was the direct cause of the following exception:")
    error = err.index("bench_kit.errors.ConfigError:")
    assert cause < link < error
    assert err.splitlines()[-1] == (
        f"error: {bad_params}:3: invalid YAML: expected ',' or ']', but got '<stream end>'")


@pytest.fixture
def bench(tmp_path: Path, monkeypatch) -> Path:
    monkeypatch.chdir(tmp_path)
    write_png(tmp_path / "datasets" / "t" / "images" / "a.png", size=(20, 20))
    write_jsonl(tmp_path / "datasets" / "t" / "splits" / "test.jsonl",
                [make_item(id=f"q{n}", image="images/a.png", task="mc",
                           choices={"A": "x", "B": "y"}, answers=["A"]) for n in range(3)])
    (tmp_path / "params.yaml").write_text(yaml.safe_dump(
        {"bench": "t", "eval": {"split": "test", "cache": ".bench_kit/cache.sqlite"},
         "models": {"random": {"adapter": "random", "seed": 1}}}))
    return tmp_path


def test_library_logs_only_with_verbose(bench: Path) -> None:
    line = "INFO bench_kit.eval.runner: random/image: 3 calls planned for 3 items"
    quiet = _run("eval", "run", "--model", "random")
    assert quiet.exit_code == 0, quiet.output
    assert "bench_kit." not in quiet.stderr
    loud = _run("--verbose", "eval", "run", "--model", "random", "--fresh")
    assert loud.exit_code == 0, loud.output
    assert line in loud.stderr
    again = _run("eval", "run", "--model", "random")  # the next run is quiet again
    assert "bench_kit." not in again.stderr
