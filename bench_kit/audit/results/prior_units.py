"""The units of an answer prior: which items share an answer distribution.

A blind guesser that learns the answers of a benchmark learns them per *template*, not per
capability: "Is the trait inherited or acquired?" items share a prior whatever capability
they are filed under. The units (docs/MODEL_AUDITS.md, "Answer priors"):

- generated items (`source: template:<name>`): their template;
- imported items (`source: import:<format>`): each skill/category field the source carried
  (`prior_group_fields`, read from `meta` or `meta.source`), and the question pattern —
  the first line of the question with quoted text, numbers and names masked, so "Which
  figure of speech is used in this text?" is one pattern and "Which of these states is
  farthest north?" another;
- hand-written items: capability × task.

Every unit is also split by task (a yes/no and an mc item never share a prior). The gold is
compared as answer *text* (an mc gold is its option text, not its letter), so options in
another order change nothing.
"""

from __future__ import annotations

import re
from typing import Sequence

from bench_kit.text.normalize import normalize_for_audit
from bench_kit.types import Item

_QUOTED = re.compile(r"\"[^\"]*\"|“[^”]*”|‘[^’]*’|'[^']{2,}'|«[^»]*»")
_NUMBER = re.compile(r"[-+]?\d+(?:[.,]\d+)*(?:\s*%|°)?")
# a capitalised word that does not start the stem or follow sentence punctuation
_NAME = re.compile(r"(?<=[^\s.!?:]\s)[A-Z][\w'’-]*")
_PLACEHOLDERS = ("zzquote", "zznum", "zzname")


def question_pattern(question: str) -> str:
    """The stem of a question with quoted text, numbers and names masked.

    >>> question_pattern("Identify the question that Tom and Justin's experiment can best answer.")
    'identify the question that <name> and <name> experiment can best answer'
    >>> question_pattern('Which word does not rhyme?\\nbite, kite, "fin"')
    'which word does not rhyme'
    >>> question_pattern("How many of the 12 cubes are red?")
    'how many of the <num> cubes are red'
    """
    stem = question.strip().split("\n", 1)[0]
    stem = _QUOTED.sub(" zzquote ", stem)
    stem = _NUMBER.sub(" zznum ", stem)
    stem = _NAME.sub(" zzname ", stem)
    # placeholders as plain words survive normalisation; shown as <quote>, <num>, <name>
    return " ".join(f"<{w[2:]}>" if w in _PLACEHOLDERS else w
                    for w in normalize_for_audit(stem).split())


def gold_text(item: Item) -> str:
    """The item's first gold as normalised answer text (mc: the gold option's text)."""
    if not item.answers:
        return ""
    gold = item.answers[0]
    if item.task == "mc" and item.choices and gold in item.choices:
        gold = item.choices[gold]
    return normalize_for_audit(gold)


def _source_field(item: Item, name: str) -> str | None:
    meta = item.meta or {}
    nested = meta.get("source")
    for where in (nested if isinstance(nested, dict) else {}, meta):
        value = where.get(name)
        if isinstance(value, (str, int)) and str(value).strip():
            return str(value).strip()
    return None


def prior_units(item: Item, fields: Sequence[str]) -> list[str]:
    """The answer groups of one item, each ending in `|<task>`."""
    if item.source.startswith("template:"):
        return [f"{item.source}|{item.task}"]
    if not item.source.startswith("import:"):
        return [f"{item.capability}|{item.task}"]
    units = [f"{name}:{value}|{item.task}" for name in fields
             if (value := _source_field(item, name)) is not None]
    units.append(f"pattern:{question_pattern(item.question)}|{item.task}")
    return units
