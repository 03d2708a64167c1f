"""Where the files that cross a stage live (the demo layout of dvc.yaml).

    results/<bench>/<model>/<mode>.jsonl     predictions (`eval run`)
    scores/<bench>/<model>/<mode>.jsonl      per-item scores (`eval score`)
    metrics/<bench>/<model>.json             one model's metrics (`eval score`)
    audits/<bench>/findings.jsonl, summary.json              data audit (`audit data`)
    audits/<bench>/results/model_findings.jsonl, model_summary.json, item_stats.jsonl
                                             model audits (`audit results`)
    audits/<bench>/quarantine.txt            exclusion list (`audit quarantine`)
    datasets/<bench>/review_rejected.txt     exclusion list (`author review apply`)
    datasets/<bench>/splits/<split>.jsonl, manifest.json     splits (`split`)
"""

from __future__ import annotations

from pathlib import Path

from bench_kit.types import MODES

DATA_FINDINGS = "findings.jsonl"
DATA_SUMMARY = "summary.json"
MODEL_FINDINGS = "model_findings.jsonl"
MODEL_SUMMARY = "model_summary.json"
ITEM_STATS = "item_stats.jsonl"
ANSWER_SHEET = "answer_candidates.csv"
QUARANTINE = "quarantine.txt"
REVIEW_REJECTED = "review_rejected.txt"
SPLIT_MANIFEST = "manifest.json"


def mode_file(folder: str | Path, mode: str) -> Path:
    """`<folder>/<mode>.jsonl`: one model's predictions or scores in one mode."""
    return Path(folder) / f"{mode}.jsonl"


def mode_files(folder: str | Path) -> dict[str, Path]:
    """The `<mode>.jsonl` files present in `folder`, in canonical mode order."""
    return {m: mode_file(folder, m) for m in MODES if mode_file(folder, m).is_file()}


def results_file(bench: str, model: str, mode: str) -> Path:
    """`results/<bench>/<model>/<mode>.jsonl` (relative to the project root)."""
    return mode_file(Path("results") / bench / model, mode)


def scores_folder(bench: str, model: str) -> Path:
    """`scores/<bench>/<model>` (relative to the project root)."""
    return Path("scores") / bench / model


def metrics_file(bench: str, model: str) -> Path:
    """`metrics/<bench>/<model>.json` (relative to the project root)."""
    return Path("metrics") / bench / f"{model}.json"


def split_file(bench: str, split: str) -> Path:
    """`datasets/<bench>/splits/<split>.jsonl` (relative to the project root)."""
    return Path("datasets") / bench / "splits" / f"{split}.jsonl"
