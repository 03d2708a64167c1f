"""Whether a response to a numeric question says it cannot answer (`refuses`): a shared
refusal (`bench_kit.scoring.extract.response.last_refusal`: "cannot be determined without the
data") or a value it says it cannot give ("is undefined", "this problem can't be solved",
"there must be an error in the problem"), with no estimate offered after it ("However, it is
about 12"). Read by `bench_kit.scoring.extract.prose_number` and `mmmu_open`.
"""

from __future__ import annotations

import re

from bench_kit.scoring.extract.no_answer import last_refusal

_ESTIMATE = re.compile(r"\bestimat|\bbut\s+(?:it|this|that)(?:\s+is|'s|\s+looks\s+like|\s+seems(?:\s+to\s+be)?"
                       r"|\s+appears\s+to\s+be)\s+(?:about|approximately|roughly|around)\b", re.I)
# A value the response says it cannot give (beyond the shared refusals): "is undefined",
# "this problem can't be solved", "there must be an error in the problem".
_NO_VALUE = re.compile(
    r"\b(?:is|are|remains?)\s+(?:undefined|unknown|indeterminate)\b|:\s*undefined\b"
    r"|\b(?:can't|cannot|can\s+not)\s+(?:be\s+)?(?:calculated?|solved?|computed?|found)\b"
    r"|\bno\s+valid\s+(?:answer|solution)|\berror\s+in\s+the\s+(?:problem|question)"
    r"|\bthere is no (?:possible\s+|correct\s+)?answer\s+to\s+this\s+question\b"
    r"|\binformation\s+(?:provided\s+)?(?:is|are)\s+contradictory\b"
    r"|\b(?:did\s+not|didn't)\s+provide\s+(?:a|the|any)\s+(?:picture|image|figure|diagram)"
    r"|\b(?:difficult|hard|impossible)\s+to\s+(?:provide|give)\s+an?\s+(?:definite|exact)"
    r"|无法(?:直接)?(?:得出|求出|求解|计算|给出)|不能确定|无解", re.I)
# "There is no information about 1990, so the value at 1995 is 42.", "There is no solution in
# integers; the real solution is 2.5.": a value stated in a later clause of the refusal's
# sentence; the refusal is about something else.
_STATED_AFTER = re.compile(r"[;,][ \t]*(?:(?:so|but|however|thus|and)[ \t]*,?[ \t]*)?"
                           r"(?:the(?:[ \t]+[\w-]+){1,5}|it)[ \t]+(?:is|are|was|were)[ \t]+"
                           r"(?:(?:approximately|about|around|roughly)[ \t]+)?[-+$]?\d", re.I)
# "There is no solution to the equation x^2 = -1 in real numbers.": no value, only when no
# number follows its clause (not "There is no value for 2018. In 2019 the value was 42.",
# "There is no solution for x < 0, so the only solution is x = 3.").
_NO_SOLUTION = re.compile(r"\bthere\s+is\s+no\s+(?:real\s+)?(?:solution|value)\b"
                          r"(?![^.;,\n]{0,60}\bother\s+than\b)", re.I)
_CLAUSE_END = re.compile(r"[,;:]|[.!?](?:\s|$)|\n")
_DIGIT = re.compile(r"\d")
_UNSURE = re.compile(r"not\s+sure|unsure|uncertain", re.I)
_END = re.compile(r"[.!?](?:\s|$)|\n")
_NO_VALUE_KEYS = ("undefined", "unknown", "indeterminate", "n't", "not", "valid", "error",
                  "there is no", "contradictory",
                  "provide", "give", "无法", "不能", "无解")  # every _NO_VALUE match holds one


def refuses(text: str, end: int | None = None, lowered: str | None = None,
            unsure: bool = True) -> bool:
    """Whether a cleaned response says it cannot answer — a shared refusal ("cannot be
    determined without the data") or a value it cannot give ("is undefined") — with no
    estimate offered after that (up to `end`; `lowered`: `text` lower-cased, if known).
    `unsure=False`: "not sure" / "unsure" / "uncertain" alone is no refusal."""
    lowered = text.lower() if lowered is None else lowered
    refusal = last_refusal(text)
    if refusal is not None and not unsure and _UNSURE.fullmatch(refusal.group()):
        refusal = None
    refusal = refusal or (_NO_VALUE.search(text) if any(
        key in lowered for key in _NO_VALUE_KEYS) else None)
    stop = len(text) if end is None else end
    if refusal is None and "there is no" in lowered:
        refusal = _no_solution(text)
    if refusal is None:
        return False
    return not (_ESTIMATE.search(text, refusal.end(), stop)
                or _STATED_AFTER.search(text, refusal.end(), _sentence_end(text, refusal.end())))


def _sentence_end(text: str, at: int) -> int:
    """Where the sentence going on at `at` ends (at most 300 characters on)."""
    stop = _END.search(text, at, at + 300)
    return stop.start() if stop else min(len(text), at + 300)


def _no_solution(text: str) -> re.Match[str] | None:
    """"There is no (real) solution / value …" when no number follows its clause: the
    response gives no value; else None (it goes on to one)."""
    refusal = _NO_SOLUTION.search(text)
    if refusal is None:
        return None
    clause = _CLAUSE_END.search(text, refusal.end())
    return refusal if clause is None or _DIGIT.search(text, clause.end()) is None else None
