"""Precision of the data audit's warn/error findings on public benchmarks (docs/AUDITS.md).

Runs `audit data` (bench_kit.audit.stage.audit_data, what `bench-kit audit data` runs) with
the shipped defaults on the question text of four public benchmarks — ScienceQA (with its
own train/val/test split), POPE, MMLU and ChartQA excerpts, see
tests/audit/fixtures/real/README.md — with MathVista testmini as the reference corpus.

Per check it counts the warn+ item findings and draws a seeded sample of up to 30 of them
(`SEED`). The sample — each item's text and the finding, no check code — is written to
`audit_precision_real_sample.jsonl` beside this script for a second reader who did not
write the checks; their verdicts (`{sample_id: {"defect": true/false, "reason": ...}}`)
are read from `audit_precision_real_verdicts.json` beside it. Precision is the share of
sampled findings judged a real defect of the item, with its Wilson 95% lower bound.

    .venv/bin/python benchmarks/audit_precision_real.py [--json] [--sample-only]
"""

from __future__ import annotations

import argparse
import json
import os
import random
import sys
import tempfile
from collections import defaultdict
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
import real_items  # noqa: E402

SAMPLE = HERE / "audit_precision_real_sample.jsonl"
VERDICTS = HERE / "audit_precision_real_verdicts.json"
SEED = 23
PER_CHECK = 30
TARGET = 0.8
BENCHMARK_ID = "(benchmark)"
_CLIP = 600


def run_audits(work: Path) -> dict[str, tuple[list[dict[str, Any]], dict[str, dict[str, Any]],
                                              dict[str, Any]]]:
    """benchmark -> (findings, items by id, summary), each audited with the shipped defaults."""
    from bench_kit.audit.reference import build_reference
    from bench_kit.audit.stage import audit_data

    source = real_items.mathvista_reference_source(work / "ref")
    reference = work / "ref" / "mathvista.ref.jsonl"
    build_reference([source], reference)
    out = {}
    for name, build in real_items.BUILDERS.items():
        items_path = build(work / name)
        splits = work / name / "splits"
        result = audit_data(items_path, work / name / "audit", params_path=None,
                            splits_dir=splits if splits.is_dir() else None,
                            references=[reference])
        findings = [json.loads(line) for line in
                    result.findings_path.read_text(encoding="utf-8").split("\n") if line]
        items = {row["id"]: row for row in map(json.loads, filter(None, items_path.read_text(
            encoding="utf-8").split("\n")))}
        out[name] = (findings, items, result.summary)
    return out


def _clip(value: Any) -> Any:
    if isinstance(value, str) and len(value) > _CLIP:
        return value[:_CLIP - 1] + "…"
    if isinstance(value, list):
        return [_clip(v) for v in value[:10]]
    if isinstance(value, dict):
        return {k: _clip(v) for k, v in value.items()}
    return value


def item_view(item: dict[str, Any], benchmark: str) -> dict[str, Any]:
    """What the second reader sees of an item (placeholder images are said so)."""
    view = {"benchmark": benchmark, "id": item["id"], "task": item["task"],
            "question": item["question"]}
    for key in ("choices", "answers", "metric"):
        if item.get(key) is not None:
            view[key] = item[key]
    if item.get("meta", {}).get("hint"):
        view["hint"] = item["meta"]["hint"]
    if item.get("meta", {}).get("split"):
        view["split"] = item["meta"]["split"]
    view["has_image"] = bool(item.get("image"))
    if view["has_image"]:
        view["image_note"] = ("the source item has an image (not public here; a placeholder "
                              "stands in, so its pixels say nothing)")
    return view


def draw_sample(audits: dict[str, Any]) -> list[dict[str, Any]]:
    """Up to PER_CHECK warn+ item findings per check, seeded; with the items they are on."""
    by_check: dict[str, list[tuple[str, dict[str, Any]]]] = defaultdict(list)
    for benchmark, (findings, _, _) in sorted(audits.items()):
        for finding in findings:
            if finding["severity"] != "info":
                by_check[finding["check"]].append((benchmark, finding))
    rng = random.Random(SEED)
    rows = []
    for check in sorted(by_check):
        pool = by_check[check]
        chosen = sorted(rng.sample(range(len(pool)), min(PER_CHECK, len(pool))))
        for k, index in enumerate(chosen):
            benchmark, finding = pool[index]
            items = audits[benchmark][1]
            row = {"sample_id": f"{check}#{k:02d}",
                   "item": item_view(items[finding["id"]], benchmark)
                   if finding["id"] in items else {"benchmark": benchmark, "id": finding["id"]},
                   **({"examples": [item_view(items[e], benchmark)
                                    for e in finding["evidence"].get("examples", [])
                                    if e in items]}
                      if finding["id"] == BENCHMARK_ID else {}),
                   "finding": {"check": check, "severity": finding["severity"],
                               "message": finding["message"],
                               "evidence": _clip(finding["evidence"])}}
            others = finding["evidence"].get("question", {}).get("other_items") \
                if isinstance(finding["evidence"].get("question"), dict) else None
            if others:
                row["other_items"] = [item_view(items[o], benchmark) for o in others[:3]
                                      if o in items]
            rows.append(row)
    return rows


def wilson_lower(hits: int, n: int) -> float:
    """Wilson 95% lower bound (bench_kit.stats.intervals)."""
    from bench_kit.stats.intervals import wilson_interval

    return wilson_interval(hits, n)[0] if n else 0.0


def table(audits: dict[str, Any], sample: list[dict[str, Any]],
          verdicts: dict[str, Any]) -> list[dict[str, Any]]:
    """One row per check: warn+ counts, rolled-up benchmarks, sampled precision."""
    counts: dict[str, dict[str, int]] = defaultdict(lambda: defaultdict(int))
    rolled: dict[str, list[str]] = defaultdict(list)
    for benchmark, (findings, _, _) in sorted(audits.items()):
        for finding in findings:
            if finding["id"] == BENCHMARK_ID:
                rolled[finding["check"]].append(
                    f"{benchmark} ({finding['evidence']['count']})")
            elif finding["severity"] != "info":
                counts[finding["check"]][benchmark] += 1
    by_item = {(v.get("check"), v.get("item_id")): v for v in verdicts.values()}
    rows = []
    for check in sorted(set(counts) | set(rolled)):
        # a verdict is on (check, item): sample ids shift when the findings change
        judged = [by_item[(check, s["item"]["id"])] for s in sample
                  if s["finding"]["check"] == check and (check, s["item"]["id"]) in by_item]
        sampled = sum(s["finding"]["check"] == check for s in sample)
        hits = sum(bool(v["defect"]) for v in judged)
        row = {"check": check, "warn_plus": sum(counts[check].values()),
               "by_benchmark": dict(counts[check]), "rolled_up": rolled[check],
               "sampled": sampled, "judged": len(judged), "defects": hits,
               "precision": round(hits / len(judged), 3) if judged else None,
               "wilson_lower": round(wilson_lower(hits, len(judged)), 3) if judged else None}
        rows.append(row)
    return rows


def markdown(rows: list[dict[str, Any]]) -> str:
    """The docs/AUDITS.md table."""
    lines = ["| check | warn+ items (by benchmark) | rolled up | judged | precision | "
             "Wilson 95% lower |", "|---|---|---|---|---|---|"]
    for row in rows:
        where = ", ".join(f"{b} {n}" for b, n in sorted(row["by_benchmark"].items()))
        precision = "pending" if row["precision"] is None else f"{row['precision']:.0%}"
        lower = "–" if row["wilson_lower"] is None else f"{row['wilson_lower']:.0%}"
        lines.append(f"| `{row['check']}` | {row['warn_plus']} ({where or '–'}) | "
                     f"{', '.join(row['rolled_up']) or '–'} | {row['judged']}/{row['sampled']} "
                     f"| {precision} | {lower} |")
    return "\n".join(lines)


def main() -> None:
    """Run the audits, write the sample, print the table."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--json", action="store_true", help="print the rows as JSON")
    parser.add_argument("--sample-only", action="store_true",
                        help="write the sample file and stop")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        # no params.yaml in the working folder: the shipped defaults, and no project taxonomy
        # (these benchmarks have their own capabilities)
        here = Path.cwd()
        os.chdir(tmp)
        try:
            audits = run_audits(Path(tmp))
        finally:
            os.chdir(here)
    sample = draw_sample(audits)
    SAMPLE.write_text("".join(json.dumps(row, ensure_ascii=False, sort_keys=True) + "\n"
                              for row in sample), encoding="utf-8")
    print(f"sample: {len(sample)} findings -> {SAMPLE.name}", file=sys.stderr)
    if args.sample_only:
        return
    verdicts = json.loads(VERDICTS.read_text(encoding="utf-8")) if VERDICTS.is_file() else {}
    if not verdicts:
        print(f"no {VERDICTS.name}: precision pending a second reader", file=sys.stderr)
    judged = {(v.get("check"), v.get("item_id")) for v in verdicts.values()}
    unjudged = [s["sample_id"] for s in sample
                if (s["finding"]["check"], s["item"]["id"]) not in judged]
    if unjudged:
        print(f"{len(unjudged)} sampled findings have no verdict yet: {unjudged[:5]} …",
              file=sys.stderr)
    rows = table(audits, sample, verdicts)
    print(json.dumps(rows, indent=2) if args.json else markdown(rows))


if __name__ == "__main__":
    main()
