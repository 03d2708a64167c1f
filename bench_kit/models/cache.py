"""The model-call cache: one SQLite file (WAL mode), one row per successful call.

Each call is committed on its own, so a process killed at any moment loses at most the
calls in flight. Failed calls are never stored: a re-run retries them.

Several processes may share one cache: before calling the model for a key, a run claims
the key (`claim`); a second run that finds the key claimed waits for the answer instead of
calling the model again (bench_kit.models.batch). A claim ends when its answer is stored,
when the call fails (`release`), when the cache is closed, or when its process is gone
(a claim of a dead process on this host, or older than `CLAIM_STALE_S`, is taken over).
"""

from __future__ import annotations

import hashlib
import json
import os
import socket
import sqlite3
import threading
import time
import uuid
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from bench_kit import faultpoints
from bench_kit.errors import ConfigError, StorageError

# Bump when the meaning of a key part changes, so old rows are no longer matched.
KEY_VERSION = 1
SCHEMA_VERSION = 1
# How long opening the cache retries while another process holds it ("database is locked").
OPEN_WAIT_S = 30.0

_SCHEMA = """
CREATE TABLE IF NOT EXISTS calls (
    key        TEXT PRIMARY KEY,
    response   TEXT NOT NULL,
    tokens_in  INTEGER NOT NULL,
    tokens_out INTEGER NOT NULL,
    latency_s  REAL NOT NULL,
    cost       REAL NOT NULL,
    truncated  INTEGER NOT NULL,
    meta       TEXT NOT NULL,
    created_at TEXT NOT NULL
)
"""


_CLAIMS = """
CREATE TABLE IF NOT EXISTS claims (
    key   TEXT PRIMARY KEY,
    owner TEXT NOT NULL,
    host  TEXT NOT NULL,
    pid   INTEGER NOT NULL,
    at    REAL NOT NULL
)
"""
# A claim older than this is taken over even when its process cannot be checked (another
# host): no single call (timeout x attempts + waits) lasts that long with sane settings.
CLAIM_STALE_S = 3600.0


def cache_key(parts: dict[str, Any]) -> str:
    """sha256 hex of the canonical JSON of `parts` (sorted keys, no spaces).

    >>> cache_key({"b": 1, "a": [1, 2]}) == cache_key({"a": [1, 2], "b": 1})
    True
    """
    canonical = json.dumps({"key_version": KEY_VERSION, **parts}, sort_keys=True,
                           ensure_ascii=False, separators=(",", ":"), allow_nan=False)
    return hashlib.sha256(canonical.encode("utf-8")).hexdigest()


def utc_now() -> datetime:
    """The current UTC time to the second (what the cache stamps on new rows)."""
    return datetime.now(timezone.utc).replace(microsecond=0)


@dataclass(frozen=True)
class CallRecord:
    """One cached call: the raw response and what it cost."""

    response: str
    tokens_in: int = 0
    tokens_out: int = 0
    latency_s: float = 0.0
    cost: float = 0.0
    truncated: bool = False
    meta: dict[str, Any] = field(default_factory=dict)
    created_at: datetime = field(default_factory=utc_now)


class CallCache:
    """A SQLite-backed map from cache key to `CallRecord`.

    One connection guarded by a lock: safe for many asyncio tasks (and worker threads) of
    one process; WAL mode and a busy timeout let a second process read and write too.
    """

    def __init__(self, path: str | Path) -> None:
        self.path = Path(path)
        self._lock = threading.Lock()
        self._owner = uuid.uuid4().hex
        self._host, self._pid = socket.gethostname(), os.getpid()
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            reason = exc.strerror or type(exc).__name__
            raise ConfigError(f"{self.path}: cannot create the call cache ({reason})") from exc
        # Two runs opening one new cache at once: switching to WAL takes a lock SQLite's busy
        # timeout does not wait for (it answers "database is locked" at once), so the
        # opening is retried with backoff for up to OPEN_WAIT_S before it is an error.
        deadline = time.monotonic() + OPEN_WAIT_S
        delay = 0.02
        while True:
            try:
                self._conn = self._connect()
                return
            except sqlite3.OperationalError as exc:
                text = str(exc)
                if ("locked" not in text and "busy" not in text) \
                        or time.monotonic() + delay > deadline:
                    raise self._fault(exc, "opening") from exc
            except sqlite3.Error as exc:
                raise self._fault(exc, "opening") from exc
            except OSError as exc:
                reason = exc.strerror or type(exc).__name__
                raise ConfigError(f"{self.path}: cannot open the call cache ({reason})") from exc
            time.sleep(delay)
            delay = min(delay * 2, 0.5)

    def _connect(self) -> sqlite3.Connection:
        """Open the file, switch it to WAL (once: the mode is kept in the file) and create
        the tables; the connection is closed again if any step fails."""
        # isolation_level=None: autocommit, so every put is its own committed transaction.
        conn = sqlite3.connect(self.path, isolation_level=None, check_same_thread=False,
                               timeout=30.0)
        try:
            if conn.execute("PRAGMA journal_mode").fetchone()[0].lower() != "wal":
                conn.execute("PRAGMA journal_mode=WAL")
            conn.execute("PRAGMA synchronous=NORMAL")
            version = conn.execute("PRAGMA user_version").fetchone()[0]
            if version not in (0, SCHEMA_VERSION):
                raise ConfigError(f"{self.path}: call cache has schema version {version}, "
                                  f"this bench_kit reads {SCHEMA_VERSION}; move the file away")
            conn.execute(_SCHEMA)
            conn.execute(_CLAIMS)
            if version != SCHEMA_VERSION:
                conn.execute(f"PRAGMA user_version={SCHEMA_VERSION}")
        except BaseException:
            conn.close()
            raise
        return conn

    def _fault(self, exc: sqlite3.Error, doing: str) -> StorageError:
        """A one-line error naming the file, what failed and the fix."""
        text = str(exc)
        if "full" in text:
            fix = "free disk space and re-run (every call stored before is kept)"
        elif "I/O" in text:  # a refused write: over a size limit, or a failing disk
            fix = ("the disk refused a write: free disk space or check the disk, then re-run "
                   "(every call stored before is kept)")
        elif "locked" in text or "busy" in text:
            fix = "another process holds the cache too long; re-run when it is done"
        elif isinstance(exc, sqlite3.OperationalError) and "malformed" not in text:
            fix = "check the disk and the file's permissions, then re-run"
        else:
            fix = ("the file is damaged: move it away (or delete it) and re-run; the answers "
                   "it held will be asked again")
        return StorageError(f"{self.path}: call cache: {doing} failed ({text}); {fix}")

    def _execute(self, doing: str, sql: str, values: tuple[Any, ...] = ()) -> sqlite3.Cursor:
        try:
            return self._conn.execute(sql, values)
        except sqlite3.Error as exc:
            raise self._fault(exc, doing) from exc

    def get(self, key: str) -> CallRecord | None:
        """The record stored under `key`, or None.

        Raises:
            StorageError: the file is damaged or cannot be read.
        """
        with self._lock:
            row = self._execute(
                "reading", "SELECT response, tokens_in, tokens_out, latency_s, cost, truncated, "
                "meta, created_at FROM calls WHERE key = ?", (key,)).fetchone()
        if row is None:
            return None
        return CallRecord(response=row[0], tokens_in=row[1], tokens_out=row[2],
                          latency_s=row[3], cost=row[4], truncated=bool(row[5]),
                          meta=json.loads(row[6]), created_at=datetime.fromisoformat(row[7]))

    def put(self, key: str, record: CallRecord) -> None:
        """Store (or replace) the record under `key`, committed before returning.

        Raises:
            StorageError: disk full, or the file is damaged or cannot be written.
        """
        values = (key, record.response, record.tokens_in, record.tokens_out,
                  record.latency_s, record.cost, int(record.truncated),
                  json.dumps(record.meta, sort_keys=True, ensure_ascii=False),
                  record.created_at.isoformat())
        with self._lock:
            faultpoints.hit("cache.commit")  # crash tests kill here, holding the lock
            try:  # the answer and the end of its claim in one transaction (one commit)
                with self._conn:
                    self._conn.execute("BEGIN IMMEDIATE")
                    self._conn.execute(
                        "INSERT OR REPLACE INTO calls VALUES (?,?,?,?,?,?,?,?,?)", values)
                    self._conn.execute("DELETE FROM claims WHERE key = ? AND owner = ?",
                                       (key, self._owner))
            except sqlite3.Error as exc:
                raise self._fault(exc, "storing an answer") from exc

    def claim(self, key: str) -> bool:
        """Claim `key` for a model call by this cache object: True when it is now ours (new,
        already ours, or taken over from a dead or stale owner), False while another live
        process holds it.

        Raises:
            StorageError: the file is damaged or cannot be written.
        """
        now = time.time()
        with self._lock:
            if self._execute("claiming", "INSERT OR IGNORE INTO claims VALUES (?,?,?,?,?)",
                             (key, self._owner, self._host, self._pid, now)).rowcount:
                return True
            row = self._execute("claiming", "SELECT owner, host, pid, at FROM claims "
                                            "WHERE key = ?", (key,)).fetchone()
            if row is None:  # released in between: one more try
                return self._execute("claiming", "INSERT OR IGNORE INTO claims VALUES "
                                                 "(?,?,?,?,?)", (key, self._owner, self._host,
                                                                 self._pid, now)).rowcount == 1
            owner, host, pid, at = row
            if owner == self._owner:
                return True
            if now - at < CLAIM_STALE_S and not (host == self._host and not _alive(pid)):
                return False
            return self._execute("claiming", "UPDATE claims SET owner = ?, host = ?, pid = ?, "
                                             "at = ? WHERE key = ? AND owner = ?",
                                 (self._owner, self._host, self._pid, now, key,
                                  owner)).rowcount == 1

    def release(self, key: str) -> None:
        """Give up the claim on `key` (its call failed: another run may try)."""
        with self._lock:
            self._execute("releasing a claim", "DELETE FROM claims WHERE key = ? AND owner = ?",
                          (key, self._owner))

    def __len__(self) -> int:
        with self._lock:
            return self._execute("counting", "SELECT COUNT(*) FROM calls").fetchone()[0]

    def close(self) -> None:
        """Release this object's claims and close the connection (the WAL is checkpointed
        by SQLite)."""
        with self._lock:
            try:
                self._conn.execute("DELETE FROM claims WHERE owner = ?", (self._owner,))
            except sqlite3.Error:
                pass  # a damaged or full file: its claims die with this process anyway
            self._conn.close()

    def __enter__(self) -> "CallCache":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def _alive(pid: int) -> bool:
    """Whether a process with this id runs on this host (a zombie counts as gone soon)."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:  # it exists, under another user
        return True
    return True
