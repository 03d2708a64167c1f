"""Best CPU seconds of `extract_yesno` on 500k and 1M characters of negation-dense text
(the shapes a review of the chat-prose rules timed); docs/BENCHMARKS.md#extraction.

    PYTHONPATH=. python benchmarks/yesno_negation_time.py
"""

from __future__ import annotations

import gc
import time

from bench_kit.scoring.extract.yesno import extract_yesno

UNITS = ("it may not ", "not only ", "people who do not ", "I do not have ")


def best_seconds(text: str, rounds: int = 3) -> float:
    """The best CPU time of `extract_yesno` on `text` over `rounds` runs."""
    best = float("inf")
    gc.disable()
    try:
        for _ in range(rounds):
            start = time.process_time()
            extract_yesno(text, "Is it red?")
            best = min(best, time.process_time() - start)
    finally:
        gc.enable()
    return best


def main() -> None:
    print("| 1M characters of | 500k s | 1M s | ratio |")
    print("|---|---:|---:|---:|")
    for unit in UNITS:
        half, full = (best_seconds((unit * (n // len(unit) + 1))[:n]) for n in (500_000, 1_000_000))
        print(f"| {unit!r} | {half:.2f} | {full:.2f} | {full / half:.2f} |")


if __name__ == "__main__":
    main()
