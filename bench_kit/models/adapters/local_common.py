"""Shared parts of the local models: the base class, the answer vocabulary, answer phrasing."""

from __future__ import annotations

import abc
import asyncio
import dataclasses
import re
import threading
import time
from typing import TYPE_CHECKING, Any, Sequence

from bench_kit.models.adapters.contract import (
    AdapterContext,
    ModelRequest,
    ModelResponse,
)
from bench_kit.text.streamsafe import nfkc
from bench_kit.text.words import contains_phrase

if TYPE_CHECKING:
    from bench_kit.models.config import ModelConfig

# Plausible short answers to open questions about everyday images: what blind and chance
# baselines choose from.
COLOURS = ("red", "green", "blue", "yellow", "orange", "purple", "pink", "brown", "black",
           "white", "grey", "cyan")
SHAPES = ("circle", "square", "triangle", "rectangle", "star", "ellipse", "hexagon",
          "diamond", "pentagon")
NUMBER_WORDS = ("zero", "one", "two", "three", "four", "five", "six", "seven", "eight",
                "nine", "ten")
COMMON_WORDS = ("yes", "no", "left", "right", "top", "bottom", "above", "below", "none",
                "person", "car", "dog", "cat", "tree", "house", "sign", "text", "stop",
                "exit", "open", "closed", "large", "small")
VOCABULARY = COLOURS + SHAPES + NUMBER_WORDS + COMMON_WORDS

# Words that say how to ask rather than what to look for (ignored as key content words).
STOPWORDS = frozenset("""
a an the is are was were be been am do does did done has have had of in on at to from by for
with without and or not no yes it its this that these those there here what which who whom
whose when where why how many much any some all each every image picture photo photograph
shown show shows visible see seen can could would should will shall may might must please
answer question say says said read reads written write word words text sign label labels
letters letter displayed display appear appears given choose option options following
""".split())

_WORD = re.compile(r"\w+", re.UNICODE)
_QUOTED = re.compile(r"[\"“”'‘’「」『』](.+?)[\"“”'‘’「」『』]")

# One lock for all local compute: the engines are CPU-bound and share the machine's cores.
_COMPUTE_LOCK = threading.Lock()


def normalise(text: str) -> str:
    """NFKC, casefolded, whitespace collapsed (for containment tests)."""
    return " ".join(nfkc(text).casefold().split())


def content_words(text: str) -> list[str]:
    """Words of `text` that carry content (not stopwords, not single letters), in order."""
    seen: list[str] = []
    for word in _WORD.findall(normalise(text)):
        if word not in STOPWORDS and len(word) > 1 and word not in seen:
            seen.append(word)
    return seen


def occurs(phrase: str, text: str) -> bool:
    """Whether normalised `phrase` occurs in normalised `text`: as whole words for
    alphabetic scripts ("car" is not in "scar"), as a substring for unspaced scripts (CJK).

    >>> occurs("exit", "fire exit"), occurs("car", "scar"), occurs("出口", "紧急出口")
    (True, False, True)
    """
    return contains_phrase(text, phrase)


def key_phrases(question: str) -> list[str]:
    """What a yes/no question asks to find: its quoted phrases, else its content words."""
    quoted = [normalise(q) for q in _QUOTED.findall(question) if q.strip()]
    return quoted or content_words(question)


def say_choice(letter: str) -> str:
    """A multiple-choice answer phrased like a model's."""
    return f"The answer is {letter}."


def say_yesno(yes: bool) -> str:
    """A yes/no answer phrased like a model's."""
    return "Yes." if yes else "No."


def say_value(value: str) -> str:
    """A numeric or short open answer phrased like a model's."""
    return f"The answer is {value}."


def say_box(box: Sequence[float]) -> str:
    """A box `[x1, y1, x2, y2]` in integer pixels."""
    return "[" + ", ".join(str(int(round(v))) for v in box) + "]"


def say_checklist(verdicts: Sequence[tuple[bool, str]]) -> str:
    """One line per check: `<n>. yes|no - <reason>` (the format the checklist prompt asks)."""
    return "\n".join(f"{n}. {'yes' if yes else 'no'} - {reason}"
                     for n, (yes, reason) in enumerate(verdicts, start=1))


class LocalAdapter(abc.ABC):
    """A model that runs in this process. `answer` is synchronous; `complete` runs it in a
    worker thread (one at a time) so the event loop keeps serving progress and the cache."""

    per_item = False
    offload = True

    def __init__(self, config: "ModelConfig", context: AdapterContext) -> None:
        self.config = config
        self.context = context

    @abc.abstractmethod
    def identity(self) -> dict[str, Any]:
        """The algorithm's version (and settings) that the cache key must include."""

    @abc.abstractmethod
    def answer(self, request: ModelRequest) -> ModelResponse:
        """Answer one request synchronously."""

    def _locked_answer(self, request: ModelRequest) -> ModelResponse:
        with _COMPUTE_LOCK:
            started = time.perf_counter()
            response = self.answer(request)
        return dataclasses.replace(response, latency_s=time.perf_counter() - started)

    async def complete(self, request: ModelRequest) -> ModelResponse:
        """Answer one request (off the event loop when the model does real work)."""
        if not self.offload:
            return self.answer(request)
        return await asyncio.to_thread(self._locked_answer, request)

    async def aclose(self) -> None:  # noqa: B027 - optional hook: a no-op by design
        """Local models hold no connections."""
