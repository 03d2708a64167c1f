"""Donut/DocVQA-style rows: a `ground_truth` JSON string holding several question/answer
pairs about one image becomes one row per question (see docs/IMPORT_EXPORT.md)."""

from __future__ import annotations

import json
from typing import Any

from bench_kit.errors import param
from bench_kit.exchange.cells import RowError


def _pairs(ground_truth: Any) -> list[dict[str, Any]] | None:
    """Question/answer pairs of a Donut-style `ground_truth` ({"gt_parses": [...]} or
    {"gt_parse": {...}}), or None when it holds none."""
    if isinstance(ground_truth, str):
        try:
            ground_truth = json.loads(ground_truth)
        except ValueError:
            return None
    if not isinstance(ground_truth, dict):
        return None
    parses = ground_truth.get("gt_parses")
    if parses is None and isinstance(ground_truth.get("gt_parse"), dict):
        parses = [ground_truth["gt_parse"]]
    if not isinstance(parses, list):
        return None
    pairs = [p for p in parses if isinstance(p, dict) and "question" in p and "answer" in p]
    return pairs or None


def expand_pairs(row: dict[str, Any], line: int, force: bool) -> list[dict[str, Any]]:
    """One row per question/answer pair of a nested `ground_truth` (Donut/DocVQA style).

    Rows without one come back unchanged (with `force`, a RowError). Expanded rows share
    the image (and so its group) and get ids `<id>-<n>`; the same question asked twice with
    different answers becomes one item with several accepted answers.
    """
    if "ground_truth" not in row:
        if force:
            raise RowError("ground_truth", f"{param('expand')} needs a ground_truth column")
        return [row]
    pairs = _pairs(row["ground_truth"])
    if pairs is None:
        if force:
            raise RowError("ground_truth", "holds no question/answer pairs (expected "
                                           '{"gt_parses": [{"question": …, "answer": …}]})')
        return [row]
    base = {k: v for k, v in row.items() if k != "ground_truth"}
    stem = str(base.get("id") or line)
    by_question: dict[str, dict[str, Any]] = {}
    for pair in pairs:
        question = str(pair["question"]).strip()
        answers = pair["answer"] if isinstance(pair["answer"], list) else [pair["answer"]]
        if question in by_question:
            by_question[question]["answers"].extend(answers)
            continue
        by_question[question] = {**base, "id": f"{stem}-{len(by_question) + 1}",
                                 "question": question, "answers": list(answers)}
    return list(by_question.values())
