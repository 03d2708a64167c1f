"""Several processes opening one new call cache at once all succeed (the WAL switch answers
"database is locked" at once, without waiting for the busy timeout, so opening retries)."""

from __future__ import annotations

import multiprocessing as mp
from pathlib import Path


def _open(path: str, barrier, results) -> None:
    from bench_kit.models.cache import CallCache

    barrier.wait()
    try:
        CallCache(path)
        results.put("ok")
    except Exception as exc:  # reported to the parent, which asserts on it
        results.put(f"{type(exc).__name__}: {exc}")


def test_processes_opening_one_new_cache_at_once_all_succeed(tmp_path: Path) -> None:
    ctx = mp.get_context("spawn")
    outcomes = []
    for round_ in range(3):
        path = str(tmp_path / f"r{round_}" / "calls.sqlite")
        barrier, results = ctx.Barrier(6), ctx.Queue()
        workers = [ctx.Process(target=_open, args=(path, barrier, results)) for _ in range(6)]
        for worker in workers:
            worker.start()
        for worker in workers:
            worker.join(60)
        outcomes += [results.get(timeout=5) for _ in workers]
    assert outcomes == ["ok"] * 18, [o for o in outcomes if o != "ok"]
