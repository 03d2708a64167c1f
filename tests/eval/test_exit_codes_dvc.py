"""`dvc repro` trusts the exit code of `eval run` (slow: real DVC, real local server).

A one-stage DVC project whose stage calls `bench-kit eval run` on a server that fails one
item: the repro fails and DVC records nothing (the stage stays changed); with
`--allow-errors` the same repro succeeds and the stage is recorded.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
import yaml
from conftest import make_item, write_png
from openai_server import FakeOpenAI

from bench_kit.io import read_jsonl, write_jsonl

REPO = Path(__file__).resolve().parents[2]
pytestmark = pytest.mark.slow


def _project(root: Path, url: str, extra: str) -> None:
    write_png(root / "images" / "a.png", size=(20, 20))
    rows = [make_item(id=f"q{n}", image="images/a.png", task="mc",
                      question=f"Which one, {n}?" + (" [scenario:503]" if n == 0 else ""),
                      choices={"A": "x", "B": "y"}, answers=["A"]) for n in range(3)]
    write_jsonl(root / "items.jsonl", rows)
    params = {"bench": "t", "eval": {"cache": ".bench_kit/cache.sqlite", "models": {
        "vlm": {"adapter": "openai", "model": "m", "base_url": url, "max_retries": 1,
                "backoff_s": 0}}}}
    (root / "params.yaml").write_text(yaml.safe_dump(params))
    stage = {"cmd": "bench-kit eval run --items items.jsonl --root . --model vlm "
                    f"--out out/vlm.jsonl {extra}".strip(),
             "deps": ["items.jsonl", "images"], "outs": ["out/vlm.jsonl"]}
    (root / "dvc.yaml").write_text(yaml.safe_dump({"stages": {"eval": stage}}))


def _sh(cmd: list[str], root: Path, env: dict[str, str]) -> subprocess.CompletedProcess:
    return subprocess.run(cmd, cwd=root, env=env, capture_output=True, text=True, timeout=300,
                          check=False)


def test_dvc_repro_fails_on_unrecovered_errors_and_passes_with_allow_errors(
        tmp_path: Path) -> None:
    env = dict(os.environ, PATH=f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}",
               PYTHONPATH=str(REPO), GIT_AUTHOR_NAME="t", GIT_AUTHOR_EMAIL="t@t",
               GIT_COMMITTER_NAME="t", GIT_COMMITTER_EMAIL="t@t", DVC_NO_ANALYTICS="1")
    with FakeOpenAI() as server:
        _project(tmp_path, server.url, "")
        for cmd in (["git", "init", "-q"], ["dvc", "init", "-q"],
                    ["dvc", "config", "core.analytics", "false"]):
            assert _sh(cmd, tmp_path, env).returncode == 0
        failed = _sh(["dvc", "repro"], tmp_path, env)
        assert failed.returncode != 0, failed.stdout + failed.stderr
        log = failed.stdout + failed.stderr
        assert "1 of 3 predictions failed" in log
        assert "exited with 4" in log or "code 4" in log or "returned 4" in log, log[-2000:]
        assert not (tmp_path / "dvc.lock").exists()  # nothing recorded as done
        status = _sh(["dvc", "status"], tmp_path, env)
        assert "eval" in status.stdout and "changed" in status.stdout

        _project(tmp_path, server.url, "--allow-errors")
        passed = _sh(["dvc", "repro"], tmp_path, env)
        assert passed.returncode == 0, passed.stdout + passed.stderr
        assert "eval:" in (tmp_path / "dvc.lock").read_text()
        rows = read_jsonl(tmp_path / "out" / "vlm.jsonl")
        assert [r["id"] for r in rows if r["error"]] == ["q0"]
        assert "up to date" in _sh(["dvc", "status"], tmp_path, env).stdout
