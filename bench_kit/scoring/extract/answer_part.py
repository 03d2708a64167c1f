"""The part of a model response that answers (docs/METRICS.md#numbers): read up to where
the response goes on with its prompt's next question or worked example, grades its own
answer or closes, and without the cut-off last repetition of an answer line it loops on
(whether it stops before answering: `bench_kit.scoring.extract.truncation`). Used by the
`numeric` extractor and the `mmmu_open` match."""

from __future__ import annotations

import re

from bench_kit.scoring.extract.answer_clause import (
    ANSWER_CLAUSE,
    clause_tail_at,
    may_have_clause,
    sentence_start,
)
from bench_kit.scoring.extract.continuation import NEXT_EXAMPLE
from bench_kit.scoring.extract.response import CONTINUATION
from bench_kit.scoring.extract.truncation import LOOP_REACH, repeats_a_stretch
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
    if not may_have_clause(text[-LOOP_REACH:]) or not repeats_a_stretch(text):
        return len(text)
    start = sentence_start(text, len(text))
    return start if start and ANSWER_CLAUSE.search(text, start) else len(text)
