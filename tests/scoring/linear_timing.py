"""Timing for the linearity tests: twice the characters must take at most 2.5 times as long
(docs/BENCHMARKS.md#extraction-speed). CPU time (other processes on a shared machine do not
count), without the garbage collector, each text called often enough that one measurement
lasts at least MIN_BATCH seconds (a single call of a few milliseconds is within the clock's
and the caches' noise: a CI run once read 6.5 ms against 20.5 ms on a shape that is 2.0x)."""

from __future__ import annotations

import gc
import math
import statistics
import time
from typing import Any, Callable

MIN_BATCH = 0.05  # seconds of CPU per measurement
MAX_RATIO = 2.5


def _batch(call: Callable[[str], Any], text: str, number: int) -> float:
    start = time.process_time()
    for _ in range(number):
        call(text)
    return (time.process_time() - start) / number


def _rounds(short: str, long: str, rounds: int,
            call: Callable[[str], Any]) -> list[tuple[float, float]]:
    """CPU time per call of `call` on each text, round by round (the two texts measured one
    right after the other in each round)."""
    gc.collect()
    gc.disable()
    try:
        number = max(1, math.ceil(MIN_BATCH / max(_batch(call, short, 1), 1e-6)))
        return [(_batch(call, short, number), _batch(call, long, number))
                for _ in range(rounds)]
    finally:
        gc.enable()


def best_pair(short: str, long: str, rounds: int,
              call: Callable[[str], Any]) -> tuple[float, float]:
    """The best CPU time per call of `call` on each text over `rounds` alternating rounds."""
    times = _rounds(short, long, rounds, call)
    return min(t[0] for t in times), min(t[1] for t in times)


def assert_linear(label: str, short: str, long: str, call: Callable[[str], Any],
                  rounds: int = 3) -> None:
    """Fail when `long` (twice `short`) takes more than MAX_RATIO times as long. The first
    look compares the best times; when it fails, a longer look compares the two texts round
    by round and takes the median ratio, so that one lucky round of the short text (a CI run
    once read 0.042 s against its usual 0.054 s) cannot fail a linear shape, while a
    superlinear one (every round's ratio near 4) still fails."""
    half, full = best_pair(short, long, rounds, call)
    if full <= MAX_RATIO * half:
        return
    times = _rounds(short, long, 2 * rounds + 3, call)
    ratio = statistics.median(slow / fast for fast, slow in times)
    assert ratio <= MAX_RATIO, (label, half, full, round(ratio, 2), times)
