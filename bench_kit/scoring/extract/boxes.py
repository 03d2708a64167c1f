"""Bounding boxes in model responses, converted to image pixels, and square-padding geometry.

Notations read (docs/SCORING.md §3 has the table with one example of each):
- four numbers in brackets or parentheses, comma- or space-separated: `[x1, y1, x2, y2]`,
  `(x1 y1 x2 y2)`; numbers may be quoted (`["808", "695", "1230", "788"]`);
- point pairs `(x1,y1),(x2,y2)`, `[[x1,y1],[x2,y2]]`, also between `<box>` /
  `<|box_start|>` tokens (Qwen-VL);
- four unbracketed numbers that form a run of their own (`906 439 944 866`,
  `目标框坐标为：510,256,601,912`) — a run of 3 or of 5+ numbers is no box;
- JSON objects (`{"bbox_2d": [...], "label": "cat"}`, also in a code fence) and keyed
  corners (`{"x1": 10, "y1": 20, "x2": 30, "y2": 40}`, `xmin/ymin/xmax/ymax`).

Coordinate scales (`box_format`, set per model): `pixel`, `norm1` (0–1 of the image),
`norm1000` (the 0–1000 grid of Qwen-VL / CogVLM / Kosmos) or `auto`, which decides per
box and records the decision in `Extraction.detail`: every coordinate within [0, 1] ->
norm1; otherwise a box written between Qwen-VL box tokens (`<box>`, `<|box_start|>`),
which that family emits only on its 0–1000 grid, with no coordinate above 1000 ->
norm1000; otherwise a coordinate beyond the image (x > width or y > height) with none above
1000 -> norm1000; otherwise pixel. A 0–1000 box that happens to fit inside the image
reads as pixels under `auto`, which is why a model whose scale is known should declare it.

A box of four zeros, a null box (`{"bbox_2d": null}`, GroundingME's way to answer "not
there"), or a statement that the object is absent ("no such object", "there is no …",
"不存在", "没有找到") with no box, is an explicit rejection: the value
is `NO_BOX` (parse ok). A response with neither a box nor a rejection is a parse failure.
"""

from __future__ import annotations

import re
from typing import Literal, Sequence

from bench_kit.errors import InputError
from bench_kit.scoring.extract.response import (
    FAILED,
    PARSE_OK,
    Extraction,
    clean_response,
    pick_candidate,
)

Box = tuple[float, float, float, float]
BoxFormat = Literal["auto", "pixel", "norm1", "norm1000"]
BOX_FORMATS: tuple[str, ...] = ("auto", "pixel", "norm1", "norm1000")
NO_BOX: Box = (0.0, 0.0, 0.0, 0.0)  # an explicit "the object is not there"

_NUM = r"[-+]?(?:\d+(?:\.\d*)?|\.\d+)"
_N = rf"[\"']?({_NUM})[\"']?"
_SEP = r"(?:\s*,\s*|\s+)"
_FOUR = re.compile(rf"[\[(]\s*{_N}{_SEP}{_N}{_SEP}{_N}{_SEP}{_N}\s*[\])]")
_PAIR = re.compile(rf"[\[(]\s*{_N}\s*,\s*{_N}\s*[\])]\s*(?:,|to|-|and)?\s*"
                   rf"[\[(]\s*{_N}\s*,\s*{_N}\s*[\])]")
# A run of numbers not inside brackets; only a run of exactly four is a box.
_RUN = re.compile(rf"(?<![A-Za-z0-9_.\-+]){_NUM}(?:{_SEP}{_NUM})*(?![A-Za-z0-9_.])")
_RUN_SPLIT = re.compile(_SEP)
_KEY = r"[\"']?{}[\"']?\s*[:=]\s*" + _N
_KEYED = re.compile(
    r"(?i:" + r"\W{0,3}".join((
        _KEY.format(r"(?:x_?1|x_?min|left)"), _KEY.format(r"(?:y_?1|y_?min|top)"),
        _KEY.format(r"(?:x_?2|x_?max|right)"), _KEY.format(r"(?:y_?2|y_?max|bottom)"))) + ")")
_REJECTION = re.compile(
    r"\bno\s+such\b|\bthere\s+(?:is|are)\s*(?:no|n[o']t(?:\s+an?y?)?)\b(?!\s+(?:image|picture"
    r"|photo|way|information|box|answer))"
    r"|\b(?:does|do|did)\s*(?:not|n't)\s+(?:exist|appear)|\bnot\s+(?:present|visible|found"
    r"|in\s+(?:the|this)\s+(?:image|picture|photo))|\b(?:can\s*not|can't|could\s*not"
    r"|couldn't|unable\s+to)\s+(?:find|locate)\b(?!\s+(?:the|an?y?)\s+(?:image|picture))|\bno\s+(?:\w+\s+){0,3}(?:is|are)\s+"
    r"(?:visible|present|shown)|^\s*(?:none|no|n/a|null)\s*+[.!]?\s*+$"
    r"|不存在|没有|未找到|找不到|未发现|无此|并无"
    r"|[\"']bbox(?:_2d)?[\"']\s*:\s*(?:null|none|\[\s*\])", re.I)


def _box(values: Sequence[str]) -> Box:
    x1, y1, x2, y2 = (float(v) for v in values)
    return (x1, y1, x2, y2)


def _runs(text: str) -> list[tuple[int, Box]]:
    found = []
    for match in _RUN.finditer(text):
        parts = _RUN_SPLIT.split(match.group().strip())
        if len(parts) == 4:
            found.append((match.start(), _box(parts)))
    return found


def found_boxes(text: str) -> list[tuple[int, Box]]:
    """Every raw box written in `text` as `(offset, (x1, y1, x2, y2))`, in text order
    (coordinates as written: no scale applied)."""
    found = [(m.start(), _box(m.groups()))
             for pattern in (_FOUR, _PAIR) for m in pattern.finditer(text)]
    if "=" in text or ":" in text:
        found += [(m.start(), _box(m.groups())) for m in _KEYED.finditer(text)]
    if not found:
        found = _runs(text)
    found.sort(key=lambda pair: pair[0])
    return found


def box_spans(text: str) -> list[tuple[int, int]]:
    """Where bracketed boxes and point pairs are written in `text` (start, end offsets)."""
    return sorted(m.span() for pattern in (_FOUR, _PAIR) for m in pattern.finditer(text))


def detect_format(box: Sequence[float], width: int, height: int, *,
                  grid_tokens: bool = False) -> str:
    """The scale of a raw box by the `auto` rule: "norm1", "norm1000" or "pixel".

    >>> detect_format((0.1, 0.2, 0.5, 0.9), 640, 480)
    'norm1'
    >>> detect_format((100, 200, 800, 900), 640, 480)
    'norm1000'
    >>> detect_format((100, 200, 300, 400), 640, 480)
    'pixel'
    """
    x1, y1, x2, y2 = box
    if all(0.0 <= v <= 1.0 for v in box):
        return "norm1"
    beyond = grid_tokens or max(x1, x2) > width or max(y1, y2) > height
    if beyond and all(v <= 1000.0 for v in box):
        return "norm1000"
    return "pixel"


def to_pixels(box: Sequence[float], width: int, height: int,
              box_format: str = "auto") -> Box:
    """Convert a raw box to pixels (x1 <= x2, y1 <= y2) from `box_format` ("auto" = detect)."""
    return _scaled(box, width, height, box_format)[0]


def _scaled(box: Sequence[float], width: int, height: int, box_format: str,
            grid_tokens: bool = False) -> tuple[Box, str]:
    if width <= 0 or height <= 0:
        raise InputError(f"image size must be positive, got {width}x{height}")
    if box_format not in BOX_FORMATS:
        raise InputError(f"box_format must be one of {', '.join(BOX_FORMATS)}, "
                         f"got {box_format!r}", field="box_format")
    used = detect_format(box, width, height, grid_tokens=grid_tokens) \
        if box_format == "auto" else box_format
    sx, sy = {"norm1": (width, height), "norm1000": (width / 1000, height / 1000),
              "pixel": (1.0, 1.0)}[used]
    x1, y1, x2, y2 = (box[0] * sx, box[1] * sy, box[2] * sx, box[3] * sy)
    detail = f"auto:{used}" if box_format == "auto" else used
    return (min(x1, x2), min(y1, y2), max(x1, x2), max(y1, y2)), detail


def is_rejection(text: str) -> bool:
    """Whether a response states that the object is absent (and names no box)."""
    return _REJECTION.search(text) is not None


def extract_box_detailed(response: str, width: int, height: int, *,
                         box_format: str = "auto") -> Extraction[Box]:
    """`extract_box` with the parse path: the first box after the last answer clause or the
    only box is "ok"; the first of several boxes is "lenient"; an explicit rejection is
    `NO_BOX` ("ok", detail "rejection"). `detail` says which scale was applied
    ("pixel", "norm1000", "auto:norm1" ...).

    Raises:
        InputError: `width` or `height` is not positive, or `box_format` is unknown (any
            response text is accepted).
    """
    if width <= 0 or height <= 0:
        raise InputError(f"image size must be positive, got {width}x{height}")
    text = clean_response(response)
    if not text:
        return FAILED
    found = found_boxes(text)
    if not found:
        return Extraction(NO_BOX, PARSE_OK, "rejection") if is_rejection(text) else FAILED
    picked = pick_candidate(text, found)
    assert picked.value is not None  # pick_candidate returns one of `found`
    if all(v == 0 for v in picked.value):
        return Extraction(NO_BOX, picked.parse, "rejection")
    tokens = isinstance(response, str) and ("<box>" in response or "<|box_start|>" in response)
    box, detail = _scaled(picked.value, width, height, box_format, tokens)
    return Extraction(box, picked.parse, detail)


def extract_box(response: str, width: int, height: int, box_format: str = "auto") -> Box | None:
    """The answer box of a response in image pixels `(x1, y1, x2, y2)`; `NO_BOX` for an
    explicit rejection; None when nothing can be read.

    >>> extract_box('{"bbox_2d": [0.25, 0.5, 0.75, 1.0]}', 640, 480)
    (160.0, 240.0, 480.0, 480.0)
    >>> extract_box("目标框坐标为：100,200,500,600", 640, 480, "norm1000")
    (64.0, 96.0, 320.0, 288.0)
    """
    return extract_box_detailed(response, width, height, box_format=box_format).value


def square_padding(width: int, height: int) -> tuple[int, int, int]:
    """LLaVA `expand2square` geometry: `(side, dx, dy)` with side = max(W, H) and the image
    pasted at offset dx = floor((side - W) / 2), dy = floor((side - H) / 2).

    >>> square_padding(640, 320)
    (640, 0, 160)
    """
    side = max(width, height)
    return side, (side - width) // 2, (side - height) // 2


def box_to_padded(box: Sequence[float], width: int, height: int) -> Box:
    """A pixel box of a W x H image -> normalised 0-1 coordinates in its padded square.

    >>> box_to_padded((0, 280, 640, 320), 640, 320)
    (0.0, 0.6875, 1.0, 0.75)
    """
    side, dx, dy = square_padding(width, height)
    x1, y1, x2, y2 = box
    return ((x1 + dx) / side, (y1 + dy) / side, (x2 + dx) / side, (y2 + dy) / side)


def box_from_padded(box: Sequence[float], width: int, height: int) -> Box:
    """Normalised 0-1 coordinates in the padded square -> a pixel box of the W x H image.

    >>> box_from_padded((0.0, 0.6875, 1.0, 0.75), 640, 320)
    (0.0, 280.0, 640.0, 320.0)
    """
    side, dx, dy = square_padding(width, height)
    x1, y1, x2, y2 = box
    return (x1 * side - dx, y1 * side - dy, x2 * side - dx, y2 * side - dy)
