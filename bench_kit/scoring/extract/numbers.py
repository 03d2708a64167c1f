"""Which number of a model response is its answer (the `numeric` extractor).

The numbers themselves are read by `bench_kit.text.numbers`, the part of the response that
answers and whether it is cut off by `bench_kit.scoring.extract.answer_part`; here
(docs/METRICS.md#numbers):
the last number of the last "the answer is" clause; else, in the response up to where it
goes on with a new question of its prompt or closes with an explanation or a table, the
sentence that concludes ("Therefore, …", "So …") or else the last sentence with a number,
and in it the number the sentence states ("There are 3 bars larger than 4" -> 3, "The gap
is 23 years, one being 37 and the other 14" -> 23) or else its last number. No number when
the response says it cannot answer or give the value (unless an estimate follows
"However, …"), when the answer is offered only as an example ("For example, if …"), is the
end of a range ("around 10 to 15 years") or one of two values side by side, when the
response loops to its token limit, only describes how to find the answer, or is a caption
of grounding boxes. Exponents ("cm^2"), boxes and runs of over 20 digits
(40 in a decimal) are never answers.
"""

from __future__ import annotations

import re

from bench_kit.scoring.extract.answer_part import answer_part_tokens
from bench_kit.scoring.extract.expression_parts import part_of_expression
from bench_kit.scoring.extract.prose_letters import _CONCLUDES as CONCLUDES
from bench_kit.scoring.extract.response import (
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
from bench_kit.scoring.extract.stated_number import OF_WHOLE, THRESHOLD, stated
from bench_kit.scoring.extract.truncation import stops_before_number
from bench_kit.scoring.extract.written_twice import first_of_pair
from bench_kit.text.numbers import NumberToken, as_percent, number_tokens

_CLAUSE_MARKS = frozenset(",，;；.。\n")
_SENTENCE_END = re.compile(r"[.!?](?=\s|$)|\n")
_EXAMPLE = re.compile(r"^\W*(?:for\s+example|for\s+instance|e\.g\.)|\bin\s+this\s+example\b|\b(?:if|assuming|suppose)\b"
                      r"[^,]{0,120},\s*(?:then\s+)?(?:the\s+)?(?:answer|solution|result)\s+would\b",
                      re.I)
_RANGE_BEFORE = re.compile(r"(?:(?:\d|\b(?:one|two|three|four|five|six|seven|eight|nine|ten))"
                           r"[%\w ]{0,24}?\s*(?:\b(?:to|or)\b|-|–)|\bbetween\s+\S+\s+and)\s*$", re.I)
# "1, 2, 3, 4" / "21, 22, 23, and 25": a list of numbers is no one answer.
_ENUMERATION = re.compile(r"(?:[-+]?\d(?:[\d.]|,\d{3})*%?\s*,\s+(?:and\s+)?){2,}[-+]?\d(?:[\d.]|,\d{3})*%?")
_RANGE_AFTER = re.compile(r"[%\w ]{0,24}?\s*(?:\b(?:to|or)\b|-|–)\s*[-+]?\.?\d")
# "It has a value of **10**.": a number set in bold (with at most a short unit) is the
# answer a markdown response marks; the last such.
_BOLD_NUMBER = re.compile(r"\*\*[ \t]*([-+$]?[ \t]*(?:\d[\d,]*(?:\.\d+)?|\.\d+)(?:/\d+)?[ \t]*%?"
                          r"(?:[ \t]*[A-Za-z°]+){0,2})[ \t]*\.?\*\*")
# "There are no red cubes", "The function has no zeros": a count of zero, in a response
# with no number at all.
_NONE_OF = re.compile(r"\b(?:there\s+(?:is|are|were|was)|has|have|had)\s+no\s+(?!way\b|idea\b)[a-z]",
                      re.I)
# "There are no clubs with exactly 64 members.": a count of zero; the sentence's number is the
# condition restated from the question. One clause only (`_ONE_CLAUSE`: no clause mark nor
# coordinator anywhere in the sentence, at most 3 words after its number), so "There is no
# need to convert any of the units, so the area is 24." states 24.
_NONE_WITH = re.compile(r"[ \t*-]*there\s+(?:is|are|were|was)\s+no\s+(?!way\b|idea\b)[a-z][^.!?\n\d,;:]*"
                        r"\b(?:with|of|that|who|which|at)\b", re.I)
_CLAUSE_BREAK = re.compile(r"[,;:—–，；]|\b(?:and|but|so|while|whereas|because|since|then|which)\b",
                           re.I)
_FEW_WORDS = re.compile(r"[^\s\d]*(?:\s+[^\s\d]+){0,3}\s*")
_ESTIMATE = re.compile(r"\bestimat|\bbut\s+(?:it\s+is|it's)\s+(?:about|approximately|roughly|around)\b", re.I)
# A value the response says it cannot give (beyond the shared refusals): "is undefined",
# "this problem can't be solved", "there must be an error in the problem".
_NO_VALUE = re.compile(
    r"\b(?:is|are|remains?)\s+(?:undefined|unknown|indeterminate)\b|:\s*undefined\b"
    r"|\b(?:can't|cannot|can\s+not)\s+(?:be\s+)?(?:calculated?|solved?|computed?|found)\b"
    r"|\bno\s+valid\s+(?:answer|solution)|\berror\s+in\s+the\s+(?:problem|question)"
    r"|\b(?:did\s+not|didn't)\s+provide\s+(?:a|the|any)\s+(?:picture|image|figure|diagram)"
    r"|\b(?:difficult|hard|impossible)\s+to\s+(?:provide|give)\s+an?\s+(?:definite|exact)"
    r"|无法(?:直接)?(?:得出|求出|求解|计算|给出)|不能确定|无解", re.I)
_UNSURE = re.compile(r"not\s+sure|unsure|uncertain", re.I)
_NO_VALUE_KEYS = ("undefined", "unknown", "indeterminate", "n't", "not", "valid", "error",
                  "provide", "give", "无法", "不能", "无解")  # every _NO_VALUE match holds one
# A response that describes how to find the answer without giving it: "The solution
# requires analyzing the chart. … The final answer will be the total count.", "This code
# will output the sum of x and y." (no number right after the verb).
_METHOD_ONLY = re.compile(
    r"\bfinal\s+(?:answer|value|result)\s+(?:will|should|would)\s+be\s+(?:the|an?)\s"
    r"|\bsolution\s+(?:requires|would\s+require)\b"
    r"|(?:^|[.!?]\s+)To\s+find\b[^.!?\n]{0,120},\s+(?:you\s+)?(?:look|count|identify|add|check"
    r"|compare|find)\b"
    r"|\bthis\s+(?:code|program|script)\s+will\s+(?:output|print|return|give|calculate|compute)\b"
    r"(?![\s:]*[-+$]?\d)",  # (not "This code will output 42.")
    re.I)
_METHOD_KEYS = ("final", "solution", "to find", "code", "program", "script")
# "\boxed{25} or \boxed{26}", "\boxed{12} or maybe \boxed{13}": two boxed answers offered
# as alternatives.
_BOXED_HEDGE = re.compile(r"\\boxed\{[^{}]*\}\$?\s*(?:,|\bor\b|\band\b)\s*(?:(?:maybe|perhaps|possibly"
                          r"|probably|even)\s+)?\$?\\boxed\{")
# "1982 with an income of 931,441", "7 and it takes 3 steps", "12 and not 15": what follows
# the answer's number elaborates on it.
_ELABORATION = re.compile(r"\s(?:with|which|because|since|due\s+to|and\s+(?:it|that|this|there"
                          r"|not))\b", re.I)
# "after 3 years with interest the amount is 1157.63": the value is stated after the "with".
_RESTATED = re.compile(r"(?:\b(?:is|are|was|were|equals?)\b|=)[\s$]*$", re.I)
# 和 joining two things, not the 和 of a sum ("两数之和为15", "它们的和是15", "总和为36").
AND_CJK = r"(?<![之总的])和(?![为是等])"
# "10 or 12", "12 and 15", "q=1或q=2": two values given as the answer.
_ALTERNATIVES = re.compile(r"\b(?:or|and)\b|或|" + AND_CJK, re.I)
# "(a) 1000\n(b) 2000\n(c) 3000": option labels echoed with their values.
_OPTION_LABEL = re.compile(r"\(\s*[A-Za-z]{1,2}\s*\)\s*$")
# Two values in coordinated clauses: "4 small cubes and 2 large objects", "10.8% in 1992,
# while the lowest was 3.8%".
_COORDINATED = re.compile(r"\b(?:and|while|whereas)\b", re.I)
# "720 W (3 sig.fig.)": at most a short unit between a value and the bracket that explains it.
_UNIT_GAP = re.compile(r"[ \t]*(?:[A-Za-zΩ°%/$]{1,8}[ \t]*)?")
# "7.95 : 1": the first term of a ratio to one.
_TO_ONE = re.compile(r"[ \t]*:[ \t]*")
_BRACKETED = re.compile(r"\([^()]*\)")  # "(a man and a woman)" joins no values
# "cm^2", "10^{-3}": a number written as a power's exponent is never the answer.
_EXPONENT_BEFORE = re.compile(r"\^\s*[{(]?\s*$")
# "to two decimal places", "to 3 significant figures", "(3 sig.fig.)": a precision asked for,
# not a value; a precision stated ("has 4 decimal places", "There are 4 significant figures")
# may be the answer, so only one after "to", "at" or a bracket (`_PRECISION_BEFORE`) is dropped.
_PRECISION_AFTER = re.compile(r"[ \t]*(?:decimal\s+(?:places?|digits?)|significant\s+(?:figures?"
                              r"|digits?)|sig\.?\s*figs?\b)", re.I)
_PRECISION_BEFORE = re.compile(r"(?:\b(?:to|at)\s+|\(\s*)$", re.I)
_MAX_DIGITS = 20  # "999999…": a longer run of whole digits is a degenerate output
# "0.000000…" looping to the token limit; a shorter decimal is a number ("3.1415926535…").
_MAX_DECIMAL_DIGITS = 40
# "[0.39,0.24,0.64,0.75]": a box a grounding model adds after each phrase, not an answer.
_BOX = re.compile(r"\[\s*(?:-?(?:\d+(?:\.\d*)?|\.\d+)\s*,\s*){3}-?(?:\d+(?:\.\d*)?|\.\d+)\s*\]")
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


def _tail_number(text: str, tail: str, at: int, found: list[NumberToken]) -> NumberToken | None:
    """The number an answer clause's tail (`tail`, at offset `at` of `text`) gives: its last
    number before an elaboration ("1982 with an income of 931,441" is 1982), or the count of
    "3 out of 5"; None when it gives two values ("10 or 12", "12
    and 15") or a pair cut at its comma ("(3, 4)")."""
    elaborated = _ELABORATION.search(tail, found[0].end, found[-1].start) if len(found) > 1 else None
    if elaborated and not (elaborated.group().strip().lower() in ("with", "which") and _RESTATED.search(
            tail, max(elaborated.end(), found[-1].start - 20), found[-1].start)):
        found = [token for token in found if token.end <= elaborated.start()]
    aside = tail.find(" (", found[0].end) if len(found) > 1 else -1
    if aside >= 0 and any(token.end <= aside and _UNIT_GAP.fullmatch(tail, token.end, aside)
                          for token in found) \
            and not _ALTERNATIVES.search(tail, aside, found[-1].start):  # not "3 (or 4)"
        found = [token for token in found if token.end <= aside]  # "7 (3 + 4)": explains the 7
    last = found[-1]
    if len(found) > 1:
        before = found[-2]
        if last.value == 1 and _TO_ONE.fullmatch(tail, before.end, last.start):
            return before  # "7.95 : 1": a ratio to one is its first term
        if OF_WHOLE.fullmatch(tail, before.end, last.start):
            return before  # "3 out of 5": the count
        if before.value != last.value and _ALTERNATIVES.search(tail, before.end, last.start):
            # "The answer is 10 or 12." (none); "0.5 or 50%": one value written two ways
            return before if as_percent(before, last) \
                or first_of_pair(tail, found, len(found) - 1) else None
    if tail[0] in ("(", "[") and ")" not in tail and "]" not in tail \
            and text[at + len(tail):].lstrip()[:1] == ",":
        return None  # "The answer is (3, 4).": a pair cut at its comma
    return last


# "The answer is as follows.", "… is below", "… is clear from the graph": a tail that points to
# where the answer is written, not an answer in words.
_POINTS_ON = re.compile(r"\s*(?:as\s+follows|below|above|simple|clear|obvious|easy|straightforward"
                        r"|determined|found|shown|given|in\s+the|on\s+the|from\s+the)\b", re.I)


def _word_answer(text: str, tail: str, at: int) -> bool:
    """Whether an answer clause's tail (`tail`, at offset `at` of `text`) with no number in it
    is an answer in words ("None", "Insufficient Information", "that the method does not
    apply"): a whole sentence without a digit, or three words or more cut at a comma with no
    number after the comma in the sentence; not one or two words cut at a comma ("The answer is
    therefore, 12"), not "the largest value, 27", nor a tail that introduces the lines after it
    ("The answer is as follows:") or points to them (`_POINTS_ON`: "The answer is below.")."""
    if tail[-1] in ":：" or any(ch.isdigit() for ch in tail) or _POINTS_ON.match(tail):
        return False  # "The answer is below.", "The answer is clear from the graph."
    rest = text[at + len(tail):].lstrip(" \t")
    if rest[:1] not in (",", "，"):
        return True
    stop = _SENTENCE_END.search(rest, 0, 400)  # "The answer is the largest value, 27."
    return len(tail.split()) >= 3 and not any(ch.isdigit() for ch in rest[:stop.start() if stop else 400])


def _candidates(text: str, tokens: list[NumberToken]) -> list[NumberToken]:
    """The numbers of `text` that may be an answer: not an exponent ("cm^2"), not a degenerate
    run of digits, not a precision asked for ("round to two decimal places", "(3 sig.fig.)")."""
    if "^" not in text and all(token.end - token.start <= _MAX_DIGITS for token in tokens) \
            and not _may_state_precision(text):
        return tokens  # the common case: one scan, nothing to drop
    return [token for token in tokens
            if not (token.start and _EXPONENT_BEFORE.search(text, max(0, token.start - 4),
                                                            token.start))
            and (token.end - token.start <= _MAX_DIGITS or _not_a_digit_run(text, token))
            and not (_PRECISION_AFTER.match(text, token.end)
                     and _PRECISION_BEFORE.search(text, max(0, token.start - 6), token.start))]


def _may_state_precision(text: str) -> bool:
    """Cheap pre-check: whether `text` may state a precision (`_PRECISION_AFTER`)."""
    lowered = text.lower()
    return "decimal" in lowered or "sig" in lowered


def _not_a_digit_run(text: str, token: NumberToken) -> bool:
    """Whether a long number is still a number: at most `_MAX_DIGITS` digits before its
    decimal point, and at most `_MAX_DECIMAL_DIGITS` in all ("3.14159265358979323846")."""
    written = text[token.start:token.end]
    digits = sum(ch.isdigit() for ch in written)
    return digits <= _MAX_DIGITS or ("." in written and digits <= _MAX_DECIMAL_DIGITS
                                     and sum(ch.isdigit() for ch in written.partition(".")[0])
                                     <= _MAX_DIGITS)


# "There are 5 apples.": a sentence that states a count.
_THERE_ARE = re.compile(r"[ \t*-]*there\s+(?:are|is)\s+(?:a\s+total\s+of\s+)?", re.I)


def _states_after(text: str, last: NumberToken, method_end: int) -> bool:
    """Whether the sentence of the last number, after a description of the method, states
    it ("To find the total, count the apples. There are 5 apples.")."""
    said = sentence_start(text, last.start)
    return said >= method_end and _THERE_ARE.fullmatch(text, said, last.start) is not None


def _final_value_tail(text: str) -> tuple[str, int] | None:
    """The rest of the sentence after the last "final value is" / "final value:", and
    where it starts."""
    if "final" not in text.lower():
        return None
    ends = [match.end() for match in _FINAL_VALUE.finditer(text)]
    if not ends:
        return None
    return sentence_after(text, ends[-1], _SENTENCE_END, " \t\r\n")


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
    stop = _SENTENCE_END.search(text, last.end, last.end + 200)  # (+ " times", "… dollars in total")
    end = max(last.end + 6, stop.start() if stop else min(len(text), last.end + 200))
    return stated(text[start:end], start, inside[::-1]), start


def answer_number_token(response: str, pi_units: bool = False,
                        ) -> tuple[Extraction[float], NumberToken | None, str]:
    """`answer_number` with the token read and the cleaned text it indexes, so a caller
    can see how the number was written (`text[token.start:token.end]`, e.g. "3.9 million").
    No number when the one picked is only part of an expression (`part_of_expression`: "4\\pi",
    "\\frac{\\sqrt{3}}{2}", "1-\\frac{1}{4}"); `pi_units`: pi is a unit (options "2πcm" …)."""
    found, token, text = _answer_token(response)
    if token is not None and part_of_expression(text, token, pi_units):
        return FAILED, None, text  # "The area is \\frac{25}{4}\\pi."
    return found, token, text


def _answer_token(response: str) -> tuple[Extraction[float], NumberToken | None, str]:
    """`answer_number_token` before the check that the number picked is a value."""
    text = clean_response(response)
    if not text:
        return FAILED, None, text
    if "boxed" in response and _BOXED_HEDGE.search(response):
        return FAILED, None, text  # "\boxed{25} or \boxed{26}"
    boxes = 0
    if "[" in text and "]" in text:
        text, boxes = _BOX.subn(" ", text)
        text = text.strip()
    text, every = answer_part_tokens(text)
    tail, at = clause_tail_at(text) or _final_value_tail(text) or ("", 0)
    if tail:
        found = _candidates(tail, number_tokens(tail))
        if found and _EXAMPLE.search(text, sentence_start(text, at), at):
            return FAILED, None, text  # "For example, if …, the answer would be 50."
        if found:
            token = _tail_number(text, tail, at, found)
            if token is None:
                return FAILED, None, text
            return Extraction(token.value, PARSE_OK), token, tail
        if _word_answer(text, tail, at):
            return FAILED, None, text  # "The answer is None.", "The answer is Inapplicable."
    if "**" in response:
        bold = _BOLD_NUMBER.findall(strip_reasoning(response))
        if bold:
            found = number_tokens(bold[-1])
            if found:
                return Extraction(found[-1].value, PARSE_LENIENT), found[-1], bold[-1]
    found = _candidates(text, every if every is not None else number_tokens(text))
    return _prose_number(text, found, boxes > 0)


def _no_count(text: str, found: list[NumberToken]) -> NumberToken | None:
    """A count of zero a response without an answer clause states, as a token over its words:
    "there is / are no …" or "has no …" in a response without numbers ("The function has no
    zeros."), or its last sentence with a number opening "There are no … with / of / that …"
    ("There are no clubs with exactly 64 members."); None for a refusal ("there is no
    information")."""
    zero = _NONE_WITH.match(text, sentence_start(text, found[-1].start)) if found \
        else _NONE_OF.search(text)
    if zero is None or last_refusal(text) or (found and not _one_clause(text, zero.end(), found[-1])):
        return None
    return NumberToken(0.0, zero.start(), zero.end())


def _one_clause(text: str, at: int, last: NumberToken) -> bool:
    """Whether the sentence of a count of zero, from `at` (after its condition word) on, is
    one clause that ends within 3 words of its number `last` ("… with exactly 64 members.")."""
    stop = _SENTENCE_END.search(text, last.end, last.end + 80)
    end = stop.start() if stop else len(text)
    return end - at <= 300 and not _CLAUSE_BREAK.search(text, at, end) \
        and _FEW_WORDS.fullmatch(text, last.end, end) is not None


def states_zero(text: str) -> bool:
    """Whether a cleaned response without an answer clause states a count of zero ("There
    are no clubs with exactly 64 members.", "The function has no zeros."; `_no_count`)."""
    found = _candidates(text, number_tokens(text))
    return _no_count(text, found) is not None


def _prose_number(text: str, found: list[NumberToken],
                  boxed: bool) -> tuple[Extraction[float], NumberToken | None, str]:
    """The answer of a response without an answer clause or a bold number (`found`: its
    numbers; `boxed`: grounding boxes were removed from it)."""
    if not found:
        zero = _no_count(text, found)
        if zero is None:
            return FAILED, None, text
        return Extraction(0.0, PARSE_LENIENT), zero, text  # "The function has no zeros."
    last = found[-1]
    rest = (text[:last.start] + " " + text[last.end:]).strip().rstrip(".。!！")
    if len(found) == 1 and len(rest) <= 12 and not any(ch in rest for ch in _CLAUSE_MARKS):
        return Extraction(last.value, PARSE_OK), last, text  # a lone number
    if boxed:  # phrases marked with boxes describe the picture; only a lone number answers
        return FAILED, None, text  # "<p>three parts</p>[0.05,0.52,0.37,0.62]": a caption
    if stops_before_number(text, found):
        return FAILED, None, text  # cut off before an answer: "Substituting, we get:"
    lowered = text.lower()
    method = _METHOD_ONLY.search(text) if any(k in lowered for k in _METHOD_KEYS) else None
    if method and not CONCLUDES.search(text, method.end()) and not _states_after(
            text, found[-1], method.end()):
        return FAILED, None, text  # "The final answer will be the total count."
    zero = _no_count(text, found)
    if zero is not None:  # "There are no clubs with exactly 64 members."
        return Extraction(0.0, PARSE_LENIENT), zero, text
    token, opened = _sentence_number(text, found)
    at = found.index(token)
    first = first_of_pair(text, found, at) or (
        token if at + 1 < len(found) and first_of_pair(text, found, at + 1) else None)
    if first is not None and not (_EXAMPLE.search(text[opened:token.end])
                                  or refuses(text, token.start, lowered)):
        return Extraction(first.value, PARSE_LENIENT), first, text  # "3/12 or 1/4."
    if _not_the_answer(text, lowered, found, token, opened):
        earlier = [other for other in found if other.end <= opened]
        if not earlier or CONCLUDES.match(text, opened) \
                or not _coordinated(text, found, token, opened):
            return FAILED, None, text
        # "The difference is 1. The highest watches 10 shows, while the lowest watches 9.":
        # values side by side after an answer explain it (unless they conclude: "So …")
        token, opened = _sentence_number(text, earlier)
        if _not_the_answer(text, lowered, found, token, opened):
            return FAILED, None, text
    return Extraction(token.value, PARSE_LENIENT), token, text


def _not_the_answer(text: str, lowered: str, found: list[NumberToken], token: NumberToken,
                    opened: int) -> bool:
    """Whether the number picked from the prose (`token`, in the sentence starting at
    `opened`; `lowered`: `text` lower-cased) is no answer: an example, one end of a range, an option's value, one of
    two coordinated values, part of a list, or said after a refusal."""
    if _EXAMPLE.search(text[opened:token.end]) or _RANGE_BEFORE.search(text, max(0, token.start - 30),
                                                          token.start) \
            or _RANGE_AFTER.match(text, token.end) \
            or _OPTION_LABEL.search(text, max(0, token.start - 8), token.start):
        return True  # "For example, if …", "around 10 to 15 years", "(d) 4000"
    stop = _SENTENCE_END.search(text, token.end)
    end = len(text) if stop is None else stop.end()
    if _coordinated(text, found, token, opened):
        return True  # "4 small cubes and 2 large objects": two values
    if any(m.start() <= token.start < m.end() for m in _ENUMERATION.finditer(
            text, opened, end)):
        return True  # "1, 2, 3, 4, 5": a list, not an answer
    return refuses(text, token.start, lowered)


def _coordinated(text: str, found: list[NumberToken], token: NumberToken, opened: int) -> bool:
    """Whether `token` is one of two different values stated side by side in its sentence
    ("4 small cubes and 2 large objects"; not "(a man and a woman) is 10", not a threshold
    restated from the question: "lower than 8")."""
    stop = _SENTENCE_END.search(text, token.end)
    end = len(text) if stop is None else stop.end()
    before = [other for other in found if opened <= other.end <= token.start]
    after = [other for other in found if token.end <= other.start < end]
    for left, right in ((before[-1] if before else None, token),
                        (token, after[0] if after else None)):
        if left and right and left.value != right.value and _COORDINATED.search(
                _BRACKETED.sub("", text[left.end:right.start])) \
                and not THRESHOLD.search(text, max(0, right.start - 12), right.start):
            return True
    return False


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
    return refusal is not None and not _ESTIMATE.search(
        text, refusal.end(), len(text) if end is None else end)


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
