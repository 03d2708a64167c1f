"""History reads files at old revisions through bench_kit.artifacts: files without a
format_version (the old layout) are read; a newer version is refused in one line."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import make_item

from bench_kit.errors import InputError
from bench_kit.history.metric_history import metric_history
from bench_kit.history.revisions import load_snapshot
from bench_kit.io import write_json, write_jsonl

DVC = str(Path(sys.executable).parent / "dvc")
ENV = {**os.environ, "GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@t",
       "GIT_COMMITTER_NAME": "t", "GIT_COMMITTER_EMAIL": "t@t", "DVC_NO_ANALYTICS": "1"}


def _run(root: Path, *cmd: str) -> None:
    subprocess.run(cmd, cwd=root, env=ENV, check=True, capture_output=True, text=True)


def _score(i: int, **extra) -> dict:
    return {"id": f"q{i}", "model": "m", "mode": "image", "metric": "exact", "extracted": "1",
            "parse": "ok", "score": 1.0, "hit": True, **extra}


@pytest.fixture(scope="module")
def repo(tmp_path_factory):
    """Commit 1: files of the old layout (no format_version); commit 2: version 99."""
    root = tmp_path_factory.mktemp("versions")
    _run(root, "git", "init", "-q")
    _run(root, DVC, "init", "-q")
    items = [make_item(id=f"q{i}") for i in range(3)]
    write_jsonl(root / "datasets/demo/splits/test.jsonl", items)
    write_jsonl(root / "scores/demo/m/image.jsonl", [_score(i) for i in range(3)])
    write_json(root / "metrics/demo/m.json", {"model": "m", "image": {"accuracy": 1.0}})
    _run(root, "git", "add", "-A")
    _run(root, "git", "commit", "-q", "-m", "old layout")
    write_jsonl(root / "scores/demo/m/image.jsonl",
                [_score(i, format_version=99) for i in range(3)])
    write_json(root / "metrics/demo/m.json",
               {"model": "m", "image": {"accuracy": 1.0}, "format_version": 99})
    _run(root, "git", "add", "-A")
    _run(root, "git", "commit", "-q", "-m", "newer layout")
    return root


def test_old_layout_is_read_at_a_revision(repo):
    snap = load_snapshot(repo, "HEAD~1", "datasets/demo/splits/test.jsonl", "scores/demo")
    assert sorted(snap.scores["m"]["image"]) == ["q0", "q1", "q2"] and len(snap.items) == 3
    history = metric_history(repo, metric="image.accuracy", limit=1, bench="demo",
                             rev="HEAD~1")
    assert [c["values"] for c in history["commits"]] == [{"m": 1.0}]


def test_a_newer_version_at_a_revision_is_refused(repo):
    with pytest.raises(InputError) as info:
        load_snapshot(repo, "HEAD", "datasets/demo/splits/test.jsonl", "scores/demo")
    assert str(info.value) == ("scores/demo/m/image.jsonl:1: field 'format_version': at "
                               "revision HEAD: scores file of format_version 99, newer than "
                               "this bench-kit reads (up to 1); upgrade bench-kit to read it")


def test_metric_history_refuses_a_newer_metrics_file(repo):
    with pytest.raises(InputError, match=r"metrics/demo/m\.json: field 'format_version': "
                                         r"metrics file of format_version 99, newer"):
        metric_history(repo, metric="image.accuracy", limit=2, bench="demo")
