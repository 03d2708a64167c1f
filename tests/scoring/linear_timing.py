"""Timing for the linearity tests: twice the characters must take at most 2.5 times as long
(docs/BENCHMARKS.md#extraction-speed). CPU time (other processes on a shared machine do not
count), without the garbage collector, each text called often enough that one measurement
lasts at least MIN_BATCH seconds (a single call of a few milliseconds is within the clock's
and the caches' noise: a CI run once read 6.5 ms against 20.5 ms on a shape that is 2.0x)."""

from __future__ import annotations

import gc
import math
import time
from typing import Any, Callable

MIN_BATCH = 0.05  # seconds of CPU per measurement
MAX_RATIO = 2.5


def _batch(call: Callable[[str], Any], text: str, number: int) -> float:
    start = time.process_time()
    for _ in range(number):
        call(text)
    return (time.process_time() - start) / number


def best_pair(short: str, long: str, rounds: int,
              call: Callable[[str], Any]) -> tuple[float, float]:
    """The best CPU time per call of `call` on each text over `rounds` alternating rounds."""
    gc.collect()
    gc.disable()
    try:
        number = max(1, math.ceil(MIN_BATCH / max(_batch(call, short, 1), 1e-6)))
        best = [math.inf, math.inf]
        for _ in range(rounds):
            for slot, text in enumerate((short, long)):
                best[slot] = min(best[slot], _batch(call, text, number))
    finally:
        gc.enable()
    return best[0], best[1]


def assert_linear(label: str, short: str, long: str, call: Callable[[str], Any],
                  rounds: int = 3) -> None:
    """Fail when `long` (twice `short`) takes more than MAX_RATIO times as long; one more,
    longer look before calling it superlinear (caches and clock speed vary on a busy
    machine)."""
    half, full = best_pair(short, long, rounds, call)
    if full > MAX_RATIO * half:
        again = best_pair(short, long, 2 * rounds + 2, call)
        half, full = min(half, again[0]), min(full, again[1])
    assert full <= MAX_RATIO * half, (label, half, full)
