"""Ambiguity and label checks on item text (DOMAIN §5.3), English and Chinese.

Lexical checks quote what they matched: `evidence.span` (the first match), `evidence.at`
([start, end) in the field) and `evidence.spans` when there is more than one match.
"""

from __future__ import annotations

import difflib
import math
import re
import unicodedata
from typing import Iterator, Sequence

from pydantic import Field

from bench_kit.audit import text_patterns as tp
from bench_kit.audit.registry import (
    AuditContext,
    CheckParams,
    NoParams,
    check,
    spec_of,
)
from bench_kit.text.cjk import cjk_count, has_cjk
from bench_kit.text.normalize import normalize_for_audit
from bench_kit.text.numbers import leading_number
from bench_kit.types import Finding, Item


def _matches(text: str, patterns: Sequence[re.Pattern[str]]) -> list[re.Match[str]]:
    found = [m for pattern in patterns for m in pattern.finditer(text) if m.group(0).strip()]
    return sorted(found, key=lambda m: (m.start(), m.end()))


def _span_evidence(matches: list[re.Match[str]], field: str = "question") -> dict:
    first = matches[0]
    evidence: dict = {"field": field, "span": first.group(0), "at": [first.start(), first.end()]}
    if len(matches) > 1:
        evidence["spans"] = [m.group(0) for m in matches]
    return evidence


def _lexical(ctx: AuditContext, name: str, patterns: Sequence[re.Pattern[str]],
             message: str) -> Iterator[Finding]:
    spec = spec_of(name)
    for item in ctx.items:
        matches = _matches(item.question, patterns)
        if matches:
            yield spec.finding(item.id, message.format(span=matches[0].group(0)),
                               _span_evidence(matches))


# --- ambiguity ---------------------------------------------------------------------------


@check("ambiguity.vague_deixis", severity="warn")
def vague_deixis(ctx: AuditContext, params: NoParams) -> Iterator[Finding]:
    """Deictic words with nothing that resolves them ("this one", "那个", "旁边")."""
    yield from _lexical(ctx, "ambiguity.vague_deixis",
                        (tp.VAGUE_DEIXIS_EN, tp.VAGUE_DEIXIS_ZH),
                        "'{span}' does not say which object is meant")


@check("ambiguity.compound_question", severity="warn")
def compound_question(ctx: AuditContext, params: NoParams) -> Iterator[Finding]:
    """Two asks in one question (two question marks, "... and what ...", "和…分别")."""
    spec = spec_of("ambiguity.compound_question")
    for item in ctx.items:
        matches = _matches(item.question, (tp.COMPOUND_EN, tp.COMPOUND_ZH))
        marks = list(tp.QUESTION_MARKS.finditer(item.question))
        if len(marks) >= 2:
            # Quote the second ask: the text between the first and the second question mark.
            second = tp.NEXT_ASK.search(item.question, marks[0].end())
            if second:
                matches = sorted([*matches, second], key=lambda m: (m.start(), m.end()))
        if matches:
            yield spec.finding(item.id, f"two asks in one question ('{matches[0].group(0)}'); "
                               "split it so one question tests one ability",
                               _span_evidence(matches))


@check("ambiguity.viewpoint", severity="warn")
def viewpoint(ctx: AuditContext, params: NoParams) -> Iterator[Finding]:
    """Left/right (左/右) with no stated viewpoint ("from the viewer's perspective", "图中")."""
    spec = spec_of("ambiguity.viewpoint")
    for item in ctx.items:
        text = item.question
        matches = _matches(text, (tp.SIDE_EN, tp.SIDE_ZH))
        if matches and not (tp.VIEWPOINT_EN.search(text) or tp.VIEWPOINT_ZH.search(text)):
            yield spec.finding(item.id, f"'{matches[0].group(0)}' depends on the viewpoint; "
                               "state it (e.g. \"from the viewer's perspective\")",
                               _span_evidence(matches))


@check("ambiguity.multi_attribute_count", severity="info")
def multi_attribute_count(ctx: AuditContext, params: NoParams) -> Iterator[Finding]:
    """Counting with an attribute filter ("how many red balls"): count + attribute + object."""
    yield from _lexical(ctx, "ambiguity.multi_attribute_count",
                        (tp.MULTI_ATTRIBUTE_COUNT_EN, tp.MULTI_ATTRIBUTE_COUNT_ZH),
                        "'{span}' tests counting and attribute recognition at once")


class LongQuestionParams(CheckParams):
    """Settings of ambiguity.long_question."""

    max_question_words: int = Field(40, ge=1)


def question_words(text: str) -> int:
    """Length in words: English-like words plus CJK characters / 2, rounded up.

    Two Chinese characters carry about one English word, so one limit serves both.

    >>> question_words("How many red circles are there?"), question_words("图中有几个红色的圆形？")
    (6, 5)
    """
    return len(tp.WORD.findall(text)) + math.ceil(cjk_count(text) / 2)


@check("ambiguity.long_question", severity="warn", params=LongQuestionParams)
def long_question(ctx: AuditContext, params: LongQuestionParams) -> Iterator[Finding]:
    """Questions longer than `max_question_words` (Chinese: 2 characters = 1 word)."""
    spec = spec_of("ambiguity.long_question")
    limit = params.max_question_words
    for item in ctx.items:
        words = question_words(item.question)
        if words > limit:
            span = item.question if len(item.question) <= 120 else item.question[:119] + "…"
            yield spec.finding(item.id, f"question has {words} words (max {limit})",
                               {"field": "question", "span": span, "words": words,
                                "max_question_words": limit},
                               score=min(1.0, (words - limit) / limit))


def _text_fields(item: Item) -> Iterator[tuple[str, str]]:
    yield "question", item.question
    for letter, text in (item.choices or {}).items():
        yield f"choices.{letter}", text
    for index, answer in enumerate(item.answers):
        yield f"answers.{index}", answer


@check("ambiguity.dirty_text", severity="warn")
def dirty_text(ctx: AuditContext, params: NoParams) -> Iterator[Finding]:
    """HTML escapes or tags, control/invisible characters, U+FFFD, doubled or edge spaces."""
    spec = spec_of("ambiguity.dirty_text")
    for item in ctx.items:
        hits: list[tuple[str, str, re.Match[str]]] = []
        for field, text in _text_fields(item):
            for kind, pattern in tp.DIRTY.items():
                hits.extend((field, kind, m) for m in pattern.finditer(text))
        if not hits:
            continue
        field, kind, first = hits[0]
        evidence = {"field": field, "kind": kind, "span": first.group(0),
                    "at": [first.start(), first.end()],
                    "kinds": sorted({k for _, k, _ in hits}),
                    "fields": sorted({f for f, _, _ in hits})}
        shown = first.group(0).encode("unicode_escape").decode("ascii")
        yield spec.finding(item.id, f"dirty text in {field}: {kind} '{shown}'", evidence)


# --- labels ------------------------------------------------------------------------------


@check("label.gold_not_in_choices", severity="error")
def gold_not_in_choices(ctx: AuditContext, params: NoParams) -> Iterator[Finding]:
    """An mc gold letter that is not among the choices (from validation, or a lenient reader)."""
    from bench_kit.audit.intake import problem_findings

    yield from problem_findings(ctx, "label.gold_not_in_choices", "gold not among the choices")
    spec = spec_of("label.gold_not_in_choices")
    for item in ctx.items:
        if item.task != "mc":
            continue
        letters = sorted(item.choices or {})
        missing = [answer for answer in item.answers if answer not in letters]
        if missing or not item.answers:
            yield spec.finding(item.id, f"gold {missing or '(none)'} not among the choices "
                               f"{letters}", {"answers": list(item.answers), "choices": letters,
                                              "missing": missing})


class DuplicateOptionsParams(CheckParams):
    """Settings of label.duplicate_options."""

    option_similarity: float = Field(0.9, gt=0.0, le=1.0)


def _option_key(text: str) -> str:
    return normalize_for_audit(text).replace(" ", "")


@check("label.duplicate_options", severity="warn", params=DuplicateOptionsParams)
def duplicate_options(ctx: AuditContext, params: DuplicateOptionsParams) -> Iterator[Finding]:
    """Options identical after normalisation (error) or near-identical (similarity ≥ threshold)."""
    spec = spec_of("label.duplicate_options")
    for item in ctx.items:
        options = sorted((item.choices or {}).items())
        pairs = []
        for i, (letter_a, text_a) in enumerate(options):
            for letter_b, text_b in options[i + 1:]:
                key_a, key_b = _option_key(text_a), _option_key(text_b)
                if key_a == key_b:
                    similarity = 1.0
                elif re.findall(r"\d+", key_a) != re.findall(r"\d+", key_b):
                    continue  # "12 cm" vs "13 cm" differ in meaning, however similar
                else:
                    similarity = difflib.SequenceMatcher(None, key_a, key_b).ratio()
                if similarity >= params.option_similarity:
                    pairs.append((similarity, letter_a, letter_b, text_a, text_b))
        if not pairs:
            continue
        similarity, letter_a, letter_b, text_a, text_b = max(pairs, key=lambda p: p[0])
        identical = similarity == 1.0
        yield spec.finding(
            item.id, f"options {letter_a} and {letter_b} are "
            f"{'identical' if identical else 'near-identical'}: '{text_a}' / '{text_b}'",
            {"options": [letter_a, letter_b], "span": [text_a, text_b],
             "similarity": round(similarity, 4),
             "pairs": [[a, b] for _, a, b, _, _ in sorted(pairs, key=lambda p: (p[1], p[2]))]},
            severity="error" if identical else "warn", score=similarity)


def _yes_no_conflict(answers: Sequence[str]) -> list[str] | None:
    norm = [normalize_for_audit(a) for a in answers]
    yes = [a for a, n in zip(answers, norm) if n in tp.YES_WORDS]
    no = [a for a, n in zip(answers, norm) if n in tp.NO_WORDS]
    return [yes[0], no[0]] if yes and no else None


def _number_conflict(item: Item) -> list[str] | None:
    values = [(answer, parse_value) for answer in item.answers
              if (parse_value := leading_number(answer)) is not None]
    if len(values) < 2:
        return None
    low = min(values, key=lambda v: v[1])
    high = max(values, key=lambda v: v[1])
    gap = high[1] - low[1]
    tolerance = item.tolerance or 0.0
    if item.metric == "relaxed" and item.tolerance is not None:
        gap = gap / max(abs(high[1]), abs(low[1]), 1e-12)
    return [low[0], high[0]] if gap > tolerance else None


def _checklist_conflict(item: Item) -> list[str] | None:
    seen: dict[str, bool] = {}
    for entry in item.checks or []:
        key = normalize_for_audit(entry.name)
        if key in seen and seen[key] != entry.answer:
            return [entry.name, f"{entry.answer} and {seen[key]}"]
        seen.setdefault(key, entry.answer)
    return None


@check("label.inconsistent_answers", severity="error")
def inconsistent_answers(ctx: AuditContext, params: NoParams) -> Iterator[Finding]:
    """An answers list that contradicts itself (yes and no; different numbers; checklist twins)."""
    spec = spec_of("label.inconsistent_answers")
    for item in ctx.items:
        if item.task == "checklist":
            conflict = _checklist_conflict(item)
            if conflict:
                yield spec.finding(item.id, f"check '{conflict[0]}' is answered {conflict[1]}",
                                   {"field": "checks", "span": conflict[0]})
            continue
        conflict = _yes_no_conflict(item.answers)
        kind = "yes_and_no"
        if conflict is None and item.task == "numeric":
            conflict, kind = _number_conflict(item), "different_numbers"
        if conflict:
            yield spec.finding(item.id, f"answers contradict each other: '{conflict[0]}' vs "
                               f"'{conflict[1]}'", {"field": "answers", "kind": kind,
                                                    "span": conflict,
                                                    "answers": list(item.answers)})


_BOUNDARY_BEFORE = r"(?<![0-9A-Za-z_])"
_BOUNDARY_AFTER = r"(?![0-9A-Za-z_]|[.,]\d)"


def _gold_in_question(question: str, gold: str) -> re.Match[str] | None:
    gold = unicodedata.normalize("NFKC", gold).strip()
    if has_cjk(gold):
        # No word boundaries in Chinese: a substring match, from two characters up, since
        # one character (红, 大) is part of too many unrelated words.
        if cjk_count(gold) < 2:
            return None
        return re.search(re.escape(gold), question, re.IGNORECASE)
    if not gold or (len(gold) == 1 and gold.isalpha()):
        return None  # a lone letter ("A") is an article or a label, not a give-away
    return re.search(_BOUNDARY_BEFORE + re.escape(gold) + _BOUNDARY_AFTER, question,
                     re.IGNORECASE)


@check("label.answer_in_question", severity="warn")
def answer_in_question(ctx: AuditContext, params: NoParams) -> Iterator[Finding]:
    """An open or numeric gold answer given away verbatim (word-bounded) in the question."""
    spec = spec_of("label.answer_in_question")
    for item in ctx.items:
        if item.task not in ("open", "numeric"):
            continue
        question = unicodedata.normalize("NFKC", item.question)
        for gold in item.answers:
            match = _gold_in_question(question, gold)
            if match:
                evidence = {"field": "question", "span": match.group(0), "answer": gold}
                if question == item.question:  # offsets are only meaningful in the original
                    evidence["at"] = [match.start(), match.end()]
                yield spec.finding(item.id, f"the gold answer '{gold}' appears in the question",
                                   evidence)
                break
