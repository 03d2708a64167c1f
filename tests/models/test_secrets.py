"""Secrets: an API key is read from the environment and never reaches a file.

A small DVC project evaluates a model against the local server with a sentinel key, scores
it and writes the report; then every file under the project (results, scores, metrics,
reports, the call cache with any -wal/-shm files, dvc.lock, params, .dvc/, and the
captured stdout/stderr) is scanned for the sentinel: zero occurrences. The server echoes
the key in 400/401 error bodies, so the redaction of error messages is exercised too.
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

pytestmark = pytest.mark.slow

SENTINEL = "sk-SENTINEL-7f3a9c1e-never-on-disk"
ENV_NAME = "BENCH_KIT_TEST_SECRET_KEY"
REPO = Path(__file__).resolve().parents[2]


def _project(root: Path, url: str) -> None:
    write_png(root / "bench" / "img" / "a.png")
    rows = [make_item(id=f"q{n}", image="img/a.png", question=f"Is shape {n} red?",
                      task="yesno", answers=["yes"]) for n in range(4)]
    rows += [make_item(id="echo401", question="Is it red? [scenario:401]", task="yesno",
                       answers=["yes"]),
             make_item(id="echo400", question="Is it blue? [scenario:400]", task="yesno",
                       answers=["no"])]
    write_jsonl(root / "bench" / "items.jsonl", rows)
    params = yaml.safe_load((REPO / "params.yaml").read_text())
    params["models"] = {"vlm": {"adapter": "openai", "model": "vlm-secret",
                                "base_url": url, "api_key_env": ENV_NAME,
                                "max_retries": 0, "backoff_s": 0.0}}
    params["eval"]["cache"] = ".bench_kit/cache.sqlite"
    (root / "params.yaml").write_text(yaml.safe_dump(params, sort_keys=False))
    stages = {
        "eval": {"cmd": "bench-kit eval run --items bench/items.jsonl --model vlm "
                        "--out results/vlm/image.jsonl --allow-errors",  # 400/401 rows on purpose
                 "deps": ["bench/items.jsonl"], "params": ["models.vlm"],
                 "outs": ["results/vlm/image.jsonl"]},
        "score": {"cmd": "bench-kit eval score --items bench/items.jsonl --model vlm "
                         "--results results/vlm --out scores/vlm --metrics metrics/vlm.json",
                  "deps": ["results/vlm/image.jsonl"], "outs": ["scores/vlm"],
                  "metrics": [{"metrics/vlm.json": {"cache": False}}]},
        "report": {"cmd": "bench-kit report --items bench/items.jsonl --scores scores "
                          "--metrics metrics --results results --out reports",
                   "deps": ["scores/vlm", "metrics/vlm.json"], "outs": ["reports"]},
    }
    (root / "dvc.yaml").write_text(yaml.safe_dump({"stages": stages}, sort_keys=False))


def _files_holding(root: Path, secret: bytes) -> list[str]:
    found = []
    for path in root.rglob("*"):
        if path.is_file() and not path.is_symlink() and secret in path.read_bytes():
            found.append(str(path.relative_to(root)))
    return found


def test_a_run_writes_the_key_nowhere(tmp_path) -> None:
    root = tmp_path / "project"
    root.mkdir()
    env = dict(os.environ, **{ENV_NAME: SENTINEL}, DVC_NO_ANALYTICS="1",
               PATH=f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}")
    with FakeOpenAI() as server:
        _project(root, server.url)
        logs = {}
        for step, cmd in (("init", ["dvc", "init", "--no-scm", "-q"]),
                          ("repro", ["dvc", "repro"]),
                          ("metrics", ["dvc", "metrics", "show"]),
                          ("again", [sys.executable, "-m", "bench_kit", "eval", "run",
                                     "--items", "bench/items.jsonl", "--model", "vlm",
                                     "--out", "results/again.jsonl", "--allow-errors"])):
            proc = subprocess.run(cmd, cwd=root, env=env, capture_output=True, timeout=300)
            assert proc.returncode == 0, proc.stderr.decode()[-3000:]
            logs[step] = proc.stdout + proc.stderr
            (root / f"{step}.log").write_bytes(logs[step])
        sent = [r["headers"].get("authorization") for r in server.requests]
    assert sent and all(h == f"Bearer {SENTINEL}" for h in sent)  # the key was really used
    assert (root / "dvc.lock").is_file() and (root / "reports" / "report.html").is_file()
    assert _files_holding(root, SENTINEL.encode()) == []
    assert _files_holding(root, SENTINEL[3:].encode()) == []  # not even without its prefix
    errors = {p["id"]: p["error"] for p in read_jsonl(root / "results/vlm/image.jsonl")}
    assert errors["echo401"] == f"HTTP 401: not authorised (check ${ENV_NAME})"
    assert errors["echo400"] == "HTTP 400: Incorrect API key provided: [key]"
    assert all(errors[f"q{n}"] is None for n in range(4))


def test_the_key_comes_only_from_the_environment(tmp_path) -> None:
    from bench_kit.errors import ConfigError
    from bench_kit.models.config import ModelConfig, load_model_config

    params = {"models": {"vlm": {"adapter": "openai", "model": "m",
                                 "base_url": "http://x/v1", "api_key": SENTINEL}}}
    with pytest.raises(ConfigError, match=r"models\.vlm\.api_key: unknown key"):
        load_model_config(params, "vlm")
    config = ModelConfig(adapter="openai", model="m", base_url="http://x/v1",
                         api_key_env=ENV_NAME)
    assert SENTINEL not in repr(config) and SENTINEL not in config.model_dump_json()
