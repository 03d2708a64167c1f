"""`prior`: a blind baseline that has learnt the answer prior of the dev split.

It never sees the image. For a test item it finds the k dev items of the same task whose
question text is most alike (TF-IDF over character 2-4-grams, so English and Chinese both
work and slot words such as "red circles" count) and gives their most common gold
(similarity-weighted votes); for mc
only golds that are among the item's own options count (matched by option text, so a
rotated option order changes nothing). With no such neighbour it falls back to the most
common gold of the task in dev (mc: the most common gold option text among the item's
options, else the most common gold letter). With neither, it gives no answer: the empty
text, which every scorer records as parse=failed (a worded "I do not know." reads as "no"
to the yes/no reader), with meta `nothing`, rather than guess. What it gets right is answerable from the answer
distribution alone: the offline stand-in for a text-only LLM that has seen the benchmark's
style (docs/EVAL.md).

Why character n-grams rather than sentence embeddings (bench_kit/embed.py): the questions
that share a prior are the same template with similar slot words, which n-gram overlap finds
exactly; the embedding model would cost a model load and blur "red circles" into "blue
squares". `model:` in the config names the dev items file it learns from.
"""

from __future__ import annotations

import hashlib
import math
import statistics
from collections import Counter, defaultdict
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Sequence

from bench_kit.models.adapters.contract import (
    AdapterContext,
    ModelRequest,
    ModelResponse,
)
from bench_kit.models.adapters.local_common import (
    LocalAdapter,
    normalise,
    say_box,
    say_checklist,
    say_choice,
    say_value,
    say_yesno,
)
from bench_kit.models.adapters.registry import ADAPTERS
from bench_kit.text.idf import Idf, postings

if TYPE_CHECKING:
    from bench_kit.models.config import ModelConfig
    from bench_kit.types import Item

VERSION = "prior/3"  # 2: with no basis the meta says `nothing`; 3: and the answer is empty
K = 10                # neighbours that vote ...
NEAR = 0.6            # ... among those at least this share as similar as the nearest one
NGRAM_SIZES = (2, 3, 4)
CHECK_TASK = "check"  # the checks of checklist items, indexed like questions
# The honest non-answer when dev gives no basis: empty, so no scorer can read an answer into
# it (parse=failed on every task); the meta `nothing` says why.
NO_ANSWER = ""


def char_ngrams(text: str) -> Counter:
    """Character 2-4-grams of the normalised text, padded with spaces at both ends."""
    padded = f" {normalise(text)} "
    return Counter(padded[i:i + n] for n in NGRAM_SIZES for i in range(len(padded) - n + 1))


@dataclass(frozen=True)
class Example:
    """One dev question and its gold answers (mc: the gold option texts)."""

    question: str
    golds: tuple[str, ...]


class NgramIndex:
    """TF-IDF vectors of one task's dev questions; cosine nearest neighbours."""

    def __init__(self, examples: list[Example]) -> None:
        self.examples = examples
        counts = [char_ngrams(e.question) for e in examples]
        self.idf = Idf.fit(counts)
        self.vectors = [self._vector(c) for c in counts]
        self.postings = postings(self.vectors)

    def _vector(self, counts: Counter) -> dict[str, float]:
        weights = {g: c * self.idf(g) for g, c in counts.items() if g in self.idf}
        norm = math.sqrt(sum(w * w for w in weights.values())) or 1.0
        return {g: w / norm for g, w in weights.items()}

    def nearest(self, question: str, k: int, near: float = NEAR) -> list[tuple[Example, float]]:
        """The k most similar examples (cosine > 0 and >= `near` x the best cosine), best
        first; ties keep dev order. The cut keeps a big cluster of loosely similar questions
        (another template) from outvoting the few that are worded alike."""
        query = self._vector(char_ngrams(question))
        scores: dict[int, float] = {}
        for gram, weight in query.items():
            for row in self.postings.get(gram, ()):
                scores[row] = scores.get(row, 0.0) + weight * self.vectors[row][gram]
        best = sorted(scores.items(), key=lambda kv: (-kv[1], kv[0]))[:k]
        floor = best[0][1] * near if best else 0.0
        return [(self.examples[row], score) for row, score in best if score >= floor]


def _examples(items: Sequence["Item"]) -> dict[str, list[Example]]:
    """Dev items as examples per task (checklist items give one example per check)."""
    by_task: dict[str, list[Example]] = {}
    for item in items:
        if item.task == "checklist":
            for check in item.checks or []:
                by_task.setdefault(CHECK_TASK, []).append(
                    Example(check.name, ("yes" if check.answer else "no",)))
            continue
        if not item.answers:
            continue
        if item.task == "mc" and item.choices:
            golds = tuple(normalise(item.choices[a]) for a in item.answers if a in item.choices)
            by_task.setdefault("mc", []).append(Example(item.question, golds))
        else:
            gold = item.answers[0] if item.task in ("open", "grounding") else \
                normalise(item.answers[0])
            by_task.setdefault(item.task, []).append(Example(item.question, (gold,)))
    return by_task


def _vote(neighbours: list[tuple[Example, float]], allowed: set[str] | None,
          task_counts: Counter) -> str | None:
    """The neighbours' gold with the most votes, each neighbour voting with its cosine
    similarity (so a small dev set's far neighbours do not outvote the near ones; an mc
    item with several golds splits its vote); only `allowed` golds count when given. Ties
    go to the more common gold of the task, then the name."""
    votes: dict[str, float] = defaultdict(float)
    for example, score in neighbours:
        golds = [g for g in example.golds if allowed is None or g in allowed]
        for gold in golds:
            votes[gold] += score / len(golds)
    if not votes:
        return None
    return min(votes, key=lambda g: (-round(votes[g], 9), -task_counts[g], g))


def _median_box(golds: Sequence[str]) -> list[float] | None:
    boxes = []
    for gold in golds:
        try:
            box = [float(v) for v in gold.replace(" ", "").strip("[]()").split(",")]
        except ValueError:
            continue
        if len(box) == 4:
            boxes.append(box)
    if not boxes:
        return None
    return [statistics.median(b[k] for b in boxes) for k in range(4)]


class PriorModel:
    """The learnt prior: per task an n-gram index of the dev questions and gold counts."""

    def __init__(self, items: Sequence["Item"], k: int = K) -> None:
        self.k = k
        self.indexes = {task: NgramIndex(examples) for task, examples in _examples(items).items()}
        self.majority = {task: Counter(g for e in index.examples for g in e.golds)
                         for task, index in self.indexes.items()}
        self.letters = Counter(a for i in items if i.task == "mc" for a in i.answers)

    def _neighbours(self, task: str, question: str) -> list[tuple[Example, float]]:
        index = self.indexes.get(task)
        return index.nearest(question, self.k) if index else []

    def choose(self, task: str, question: str,
               options: Sequence[str] | None = None) -> tuple[str | None, str]:
        """The gold to give for one question and where it came from: the neighbours' vote
        ("neighbours"), else the task's most common dev gold ("task majority"); for mc only
        option texts of `options` count. (None, "nothing") when dev has no such task."""
        counts = self.majority.get(task, Counter())
        allowed = {normalise(o) for o in options} if options is not None else None
        voted = _vote(self._neighbours(task, question), allowed, counts)
        if voted is not None:
            return voted, "neighbours"
        pool = [g for g in counts if allowed is None or g in allowed]
        if pool:
            return min(pool, key=lambda g: (-counts[g], g)), "task majority"
        return None, "nothing"

    def answer_mc(self, question: str, choices: dict[str, str]) -> tuple[str | None, str]:
        """The letter to give and where it came from: the option text the prior picks, else
        the most common gold letter of the dev mc items among these letters ("task
        majority"); (None, "nothing") when no dev mc gold is among them either."""
        texts = {normalise(v): letter for letter, v in choices.items()}
        picked, how = self.choose("mc", question, list(choices.values()))
        if picked in texts:
            return texts[picked], how
        seen = [letter for letter in choices if self.letters[letter]]
        if not seen:
            return None, "nothing"
        return min(seen, key=lambda letter: (-self.letters[letter], letter)), "task majority"

    def answer_box(self, question: str) -> list[float] | None:
        """The median of the nearest dev boxes (where such objects tend to be)."""
        neighbours = self._neighbours("grounding", question)
        return _median_box([g for e, _ in neighbours for g in e.golds])


def _checklist(model: PriorModel, checks: Sequence[str]) -> tuple[str, str]:
    """The checklist answer and where it came from: each check's verdict from the checks of
    the dev checklists; the paths the checks took, in order and once each ("neighbours,
    task majority"). Dev without checks gives no verdict: no answer ("nothing")."""
    chosen = [model.choose(CHECK_TASK, check) for check in checks]
    if all(gold is None for gold, _ in chosen):
        return NO_ANSWER, "nothing"
    text = say_checklist([(gold != "no", "the usual verdict for such a check")
                          for gold, _ in chosen])
    return text, ", ".join(dict.fromkeys(how for _, how in chosen))


def file_sha256(path: Path) -> str:
    """Content hash of the dev file (part of the cache identity)."""
    return hashlib.sha256(path.read_bytes()).hexdigest()


@ADAPTERS.register("prior")
class PriorAdapter(LocalAdapter):
    """Blind baseline that answers each question with the dev split's prior for it."""

    def __init__(self, config: "ModelConfig", context: AdapterContext) -> None:
        super().__init__(config, context)
        if not config.model:
            raise context.config_error(
                "model", "the prior needs the dev items it learns from, e.g. "
                "model: datasets/demo/splits/dev.jsonl")
        self.dev_path = Path(config.model)
        if not self.dev_path.is_file():
            raise context.config_error(
                "model", f"dev items file {config.model} does not exist (run the split first)")
        self.dev_sha256 = file_sha256(self.dev_path)
        self._model: PriorModel | None = None

    def identity(self) -> dict[str, Any]:
        """Algorithm version, k and the dev file's content: a new dev split is a new model."""
        return {"local": VERSION, "k": K, "near": NEAR, "dev_sha256": self.dev_sha256}

    @property
    def model(self) -> PriorModel:
        """The prior learnt from the dev file (read on first use)."""
        if self._model is None:
            from bench_kit.items import read_items

            self._model = PriorModel(read_items(self.dev_path))
        return self._model

    def answer(self, request: ModelRequest) -> ModelResponse:
        """Answer from the question text and the dev prior; `request.images` is ignored."""
        model, question, task = self.model, request.question, request.task
        if task == "mc" and request.choices:
            letter, how = model.answer_mc(question, request.choices)
            text = say_choice(letter) if letter is not None else NO_ANSWER
        elif task == "yesno":
            gold, how = model.choose("yesno", question)
            text = say_yesno(gold != "no") if gold is not None else NO_ANSWER
        elif task == "grounding":
            box = model.answer_box(question)
            how = "neighbours" if box else "nothing"
            text = say_box(box) if box else NO_ANSWER
        elif task == "checklist":
            text, how = _checklist(model, request.checks or [])
        else:
            gold, how = model.choose(task, question)
            text = say_value(gold) if gold is not None else NO_ANSWER
        # `prior`: where the answer came from (the k nearest dev questions, the task's most
        # common gold, or nothing), kept with the raw response.
        return ModelResponse(text=text, meta={"prior": how})
