"""Checklist answers: one verdict per check from a single response (vlmeter style).

The prompt asks for one line per check, "<number>. yes|no - <one-line reason>". A verdict
is read from, in order: numbered lines ("1. yes — …", "2) No: …", "[3] 是", "Check 4: …");
lines that start with a check's name ("red ball: yes"); and, when neither gives anything
and the response has exactly one non-empty line per check, the lines in order.
"""

from __future__ import annotations

import re
from typing import Sequence

from bench_kit.scoring.extract.answers import extract_yesno_detailed
from bench_kit.scoring.extract.response import clean_response, normalize_text

_NUMBERED = re.compile(r"^[ \t]*(?:[-*•][ \t]*)?(?:(?:check[ \t]*)?(\d{1,3})[ \t]*[.):、]|"
                       r"\[(\d{1,3})\])[ \t]*(.*)$", re.I | re.M)
_MARKS = {"pass": True, "passed": True, "fail": False, "failed": False, "✓": True, "✔": True,
          "✗": False, "✘": False, "×": False}
_FIRST_WORD = re.compile(r"\s*([^\s.,:;!\-—–]+)")


def verdict(text: str) -> bool | None:
    """One check's verdict from the text after its number: True (yes), False (no) or None.

    >>> verdict("yes - the ball is red"), verdict("FAIL: no ball"), verdict("unclear")
    (True, False, None)
    """
    first = _FIRST_WORD.match(text)
    if first and first.group(1).lower() in _MARKS:
        return _MARKS[first.group(1).lower()]
    found = extract_yesno_detailed(text).value
    return None if found is None else found == "yes"


def parse_checklist(response: str, names: Sequence[str]) -> list[bool | None]:
    """The verdict of each check (in `names` order); None where no verdict was found.

    >>> parse_checklist("1. yes - red\\n2. no - it is square", ["red ball", "round"])
    [True, False]
    """
    text = clean_response(response)
    verdicts: list[bool | None] = [None] * len(names)
    for match in _NUMBERED.finditer(text):
        index = int(match.group(1) or match.group(2)) - 1
        if 0 <= index < len(names) and verdicts[index] is None:
            verdicts[index] = verdict(match.group(3))
    lines = [normalize_text(line) for line in text.splitlines() if line.strip()]
    normalized_names = [normalize_text(name) for name in names]
    for line in lines:
        for index, name in enumerate(normalized_names):
            if verdicts[index] is None and name and (line + " ").startswith(name + " "):
                verdicts[index] = verdict(line[len(name):])
    if all(v is None for v in verdicts) and len(lines) == len(names):
        verdicts = [verdict(line) for line in lines]
    return verdicts
