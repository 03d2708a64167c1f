"""On-disk embedding cache: one SQLite file, one row per (model name, text), float32 bytes.

A team can share it (like the model-call cache): every backend's vectors live under its
own model name, so switching backends never mixes vectors. WAL mode; each batch is
committed as it arrives, so an interrupted run keeps every vector it was sent.
"""

from __future__ import annotations

import hashlib
import sqlite3
from pathlib import Path
from typing import Any, Sequence

from bench_kit.errors import StorageError


def text_key(text: str) -> str:
    """sha256 of the text (UTF-8)."""
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


class VectorCache:
    """`get_many` / `put_many` by (model, text); `path=None` keeps nothing."""

    def __init__(self, path: str | Path | None) -> None:
        self._db: sqlite3.Connection | None = None
        self.path = path
        if path is not None:
            Path(path).parent.mkdir(parents=True, exist_ok=True)
            self._db = sqlite3.connect(str(path), check_same_thread=False)
            self._db.execute("PRAGMA journal_mode=WAL")
            self._db.execute("CREATE TABLE IF NOT EXISTS vectors (model TEXT NOT NULL, "
                             "text_sha TEXT NOT NULL, vector BLOB NOT NULL, "
                             "PRIMARY KEY (model, text_sha))")
            self._db.commit()

    def get_many(self, model: str, texts: Sequence[str]) -> dict[str, Any]:
        """text -> vector for the texts already stored under `model`."""
        import numpy as np

        if self._db is None or not texts:
            return {}
        keys = {text_key(t): t for t in texts}
        found: dict[str, Any] = {}
        items = list(keys)
        for start in range(0, len(items), 500):
            chunk = items[start:start + 500]
            marks = ",".join("?" * len(chunk))
            for sha, blob in self._db.execute(
                    f"SELECT text_sha, vector FROM vectors WHERE model = ? AND text_sha IN "
                    f"({marks})", [model, *chunk]):
                found[keys[sha]] = np.frombuffer(blob, dtype="float32")
        return found

    def put_many(self, model: str, texts: Sequence[str], vectors: Any) -> None:
        """Store `vectors[i]` for `texts[i]` under `model` (one transaction).

        Raises:
            StorageError: the disk is full, or the file cannot be written.
        """
        if self._db is None or not len(texts):
            return
        rows = [(model, text_key(t), bytes(memoryview(v.astype("float32"))))
                for t, v in zip(texts, vectors)]
        try:
            with self._db:
                self._db.executemany("INSERT OR REPLACE INTO vectors VALUES (?, ?, ?)", rows)
        except sqlite3.Error as exc:
            raise StorageError(f"{self.path}: vector cache: storing vectors failed ({exc}); "
                               f"free disk space or check the disk and the file, then re-run "
                               f"(every vector stored before is kept)") from exc

    def close(self) -> None:
        """Close the database."""
        if self._db is not None:
            self._db.close()
            self._db = None
