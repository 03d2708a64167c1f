"""Metric definitions of docs/METRICS.md#registered-metrics: per-answer scores and the POPE / MME / AUROC aggregates.

Each function implements the published definition, with its known quirks fixed and said
so: a failed parse is never a "yes" in POPE. VQA accuracy lives in
`bench_kit.scoring.metrics.vqa` and ChartQA's relaxed accuracy in
`bench_kit.scoring.metrics.relaxed` and MMMU's open match in
`bench_kit.scoring.metrics.mmmu_open` (all re-exported here).
Bad inputs (mismatched lengths, a single-class AUROC) raise `InputError`.
"""

from __future__ import annotations

import math
import re
from collections import defaultdict
from typing import Iterable, Mapping, Sequence

from bench_kit.errors import InputError
from bench_kit.scoring.metrics.mmmu_open import _trim_key, mmmu_candidates, mmmu_open_match  # noqa: F401
from bench_kit.scoring.metrics.relaxed import chart_number, relaxed_accuracy, relaxed_match  # noqa: F401
from bench_kit.scoring.metrics.vqa import vqa_accuracy, vqa_normalize  # noqa: F401
from bench_kit.text.edit import levenshtein

# The standard MME categories (Fu et al. 2023): 10 perception, 4 cognition; 200 points each.
MME_PERCEPTION = ("existence", "count", "position", "color", "posters", "celebrity", "scene",
                  "landmark", "artwork", "ocr")
MME_COGNITION = ("commonsense_reasoning", "numerical_calculation", "text_translation",
                 "code_reasoning")


def anls(pred: str, golds: Sequence[str], threshold: float = 0.5) -> float:
    """Average Normalized Levenshtein Similarity for one item (DocVQA): per gold,
    NL = distance / max length after lowercasing and collapsing whitespace; the score is
    1 - NL when NL < threshold, else 0; the item's score is the best over golds.

    >>> anls("abce", ["abcd"]), anls("abef", ["abcd"])
    (0.75, 0.0)
    """
    p = " ".join(str(pred).lower().split())
    best = 0.0
    for gold in golds:
        g = " ".join(str(gold).lower().split())
        longest = max(len(p), len(g))
        nl = levenshtein(p, g) / longest if longest else 0.0
        best = max(best, 1.0 - nl if nl < threshold else 0.0)
    return best


def iou(a: Sequence[float], b: Sequence[float]) -> float:
    """Intersection over union of two boxes `(x1, y1, x2, y2)` (corner order is normalised).

    Two zero-area boxes score 1.0 when identical and 0.0 otherwise.

    >>> iou((0, 0, 10, 10), (5, 0, 15, 10))
    0.3333333333333333
    """
    if len(a) != 4 or len(b) != 4:
        raise InputError(f"a box needs 4 numbers (x1, y1, x2, y2), got {list(a)} and {list(b)}")
    ax1, ax2 = sorted((float(a[0]), float(a[2])))
    ay1, ay2 = sorted((float(a[1]), float(a[3])))
    bx1, bx2 = sorted((float(b[0]), float(b[2])))
    by1, by2 = sorted((float(b[1]), float(b[3])))
    iw = max(0.0, min(ax2, bx2) - max(ax1, bx1))
    ih = max(0.0, min(ay2, by2) - max(ay1, by1))
    inter = iw * ih
    union = (ax2 - ax1) * (ay2 - ay1) + (bx2 - bx1) * (by2 - by1) - inter
    if union <= 0:
        return 1.0 if (ax1, ay1, ax2, ay2) == (bx1, by1, bx2, by2) else 0.0
    return inter / union


def pope(golds: Sequence[str], preds: Sequence[str | None]) -> dict:
    """POPE metrics with "yes" as the positive class: precision, recall, f1 (the headline),
    accuracy and yes_ratio, all 0-1. An unparsed prediction (None or not yes/no) counts as
    wrong and as not-"yes".

    >>> pope(["yes", "no"], ["yes", "yes"])["precision"]
    0.5
    """
    if len(golds) != len(preds):
        raise InputError(f"pope: {len(golds)} golds but {len(preds)} predictions")
    tp = fp = tn = fn = said_yes = 0
    for gold, pred in zip(golds, preds):
        g = str(gold).strip().lower()
        if g not in ("yes", "no"):
            raise InputError(f"pope: gold answers must be 'yes' or 'no', got {gold!r}")
        p = pred.strip().lower() if isinstance(pred, str) else None
        said_yes += p == "yes"
        if g == "yes":
            tp += p == "yes"
            fn += p != "yes"
        else:
            fp += p == "yes"
            tn += p == "no"
    n = len(golds)
    precision = tp / (tp + fp) if tp + fp else 0.0
    recall = tp / (tp + fn) if tp + fn else 0.0
    f1 = 2 * precision * recall / (precision + recall) if precision + recall else 0.0
    return {"precision": precision, "recall": recall, "f1": f1,
            "accuracy": (tp + tn) / n if n else 0.0, "yes_ratio": said_yes / n if n else 0.0}


def _mme_category(name: object) -> str:
    canonical = re.sub(r"[\s-]+", "_", str(name).strip().lower())
    return {"colour": "color"}.get(canonical, canonical)


def mme(rows: Iterable[Mapping]) -> dict:
    """MME scores from per-question rows `{image, category, hit}`.

    Per category: acc = share of questions right x 100, acc_plus = share of images with
    every question right x 100, score = acc + acc_plus (0-200). `perception` sums the 10
    perception categories and `cognition` the 4 cognition ones (max 2000 + 800 = 2800).
    Categories are matched to the standard lists case- and spacing-insensitively but
    reported under the name the rows use (the first spelling seen: `OCR` stays `OCR`);
    categories outside the standard lists are reported but enter neither sum.

    Returns:
        `{"perception": float, "cognition": float, "total": float,
        "categories": {category: {"acc", "acc_plus", "score"}}}`.
    """
    by_image: dict[str, dict[str, list[bool]]] = defaultdict(lambda: defaultdict(list))
    shown: dict[str, str] = {}
    for number, row in enumerate(rows, start=1):
        missing = [key for key in ("image", "category", "hit") if key not in row]
        if missing:
            raise InputError(f"mme: row {number} lacks {', '.join(missing)}")
        canonical = _mme_category(row["category"])
        shown.setdefault(canonical, str(row["category"]).strip())
        by_image[canonical][str(row["image"])].append(bool(row["hit"]))
    scores: dict[str, dict[str, float]] = {}
    for canonical in sorted(by_image):
        images = by_image[canonical]
        hits = [hit for answers in images.values() for hit in answers]
        acc = 100.0 * sum(hits) / len(hits)
        acc_plus = 100.0 * sum(all(answers) for answers in images.values()) / len(images)
        scores[canonical] = {"acc": acc, "acc_plus": acc_plus, "score": acc + acc_plus}
    perception = sum((scores[c]["score"] for c in MME_PERCEPTION if c in scores), 0.0)
    cognition = sum((scores[c]["score"] for c in MME_COGNITION if c in scores), 0.0)
    return {"perception": perception, "cognition": cognition,
            "total": perception + cognition,
            "categories": {shown[c]: block for c, block in scores.items()}}


def auroc(scores: Sequence[float], labels: Sequence[int]) -> float:
    """Area under the ROC curve: the probability that a random positive scores above a
    random negative, ties counting one half (so equal scores give 0.5).

    >>> auroc([0.1, 0.4, 0.35, 0.8], [0, 0, 1, 1])
    0.75
    """
    if len(scores) != len(labels):
        raise InputError(f"auroc: {len(scores)} scores but {len(labels)} labels")
    values = [float(s) for s in scores]
    if any(math.isnan(v) for v in values):
        raise InputError("auroc: scores contain NaN")
    if any(label not in (0, 1) for label in labels):
        raise InputError("auroc: labels must be 0 or 1")
    positives = sum(1 for label in labels if label == 1)
    negatives = len(labels) - positives
    if not positives or not negatives:
        raise InputError("auroc needs at least one positive and one negative label, "
                         f"got {positives} positive and {negatives} negative")
    return rank_auroc(values, [label == 1 for label in labels])


def rank_auroc(scores, positive) -> float:
    """AUROC by the Mann-Whitney rank sum with average ranks for ties (scipy's `rankdata`);
    `positive` is a boolean per score and both classes must be present."""
    import numpy as np
    from scipy.stats import rankdata

    flags = np.asarray(positive, dtype=bool)
    positives = int(flags.sum())
    negatives = flags.size - positives
    ranks = rankdata(np.asarray(scores, dtype=np.float64))
    rank_sum = float(ranks[flags].sum())
    return (rank_sum - positives * (positives + 1) / 2) / (positives * negatives)
