"""Checks of an item's own gold answers and its reference to a picture (docs/AUDITS.md).

- `label.contradictory_answers`: accepted answers of an open item that cannot both be
  right — two different numbers, or two members of one closed class (colours, shapes,
  directions). Numeric items with two numbers and yes+no golds are errors of
  `label.inconsistent_answers`. Items scored by VQA accuracy (annotators disagree by
  design) and multi-answer items are exempt from both.
- `ambiguity.missing_image`: an item with no image whose text points at one ("the
  thermometer shown", "in the picture", "this image", 图中, 如图).
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence

from bench_kit.audit import text_patterns as tp
from bench_kit.audit.content import item_hint
from bench_kit.audit.label_checks import exempt, number_conflict
from bench_kit.audit.registry import AuditContext, CheckSpec, NoParams, check
from bench_kit.audit.text_checks import _matches, _span_evidence, unquoted
from bench_kit.text.normalize import normalize_for_audit
from bench_kit.types import Finding, Item


def _short(answers: Sequence[str]) -> list[str]:
    """Answers of at most two words: "3", "three", "3 cm" — not "3 dogs and a cat"."""
    return [a for a in answers if len(normalize_for_audit(a).split()) <= 2]


def contradiction(item: Item) -> tuple[str, list[str]] | None:
    """(kind, the two answers) when two accepted answers of an open item disagree."""
    if item.task != "open" or exempt(item) or len(item.answers) < 2:
        return None
    numbers = number_conflict(_short(item.answers), item)
    if numbers:
        return "different_numbers", numbers
    for kind, members in tp.ANSWER_CLASSES.items():
        seen: dict[str, str] = {}
        for answer in item.answers:
            canonical = members.get(normalize_for_audit(answer))
            if canonical is not None:
                seen.setdefault(canonical, answer)
        if len(seen) >= 2:
            first, second = list(seen.values())[:2]
            return f"two_{kind}", [first, second]
    return None


@check("label.contradictory_answers", severity="warn")
def contradictory_answers(ctx: AuditContext, params: NoParams, spec: CheckSpec) -> Iterator[Finding]:
    """Accepted answers of an open item that disagree (two numbers, colours, shapes, sides)."""
    for item in ctx.items:
        found = contradiction(item)
        if found:
            kind, span = found
            yield spec.finding(item.id, f"accepted answers disagree ({kind.replace('_', ' ')}): "
                               f"'{span[0]}' vs '{span[1]}'",
                               {"field": "answers", "kind": kind, "span": span,
                                "answers": list(item.answers)})


@check("ambiguity.missing_image", severity="warn")
def missing_image(ctx: AuditContext, params: NoParams, spec: CheckSpec) -> Iterator[Finding]:
    """No image, but the text points at one ("shown", "in the picture", "this image", 图中)."""
    for item in ctx.items:
        if item.images:
            continue
        hint, question = item_hint(item)
        for field, text in (("question", unquoted(question)), ("meta.hint", hint)):
            matches = _matches(text, (tp.PICTURE_EN, tp.PICTURE_ZH))
            if matches:
                yield spec.finding(item.id, f"'{matches[0].group(0)}' points at a picture, "
                                   "but the item has no image", _span_evidence(matches, field))
                break
