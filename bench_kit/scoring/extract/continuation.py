"""Where a base model's response goes on past its answer (shared by the extractors): the
prompt's next worked example written after the answer (`NEXT_EXAMPLE`, `first_block`). A loop
of lines written again and again to the token limit is `truncation.line_loop_start`."""

from __future__ import annotations

import re

from bench_kit.scoring.extract.answer_clause import ANSWER_CLAUSE, may_have_clause

# A base model prompted with worked examples ("Problem: … Solution: … The answer is …") often
# goes on to write the prompt's next example after its answer ("\n\nProblem:", "Problem 2:",
# "Exercise:", "Question 3:", "### Problem:"); that block is not its answer. The one header
# pattern of the extractors (yes/no's `first_block`, the numbers' `answer_part`); each says
# when a header is such a next example: only after an answer of the response's own (a chat
# answer laid out as "Question: <the question>\nAnswer: No" keeps its only answer).
NEXT_EXAMPLE = re.compile(r"\n[ \t#*]*(?:Problem|Exercise|Question)(?:[ \t]*\d+)?[ \t]*:")
# ... and a header whose next line lists choices is the prompt written out again, not an answer
_PROMPT_ECHO = re.compile(NEXT_EXAMPLE.pattern + r"[^\n]*\n[ \t]*(?:Choices|Options)[ \t]*:")


def first_block(response: str, lead: re.Pattern | None = None) -> str:
    """The response up to the first line that opens a new worked example ("Problem:",
    "Question:") after an answer clause of its own, or after an opening bare answer (a match
    of `lead`: "No. The video shows …"), or that writes the prompt out again (a "Choices:"
    line after it); the whole response when there is none or nothing comes before it.

    >>> first_block("It converges.\\nThe answer is True\\n\\nProblem:\\nFind x.\\nThe answer is 2")
    'It converges.\\nThe answer is True'
    >>> first_block("Sure.\\nQuestion: Is the light red?\\nAnswer: Yes")
    'Sure.\\nQuestion: Is the light red?\\nAnswer: Yes'
    """
    if "\n" not in response or NEXT_EXAMPLE.search(response) is None:
        return response  # no header at all (most responses): nothing to look for
    if lead is not None and lead.match(response):
        cut = NEXT_EXAMPLE.search(response)
    else:
        answered = ANSWER_CLAUSE.search(response) if may_have_clause(response) else None
        cut = NEXT_EXAMPLE.search(response, answered.end()) if answered else None
        echo = _PROMPT_ECHO.search(response, 0, cut.start() if cut else len(response))
        cut = echo or cut
    if cut is not None and not response[:cut.start()].strip():
        return response  # the response opens with the header: nothing of its own before it
    return response if cut is None else response[:cut.start()].rstrip()
