"""Bounding boxes in model responses, converted to image pixels, and square-padding geometry.

Box forms read: `[x1, y1, x2, y2]` (also in parentheses or space-separated, and inside
JSON such as `{"bbox_2d": [...]}`), point pairs `(x1,y1),(x2,y2)` / `[[x1,y1],[x2,y2]]`
(Qwen-VL `<box>` style), and a response that is only "x1,y1,x2,y2".

Coordinate convention rule ("auto"): if every coordinate lies in [0, 1] the box is
normalised 0–1; otherwise, if a coordinate exceeds the image size (x > width or y > height)
and none exceeds 1000, it is on the 0–1000 grid (Qwen-VL, CogVLM, Kosmos style); otherwise
it is in pixels. A 0–1000 box that happens to fit inside the image reads as pixels: pass
`convention="thousand"` to `extract_box_detailed` when the model's convention is known.
"""

from __future__ import annotations

import re
from typing import Literal, Sequence

from bench_kit.errors import InputError
from bench_kit.scoring.extract.response import (
    FAILED,
    Extraction,
    clean_response,
    pick_candidate,
)

Box = tuple[float, float, float, float]
Convention = Literal["auto", "pixel", "unit", "thousand"]

_N = r"([-+]?(?:\d+(?:\.\d*)?|\.\d+))"
_SEP = r"(?:\s*,\s*|\s+)"
_FOUR = re.compile(rf"[\[(]\s*{_N}{_SEP}{_N}{_SEP}{_N}{_SEP}{_N}\s*[\])]")
_PAIR = re.compile(rf"[\[(]\s*{_N}\s*,\s*{_N}\s*[\])]\s*(?:,|to|-|and)?\s*"
                   rf"[\[(]\s*{_N}\s*,\s*{_N}\s*[\])]")
_BARE = re.compile(rf"\s*{_N}\s*,\s*{_N}\s*,\s*{_N}\s*,\s*{_N}\s*\.?\s*")


def found_boxes(text: str) -> list[tuple[int, Box]]:
    """Every raw box written in `text` as `(offset, (x1, y1, x2, y2))`, in text order
    (coordinates as written: no convention applied)."""
    found = [(m.start(), tuple(float(v) for v in m.groups()))
             for pattern in (_FOUR, _PAIR) for m in pattern.finditer(text)]
    if not found:
        bare = _BARE.fullmatch(text)
        if bare:
            found = [(0, tuple(float(v) for v in bare.groups()))]
    found.sort(key=lambda pair: pair[0])
    return found  # type: ignore[return-value]


def box_spans(text: str) -> list[tuple[int, int]]:
    """Where bracketed boxes and point pairs are written in `text` (start, end offsets)."""
    return sorted(m.span() for pattern in (_FOUR, _PAIR) for m in pattern.finditer(text))


def detect_convention(box: Sequence[float], width: int, height: int) -> str:
    """Which convention a raw box is in, by the module's rule: "unit", "thousand" or "pixel".

    >>> detect_convention((0.1, 0.2, 0.5, 0.9), 640, 480)
    'unit'
    >>> detect_convention((100, 200, 800, 900), 640, 480)
    'thousand'
    >>> detect_convention((100, 200, 300, 400), 640, 480)
    'pixel'
    """
    x1, y1, x2, y2 = box
    if all(0.0 <= v <= 1.0 for v in box):
        return "unit"
    beyond = max(x1, x2) > width or max(y1, y2) > height
    if beyond and all(v <= 1000.0 for v in box):
        return "thousand"
    return "pixel"


def to_pixels(box: Sequence[float], width: int, height: int,
              convention: Convention = "auto") -> Box:
    """Convert a raw box to pixels (x1 <= x2, y1 <= y2) from `convention` ("auto" = detect)."""
    if width <= 0 or height <= 0:
        raise InputError(f"image size must be positive, got {width}x{height}")
    used = detect_convention(box, width, height) if convention == "auto" else convention
    sx, sy = {"unit": (width, height), "thousand": (width / 1000, height / 1000),
              "pixel": (1.0, 1.0)}[used]
    x1, y1, x2, y2 = (box[0] * sx, box[1] * sy, box[2] * sx, box[3] * sy)
    return (min(x1, x2), min(y1, y2), max(x1, x2), max(y1, y2))


def extract_box_detailed(response: str, width: int, height: int, *,
                         convention: Convention = "auto") -> Extraction[Box]:
    """`extract_box` with the parse path: the first box after the last answer clause or the
    only box is "ok"; the first of several boxes is "lenient".

    Raises:
        InputError: `width` or `height` is not positive (any response text is accepted).
    """
    text = clean_response(response)
    if not text:
        return FAILED
    found = found_boxes(text)
    if not found:
        return FAILED
    picked = pick_candidate(text, found)
    return Extraction(to_pixels(picked.value, width, height, convention), picked.parse)


def extract_box(response: str, width: int, height: int) -> Box | None:
    """The answer box of a response in image pixels `(x1, y1, x2, y2)`, or None.

    >>> extract_box('{"bbox_2d": [0.25, 0.5, 0.75, 1.0]}', 640, 480)
    (160.0, 240.0, 480.0, 480.0)
    """
    return extract_box_detailed(response, width, height).value


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
