"""Points and multi-box answers: point-in-box, detection F1, AP@0.5 and COCO mAP@[.5:.95].

Point forms read: `(x, y)`, `[x, y]`, JSON `{"point_2d": [x, y]}`, a bare "x, y", and
Molmo's `<point x="61.5" y="40.6">` (percent of the image). A point's convention follows
the box rule of `bench_kit.scoring.extract.boxes` (all in 0-1 -> unit; beyond the image but <= 1000
-> the 0-1000 grid; else pixels). A response with a box but no point clicks the box's
centre (ScreenSpot practice), "lenient".

Detections are every box in the response, in order; a JSON object holding a box may give
`"score"` / `"confidence"`. Ranking for AP: higher confidence first, then earlier in its
response, then earlier item. Matching is class-agnostic, COCO style: per image, each
detection in rank order takes the unmatched gold box it overlaps most if IoU >= threshold.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Mapping, Sequence

from bench_kit.scoring.extract.boxes import Box, box_spans, found_boxes, to_pixels
from bench_kit.scoring.extract.response import (
    FAILED,
    PARSE_LENIENT,
    PARSE_OK,
    Extraction,
    clean_response,
    pick_candidate,
)
from bench_kit.scoring.metrics.answers import iou

Point = tuple[float, float]

_N = r"([-+]?(?:\d+(?:\.\d*)?|\.\d+))"
_POINT = re.compile(rf"[\[(]\s*{_N}\s*,\s*{_N}\s*[\])]")
_BARE_POINT = re.compile(rf"\s*{_N}\s*,\s*{_N}\s*\.?\s*")
_MOLMO = re.compile(rf"<point\b[^>]*?\bx\s*=\s*\"{_N}\"[^>]*?\by\s*=\s*\"{_N}\"", re.I)
_OBJECT = re.compile(r"\{[^{}]*\}")
_CONFIDENCE = re.compile(rf"\"(?:score|confidence|conf)\"\s*:\s*{_N}", re.I)
COCO_THRESHOLDS = tuple(round(0.5 + 0.05 * i, 2) for i in range(10))


def _point_to_pixels(x: float, y: float, width: int, height: int,
                     box_format: str = "auto") -> Point:
    if box_format != "auto":  # the model's declared scale (bench_kit.scoring.extract.boxes)
        sx, sy = {"norm1": (width, height), "norm1000": (width / 1000, height / 1000)}.get(
            box_format, (1.0, 1.0))
        return x * sx, y * sy
    if 0.0 <= x <= 1.0 and 0.0 <= y <= 1.0:
        return x * width, y * height
    if (x > width or y > height) and x <= 1000.0 and y <= 1000.0:
        return x * width / 1000, y * height / 1000
    return x, y


def _spans_overlap(start: int, end: int, spans: list[tuple[int, int]]) -> bool:
    return any(a < end and start < b for a, b in spans)


def extract_point_detailed(response: str, width: int, height: int, *,
                           box_format: str = "auto") -> Extraction[Point]:
    """The answer point in pixels with its parse path (rules in the module docstring).

    The first point after the last answer clause, or the only distinct point, is "ok";
    the first of several points, or the centre of a box, is "lenient".
    """
    text = clean_response(response)
    if not text or width <= 0 or height <= 0:
        return FAILED
    molmo = _MOLMO.search(response if isinstance(response, str) else "")
    if molmo:
        x, y = float(molmo.group(1)), float(molmo.group(2))
        return Extraction((x * width / 100, y * height / 100), PARSE_OK)
    boxes = box_spans(text)
    points = [(m.start(), (float(m.group(1)), float(m.group(2))))
              for m in _POINT.finditer(text) if not _spans_overlap(*m.span(), boxes)]
    if not points:
        bare = _BARE_POINT.fullmatch(text)
        if bare:
            points = [(0, (float(bare.group(1)), float(bare.group(2))))]
    if not points:
        found = found_boxes(text)
        if not found:
            return FAILED
        x1, y1, x2, y2 = to_pixels(found[0][1], width, height, box_format)
        return Extraction(((x1 + x2) / 2, (y1 + y2) / 2), PARSE_LENIENT)
    picked = pick_candidate(text, points)
    assert picked.value is not None  # pick_candidate returns one of `points`
    x, y = picked.value
    return Extraction(_point_to_pixels(x, y, width, height, box_format), picked.parse)


def extract_point(response: str, width: int, height: int) -> Point | None:
    """The answer point of a response in image pixels `(x, y)`, or None.

    >>> extract_point("Click at (0.5, 0.25).", 200, 100)
    (100.0, 25.0)
    >>> extract_point('<point x="10" y="50" alt="button">button</point>', 200, 100)
    (20.0, 50.0)
    """
    return extract_point_detailed(response, width, height).value


def point_in_box(point: Sequence[float], box: Sequence[float]) -> bool:
    """Whether a point lies inside a box `(x1, y1, x2, y2)`, edges included.

    >>> point_in_box((5, 5), (0, 0, 10, 10)), point_in_box((11, 5), (0, 0, 10, 10))
    (True, False)
    """
    x, y = float(point[0]), float(point[1])
    x1, x2 = sorted((float(box[0]), float(box[2])))
    y1, y2 = sorted((float(box[1]), float(box[3])))
    return x1 <= x <= x2 and y1 <= y <= y2


@dataclass(frozen=True)
class Detection:
    """One predicted box in pixels, its confidence if the model gave one, and its rank (0 =
    first in the response)."""

    box: Box
    confidence: float | None
    rank: int


def extract_detections(response: str, width: int, height: int, *,
                       box_format: str = "auto") -> list[Detection]:
    """Every box of a response, in order, converted to pixels; duplicates dropped.

    >>> [d.box for d in extract_detections("[0, 0, 10, 10] and [20, 20, 30, 30]", 64, 64)]
    [(0.0, 0.0, 10.0, 10.0), (20.0, 20.0, 30.0, 30.0)]
    """
    text = clean_response(response)
    if not text or width <= 0 or height <= 0:
        return []
    confidences: dict[int, float] = {}
    if "{" in text:
        for obj in _OBJECT.finditer(text):
            score = _CONFIDENCE.search(obj.group())
            if score:
                for start, _ in found_boxes(obj.group()):
                    confidences[obj.start() + start] = float(score.group(1))
    out: list[Detection] = []
    seen: set[Box] = set()
    for start, raw in found_boxes(text):
        box = to_pixels(raw, width, height, box_format)
        if box not in seen:
            seen.add(box)
            out.append(Detection(box, confidences.get(start), len(out)))
    return out


def match_detections(preds: Sequence[Sequence[float]], golds: Sequence[Sequence[float]],
                     threshold: float = 0.5) -> list[bool]:
    """True per prediction (in the given rank order) that matches a gold box: each takes
    the unmatched gold with the highest IoU, if that IoU >= `threshold`.

    >>> match_detections([(0, 0, 10, 10), (0, 0, 10, 9)], [(0, 0, 10, 10)])
    [True, False]
    """
    free = list(range(len(golds)))
    hits: list[bool] = []
    for pred in preds:
        best, best_iou = None, threshold
        for index in free:
            overlap = iou(pred, golds[index])
            if overlap >= best_iou:
                best, best_iou = index, overlap
        if best is not None:
            free.remove(best)
        hits.append(best is not None)
    return hits


def detection_f1(preds: Sequence[Sequence[float]], golds: Sequence[Sequence[float]],
                 threshold: float = 0.5) -> float:
    """F1 of one image's boxes at an IoU threshold (1.0 when both lists are empty).

    >>> detection_f1([(0, 0, 10, 10), (50, 50, 60, 60)], [(0, 0, 10, 10)])
    0.6666666666666666
    """
    if not preds and not golds:
        return 1.0
    tp = sum(match_detections(preds, golds, threshold))
    return 2 * tp / (len(preds) + len(golds))


def _ranked(detections: Sequence[Detection]) -> list[Detection]:
    return sorted(detections, key=lambda d: (-(d.confidence if d.confidence is not None
                                               else 1.0), d.rank))


def average_precision(detections: Mapping[str, Sequence[Detection]],
                      golds: Mapping[str, Sequence[Sequence[float]]],
                      threshold: float = 0.5) -> float | None:
    """COCO-style AP at one IoU threshold: 101-point interpolated precision over recall.

    Args:
        detections: per image (item id), its predicted boxes.
        golds: per image, its gold boxes; an image missing here has none.
        threshold: the IoU a detection needs to match a gold box.

    Returns:
        AP in 0-1, or None when there is no gold box at all.
    """
    total = sum(len(boxes) for boxes in golds.values())
    if not total:
        return None
    flagged: list[tuple[tuple, bool]] = []
    for image_index, image in enumerate(sorted(detections)):
        ranked = _ranked(detections[image])
        hits = match_detections([d.box for d in ranked], golds.get(image, ()), threshold)
        for det, hit in zip(ranked, hits):
            confidence = det.confidence if det.confidence is not None else 1.0
            flagged.append(((-confidence, det.rank, image_index), hit))
    flagged.sort(key=lambda pair: pair[0])
    precisions, recalls = [], []
    tp = 0
    for count, (_, hit) in enumerate(flagged, start=1):
        tp += hit
        precisions.append(tp / count)
        recalls.append(tp / total)
    for i in range(len(precisions) - 2, -1, -1):  # precision envelope (non-increasing)
        precisions[i] = max(precisions[i], precisions[i + 1])
    ap, j = 0.0, 0
    for step in range(101):
        level = step / 100
        while j < len(recalls) and recalls[j] < level - 1e-12:
            j += 1
        ap += precisions[j] if j < len(recalls) else 0.0
    return ap / 101


def detection_map(detections: Mapping[str, Sequence[Detection]],
                  golds: Mapping[str, Sequence[Sequence[float]]]) -> dict:
    """`{"ap50", "ap75", "map"}`: AP at IoU 0.5 and 0.75, and the COCO mean over IoU
    0.50:0.05:0.95 (None without gold boxes)."""
    per = {t: average_precision(detections, golds, t) for t in COCO_THRESHOLDS}
    if per[0.5] is None:
        return {"ap50": None, "ap75": None, "map": None}
    return {"ap50": per[0.5], "ap75": per[0.75],
            "map": sum(v for v in per.values() if v is not None) / len(per)}
