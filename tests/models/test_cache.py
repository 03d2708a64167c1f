"""The SQLite call cache: keys, round trips, WAL mode, concurrent writers, bad files."""

from __future__ import annotations

import asyncio
import sqlite3
from datetime import datetime, timezone

import pytest

from bench_kit.models.cache import CallCache, CallRecord, cache_key

WHEN = datetime(2026, 5, 1, 12, 0, 0, tzinfo=timezone.utc)


def test_key_is_canonical_and_sensitive_to_every_part() -> None:
    base = {"adapter": "openai", "identity": {"model": "m"}, "prompt": "p", "images": ["h1"],
            "max_tokens": 16, "temperature": 0.0, "mode": "image", "rotation": 0}
    reordered = dict(reversed(list(base.items())))
    assert cache_key(base) == cache_key(reordered)
    changed = [cache_key({**base, key: value}) for key, value in [
        ("prompt", "p2"), ("images", ["h2"]), ("max_tokens", 17), ("temperature", 0.5),
        ("mode", "no_image"), ("rotation", 1), ("identity", {"model": "m2"})]]
    assert len(set(changed + [cache_key(base)])) == len(changed) + 1


def test_record_round_trips_and_survives_reopening(tmp_path) -> None:
    path = tmp_path / "deep" / "cache.sqlite"
    record = CallRecord(response="The answer is B.", tokens_in=12, tokens_out=3,
                        latency_s=0.25, cost=1.5e-05, truncated=True,
                        meta={"ocr_text": "EXIT 出口"}, created_at=WHEN)
    with CallCache(path) as cache:
        assert cache.get("k") is None
        cache.put("k", record)
    with CallCache(path) as cache:
        assert cache.get("k") == record
        assert len(cache) == 1
    mode = sqlite3.connect(path).execute("PRAGMA journal_mode").fetchone()[0]
    assert mode == "wal"


def test_put_replaces_an_existing_entry(tmp_path) -> None:
    with CallCache(tmp_path / "c.sqlite") as cache:
        cache.put("k", CallRecord(response="old", created_at=WHEN))
        cache.put("k", CallRecord(response="new", created_at=WHEN))
        assert cache.get("k").response == "new"
        assert len(cache) == 1


def test_concurrent_async_writers_lose_nothing(tmp_path) -> None:
    path = tmp_path / "c.sqlite"

    async def write_all(cache: CallCache) -> None:
        async def one(n: int) -> None:
            await asyncio.sleep(0)
            await asyncio.to_thread(cache.put, f"k{n}", CallRecord(response=str(n)))

        await asyncio.gather(*(one(n) for n in range(200)))

    with CallCache(path) as cache:
        asyncio.run(write_all(cache))
    # Committed per call: a second connection sees every row without any explicit commit.
    with CallCache(path) as reader:
        assert len(reader) == 200
        assert reader.get("k137").response == "137"


def test_a_file_that_is_not_sqlite_is_a_storage_error(tmp_path) -> None:
    from bench_kit.errors import StorageError

    path = tmp_path / "cache.sqlite"
    path.write_text("this is not a database, just text " * 40)
    with pytest.raises(StorageError, match=r"call cache: opening failed \(file is not a "
                                           r"database\); the file is damaged: move it away"):
        CallCache(path)
