"""Public benchmark excerpts (tests/audit/fixtures/real) as bench_kit items.

Each builder reads one committed excerpt and writes `items.jsonl` (+ placeholder images,
see the fixtures README) into a folder; ScienceQA also gets its own train/val/test split
files and MathVista is written as a reference-corpus source. Used by
benchmarks/audit_precision_real.py and tests/audit/test_audit_real.py.
"""

from __future__ import annotations

import csv
import hashlib
import json
import re
from pathlib import Path
from typing import Any, Callable

REPO = Path(__file__).resolve().parents[1]
REAL = REPO / "tests" / "audit" / "fixtures" / "real"
CHARTQA = REPO / "tests" / "audit" / "fixtures" / "rephrase" / "reference.jsonl"
LETTERS = "ABCDEFGHIJ"
BASE = {"difficulty": "medium", "created_at": "2026-11-01T00:00:00Z"}
_NUMBER = re.compile(r"^-?\d+(?:\.\d+)?%?$")


def placeholder(root: Path, name: str) -> str:
    """A 32x32 random-pixel PNG seeded by `name` under root/images; its relative path."""
    import numpy as np
    from PIL import Image

    rel = f"images/{re.sub(r'[^A-Za-z0-9_.-]', '_', name)}"
    if not rel.endswith(".png"):
        rel += ".png"
    path = root / rel
    if not path.exists():
        path.parent.mkdir(parents=True, exist_ok=True)
        seed = int(hashlib.sha256(name.encode()).hexdigest()[:8], 16)
        pixels = np.random.default_rng(seed).integers(0, 256, (32, 32, 3), dtype=np.uint8)
        Image.fromarray(pixels).save(path)
    return rel


def _write(root: Path, items: list[dict[str, Any]]) -> Path:
    root.mkdir(parents=True, exist_ok=True)
    path = root / "items.jsonl"
    path.write_text("".join(json.dumps(item, ensure_ascii=False) + "\n" for item in items),
                    encoding="utf-8")
    return path


def scienceqa_rows() -> dict[str, dict[str, Any]]:
    """The ScienceQA excerpt: pid -> problem."""
    return json.loads((REAL / "scienceqa" / "problems_excerpt.json").read_text("utf-8"))


def scienceqa_item(pid: str, row: dict[str, Any], root: Path) -> dict[str, Any]:
    """One ScienceQA problem as an mc item; the hint (the passage) goes to `meta.hint`."""
    choices = {LETTERS[i]: text for i, text in enumerate(row["choices"])}
    meta: dict[str, Any] = {"source_id": pid, "split": row["split"], "category": row["category"]}
    if row["hint"]:
        meta["hint"] = row["hint"]
    return {**BASE, "id": f"sqa-{pid}", "question": row["question"], "task": "mc",
            "choices": choices, "answers": [LETTERS[row["answer"]]],
            "capability": f"science.{row['subject'].replace(' ', '_')}",
            "layer": "reasoning", "meta": meta,
            "image": placeholder(root, f"sqa-{pid}") if row["image"] else None}


def build_scienceqa(root: Path) -> Path:
    """ScienceQA items + split files (root/splits/{train,val,test}.jsonl)."""
    rows = scienceqa_rows()
    items = [scienceqa_item(pid, row, root) for pid, row in rows.items()]
    splits = root / "splits"
    splits.mkdir(parents=True, exist_ok=True)
    for name in ("train", "val", "test"):
        (splits / f"{name}.jsonl").write_text("".join(
            json.dumps({"id": f"sqa-{pid}"}) + "\n" for pid, row in rows.items()
            if row["split"] == name), encoding="utf-8")
    return _write(root, items)


def build_pope(root: Path) -> Path:
    """POPE (COCO, random) yes/no items; items on one COCO image share its placeholder."""
    items = []
    for line in (REAL / "pope" / "coco_pope_random_excerpt.json").read_text().splitlines():
        row = json.loads(line)
        items.append({**BASE, "id": f"pope-{row['question_id']}", "question": row["text"],
                      "task": "yesno", "answers": [row["label"]],
                      "image": placeholder(root, row["image"]),
                      "capability": "perception.existence", "layer": "perception"})
    return _write(root, items)


def build_mmlu(root: Path) -> Path:
    """MMLU test excerpts (three subjects) as text-only mc items."""
    items = []
    for path in sorted((REAL / "mmlu").glob("*.csv")):
        subject = path.stem.replace("_test_excerpt", "")
        with path.open(encoding="utf-8", newline="") as handle:
            for number, row in enumerate(csv.reader(handle), start=1):
                question, *options, gold = row
                items.append({**BASE, "id": f"mmlu-{subject}-{number:03d}",
                              "question": question, "task": "mc",
                              "choices": dict(zip(LETTERS, options)), "answers": [gold],
                              "capability": f"knowledge.{subject}", "layer": "reasoning"})
    return _write(root, items)


def build_chartqa(root: Path) -> Path:
    """ChartQA human-written test questions: numeric when the answer is a number."""
    items = []
    for line in CHARTQA.read_text(encoding="utf-8").splitlines():
        row = json.loads(line)
        numeric = bool(_NUMBER.match(row["answer"].strip()))
        items.append({**BASE, "id": row["id"], "question": row["question"],
                      "task": "numeric" if numeric else "open", "answers": [row["answer"]],
                      "image": placeholder(root, row["imgname"]),
                      "capability": "understanding.chart", "layer": "understanding",
                      **({"metric": "relaxed", "tolerance": 0.05} if numeric else {})})
    return _write(root, items)


def mathvista_reference_source(root: Path) -> Path:
    """MathVista testmini excerpt as a reference source (id, question, choices) JSONL."""
    rows = json.loads((REAL / "mathvista" / "testmini_excerpt.json").read_text("utf-8"))
    root.mkdir(parents=True, exist_ok=True)
    path = root / "mathvista_testmini.jsonl"
    path.write_text("".join(json.dumps({"id": f"mathvista-{pid}", "question": row["question"],
                                        "choices": row["choices"]}, ensure_ascii=False) + "\n"
                            for pid, row in rows.items()), encoding="utf-8")
    return path


BUILDERS: dict[str, Callable[[Path], Path]] = {
    "scienceqa": build_scienceqa, "pope": build_pope, "mmlu": build_mmlu,
    "chartqa": build_chartqa}
