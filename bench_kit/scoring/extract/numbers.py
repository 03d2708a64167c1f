"""Which number of a model response is its answer (the `numeric` extractor).

The numbers themselves are read by `bench_kit.text.numbers`; here (docs/METRICS.md#numbers):
the last number of the last "the answer is" clause; else, in the response up to where it
goes on with a new question of its prompt or closes with an explanation or a table, the
sentence that concludes ("Therefore, …", "So …") or else the last sentence with a number,
and in it the number the sentence states ("There are 3 bars larger than 4" -> 3, "The gap
is 23 years, one being 37 and the other 14" -> 23) or else its last number. No number when
the response says it cannot answer (unless an estimate follows "However, …"), when the
answer is offered only as an example ("For example, if …") or is the end of a range
("around 10 to 15 years").
"""

from __future__ import annotations

import re

from bench_kit.scoring.extract.response import (
    CONTINUATION,
    FAILED,
    PARSE_LENIENT,
    PARSE_OK,
    Extraction,
    clause_tail_at,
    clean_response,
    last_refusal,
    sentence_after,
    sentence_start,
    strip_reasoning,
)
from bench_kit.text.numbers import NumberToken, number_tokens

_CLAUSE_MARKS = frozenset(",，;；.。\n")
# Where a response stops answering: a closing pleasantry, an explanation of an answer
# already given, a table or list offered after it.
_CLOSING = re.compile(
    r"(?:^|\n|(?<=[.!?])[ \t]+)(?:I\s+hope\s+this|Is\s+there\s+anything\s+else|Let\s+me\s+know"
    r"|Explanation\s*:|This\s+is\s+because\b|Here(?:\s+is|'s)\s+(?:a|the)\s+(?:table|list"
    r"|breakdown|summary)|Here(?:\s+is|'s)\s+how\s+I\s+got)", re.I)
_SENTENCE_END = re.compile(r"[.!?](?=\s|$)|\n")
# "is 23", "there are two", "= 10", "was approximately 2.5": the number a sentence states.
_STATES = re.compile(
    r"(?:\b(?:is|are|was|were|be|equals?|equal\s+to|comes\s+to|gives|a\s+total\s+of)\b|=|≈)\s*"
    r"(?:(?:approximately|about|around|roughly|only|exactly|just|nearly|almost|a\s+total\s+of"
    r"|a\s+difference\s+of|totally|~)\s+)*(?=[-+(]?\s*\.?[\dA-Za-z])", re.I)
_EXAMPLE = re.compile(r"^\W*(?:for\s+example|for\s+instance|e\.g\.)|\bin\s+this\s+example\b|\b(?:if|assuming|suppose)\b"
                      r"[^,]{0,120},\s*(?:then\s+)?(?:the\s+)?(?:answer|solution|result)\s+would\b",
                      re.I)
_RANGE_BEFORE = re.compile(r"(?:(?:\d|\b(?:one|two|three|four|five|six|seven|eight|nine|ten))"
                           r"[%\w ]{0,12}?\s*(?:\b(?:to|or)\b|-|–)|\bbetween\s+\S+\s+and)\s*$", re.I)
# "1, 2, 3, 4" / "21, 22, 23, and 25": a list of numbers is no one answer.
_ENUMERATION = re.compile(r"(?:[-+]?\d(?:[\d.]|,\d{3})*%?\s*,\s+(?:and\s+)?){2,}[-+]?\d(?:[\d.]|,\d{3})*%?")
_RANGE_AFTER = re.compile(r"[%\w ]{0,12}?\s*(?:\b(?:to|or)\b|-|–)\s*[-+]?\.?\d")
# "It has a value of **10**.": a number set in bold (with at most a short unit) is the
# answer a markdown response marks; the last such.
_BOLD_NUMBER = re.compile(r"\*\*[ \t]*([-+$]?[ \t]*(?:\d[\d,]*(?:\.\d+)?|\.\d+)(?:/\d+)?[ \t]*%?"
                          r"(?:[ \t]*[A-Za-z°]+){0,2})[ \t]*\.?\*\*")
# Cut off mid-expression: the response ends on ":", "=", "," or an open bracket.
_CUT_OFF = frozenset(":=,([{\\")
# "There are no red cubes", "The function has no zeros": a count of zero, in a response
# with no number at all.
_NONE_OF = re.compile(r"\b(?:there\s+(?:is|are|were|was)|has|have|had)\s+no\s+(?!way\b|idea\b)[a-z]",
                      re.I)
_ESTIMATE = re.compile(r"\bestimat", re.I)
# "The final value is 2", "Final value: 2" (prompts that ask for "the final value").
_FINAL_VALUE = re.compile(r"\bfinal\s+(?:value|number|result)\s*(?:is|=|:)", re.I)


def answer_number(response: str) -> tuple[Extraction[float], bool]:
    """The answer number of a response and whether it was written as a percent.

    The last number of the last answer clause ("The answer is 3 + 4 = 7." -> 7) is "ok"; so
    is a lone number with at most a short unit ("12 apples", "3个"). Otherwise the number
    the concluding sentence states is taken, "lenient".
    """
    found, token, _ = answer_number_token(response)
    return found, token is not None and token.percent


def _answer_part(text: str) -> tuple[str, list[NumberToken] | None]:
    """The response up to a new question of its prompt or a closing section (when an
    answer comes before it), and its numbers when they had to be read (else None)."""
    found = None
    for pattern in (CONTINUATION, _CLOSING):
        cut = pattern.search(text, 1)
        if cut is None:
            continue
        if found is None:
            found = number_tokens(text)
        if found and found[0].end <= cut.start():
            text = text[:cut.start()].rstrip()
            found = [token for token in found if token.end <= cut.start()]
    return text, found


def _final_value_tail(text: str) -> tuple[str, int] | None:
    """The rest of the sentence after the last "final value is" / "final value:", and
    where it starts."""
    if "final" not in text.lower():
        return None
    ends = [match.end() for match in _FINAL_VALUE.finditer(text)]
    if not ends:
        return None
    return sentence_after(text, ends[-1], _SENTENCE_END, " \t\r\n")


def _stated(sentence: str, offset: int, tokens: list[NumberToken]) -> NumberToken:
    """The number a sentence states (after its last "is" / "are" / "=" that a number
    follows), else its last number."""
    starts = {token.start - offset: token for token in tokens}
    for match in reversed(list(_STATES.finditer(sentence))):
        at = match.end()
        while at < len(sentence) and sentence[at] in " (":
            at += 1
        if at in starts:
            return starts[at]
    return tokens[-1]


def _sentence_number(text: str, found: list[NumberToken]) -> tuple[NumberToken, int]:
    """The answer token without an answer clause (the number the last sentence with a
    number states), and where that sentence starts."""
    last = found[-1]
    start = sentence_start(text, last.start)
    inside = []
    for token in reversed(found):
        if token.start < start:
            break
        inside.append(token)
    return _stated(text[start:last.end], start, inside[::-1]), start


def answer_number_token(response: str) -> tuple[Extraction[float], NumberToken | None, str]:
    """`answer_number` with the token read and the cleaned text it indexes, so a caller
    can see how the number was written (`text[token.start:token.end]`, e.g. "3.9 million")."""
    text = clean_response(response)
    if not text:
        return FAILED, None, text
    text, every = _answer_part(text)
    tail, at = clause_tail_at(text) or _final_value_tail(text) or ("", 0)
    if tail:
        found = number_tokens(tail)
        if found and _EXAMPLE.search(text, sentence_start(text, at), at):
            return FAILED, None, text  # "For example, if …, the answer would be 50."
        if found:
            return Extraction(found[-1].value, PARSE_OK), found[-1], tail
    if "**" in response:
        bold = _BOLD_NUMBER.findall(strip_reasoning(response))
        if bold:
            found = number_tokens(bold[-1])
            if found:
                return Extraction(found[-1].value, PARSE_LENIENT), found[-1], bold[-1]
    found = every if every is not None else number_tokens(text)
    if not found:
        zero = _NONE_OF.search(text)
        if zero is None or last_refusal(text):
            return FAILED, None, text
        token = NumberToken(0.0, zero.start(), zero.end())
        return Extraction(0.0, PARSE_LENIENT), token, text  # "The function has no zeros."
    last = found[-1]
    rest = (text[:last.start] + " " + text[last.end:]).strip().rstrip(".。!！")
    if len(found) == 1 and len(rest) <= 12 and not any(ch in rest for ch in _CLAUSE_MARKS):
        return Extraction(last.value, PARSE_OK), last, text  # a lone number
    if text[-1] in _CUT_OFF:
        return FAILED, None, text  # cut off before an answer: "Substituting, we get:"
    token, opened = _sentence_number(text, found)
    sentence = text[opened:token.end]
    if _EXAMPLE.search(sentence) or _RANGE_BEFORE.search(text, max(0, token.start - 30),
                                                          token.start) \
            or _RANGE_AFTER.match(text, token.end):
        return FAILED, None, text  # "For example, if …", "around 10 to 15 years"
    stop = _SENTENCE_END.search(text, token.end)
    if any(m.start() <= token.start < m.end() for m in _ENUMERATION.finditer(
            text, opened, len(text) if stop is None else stop.end())):
        return FAILED, None, text  # "1, 2, 3, 4, 5": a list, not an answer
    refusal = last_refusal(text)
    if refusal and not _ESTIMATE.search(text, refusal.end(), token.start):
        return FAILED, None, text  # "cannot be determined without the data": no answer
    return Extraction(token.value, PARSE_LENIENT), token, text


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
