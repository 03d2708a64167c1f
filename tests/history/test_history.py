"""`bench-kit history`: one metric per model over the last N commits (git only)."""

from __future__ import annotations

import json
import os
import subprocess

import pytest
from click.testing import CliRunner

from bench_kit.cli import cli
from bench_kit.history.metric_history import format_history, lookup, metric_history
from bench_kit.io import write_json

ENV = {"GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@t", "GIT_COMMITTER_NAME": "t",
       "GIT_COMMITTER_EMAIL": "t@t"}


def _git(root, *args):
    subprocess.run(["git", "-C", str(root), *args], check=True, capture_output=True,
                   env={**os.environ, **ENV})


def _metrics(accuracy: float, count: float) -> dict:
    return {"image": {"accuracy": accuracy,
                      "by_capability": {"perception.count": {"accuracy": count}}},
            "vision_gain": {"overall": accuracy - 0.1}}


@pytest.fixture(scope="module")
def repo(tmp_path_factory):
    root = tmp_path_factory.mktemp("hist")
    _git(root, "init", "-q")
    (root / "README").write_text("x")
    _git(root, "add", "-A")
    _git(root, "commit", "-q", "-m", "no metrics yet")
    steps = [("first scores", {"alpha": (0.5, 0.25)}),
             ("beta joins", {"alpha": (0.5, 0.25), "beta": (0.4, 0.3)}),
             ("alpha improves", {"alpha": (0.625, 0.5), "beta": (0.4, 0.3)})]
    for message, models in steps:
        for model, (acc, count) in models.items():
            write_json(root / f"metrics/demo/{model}.json", {"model": model,
                                                             **_metrics(acc, count)})
        _git(root, "add", "-A")
        _git(root, "commit", "-q", "-m", message)
    (root / "metrics/demo/notes.json").write_text("not json")
    _git(root, "add", "-A")
    _git(root, "commit", "-q", "-m", "a stray file")
    return root


@pytest.mark.parametrize(("path", "expected"), [
    ("image.accuracy", 0.625),
    ("image.by_capability.perception.count.accuracy", 0.5),
    ("vision_gain.overall", 0.525),
    ("image.missing", None),
    ("image", _metrics(0.625, 0.5)["image"]),
])
def test_lookup_handles_dotted_keys(path, expected):
    assert lookup(_metrics(0.625, 0.5), path) == expected


def test_history_newest_first_with_missing_values(repo):
    result = metric_history(repo, metric="image.accuracy", limit=10)
    assert result["models"] == ["alpha", "beta"]
    subjects = [c["subject"] for c in result["commits"]]
    assert subjects == ["a stray file", "alpha improves", "beta joins", "first scores",
                        "no metrics yet"]
    values = [c["values"] for c in result["commits"]]
    assert values[1] == {"alpha": 0.625, "beta": 0.4}
    assert values[3] == {"alpha": 0.5, "beta": None}
    assert values[4] == {"alpha": None, "beta": None}


def test_history_limit_and_capability_metric(repo):
    result = metric_history(repo, metric="image.by_capability.perception.count.accuracy",
                            limit=2)
    assert [c["values"]["alpha"] for c in result["commits"]] == [0.5, 0.5]
    text = format_history(result)
    assert "alpha improves" in text and "beta joins" not in text


def test_cli_formats(repo):
    runner = CliRunner()
    out = runner.invoke(cli, ["history", "--repo", str(repo), "-n", "3", "--format", "json"])
    assert out.exit_code == 0, out.output
    parsed = json.loads(out.output)
    assert len(parsed["commits"]) == 3 and parsed["metric"] == "image.accuracy"
    text = runner.invoke(cli, ["history", "--repo", str(repo), "--metric",
                               "vision_gain.overall"])
    assert text.exit_code == 0 and "0.525" in text.output and "n/a" in text.output


def test_not_a_git_repo_is_one_line(tmp_path):
    result = CliRunner().invoke(cli, ["history", "--repo", str(tmp_path)])
    assert result.exit_code != 0
    lines = result.output.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: git log")
