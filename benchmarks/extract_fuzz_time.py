"""Time per answer-extractor call on random and adversarial strings (docs/BENCHMARKS.md
`## Extractor robustness`).

    .venv/bin/python benchmarks/extract_fuzz_time.py --random 3000 --sizes 1000,100000 --markdown

Random: `--random` strings of 0-400 pieces drawn from an answer-like alphabet (letters
A-D, yes/no, digits, brackets, punctuation, `<think>`, Chinese numerals, whitespace).
Adversarial: inputs built to trigger regex backtracking or deep scans (long runs of one
letter, of `(`, of digits and commas, of "answer is", of `<think>` without a close, of
box-like number lists, of yes/no alternations), each at every size in `--sizes`.
Baseline in the same run: `str.split()` on the same strings. Per extractor: median, p99
and max microseconds per call on random strings, and for each adversarial family the time
per call at the largest size and its ratio to the smallest size (x100 in length: a ratio
near 100 is linear, far above it is super-linear).
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import sys
import time
from pathlib import Path
from typing import Callable

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from bench_kit.scoring.extract.answers import extract_choice, extract_yesno  # noqa: E402
from bench_kit.scoring.extract.boxes import extract_box  # noqa: E402
from bench_kit.scoring.extract.checklist import parse_checklist  # noqa: E402
from bench_kit.text.numbers import extract_number  # noqa: E402

CHOICES = {"A": "red", "B": "blue", "C": "green (dark)", "D": "none of the above"}
ALPHABET = list("ABCDabcd()[]{}.:;,*#!?-/<> \n\t0123456789一二三十百千万") + [
    "yes", "no", "answer", "is", "The answer is ", "option ", "<think>", "</think>", "not "]

EXTRACTORS: dict[str, Callable[[str], object]] = {
    "baseline str.split": str.split,
    "extract_choice": lambda t: extract_choice(t, CHOICES),
    "extract_yesno": extract_yesno,
    "extract_number": extract_number,
    "extract_box": lambda t: extract_box(t, 640, 480),
    "parse_checklist": lambda t: parse_checklist(t, ["red circle", "blue square", "text"]),
}

ADVERSARIAL: dict[str, Callable[[int], str]] = {
    "one letter": lambda n: "A" * n,
    "open brackets": lambda n: "(" * n,
    "digits and commas": lambda n: ("1," * n)[:n],
    "answer is, repeated": lambda n: ("the answer is " * n)[:n],
    "unclosed <think>": lambda n: "<think>" + "x " * (n // 2),
    "box-like numbers": lambda n: ("[1, 2, 3, 4] " * n)[:n],
    "yes no alternation": lambda n: ("yes no " * n)[:n],
    "spaces then letter": lambda n: " " * (n - 1) + "B",
}


def _random_strings(count: int, seed: int) -> list[str]:
    rng = random.Random(seed)
    return ["".join(rng.choice(ALPHABET) for _ in range(rng.randint(0, 400)))
            for _ in range(count)]


def _per_call_us(func: Callable[[str], object], text: str, min_time: float = 0.02) -> float:
    calls, start = 0, time.perf_counter()
    while True:
        func(text)
        calls += 1
        elapsed = time.perf_counter() - start
        if elapsed >= min_time:
            return elapsed / calls * 1e6


def run(random_count: int, sizes: list[int], seed: int) -> dict:
    """The measurements as one JSON-ready dict."""
    strings = _random_strings(random_count, seed)
    out: dict = {"random": {}, "adversarial": {}, "random_count": random_count,
                 "sizes": sizes}
    for name, func in EXTRACTORS.items():
        times = []
        for text in strings:
            start = time.perf_counter()
            func(text)
            times.append((time.perf_counter() - start) * 1e6)
        times.sort()
        out["random"][name] = {"median_us": round(statistics.median(times), 1),
                               "p99_us": round(times[int(len(times) * 0.99) - 1], 1),
                               "max_us": round(times[-1], 1)}
    for family, build in ADVERSARIAL.items():
        row = {}
        for name, func in EXTRACTORS.items():
            per_size = {size: _per_call_us(func, build(size)) for size in sizes}
            row[name] = {"largest_ms": round(per_size[sizes[-1]] / 1000, 3),
                         "ratio": round(per_size[sizes[-1]] / per_size[sizes[0]], 1)}
        out["adversarial"][family] = row
    return out


def markdown(result: dict) -> str:
    """The measurements as the two tables of docs/BENCHMARKS.md."""
    names = list(EXTRACTORS)
    lines = ["| extractor | median µs | p99 µs | max µs |", "|---|---:|---:|---:|"]
    for name in names:
        r = result["random"][name]
        lines.append(f"| {name} | {r['median_us']} | {r['p99_us']} | {r['max_us']} |")
    big = result["sizes"][-1]
    ratio = big // result["sizes"][0]
    lines += ["", f"ms per call at {big:,} characters (x{ratio} length ratio: time ratio in "
                  f"brackets)", "",
              "| input | " + " | ".join(names) + " |", "|---|" + "---:|" * len(names)]
    for family, row in result["adversarial"].items():
        cells = [f"{row[n]['largest_ms']} ({row[n]['ratio']})" for n in names]
        lines.append(f"| {family} | " + " | ".join(cells) + " |")
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--random", type=int, default=3000)
    parser.add_argument("--sizes", default="1000,10000,100000")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--markdown", action="store_true", help="print tables, not JSON")
    args = parser.parse_args()
    sizes = [int(s) for s in args.sizes.split(",")]
    result = run(args.random, sizes, args.seed)
    print(markdown(result) if args.markdown else json.dumps(result, indent=2,
                                                            ensure_ascii=False))


if __name__ == "__main__":
    main()
