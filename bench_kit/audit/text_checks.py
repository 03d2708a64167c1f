"""Ambiguity and label checks on item text (docs/AUDIT_METHODS.md), English and Chinese.

Lexical checks quote what they matched: `evidence.span` (the first match), `evidence.at`
([start, end) in the field) and `evidence.spans` when there is more than one match.
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterator, Sequence
from typing import Any

from pydantic import Field

from bench_kit.audit import text_patterns as tp
from bench_kit.audit.registry import (
    AuditContext,
    CheckParams,
    CheckSpec,
    NoParams,
    check,
)
from bench_kit.text.cjk import cjk_count, has_cjk
from bench_kit.text.streamsafe import nfkc
from bench_kit.text.words import find_phrase
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


# --- ambiguity ---------------------------------------------------------------------------


def quoted_spans(text: str) -> list[tuple[int, int]]:
    """[start, end) of the quoted parts of a question (`text_patterns.QUOTED`).

    >>> quoted_spans('Which word is a noun in "this is it"?')
    [(24, 36)]
    >>> quoted_spans("What kind of sentence is this?\\nMona will print her name.")
    [(31, 56)]
    >>> quoted_spans("Read this.\\nA passage.\\nWho wrote it?")
    [(0, 10), (11, 21)]
    """
    spans = [m.span() for m in tp.QUOTED.finditer(text)]
    lines = [(m.start(), m.end()) for m in re.finditer(r"[^\n]+", text)]
    if len(lines) > 1:
        # several lines: one is the ask — the first that ends in "?"/":" (the quote follows
        # it), else the last (a passage, then the question) — the others are quoted
        ask = next((span for span in lines
                    if text[span[0]:span[1]].rstrip().endswith(tp.ASK_LINE_END)), lines[-1])
        spans.extend(span for span in lines if span != ask)
    return sorted(spans)


def unquoted(text: str) -> str:
    """The text with its quoted parts blanked (same length, so offsets still hold)."""
    for start, end in quoted_spans(text):
        text = text[:start] + " " * (end - start) + text[end:]
    return text



def unresolved_pronoun(question: str) -> re.Match[str] | None:
    """The first pronoun with nothing before it that it could refer to ("What colour is it?").

    >>> unresolved_pronoun("What colour is it?").group(0)
    'it'
    >>> unresolved_pronoun("Where is the cat's tail and is it long?") is None
    True
    >>> unresolved_pronoun("In their study of depression, Brown & Harris found that:") is None
    True
    """
    match = tp.PRONOUN_ZH.search(question.strip())
    if match:
        return match
    for match in tp.PRONOUN_EN.finditer(question):
        before = tp.WORD.findall(question[:match.start()].lower())
        if not all(word in tp.NON_ANTECEDENT_WORDS for word in before):
            return None
        # a possessive whose antecedent follows in the same sentence ("In their study,
        # Brown & Harris found ...") is resolved: a name comes after it
        sentence = tp.SENTENCE_END.split(question[match.end():], maxsplit=1)[0]
        if match.group(0).lower() in tp.POSSESSIVES_EN and tp.PROPER_NAME.search(sentence):
            return None
        return match
    return None


@check("ambiguity.vague_deixis", severity="warn")
def vague_deixis(ctx: AuditContext, params: NoParams, spec: CheckSpec) -> Iterator[Finding]:
    """Deixis with nothing that resolves it ("this one", "那个", "旁边", a bare "it").

    An item whose image marks the referent (`meta.visual_prompt`) is resolved. Quoted text
    is skipped, and a bare "this"/"it" in an item that quotes what it asks about ("What kind
    of sentence is this?" + the sentence) refers to the quote."""
    for item in ctx.items:
        if item.meta.get("visual_prompt"):
            continue
        text = unquoted(item.question)
        matches = _matches(text, (tp.VAGUE_DEIXIS_EN, tp.VAGUE_DEIXIS_ZH))
        pronoun = unresolved_pronoun(text)
        if pronoun is not None:
            matches = sorted([*matches, pronoun], key=lambda m: (m.start(), m.end()))
        if text != item.question:  # the item quotes its referent
            matches = [m for m in matches if m is not pronoun
                       and m.group(0).strip().lower() not in ("this", "that")]
        if matches:
            yield spec.finding(item.id, f"'{matches[0].group(0)}' does not say which object "
                               "is meant (no antecedent, no `meta.visual_prompt`)",
                               _span_evidence(matches))


@check("ambiguity.compound_question", severity="warn")
def compound_question(ctx: AuditContext, params: NoParams, spec: CheckSpec) -> Iterator[Finding]:
    """Two asks in one question (two question marks, "... and what ...", "和…分别").

    Quoted text (a quoted sentence with its own "?") is skipped."""
    for item in ctx.items:
        text = unquoted(item.question)
        # "X is abelian. Then which ...?": a sentence opening with "then" after a statement
        # is the only ask, not a second one
        matches = [m for m in _matches(text, (tp.COMPOUND_EN, tp.COMPOUND_ZH))
                   if not (m.group(0)[:4].lower() == "then"
                           and text[:m.start()].rstrip()[-1:] in ("", ".", "!"))]
        marks = list(tp.QUESTION_MARKS.finditer(text))
        if len(marks) >= 2:
            # Quote the second ask: the text between the first and the second question mark.
            second = tp.NEXT_ASK.search(text, marks[0].end())
            if second:
                matches = sorted([*matches, second], key=lambda m: (m.start(), m.end()))
        if matches:
            yield spec.finding(item.id, f"two asks in one question ('{matches[0].group(0)}'); "
                               "split it so one question tests one ability",
                               _span_evidence(matches))


@check("ambiguity.viewpoint", severity="warn")
def viewpoint(ctx: AuditContext, params: NoParams, spec: CheckSpec) -> Iterator[Finding]:
    """Left/right (左/右) with no stated viewpoint ("from the viewer's perspective", "图中")."""
    for item in ctx.items:
        text = item.question
        matches = _matches(text, (tp.SIDE_EN, tp.SIDE_ZH))
        if matches and not (tp.VIEWPOINT_EN.search(text) or tp.VIEWPOINT_ZH.search(text)):
            yield spec.finding(item.id, f"'{matches[0].group(0)}' depends on the viewpoint; "
                               "state it (e.g. \"from the viewer's perspective\")",
                               _span_evidence(matches))


@check("ambiguity.multi_attribute_count", severity="warn")
def multi_attribute_count(ctx: AuditContext, params: NoParams, spec: CheckSpec) -> Iterator[Finding]:
    """Counting with attribute filters: two ("small red", "red or large") warn, one info.

    "How many red balls" is an info hint; "how many small red balls" a warn."""
    for item in ctx.items:
        two = _matches(item.question, (tp.MULTI_ATTRIBUTE_COUNT_TWO_EN,
                                       tp.MULTI_ATTRIBUTE_COUNT_TWO_ZH))
        one = two or _matches(item.question, (tp.MULTI_ATTRIBUTE_COUNT_EN,
                                              tp.MULTI_ATTRIBUTE_COUNT_ZH))
        if not one:
            continue
        what = "two attribute filters" if two else "attribute recognition"
        yield spec.finding(item.id, f"'{one[0].group(0)}' tests counting and {what} at once",
                           {**_span_evidence(one), "attributes": 2 if two else 1},
                           severity="warn" if two else "info")


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


# info, not warn: on public benchmarks a second reader judged 0 of 13 sampled long questions
# a defect (MMLU "Statement 1 | Statement 2" items, passages the question needs), see
# docs/AUDITS.md "Precision on public benchmarks". Length alone asks nothing of a reviewer.
@check("ambiguity.long_question", severity="info", params=LongQuestionParams)
def long_question(ctx: AuditContext, params: LongQuestionParams, spec: CheckSpec) -> Iterator[Finding]:
    """Questions longer than `max_question_words` (Chinese: 2 characters = 1 word).

    Quoted text and passage lines (`quoted_spans`) are not counted: they are what the
    question asks about, not its wording."""
    limit = params.max_question_words
    for item in ctx.items:
        words = question_words(unquoted(item.question))  # a quoted passage is not the ask
        if words > limit:
            span = item.question if len(item.question) <= 120 else item.question[:119] + "…"
            yield spec.finding(item.id, f"question has {words} words (max {limit})",
                               {"field": "question", "span": span, "words": words,
                                "max_question_words": limit},
                               score=min(1.0, (words - limit) / limit))


def _text_fields(item: Item) -> Iterator[tuple[str, str]]:
    yield "question", item.question
    hint = item.meta.get("hint")
    if isinstance(hint, str):
        yield "meta.hint", hint
    for letter, text in (item.choices or {}).items():
        yield f"choices.{letter}", text
    for index, answer in enumerate(item.answers):
        yield f"answers.{index}", answer


@check("ambiguity.dirty_text", severity="warn")
def dirty_text(ctx: AuditContext, params: NoParams, spec: CheckSpec) -> Iterator[Finding]:
    """HTML escapes or tags, control/invisible characters, U+FFFD, doubled or edge spaces,
    a dropped word ("The 's mouth"); in the question, options, answers and `meta.hint`."""
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
def gold_not_in_choices(ctx: AuditContext, params: NoParams, spec: CheckSpec) -> Iterator[Finding]:
    """An mc gold letter that is not among the choices (from validation, or a lenient reader)."""
    from bench_kit.audit.intake import problem_findings

    yield from problem_findings(ctx, spec, "gold not among the choices")
    for item in ctx.items:
        if item.task != "mc":
            continue
        letters = sorted(item.choices or {})
        missing = [answer for answer in item.answers if answer not in letters]
        if missing or not item.answers:
            yield spec.finding(item.id, f"gold {missing or '(none)'} not among the choices "
                               f"{letters}", {"answers": list(item.answers), "choices": letters,
                                              "missing": missing})


def _gold_in_question(question: str, gold: str) -> re.Match[str] | None:
    gold = nfkc(gold).strip()
    if has_cjk(gold):
        # No word boundaries in Chinese: a substring match, from two characters up, since
        # one character (红, 大) is part of too many unrelated words.
        if cjk_count(gold) < 2:
            return None
    elif not gold or (len(gold) == 1 and gold.isalpha()):
        return None  # a lone letter ("A") is an article or a label, not a give-away
    return find_phrase(question, gold, ignore_case=True)


def _offered_alternative(question: str, match: re.Match[str]) -> bool:
    """True when the match is one of the alternatives the question offers ("A or B", "A还是B")."""
    before = question[max(0, match.start() - 12):match.start()].lower()
    after = question[match.end():match.end() + 12].lower()
    return bool(re.search(r"(?:\bor|还是|或)\s*$", before)
                or re.match(r"\s*,?\s*(?:or\b|还是|或)", after))


@check("label.answer_in_question", severity="warn")
def answer_in_question(ctx: AuditContext, params: NoParams, spec: CheckSpec) -> Iterator[Finding]:
    """An open or numeric gold answer given away verbatim (word-bounded) in the question."""
    for item in ctx.items:
        if item.task not in ("open", "numeric"):
            continue
        question = nfkc(item.question)
        for gold in item.answers:
            match = _gold_in_question(question, gold)
            if match and _offered_alternative(question, match):
                continue  # "Jamaica or Tonga?": the question lists the candidates
            if match:
                evidence: dict[str, Any] = {"field": "question", "span": match.group(0),
                                            "answer": gold}
                if question == item.question:  # offsets are only meaningful in the original
                    evidence["at"] = [match.start(), match.end()]
                yield spec.finding(item.id, f"the gold answer '{gold}' appears in the question",
                                   evidence)
                break
