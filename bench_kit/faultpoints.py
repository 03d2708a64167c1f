"""Fault points: named moments where a crash test can kill the process (tests only).

Library code calls `hit(name)` at moments that matter for crash safety: the atomic rename
of an output file (`io.rename`: the complete `.tmp` exists, the target not yet replaced),
the call-cache commit (`cache.commit`: a model's answer about to be committed) and each
finished row of `eval run` (`eval.row`). With the environment variable
`BENCH_KIT_KILL_AT=NAME:K` the K-th hit of NAME in this process writes one line
`faultpoint: SIGKILL at NAME #K` to stderr and kills the process with SIGKILL, as
`kill -9` would (tests/eval/test_crash_safety.py). Unset (always, outside tests), `hit`
returns at once: the variable is read once, at import.
"""

from __future__ import annotations

import os
import signal
import sys
import threading

ENV = "BENCH_KIT_KILL_AT"
POINTS = ("io.rename", "cache.commit", "eval.row")


def _parse(value: str | None) -> tuple[str, int] | None:
    if not value:
        return None
    name, _, count = value.rpartition(":")
    if name not in POINTS or not count.isdigit() or int(count) < 1:
        raise ValueError(f"{ENV}={value!r}: expected NAME:K with NAME one of "
                         f"{', '.join(POINTS)} and K >= 1")
    return name, int(count)


_TARGET = _parse(os.environ.get(ENV))
_hits = 0
_lock = threading.Lock()


def hit(name: str) -> None:
    """Mark a fault point; kill the process here when BENCH_KIT_KILL_AT names this hit."""
    if _TARGET is None or _TARGET[0] != name:
        return
    global _hits
    with _lock:
        _hits += 1
        if _hits == _TARGET[1]:
            sys.stderr.write(f"faultpoint: SIGKILL at {name} #{_hits}\n")
            sys.stderr.flush()
            os.kill(os.getpid(), signal.SIGKILL)
