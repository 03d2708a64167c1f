"""One writer per output file: a second run that would write the same file stops at once
with a message naming the file and the run that holds it, instead of both writing it.

The lock is an advisory `flock` on a small file in a lock folder (named by the hash of the
output's absolute path), never next to the output: output folders hold only outputs. The
kernel drops the lock when its process ends, however it ends, so a killed run never
leaves a stale lock behind.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
from datetime import datetime, timezone
from pathlib import Path
from typing import Iterator

from bench_kit.errors import BusyError, param


def locks_beside(cache_file: str | Path) -> Path:
    """The lock folder of the runs sharing `cache_file`: `<cache>.locks/` next to it."""
    cache_file = Path(cache_file)
    return cache_file.with_name(cache_file.name + ".locks")


@contextlib.contextmanager
def one_writer(out: str | Path, lock_dir: str | Path) -> Iterator[None]:
    """Hold the writer lock of `out` for the block (`lock_dir`: see `locks_beside`).

    Raises:
        BusyError: another process holds it.
    """
    try:
        import fcntl
    except ImportError:  # not a POSIX system: no lock, as before
        yield
        return
    lock_dir = Path(lock_dir)
    lock_dir.mkdir(parents=True, exist_ok=True)
    name = hashlib.sha256(str(Path(out).resolve()).encode("utf-8")).hexdigest()[:24]
    with open(lock_dir / f"{name}.lock", "a+", encoding="utf-8") as handle:
        try:
            fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError as exc:
            handle.seek(0)
            holder = handle.read().strip() or "another process"
            raise BusyError(f"{out}: another run is writing this file ({holder}); wait for "
                            f"it to finish, or write elsewhere with {param('out')}") from exc
        handle.seek(0)
        handle.truncate()
        since = datetime.now(timezone.utc).replace(microsecond=0).isoformat()
        handle.write(f"pid {os.getpid()}, since {since}")
        handle.flush()
        try:
            yield
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)
