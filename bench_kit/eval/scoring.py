"""Per-item scoring: (item, raw response) -> ItemScore, by the metric the item names.

An item's `metric` field selects a scorer from `METRICS`; null means the task default
(mc -> accuracy, yesno -> yesno, numeric -> numeric, open -> exact, grounding -> iou,
checklist -> checklist). Every scorer first drops a leading `<think>…</think>` block.

`hit` is the item's 0/1 correctness: exact for letter, yes/no, text and number metrics;
IoU >= `iou_threshold` for boxes (Acc@0.5 by default); every check right for checklists;
score >= 0.5 for the graded text metrics (ANLS: within the 0.5 threshold; VQA: at least
two annotators agree). An answer that cannot be parsed scores 0 with parse "failed".
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Callable, NamedTuple

from pydantic import BaseModel, ConfigDict, Field

from bench_kit.errors import InputError
from bench_kit.eval.boxes import extract_box_detailed
from bench_kit.eval.checklist import parse_checklist
from bench_kit.eval.extract import extract_choice_detailed, extract_yesno_detailed
from bench_kit.eval.metrics import (anls, iou, mmmu_candidates, mmmu_open_match, relaxed_match,
                                    vqa_accuracy, vqa_normalize)
from bench_kit.eval.numbers import answer_number, parse_number
from bench_kit.eval.response import (PARSE_FAILED, PARSE_OK, answer_text, clean_response,
                                     contains_phrase, format_number, normalize_text,
                                     strip_reasoning)
from bench_kit.registry import Registry
from bench_kit.types import Item

__all__ = ["METRICS", "DEFAULT_METRIC", "ScoreSettings", "ItemScore", "score_item",
           "strip_reasoning", "metric_name"]

DEFAULT_METRIC = {"mc": "accuracy", "yesno": "yesno", "numeric": "numeric", "open": "exact",
                  "grounding": "iou", "checklist": "checklist"}
MAX_EXTRACTED = 200  # characters of an open answer kept in `extracted`


class ScoreSettings(BaseModel):
    """The `score:` section of params.yaml."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    numeric_tolerance: float = Field(0.0, ge=0.0)
    iou_threshold: float = Field(0.5, gt=0.0, le=1.0)
    embedding_threshold: float = Field(0.8, gt=0.0, le=1.0)
    pro_max_fpr: float = Field(0.3, gt=0.0, le=1.0)


@dataclass(frozen=True)
class ItemScore:
    """One item's score: the metric used, the parsed answer (None when parse failed), the
    parse path (ok / lenient / failed), the score 0..1 and the 0/1 hit."""

    metric: str
    extracted: str | None
    parse: str
    score: float
    hit: bool


class Outcome(NamedTuple):
    """What a scorer returns; `score_item` adds the metric name."""

    extracted: str | None
    parse: str
    score: float
    hit: bool


@dataclass(frozen=True)
class ScoreContext:
    """What a scorer may need besides the item and the response."""

    image_size: tuple[int, int] | None
    settings: ScoreSettings
    root: Path | None = None


_DEFAULT_SETTINGS = ScoreSettings()
Scorer = Callable[[Item, str, ScoreContext], Outcome]
METRICS: Registry[Scorer] = Registry("metric")
FAILED = Outcome(None, PARSE_FAILED, 0.0, False)


def metric_name(item: Item) -> str:
    """The metric an item is scored with: its `metric` field or its task's default."""
    return item.metric or DEFAULT_METRIC[item.task]


def score_item(item: Item, response: str, *, image_size: tuple[int, int] | None = None,
               settings: ScoreSettings | None = None,
               root: str | Path | None = None) -> ItemScore:
    """Score one response to one item.

    Args:
        item: the benchmark item (its `metric`, `answers`, `tolerance`, `choices` ...).
        response: the raw model response.
        image_size: (width, height) of the item's image; needed by grounding items.
        settings: the `score:` section of params.yaml (defaults when None).
        root: the benchmark root that mask and score-map paths are relative to.

    Raises:
        UnknownNameError: the item names a metric that is not registered.
        InputError: the item's gold cannot be read by its metric (field `answers`), or a
            grounding item comes without an image size (field `image`).
    """
    name = metric_name(item)
    scorer = METRICS.get(name)
    text = strip_reasoning(response if isinstance(response, str) else "")
    context = ScoreContext(image_size, settings or _DEFAULT_SETTINGS,
                           root if root is None or isinstance(root, Path) else Path(root))
    outcome = scorer(item, text, context)
    if outcome.parse == PARSE_FAILED:
        outcome = FAILED
    return ItemScore(name, outcome.extracted, outcome.parse, float(outcome.score),
                     bool(outcome.hit))


def _register(*names: str) -> Callable[[Scorer], Scorer]:
    def decorator(func: Scorer) -> Scorer:
        for name in names:
            METRICS.register(name)(func)
        return func
    return decorator


def _binary(extracted: str | None, parse: str, hit: bool) -> Outcome:
    return Outcome(extracted, parse, 1.0 if hit else 0.0, hit)


def _clip(text: str) -> str:
    return text if len(text) <= MAX_EXTRACTED else text[:MAX_EXTRACTED - 1] + "…"


def _gold_number(item: Item, gold: str) -> tuple[float, bool]:
    number = parse_number(gold)
    if number is None:
        raise InputError(f"item '{item.id}': answer {gold!r} is not a number "
                         f"(metric {metric_name(item)})", field="answers")
    return number


@_register("accuracy", "choice", "circular")
def _score_choice(item: Item, text: str, ctx: ScoreContext) -> Outcome:
    found = extract_choice_detailed(text, item.choices or {})
    return _binary(found.value, found.parse, found.value in item.answers)


@_register("yesno")
def _score_yesno(item: Item, text: str, ctx: ScoreContext) -> Outcome:
    found = extract_yesno_detailed(text)
    golds = {a.strip().lower() for a in item.answers}
    return _binary(found.value, found.parse, found.value in golds)


@_register("exact")
def _score_exact(item: Item, text: str, ctx: ScoreContext) -> Outcome:
    answer = normalize_text(answer_text(text))
    if not answer:
        return FAILED
    return _binary(_clip(answer), PARSE_OK, answer in {normalize_text(a) for a in item.answers})


@_register("contains")
def _score_contains(item: Item, text: str, ctx: ScoreContext) -> Outcome:
    haystack = normalize_text(clean_response(text))
    if not haystack:
        return FAILED
    for gold in item.answers:
        needle = normalize_text(gold)
        if contains_phrase(haystack, needle):
            return _binary(needle, PARSE_OK, True)
    return _binary(_clip(haystack), PARSE_OK, False)


def _within(pred: tuple[float, bool], gold: tuple[float, bool], tolerance: float) -> bool:
    """|pred - gold| <= tolerance; a percent on one side only is also tried divided by 100."""
    (p, p_pct), (g, g_pct) = pred, gold
    pairs = [(p, g)] + ([(p / 100, g)] if p_pct and not g_pct else []) \
        + ([(p, g / 100)] if g_pct and not p_pct else [])
    # Float slack so that 0.1 + 0.2 equals 0.3 at tolerance 0.
    return any(abs(a - b) <= tolerance + 1e-9 * max(1.0, abs(b)) for a, b in pairs)


@_register("numeric")
def _score_numeric(item: Item, text: str, ctx: ScoreContext) -> Outcome:
    golds = [_gold_number(item, gold) for gold in item.answers]
    found, percent = answer_number(text)
    if found.value is None:
        return FAILED
    tolerance = item.tolerance if item.tolerance is not None else ctx.settings.numeric_tolerance
    hit = any(_within((found.value, percent), gold, tolerance) for gold in golds)
    return _binary(format_number(found.value), found.parse, hit)


@_register("relaxed")
def _score_relaxed(item: Item, text: str, ctx: ScoreContext) -> Outcome:
    tolerance = item.tolerance if item.tolerance is not None else 0.05
    numeric = [gold for gold in item.answers if parse_number(gold) is not None]
    found, percent = answer_number(text) if numeric else (None, False)
    if found is not None and found.value is not None:
        pred = format_number(found.value) + ("%" if percent else "")
        hit = any(relaxed_match(pred, gold, tolerance) for gold in numeric)
        return _binary(pred, found.parse, hit)
    answer = answer_text(text).strip().rstrip(".")
    if not answer:
        return FAILED
    hit = any(relaxed_match(answer, gold, tolerance) for gold in item.answers)
    return _binary(_clip(answer.casefold()), PARSE_OK, hit)


@_register("anls")
def _score_anls(item: Item, text: str, ctx: ScoreContext) -> Outcome:
    answer = " ".join(answer_text(text).lower().split())
    if not answer:
        return FAILED
    score = anls(answer, item.answers)
    return Outcome(_clip(answer), PARSE_OK, score, score >= 0.5)


@_register("vqa")
def _score_vqa(item: Item, text: str, ctx: ScoreContext) -> Outcome:
    answer = vqa_normalize(answer_text(text))
    if not answer:
        return FAILED
    score = vqa_accuracy(answer, item.answers)
    return Outcome(_clip(answer), PARSE_OK, score, score >= 0.5)


def gold_box(item: Item, answer: str | None = None) -> tuple[float, float, float, float]:
    """A gold box "x1,y1,x2,y2" in pixels (the item's first answer unless `answer` is given).

    Raises:
        InputError: the answer is not four numbers (field `answers`).
    """
    text = answer if answer is not None else (item.answers[0] if item.answers else "")
    parts = text.strip().strip("[]() ").split(",")
    try:
        if len(parts) != 4:
            raise ValueError
        x1, y1, x2, y2 = (float(p) for p in parts)
    except ValueError:
        raise InputError(f"item '{item.id}': a box answer must be 'x1,y1,x2,y2' in "
                         f"pixels, got {text!r}", field="answers") from None
    return x1, y1, x2, y2


def image_size_of(item: Item, ctx: ScoreContext) -> tuple[int, int]:
    """The item's image size from the context, or an InputError naming the item."""
    if ctx.image_size is None:
        raise InputError(f"item '{item.id}': metric {metric_name(item)} needs the image size "
                         f"(does the item have an image?)", field="image")
    width, height = ctx.image_size
    if width <= 0 or height <= 0:
        raise InputError(f"item '{item.id}': image size {width}x{height} is not positive",
                         field="image")
    return width, height


@_register("iou")
def _score_iou(item: Item, text: str, ctx: ScoreContext) -> Outcome:
    gold = gold_box(item)
    if not clean_response(text):
        return FAILED
    width, height = image_size_of(item, ctx)
    found = extract_box_detailed(text, width, height)
    if found.value is None:
        return FAILED
    score = iou(found.value, gold)
    extracted = ",".join(format_number(round(v, 1)) for v in found.value)
    return Outcome(extracted, found.parse, score, score >= ctx.settings.iou_threshold)


@_register("mmmu_open")
def _score_mmmu_open(item: Item, text: str, ctx: ScoreContext) -> Outcome:
    cleaned = clean_response(text)
    keys, _ = mmmu_candidates(cleaned)
    if not keys:
        return FAILED
    return _binary(_clip(keys[-1]), PARSE_OK, mmmu_open_match(cleaned, item.answers))


@_register("checklist")
def _score_checklist(item: Item, text: str, ctx: ScoreContext) -> Outcome:
    checks = item.checks or []
    if not checks:
        raise InputError(f"item '{item.id}': the checklist metric needs `checks`",
                         field="checks")
    verdicts = parse_checklist(text, [check.name for check in checks])
    found = sum(v is not None for v in verdicts)
    if not found:
        return FAILED
    right = sum(v == check.answer for v, check in zip(verdicts, checks))
    extracted = ",".join("?" if v is None else ("yes" if v else "no") for v in verdicts)
    parse = PARSE_OK if found == len(checks) else "lenient"
    return Outcome(extracted, parse, right / len(checks), right == len(checks))


# The metrics of DOMAIN §3 beyond the task defaults register themselves on import.
from bench_kit.eval import scorers as _scorers  # noqa: E402,F401
