"""The scale path: one model load-balanced over several `base_url`s (data-parallel replicas),
and DVC remotes.

A replica that fails mid-run (503s, or its process gone: connections reset and refused)
must not cost any item: the other replicas take its items. `dvc push` to a local remote
and `dvc pull` in a fresh clone restore every output byte for byte.
"""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import sys
from pathlib import Path

import pytest
import yaml
from conftest import make_item
from faults_server import ANSWERS, FaultServer

from bench_kit.eval.runner import RunSpec, run_eval
from bench_kit.io import read_jsonl, write_jsonl
from bench_kit.models.cache import CallCache

N_ITEMS = 200


def _bench(tmp_path: Path, urls: list[str], *, max_retries: int = 3) -> tuple[Path, Path]:
    items = tmp_path / "items.jsonl"
    write_jsonl(items, [make_item(id=f"r{n:03d}", question=f"Is box {n} open?", task="yesno",
                                  answers=["yes"]) for n in range(N_ITEMS)])
    model = {"adapter": "openai", "model": "vlm-dp", "base_url": urls, "concurrency": 12,
             "timeout_s": 10.0, "max_retries": max_retries, "backoff_s": 0.01}
    params = tmp_path / "params.yaml"
    params.write_text(yaml.safe_dump({"bench": "dp", "eval": {
        "cache": str(tmp_path / "calls.sqlite"), "models": {"vlm": model}}}))
    return items, params


def _run(tmp_path: Path, urls: list[str], **bench) -> tuple[list[dict], object]:
    items, params = _bench(tmp_path, urls, **bench)
    out = tmp_path / "out.jsonl"
    summary = run_eval(RunSpec(model="vlm", items=items, params=params, out=out))
    return read_jsonl(out), summary


def _answered(*servers: FaultServer) -> list[str]:
    return [e["prompt"] for s in servers for e in s.log if e["fault"] is None]


def _dead_url() -> str:
    with socket.socket() as sock:  # a port nobody listens on: connections are refused
        sock.bind(("127.0.0.1", 0))
        return f"http://127.0.0.1:{sock.getsockname()[1]}/v1"


@pytest.mark.parametrize("fail_mode", ["503", "close"])
def test_a_replica_failing_mid_run_loses_no_item(tmp_path, fail_mode) -> None:
    with FaultServer(delay_s=0.005) as one, FaultServer(delay_s=0.005) as two, \
            FaultServer(delay_s=0.005, fail_after=25, fail_mode=fail_mode) as failing:
        preds, summary = _run(tmp_path, [one.url, two.url, failing.url])
    assert summary.errors == 0, [p["error"] for p in preds if p["error"]][:3]
    assert len(preds) == N_ITEMS and all(p["response"] is not None for p in preds)
    answered = _answered(one, two, failing)
    assert len(answered) == len(set(answered)) == N_ITEMS  # each item answered exactly once
    assert sum(e["fault"] == "down" for e in failing.log) >= 1  # it did fail mid-run
    assert len(_answered(failing)) == 25
    assert len(_answered(one)) > 25 and len(_answered(two)) > 25
    with CallCache(tmp_path / "calls.sqlite") as cache:
        assert len(cache) == N_ITEMS


def test_a_replica_down_from_the_start_is_routed_around(tmp_path) -> None:
    with FaultServer() as one, FaultServer() as two:
        preds, summary = _run(tmp_path, [_dead_url(), one.url, two.url])
    assert summary.errors == 0, [p["error"] for p in preds if p["error"]][:3]
    assert len(_answered(one, two)) == N_ITEMS
    assert all(p["response"] in ANSWERS for p in preds)


def test_all_replicas_down_gives_errors_with_reasons_not_lost_items(tmp_path) -> None:
    preds, summary = _run(tmp_path, [_dead_url(), _dead_url()], max_retries=1)
    assert summary.errors == N_ITEMS and len(preds) == N_ITEMS
    assert {p["error"] for p in preds} == {
        "connection error (ClientConnectorError) (gave up after 2 attempts)"}


# --- DVC remotes: the local remote is the tested default --------------------------------

def _dvc(args: list[str], cwd: Path) -> str:
    env = dict(os.environ, DVC_NO_ANALYTICS="1",
               PATH=f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}")
    proc = subprocess.run(["dvc", *args], cwd=cwd, env=env, capture_output=True, text=True,
                          timeout=300)
    assert proc.returncode == 0, f"dvc {' '.join(args)}:\n{proc.stderr[-3000:]}"
    return proc.stdout


@pytest.mark.slow
def test_dvc_push_to_a_local_remote_then_pull_into_a_fresh_clone(tmp_path) -> None:
    project, remote, clone = tmp_path / "project", tmp_path / "remote", tmp_path / "clone"
    write_jsonl(project / "data" / "items.jsonl",
                [make_item(id=f"d{n}", question=f"How many dots in {n}?", group=f"g{n % 7}")
                 for n in range(40)])
    (project / "params.yaml").write_text(yaml.safe_dump({"split": {"seed": 3,
                                                                   "dev_share": 0.3}}))
    (project / "dvc.yaml").write_text(yaml.safe_dump({"stages": {"split": {
        "cmd": "bench-kit split --items data/items.jsonl --out splits",
        "deps": ["data/items.jsonl"], "params": ["split"], "outs": ["splits"]}}}))
    _dvc(["init", "--no-scm", "-q"], project)
    _dvc(["add", "data/items.jsonl"], project)
    _dvc(["repro"], project)
    _dvc(["remote", "add", "-d", "local", str(remote)], project)
    _dvc(["push"], project)
    # A clone carries what git tracks: dvc.yaml, dvc.lock, params, *.dvc and .dvc/config.
    clone.mkdir()
    _dvc(["init", "--no-scm", "-q"], clone)
    for name in ("dvc.yaml", "dvc.lock", "params.yaml", "data/items.jsonl.dvc",
                 ".dvc/config"):
        (clone / name).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy(project / name, clone / name)
    assert not (clone / "splits").exists() and not (clone / "data" / "items.jsonl").exists()
    _dvc(["pull"], clone)
    for rel in ("data/items.jsonl", "splits/dev.jsonl", "splits/test.jsonl",
                "splits/manifest.json"):
        assert (clone / rel).read_bytes() == (project / rel).read_bytes(), rel
    assert "up to date" in _dvc(["status"], clone).lower()


MERGE_SQL = "ATTACH DATABASE ? AS theirs; INSERT OR IGNORE INTO calls SELECT * FROM theirs.calls;"


def test_the_documented_cache_merge_recipe_unions_two_users_caches(tmp_path) -> None:
    """docs/REMOTES.md: per-user caches merged into a shared one with plain SQLite."""
    import sqlite3

    from bench_kit.models.cache import CallRecord

    with CallCache(tmp_path / "alice.sqlite") as alice, \
            CallCache(tmp_path / "bob.sqlite") as bob:
        alice.put("k1", CallRecord(response="from alice"))
        alice.put("shared", CallRecord(response="alice's copy"))
        bob.put("k2", CallRecord(response="from bob"))
        bob.put("shared", CallRecord(response="bob's copy"))
    with CallCache(tmp_path / "team.sqlite") as team:
        team.put("k0", CallRecord(response="already there"))
    for user in ("alice", "bob"):
        with sqlite3.connect(tmp_path / "team.sqlite") as conn:
            attach, insert = MERGE_SQL.split("; ")
            conn.execute(attach, (str(tmp_path / f"{user}.sqlite"),))
            conn.execute(insert)
    with CallCache(tmp_path / "team.sqlite") as team:
        assert len(team) == 4
        assert [team.get(k).response for k in ("k0", "k1", "k2", "shared")] == [
            "already there", "from alice", "from bob", "alice's copy"]
