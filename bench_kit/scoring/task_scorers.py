"""The task-default scorers (accuracy, yesno, exact, contains, numeric, relaxed, ANLS, VQA,
IoU, MMMU open, checklist) and the gold readers they share with the other scorers."""


from __future__ import annotations

from typing import Sequence

from bench_kit.errors import InputError
from bench_kit.scoring.contract import (
    FAILED,
    Outcome,
    ScoreContext,
    binary_outcome,
    clip_extracted,
    metric_name,
    register_scorer,
)
from bench_kit.scoring.extract.answers import (
    extract_choice_detailed,
    extract_yesno_detailed,
)
from bench_kit.scoring.extract.boxes import NO_BOX, extract_box_detailed
from bench_kit.scoring.extract.checklist import parse_checklist
from bench_kit.scoring.extract.choice_set import extract_choice_set
from bench_kit.scoring.extract.numbers import answer_number, answer_number_token
from bench_kit.scoring.extract.response import (
    PARSE_OK,
    answer_text,
    clean_response,
    contains_phrase,
    format_number,
    normalize_text,
)
from bench_kit.scoring.metrics.answers import (
    anls,
    iou,
    mmmu_candidates,
    mmmu_open_match,
    vqa_accuracy,
    vqa_normalize,
)
from bench_kit.scoring.metrics.relaxed import (
    ChartValue,
    chart_unit_of,
    chart_value,
    relaxed_accuracy,
)
from bench_kit.text.numbers import parse_number
from bench_kit.types import Item


def _gold_number(item: Item, gold: str) -> tuple[float, bool]:
    number = parse_number(gold)
    if number is None:
        raise InputError(f"item '{item.id}': answer {gold!r} is not a number "
                         f"(metric {metric_name(item)})", field="answers")
    return number


@register_scorer("accuracy", "choice", "circular")
def _score_choice(item: Item, text: str, ctx: ScoreContext) -> Outcome:
    if (item.meta or {}).get("multi_answer"):  # every gold letter, and only those
        letters = extract_choice_set(text, item.choices or {})
        shown = ",".join(letters.value) if letters.value else None
        return binary_outcome(shown, letters.parse,
                              letters.value == tuple(sorted(set(item.answers))))
    found = extract_choice_detailed(text, item.choices or {}, item.question)
    return binary_outcome(found.value, found.parse, found.value in item.answers)


@register_scorer("yesno")
def _score_yesno(item: Item, text: str, ctx: ScoreContext) -> Outcome:
    found = extract_yesno_detailed(text, item.question)
    golds = {a.strip().lower() for a in item.answers}
    return binary_outcome(found.value, found.parse, found.value in golds)


@register_scorer("exact")
def _score_exact(item: Item, text: str, ctx: ScoreContext) -> Outcome:
    answer = normalize_text(answer_text(text))
    if not answer:
        return FAILED
    return binary_outcome(clip_extracted(answer), PARSE_OK, answer in {normalize_text(a) for a in item.answers})


@register_scorer("contains")
def _score_contains(item: Item, text: str, ctx: ScoreContext) -> Outcome:
    haystack = normalize_text(clean_response(text))
    if not haystack:
        return FAILED
    for gold in item.answers:
        needle = normalize_text(gold)
        if contains_phrase(haystack, needle):
            return binary_outcome(needle, PARSE_OK, True)
    return binary_outcome(clip_extracted(haystack), PARSE_OK, False)


def _within(pred: tuple[float, bool], gold: tuple[float, bool], tolerance: float) -> bool:
    """|pred - gold| <= tolerance; a percent on one side only is also tried divided by 100."""
    (p, p_pct), (g, g_pct) = pred, gold
    pairs = [(p, g)] + ([(p / 100, g)] if p_pct and not g_pct else []) \
        + ([(p, g / 100)] if g_pct and not p_pct else [])
    # Float slack so that 0.1 + 0.2 equals 0.3 at tolerance 0.
    return any(abs(a - b) <= tolerance + 1e-9 * max(1.0, abs(b)) for a, b in pairs)


@register_scorer("numeric")
def _score_numeric(item: Item, text: str, ctx: ScoreContext) -> Outcome:
    golds = [_gold_number(item, gold) for gold in item.answers]
    found, percent = answer_number(text)
    if found.value is None:
        return FAILED
    tolerance = item.tolerance if item.tolerance is not None else ctx.settings.numeric_tolerance
    hit = any(_within((found.value, percent), gold, tolerance) for gold in golds)
    return binary_outcome(format_number(found.value), found.parse, hit)


@register_scorer("relaxed")
def _score_relaxed(item: Item, text: str, ctx: ScoreContext) -> Outcome:
    tolerance = item.tolerance if item.tolerance is not None else ctx.settings.relaxed_tolerance
    try:
        unit = chart_unit_of(item.meta)
    except InputError as error:
        raise InputError(f"item '{item.id}': {error.reason}", field="meta.chart_unit") from error
    multipliers = ctx.settings.relaxed_multipliers

    def matches(pred: str, golds: Sequence[str]) -> bool:
        return relaxed_accuracy(pred, golds, tolerance, chart_unit=unit, multipliers=multipliers)

    answer = answer_text(text).strip().rstrip(".")
    numeric = [gold for gold in item.answers if chart_value(gold) is not None]
    if numeric:
        value = chart_value(answer)
        if value is not None:
            hit = matches(answer, numeric)
            return binary_outcome(_chart_text(value), PARSE_OK, hit)
        found, token, cleaned = answer_number_token(text)
        if token is not None:
            written = cleaned[token.start:token.end]
            value = chart_value(written)
            if value is None:  # a number word or numeral: read, no multiplier
                written = format_number(token.value) + ("%" if token.percent else "")
                value = chart_value(written)
            hit = matches(written, numeric) or \
                matches(answer, item.answers)
            shown = _chart_text(value) if value is not None else written
            return binary_outcome(shown, found.parse, hit)
    if not answer:
        return FAILED
    hit = matches(answer, item.answers)
    return binary_outcome(clip_extracted(answer.casefold()), PARSE_OK, hit)


def _chart_text(value: ChartValue) -> str:
    """A chart value as `extracted` shows it: "12", "45%", "3905 x1000"."""
    return (format_number(value.number) + ("%" if value.percent else "")
            + (f" x{format_number(value.multiplier)}" if value.scaled else ""))


@register_scorer("anls")
def _score_anls(item: Item, text: str, ctx: ScoreContext) -> Outcome:
    answer = " ".join(answer_text(text).lower().split())
    if not answer:
        return FAILED
    score = anls(answer, item.answers, ctx.settings.anls_threshold)
    return Outcome(clip_extracted(answer), PARSE_OK, score, score >= ctx.settings.anls_hit)


@register_scorer("vqa")
def _score_vqa(item: Item, text: str, ctx: ScoreContext) -> Outcome:
    raw = answer_text(text)
    answer = vqa_normalize(raw)
    if not answer:
        return FAILED
    score = vqa_accuracy(raw, item.answers)
    return Outcome(clip_extracted(answer), PARSE_OK, score, score >= ctx.settings.vqa_hit)


def gold_box(item: Item, answer: str | None = None) -> tuple[float, float, float, float]:
    """A gold box "x1,y1,x2,y2" in pixels (the item's first answer unless `answer` is given);
    `NO_BOX` for a gold that says the object is absent ("none", "no such object",
    "0,0,0,0").

    Raises:
        InputError: the answer is not four numbers (field `answers`).
    """
    text = answer if answer is not None else (item.answers[0] if item.answers else "")
    if text.strip().casefold() in NO_BOX_GOLDS:
        return NO_BOX
    parts = text.strip().strip("[]() ").split(",")
    try:
        if len(parts) != 4:
            raise ValueError
        x1, y1, x2, y2 = (float(p) for p in parts)
    except ValueError as exc:
        raise InputError(f"item '{item.id}': a box answer must be 'x1,y1,x2,y2' in "
                         f"pixels, got {text!r}", field="answers") from exc
    return x1, y1, x2, y2


NO_BOX_GOLDS = frozenset({"none", "no such object", "no box", "absent"})


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


@register_scorer("iou")
def _score_iou(item: Item, text: str, ctx: ScoreContext) -> Outcome:
    gold = gold_box(item)
    if not clean_response(text):
        return FAILED
    width, height = image_size_of(item, ctx)
    found = extract_box_detailed(text, width, height, box_format=ctx.box_format)
    if found.value is None:
        return FAILED
    if found.value == NO_BOX or gold == NO_BOX:  # only an explicit rejection meets "absent"
        return binary_outcome("none" if found.value == NO_BOX else _box_text(found.value),
                              found.parse, found.value == gold)
    score = iou(found.value, gold)
    extracted = f"{_box_text(found.value)} ({found.detail})"
    return Outcome(extracted, found.parse, score, score >= ctx.settings.iou_threshold)


def _box_text(box) -> str:
    return ",".join(format_number(round(v, 1)) for v in box)


@register_scorer("mmmu_open")
def _score_mmmu_open(item: Item, text: str, ctx: ScoreContext) -> Outcome:
    cleaned = clean_response(text)
    keys, _ = mmmu_candidates(cleaned)
    if not keys:
        return FAILED
    return binary_outcome(clip_extracted(keys[-1]), PARSE_OK, mmmu_open_match(cleaned, item.answers, raw=text))


@register_scorer("checklist")
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
