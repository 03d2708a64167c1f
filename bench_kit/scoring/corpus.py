"""Corpus-level metrics of one model in one mode, from the items that use them.

Each entry of `CORPUS` picks its rows (by the item's metric, or by CircularEval
rotations) and turns them into one block of the metrics JSON, under `corpus.<name>`. Rows
of failed requests (`error` set) never enter: a transport fault is not an answer. A block
appears only when at least one scored item uses it.

Blocks: `circular` (mc items asked at several rotations: all-rotations accuracy next to
rotation 0's), `macro_f1`, `paired` (share of groups with every question right), `detection`
(AP@0.5, AP@0.75, COCO mAP@[.5:.95]), `masks` (mIoU, cIoU) and `defects` (pixel AUROC, PRO,
image AUROC). Definitions: docs/SCORING.md §3.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass
from pathlib import Path
from typing import Callable, Sequence

from bench_kit.registry import Registry
from bench_kit.scoring.contract import ScoreContext, ScoreSettings
from bench_kit.scoring.extract.response import strip_reasoning
from bench_kit.scoring.metrics.answers import auroc
from bench_kit.scoring.metrics.detection import (
    Detection,
    detection_map,
    extract_detections,
)
from bench_kit.scoring.metrics.masks import pixel_auroc, pro_score
from bench_kit.scoring.metrics.text import macro_f1
from bench_kit.scoring.task_scorers import gold_box
from bench_kit.types import Item, Score

DIGITS = 6


@dataclass(frozen=True)
class CorpusRow:
    """One scored item: the item, its Score, its (rotation 0) raw response and how many
    rotations were asked."""

    item: Item
    score: Score
    response: str
    rotations: int = 1


@dataclass(frozen=True)
class CorpusContext:
    """What corpus metrics may need besides the rows."""

    settings: ScoreSettings
    root: Path | None = None
    image_size: Callable[[Item], tuple[int, int] | None] = lambda item: None
    box_format: str = "auto"

    def score_context(self, item: Item) -> ScoreContext:
        """The per-item context for `item` (its image size looked up when needed)."""
        return ScoreContext(self.image_size(item), self.settings, self.root, self.box_format)


@dataclass(frozen=True)
class CorpusMetric:
    """Which rows a corpus metric takes and how it turns them into a block."""

    uses: Callable[[CorpusRow], bool]
    compute: Callable[[Sequence[CorpusRow], CorpusContext], dict]


CORPUS: Registry[CorpusMetric] = Registry("corpus metric")


def _r(value: float | None) -> float | None:
    return None if value is None else round(float(value), DIGITS)


def _rate(hits: int, n: int) -> float | None:
    return _r(hits / n) if n else None


def _by_metric(*names: str) -> Callable[[CorpusRow], bool]:
    return lambda row: row.score.metric in names


def corpus_metric(name: str, uses: Callable[[CorpusRow], bool]):
    """Decorator registering a corpus block under `name`."""
    def decorator(compute):
        CORPUS.register(name)(CorpusMetric(uses, compute))
        return compute
    return decorator


def corpus_metrics(rows: Sequence[CorpusRow], context: CorpusContext) -> dict:
    """`{block name: block}` for every corpus metric some non-error row uses."""
    valid = [row for row in rows if row.score.error is None]
    out: dict = {}
    for name in CORPUS.names():
        metric = CORPUS.get(name)
        chosen = [row for row in valid if metric.uses(row)]
        if chosen:
            out[name] = metric.compute(chosen, context)
    return out


@corpus_metric("circular", lambda row: row.rotations > 1)
def _circular(rows: Sequence[CorpusRow], context: CorpusContext) -> dict:
    hits = sum(row.score.hit for row in rows)
    vanilla = sum((row.score.extracted or "").split(",")[0] in row.item.answers for row in rows)
    n = len(rows)
    drop = None if not n else _r((vanilla - hits) / n)
    return {"n": n, "hits": hits, "accuracy": _rate(hits, n), "vanilla_hits": vanilla,
            "vanilla_accuracy": _rate(vanilla, n), "drop": drop}


@corpus_metric("macro_f1", _by_metric("macro_f1"))
def _macro_f1(rows: Sequence[CorpusRow], context: CorpusContext) -> dict:
    golds = [row.item.answers[0] for row in rows]
    preds = [None if row.score.parse == "failed" else row.score.extracted for row in rows]
    result = macro_f1(golds, preds)
    return {"macro_f1": _r(result["macro_f1"]), "accuracy": _r(result["accuracy"]),
            "n": result["n"],
            "per_class": {label: {k: (_r(v) if k != "support" else v) for k, v in c.items()}
                          for label, c in result["per_class"].items()}}


def group_key(item: Item) -> str:
    """The unit of paired-question accuracy: the item's group, else its first image, else
    the item itself."""
    return item.group or (item.images[0] if item.images else f"id:{item.id}")


@corpus_metric("paired", _by_metric("paired"))
def _paired(rows: Sequence[CorpusRow], context: CorpusContext) -> dict:
    groups: dict[str, list[bool]] = defaultdict(list)
    for row in rows:
        groups[group_key(row.item)].append(row.score.hit)
    hits = sum(all(hits) for hits in groups.values())
    return {"n": len(groups), "hits": hits, "accuracy": _rate(hits, len(groups)),
            "questions": len(rows),
            "question_accuracy": _rate(sum(row.score.hit for row in rows), len(rows))}


@corpus_metric("detection", _by_metric("detection", "ap50", "map"))
def _detection(rows: Sequence[CorpusRow], context: CorpusContext) -> dict:
    detections: dict[str, list[Detection]] = {}
    golds: dict[str, list] = {}
    for row in rows:
        item = row.item
        golds[item.id] = [gold_box(item, answer) for answer in item.answers]
        size = context.image_size(item)
        text = strip_reasoning(row.response)
        detections[item.id] = extract_detections(text, *size, box_format=context.box_format) \
            if size and text else []
    result = detection_map(detections, golds)
    return {**{k: _r(v) for k, v in result.items()}, "n": len(rows),
            "gold_boxes": sum(len(g) for g in golds.values()),
            "predicted_boxes": sum(len(d) for d in detections.values())}


@corpus_metric("masks", _by_metric("mask_iou", "miou"))
def _masks(rows: Sequence[CorpusRow], context: CorpusContext) -> dict:
    import numpy as np

    from bench_kit.scoring.metric_scorers import gold_array, predicted_array

    inter = union = 0
    for row in rows:
        ctx = context.score_context(row.item)
        gold = gold_array(row.item, ctx)
        pred = predicted_array(strip_reasoning(row.response), ctx, gold.shape)
        pred = np.zeros(gold.shape, dtype=bool) if pred is None else pred
        inter += int(np.logical_and(pred, gold).sum())
        union += int(np.logical_or(pred, gold).sum())
    n = len(rows)
    return {"n": n, "miou": _r(sum(row.score.score for row in rows) / n),
            "ciou": _r(inter / union) if union else None}


@corpus_metric("defects", _by_metric("pixel_auroc", "pro"))
def _defects(rows: Sequence[CorpusRow], context: CorpusContext) -> dict:
    from bench_kit.scoring.metric_scorers import gold_array, predicted_array

    maps, masks = [], []
    for row in rows:
        ctx = context.score_context(row.item)
        gold = gold_array(row.item, ctx)
        pred = predicted_array(strip_reasoning(row.response), ctx, gold.shape, scores=True)
        if pred is not None:
            maps.append(pred)
            masks.append(gold)
    labels = [int(mask.any()) for mask in masks]
    image_auroc = auroc([float(m.max()) if m.size else 0.0 for m in maps], labels) \
        if 0 < sum(labels) < len(labels) else None
    return {"n": len(rows), "maps_read": len(maps),
            "pixel_auroc": _r(pixel_auroc(maps, masks)),
            "pro": _r(pro_score(maps, masks, context.settings.pro_max_fpr)),
            "image_auroc": _r(image_auroc)}
