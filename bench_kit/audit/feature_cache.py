"""On-disk cache of expensive audit features (embeddings, MinHash signatures, image hashes).

Each entry is one `.npy` file named by a key built from what determines its content: the
corpus content hash plus the feature's settings and model/version, so a changed corpus or
model never reads a stale entry, and a second audit against the same corpus computes
nothing again. Files are written atomically; a corrupt entry is recomputed.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
from pathlib import Path
from typing import Any, Callable, Iterator

from bench_kit.io import atomic_path

DEFAULT_CACHE_DIR = ".bench_kit/audit-cache"


def feature_key(kind: str, **parts: Any) -> str:
    """A file-name-safe key: `kind-<sha256 of the parts, 24 hex>`.

    >>> feature_key("emb", corpus="abc", model="m") == feature_key("emb", model="m", corpus="abc")
    True
    """
    canonical = json.dumps(parts, sort_keys=True, ensure_ascii=False, separators=(",", ":"))
    return f"{kind}-{hashlib.sha256(canonical.encode()).hexdigest()[:24]}"


def load_array(cache_dir: str | Path | None, key: str) -> Any:
    """The array stored under `key`, or None (no cache dir, no entry, or an unreadable one)."""
    import numpy as np

    if cache_dir is None:
        return None
    path = Path(cache_dir) / f"{key}.npy"
    if not path.exists():
        return None
    try:  # memory-mapped: a large corpus's features are read from disk as they are used
        return np.load(path, allow_pickle=False, mmap_mode="r")
    except (OSError, ValueError):
        return None  # a truncated or foreign file: the caller recomputes and replaces it


def save_array(cache_dir: str | Path | None, key: str, value: Any) -> None:
    """Store `value` under `key` atomically (nothing when caching is off)."""
    import numpy as np

    if cache_dir is None:
        return
    with atomic_path(Path(cache_dir) / f"{key}.npy") as tmp:
        with open(tmp, "wb") as handle:  # streamed to disk: no second copy in memory
            np.save(handle, np.ascontiguousarray(value), allow_pickle=False)


@contextlib.contextmanager
def array_sink(cache_dir: str | Path | None, key: str, shape: tuple[int, ...],
               dtype: str) -> Iterator[Any]:
    """A writable array stored under `key` when the block ends without an error: a
    memory-mapped file in the cache folder (so a large feature table never sits in memory),
    or None when caching is off."""
    import numpy as np

    if cache_dir is None:
        yield None
        return
    with atomic_path(Path(cache_dir) / f"{key}.npy") as tmp:
        sink = np.lib.format.open_memmap(tmp, mode="w+", dtype=dtype, shape=shape)
        yield sink
        sink.flush()
        del sink


def cached_array(cache_dir: str | Path | None, key: str, compute: Callable[[], Any]) -> Any:
    """The numpy array stored under `key`, or `compute()` stored there first.

    `cache_dir=None` switches caching off (compute every time).
    """
    value = load_array(cache_dir, key)
    if value is None:
        value = compute()
        save_array(cache_dir, key, value)
    return value


def text_digest(texts: list[str]) -> str:
    """sha256 of a list of texts (their order included)."""
    digest = hashlib.sha256()
    for text in texts:
        digest.update(text.encode("utf-8"))
        digest.update(b"\x00")
    return digest.hexdigest()
