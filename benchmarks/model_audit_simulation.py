"""Recall and precision of the model-audit verdicts on a simulated panel with known truth.

Plants text-answerable, prior-answerable, vision-required, wrong-gold, ambiguous and
hard-but-correct items (bench_kit/audit/results/simulation.py), answers them with panels of
3, 6 and 10 vision models (plus a text-only base each; parse failures and error rows
included), runs `audit_results` and prints a markdown table (counts pooled over the seeds).

    PYTHONPATH=$PWD python benchmarks/model_audit_simulation.py [--seeds 0 1 2] [--models 3 6 10]

The thresholds in params were set by looking at seed 0; seeds 1 and 2 were not looked at
while choosing them (docs/MODEL_AUDITS.md shows both).
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench_kit.audit.results.simulation import (
    format_table,
    pool,
    run_simulation,
)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seeds", type=int, nargs="+", default=[0, 1, 2])
    parser.add_argument("--models", type=int, nargs="+", default=[3, 6, 10])
    args = parser.parse_args()
    start = time.perf_counter()
    results = {n: pool([run_simulation(n, seed) for seed in args.seeds])
               for n in args.models}
    print(f"seeds {args.seeds}, pooled (600 items per seed)\n")
    print(format_table(results))
    print(f"\n{time.perf_counter() - start:.1f} s")


if __name__ == "__main__":
    main()
