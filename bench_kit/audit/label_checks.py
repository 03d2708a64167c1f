"""Label checks that compare answers, options and items with each other (docs/AUDITS.md).

- `label.duplicate_options`: two options that mean the same. Options are compared with
  their signs, decimal points and units kept (`-6` ≠ `6`, `16.9%` ≠ `16.9`, `$5` ≠ `5`).
- `label.inconsistent_answers`: golds that cannot all be right — within one item (yes and
  no, different numbers, several letters of a single-answer mc item, an answer text that
  names another option than the gold letter, a checklist check answered both ways) and
  across items (the same normalised question on the same image with different golds; a
  yes/no question and its negation on the same image with the same gold).
- `redundancy.repeated_question`: one question (with the same options) repeated verbatim
  across many items with no image (a copy error), or twice on the same image with the same
  gold. On different images it is a template: info when one gold covers nearly all of them
  (a skew the model audit's answer prior measures), nothing when the golds vary.
"""

from __future__ import annotations

import difflib
import re
import unicodedata
from collections import defaultdict
from collections.abc import Iterator, Sequence

from pydantic import Field

from bench_kit.audit import text_patterns as tp
from bench_kit.audit.registry import AuditContext, CheckParams, CheckSpec, NoParams, check
from bench_kit.text.normalize import normalize_for_audit, normalize_for_match
from bench_kit.text.numbers import canonical_number, leading_number
from bench_kit.types import Finding, Item, Severity

# --- duplicate options -------------------------------------------------------------------


class DuplicateOptionsParams(CheckParams):
    """Settings of label.duplicate_options."""

    option_similarity: float = Field(0.9, gt=0.0, le=1.0)


_UNIT_SYMBOLS = {"%": " percent ", "$": " dollar ", "€": " euro ", "£": " pound ",
                 "¥": " yen ", "°": " degree ", "‰": " permille ", "+": " plus "}
_SIGNED_NUMBER = re.compile(r"-?\d+(?:\.\d+)?")


def option_key(text: str) -> str:
    """An option as compared with the others: case, spacing and punctuation ignored, but
    signs, decimal points and unit symbols kept.

    >>> option_key("-6") == option_key("6"), option_key(" Red. ") == option_key("red")
    (False, True)
    >>> option_key("16.90") == option_key("16.9")
    True
    """
    for symbol, word in _UNIT_SYMBOLS.items():
        text = text.replace(symbol, word)
    key = normalize_for_match(text).replace(" ", "")
    return _SIGNED_NUMBER.sub(lambda m: canonical_number(m.group(0)), key)


_FINAL_STOP = re.compile(r"[.。]$")


def strict_option_key(text: str) -> str:
    """An option with only NFKC, spacing, a final full stop and number spelling normalised
    (case and other punctuation kept): options equal under this key are the same option.

    >>> strict_option_key(" 12 cm ") == strict_option_key("12cm"), strict_option_key("-6.")
    (True, '-6')
    >>> strict_option_key("Dear Sue,") == strict_option_key("dear Sue,")
    False
    """
    key = _FINAL_STOP.sub("", "".join(unicodedata.normalize("NFKC", text).split()))
    return _SIGNED_NUMBER.sub(lambda m: canonical_number(m.group(0)), key)


@check("label.duplicate_options", severity="warn", params=DuplicateOptionsParams)
def duplicate_options(ctx: AuditContext, params: DuplicateOptionsParams, spec: CheckSpec) -> Iterator[Finding]:
    """Equal options (error); near-identical or differing only in case/punctuation (info).

    Signs, decimals and units are kept (-6 ≠ 6). Options that differ only in capitals or
    punctuation are information: spelling and capitalisation questions are made of them."""
    for item in ctx.items:
        options = sorted((item.choices or {}).items())
        pairs = []
        for i, (letter_a, text_a) in enumerate(options):
            for letter_b, text_b in options[i + 1:]:
                key_a, key_b = option_key(text_a), option_key(text_b)
                if key_a == key_b:
                    similarity = 1.0
                elif _SIGNED_NUMBER.findall(key_a) != _SIGNED_NUMBER.findall(key_b):
                    continue  # "12 cm" vs "13 cm", "-6" vs "6" differ in meaning
                else:
                    similarity = difflib.SequenceMatcher(None, key_a, key_b).ratio()
                if similarity >= params.option_similarity:
                    pairs.append((similarity, letter_a, letter_b, text_a, text_b))
        if not pairs:
            continue
        similarity, letter_a, letter_b, text_a, text_b = max(
            pairs, key=lambda p: (p[0], strict_option_key(p[3]) == strict_option_key(p[4])))
        identical = similarity == 1.0
        # Near-identical options are information: on public benchmarks they are minimal
        # pairs by design ("sample A"/"sample B", "pushing"/"pulling"): 0 of 30 judged
        # defects (docs/AUDITS.md#precision-on-public-benchmarks).
        kind = "near-identical"
        severity: Severity = "info"
        if identical and strict_option_key(text_a) == strict_option_key(text_b):
            kind, severity = "identical", "error"
        elif identical:
            kind, severity = "different only in case or punctuation", "info"
        yield spec.finding(
            item.id, f"options {letter_a} and {letter_b} are {kind}: '{text_a}' / '{text_b}'",
            {"options": [letter_a, letter_b], "span": [text_a, text_b],
             "similarity": round(similarity, 4),
             "pairs": [[a, b] for _, a, b, _, _ in sorted(pairs, key=lambda p: (p[1], p[2]))],
             "kind": kind},
            severity=severity, score=similarity)


# --- inconsistent answers: within one item -----------------------------------------------

# meta keys importers and authors use for the text of an mc gold option
ANSWER_TEXT_KEYS = ("answer_text", "gold_text", "answer")
_LETTER_PREFIX = re.compile(r"^\(?([A-J])[).:：]\s*(.+)$")


def _yes_no_conflict(answers: Sequence[str]) -> list[str] | None:
    norm = [normalize_for_audit(a) for a in answers]
    yes = [a for a, n in zip(answers, norm) if n in tp.YES_WORDS]
    no = [a for a, n in zip(answers, norm) if n in tp.NO_WORDS]
    return [yes[0], no[0]] if yes and no else None


def number_conflict(answers: Sequence[str], item: Item) -> list[str] | None:
    """The lowest and highest of the answers read as numbers, when they differ by more than
    the item's tolerance (relative for `relaxed`); None otherwise."""
    values = [(answer, parse_value) for answer in answers
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


# Metrics whose golds are several annotators' answers, which may disagree by design.
CONSENSUS_METRICS = frozenset({"vqa"})


def exempt(item: Item) -> bool:
    """Items whose golds may legitimately disagree: VQA accuracy, multi-answer items."""
    return (item.metric in CONSENSUS_METRICS or bool(item.meta.get("multi_answer"))
            or bool(item.meta.get("multi_select")))


def _checklist_conflict(item: Item) -> list[str] | None:
    seen: dict[str, bool] = {}
    for entry in item.checks or []:
        key = normalize_for_audit(entry.name)
        if key in seen and seen[key] != entry.answer:
            return [entry.name, f"{entry.answer} and {seen[key]}"]
        seen.setdefault(key, entry.answer)
    return None


def _mc_conflict(item: Item) -> tuple[str, list[str]] | None:
    """Several golds of a single-answer mc item, or an answer text naming another option."""
    choices = item.choices or {}
    golds = sorted(set(item.answers))
    if len(golds) > 1 and not item.meta.get("multi_select"):
        texts = {option_key(choices[g]) for g in golds if g in choices}
        if len(texts) > 1:
            return "several_mc_golds", golds
    by_text = {option_key(text): letter for letter, text in choices.items()}
    for key in ANSWER_TEXT_KEYS:
        value = item.meta.get(key)
        if not isinstance(value, str) or not value.strip() or value.strip() in choices:
            continue
        prefixed = _LETTER_PREFIX.match(value.strip())
        if prefixed and prefixed.group(1) in choices:
            letter, text = prefixed.groups()
            if letter not in golds:
                return "answer_text_mismatch", [f"meta.{key}={value}", f"gold {golds}"]
            if option_key(text) != option_key(choices[letter]):
                return "answer_text_mismatch", [f"meta.{key}={value}",
                                                f"option {letter}={choices[letter]}"]
            continue
        named = by_text.get(option_key(value))
        if named is not None and named not in golds:
            return "answer_text_mismatch", [f"meta.{key}={value} (option {named})",
                                            f"gold {golds}"]
    return None


def _within_item(item: Item) -> tuple[str, list[str]] | None:
    if item.task == "checklist":
        conflict = _checklist_conflict(item)
        return ("checklist_twins", conflict) if conflict else None
    if exempt(item):  # VQA accuracy or several accepted answers: golds may disagree
        return _mc_conflict(item) if item.task == "mc" else None
    conflict = _yes_no_conflict(item.answers)
    if conflict:
        return "yes_and_no", conflict
    if item.task == "numeric":
        conflict = number_conflict(item.answers, item)
        if conflict:
            return "different_numbers", conflict
    if item.task == "mc":
        return _mc_conflict(item)
    return None


# --- inconsistent answers: across items ----------------------------------------------------

_NEGATION_EN = re.compile(r"\b(?:not|no|n't|never)\b|n't\b", re.IGNORECASE)
_NEGATION_ZH = re.compile(r"不|没有?|非")
_CONTRACTIONS = {"isn't": "is", "aren't": "are", "doesn't": "does", "don't": "do",
                 "didn't": "did", "wasn't": "was", "weren't": "were", "can't": "can",
                 "hasn't": "has", "haven't": "have", "won't": "will"}


def _gold_key(item: Item) -> str:
    if item.task == "checklist":
        return "|".join(f"{c.name}={c.answer}" for c in item.checks or [])
    return "|".join(sorted(normalize_for_match(a) for a in item.answers))


def _image_key(item: Item) -> str:
    return "|".join(item.images)


def _question_key(item: Item) -> str:
    options = "|".join(f"{k}={option_key(v)}" for k, v in sorted((item.choices or {}).items()))
    return f"{normalize_for_audit(item.question)}#{options}"


def strip_negation(question: str) -> tuple[str, bool]:
    """(the question without its negation, whether it had one) — for pairing a yes/no
    question with its negated variant.

    >>> strip_negation("Isn't the cat on the mat?"), strip_negation("猫不在垫子上吗？")
    (('is the cat on the mat', True), ('猫在垫子上吗', True))
    """
    text = question.lower().replace("’", "'")
    for short, full in _CONTRACTIONS.items():
        text = re.sub(rf"\b{re.escape(short)}", full, text)
    stripped = _NEGATION_EN.sub(" ", text)
    stripped = _NEGATION_ZH.sub("", stripped)
    out = normalize_for_audit(stripped)
    return out, out != normalize_for_audit(question)


def _constant_gold(group: Sequence[Item], share: float) -> tuple[str, int] | None:
    """(the gold, its count) when one gold covers ≥ `share` of the group's items, else None.

    >>> from bench_kit.types import Item
    >>> rows = [Item(id=f"i{k}", task="yesno", answers=["yes" if k else "no"], capability="c",
    ...              layer="perception", difficulty="easy", question="Is there a cat?",
    ...              created_at="2026-11-01T00:00:00Z") for k in range(10)]
    >>> _constant_gold(rows, 0.9), _constant_gold(rows, 0.95)
    (('yes', 9), None)
    """
    counts: dict[str, int] = defaultdict(int)
    for item in group:
        counts[_gold_key(item)] += 1
    gold, count = max(counts.items(), key=lambda kv: (kv[1], kv[0]))
    return (gold, count) if count >= share * len(group) else None


def _related(a: Item, b: Item) -> bool:
    return a.variant_of == b.id or b.variant_of == a.id or (
        a.variant_of is not None and a.variant_of == b.variant_of)


def _across_items(items: Sequence[Item]) -> dict[str, tuple[str, list[str]]]:
    """Item id -> (kind, span) for conflicts between items that share an image."""
    out: dict[str, tuple[str, list[str]]] = {}
    same_question: dict[tuple[str, str], list[Item]] = defaultdict(list)
    for item in items:
        if item.images:
            same_question[(_image_key(item), _question_key(item))].append(item)
    for group in same_question.values():
        for item in group:
            others = [o for o in group if _gold_key(o) != _gold_key(item)]
            if others:
                out[item.id] = ("same_question_different_gold",
                                [f"{item.id}: {_gold_key(item)}",
                                 f"{others[0].id}: {_gold_key(others[0])}"])
    negation: dict[tuple[str, str], list[tuple[Item, bool]]] = defaultdict(list)
    for item in items:
        if item.task == "yesno" and item.images:
            core, is_negated = strip_negation(item.question)
            negation[(_image_key(item), core)].append((item, is_negated))
    for tagged in negation.values():
        plain = [i for i, neg in tagged if not neg]
        negated = [i for i, neg in tagged if neg]
        for a in plain:
            for b in negated:
                if _gold_key(a) == _gold_key(b):
                    span = [a.question, b.question]
                    out.setdefault(a.id, ("negation_same_gold", span))
                    out.setdefault(b.id, ("negation_same_gold", span))
    return out


@check("label.inconsistent_answers", severity="error")
def inconsistent_answers(ctx: AuditContext, params: NoParams, spec: CheckSpec) -> Iterator[Finding]:
    """Golds that cannot all be right, in one item or across items on the same image."""
    across = _across_items(ctx.items)
    for item in ctx.items:
        found = _within_item(item) or across.get(item.id)
        if not found:
            continue
        kind, span = found
        if kind == "checklist_twins":
            yield spec.finding(item.id, f"check '{span[0]}' is answered {span[1]}",
                               {"field": "checks", "kind": kind, "span": span[0]})
            continue
        field = "meta" if kind == "answer_text_mismatch" else "answers"
        shown = " vs ".join(f"'{value}'" for value in span)   # every gold, not the first two
        yield spec.finding(item.id, f"{kind.replace('_', ' ')}: {shown}",
                           {"field": field, "kind": kind, "span": span,
                            "answers": list(item.answers)})


# --- redundancy: repeated question ---------------------------------------------------------


class RepeatedQuestionParams(CheckParams):
    """Settings of redundancy.repeated_question."""

    repeated_question_items: int = Field(20, ge=2)
    repeated_question_share: float = Field(0.05, gt=0.0, le=1.0)
    repeated_question_gold_share: float = Field(0.9, gt=0.5, le=1.0)


@check("redundancy.repeated_question", severity="warn", params=RepeatedQuestionParams)
def repeated_question(ctx: AuditContext, params: RepeatedQuestionParams, spec: CheckSpec) -> Iterator[Finding]:
    """One question repeated on many items, or twice on one image with the same gold.

    Many = ≥ `repeated_question_items` items that are ≥ `repeated_question_share` of the file.
    Many items with no image are a copy error (warn); many items on different images are
    info when one gold covers ≥ `repeated_question_gold_share` of them, else template
    siblings (no finding)."""
    groups: dict[str, list[Item]] = defaultdict(list)
    for item in ctx.items:
        groups[_question_key(item)].append(item)
    total = max(len(ctx.items), 1)
    for group in groups.values():
        many = (len(group) >= params.repeated_question_items
                and len(group) / total >= params.repeated_question_share)
        constant = _constant_gold(group, params.repeated_question_gold_share) if many else None
        if many and any(item.images for item in group) and constant is None:
            many = False  # a template asked of many images, its golds varied: siblings
        copies: dict[tuple[str, str], list[Item]] = defaultdict(list)
        for item in group:
            if item.images:
                copies[(_image_key(item), _gold_key(item))].append(item)
        for item in group:
            twins = [i for i in copies.get((_image_key(item), _gold_key(item)), [])
                     if i.id != item.id and not _related(i, item)] if item.images else []
            if not (many or twins):
                continue
            kind = "same_image_copy" if twins else "repeated_across_items"
            message = (f"the same question, image and gold as {twins[0].id}" if twins else
                       f"the same question in {len(group)} items "
                       f"({len(group) / total:.0%} of the file)")
            severity: Severity | None = None
            if not twins and item.images and constant is not None:
                # info: a second reader judged POPE's "Is there a person …?" (yes on 21 of
                # 22 images) a trait of its design, nothing to fix item by item; the model
                # audit's answer prior measures what the skew is worth (docs/AUDITS.md)
                gold, count = constant
                severity = "info"
                message += (f", gold '{gold}' on {count} of them: see the model audit's "
                            "answer prior for what a blind answer scores")
            yield spec.finding(item.id, message,
                               {"field": "question", "kind": kind, "span": item.question,
                                "items": len(group), "share": round(len(group) / total, 4),
                                "examples": sorted(i.id for i in (twins or group))[:5]},
                               severity=severity,
                               score=None if severity else
                               min(1.0, len(group) / total + (0.5 if twins else 0.0)))
