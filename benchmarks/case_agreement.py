"""Per-family agreement of the extractors and metrics with the case tables in tests/cases/.

Each case table row says what a response means (the expected value and parse path); this
prints, per table and per `family` column, the share of rows the code under PYTHONPATH
gets right. Run it against another checkout to compare versions on the same rows:

    PYTHONPATH=. .venv/bin/python benchmarks/case_agreement.py
    PYTHONPATH=/path/to/older/checkout .venv/bin/python benchmarks/case_agreement.py

The tables are ours (written from the published formats of each model family), so the
current code agrees with all of them by construction of its tests; the figure that
informs is the comparison with an older version.
"""

from __future__ import annotations

import json
import math
from collections import defaultdict
from pathlib import Path

CASES = Path(__file__).resolve().parents[1] / "tests" / "cases"


def _box(case: dict) -> bool:
    from bench_kit.scoring.extract import boxes

    width, height = case.get("width", 640), case.get("height", 480)
    try:
        found = boxes.extract_box_detailed(case["input"], width, height,
                                           box_format=case.get("box_format", "auto"))
    except TypeError:  # an older version without box_format
        found = boxes.extract_box_detailed(case["input"], width, height)
    expected = case["expected"]
    if expected is None:
        return found.value is None and found.parse == case["parse"]
    if expected == "no_box":
        return found.value == (0.0, 0.0, 0.0, 0.0)
    return found.value is not None and found.parse == case["parse"] and all(
        math.isclose(a, b, abs_tol=1e-6) for a, b in zip(found.value, expected))


def _choice(case: dict) -> bool:
    from bench_kit.scoring.extract.answers import extract_choice_detailed

    found = extract_choice_detailed(case["input"], case["choices"], case.get("question"))
    return (found.value, found.parse) == (case["expected"], case["parse"])


def _vqa(case: dict) -> bool:
    from bench_kit.scoring.metrics.answers import vqa_accuracy

    return math.isclose(vqa_accuracy(case["pred"], case["golds"]), case["expected"],
                        abs_tol=1e-6)


def _mmmu(case: dict) -> bool:
    from bench_kit.scoring.metrics.answers import mmmu_open_match

    return mmmu_open_match(case["response"], case["golds"]) is case["expected"]


def _relaxed(case: dict) -> bool:
    from bench_kit.scoring.metrics.answers import relaxed_match

    return relaxed_match(case["pred"], case["gold"], case.get("tolerance", 0.05),
                         chart_unit=case.get("chart_unit", 1.0),
                         multipliers=case.get("multipliers", "magnitude")) \
        is case["expected"]


TABLES = {"extract_box": _box, "extract_choice": _choice, "vqa_accuracy": _vqa,
          "mmmu_open_match": _mmmu, "relaxed_match": _relaxed}


def main() -> None:
    for name, check in TABLES.items():
        table = json.loads((CASES / f"{name}.json").read_text(encoding="utf-8"))
        defaults = table.get("defaults", {})
        tally: dict[str, list[int]] = defaultdict(lambda: [0, 0])
        for case in table["cases"]:
            case = {**defaults, **case}
            try:
                right = check(case)
            except Exception:  # an older version may raise where the current one reads
                right = False
            family = case.get("family", "notation")
            tally[family][0] += right
            tally[family][1] += 1
        total = [sum(v[0] for v in tally.values()), sum(v[1] for v in tally.values())]
        parts = ", ".join(f"{f} {r}/{n}" for f, (r, n) in sorted(tally.items()))
        print(f"{name:16} {total[0]}/{total[1]} = {total[0] / total[1]:.1%}  ({parts})")


if __name__ == "__main__":
    main()
