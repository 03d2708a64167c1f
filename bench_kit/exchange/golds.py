"""Golds as benchmarks write them, typed over the whole file before rows become items.

A single row cannot tell whether `1` is a count or "yes", or whether `1` is the first or the
second option; the file can. `type_golds` looks at every mapped row once and rewrites golds
and questions (options written inside the prompt, option indexes, 1/0 yes/no golds), and
says what it decided, one line per decision, with the option that overrides it.
"""

from __future__ import annotations

import re
from collections import Counter
from typing import Any

from bench_kit.errors import InputError, param
from bench_kit.types import LETTERS

_BOOL_GOLDS = {"1": "yes", "0": "no", "true": "yes", "false": "no", "yes": "yes", "no": "no"}
_COUNT_QUESTION = re.compile(r"\b(how many|how much|what number|count the|number of)\b", re.I)
_YESNO_START = re.compile(
    r"^\s*(is|are|was|were|do|does|did|can|could|will|would|should|has|have|had|may|might|"
    r"must|shall|am|isn't|aren't|doesn't|don't)\b", re.I)
_OPTION_LINE = re.compile(r"^\s*\(?([A-J])[.):]\s+(\S.*?)\s*$")
_INLINE_OPTION = re.compile(r"\(([A-J])\)\s*")
_LETTER_GOLD = re.compile(r"^\s*\(?([A-J])[).]?\s*$")
TASK_RULES = {"mc": "options given", "yesno": "golds yes/no", "numeric": "golds are numbers",
              "open": "golds are text", "grounding": "golds are boxes",
              "checklist": "checks given"}


def _gold(row: dict[str, Any]) -> Any:
    value = row.get("answers")
    if isinstance(value, list) and len(value) == 1:
        return value[0]
    return row.get("answer") if value in (None, "", []) else None


def _set_gold(row: dict[str, Any], gold: str) -> None:
    row.pop("answers", None)
    row["answer"] = gold


def _options(row: dict[str, Any]) -> Any:
    """The row's `choices` (or `options`) value as the source wrote it."""
    return row.get("choices") if row.get("choices") not in (None, "", []) \
        else row.get("options")


def _has_options(row: dict[str, Any]) -> bool:
    return any(row.get(k) not in (None, "", []) for k in ("choices", "options")) or \
        any(row.get(k) not in (None, "") and row.get(k) == row.get(k) for k in LETTERS if k in row)


def _plain(rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Rows without options, checks or a task already decided."""
    return [r for r in rows if not _has_options(r) and not r.get("checks")
            and not r.get("checklist") and not r.get("_task")]


def options_in_prompt(question: str) -> tuple[str, dict[str, str]] | None:
    """(stem, {letter: text}) when `question` writes its options as `A. …` / `A) …` /
    `(A) …` lines or inline `(A) … (B) …`, lettered from A in order; else None."""
    lines = question.splitlines()
    found: dict[str, str] = {}
    first = None
    for n, line in enumerate(lines):
        match = _OPTION_LINE.match(line)
        if match and match.group(1) == LETTERS[len(found)]:
            first = n if first is None else first
            found[match.group(1)] = match.group(2)
        elif found and line.strip():
            break
    if len(found) >= 2:
        return "\n".join(lines[:first]).strip(), found
    parts = _INLINE_OPTION.split(question)
    letters = parts[1::2]
    if len(letters) >= 2 and letters == list(LETTERS[:len(letters)]):
        return parts[0].strip(), {k: v.strip() for k, v in zip(letters, parts[2::2])}
    return None


def _letter_golds_in_prompt(rows: list[dict[str, Any]], decisions: list[str]) -> None:
    parsed = 0
    for row in rows:
        gold = _gold(row)
        match = _LETTER_GOLD.match(str(gold)) if isinstance(gold, str) else None
        if not match or _has_options(row) or not isinstance(row.get("question"), str):
            continue
        found = options_in_prompt(row["question"])
        if found and match.group(1) in found[1] and found[0]:
            row["question"], row["choices"] = found[0], found[1]
            _set_gold(row, match.group(1))
            row["_rule"] = "letter golds, options written in the question parsed into choices"
            parsed += 1
    if parsed:
        decisions.append(f"warning: {parsed} mc: letter golds with options written in the "
                         "question (A. … lines); the options became choices and the question "
                         f"keeps the text before them — pass {param('task', 'open')} to keep the "
                         "prompt whole")


def _index_golds(rows: list[dict[str, Any]], gold_index: int | None,
                 decisions: list[str]) -> None:
    indexed = []
    for row in rows:
        options = _options(row)
        gold = _gold(row)
        if not isinstance(options, list) or isinstance(gold, bool) or gold is None:
            continue
        text = str(gold).strip()
        if not re.fullmatch(r"\d+", text) or text in [str(o).strip() for o in options]:
            continue
        indexed.append((row, int(text), len(options)))
    if not indexed:
        return
    rule = param("gold_index")
    if gold_index is None:
        if any(g == 0 for _, g, _ in indexed):
            gold_index, rule = 0, "some gold is 0"
        elif any(g == n for _, g, n in indexed):
            gold_index, rule = 1, "some gold equals its option count"
        else:
            raise InputError(f"{len(indexed)} golds are option numbers, but no gold is 0 and "
                             "none equals its option count, so the file does not say whether "
                             f"they count from 0 or 1: pass {param('gold_index', 0)} or "
                             f"{param('gold_index', 1)}")
    for row, gold, n in indexed:
        position = gold - gold_index
        if 0 <= position < n:
            _set_gold(row, LETTERS[position])
            row["_rule"] = f"golds are option indexes, {gold_index}-based"
    decisions.append(f"{len(indexed)} mc golds are option indexes, read {gold_index}-based "
                     f"({rule}) — pass {param('gold_index', 1 - gold_index)} if they count from "
                     f"{1 - gold_index}")


def _text_golds(rows: list[dict[str, Any]], decisions: list[str]) -> None:
    """Count the golds written as an option's text (mapped to letters by `parse_answers`)."""
    count = 0
    for row in rows:
        options = _options(row)
        if isinstance(options, list):
            options = dict(zip(LETTERS, options))
        if not isinstance(options, dict):
            continue
        gold = _gold(row)
        texts, letters = [str(o).strip() for o in options.values()], set(options)
        if isinstance(gold, str) and gold.strip() in texts and gold.strip() not in letters:
            row["_rule"] = "golds are option text, mapped to letters"
            count += 1
    if count:
        decisions.append(f"{count} mc golds are option text, mapped to their letters")


def _bool_golds(rows: list[dict[str, Any]], decisions: list[str]) -> None:
    plain = _plain(rows)
    golds = [_gold(r) for r in plain]
    texts = [str(g).strip().lower() if not isinstance(g, bool) else str(g).lower()
             for g in golds]
    if not plain or not all(t in _BOOL_GOLDS for t in texts):
        return
    if all(t in ("yes", "no") for t in texts):
        return       # plain yes/no golds: yesno without a rule to print
    spelled = "/".join(sorted({str(g) for g in golds}, reverse=True))
    yesno = counts = 0
    for row, text in zip(plain, texts):
        question = str(row.get("question") or "")
        if _COUNT_QUESTION.search(question):
            counts += 1
            continue
        if _YESNO_START.match(question) or not question.rstrip().endswith("?"):
            _set_gold(row, _BOOL_GOLDS[text])
            row["_task"] = "yesno"
            row["_rule"] = f"golds {spelled}, no options, yes/no questions or statements"
            yesno += 1
    if yesno:
        decisions.append(f"warning: {yesno} yesno: golds {spelled}, no options, yes/no "
                         "questions or statements — pass "
                         f"{param('task', 'numeric')} if these are counts")
    if counts:
        decisions.append(f"{counts} numeric: golds {spelled} but 'how many' questions")


_WITH_UNIT = re.compile(r"^\s*(?P<number>[-+$€£]?[\d.,]*\d)\s*(?P<unit>[A-Za-zµ°]{1,5}\.?)\s*$")


def _unit_golds(rows: list[dict[str, Any]], decisions: list[str]) -> None:
    """Golds written with a unit (`6 cm`, `1000 g`) in a file whose plain golds are all
    numbers: numeric items scored on the number; the written gold kept in meta.source."""
    from bench_kit.text.numbers import parse_number

    plain = _plain(rows)
    texts = [str(_gold(r)).strip() for r in plain]
    split = [_WITH_UNIT.match(t) for t in texts]
    numbers = [parse_number(m.group("number")) if m else parse_number(t)
               for m, t in zip(split, texts)]
    if not plain or any(n is None for n in numbers) or not any(split):
        return
    converted = 0
    for row, match, number, text in zip(plain, split, numbers, texts):
        if match and number is not None:
            row["answer_as_written"] = text
            _set_gold(row, match.group("number").lstrip("+$€£").replace(",", ""))
            row["_rule"] = "golds are numbers with units (the number is scored)"
            converted += 1
    decisions.append(f"warning: {converted} numeric: golds written with a unit ('{texts[0]}'"
                     "…); the number is the gold, the written form kept as "
                     f"meta.source.answer_as_written — pass {param('task', 'open')} to score the "
                     "text")


def type_golds(rows: list[dict[str, Any]], gold_index: int | None = None,
               task: str | None = None) -> list[str]:
    """Rewrite the golds of mapped rows in place; return one line per decision.

    Raises InputError when option-index golds do not say whether they count from 0 or 1.
    """
    decisions: list[str] = []
    if task:
        decisions.append(f"task: {task} for every row ({param('task')})")
    if task in (None, "mc"):
        _letter_golds_in_prompt(rows, decisions)
        _index_golds(rows, gold_index, decisions)
        _text_golds(rows, decisions)
    if task is None:
        _bool_golds(rows, decisions)
        _unit_golds(rows, decisions)
    return decisions


def task_lines(rules: Counter) -> list[str]:
    """`N TASK: RULE` for each (task, rule) the import used, most common first."""
    return [f"{n} {task}: {rule}" for (task, rule), n in rules.most_common()]
