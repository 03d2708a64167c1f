"""Which number of a model response is its answer (the `numeric` extractor).

The numbers themselves are read by `bench_kit.text.numbers`, the part of the response that
answers and whether it is cut off by `bench_kit.scoring.extract.answer_part`; here
(docs/METRICS.md#numbers):
the last number of the last "the answer is" clause (`bench_kit.scoring.extract.clause_number`;
a clause that restates the question is answered by what follows it, and an opening clause
is revised by working that ends on another value); else, in the response up to where it
goes on with a new question of its prompt or closes with an explanation or a table, the
sentence that concludes ("Therefore, …", "So …") or else the last sentence with a number,
and in it the number the sentence states ("There are 3 bars larger than 4" -> 3, "The gap
is 23 years, one being 37 and the other 14" -> 23) or else its last number. No number when
the response says it cannot answer or give the value (unless an estimate follows
"However, …"), when the answer is offered only as an example ("For example, if …"), is the
end of a range ("around 10 to 15 years") or one of two values side by side, when the
response loops to its token limit, only describes how to find the answer, or is a caption
of grounding boxes. Exponents ("cm^2"), boxes and runs of over 20 digits
(40 in a decimal) are never answers. The reading of a response without an answer
clause is `bench_kit.scoring.extract.prose_number`; whether a response says it cannot answer,
`bench_kit.scoring.extract.number_refusals`.
"""

from __future__ import annotations

import re
from bisect import bisect_right

from bench_kit.scoring.extract.answer_clause import clause_tail_at, sentence_after, sentence_start
from bench_kit.scoring.extract.answer_part import answer_part_tokens
from bench_kit.scoring.extract.answer_slot import SLOT_ECHO, slot_answer
from bench_kit.scoring.extract.clause_number import (
    asks,
    names_things,
    points_on,
    solved_value,
    tail_number,
    value_after_comma,
    word_answer,
)
from bench_kit.scoring.extract.concluding import CONCLUDES
from bench_kit.scoring.extract.expression_parts import part_of_expression
from bench_kit.scoring.extract.list_markers import marks_item, may_mark_items
from bench_kit.scoring.extract.prose_number import EXAMPLE, _prose_number
from bench_kit.scoring.extract.response import (
    FAILED,
    PARSE_LENIENT,
    PARSE_OK,
    Extraction,
    clean_response,
    strip_reasoning,
)
from bench_kit.scoring.extract.stated_number import SENTENCE_END, no_count
from bench_kit.text.numbers import NumberToken, number_tokens

# "It has a value of **10**.": a number set in bold (with at most a short unit) is the
# answer a markdown response marks; the last such.
_BOLD_NUMBER = re.compile(r"\*\*[ \t]*([-+$]?[ \t]*(?:\d[\d,]*(?:\.\d+)?|\.\d+)(?:/\d+)?[ \t]*%?"
                          r"(?:[ \t]*[A-Za-z°]+){0,2})[ \t]*\.?\*\*")
# "\boxed{25} or \boxed{26}", "\boxed{12} or maybe \boxed{13}": two boxed answers offered
# as alternatives.
_BOXED_HEDGE = re.compile(r"\\boxed[ \t]*\{[^{}]*\}\$?\s*(?:,|\bor\b|\band\b)\s*(?:(?:maybe|perhaps|possibly"
                          r"|probably|even)\s+)?\$?\\boxed[ \t]*\{")
# "cm^2", "10^{-3}": a number written as a power's exponent is never the answer.
_EXPONENT_BEFORE = re.compile(r"\^\s*[{(]?\s*$")
# "to two decimal places", "to 3 significant figures", "(3 sig.fig.)": a precision asked for,
# not a value; a precision stated ("has 4 decimal places", "There are 4 significant figures")
# may be the answer, so only one after "to", "at" or a bracket (`_PRECISION_BEFORE`) is dropped.
_PRECISION_AFTER = re.compile(r"[ \t]*(?:decimal\s+(?:places?|digits?)|significant\s+(?:figures?"
                              r"|digits?)|sig\.?\s*figs?\b)", re.I)
_PRECISION_BEFORE = re.compile(r"(?:\b(?:to|at)\s+|\(\s*)$", re.I)
# "x ≠ 0", "$a \\neq 1$": a value excluded, never the answer.
_EXCLUDED_BEFORE = re.compile(r"(?:≠|\\neq?)[ \t]*$")
_MAX_DIGITS = 20  # "999999…": a longer run of whole digits is a degenerate output
# "0.000000…" looping to the token limit; a shorter decimal is a number ("3.1415926535…").
_MAX_DECIMAL_DIGITS = 40
# "[0.39,0.24,0.64,0.75]": a box a grounding model adds after each phrase, not an answer.
_BOX = re.compile(r"\[\s*(?:-?(?:\d+(?:\.\d*)?|\.\d+)\s*,\s*){3}-?(?:\d+(?:\.\d*)?|\.\d+)\s*\]")
# "2018年12月", "2023年1月10日": a date (a year, its month and day).
# Also a month and its day without the year ("7月8日"), a lunar one ("2016年农历6月4日") and a
# time of day ("21时许", "15时30分").
_DATE = re.compile(r"(?:1[89]|20)\d\d[ \t]*年[ \t]*(?:农历|公历)?\d{1,2}[ \t]*月(?:[ \t]*\d{1,2}[ \t]*[日号])?"
                   r"|(?<![\d.])\d{1,2}[ \t]*月[ \t]*\d{1,2}[ \t]*[日号]"
                   r"|(?<![\d.])\d{1,2}[ \t]*时(?=许|[ \t]*\d{1,2}[ \t]*分)")
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


def _candidates(text: str, tokens: list[NumberToken]) -> list[NumberToken]:
    """The numbers of `text` that may be an answer: not an exponent ("cm^2"), not a degenerate
    run of digits, not a precision asked for ("round to two decimal places", "(3 sig.fig.)")."""
    if "月" in text or "时" in text:  # "2018年12月", "7月8日", "21时许": a date's numbers are no value
        dates = [m.span() for m in _DATE.finditer(text)]  # in order, not overlapping: the last one
        # starting at or before a token is the only one that may hold it (bisect: linear, not
        # a scan of every date for every token)
        tokens = [t for t in tokens if not (i := bisect_right(dates, (t.start, len(text) + 1)))
                  or t.start >= dates[i - 1][1]]
    if may_mark_items(text):  # "\n3. 在公安机关…", "三、被告人…": an item's marker
        tokens = [token for token in tokens if not marks_item(text, token)]
    if "^" not in text and all(token.end - token.start <= _MAX_DIGITS for token in tokens) \
            and not _may_state_precision(text) and not _may_exclude(text):
        return tokens  # the common case: one scan, nothing to drop
    return [token for token in tokens
            if not (token.start and _EXPONENT_BEFORE.search(text, max(0, token.start - 4),
                                                            token.start))
            and not (token.start and _EXCLUDED_BEFORE.search(text, max(0, token.start - 6),
                                                             token.start))
            and (token.end - token.start <= _MAX_DIGITS or _not_a_digit_run(text, token))
            and not asks_precision(text, token)]


def asks_precision(text: str, token: NumberToken) -> bool:
    """Whether a number of `text` is a precision asked for, not a value ("rounded to 2
    decimal places", "45.6 to 3 significant figures", "(3 sig.fig.)"); also for `mmmu_open`."""
    return _PRECISION_AFTER.match(text, token.end) is not None \
        and _PRECISION_BEFORE.search(text, max(0, token.start - 6), token.start) is not None


def _may_state_precision(text: str) -> bool:
    """Cheap pre-check: whether `text` may state a precision (`_PRECISION_AFTER`)."""
    lowered = text.lower()
    return "decimal" in lowered or "sig" in lowered


def _may_exclude(text: str) -> bool:
    """Cheap pre-check: whether `text` may exclude a value (`_EXCLUDED_BEFORE`)."""
    return "≠" in text or "\\ne" in text


def _not_a_digit_run(text: str, token: NumberToken) -> bool:
    """Whether a long number is still a number: at most `_MAX_DIGITS` digits before its
    decimal point, and at most `_MAX_DECIMAL_DIGITS` in all ("3.14159265358979323846")."""
    written = text[token.start:token.end]
    digits = sum(ch.isdigit() for ch in written)
    return digits <= _MAX_DIGITS or ("." in written and digits <= _MAX_DECIMAL_DIGITS
                                     and sum(ch.isdigit() for ch in written.partition(".")[0])
                                     <= _MAX_DIGITS)


def _final_value_tail(text: str) -> tuple[str, int] | None:
    """The rest of the sentence after the last "final value is" / "final value:", and
    where it starts."""
    if "final" not in text.lower():
        return None
    ends = [match.end() for match in _FINAL_VALUE.finditer(text)]
    if not ends:
        return None
    return sentence_after(text, ends[-1], SENTENCE_END, " \t\r\n")


_NUMBER_AFTER_DOT = re.compile(r"[ \t]*[-+]?\d")
# Where an answer clause's tail ends (as `clause_tail_at` reads it), for the tail after an
# ellipsis ("The answer is...\n12").
_CLAUSE_END = re.compile(r"\n|[.?;](?:\s|$)|!(?!\s*=)(?:\s|$)|,\s|[。！？；，]")


_DIGIT = re.compile(r"\d")
_TABLE_START = re.compile(r"[ \t]*+[.:]?[ \t]*+\n\s*+\|")


def _only_table_after(text: str, at: int) -> bool:
    """Whether the text after an answer clause's sentence (from `at`) is a table and nothing
    with a number after it: the answer is the table, no one value."""
    if _TABLE_START.match(text, at) is None:
        return False
    lines = text[at:].strip().splitlines()[1:]
    return not any(ch.isdigit() for line in lines if not line.lstrip().startswith("|")
                   for ch in line)


def _after_pause(text: str, tail: str, at: int) -> tuple[str, int]:
    """An answer clause's tail that is an ellipsis ("The answer is... 12", "The answer
    is...\n12"): a pause; the answer is the clause after it when that has a digit and no digit
    follows it (not "The answer is...\nStep 1: 3 + 4 = 7\nStep 2: 7 × 2 = 14")."""
    after, where = sentence_after(text, at + len(tail) + 1, _CLAUSE_END, " \t\r\n")
    if any(ch.isdigit() for ch in after) and _DIGIT.search(text, where + len(after)) is None:
        return after, where
    return tail, at


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
    slot = slot_answer(response)
    if slot is not None:  # "[金额]2000元<eoa>，…": the prompt's answer slot filled
        response = slot
    text = clean_response(response)
    if not text:
        return FAILED, None, text
    if "boxed" in response and _BOXED_HEDGE.search(response):
        return FAILED, None, text  # "\boxed{25} or \boxed{26}"
    boxes = 0
    if "[" in text and "]" in text:
        text, boxes = _BOX.subn(" ", text)
        text = SLOT_ECHO.sub(" ", text).strip()  # (a slot is written in brackets)
    opened = text
    text, every = answer_part_tokens(text)
    tail, at = clause_tail_at(text) or _final_value_tail(text) or ("", 0)
    if tail[:2] == ".." and not tail.strip("."):
        tail, at = _after_pause(text, tail, at)
    if at and not tail and text.startswith((".", "。"), at) \
            and not _NUMBER_AFTER_DOT.match(text, at + 1):  # not "The answer is . 12"
        return FAILED, None, text  # "Colin is now. The answer is .": a clause left unfilled
    if tail and not asks(text, tail, at):
        reading = _clause_reading(text, tail, at, opened)
        if reading is not None:
            return reading
    if "**" in response:
        bold = _BOLD_NUMBER.findall(strip_reasoning(response))
        if bold:
            found = number_tokens(bold[-1])
            if found:
                return Extraction(found[-1].value, PARSE_LENIENT), found[-1], bold[-1]
    found = _candidates(text, every if every is not None else number_tokens(text))
    return _prose_number(text, found, boxes > 0)


def _clause_reading(text: str, tail: str, at: int, opened: str,
                    ) -> tuple[Extraction[float], NumberToken | None, str] | None:
    """The reading an answer clause's tail (`tail`, at offset `at` of the answer part
    `text`; `opened`: the whole cleaned response) gives, or None to read on past it (a tail
    that names things or points to where the answer is written, with no value of its own)."""
    found = _candidates(tail, number_tokens(tail))
    if found and EXAMPLE.search(text, sentence_start(text, at), at):
        return FAILED, None, text  # "For example, if …, the answer would be 50."
    if found and names_things(text, tail, at):
        named = value_after_comma(text, tail, at)
        if named is not None:  # "… the difference between the two bars, which is 13."
            return Extraction(named.value, PARSE_LENIENT), named, text
        found = []
    if found:
        token = solved_value(text, tail, at) or tail_number(text, tail, at, found)
        if token is None:
            return FAILED, None, text
        if token.start >= at + len(tail):  # "Answer: x - 1 = 4, so x = 5"
            return Extraction(token.value, PARSE_OK), token, text
        return _revised(text, tail, at, token, opened) \
            or (Extraction(token.value, PARSE_OK), token, tail)
    if word_answer(text, tail, at):
        return FAILED, None, text  # "The answer is None.", "The answer is Inapplicable."
    if points_on(tail) and _only_table_after(text, at + len(tail)):
        return FAILED, None, text  # "The answer is in the table below.\n\n| Year | … |"
    return None


# "… 29 - 4 = 25 balloons.": the result of a calculation.
_RESULT = re.compile(r"=\s*$")


def _revised(text: str, tail: str, at: int, token: NumberToken, whole: str,
             ) -> tuple[Extraction[float], NumberToken | None, str] | None:
    """The reading of a response that opens with an answer clause ("The answer is 8 pages
    per day.") and then works the problem to another value, which its concluding sentence
    ("So …", "Therefore …") or the result of its last calculation ("29 - 4 = 25 balloons.")
    states: the working revises the opening guess. None when the clause is not the opening
    sentence or the working ends on the same value (or on none)."""
    stop = SENTENCE_END.search(whole, at + len(tail), at + len(tail) + 400)
    if sentence_start(text, at) != 0 or stop is None or not whole[stop.end():].strip():
        return None  # not the opening sentence, or nothing after it (most such responses)
    if len(text) < len(whole.rstrip()):  # cut: "Explanation: …" is the working here
        text = answer_part_tokens(whole, closing=False)[0]
    rest = text[stop.end():]
    if not rest.strip() or _checks(rest, token.value):
        return None
    found = _candidates(rest, number_tokens(rest))
    reading = _prose_number(rest, found, False)
    later = reading[1]
    if later is None or later.value == token.value or not (
            CONCLUDES.match(rest, sentence_start(rest, later.start))
            or _RESULT.search(rest, max(0, later.start - 4), later.start)) \
            or _derived(rest, found, later, token.value):
        return None
    return reading


# Words that say the first answer was wrong.
_REVISING = re.compile(r"\b(?:mistake|wrong|incorrect|wait|actually|oops|sorry|error|recalculat\w*"
                       r"|correct(?:ion|ed|ing)|re-?check\w*|instead)\b", re.I)


def _derived(rest: str, found: list[NumberToken], later: NumberToken, value: float) -> bool:
    """Whether the working's value (`later`) is derived from the clause's `value` by another
    number of its sentence, as a share or a multiple, the sentence not repeating the value
    ("The answer is 120 dollars.\nTherefore, each of the 4 friends pays 30 dollars.": 4 × 30
    = 120): a consequence, no revision (a sentence with the value is working: "Step 2: 6 x 2
    = 12")."""
    start = sentence_start(rest, later.start)
    stop = SENTENCE_END.search(rest, later.end, later.end + 400)
    end = len(rest) if stop is None else stop.start()
    if any(start <= other.start < end and other.value == value for other in found):
        return False
    return any(start <= other.start < end and other is not later and other.value not in (0, 1)
               and any(abs(a - b) <= 1e-9 * max(1.0, abs(b)) for a, b in (
                   (later.value * other.value, value), (value * other.value, later.value)))
               for other in found) \
        and _REVISING.search(rest, 0, later.start) is None  # not "Wait, I multiplied wrong."


# "To check: …", "Let's double-check: …", "We verify: …": working that checks the answer.
_CHECK = re.compile(r"[ \t*#-]*(?:(?:to|let's|let\s+us|we(?:\s+can)?|now)\s+)?(?:double[- ]?)?"
                    r"(?:check|verif)", re.I)
_STEP = re.compile(r"[ \t*#-]*step\s*\d", re.I)


def _checks(rest: str, value: float) -> bool:
    """Whether the working after an opening answer clause starts by checking or using the
    clause's value, not by working the problem: its first sentence (or line) opens with a
    check ("Check: 8 × 3 = 24") or starts its numbers from the value ("So 2 hours = 120
    minutes.", "This means the round trip is 6 × 2 = 12 km."): a verification, a unit
    conversion or a derived quantity, which revises nothing. The value met later in a sum
    ("Add up the pages: 4 + 20 + 7 + 8 = 39" after "The answer is 8.") is working."""
    start = len(rest) - len(rest.lstrip())
    stop = SENTENCE_END.search(rest, start, start + 400)
    first = rest[start:stop.start() if stop else start + 400]
    if _STEP.match(first):
        return False  # "Step 2: 7 × 2 = 14": a step of the working
    if _CHECK.match(first) is not None:
        return True
    numbers = number_tokens(first)
    return bool(numbers) and numbers[0].value == value


def revised_working(text: str, whole: str) -> str | None:
    """The working after the opening answer clause of a response (`text`: its answer part,
    `whole`: the cleaned response) when that working revises the clause's value (`_revised`:
    "The answer is 8.\n… So he needs 6 pages a day."), else None; for `mmmu_open`."""
    clause = clause_tail_at(text)
    if clause is None or sentence_start(text, clause[1]) != 0 or asks(text, *clause):
        return None
    tail, at = clause
    found = _candidates(tail, number_tokens(tail))
    token = tail_number(text, tail, at, found) if found else None
    reading = None if token is None else _revised(text, tail, at, token, whole)
    return None if reading is None else reading[2]


def states_zero(text: str) -> bool:
    """Whether a cleaned response without an answer clause states a count of zero ("There
    are no clubs with exactly 64 members.", "The function has no zeros."; `no_count`)."""
    found = _candidates(text, number_tokens(text))
    return no_count(text, found) is not None




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
