"""`ocr`: a real OCR engine (RapidOCR, models inside its wheel) reads the image; the answer
comes from the text it reads — the "model + OCR pipeline" input setting.

Each image is read once per process and cache: results are stored in the call cache under
the image's content hash, so the many items that share an image share one reading.
"""

from __future__ import annotations

import functools
import json
import math
import re
from dataclasses import dataclass
from typing import Any, Sequence

from bench_kit.errors import ConfigError, ModelCallError
from bench_kit.models.adapters.contract import ImageInput, ModelRequest, ModelResponse
from bench_kit.models.adapters.local_common import (
    LocalAdapter,
    content_words,
    key_phrases,
    normalise,
    occurs,
    say_box,
    say_checklist,
    say_choice,
    say_value,
    say_yesno,
)
from bench_kit.models.adapters.registry import ADAPTERS
from bench_kit.models.cache import CallRecord, cache_key

VERSION = "ocr/1"
NO_IMAGE = "I cannot see any text."
NO_TEXT = "I cannot read any text."
_NUMBER = re.compile(r"-?\d+(?:[.,]\d+)*")


@dataclass(frozen=True)
class OcrLine:
    """One line of text read, with its box in image pixels (x1, y1, x2, y2)."""

    text: str
    box: tuple[int, int, int, int]

    @property
    def centre(self) -> tuple[float, float]:
        return ((self.box[0] + self.box[2]) / 2, (self.box[1] + self.box[3]) / 2)


@functools.lru_cache(maxsize=1)
def engine_version() -> str:
    """The installed RapidOCR version (part of the cache key: a new engine reads anew)."""
    from importlib.metadata import PackageNotFoundError, version

    try:
        return f"rapidocr-onnxruntime {version('rapidocr-onnxruntime')}"
    except PackageNotFoundError:
        return "rapidocr-onnxruntime (not installed)"


@functools.lru_cache(maxsize=1)
def load_engine() -> Any:
    """The RapidOCR engine, created once per process (its models ship inside the wheel)."""
    try:
        from rapidocr_onnxruntime import RapidOCR
    except ImportError as exc:
        raise ConfigError("the ocr model needs 'rapidocr-onnxruntime': pip install -e .") from exc
    return RapidOCR()


def run_engine(data: bytes) -> list[OcrLine]:
    """Read the text lines of one encoded image, in the engine's reading order.

    Raises:
        ModelCallError: the engine cannot read the image (recorded as an error, not an answer).
    """
    engine = load_engine()
    try:
        result, _timings = engine(data)
    except Exception as exc:  # the engine raises many types for undecodable input
        raise ModelCallError(f"OCR engine failed on the image ({type(exc).__name__})") from exc
    lines = []
    for points, text, _score in result or []:
        xs, ys = [p[0] for p in points], [p[1] for p in points]
        box = (int(min(xs)), int(min(ys)), int(math.ceil(max(xs))), int(math.ceil(max(ys))))
        if str(text).strip():
            lines.append(OcrLine(str(text).strip(), box))
    return lines


def _numbers(text: str) -> list[str]:
    return [n.replace(",", "") if n.count(",") and "." not in n else n
            for n in _NUMBER.findall(text)]


def _mentions(line: OcrLine, words: Sequence[str]) -> int:
    found = normalise(line.text)
    return sum(1 for w in words if occurs(w, found))


def _distance(anchor: OcrLine, line: OcrLine) -> tuple[int, float]:
    """Lines in the anchor's row or column first (a chart's value sits above its label,
    a table's beside it), then by centre distance."""
    ax1, ay1, ax2, ay2 = anchor.box
    x1, y1, x2, y2 = line.box
    aligned = (x1 < ax2 and ax1 < x2) or (y1 < ay2 and ay1 < y2)
    (ax, ay), (x, y) = anchor.centre, line.centre
    return (0 if aligned else 1, (x - ax) ** 2 + (y - ay) ** 2)


def answer_numeric(lines: Sequence[OcrLine], question: str) -> str | None:
    """A number read on a line that mentions a question word, else on the line nearest to
    such a line, else the first number read; None when no number was read."""
    words = content_words(question)
    with_numbers = [line for line in lines if _numbers(line.text)]
    if not with_numbers:
        return None
    anchors = [line for line in lines if words and _mentions(line, words)]
    for line in anchors:
        if line in with_numbers:
            return _numbers(line.text)[0]
    if anchors:
        anchor = anchors[0]
        nearest = min(with_numbers, key=lambda line: _distance(anchor, line))
        return _numbers(nearest.text)[0]
    return _numbers(with_numbers[0].text)[0]


def answer_choice(read: str, lines: Sequence[OcrLine], choices: dict[str, str]) -> str | None:
    """The option whose text occurs in what was read (if several, the one that contains
    all the others, e.g. "FIRE EXIT" over "EXIT"); failing that, the one option containing
    a line read; None if it cannot tell."""
    found = {k: normalise(v) for k, v in choices.items() if occurs(normalise(v), read)}
    if found:
        widest = [k for k, v in found.items() if all(occurs(o, v) for o in found.values())]
        return widest[0] if len(widest) == 1 else None
    texts = [normalise(line.text) for line in lines if len(normalise(line.text)) > 1]
    holders = [k for k, v in choices.items() if any(occurs(t, normalise(v)) for t in texts)]
    return holders[0] if len(holders) == 1 else None


def answer_yesno(read: str, question: str) -> bool:
    """Yes when at least half of the question's key phrases were read."""
    keys = key_phrases(question)
    if not keys:
        return False
    return sum(1 for k in keys if occurs(k, read)) * 2 >= len(keys)


@ADAPTERS.register("ocr")
class OcrAdapter(LocalAdapter):
    """Reads the image(s) with RapidOCR and answers from the text found."""

    def identity(self) -> dict[str, Any]:
        """Algorithm version and OCR engine version."""
        return {"local": VERSION, "engine": engine_version()}

    def read(self, image: ImageInput) -> list[OcrLine]:
        """The lines read in `image`, from the call cache when this content was read before."""
        cache = self.context.cache
        key = cache_key({"kind": "ocr-read", "engine": engine_version(), "image": image.sha256})
        record = cache.get(key) if cache is not None else None
        if record is not None:
            return [OcrLine(t, tuple(b)) for t, b in json.loads(record.response)]
        lines = run_engine(image.data)
        if cache is not None:
            payload = json.dumps([[ln.text, list(ln.box)] for ln in lines], ensure_ascii=False)
            cache.put(key, CallRecord(response=payload))
        return lines

    def answer(self, request: ModelRequest) -> ModelResponse:
        """Answer from the text read; without an image there is nothing to read."""
        if not request.images:
            return ModelResponse(text=NO_IMAGE, meta={"ocr_text": ""})
        lines = [line for image in request.images for line in self.read(image)]
        joined = " ".join(line.text for line in lines)
        read = normalise(joined)
        text = self._respond(request, lines, read, joined)
        return ModelResponse(text=text, meta={"ocr_text": joined})

    @staticmethod
    def _respond(request: ModelRequest, lines: list[OcrLine], read: str, joined: str) -> str:
        task = request.task
        if task == "yesno":
            return say_yesno(answer_yesno(read, request.question))
        if task == "checklist":
            return say_checklist([(answer_yesno(read, check), f"OCR read: {joined or 'nothing'}")
                                  for check in request.checks or []])
        if not lines:
            return NO_TEXT
        if task == "mc" and request.choices:
            letter = answer_choice(read, lines, request.choices)
            return say_choice(letter) if letter else "I cannot tell from the text in the image."
        if task == "numeric":
            number = answer_numeric(lines, request.question)
            return say_value(number) if number else "I cannot find a number in the image."
        if task == "grounding":
            words = content_words(request.question)
            best = max(lines, key=lambda ln: _mentions(ln, words))  # first line wins a tie
            return say_box(best.box)
        return joined
