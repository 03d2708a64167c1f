"""Rephrase detection (`contamination.embedding`) at warn on public labelled pairs.

Measured at the shipped operating point (nothing is tuned here). The public files are
read from paths you give (they are not committed):

- `mrpc`: the Microsoft Research Paraphrase Corpus test file (`msr_paraphrase_test.txt`,
  e.g. magsail/MRPC `MRPC/msr_paraphrase_test.txt`): human labels. `#1 String` rows are
  the reference, `#2 String` rows the items; a warn finding is right when it names the
  item's own pair and the pair is labelled a paraphrase.
- `mmlu`: the rephrased MMLU test questions of "Rethinking Benchmark and Contamination for
  Language Models with Rephrased Samples" (lm-sys/llm-decontaminator `data/rephrase/`): the
  original `<subject>_test.csv` questions are the reference, the subject's
  `..._rephrase_english_filtered_question.jsonl` rows are rephrased items (positives) and a
  second subject's rephrasings are items that rephrase nothing in the reference.

    .venv/bin/python benchmarks/audit_rephrase_public.py mrpc msr_paraphrase_test.txt [--pairs 400]
    .venv/bin/python benchmarks/audit_rephrase_public.py mmlu sociology_test.csv \\
        sociology_test_rephrase_english_filtered_question.jsonl \\
        abstract_algebra_test_rephrase_english_filtered_question.jsonl
"""

from __future__ import annotations

import argparse
import csv
import json
import os
import tempfile
from pathlib import Path
from typing import Any

BASE = {"task": "open", "answers": ["x"], "capability": "c", "layer": "reasoning",
        "difficulty": "medium", "created_at": "2026-11-01T00:00:00Z"}


def mrpc(path: Path, pairs: int) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """(reference rows, items with meta.label) from the MRPC test file."""
    with path.open(encoding="utf-8-sig", newline="") as handle:
        rows = list(csv.reader(handle, delimiter="\t", quoting=csv.QUOTE_NONE))[1:pairs + 1]
    reference = [{"id": f"p{k:04d}", "question": row[3]} for k, row in enumerate(rows)]
    items = [{**BASE, "id": f"p{k:04d}", "question": row[4], "meta": {"label": int(row[0])}}
             for k, row in enumerate(rows)]
    return reference, items


def mmlu(original: Path, rephrased: Path, others: Path
         ) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """(reference rows, items with meta.label) from llm-decontaminator's rephrase files."""
    with original.open(encoding="utf-8", newline="") as handle:
        questions = [row[0] for row in csv.reader(handle)]
    reference = [{"id": f"q{k:04d}", "question": q} for k, q in enumerate(questions)]
    items = []
    for label, path, prefix in ((1, rephrased, "q"), (0, others, "other")):
        for k, line in enumerate(path.read_text(encoding="utf-8").split("\n")):
            if not line:
                continue
            text = json.loads(line)["text"]
            if text.strip():
                items.append({**BASE, "id": f"{prefix}{k:04d}", "question": text,
                              "meta": {"label": label}})
    return reference, items


def measure(reference: list[dict[str, Any]], items: list[dict[str, Any]]) -> dict[str, Any]:
    """Run the audit; precision/recall of contamination.embedding at warn (own pair only)."""
    from bench_kit.audit.reference import FieldNames, build_reference
    from bench_kit.audit.stage import audit_data

    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        (work / "ref_src.jsonl").write_text("".join(json.dumps(r) + "\n" for r in reference))
        (work / "items.jsonl").write_text("".join(json.dumps(i) + "\n" for i in items))
        build_reference([work / "ref_src.jsonl"], work / "ref.jsonl",
                        FieldNames(options=None, hint=None))
        here = Path.cwd()
        os.chdir(work)  # no params.yaml: shipped defaults
        try:
            result = audit_data(work / "items.jsonl", work / "out", params_path=None,
                                references=[work / "ref.jsonl"])
        finally:
            os.chdir(here)
        lines = result.findings_path.read_text(encoding="utf-8").split("\n")  # not splitlines:
        findings = [json.loads(line) for line in lines  # U+2028 may sit inside a string
                    if '"contamination.embedding"' in line]
    labels = {i["id"]: i["meta"]["label"] for i in items}
    warned = [f for f in findings if f["severity"] != "info"]
    right = sum(f["evidence"]["ref_id"] == f["id"] and labels.get(f["id"]) == 1 for f in warned)
    reviewed = sum(f["severity"] == "info" and f["evidence"]["ref_id"] == f["id"]
                   and labels.get(f["id"]) == 1 for f in findings)
    positives = sum(labels.values())
    return {"items": len(items), "positives": positives, "warn": len(warned), "right": right,
            "precision": round(right / len(warned), 3) if warned else None,
            "recall": round(right / positives, 3) if positives else None,
            "info_own_pair_positives": reviewed}


def main() -> None:
    """Parse the arguments, build the set, print the measurement as JSON."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("kind", choices=("mrpc", "mmlu"))
    parser.add_argument("files", nargs="+", type=Path)
    parser.add_argument("--pairs", type=int, default=400, help="MRPC pairs to use (first N)")
    args = parser.parse_args()
    if args.kind == "mrpc":
        reference, items = mrpc(args.files[0], args.pairs)
    else:
        reference, items = mmlu(*args.files[:3])
    print(json.dumps(measure(reference, items), indent=2))


if __name__ == "__main__":
    main()
