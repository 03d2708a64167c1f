"""Public labelled rephrase sets for `contamination.embedding` (docs/AUDITS.md#rephrase-detection).

Three public sets, none written here (benchmarks/rephrase_public/README.md gives
repository, path, commit and licence), and the planted ChartQA set as a guard (`planted`):

- `mrpc` (tuning): the Microsoft Research Paraphrase Corpus test file, human labels. Its
  licence does not allow redistribution, so nothing of it is committed: pass your copy
  (`msr_paraphrase_test.txt`, e.g. magsail/MRPC `MRPC/msr_paraphrase_test.txt`); its
  sha256 is checked. `#1 String` rows are the reference, `#2 String` rows the items.
- `mmlu` (tuning) and `gsm8k` (held out): rephrased MMLU (sociology, abstract
  algebra) and GSM8K test questions published by lm-sys/llm-decontaminator for "Rethinking
  Benchmark and Contamination for Language Models with Rephrased Samples", each with its
  original. Committed excerpts (benchmarks/rephrase_public/*.jsonl): a seeded half of the
  originals is the reference; every rephrasing is an item, a positive when its original is
  in the reference — so the negatives are same-subject questions, not another topic.

A warn is right when it names the item's own pair and the pair is a positive.

    .venv/bin/python benchmarks/audit_rephrase_public.py excerpt UPSTREAM_DIR   # rebuild
"""

from __future__ import annotations

import argparse
import csv
import hashlib
import json
import os
import random
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any

HERE = Path(__file__).parent / "rephrase_public"
MRPC_SHA256 = "0360d0d3427a0ae14882e2b3a799df0fab6cb5203d5e8ee481949283da62acb6"
BASE = {"task": "open", "answers": ["x"], "capability": "c", "layer": "reasoning",
        "difficulty": "medium", "created_at": "2026-11-01T00:00:00Z"}
# every item gets a finding at warn before the rules that demote a text match: the sweep
# then applies each candidate operating point to the recorded scores
FLOOR = {"rephrase": 0.01, "review": 0.01, "rephrase_combined": 0.01, "review_combined": 0.01}
SEED = 23
MMLU_SUBJECTS = ("sociology", "abstract_algebra")
GSM8K_SAMPLE = 400


@dataclass(frozen=True)
class Scored:
    """One item's best reference candidate as the audit scored it."""

    id: str
    label: int
    own: bool  # the candidate is the item's own pair (`meta.pair`, else the same id)
    cosine: float
    combined: float
    demoted: bool  # a rule (generic question, shared passage, template) keeps it at info


def _pairs_file(name: str) -> list[dict[str, Any]]:
    path = HERE / f"{name}.jsonl"
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]


def decontaminator_set(name: str) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """(reference rows, items with meta.label) from a committed excerpt (`mmlu`, `gsm8k`)."""
    rows = _pairs_file(name)
    reference = [{"id": r["id"], "question": r["original"]} for r in rows if r["in_reference"]]
    items = [{**BASE, "id": r["id"], "question": r["rephrased"],
              "meta": {"label": int(r["in_reference"])}} for r in rows]
    return reference, items


def mrpc_set(path: Path) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """(reference rows, items with meta.label) from your copy of the MRPC test file."""
    digest = hashlib.sha256(path.read_bytes()).hexdigest()
    if digest != MRPC_SHA256:
        raise SystemExit(f"{path}: sha256 {digest} is not the MRPC test file measured "
                         f"({MRPC_SHA256})")
    with path.open(encoding="utf-8-sig", newline="") as handle:
        rows = list(csv.reader(handle, delimiter="\t", quoting=csv.QUOTE_NONE))[1:]
    reference = [{"id": f"{row[1]}-{row[2]}", "question": row[3]} for row in rows]
    items = [{**BASE, "id": f"{row[1]}-{row[2]}", "question": row[4],
              "meta": {"label": int(row[0])}} for row in rows]
    return reference, items


def planted_set() -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """The planted ChartQA rephrase set (tests/audit/fixtures/rephrase): a check, not tuning."""
    folder = Path(__file__).resolve().parents[1] / "tests" / "audit" / "fixtures" / "rephrase"
    refs, rows = ([json.loads(line) for line in
                   (folder / name).read_text(encoding="utf-8").splitlines()]
                  for name in ("reference.jsonl", "items.jsonl"))
    reference = [{"id": r["id"], "question": r["question"]} for r in refs]
    items = [{**BASE, "id": r["id"], "question": r["question"],
              "meta": {"label": int(r["kind"] == "rephrase"), "pair": r.get("ref")}}
             for r in rows]
    return reference, items


def load_set(name: str, mrpc: Path | None = None
             ) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """A set by name: `mrpc` (needs your copy), `mmlu`, `gsm8k`, `planted`."""
    if name == "planted":
        return planted_set()
    if name == "mrpc":
        if mrpc is None:
            raise SystemExit("the mrpc set needs --mrpc PATH (msr_paraphrase_test.txt)")
        return mrpc_set(mrpc)
    return decontaminator_set(name)


def score_set(reference: list[dict[str, Any]], items: list[dict[str, Any]],
              cache_dir: Path | None = None) -> list[Scored]:
    """Run `audit data` with every rephrase threshold at the floor; one record per item."""
    from bench_kit.audit.reference import FieldNames, build_reference
    from bench_kit.audit.stage import audit_data

    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        (work / "ref_src.jsonl").write_text("".join(json.dumps(r) + "\n" for r in reference))
        (work / "items.jsonl").write_text("".join(json.dumps(i) + "\n" for i in items))
        build_reference([work / "ref_src.jsonl"], work / "ref.jsonl",
                        FieldNames(options=None, hint=None))
        settings = {**FLOOR, "cache_dir": str(cache_dir) if cache_dir else None}
        (work / "params.yaml").write_text(json.dumps({"audit": {"contamination": settings}}))
        here = Path.cwd()
        os.chdir(work)
        try:
            result = audit_data(work / "items.jsonl", work / "out",
                                params_path=work / "params.yaml",
                                references=[work / "ref.jsonl"])
        finally:
            os.chdir(here)
        lines = result.findings_path.read_text(encoding="utf-8").split("\n")  # not splitlines:
        findings = [json.loads(line) for line in lines  # U+2028 may sit inside a string
                    if '"contamination.embedding"' in line]
    labels = {i["id"]: i["meta"]["label"] for i in items}
    pairs = {i["id"]: i["meta"].get("pair", i["id"]) for i in items}
    out = []
    for f in findings:
        ev = f["evidence"]
        demoted = "text_cannot_show" in ev or "severity_without_template" in ev
        out.append(Scored(f["id"], labels[f["id"]], ev["ref_id"] == pairs[f["id"]], ev["cosine"],
                          ev["combined"], demoted))
    return out


def _upstream_mmlu(folder: Path, subject: str) -> list[dict[str, Any]]:
    with (folder / f"{subject}_test.csv").open(encoding="utf-8", newline="") as handle:
        originals = [row[0] for row in csv.reader(handle)]
    lines = (folder / f"{subject}_test_rephrase_english_filtered_question.jsonl").read_text(
        encoding="utf-8").split("\n")
    rephrased = [json.loads(line)["text"].strip() for line in lines if line]
    return [{"id": f"{subject}-{k:03d}", "original": o, "rephrased": r}
            for k, (o, r) in enumerate(zip(originals, rephrased, strict=True)) if r]


def _upstream_gsm8k(folder: Path) -> list[dict[str, Any]]:
    originals = [json.loads(line)["question"] for line in
                 (folder / "test.jsonl").read_text(encoding="utf-8").splitlines()]
    rows = []
    for k, line in enumerate((folder / "rephrase_gsm8k.jsonl").read_text(
            encoding="utf-8").splitlines()):
        text = json.loads(line)["text"]
        text = text.split("\nAnswer:")[0].removeprefix("Question:").strip()
        if text:  # one upstream rephrasing is empty
            rows.append({"id": f"gsm8k-{k:04d}", "original": originals[k], "rephrased": text})
    return random.Random(SEED).sample(rows, GSM8K_SAMPLE)


def _halve(rows: list[dict[str, Any]], seed: int) -> list[dict[str, Any]]:
    """Mark a seeded half of the rows `in_reference` (sorted by id for stable files)."""
    chosen = set(random.Random(seed).sample(range(len(rows)), len(rows) // 2))
    return sorted(({**r, "in_reference": k in chosen} for k, r in enumerate(rows)),
                  key=lambda r: r["id"])


def write_excerpts(folder: Path) -> None:
    """Rebuild the committed excerpts from the upstream files in `folder`."""
    mmlu = [r for subject in MMLU_SUBJECTS for r in _halve(_upstream_mmlu(folder, subject),
                                                           SEED)]
    for name, rows in (("mmlu", mmlu), ("gsm8k", _halve(_upstream_gsm8k(folder), SEED))):
        text = "".join(json.dumps(r) + "\n" for r in rows)
        (HERE / f"{name}.jsonl").write_text(text, encoding="utf-8")
        print(f"{name}: {len(rows)} pairs, {sum(r['in_reference'] for r in rows)} in reference")


def main() -> None:
    """`excerpt UPSTREAM_DIR`: rebuild benchmarks/rephrase_public/{mmlu,gsm8k}.jsonl."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("command", choices=("excerpt",))
    parser.add_argument("folder", type=Path, help="the upstream files (README lists them)")
    args = parser.parse_args()
    write_excerpts(args.folder)


if __name__ == "__main__":
    main()
