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
# ... a negative verdict right after a run: the run is ruled out, not stated ("(1)(3)不正确")
_RULED_OUT_AFTER = re.compile(r"\s?(?:都|均|也|是|为)?\s?(?:错误|不正确|不对|错|排除)")


def as_circled(text: str, choices: Mapping[str, str]) -> str:
    """`text` with each run of two or more bracketed statement numbers ("(1) (2)") written
    as circled numbers ("①②") when every option is a set of circled statement numbers, but
    not a run that a negative verdict follows ("(1)(2) 都错误"); `text` itself otherwise."""
    if "(" not in text and "（" not in text:
        return text
    if not choices or _BRACKETED_RUN.search(text) is None or not all(
            _STATEMENT_SET.fullmatch(str(value).replace(" ", "")) for value in choices.values()):
        return text
    return _BRACKETED_RUN.sub(lambda run: run.group() if _RULED_OUT_AFTER.match(text, run.end())
                              else "".join(_CIRCLED[int(number) - 1]
                                           for number in _BRACKETED.findall(run.group())), text)
