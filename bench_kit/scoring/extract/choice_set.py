"""Several option letters as one answer, for multi-answer mc items (`meta.multi_answer`:
"Which of these are mammals?" with golds A and C). The answer is the set of option letters
in the last answer clause's sentence ("The answer is A and C." -> {A, C}), else in a short
response ("A, C"); a long response without an answer clause, or one naming no option
letter, is a parse failure — never a guess."""

from __future__ import annotations

import re
from collections.abc import Mapping

from bench_kit.scoring.extract.answer_clause import clause_tail
from bench_kit.scoring.extract.response import (
    FAILED,
    PARSE_LENIENT,
    PARSE_OK,
    Extraction,
    clean_response,
)

SHORT_ANSWER = 40  # characters: a response this short may be a bare list of letters
_LETTER = re.compile(r"(?<![A-Za-z])[(\[]?([A-J])[)\]]?(?![A-Za-z])")


def extract_choice_set(response: str, choices: Mapping[str, str]
                       ) -> Extraction[tuple[str, ...]]:
    """The sorted option letters a response gives as its answer.

    >>> extract_choice_set("The answer is A and C.", {"A": "cat", "B": "car", "C": "cow"}).value
    ('A', 'C')
    >>> extract_choice_set("C, A", {"A": "cat", "B": "car", "C": "cow"}).value
    ('A', 'C')
    >>> extract_choice_set("I am not sure.", {"A": "cat", "B": "car"}).parse
    'failed'
    """
    text = clean_response(response)
    tail = clause_tail(text)
    if tail:
        span, parse = tail, PARSE_OK
    elif len(text) <= SHORT_ANSWER:
        span, parse = text, PARSE_LENIENT
    else:
        return FAILED
    letters = {m.group(1) for m in _LETTER.finditer(span) if m.group(1) in choices}
    return Extraction(tuple(sorted(letters)), parse) if letters else FAILED
