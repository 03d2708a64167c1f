"""The part of a model response that answers, and whether it stops before answering
(docs/METRICS.md#numbers): read up to where the response goes on with its prompt's next
question or worked example, grades its own answer or closes, and without the cut-off last
repetition of an answer line it loops on; cut off when it stops on ":", "=", ",", an open
bracket or display, mid-sentence or mid-number after a long text, or in a loop to its token
limit. Used by the `numeric` extractor and the `mmmu_open` match."""

from __future__ import annotations

import re

from bench_kit.scoring.extract.continuation import NEXT_EXAMPLE
from bench_kit.scoring.extract.prose_letters import _CONCLUDES as CONCLUDES
from bench_kit.scoring.extract.response import (
    ANSWER_CLAUSE,
    CONTINUATION,
    clause_tail_at,
    final_answer_line,
    may_have_clause,
    sentence_start,
)
from bench_kit.text.numbers import NumberToken, number_tokens

# Where a response stops answering: a closing pleasantry, an explanation of an answer
# already given, a table or list offered after it.
_CLOSING = re.compile(
    r"(?:^|\n|(?<=[.!?])[ \t]+)(?:I\s+hope\s+this|Is\s+there\s+anything\s+else|Let\s+me\s+know"
    r"|Explanation\s*:|This\s+is\s+because\b|Here(?:\s+is|'s)\s+(?:a|the)\s+(?:table|list"
    r"|breakdown|summary)|Here(?:\s+is|'s)\s+how\s+I\s+got)", re.I)
# A base model prompted with worked examples goes on after its answer: with the prompt's next
# example (`NEXT_EXAMPLE`: "…The answer is 0.31\n\nProblem:\n…") or by grading itself ("The
# answer is 42.\nThis answer is correct.\nThis answer is wrong.…"); neither is its answer.
_GRADES_ITSELF = re.compile(r"\n[ \t#*]*This[ \t]+answer[ \t]+is[ \t]+(?:correct|wrong|incorrect)\b")
# Cut off mid-expression: the response ends on ":", "=", "," or an open bracket.
_CUT_OFF = frozenset(":=,([{\\")
_LONG = 400  # a response this long that stops mid-sentence was cut by its token limit
_LIST_NUMBER_END = re.compile(r"\n[ \t]*\d{1,3}\.$")
_TOKEN_LIMIT = 1000  # a response this long that ends on no closing punctuation was cut off
_LOOP_REACH, _LOOP_MIN = 600, 60  # how far back a loop is looked for; its shortest span


def answer_part(text: str) -> str:
    """A cleaned response up to where it goes on with a new question of its prompt or
    closes ("I hope this helps", "Here is a table …"), when a number comes before that."""
    return answer_part_tokens(text)[0]


def answer_part_tokens(text: str, closing: bool = True) -> tuple[str, list[NumberToken] | None]:
    """The response up to a new question or worked example of its prompt, a grading of its
    own answer or a closing section (when a number comes before it), and without the cut-off
    last repetition of an answer line it loops on; its numbers when they had to be read
    (else None); `closing=False`: not cut at a closing section."""
    found = None
    for pattern in (CONTINUATION, NEXT_EXAMPLE, _GRADES_ITSELF, _CLOSING)[:4 if closing else 3]:
        cut = pattern.search(text, 1)
        if cut is None:
            continue
        if found is None:
            found = number_tokens(text)
        if found and found[0].end <= cut.start() and not (
                pattern is _CLOSING and _answers_after(text, cut.end())):
            text = text[:cut.start()].rstrip()
            found = [token for token in found if token.end <= cut.start()]
    end = _repeated_clause_end(text)
    if end < len(text):
        text = text[:end].rstrip()
        found = None if found is None else [t for t in found if t.end <= end]
    return text, found


def _answers_after(text: str, at: int) -> bool:
    """Whether the response states an answer clause after the line of a closing that starts
    at `at`: an explanation in the middle of the working ("This is because …", then "The
    answer is 6."), not a closing."""
    line_end = text.find("\n", at)
    return line_end >= 0 and clause_tail_at(text[line_end:]) is not None


def _repeated_clause_end(text: str) -> int:
    """Where a response that loops to its token limit on an answer line ("The answer is
    28900.\nThe answer is 28900.\nThe answer is 28") stops stating it whole: before its
    last sentence when that holds an answer clause (cut off); else its end."""
    if not may_have_clause(text[-_LOOP_REACH:]) or not looping(text):
        return len(text)
    start = sentence_start(text, len(text))
    return start if start and ANSWER_CLAUSE.search(text, start) else len(text)


def cut_off(text: str) -> bool:
    """Whether a cleaned response stops before it answers (`stops_before_answer`): on ":", "=", ","
    or an open bracket, in a loop, or mid-sentence after its last number."""
    text = text.rstrip()
    if not text:
        return False
    found = number_tokens(text)
    return stops_before_answer(text, found) if found else text[-1] in _CUT_OFF or looping(text)


def stops_before_answer(text: str, found: list[NumberToken]) -> bool:
    """Whether the response stops before an answer: on ":", "=", "," or an open bracket,
    in a loop, with a bracket of its last sentence left open ("… = 8\\left(\\frac{43"),
    or — a long response — mid-sentence after its last number ("By the Pythag")."""
    if text[-1] in _CUT_OFF or looping(text):
        return True
    start = sentence_start(text, len(text))
    if any(text.count(left, start) > text.count(right, start) for left, right in ("{}", "()")):
        return True
    if text.rfind("\\[") > text.rfind("\\]") or _LIST_NUMBER_END.search(text, len(text) - 8):
        return True  # a display math never closed, "…\n\n21." a list item never written
    if len(text) >= _LONG and text[-1].isalpha() and found[-1].end < start:
        said = sentence_start(text, found[-1].start)  # "So there are 12 birds\n\nNote: …"
        lead = text[said:found[-1].start]
        return not (CONCLUDES.match(lead) and _STATES_VALUE.search(lead))
    return len(text) >= _TOKEN_LIMIT and _unfinished(text) and final_answer_line(text) is None


def _unfinished(text: str) -> bool:
    """Whether a response ends mid-stream: on a word, a digit or an operator, with no closing
    punctuation ("… For n = 29", "… the other side is", "T(50) = 124,842", "= 0.000000…");
    not on a run of one digit other than 0 ("= 0.3333…" writes out a repeating decimal), nor
    (`stops_before_answer`) on a closing answer line ("A: 26")."""
    last = text[-1]
    if not (last.isalnum() or last in "+-*/×&"):
        return False
    run = len(text) - len(text.rstrip(last))
    return not (last in "123456789" and run > 3)


# "Therefore, the total is 12": a concluding sentence that states its number.
_STATES_VALUE = re.compile(r"(?:\b(?:is|are|was|were|equals)|=)\s*$", re.I)


def looping(text: str) -> bool:
    """Whether `text` ends by repeating one stretch (at least 3 times, over at least
    `_LOOP_MIN` characters): a model stuck in a loop until its token limit. Only the
    periods at which the last 8 characters recur are tried."""
    tail = text[-_LOOP_REACH:]
    size = len(tail)
    if size < _LOOP_MIN:
        return False
    probe = tail[-8:]
    found = tail.rfind(probe, 0, size - 1)
    while found >= 0:
        period = size - 8 - found
        span = max(3 * period, _LOOP_MIN)
        if span > size:
            return False
        if tail[size - span + period:] == tail[size - span:size - period]:
            return not tail[-period:].isdigit()  # "5.3333…" repeats a digit: a decimal
        found = tail.rfind(probe, 0, found + 7)
    return False
