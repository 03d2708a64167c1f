"""Masks and defect maps: COCO RLE, mask IoU, pixel-level AUROC and PRO (MVTec AD).

A mask is given as COCO RLE (`{"size": [h, w], "counts": [...] | "compressed"}`, column
major, as pycocotools writes it), as a PNG file (non-zero = foreground), or, for a
prediction, as a polygon `[[x, y], ...]` drawn at the gold mask's size. A defect map is a
greyscale PNG (8- or 16-bit, scaled to 0-1) or a `.npy` array of per-pixel scores. File
paths are relative to the benchmark root and must stay inside it.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import TYPE_CHECKING, Any, Mapping, Sequence

from bench_kit.errors import InputError

if TYPE_CHECKING:
    import numpy as np


def _counts_from_string(text: str) -> list[int]:
    """Decode pycocotools' compressed counts: 5-bit groups (LEB128-like) in chars from 48,
    bit 0x20 = more groups follow, 0x10 of the last group = negative; from the fourth run
    (index 3) on each value is stored as a difference to the run two before."""
    counts: list[int] = []
    pos = 0
    while pos < len(text):
        value = shift = 0
        more = True
        while more:
            if pos >= len(text):
                raise InputError("RLE counts string ends inside a number")
            code = ord(text[pos]) - 48
            value |= (code & 0x1F) << shift
            more = bool(code & 0x20)
            pos += 1
            shift += 5
            if not more and code & 0x10:
                value |= -1 << shift
        if len(counts) > 2:
            value += counts[-2]
        counts.append(value)
    return counts


def counts_to_string(counts: Sequence[int]) -> str:
    """Encode run lengths as pycocotools' compressed string (the inverse of decoding).

    >>> counts_to_string([3, 2, 4])
    '324'
    """
    out = []
    for i, run in enumerate(counts):
        value = int(run) - (int(counts[i - 2]) if i > 2 else 0)
        more = True
        while more:
            code = value & 0x1F
            value >>= 5
            more = value != -1 if code & 0x10 else value != 0
            if more:
                code |= 0x20
            out.append(chr(code + 48))
    return "".join(out)


def rle_decode(rle: Mapping[str, Any]) -> "np.ndarray":
    """A COCO RLE dict -> a boolean mask of shape (h, w).

    >>> rle_decode({"size": [2, 3], "counts": [1, 2, 3]}).astype(int).tolist()
    [[0, 1, 0], [1, 0, 0]]
    """
    import numpy as np

    try:
        height, width = (int(v) for v in rle["size"])
        counts = rle["counts"]
    except (KeyError, TypeError, ValueError) as exc:
        raise InputError("an RLE mask needs 'size': [h, w] and 'counts'") from exc
    if isinstance(counts, str):
        counts = _counts_from_string(counts)
    runs = np.asarray(counts, dtype=np.int64)
    if runs.size and runs.min() < 0:
        raise InputError("RLE counts must not be negative")
    if int(runs.sum()) != height * width:
        raise InputError(f"RLE counts sum to {int(runs.sum())}, not h*w = {height * width}")
    values = np.zeros(runs.size, dtype=bool)
    values[1::2] = True  # runs alternate background, foreground, starting with background
    flat = np.repeat(values, runs)
    return flat.reshape((width, height)).T


def rle_encode(mask: "np.ndarray") -> dict:
    """A boolean mask -> COCO RLE with uncompressed counts (column major).

    >>> import numpy as np
    >>> rle_encode(np.array([[0, 1, 0], [1, 0, 0]], dtype=bool))
    {'size': [2, 3], 'counts': [1, 2, 3]}
    """
    import numpy as np

    flat = np.asarray(mask, dtype=bool).T.reshape(-1)
    changes = np.flatnonzero(flat[1:] != flat[:-1]) + 1
    bounds = np.concatenate(([0], changes, [flat.size]))
    runs = np.diff(bounds).tolist()
    if flat.size and flat[0]:
        runs = [0] + runs
    return {"size": [int(mask.shape[0]), int(mask.shape[1])], "counts": runs}


_POLYGON = re.compile(r"\[\s*\[\s*[-+\d.]")


def _inside(root: Path, rel: str) -> Path:
    from bench_kit.io import resolve_image

    try:
        return resolve_image(root, rel)
    except ValueError as exc:
        raise InputError(str(exc)) from exc


def load_array(spec: str, root: str | Path) -> "np.ndarray":
    """A mask or score map from its text form: RLE JSON, or a PNG / .npy path under `root`.

    Masks come back boolean; a PNG score map as float 0-1; a .npy array as float.
    """
    import numpy as np

    text = str(spec).strip()
    if text.startswith("{"):
        try:
            rle = json.loads(text)
        except ValueError as exc:
            raise InputError(f"mask {text[:40]!r} is not valid RLE JSON") from exc
        return rle_decode(rle)
    path = _inside(Path(root), text)
    if path.suffix.lower() == ".npy":
        try:
            return np.load(path, allow_pickle=False).astype(np.float64)
        except (OSError, ValueError) as exc:
            raise InputError(f"cannot read score map '{text}': {exc}") from exc
    from PIL import Image

    try:
        with Image.open(path) as img:
            # a 16-bit PNG opens as I;16 (I in older Pillow); its scale is the depth's, not
            # the values': a dark 16-bit map (every value <= 255) is not an 8-bit one
            sixteen = img.mode in ("I", "I;16", "I;16B")
            array = np.asarray(img.convert("I") if sixteen else img.convert("L"))
    except OSError as exc:
        raise InputError(f"cannot read mask '{text}': {exc.strerror or exc}") from exc
    return array.astype(np.float64) / (65535.0 if sixteen else 255.0)


def load_mask(spec: str, root: str | Path, shape: tuple[int, int] | None = None) -> "np.ndarray":
    """A boolean mask from RLE JSON, a PNG path (non-zero = foreground) or, when `shape`
    is given, a polygon `[[x, y], ...]` in pixels."""
    import numpy as np

    text = str(spec).strip()
    if _POLYGON.match(text):
        if shape is None:
            raise InputError("a polygon mask needs the image size")
        from PIL import Image, ImageDraw

        try:
            points = [(float(x), float(y)) for x, y in json.loads(text)]
        except (ValueError, TypeError) as exc:
            raise InputError(f"polygon {text[:40]!r} is not [[x, y], ...]") from exc
        canvas = Image.new("1", (shape[1], shape[0]), 0)
        if len(points) >= 3:
            ImageDraw.Draw(canvas).polygon(points, fill=1)
        return np.asarray(canvas, dtype=bool)
    array = load_array(text, root)
    return array if array.dtype == bool else array > 0


def mask_iou(a: "np.ndarray", b: "np.ndarray") -> float:
    """Intersection over union of two boolean masks of the same shape (two empty masks: 1).

    Raises:
        InputError: the shapes differ.
    """
    import numpy as np

    if a.shape != b.shape:
        raise InputError(f"mask shapes differ: {tuple(a.shape)} vs {tuple(b.shape)}")
    union = int(np.logical_or(a, b).sum())
    return 1.0 if union == 0 else int(np.logical_and(a, b).sum()) / union


def _check_pairs(maps: Sequence["np.ndarray"], masks: Sequence["np.ndarray"]) -> None:
    if len(maps) != len(masks):
        raise InputError(f"{len(maps)} score maps but {len(masks)} masks")
    for index, (m, g) in enumerate(zip(maps, masks)):
        if m.shape != g.shape:
            raise InputError(f"map {index}: shape {tuple(m.shape)} differs from its mask "
                             f"{tuple(g.shape)}")


def pixel_auroc(maps: Sequence["np.ndarray"], masks: Sequence["np.ndarray"]) -> float | None:
    """AUROC over every pixel of every image (defect = positive), ties counting one half;
    None when all pixels are of one class."""
    import numpy as np

    _check_pairs(maps, masks)
    if not maps:
        return None
    scores = np.concatenate([np.asarray(m, dtype=np.float64).ravel() for m in maps])
    labels = np.concatenate([np.asarray(g, dtype=bool).ravel() for g in masks])
    positives = int(labels.sum())
    negatives = labels.size - positives
    if not positives or not negatives:
        return None
    from bench_kit.scoring.metrics.answers import rank_auroc

    return rank_auroc(scores, labels)


def pro_score(maps: Sequence["np.ndarray"], masks: Sequence["np.ndarray"],
              max_fpr: float = 0.3) -> float | None:
    """Per-region overlap (MVTec AD): the mean over connected defect regions (8-connected:
    pixels touching at a corner are one region, as MVTec AD's evaluation labels them) of
    the share of the region above a threshold, integrated over the false-positive rate on defect-free
    pixels from 0 to `max_fpr` and divided by `max_fpr` (0-1). Every distinct score is a
    threshold (exact curve, no sampling). None without a defect region or a normal pixel.
    """
    import numpy as np
    from scipy import ndimage

    _check_pairs(maps, masks)
    weights, negatives, scores = [], [], []
    regions = 0
    eight_connected = np.ones((3, 3), dtype=int)
    for score_map, mask in zip(maps, masks):
        labelled, count = ndimage.label(np.asarray(mask, dtype=bool), structure=eight_connected)
        sizes = np.bincount(labelled.ravel(), minlength=count + 1).astype(np.float64)
        per_pixel = np.where(labelled > 0, 1.0 / sizes[labelled], 0.0)
        weights.append(per_pixel.ravel())
        negatives.append((labelled == 0).ravel())
        scores.append(np.asarray(score_map, dtype=np.float64).ravel())
        regions += count
    if not regions:
        return None
    weight = np.concatenate(weights) / regions
    negative = np.concatenate(negatives)
    score = np.concatenate(scores)
    if not negative.any():
        return None
    order = np.argsort(-score, kind="stable")
    score, weight, negative = score[order], weight[order], negative[order]
    pro = np.cumsum(weight)
    fpr = np.cumsum(negative) / negative.sum()
    last_of_tie = np.append(score[1:] != score[:-1], True)
    fpr = np.concatenate(([0.0], fpr[last_of_tie]))
    pro = np.concatenate(([0.0], pro[last_of_tie]))
    inside = fpr <= max_fpr
    cut_fpr, cut_pro = fpr[inside], pro[inside]
    if cut_fpr[-1] < max_fpr and inside.sum() < fpr.size:
        nxt = int(inside.sum())
        share = (max_fpr - fpr[nxt - 1]) / (fpr[nxt] - fpr[nxt - 1])
        cut_fpr = np.append(cut_fpr, max_fpr)
        cut_pro = np.append(cut_pro, pro[nxt - 1] + share * (pro[nxt] - pro[nxt - 1]))
    area = float(np.sum((cut_fpr[1:] - cut_fpr[:-1]) * (cut_pro[1:] + cut_pro[:-1]) / 2))
    return min(1.0, area / max_fpr)
