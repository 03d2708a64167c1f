"""(slow: real DVC) The `split` stage of dvc.yaml depends on its exclusion lists: editing
the quarantine or the review rejects makes `dvc status` show `split` stale, and the re-run
leaves the newly listed item out."""

from __future__ import annotations

import json
import os
import shutil
import sys
from pathlib import Path

import pytest
import yaml
from conftest import make_item
from test_pipeline_dvc import _run  # runs a command, failing with its output

from bench_kit.io import write_json, write_jsonl

REPO = Path(__file__).resolve().parents[2]
pytestmark = pytest.mark.slow


@pytest.fixture
def split_only(tmp_path):
    """A project holding the demo's real `split` stage, its params and its inputs."""
    root = tmp_path / "proj"
    root.mkdir()
    stages = yaml.safe_load((REPO / "dvc.yaml").read_text())["stages"]
    (root / "dvc.yaml").write_text(yaml.safe_dump({"stages": {"split": stages["split"]}}))
    shutil.copy(REPO / "params.yaml", root / "params.yaml")
    shutil.copytree(REPO / "bench_kit", root / "bench_kit",
                    ignore=shutil.ignore_patterns("__pycache__"))
    params = yaml.safe_load((REPO / "params.yaml").read_text())
    for rel in params["split"]["exclude_files"]:
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy(REPO / rel, root / rel)
    write_jsonl(root / "datasets/demo/items.jsonl",
                [make_item(id=f"q{i}", group=f"g{i}") for i in range(12)])
    write_json(root / "reports/demo/validate.json", {"ok": True})
    env = dict(os.environ, PATH=f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}",
               PYTHONPATH=str(root), DVC_NO_ANALYTICS="1", GIT_AUTHOR_NAME="t",
               GIT_AUTHOR_EMAIL="t@t", GIT_COMMITTER_NAME="t", GIT_COMMITTER_EMAIL="t@t")
    _run(["git", "init", "-q"], root, env)
    _run(["dvc", "init", "-q"], root, env)
    _run(["dvc", "config", "core.analytics", "false"], root, env)
    _run(["dvc", "repro", "split"], root, env)
    assert "up to date" in _run(["dvc", "status", "split"], root, env)
    return root, env


def _excluded(root: Path) -> set[str]:
    manifest = json.loads((root / "datasets/demo/splits/manifest.json").read_text())
    return {row["id"] for row in manifest["excluded"]["items"]}


@pytest.mark.parametrize("rel", ["audits/demo/quarantine.txt",
                                 "datasets/demo/review_rejected.txt"])
def test_editing_an_exclusion_list_makes_split_stale(split_only, rel):
    root, env = split_only
    assert _excluded(root) == set()
    with (root / rel).open("a", encoding="utf-8") as handle:
        handle.write("q4\tplanted for the test\n")
    status = _run(["dvc", "status", "split"], root, env)
    assert "split:" in status and "changed deps" in status and rel in status
    _run(["dvc", "repro", "split"], root, env)
    assert _excluded(root) == {"q4"}
    assert "up to date" in _run(["dvc", "status", "split"], root, env)
