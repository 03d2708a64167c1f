"""Which number of a model response is its answer (the `numeric` extractor).

The numbers themselves are read by `bench_kit.text.numbers`; here: the last number of the
last "the answer is" clause, else the last number of the response unless the response says
it cannot answer (docs/METRICS.md#numbers).
"""

from __future__ import annotations

from bench_kit.scoring.extract.response import (
    FAILED,
    NO_ANSWER,
    PARSE_LENIENT,
    PARSE_OK,
    Extraction,
    clause_tail,
    clean_response,
)
from bench_kit.text.numbers import NumberToken, number_tokens

_CLAUSE_MARKS = frozenset(",，;；.。\n")


def answer_number(response: str) -> tuple[Extraction[float], bool]:
    """The answer number of a response and whether it was written as a percent.

    The last number of the last answer clause ("The answer is 3 + 4 = 7." -> 7) is "ok"; so
    is a lone number with at most a short unit ("12 apples", "3个"). Otherwise the last
    number of the response is taken, "lenient".
    """
    found, token, _ = answer_number_token(response)
    return found, token is not None and token.percent


def answer_number_token(response: str) -> tuple[Extraction[float], NumberToken | None, str]:
    """`answer_number` with the token read and the cleaned text it indexes, so a caller
    can see how the number was written (`text[token.start:token.end]`, e.g. "3.9 million")."""
    text = clean_response(response)
    if not text:
        return FAILED, None, text
    tail = clause_tail(text)
    if tail:
        found = number_tokens(tail)
        if found:
            return Extraction(found[-1].value, PARSE_OK), found[-1], tail
    found = number_tokens(text)
    if not found:
        return FAILED, None, text
    last = found[-1]
    rest = (text[:last.start] + " " + text[last.end:]).strip().rstrip(".。!！")
    lone = len(found) == 1 and len(rest) <= 12 and not any(ch in rest for ch in _CLAUSE_MARKS)
    if not lone and NO_ANSWER.search(text):
        return FAILED, None, text  # "cannot be determined without the data": no answer
    return Extraction(last.value, PARSE_OK if lone else PARSE_LENIENT), last, text


def extract_number_detailed(response: str) -> Extraction[float]:
    """`extract_number` with the parse path ("ok", "lenient" or "failed")."""
    return answer_number(response)[0]


def extract_number(response: str) -> float | None:
    """The answer number of a response, or None.

    >>> extract_number("Counting them, there are 1,204 birds.")
    1204.0
    >>> extract_number("答案是十二")
    12.0
    """
    return answer_number(response)[0].value
