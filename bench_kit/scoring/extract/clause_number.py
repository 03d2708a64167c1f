"""Which number an answer clause's tail gives (`bench_kit.scoring.extract.numbers`,
docs/METRICS.md#numbers): its last number before an elaboration or a bracket that explains it,
the count of "3 out of 5", the first term of a ratio to one, one value written two ways; none
for two values ("10 or 12"), a pair cut at its comma, or an answer in words ("The answer is
None."); and whether the tail is the question restated ("Final Answer: How many …?")."""

from __future__ import annotations

import re

from bench_kit.scoring.extract.stated_number import OF_WHOLE, SENTENCE_END
from bench_kit.scoring.extract.written_twice import first_of_pair, written_twice
from bench_kit.text.numbers import NumberToken, as_percent, number_tokens

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
# "720 W (3 sig.fig.)": at most a short unit between a value and the bracket that explains it.
_UNIT_GAP = re.compile(r"[ \t]*(?:[A-Za-zΩ°%/$]{1,8}[ \t]*)?")
# "7.95 : 1": the first term of a ratio to one.
_TO_ONE = re.compile(r"[ \t]*:[ \t]*")
# "703 (previous day) + 246": a calculation goes on after the bracket, which labels an operand.
OPERAND_LABEL = re.compile(r"[ \t]*[-+*/×÷=]")


def tail_number(text: str, tail: str, at: int, found: list[NumberToken]) -> NumberToken | None:
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
            and not _ALTERNATIVES.search(tail, aside, found[-1].start) \
            and not OPERAND_LABEL.match(tail, tail.find(")", aside) + 1 or len(tail)):
        # (not "3 (or 4)", nor "703 (previous day) + 246 (that day) = 949": an operand's label)
        found = [token for token in found if token.end <= aside]  # "7 (3 + 4)": explains the 7
    last = found[-1]
    if len(found) > 1:
        before = found[-2]
        if last.value == 1 and _TO_ONE.fullmatch(tail, before.end, last.start):
            return before  # "7.95 : 1": a ratio to one is its first term
        if OF_WHOLE.fullmatch(tail, before.end, last.start):
            return before  # "3 out of 5": the count
        if _ALTERNATIVES.search(tail, before.end, last.start) and not (
                before.value == last.value and written_twice(tail, before, last)):
            # "The answer is 10 or 12." (none), "5 m or 5 s" and "1 or 1%" (one number, two
            # quantities: none); "0.5 or 50%": one value written two ways
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

# "The answer is incorrect.": a verdict on an answer (one given before, or in the prompt), not
# an answer in words.
_GRADES = re.compile(r"(?:not\s+|in)?(?:correct|right|wrong)", re.I)


def asks(text: str, tail: str, at: int) -> bool:
    """Whether an answer clause's tail (`tail`, at offset `at` of `text`) is the question
    restated ("Final Answer: How many bars did he buy?\nHe bought 6 bars."): its sentence
    ends with a question mark (`question_from`); the answer is stated after it."""
    if stated_then_asked(text[at:at + len(tail) + 2]):
        return False  # "The answer is 7, do you agree?", "答案是12，对吗？"
    return question_from(text, at + len(tail)) or text.startswith("？", at + len(tail))


# "7, do you agree?", "12，对吗？", "$\frac{1}{2}$, right?": a tail that opens with its value, then
# a comma: the value is stated; what follows (a tag, an offer, a hedge) asks nothing about it.
_VALUE_THEN_COMMA = re.compile(r"[ \t$*]*(?:[-+]?\.?\d[\d,.]*(?<!,)|\\d?frac\{[^{}]*\}\{[^{}]*\})"
                               r"[ \t$*%]*[,，]")


def stated_then_asked(tail: str) -> bool:
    """Whether an answer clause's tail opens with its value followed by a comma ("7, do you
    agree?", "11, but I'm not sure?"): no restated question, whatever ends the sentence."""
    return _VALUE_THEN_COMMA.match(tail) is not None


# ", right?", ", isn't it?": a tag after a statement asks nothing new.
_TAG = re.compile(r",[ \t]*(?:right|correct|true|no|ok(?:ay)?|yes|(?:is|was|are|were|do|does|did|can"
                  r"|could|would|will)(?:n't|[ \t]+not)?[ \t]+(?:it|they|he|she|you|we|there|that))"
                  r"[ \t]*\?$", re.I)


def question_from(text: str, at: int) -> bool:
    """Whether the sentence going on at `at` ends with a question mark (within 400
    characters), not a short tag after a comma ("The answer is 12, right?")."""
    stop = SENTENCE_END.search(text, at, at + 400)
    return stop is not None and stop.group() == "?" and _TAG.search(text, at, stop.end()) is None


def word_answer(text: str, tail: str, at: int) -> bool:
    """Whether an answer clause's tail (`tail`, at offset `at` of `text`) with no number in it
    is an answer in words ("None", "Insufficient Information", "that the method does not
    apply"): a whole sentence without a digit, or three words or more cut at a comma with no
    number after the comma in the sentence; not one or two words cut at a comma ("The answer is
    therefore, 12"), not "the largest value, 27", nor a tail that introduces the lines after it
    ("The answer is as follows:") or points to them (`_POINTS_ON`: "The answer is below.")."""
    if tail[-1] in ":：" or any(ch.isdigit() for ch in tail) or _POINTS_ON.match(tail) \
            or _GRADES.fullmatch(tail):
        return False  # "The answer is below.", "The answer is incorrect. … is 1.22."
    after = _after_comma(text, tail, at)
    if after is None:
        return True
    # "The answer is the largest value, 27."
    return len(tail.split()) >= 3 and not any(ch.isdigit() for ch in after)


def names_things(text: str, tail: str, at: int) -> bool:
    """Whether a tail of three words or more whose numbers are all spelled out is cut at a
    comma before a digit of its sentence ("The answer is the difference between the two bars,
    which is 13."): its numbers name things, the value follows ("The answer is two, …" is
    still two)."""
    if len(tail.split()) < 3 or any(ch.isdigit() for ch in tail):
        return False
    after = _after_comma(text, tail, at)
    return after is not None and any(ch.isdigit() for ch in after)


def _after_comma(text: str, tail: str, at: int) -> str | None:
    """The rest of a tail's sentence after the comma it is cut at (at most 400 characters),
    or None when the tail is not cut at a comma."""
    rest = text[at + len(tail):].lstrip(" \t")
    if rest[:1] not in (",", "，"):
        return None
    stop = SENTENCE_END.search(rest, 0, 400)
    return rest[:stop.start() if stop else 400]


# "x - 1 = 4, so x = 5": an equation solved for its variable after the comma.
_SOLVED = re.compile(r"[ \t]*,[ \t]*(?:so|thus|therefore|hence)[ \t]*,?[ \t]*([A-Za-z])[ \t]*=[ \t]*",
                     re.I)


def solved_at(text: str, at: int, equation: str) -> int | None:
    """Where the value starts when `text` goes on at `at` by solving `equation` (an equation
    in one letter, "x - 1 = 4", "5x - 2 = 13") for that letter (", so x = 5"); else None."""
    if "=" not in equation:
        return None
    found = _SOLVED.match(text, at)
    if found is None:
        return None
    letter = re.escape(found.group(1))
    return found.end() if re.search(r"(?<![A-Za-z])" + letter + r"(?![A-Za-z])",
                                    equation.partition("=")[0], re.I) else None


def solved_value(text: str, tail: str, at: int) -> NumberToken | None:
    """The value an answer clause's equation is solved to after its comma ("Answer: x - 1 =
    4, so x = 5" is 5), as a token of `text`; None when it is not solved there."""
    start = solved_at(text, at + len(tail), tail)
    if start is None:
        return None
    found = number_tokens(text[start:start + 40])
    if not found or found[0].start:
        return None
    return NumberToken(found[0].value, start + found[0].start, start + found[0].end,
                       found[0].percent)
