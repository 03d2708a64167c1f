"""`text-only`: a blind baseline on sentence embeddings that never looks at the image.

It answers with the candidate most similar to the question: the option text for mc, else a
word from a small fixed vocabulary. Whatever it gets right is answerable without vision.
"""

from __future__ import annotations

from typing import Any, Sequence

from bench_kit.models.adapters.contract import ModelRequest, ModelResponse
from bench_kit.models.adapters.local_common import (
    COLOURS,
    COMMON_WORDS,
    NUMBER_WORDS,
    SHAPES,
    LocalAdapter,
    content_words,
    say_box,
    say_checklist,
    say_choice,
    say_value,
    say_yesno,
)
from bench_kit.models.adapters.registry import ADAPTERS

VERSION = "text-only/1"
OPEN_CANDIDATES = COLOURS + SHAPES + COMMON_WORDS
YESNO = ("yes", "no")


@ADAPTERS.register("text-only")
class TextOnlyAdapter(LocalAdapter):
    """Blind baseline: picks the candidate whose embedding is closest to the question's."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._vectors: dict[str, Any] = {}

    def identity(self) -> dict[str, Any]:
        """Algorithm version and embedding model (the request's image never matters)."""
        return {"local": VERSION, "embedder": "all-MiniLM-L6-v2"}

    def _embed(self, texts: Sequence[str]) -> Any:
        from bench_kit.embed import encode

        missing = [t for t in dict.fromkeys(texts) if t not in self._vectors]
        if missing:
            for text, vector in zip(missing, encode(missing)):
                self._vectors[text] = vector
        import numpy as np

        return np.stack([self._vectors[t] for t in texts])

    def most_similar(self, query: str, candidates: Sequence[str]) -> int:
        """Index of the candidate closest to `query` (cosine; the first wins a tie)."""
        vectors = self._embed([query, *candidates])
        return int((vectors[1:] @ vectors[0]).argmax())

    def answer(self, request: ModelRequest) -> ModelResponse:
        """Answer from the question text alone; `request.images` is deliberately ignored."""
        question, task = request.question, request.task
        if task == "mc" and request.choices:
            letters = list(request.choices)
            best = self.most_similar(question, [request.choices[k] for k in letters])
            text = say_choice(letters[best])
        elif task == "yesno":
            text = say_yesno(YESNO[self.most_similar(question, YESNO)] == "yes")
        elif task == "numeric":
            text = say_value(str(self.most_similar(question, NUMBER_WORDS)))
        elif task == "grounding":
            text = self._centre_box(request.image_size)
        elif task == "checklist":
            verdicts = [(YESNO[self.most_similar(check, YESNO)] == "yes",
                         "guessed from the wording alone") for check in request.checks or []]
            text = say_checklist(verdicts)
        else:
            # Echoing a word of the question is never an answer to it.
            asked = set(content_words(question))
            candidates = [w for w in OPEN_CANDIDATES if w not in asked] or list(OPEN_CANDIDATES)
            text = say_value(candidates[self.most_similar(question, candidates)])
        return ModelResponse(text=text)

    @staticmethod
    def _centre_box(size: tuple[int, int] | None) -> str:
        # Without looking, the best-guess box is the centre half of the frame.
        if size is None:
            return "I cannot locate it without the image."
        width, height = size
        return say_box((width / 4, height / 4, 3 * width / 4, 3 * height / 4))
