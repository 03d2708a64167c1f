"""Per-item scorers for the metrics beyond the task defaults (registered in `METRICS`).

Corpus-level metrics (macro-F1, paired-question accuracy, AP/mAP, mIoU, pixel AUROC, PRO)
also score each item here, so every item has a Score row; the corpus numbers are computed
by `bench_kit.scoring.corpus` from the same responses.

| name | per-item score | hit |
|---|---|---|
| `circular` | as `accuracy` (rotations are combined by `bench_kit.scoring.stage`) | letter right |
| `macro_f1` | the predicted label (mc letter, yes/no, or normalised text) vs the gold | equal |
| `paired` | the task's default metric | as the default |
| `rouge_l` | ROUGE-L F1 against the best gold | score >= `rouge_l_hit` (0.5) |
| `embedding` | cosine of sentence embeddings, best gold | >= `embedding_threshold` |
| `point` | 1 if the answer point is inside a gold box | inside |
| `detection` / `ap50` / `map` | F1 of the boxes at `iou_threshold` | every gold found, no extra |
| `mask_iou` / `miou` | IoU of the predicted and gold masks | IoU >= `iou_threshold` |
| `pixel_auroc` / `pro` | the image's pixel AUROC (defect-free: 1 - share of pixels >= `defect_pixel_threshold`) | >= `defect_map_hit` |
"""

from __future__ import annotations

import re

from bench_kit.errors import InputError
from bench_kit.scoring.contract import (
    DEFAULT_METRIC,
    FAILED,
    METRICS,
    Outcome,
    ScoreContext,
    binary_outcome,
    clip_extracted,
    register_scorer,
)
from bench_kit.scoring.extract.answers import (
    extract_choice_detailed,
    extract_yesno_detailed,
)
from bench_kit.scoring.extract.response import (
    PARSE_OK,
    answer_text,
    format_number,
    normalize_text,
)
from bench_kit.scoring.metrics.detection import (
    detection_f1,
    extract_detections,
    extract_point_detailed,
    point_in_box,
)
from bench_kit.scoring.metrics.masks import load_array, load_mask, mask_iou, pixel_auroc
from bench_kit.scoring.metrics.text import embedding_similarity, rouge_l
from bench_kit.scoring.task_scorers import gold_box, image_size_of
from bench_kit.types import Item

SIZED_METRICS = frozenset({"iou", "point", "detection", "ap50", "map"})  # need image size
_RLE = re.compile(r"\{[^{}]*\"counts\"[^{}]*\}")
_POLYGON = re.compile(r"\[\s*\[[-+\d.,\s\[\]]*\]\s*\]")
_FILE = re.compile(r"[^\s\"'`<>()]+\.(?:png|npy)\b", re.I)


def predicted_label(item: Item, text: str) -> tuple[str | None, str]:
    """The class label a response gives, by task: mc letter, yes/no, else normalised text;
    with the parse path."""
    if item.task == "mc":
        found = extract_choice_detailed(text, item.choices or {}, item.question)
        return found.value, found.parse
    if item.task == "yesno":
        found = extract_yesno_detailed(text, item.question)
        return found.value, found.parse
    answer = normalize_text(answer_text(text))
    return (answer, PARSE_OK) if answer else (None, "failed")


@register_scorer("macro_f1")
def _score_label(item: Item, text: str, ctx: ScoreContext) -> Outcome:
    label, parse = predicted_label(item, text)
    if label is None:
        return FAILED
    golds = {normalize_text(a) for a in item.answers}
    return binary_outcome(clip_extracted(label), parse, normalize_text(label) in golds)


@register_scorer("paired")
def _score_paired(item: Item, text: str, ctx: ScoreContext) -> Outcome:
    return METRICS.get(DEFAULT_METRIC[item.task])(item, text, ctx)


@register_scorer("rouge_l")
def _score_rouge(item: Item, text: str, ctx: ScoreContext) -> Outcome:
    answer = answer_text(text)
    if not normalize_text(answer):
        return FAILED
    score = rouge_l(answer, item.answers)
    return Outcome(clip_extracted(answer), PARSE_OK, score, score >= ctx.settings.rouge_l_hit)


@register_scorer("embedding")
def _score_embedding(item: Item, text: str, ctx: ScoreContext) -> Outcome:
    answer = answer_text(text)
    if not answer.strip():
        return FAILED
    score = embedding_similarity(answer, item.answers)
    return Outcome(clip_extracted(answer), PARSE_OK, score, score >= ctx.settings.embedding_threshold)


@register_scorer("point")
def _score_point(item: Item, text: str, ctx: ScoreContext) -> Outcome:
    boxes = [gold_box(item, answer) for answer in item.answers]
    if not text.strip():
        return FAILED
    found = extract_point_detailed(text, *image_size_of(item, ctx), box_format=ctx.box_format)
    if found.value is None:
        return FAILED
    extracted = ",".join(format_number(round(v, 1)) for v in found.value)
    return binary_outcome(extracted, found.parse, any(point_in_box(found.value, b) for b in boxes))


@register_scorer("detection", "ap50", "map")
def _score_detection(item: Item, text: str, ctx: ScoreContext) -> Outcome:
    golds = [gold_box(item, answer) for answer in item.answers]
    if not text.strip():
        return FAILED
    found = extract_detections(text, *image_size_of(item, ctx), box_format=ctx.box_format)
    if not found:
        return FAILED
    threshold = ctx.settings.iou_threshold
    score = detection_f1([d.box for d in found], golds, threshold)
    extracted = ";".join(",".join(format_number(round(v, 1)) for v in d.box) for d in found)
    return Outcome(clip_extracted(extracted), PARSE_OK, score, score == 1.0)


def mask_spec(text: str) -> str | None:
    """The mask or map a response gives: RLE JSON, a polygon, or a .png/.npy path."""
    stripped = text.strip()
    if stripped.startswith("{") or stripped.startswith("[["):
        return stripped
    for pattern in (_RLE, _POLYGON, _FILE):
        found = pattern.search(stripped)
        if found:
            return found.group()
    return None


def _root(item: Item, ctx: ScoreContext):
    if ctx.root is None:
        raise InputError(f"item '{item.id}': metric {item.metric} reads files and needs the "
                         f"benchmark root", field="answers")
    return ctx.root


def gold_array(item: Item, ctx: ScoreContext):
    """The gold mask of a mask or defect-map item (its first answer).

    Raises:
        InputError: the mask cannot be read (field `answers`).
    """
    if not item.answers:
        raise InputError(f"item '{item.id}': a mask item needs a mask answer", field="answers")
    try:
        return load_mask(item.answers[0], _root(item, ctx))
    except InputError as exc:
        raise InputError(f"item '{item.id}': gold mask: {exc.reason}", field="answers") \
            from exc


def predicted_array(text: str, ctx: ScoreContext, shape: tuple[int, int], *,
                    scores: bool = False):
    """The predicted mask (or score map) of a response, or None when it cannot be read or
    its shape differs from the gold (a failed parse, not a crash)."""
    spec = mask_spec(text)
    if spec is None or ctx.root is None:
        return None
    try:
        array = load_array(spec, ctx.root) if scores else load_mask(spec, ctx.root, shape)
    except InputError:
        return None
    return array if array.shape == shape else None


@register_scorer("mask_iou", "miou")
def _score_mask(item: Item, text: str, ctx: ScoreContext) -> Outcome:
    gold = gold_array(item, ctx)
    pred = predicted_array(text, ctx, gold.shape)
    if pred is None:
        return FAILED
    score = mask_iou(pred, gold)
    return Outcome(clip_extracted(mask_spec(text) or ""), PARSE_OK, score,
                   score >= ctx.settings.iou_threshold)


@register_scorer("pixel_auroc", "pro")
def _score_defect_map(item: Item, text: str, ctx: ScoreContext) -> Outcome:
    gold = gold_array(item, ctx)
    pred = predicted_array(text, ctx, gold.shape, scores=True)
    if pred is None:
        return FAILED
    area = pixel_auroc([pred], [gold])
    if area is None:  # a defect-free image: the share of pixels not raised as defects
        cut = ctx.settings.defect_pixel_threshold
        area = 1.0 - float((pred >= cut).mean()) if gold.size else 1.0
    score = min(1.0, max(0.0, area))
    return Outcome(clip_extracted(mask_spec(text) or ""), PARSE_OK, score,
                   score >= ctx.settings.defect_map_hit)
