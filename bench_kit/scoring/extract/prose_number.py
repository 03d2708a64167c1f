"""Which number of a response without an answer clause is its answer (`_prose_number`, for
`bench_kit.scoring.extract.numbers`; docs/METRICS.md#numbers): a lone number; else the
number the concluding or last sentence with a number states (`_sentence_number`, without a
bracket that explains a value before it: `_explained`), a count of zero ("There are no
clubs …") or a count with a property. No number when the response only describes how to
find the answer, is cut off before it, asks a question with it, says it cannot answer
(`bench_kit.scoring.extract.number_refusals`), or when the number is an example, one end of
a range, an option's value, part of a list or one of two values side by side
(`_not_the_answer`, `_coordinated`).
"""

from __future__ import annotations

import re

from bench_kit.scoring.extract.answer_clause import sentence_start
from bench_kit.scoring.extract.clause_number import OPERAND_LABEL, question_from
from bench_kit.scoring.extract.cn_ranges import cn_bound
from bench_kit.scoring.extract.concluding import CONCLUDES, CONCLUDES_CJK
from bench_kit.scoring.extract.expression_parts import LABEL_BEFORE
from bench_kit.scoring.extract.number_refusals import refuses
from bench_kit.scoring.extract.response import (
    FAILED,
    PARSE_LENIENT,
    PARSE_OK,
    Extraction,
)
from bench_kit.scoring.extract.stated_number import (
    SENTENCE_END,
    THRESHOLD,
    count_with,
    no_count,
    stated,
)
from bench_kit.scoring.extract.truncation import stops_before_number
from bench_kit.scoring.extract.written_twice import first_of_pair, noun_after, two_things
from bench_kit.text.numbers import NumberToken

_CLAUSE_MARKS = frozenset(",，;；.。\n")
# The Chinese words for "for example" (also in the prompt's answer-slot example,
# `bench_kit.scoring.extract.numbers`).
EXAMPLE_CJK = "例如|比如|譬如"
_EXAMPLE_HEADS = "".join(word[0] for word in EXAMPLE_CJK.split("|"))  # 例比譬
# (例如 / 比如 / 譬如, "for example", in the clause of the number: "（例如正负号、0）", not "例如取
# x=1 验证。所以 y=3。", nor after a comma and a concluding word: "例如[1]中的方法，最终结果为42":
# cleaning writes "。" as "."; each scan stops at the next marker's first character, so many
# markers in one sentence stay linear)
EXAMPLE = re.compile(r"^\W*(?:for\s+example|for\s+instance|e\.g\.)|\bin\s+this\s+example\b"
                     rf"|(?:{EXAMPLE_CJK})(?:[^.;!?\n{_EXAMPLE_HEADS},]|\.(?=\d)"
                     rf"|,(?![ \t]*(?:{CONCLUDES_CJK}|答案|最终|最后)))*$"
                     r"|\b(?:if|assuming|suppose)\b"
                     r"[^,]{0,120},\s*(?:then\s+)?(?:the\s+)?(?:answer|solution|result)\s+would\b",
                     re.I)
_RANGE_BEFORE = re.compile(r"(?:(?:\d|\b(?:one|two|three|four|five|six|seven|eight|nine|ten))"
                           r"[%\w ]{0,24}?\s*(?:\b(?:to|or)\b|-|–)|\bbetween\s+\S+\s+and)\s*$", re.I)
# "1, 2, 3, 4" / "21, 22, 23, and 25": a list of numbers is no one answer.
_ENUMERATION = re.compile(r"(?:[-+]?\d(?:[\d.]|,\d{3})*%?\s*,\s+(?:and\s+)?){2,}[-+]?\d(?:[\d.]|,\d{3})*%?")
_RANGE_AFTER = re.compile(r"[%\w ]{0,24}?\s*(?:\b(?:to|or)\b|-|–)\s*[-+]?\.?\d")
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
# "根据已知条件可以列出以下方程组：…" ("the conditions give the system: …") with nothing drawn
# from it after: equations set up, never solved (a Chinese response's "所以 / 解得 …" concludes;
# "…求解即可", "solving it is all it takes", does not).
_SETS_UP = re.compile(r"(?:列出|得到|建立)[^。\n]{0,10}方程")
_SOLVED_CJK = re.compile(rf"解得|求得|可得|得出|{CONCLUDES_CJK}|即(?!可)|答案|综上|得到(?![^。\n]{{0,10}}方程)"
                         # "…，x = 2。", "\nx = 4": a clause giving a letter its value
                         r"|(?<=[,，:：;；\n])[ \t]*[A-Za-z][ \t]*=[ \t]*[-+]?\d[\d.]*[ \t]*(?:[.。,，;；\n]|$)")
# "(a) 1000\n(b) 2000\n(c) 3000": option labels echoed with their values.
_OPTION_LABEL = re.compile(r"\(\s*[A-Za-z]{1,2}\s*\)\s*$")
# Two values in coordinated clauses: "4 small cubes and 2 large objects", "10.8% in 1992,
# while the lowest was 3.8%"; not "and now" / "and so" introducing what results ("saved 5
# each week for 12 weeks and now has 60").
_COORDINATED = re.compile(r"\b(?:and(?!\s+(?:now|so|thus|therefore|hence)\b)|while|whereas)\b",
                          re.I)
_BRACKETED = re.compile(r"\([^()]*\)")  # "(a man and a woman)" joins no values
# "41 points (26+15)", "36 more signatures (100 - 64)": a bracket after a value and at most two
# words explains the value (`_explained`).
_EXPLAINS = re.compile(r"[ \t]*(?:[A-Za-z°%]+[ \t]+){0,2}\(")


# "There are 5 apples.": a sentence that states a count.
_THERE_ARE = re.compile(r"[ \t*-]*there\s+(?:are|is)\s+(?:a\s+total\s+of\s+)?", re.I)


def _states_after(text: str, last: NumberToken, method_end: int) -> bool:
    """Whether the sentence of the last number, after a description of the method, states
    it ("To find the total, count the apples. There are 5 apples.")."""
    said = sentence_start(text, last.start)
    return said >= method_end and _THERE_ARE.fullmatch(text, said, last.start) is not None


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
    inside = _explained(text, inside[::-1])
    last = inside[-1]
    stop = SENTENCE_END.search(text, last.end, last.end + 200)  # (+ " times", "… dollars in total")
    end = max(last.end + 6, stop.start() if stop else min(len(text), last.end + 200))
    return stated(text[start:end], start, inside), start


# "Would you like me to explain …?", "Do you want a breakdown …?": an offer closing a response.
_OFFER = re.compile(r"[ \t*]*(?:would|do|shall|should|can)\s+(?:you|i)\s+"
                    r"(?:like|want|need|explain|show)\b", re.I)
_YEAR = re.compile(r"(?:1[89]|20)\d\d")


# "The total is 24 — does that make sense …?": a value stated (after "is"), then a dash or a
# comma and a question that checks it; not a sentence that opens asking ("What is 24, …?").
_CHECKED_AFTER = re.compile(r"[ \t]*(?:[A-Za-z%°]+[ \t]*)?(?:—|–|--|,)(?![ \t]*or\b)")  # not "24, or is it 30?"
_ASKING = re.compile(r"[ \t*#-]*(?:what|how|why|which|who|when|where|is|are|was|were|do|does|did"
                     r"|can|could|would|should|will|shall)\b", re.I)
_STATED_BEFORE = re.compile(r"\b(?:is|are|was|were|equals?)[ \t]+(?:about[ \t]+|approximately[ \t]+)?$",
                            re.I)
# "Why might 2019 be so high?": a closing question about why, not asking a value.
_WHY = re.compile(r"[ \t*]*why\b", re.I)


def _stated_then_checked(text: str, token: NumberToken, opened: int) -> bool:
    """Whether the number, in a sentence ending with a question mark, is stated before the
    question ("The total is 24 — does that make sense given 3 boxes of 8?")."""
    return _CHECKED_AFTER.match(text, token.end) is not None \
        and _STATED_BEFORE.search(text, max(opened, token.start - 20), token.start) is not None \
        and _ASKING.match(text, opened) is None


def _answer_before_question(text: str, found: list[NumberToken], token: NumberToken,
                            opened: int) -> NumberToken | None:
    """The value of the statement before a closing question that asks nothing new: an offer
    repeating the value it ends on ("The total is 24. Would you like me to explain how I got
    24?"), or a question why that repeats only numbers the statement has ("The bar for 2019
    is the tallest at 87. Why might 2019 be so high?")."""
    before = [t for t in found if t.end <= opened]
    if not before or question_from(text, before[-1].end):
        return None
    if token.value == before[-1].value and _OFFER.match(text, opened):
        return before[-1]
    if not _WHY.match(text, opened):
        return None
    answer, said = _sentence_number(text, before)
    values = {t.value for t in before if t.start >= said}
    asked = [t for t in found if t.start >= opened]
    return answer if all(t.value in values for t in asked) else None


def _explained(text: str, inside: list[NumberToken]) -> list[NumberToken]:
    """A sentence's numbers without those of a bracket that explains a value before it ("41
    points (26+15)", "50 cents (15.00 divided by 30)"; `_EXPLAINS`), unless the calculation
    goes on after the bracket ("703 (previous day) + 246 = 949")."""
    if "(" not in text[inside[0].end:inside[-1].start]:
        return inside  # the common case: no bracket between the numbers
    for token in inside[:-1]:
        if _YEAR.fullmatch(text, token.start, token.end):
            continue  # "The value in 2015 (45) was the highest.": a year is no value explained
        opened = _EXPLAINS.match(text, token.end)
        if opened is None:
            continue
        close = text.find(")", opened.end(), opened.end() + 200)
        if close > 0 and "(" not in text[opened.end():close] \
                and not OPERAND_LABEL.match(text, close + 1):
            return [t for t in inside if not opened.end() <= t.start < close]
    return inside


def _prose_number(text: str, found: list[NumberToken],
                  boxed: bool) -> tuple[Extraction[float], NumberToken | None, str]:
    """The answer of a response without an answer clause or a bold number (`found`: its
    numbers; `boxed`: grounding boxes were removed from it)."""
    if not found:
        zero = no_count(text, found)
        if zero is None or refuses(text):  # "There is no answer to this question.": no count
            return FAILED, None, text
        return Extraction(0.0, PARSE_LENIENT), zero, text  # "The function has no zeros."
    last = found[-1]
    rest = (text[:last.start] + " " + text[last.end:]).strip().rstrip(".。!！")
    if len(found) == 1 and len(rest) <= 12 and not any(ch in rest for ch in _CLAUSE_MARKS) \
            and not cn_bound(text, last):  # (not a lone bound: "3年以下")
        return Extraction(last.value, PARSE_OK), last, text  # a lone number
    if boxed:  # phrases marked with boxes describe the picture; only a lone number answers
        return FAILED, None, text  # "<p>three parts</p>[0.05,0.52,0.37,0.62]": a caption
    if stops_before_number(text, found):
        return FAILED, None, text  # cut off before an answer: "Substituting, we get:"
    lowered = text.lower()
    if _method_only(text, lowered, found):
        return FAILED, None, text  # "The final answer will be the total count."
    zero = no_count(text, found)
    if zero is not None and not refuses(text, lowered=lowered):
        # "There are no clubs with exactly 64 members." (not "There is no value of … at x = 3.")
        return Extraction(0.0, PARSE_LENIENT), zero, text
    counted = count_with(text, found)
    if counted is not None:  # "There is one office that is exactly 38 square meters."
        return Extraction(counted.value, PARSE_LENIENT), counted, text
    token, opened = _sentence_number(text, found)
    if question_from(text, token.end) and not _stated_then_checked(text, token, opened):
        answered = _answer_before_question(text, found, token, opened)
        if answered is not None:
            return Extraction(answered.value, PARSE_LENIENT), answered, text
        return FAILED, None, text  # "… How many people think horse #12 will win?": asked
    at = found.index(token)
    first = first_of_pair(text, found, at) or (
        token if at + 1 < len(found) and first_of_pair(text, found, at + 1) else None)
    if first is not None and not (EXAMPLE.search(text[opened:token.end])
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


# "The answer depends on …", then a sentence per case opening "If …".
_DEPENDS = re.compile(r"\b(?:answer|result|value)\s+(?:depends|will\s+depend)\s+on\b", re.I)
_CASE = re.compile(r"(?:^|(?<=[.!?\n]))[ \t]*If\b")


def _method_only(text: str, lowered: str, found: list[NumberToken]) -> bool:
    """Whether the response only describes how to find the answer ("The final answer will be
    the total count.", `_METHOD_ONLY`, with no concluding sentence or count stated after it)
    or only sets up equations ("根据已知条件可以列出以下方程组: $$…$$", `_sets_up_only`), or goes
    through cases of what the answer depends on without choosing one (`_cases_only`)."""
    method = _METHOD_ONLY.search(text) if any(k in lowered for k in _METHOD_KEYS) else None
    if method and not CONCLUDES.search(text, method.end()) and not _states_after(
            text, found[-1], method.end()):
        return True
    if "方程" in text and _sets_up_only(text):
        return True
    return "depend" in lowered and _cases_only(text)


def _cases_only(text: str) -> bool:
    """Whether the response says its answer depends on something and then goes through two or
    more cases ("The answer depends on how many days it took. If she ate one egg per day, …
    If she ate more, …"), choosing none (one case worked through gives its value)."""
    depends = _DEPENDS.search(text)
    return depends is not None and len(_CASE.findall(text, depends.end())) > 1


def _sets_up_only(text: str) -> bool:
    """Whether a response sets up equations ("可以列出以下方程组") and draws nothing from them
    after: no "解得", "所以", "因此" … (`_SOLVED_CJK`) follows."""
    setup = _SETS_UP.search(text)
    return setup is not None and _SOLVED_CJK.search(text, setup.end()) is None


def _not_the_answer(text: str, lowered: str, found: list[NumberToken], token: NumberToken,
                    opened: int) -> bool:
    """Whether the number picked from the prose (`token`, in the sentence starting at
    `opened`; `lowered`: `text` lower-cased) is no answer: an example, one end of a range, an option's value, one of
    two coordinated values, part of a list, or said after a refusal."""
    if EXAMPLE.search(text[opened:token.end]) or (_RANGE_BEFORE.search(
            text, max(0, token.start - 30), token.start) and not LABEL_BEFORE.search(
            text, max(0, token.start - 20), token.start)) \
            or _RANGE_AFTER.match(text, token.end) \
            or cn_bound(text, token) \
            or _OPTION_LABEL.search(text, max(0, token.start - 8), token.start):
        return True  # "For example, if …", "around 10 to 15 years", "(d) 4000"
    stop = SENTENCE_END.search(text, token.end)
    end = len(text) if stop is None else stop.end()
    if _coordinated(text, found, token, opened):
        return True  # "4 small cubes and 2 large objects": two values
    if any(m.start() <= token.start < m.end() for m in _ENUMERATION.finditer(
            text, opened, end)):
        return True  # "1, 2, 3, 4, 5": a list, not an answer
    return refuses(text, token.start, lowered)


def _cited(text: str, token: NumberToken) -> bool:
    """Whether `token` is a reference in square brackets ("this effect (e.g. [2]), and …"), no
    value stated beside another."""
    return text[token.start - 1:token.start] == "[" and text[token.end:token.end + 1] == "]"


def _coordinated(text: str, found: list[NumberToken], token: NumberToken, opened: int) -> bool:
    """Whether `token` is one of two different values stated side by side in its sentence
    ("4 small cubes and 2 large objects", "The perimeter is 14 and the area is 3 × 4 = 12.": the
    operands of the calculation giving it aside; not "(a man and a woman) is 10", not a
    threshold restated from the question: "lower than 8", not a reference: "[2]")."""
    stop = SENTENCE_END.search(text, token.end)
    end = len(text) if stop is None else stop.end()
    worked = _WORKED_BEFORE.search(text, max(opened, token.start - 80), token.start)
    upto = token.start if worked is None else worked.start()  # "… and the area is 3 × 4 = 12"
    before = [other for other in found if opened <= other.end <= upto and not _cited(text, other)]
    after = [other for other in found if token.end <= other.start < end and not _cited(text, other)]
    for left, right in ((before[-1] if before else None, token),
                        (token, after[0] if after else None)):
        if left and right and (left.value != right.value or two_things(text, left, right)) \
                and _COORDINATED.search(
                _BRACKETED.sub("", text[left.end:right.start])) \
                and not THRESHOLD.search(text, max(0, right.start - 12), right.start):
            return True
    # "There are 2 bars with values over 40 and 1 bar under 10.": a second count of things,
    # right after an "and" later in the sentence, with only bounds between ("over 40")
    for between, other in zip(after, after[1:]):
        if not _BOUND_BEFORE.search(text, max(0, between.start - 8), between.start):
            break  # "needs 4896 to buy 8 … packages and 7 … packages": 8 and 7 are the pair
        if other.value != token.value and _AND_BEFORE.search(text, max(0, other.start - 6), other.start) \
                and noun_after(text, other) \
                and not _OTHER_CLAUSE.search(text, token.end, other.start) \
                and not _RANGE_BEFORE.search(text, max(0, other.start - 30), other.start):
            return True  # (not "8 (5 red and 3 blue)", "8: 5 red and 3 blue", "between 19 and 35")
    return False


# "3 × 4 = " right before a value: the calculation that gives it, whose operands are no value
# side by side with it.
_WORKED_BEFORE = re.compile(r"\d[\d.]*(?:[ \t]*(?:[-+×*/÷·]|x(?=[ \t]*\d))[ \t]*\d[\d.]*)+[ \t]*=[ \t]*$")
_BOUND_BEFORE = re.compile(r"\b(?:than|least|most|over|under|above|below)[ \t]+$", re.I)
_OTHER_CLAUSE = re.compile(r"[(:;—–]")  # "8: 5 red and 3 blue": the count's parts explain it
_AND_BEFORE = re.compile(r"\band[ \t]+$", re.I)
