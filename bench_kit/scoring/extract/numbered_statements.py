"""Options that are sets of numbered statements ("①②", "①③", "②④": GAOKAO-Bench's combined
choices) and a response that names the statements with bracketed numbers, "(1) (2)" or
"（1）（2）": the numbers are read as the circled ones (`as_circled`), so the option texts
match them ("(1) (2)." states "①②")."""

from __future__ import annotations

import re
from collections.abc import Mapping

_CIRCLED = "①②③④⑤⑥⑦⑧⑨"
_STATEMENT_SET = re.compile(rf"[{_CIRCLED}]+")
# A run of bracketed statement numbers, nothing but spaces or "、" between them: "(1) (2)"
_BRACKETED_RUN = re.compile(r"[(（]\s?[1-9]\s?[)）](?:[ \t、,，]{0,2}[(（]\s?[1-9]\s?[)）])+")
_BRACKETED = re.compile(r"[(（]\s?([1-9])\s?[)）]")


def as_circled(text: str, choices: Mapping[str, str]) -> str:
    """`text` with each run of two or more bracketed statement numbers ("(1) (2)") written
    as circled numbers ("①②") when every option is a set of circled statement numbers;
    `text` itself otherwise."""
    if "(" not in text and "（" not in text:
        return text
    if not choices or _BRACKETED_RUN.search(text) is None or not all(
            _STATEMENT_SET.fullmatch(str(value).replace(" ", "")) for value in choices.values()):
        return text
    return _BRACKETED_RUN.sub(lambda run: "".join(
        _CIRCLED[int(number) - 1] for number in _BRACKETED.findall(run.group())), text)
