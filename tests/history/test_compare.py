"""`bench-kit compare` on a small git + DVC repository built in tmp_path.

Commit 1 has two models' scores; commit 2 plants a change: model `changed` now answers
40 more of the same items right (significant), model `steady` answers the same items
exactly as before (not significant), and items are added, removed and edited (data
changes). Scores and items are DVC-tracked and removed from the workspace, so both
revisions are read from git + the DVC cache.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner
from conftest import make_item

from bench_kit.cli import cli
from bench_kit.history.compare import compare_revisions, data_changes, format_comparison
from bench_kit.io import write_json, write_jsonl
from bench_kit.types import Item

pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning")
DVC = str(Path(sys.executable).parent / "dvc")
ENV = {"GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@t", "GIT_COMMITTER_NAME": "t",
       "GIT_COMMITTER_EMAIL": "t@t", "DVC_NO_ANALYTICS": "1"}


def _git(root, *args):
    subprocess.run(["git", "-C", str(root), *args], check=True, capture_output=True,
                   env={**os.environ, **ENV})


def _item(i: int, question: str | None = None) -> dict:
    return make_item(id=f"q{i:03d}", question=question or f"How many circles in scene {i}?",
                     capability="perception.count" if i % 2 else "perception.colour",
                     group=f"s{i // 3}")


def _scores(model: str, hits: dict[str, bool]) -> list[dict]:
    return [{"id": i, "model": model, "mode": "image", "metric": "exact", "extracted": "1",
             "parse": "ok", "score": float(h), "hit": h} for i, h in sorted(hits.items())]


def _write(root, items: list[dict], hits: dict[str, dict[str, bool]]) -> None:
    write_jsonl(root / "datasets/demo/splits/test.jsonl", items)
    shutil.rmtree(root / "scores/demo", ignore_errors=True)
    for model, by_id in hits.items():
        write_jsonl(root / f"scores/demo/{model}/image.jsonl", _scores(model, by_id))
        acc = sum(by_id.values()) / len(by_id)
        write_json(root / f"metrics/demo/{model}.json", {"model": model, "image": {
            "accuracy": round(acc, 6), "by_capability": {"perception.count": {
                "accuracy": round(acc, 6)}}}})


def _dvc(root, *args):
    proc = subprocess.run([DVC, *args], cwd=root, capture_output=True, text=True, check=False,
                          env={**os.environ, **ENV})
    assert proc.returncode == 0, proc.stdout + proc.stderr


def _commit(root, message: str) -> None:
    _dvc(root, "add", "-q", "datasets/demo/splits", "scores/demo")
    _git(root, "add", "-A")
    _git(root, "commit", "-q", "-m", message)


@pytest.fixture(scope="module")
def repo(tmp_path_factory):
    root = tmp_path_factory.mktemp("history")
    _git(root, "init", "-q")
    _dvc(root, "init", "-q")
    _git(root, "config", "user.name", "t")
    ids = [f"q{i:03d}" for i in range(120)]
    # commit 1: 120 items; `changed` right on the first 40, `steady` on every third
    v1 = [_item(i) for i in range(120)]
    changed1 = {i: n < 40 for n, i in enumerate(ids)}
    steady1 = {i: n % 3 == 0 for n, i in enumerate(ids)}
    _write(root, v1, {"changed": changed1, "steady": steady1})
    _commit(root, "scores v1")
    # commit 2: items q000-q004 removed, q010/q011 edited, q120-q129 added
    v2 = [_item(i, "Edited: how many squares?" if i in (10, 11) else None)
          for i in range(5, 130)]
    ids2 = [row["id"] for row in v2]
    # `changed` now right on q000-q079 (40 more kept items: q040-q079) and on new items
    changed2 = {i: int(i[1:]) < 80 if i in changed1 else True for i in ids2}
    steady2 = {i: steady1.get(i, False) for i in ids2}
    _write(root, v2, {"changed": changed2, "steady": steady2})
    _commit(root, "scores v2")
    # only the DVC cache and git hold the data now
    shutil.rmtree(root / "scores")
    shutil.rmtree(root / "datasets")
    return root


def test_planted_change_is_significant_and_steady_model_is_not(repo):
    result = compare_revisions(repo, "HEAD~1", "HEAD", bench="demo")
    by_model = {m["model"]: m for m in result["models"]}
    changed, steady = by_model["changed"], by_model["steady"]
    assert changed["same_items"]["significant"] is True
    assert changed["same_items"]["gained"] == 40 and changed["same_items"]["lost"] == 0
    assert changed["same_items"]["test"] == "chi2"
    assert steady["same_items"]["significant"] is False
    assert steady["same_items"]["lost"] == steady["same_items"]["gained"] == 0
    assert steady["same_items"]["p_value"] == 1.0
    # steady's accuracy moved only because the data changed
    assert steady["same_items"]["delta"] == 0.0
    assert steady["data_effect"] == steady["delta"] != 0.0


def test_data_changes_are_reported_apart(repo):
    result = compare_revisions(repo, "HEAD~1", "HEAD", bench="demo")
    data = result["data"]
    assert (data["items_a"], data["items_b"]) == (120, 125)
    assert (data["added"], data["removed"], data["edited"]) == (10, 5, 2)
    assert data["unchanged"] == 113
    assert data["examples"]["edited"] == ["q010", "q011"]
    changed = next(m for m in result["models"] if m["model"] == "changed")
    assert changed["same_items"]["n"] == 113  # edited items are not "the same items"
    caps = {c["capability"]: c for c in changed["by_capability"]}
    assert caps["perception.colour"]["edited"] == 1 and caps["perception.count"]["edited"] == 1
    assert caps["perception.count"]["added"] + caps["perception.colour"]["added"] == 10
    assert round(changed["delta"] - changed["same_items"]["delta"], 6) == changed["data_effect"]


def test_data_changes_use_content_not_dates():
    a = {"x": Item.model_validate(make_item(id="x"))}
    b = {"x": Item.model_validate(make_item(id="x", created_at="2027-01-01T00:00:00Z"))}
    assert data_changes(a, b)["edited"] == []
    c = {"x": Item.model_validate(make_item(id="x", answers=["3"]))}
    assert data_changes(a, c)["edited"] == ["x"]


def test_cli_text_and_json(repo):
    runner = CliRunner()
    text = runner.invoke(cli, ["compare", "--repo", str(repo), "--rev", "HEAD~1",
                               "--rev", "HEAD"])
    assert text.exit_code == 0, text.output
    assert "10 added, 5 removed, 2 edited, 113 unchanged" in text.output
    assert "changed [image]" in text.output and ": significant" in text.output
    assert "steady [image]" in text.output and "not significant" in text.output
    out = runner.invoke(cli, ["compare", "--repo", str(repo), "--rev", "HEAD~1", "--rev",
                              "HEAD", "--format", "json"])
    assert out.exit_code == 0
    parsed = json.loads(out.output)
    assert parsed["bench"] == "demo" and len(parsed["models"]) == 2
    assert format_comparison(parsed, capabilities=False).count("\n") == 5


@pytest.mark.parametrize(("args", "message"), [
    (["--rev", "HEAD"], "give --rev exactly twice"),
    (["--rev", "HEAD", "--rev", "nope"], "git rev-parse"),
    (["--rev", "HEAD~1", "--rev", "HEAD", "--bench", "other"], "not found at revision"),
])
def test_cli_errors_are_one_line(repo, args, message):
    result = CliRunner().invoke(cli, ["compare", "--repo", str(repo), *args])
    assert result.exit_code in (1, 2)
    lines = result.output.strip().splitlines()
    assert len(lines) == 1 and message in lines[0], result.output


def test_a_clone_without_the_dvc_cache_says_dvc_pull(repo, tmp_path):
    clone = tmp_path / "clone"
    _git(tmp_path, "clone", "-q", str(repo), str(clone))
    result = CliRunner().invoke(cli, ["compare", "--repo", str(clone), "--rev", "HEAD~1",
                                      "--rev", "HEAD"])
    assert result.exit_code == 1
    assert "not found at revision HEAD~1" in result.output and "dvc pull" in result.output
