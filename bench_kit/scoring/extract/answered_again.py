"""A response that answers, then writes a question again and answers that too ("正确答案：C<eoa>
\\n请问…\\nA:…\\nB:…\\n正确答案：D<eoa>…"), its answer clauses naming different letters: when the
question it writes again is this one — every option written out again with its own text
(`listed_options`) after the first answer — it answers one question several ways: no answer;
when the options it writes are others (a question of its own, "【单选题】…A：甲\\nB：乙…"), the
first answer is this question's (rule in `bench_kit.scoring.extract.answers`;
docs/METRICS.md#extraction)."""

from __future__ import annotations

import re
from collections.abc import Mapping

from bench_kit.scoring.extract.answer_clause import clause_matches
from bench_kit.scoring.extract.choice_clause import CHOICE_CLAUSE, CHOICE_KEYS, names_letter
from bench_kit.scoring.extract.listed_options import without_listed_options
from bench_kit.scoring.extract.response import (
    CONTINUATION,
    FAILED,
    PARSE_OK,
    Extraction,
    extraction,
)

# Options of a question written after the answer: "A:" / "A." / "(A)" heading a line, then "B"
# heading a later line (read after `clean_response`: "A：" as "A:").
_FIRST_OPTION = re.compile(r"^[ \t]*+(?:\(A\)|A[ \t]*+[:.)])[ \t]*+\S", re.M)
_SECOND_OPTION = re.compile(r"^[ \t]*+(?:\(B\)|B[ \t]*+[:.)])[ \t]*+\S", re.M)


def answered_again(text: str, choices: Mapping[str, str], options: dict[str, str]) -> Extraction[str] | None:
    """The reading of a response whose answer clauses ("答案", "answer") name different
    letters with a question written out between the first and the others: FAILED when
    this question's options are written again, the first answer when other options are;
    None for any other response (the rules read it)."""
    if text.count("答案") + text.count("nswer") < 2:
        return None  # each clause holds one of the two words: two clauses need two of them
    clauses = [found for found in clause_matches(text, CHOICE_CLAUSE, CHOICE_KEYS)
               if ("答案" in found.group(0) or "nswer" in found.group(0)) and names_letter(found)]
    if len({found.group(1).upper() for found in clauses}) < 2:
        return None
    first = clauses[0]
    after = text[first.end():clauses[-1].start()]
    if CONTINUATION.search(after):
        return None  # "…\nQuestion: …": the answer before the new question counts (`answers`)
    if without_listed_options(after, choices, options) is not after:
        return FAILED  # this question written again and answered otherwise
    start = _FIRST_OPTION.search(after)
    if start is None or _SECOND_OPTION.search(after, start.end()) is None:
        return None
    letter = first.group(1).upper()
    return extraction(options[letter], PARSE_OK) if letter in options else None
