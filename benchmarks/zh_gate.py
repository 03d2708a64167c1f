"""The variant gate on Chinese rewrites: old gate (English encoder cosine) vs the CJK gate
(docs/AUTHORING.md#the-gate-on-chinese-rewrites).

benchmarks/zh_gate/pairs.jsonl: 144 (original, rewrite) pairs labelled faithful | changed by
a second writer (benchmarks/zh_gate/README.md), 4 per source question. The source
questions (the id before '#') are split with a fixed seed into a tuning half and a held-out
half (18 questions each). Every pair is judged as a meaning-keeping kind (synonym).
Reported per half: faithful accepted (recall) and changed rejected (specificity).

`--tune` searches cosine_weight, contrast_penalty and min_similarity on the tuning half
only (maximising recall + specificity, ties to the higher threshold) and prints the best;
the table always uses the values in params.yaml (`variants.gate_zh`).

    .venv/bin/python benchmarks/zh_gate.py [--tune]
"""

from __future__ import annotations

import argparse
import json
import random
import sys
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench_kit.authoring.gate import (GateThresholds, ZhGate, judge,  # noqa: E402
                                      score_pairs, zh_similarity)
from bench_kit.authoring.variants import VariantParams  # noqa: E402

PAIRS = ROOT / "benchmarks" / "zh_gate" / "pairs.jsonl"
SEED = 27
KIND = "synonym"


def split(rows: list[dict]) -> dict[str, list[dict]]:
    """Tuning and held-out halves, by source question, with a fixed seed."""
    questions = sorted({r["id"].split("#")[0] for r in rows})
    random.Random(SEED).shuffle(questions)
    tune = set(questions[:len(questions) // 2])
    return {"tuning": [r for r in rows if r["id"].split("#")[0] in tune],
            "held-out": [r for r in rows if r["id"].split("#")[0] not in tune]}


def rates(rows: list[dict], accepted: list[bool]) -> tuple[int, int, int, int]:
    """(faithful accepted, faithful, changed rejected, changed)."""
    faithful = [a for r, a in zip(rows, accepted) if r["label"] == "faithful"]
    changed = [a for r, a in zip(rows, accepted) if r["label"] == "changed"]
    return sum(faithful), len(faithful), len(changed) - sum(changed), len(changed)


def verdicts(rows: list[dict], scores: list[tuple[float, float]], old: GateThresholds,
             zh: ZhGate | None) -> list[bool]:
    """The gate's verdict on each pair: the old gate (zh None) or the CJK gate."""
    out = []
    for r, (cosine, ratio) in zip(rows, scores):
        if zh is None:
            out.append(judge(cosine, ratio, old).accepted)
        else:
            sim, _ = zh_similarity(cosine, r["original"], r["rewrite"], zh,
                                   KIND in zh.keep_meaning)
            out.append(judge(sim, ratio, zh.limits(KIND)).accepted)
    return out


def tune(rows: list[dict], scores: list[tuple[float, float]], base: ZhGate) -> ZhGate:
    """The best (weight, penalty, threshold) on the tuning rows."""
    found: dict[tuple[float, float], dict[float, float]] = {}
    for w in [k / 10 for k in range(11)]:
        for p in [0.1, 0.2, 0.3, 0.4, 0.5]:
            for t in [k / 100 for k in range(40, 96)]:
                zh = with_values(base, w, p, t)
                fa, nf, cr, nc = rates(rows, verdicts(rows, scores, base.gate, zh))
                found.setdefault((w, p), {})[t] = fa / nf + cr / nc
    top = max(max(by_t.values()) for by_t in found.values())
    # Of the (weight, penalty) reaching the top, the one with the widest band of thresholds
    # at the top, and the middle of that band (the largest margin on both sides).
    (w, p), band = max(((wp, [t for t, v in by_t.items() if v == top])
                        for wp, by_t in found.items()), key=lambda x: (len(x[1]), x[0]))
    return with_values(base, w, p, sorted(band)[len(band) // 2])


def with_values(base: ZhGate, weight: float, penalty: float, threshold: float) -> ZhGate:
    """`base` with another cosine weight, contrast penalty and synonym threshold."""
    return base.model_copy(update={
        "cosine_weight": weight, "contrast_penalty": penalty, "gate_by_kind": {},
        "gate": base.gate.model_copy(update={"min_similarity": threshold})})


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--tune", action="store_true", help="search on the tuning half")
    args = parser.parse_args()
    rows = [json.loads(line) for line in PAIRS.read_text(encoding="utf-8").splitlines()
            if line.strip()]
    params = VariantParams(**yaml.safe_load((ROOT / "params.yaml").read_text())["variants"])
    old, zh = params.limits(KIND), params.gate_zh
    halves = split(rows)
    scored = {name: score_pairs([(r["original"], r["rewrite"]) for r in part])
              for name, part in halves.items()}
    if args.tune:
        best = tune(halves["tuning"], scored["tuning"], zh)
        print(f"tuned: cosine_weight {best.cosine_weight}, contrast_penalty "
              f"{best.contrast_penalty}, min_similarity {best.gate.min_similarity}\n")
    print(f"old gate: cosine >= {old.min_similarity}, edit ratio >= {old.min_edit_ratio}; "
          f"CJK gate: {zh.cosine_weight}·cosine + {1 - zh.cosine_weight:.1f}·bigram Dice "
          f"− {zh.contrast_penalty}·contrasts >= {zh.limits(KIND).min_similarity}, "
          f"edit ratio >= {zh.limits(KIND).min_edit_ratio}\n")
    print("| half | questions | pairs | gate | faithful accepted | changed rejected |")
    print("|---|---|---|---|---|---|")
    for name, part in halves.items():
        n_q = len({r["id"].split("#")[0] for r in part})
        for label, gate in (("old", None), ("CJK", zh)):
            fa, nf, cr, nc = rates(part, verdicts(part, scored[name], old, gate))
            print(f"| {name} | {n_q} | {len(part)} | {label} | {fa}/{nf} ({fa / nf:.0%}) | "
                  f"{cr}/{nc} ({cr / nc:.0%}) |")


if __name__ == "__main__":
    main()
