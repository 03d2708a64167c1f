"""Choose the rephrase operating point on public tuning sets; report it on a held-out set.

`contamination.embedding` warns when combined ≥ `rephrase_combined` or cosine ≥ `rephrase`,
and writes a review (info) row when combined ≥ `review_combined` or cosine ≥ `review`
(docs/AUDITS.md#rephrase-detection). Each set is audited once with every threshold at the
floor (benchmarks/audit_rephrase_public.py), then each grid point is applied to the scores.

- warn point: the grid point with the highest mean F0.5 (precision weighs twice recall: a
  warn costs a reviewer's time) over the tuning sets, among the points that flag at most
  `--max-clean` (3%) of the planted set's clean same-template chart questions (the public
  sets have no such near-misses, which VLM benchmarks are full of); among ties the earlier
  default stays, else the higher thresholds win;
- review band: the lowest `review_combined` (then `review` cosine; `review` = `rephrase`
  means no cosine band) at which the band's
  rows (info, below warn) are the item's own pair at least `--min-review-precision` (0.5)
  of the time on every tuning set, and at most `--max-clean` of the guard's clean
  questions get one — a review row should be worth a reviewer's look.

Sets: `mrpc` (human labels) and `mmlu` tune, `planted` guards, `gsm8k` is held out (another
domain: grade-school maths word problems) and scored only at the chosen point.

    .venv/bin/python benchmarks/rephrase_operating_point.py --mrpc msr_paraphrase_test.txt
"""

from __future__ import annotations

import argparse
import json
import sys
from dataclasses import dataclass, replace
from pathlib import Path
from collections.abc import Sequence

sys.path.insert(0, str(Path(__file__).parent))
from audit_rephrase_public import Scored, load_set, score_set

from bench_kit.stats.intervals import wilson_interval

TUNING = ("mrpc", "mmlu")
GUARD = "planted"
HELD_OUT = ("gsm8k",)
COMBINED_GRID = [round(0.70 + 0.01 * k, 2) for k in range(71)]  # 0.70 .. 1.40
COSINE_GRID = [round(0.70 + 0.01 * k, 2) for k in range(31)]  # 1.0: only identical texts
REVIEW_COSINE_GRID = [round(0.60 + 0.05 * k, 2) for k in range(9)]


@dataclass(frozen=True)
class Point:
    """Thresholds of one operating point (the names of audit.contamination)."""

    rephrase_combined: float
    rephrase: float
    review_combined: float = 2.0
    review: float = 1.0


def is_warn(s: Scored, p: Point) -> bool:
    """The check's warn rule (demoted text matches stay info)."""
    return (s.cosine >= p.rephrase or s.combined >= p.rephrase_combined) and not s.demoted


def is_review(s: Scored, p: Point) -> bool:
    """A review (info) row below warn: the review band, or a warn demoted by a rule."""
    if is_warn(s, p):
        return False
    return s.cosine >= p.review or s.combined >= p.review_combined \
        or s.cosine >= p.rephrase or s.combined >= p.rephrase_combined


def counts(records: Sequence[Scored], positives: int, rule) -> dict[str, float | int | None]:
    """Flagged, right, precision and recall (with Wilson 95% lower bounds) of a rule."""
    flagged = [s for s in records if rule(s)]
    right = sum(s.own and s.label == 1 for s in flagged)
    out: dict[str, float | int | None] = {"flagged": len(flagged), "right": right,
                                          "positives": positives}
    for name, n in (("precision", len(flagged)), ("recall", positives)):
        out[name] = round(right / n, 4) if n else None
        out[f"{name}_low"] = round(wilson_interval(right, n)[0], 4) if n else None
    return out


def f_half(stats: dict) -> float:
    """F0.5 of a counts() result (0 when nothing is flagged)."""
    p, r = stats["precision"], stats["recall"]
    return 0.0 if not p or not r else 1.25 * p * r / (0.25 * p + r)


def clean_flagged(records: Sequence[Scored], point: Point) -> int:
    """Negatives flagged at warn (whatever reference they name)."""
    return sum(s.label == 0 and is_warn(s, point) for s in records)


def choose_warn(sets: dict[str, tuple[list[Scored], int]], guard: list[Scored],
                max_clean: float, before: Point) -> Point:
    """The warn point by the rule in the module docstring."""
    limit = max_clean * sum(s.label == 0 for s in guard)
    best: tuple | None = None
    chosen = None
    for combined in COMBINED_GRID:
        for cosine in COSINE_GRID:
            point = Point(combined, cosine)
            if clean_flagged(guard, point) > limit:
                continue
            stats = [counts(rec, pos, lambda s, p=point: is_warn(s, p))
                     for rec, pos in sets.values()]
            key = (round(sum(map(f_half, stats)) / len(stats), 4),
                   combined == before.rephrase_combined, cosine == before.rephrase,
                   combined, cosine)
            if best is None or key > best:
                best, chosen = key, point
    if chosen is None:
        raise SystemExit(f"no grid point flags at most {max_clean:.0%} of the clean guard items")
    return chosen


def in_band(s: Scored, p: Point) -> bool:
    """A row of the review band itself (not a warn, not a warn demoted by a rule)."""
    return not is_warn(s, p) and not s.demoted and (
        s.cosine >= p.review or s.combined >= p.review_combined)


def choose_review(sets: dict[str, tuple[list[Scored], int]], warn: Point,
                  guard: list[Scored], min_precision: float, max_clean: float) -> Point:
    """The widest review band by the rule in the module docstring (none: the warn point)."""
    limit = max_clean * sum(s.label == 0 for s in guard)
    for combined in [c for c in COMBINED_GRID if c <= warn.rephrase_combined]:
        for cosine in [c for c in REVIEW_COSINE_GRID if c < warn.rephrase] + [warn.rephrase]:
            point = Point(warn.rephrase_combined, warn.rephrase, combined, cosine)
            if sum(s.label == 0 and in_band(s, point) for s in guard) > limit:
                continue
            bands = [counts([s for s in rec if in_band(s, point)], pos, lambda s: True)
                     for rec, pos in sets.values()]
            if all(b["precision"] is None or b["precision"] >= min_precision for b in bands):
                return point
    return Point(warn.rephrase_combined, warn.rephrase, warn.rephrase_combined, warn.rephrase)


def report(name: str, records: list[Scored], positives: int, point: Point) -> dict:
    """Warn and review-row figures of one set at `point`. On the guard a rephrasing counts
    as found whichever reference it names (as the planted tables count it)."""
    role = "tuning" if name in TUNING else "guard" if name == GUARD else "held out"
    if name == GUARD:
        records = [replace(s, own=True) for s in records]
    return {"set": name, "role": role, "items": len(records), "positives": positives,
            "negatives_flagged": clean_flagged(records, point),
            "negatives_info": sum(s.label == 0 and is_review(s, point) for s in records),
            "warn": counts(records, positives, lambda s: is_warn(s, point)),
            "info": counts(records, positives, lambda s: is_review(s, point))}


def table(rows: list[dict]) -> str:
    """The markdown rows of docs/AUDITS.md#rephrase-detection."""
    lines = [("| set | role | items (positives) | warn | precision at warn (95% low) | "
              "recall at warn (95% low) | negatives at warn | info rows (negatives) | "
              "info own pair |"),
             "|---|---|---|---|---|---|---|---|---|"]
    for r in rows:
        w, i = r["warn"], r["info"]
        lines.append(
            f"| {r['set']} | {r['role']} | {r['items']} ({r['positives']}) | {w['flagged']} | "
            f"{_pct(w['precision'])} ({_pct(w['precision_low'])}) | {_pct(w['recall'])} "
            f"({_pct(w['recall_low'])}) | {r['negatives_flagged']} | {i['flagged']} "
            f"({r['negatives_info']}) | "
            f"{_pct(i['precision'])} |")
    return "\n".join(lines)


def main() -> None:
    """Score the sets, choose on the tuning sets, print JSON and markdown tables."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--mrpc", type=Path, required=True, help="msr_paraphrase_test.txt")
    parser.add_argument("--max-clean", type=float, default=0.03)
    parser.add_argument("--min-review-precision", type=float, default=0.5)
    parser.add_argument("--cache-dir", type=Path, default=Path(".bench_kit/audit-cache"))
    parser.add_argument("--before", nargs=4, type=float, metavar=("RC", "R", "VC", "V"),
                        default=(1.08, 0.97, 0.9, 0.6), help="earlier defaults, for contrast")
    args = parser.parse_args()
    names = TUNING + (GUARD,) + HELD_OUT
    scored = {}
    for name in names:
        reference, items = load_set(name, args.mrpc)
        scored[name] = (score_set(reference, items, args.cache_dir.resolve()),
                        sum(i["meta"]["label"] for i in items))
    tuning = {name: scored[name] for name in TUNING}
    before = Point(*args.before)
    warn = choose_warn(tuning, scored[GUARD][0], args.max_clean, before)
    point = choose_review(tuning, warn, scored[GUARD][0], args.min_review_precision,
                          args.max_clean)
    result = {"point": point.__dict__, "before": before.__dict__,
              "rule": {"max_clean": args.max_clean,
                       "min_review_precision": args.min_review_precision},
              "chosen": [report(n, *scored[n], point) for n in names],
              "before_point": [report(n, *scored[n], before) for n in names]}
    print(json.dumps(result, indent=2))
    print(f"\nchosen {point}\n{table(result['chosen'])}")
    print(f"\nbefore {before}\n{table(result['before_point'])}")


def _pct(value: float | None) -> str:
    return "—" if value is None else f"{100 * value:.0f}%"


if __name__ == "__main__":
    main()
