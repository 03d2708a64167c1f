"""Whitespace-run fuzz of the answer extractors (issue 25: linear in the answer's length).

    PYTHONPATH=$PWD .venv/bin/python benchmarks/space_fuzz.py mc [--seed 0] [--run " \\n"]
    PYTHONPATH=$PWD .venv/bin/python benchmarks/space_fuzz.py open --id r3-open-01547

Samples 250 short (< 160 characters) real responses of a family (mc, yesno or open) from the
tuning rows (the frozen sets, report2-5 and the tune halves of split report families; never
an unread row), inserts a run of 1,500 and of 3,000 copies of `--run` (a space by default;
"\\n" or " \\n" for newlines) at each of the first 40 spaces, non-ASCII characters and
punctuation marks of each, reads it as `intent_agreement.bench_kit_reading` does, and
prints each spot where the run twice as long took more than 2.6 times as long, again on a
second look (CPU seconds at 1,500, at 3,000, the row id, the 30 characters before and after
the spot). A benchmark, not a test: one family takes minutes.
"""

from __future__ import annotations

import argparse
import gc
import math
import random
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))
sys.path.insert(0, str(HERE))

import intent_agreement as ia  # noqa: E402


def tuning_rows(family: str) -> list[dict]:
    """The family's tuning rows (held-out and unread rows left out)."""
    rows = []
    for name in (None, *ia.REPORT_SETS):
        path = (ia.HERE / name if name else ia.HERE) / f"{family}_set.jsonl"
        if not path.exists():
            continue
        found = ia._jsonl(path)
        if name in ia.UNREAD_SETS:
            prefix = ia.split_prefix(name, family)
            if prefix is None:
                continue
            found = [r for r in found if ia.part(r, prefix) == "tune"]
        rows += found
    return rows


def _time(family: str, row: dict, text: str, rounds: int = 1) -> float:
    """The best CPU time of `rounds` readings, without the garbage collector (a shared
    machine's load and a collection mid-call would flag linear spots)."""
    gc.disable()
    try:
        best = math.inf
        for _ in range(rounds):
            start = time.process_time()
            ia.bench_kit_reading(family, {**row, "response": text})
            best = min(best, time.process_time() - start)
        return best
    finally:
        gc.enable()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("family", choices=ia.FAMILIES)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--run", default=" ", help='the unit repeated ("\\n" escapes read)')
    parser.add_argument("--rows", type=int, default=250)
    parser.add_argument("--id", help="fuzz this one row only")
    args = parser.parse_args()
    unit = args.run.encode().decode("unicode_escape")
    rows = [r for r in tuning_rows(args.family) if len(r["response"]) < 160]
    if args.id:
        rows = [r for r in rows if r["id"] == args.id]
    random.seed(args.seed)
    rows = random.sample(rows, min(args.rows, len(rows)))
    flagged = 0
    for row in rows:
        text = row["response"]
        cuts = sorted({i for i, c in enumerate(text)
                       if c.isspace() or not c.isascii() or c in "([:.,)]"})[:40]
        for i in cuts:
            short = _time(args.family, row, text[:i] + unit * 1500 + text[i:])
            if short < 0.004:
                continue
            long = _time(args.family, row, text[:i] + unit * 3000 + text[i:])
            if long > 0.006 and long / short > 2.6:  # measured again, best of three, to be sure
                short = _time(args.family, row, text[:i] + unit * 1500 + text[i:], 3)
                long = _time(args.family, row, text[:i] + unit * 3000 + text[i:], 3)
            if long > 0.006 and long / short > 2.6:
                flagged += 1
                print((round(short, 4), round(long, 4), row["id"], text[:i][-30:], text[i:][:30]),
                      flush=True)
    print(args.family, len(rows), "rows;", flagged, "flagged")


if __name__ == "__main__":
    main()
