"""The LLM judge's prompt and its strict verdict parser.

A rubric is free text. Lines shaped `name: criterion` (optionally bulleted) are its
dimensions, each judged on its own; a rubric without such lines is one dimension,
`correctness`. The judge must answer one line per dimension, `<name>: pass|fail - <reason>`.
A reply that misses a dimension, gives one two different verdicts, or uses another word
than pass/fail does not parse: the item is `parse=failed`, never silently right or wrong.
"""

from __future__ import annotations

import hashlib
import re
from typing import Mapping, Sequence

from bench_kit.scoring.extract.response import strip_reasoning
from bench_kit.types import Item

JUDGE_PROMPT_VERSION = "judge/1"
DEFAULT_DIMENSION = "correctness"

JUDGE_TEMPLATE = """You are grading a model's answer to a question about an image. You do \
not see the image: judge the answer only against the reference answer and the rubric.

Question: {question}
Reference answer: {reference}
Model answer: {response}

Rubric:
{rubric}

Reply with exactly one line per dimension below, in this form and nothing else:
<dimension>: pass|fail - <one-line reason>
Dimensions: {dimensions}"""

_DIMENSION_LINE = re.compile(r"^\s*(?:[-*•]\s*)?([A-Za-z][A-Za-z0-9 _-]{0,39}?)\s*:\s*(\S.*)$")
_VERDICT_LINE = re.compile(
    r"^\s*(?:[-*•]\s*)?(?:\*\*)?([A-Za-z][A-Za-z0-9 _-]{0,39}?)(?:\*\*)?\s*:\s*(?:\*\*)?"
    r"([A-Za-z]+)(?:\*\*)?(?:\s*(?:[-–—:]\s*)?(.*))?$")
_PASS_FAIL = {"pass": True, "fail": False}


def dimension_name(text: str) -> str:
    """A dimension's canonical name: lower case, words joined by `_`.

    >>> dimension_name("Visual Grounding")
    'visual_grounding'
    """
    return "_".join(text.lower().replace("-", " ").split())


def rubric_dimensions(rubric: str) -> list[tuple[str, str]]:
    """(name, criterion) per dimension of `rubric`, in order.

    >>> rubric_dimensions("- accuracy: names the right colour\\n- brevity: one word")
    [('accuracy', 'names the right colour'), ('brevity', 'one word')]
    >>> rubric_dimensions("The answer must name the colour red.")
    [('correctness', 'The answer must name the colour red.')]

    Raises:
        ValueError: two dimensions with the same name.
    """
    found: list[tuple[str, str]] = []
    for line in rubric.splitlines():
        match = _DIMENSION_LINE.match(line)
        if match:
            found.append((dimension_name(match.group(1)), match.group(2).strip()))
    if not found:
        return [(DEFAULT_DIMENSION, " ".join(rubric.split()))]
    names = [name for name, _ in found]
    duplicate = next((n for n in names if names.count(n) > 1), None)
    if duplicate:
        raise ValueError(f"rubric names dimension '{duplicate}' twice")
    return found


def find_rubric(item: Item, rubrics: Mapping[str, str]) -> str | None:
    """The item's own `rubric`, else the rubric of its capability or the longest dotted
    prefix of it (`perception` covers `perception.count`), else None (not judged)."""
    if item.rubric and item.rubric.strip():
        return item.rubric
    parts = item.capability.split(".")
    for end in range(len(parts), 0, -1):
        rubric = rubrics.get(".".join(parts[:end]))
        if rubric:
            return rubric
    return None


def rubric_sha(rubric: str) -> str:
    """Short content hash of a rubric (first 12 hex digits of sha256)."""
    return hashlib.sha256(rubric.encode("utf-8")).hexdigest()[:12]


def reference_text(item: Item) -> str:
    """The gold answer(s) as the judge sees them (mc letters with their option text)."""
    if not item.answers:
        return "(none given: judge by the rubric)"
    if item.choices:
        return " | ".join(f"{a} ({item.choices[a]})" if a in item.choices else a
                          for a in item.answers)
    return " | ".join(item.answers)


def judge_prompt(item: Item, response: str, rubric: str) -> tuple[str, list[str]]:
    """The judge prompt for one response and the dimension names it asks about.

    The response's reasoning block is left out: the judge grades the answer given.

    Raises:
        ValueError: a rubric naming a dimension twice.
    """
    dimensions = rubric_dimensions(rubric)
    names = [name for name, _ in dimensions]
    rubric_lines = "\n".join(f"- {name}: {criterion}" for name, criterion in dimensions)
    text = JUDGE_TEMPLATE.format(question=item.question.strip(),
                                 reference=reference_text(item),
                                 response=strip_reasoning(response).strip() or "(empty)",
                                 rubric=rubric_lines, dimensions=", ".join(names))
    return text, names


def parse_verdicts(reply: str, dimensions: Sequence[str]) -> dict[str, tuple[bool, str]] | None:
    """Each dimension's (passed, reason) from a judge reply, or None if it does not parse.

    Lines about other things are ignored; a dimension missing, judged twice differently, or
    given a word other than pass/fail makes the whole reply unparseable.

    >>> parse_verdicts("correctness: pass - says red", ["correctness"])
    {'correctness': (True, 'says red')}
    >>> parse_verdicts("correctness: probably", ["correctness"]) is None
    True
    """
    wanted = set(dimensions)
    found: dict[str, tuple[bool, str]] = {}
    for line in strip_reasoning(reply).splitlines():
        match = _VERDICT_LINE.match(line)
        if not match:
            continue
        name = dimension_name(match.group(1))
        if name not in wanted:
            continue
        word = match.group(2).lower()
        if word not in _PASS_FAIL:
            return None
        verdict = (_PASS_FAIL[word], " ".join((match.group(3) or "").split()))
        if name in found and found[name][0] != verdict[0]:
            return None
        found.setdefault(name, verdict)
    if set(found) != wanted:
        return None
    return {name: found[name] for name in dimensions}
