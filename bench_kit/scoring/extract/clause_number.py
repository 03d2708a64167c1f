"""Which number an answer clause's tail gives (`bench_kit.scoring.extract.numbers`,
docs/METRICS.md#numbers): its last number before an elaboration or a bracket that explains it,
the count of "3 out of 5", the first term of a ratio to one, one value written two ways; none
for two values ("10 or 12"), a pair cut at its comma, or an answer in words ("The answer is
None."); and whether the tail is the question restated ("Final Answer: How many …?")."""

from __future__ import annotations

import re

from bench_kit.scoring.extract.cn_ranges import cn_bound
from bench_kit.scoring.extract.concluding import CONCLUDES_CJK
from bench_kit.scoring.extract.stated_number import OF_WHOLE, SENTENCE_END, stated
from bench_kit.scoring.extract.written_twice import first_of_pair, two_things, written_twice
from bench_kit.text.cjk import CJK_CHARS
from bench_kit.text.numbers import NumberToken, as_percent, number_tokens

# "1982 with an income of 931,441", "7 and it takes 3 steps", "12 and not 15": what follows
# the answer's number elaborates on it.
# "12,因为每组有3个" ("12, because each group has 3"): a reason right after the value and a comma,
# in Chinese too, or a description of it ("9，即 3 的平方", "9, i.e. the square of 3");
# "6 and 6 × 7 = 42 is the product": a calculation after "and", which goes on from the value
# (not one the clause then concludes from: "7 and 7 x 3 = 21 so the total is 21"; `CONCLUDED`).
# Also for `mmmu_open`'s candidates.
CALCULATION_AFTER_AND = r"\sand\s+(?=\d[\d.]*\s*(?:[×*·x]|\\times)\s*\d[\d.]*\s*=)"
_ELABORATION = re.compile(r"\s(?:with|which|because|since|due\s+to|and\s+(?:it|that|this|there"
                          r"|not))\b|(?<=[\d%])[ \t]*[,，][ \t]*(?:因为|由于|不是|其中|即(?=[ \t]*\d+[ \t]*的))"
                          r"|" + CALCULATION_AFTER_AND, re.I)
CONCLUDED = re.compile(r"=[^=]*?\b(?:so|thus|therefore|hence)\b", re.I)
# "after 3 years with interest the amount is 1157.63": the value is stated after the "with".
_RESTATED = re.compile(r"(?:\b(?:is|are|was|were|equals?)\b|=)[\s$]*$", re.I)
# 和 joining two things, not the 和 of a sum ("两数之和为15", "它们的和是15", "总和为36").
AND_CJK = r"(?<![之总的])和(?![为是等])"
# "10 or 12", "12 and 15", "q=1或q=2": two values given as the answer.
_ALTERNATIVES = re.compile(r"\b(?:or|and)\b|或|" + AND_CJK, re.I)
# "720 W (3 sig.fig.)": at most a short unit between a value and the bracket that explains it.
_UNIT_GAP = re.compile(r"[ \t]*(?:[A-Za-zΩ°%/$]{1,8}[ \t]*)?")
# "5 (x - 1)": a bracket holding an expression in a letter, which the value multiplies.
_FACTOR_BRACKET = re.compile(r" \(\s*(?:[A-Za-z]\s*[-+]\s*\d[\d.]*|\d[\d.]*\s*[-+]\s*[A-Za-z])\s*\)")
# "5 (or 6 if …)": a bracket after the value that opens with "or" offers another value (also
# for `mmmu_open`'s hedges).
OR_BRACKET = re.compile(r" \(\s*(?:or|或)\b", re.I)
_TIMES = re.compile(r"[ \t]+times[ \t]+", re.I)  # "2 times 10"
# "3 times larger than 4", "2 times as long as 5": a ratio to another number, not a product.
_TIMES_THAN = re.compile(r"[ \t]+times[ \t]+(?:[a-z]+er|more|less|fewer)[ \t]+than[ \t]+"
                         r"|[ \t]+times[ \t]+as[ \t]+[a-z]+[ \t]+as[ \t]+", re.I)
# "7.95 : 1": the first term of a ratio to one.
_TO_ONE = re.compile(r"[ \t]*:[ \t]*")
# "703 (previous day) + 246": a calculation goes on after the bracket, which labels an operand.
OPERAND_LABEL = re.compile(r"[ \t]*[-+*/×÷=]")


def tail_number(text: str, tail: str, at: int, found: list[NumberToken]) -> NumberToken | None:
    """The number an answer clause's tail (`tail`, at offset `at` of `text`) gives: its last
    number before an elaboration ("1982 with an income of 931,441" is 1982), or the count of
    "3 out of 5"; None when it gives two values ("10 or 12", "12
    and 15") or a pair cut at its comma ("(3, 4)")."""
    if len(found) > 1 and _several_values(tail, found):
        return None  # "答案是 3，5，7。", "答案：x = 3，y = 4。", "答案是 6，但是如果…，就是 4。"
    # (one past the last number keeps nothing less: "即 3 的平方" looks at the 3 and the 的)
    elaborated = _ELABORATION.search(tail, found[0].end) if len(found) > 1 else None
    if elaborated and not (elaborated.group().strip().lower() in ("with", "which") and _RESTATED.search(
            tail, max(elaborated.end(), found[-1].start - 20), found[-1].start)) \
            and not (elaborated.group().strip().lower() == "and"
                     and CONCLUDED.search(tail, elaborated.end())):  # "… = 21 so the total is 21"
        found = [token for token in found if token.end <= elaborated.start()]
    aside = tail.find(" (", found[0].end) if len(found) > 1 else -1
    if aside >= 0 and _bracket_undoes(tail, found, aside):
        return None  # "5 (or 6 if counting the partial one)", "5 (x - 1)"
    if aside >= 0 and any(token.end <= aside and _UNIT_GAP.fullmatch(tail, token.end, aside)
                          for token in found) \
            and not _ALTERNATIVES.search(tail, aside, found[-1].start) \
            and not OPERAND_LABEL.match(tail, tail.find(")", aside) + 1 or len(tail)):
        # (not "3 (or 4)", nor "703 (previous day) + 246 (that day) = 949": an operand's label)
        found = [token for token in found if token.end <= aside]  # "7 (3 + 4)": explains the 7
    last = found[-1]
    if cn_bound(tail, last):
        return None  # "答案:1年半至2年半", "刑期为2年以上7年以下": a range, no one value
    if len(found) > 1:
        before = found[-2]
        if _TIMES_THAN.fullmatch(tail, before.end, last.start):
            return before  # "The answer is 3 times larger than 4.": the ratio, 3
        if _TIMES.fullmatch(tail, before.end, last.start) and _UNIT_GAP.fullmatch(tail, last.end):
            # "The answer is 2 times 10.": a product said in words, left undone
            return NumberToken(before.value * last.value, before.start, last.end)
        if last.value == 1 and _TO_ONE.fullmatch(tail, before.end, last.start):
            return before  # "7.95 : 1": a ratio to one is its first term
        if OF_WHOLE.fullmatch(tail, before.end, last.start):
            return before  # "3 out of 5": the count
        if _ALTERNATIVES.search(tail, before.end, last.start) and not (
                before.value == last.value and written_twice(tail, before, last)
                and not two_things(tail, before, last)):  # (not "1 cracker and 1 cake")
            # "The answer is 10 or 12." (none), "5 m or 5 s" and "1 or 1%" (one number, two
            # quantities: none); "0.5 or 50%": one value written two ways
            return before if as_percent(before, last) \
                or first_of_pair(tail, found, len(found) - 1) else None
    if _gives_a_point(text, tail, at, last):
        return None  # "(18, 2) 或 (18, -2)", "The answer is (3, 4).": a point, no one number
    return last


# "(3, 4)", "(18,-2)": the last number closes a point's coordinates.
_POINT_BEFORE = re.compile(r"\([ \t]*[-+]?\d[\d.]*[ \t]*,[ \t]*$")
_POINT_AFTER = re.compile(r"[ \t]*\)")


def _gives_a_point(text: str, tail: str, at: int, last: NumberToken) -> bool:
    """Whether an answer clause's tail (`tail`, at offset `at` of `text`) gives a point or a
    pair, no one number: its last number closes the coordinates ("(18, 2) 或 (18, -2)",
    "(3, 4)"), or the clause was cut at the pair's comma ("The answer is (3, 4).": the tail
    "(3" opens a bracket it does not close, and a comma follows it)."""
    if _POINT_BEFORE.search(tail, max(0, last.start - 40), last.start) \
            and _POINT_AFTER.match(tail, last.end):
        return True
    return tail[0] in ("(", "[") and ")" not in tail and "]" not in tail \
        and text[at + len(tail):].lstrip()[:1] == ","


# "3,5,7", "3、5": values listed (cleaning writes "，" as ","), the whole tail.
_LISTED = re.compile(r"[ \t]*[-+]?\d[\d.]*(?:[ \t]*[,、][ \t]*[-+]?\d[\d.]*)+[ \t]*[.。]?[ \t]*")
# "x = 3", "两数之和为 30": a value given to a letter or a named quantity.
_ASSIGNED = re.compile(r"(?<![A-Za-z])([A-Za-z])[ \t]*=[ \t]*[-+]?\d"
                       rf"|([{CJK_CHARS}]{{2,8}}?)(?:为|是)[ \t]*[-+]?\d")
# "则 y = 6", "所以 y = 5": a value drawn from the one before, the conclusion (not another value).
_DRAWN = re.compile(rf"(?:则|即|得|{CONCLUDES_CJK})[^,]*$")
# "6，但是如果不算重复的，就是 4": after the value and its comma, a condition under which another
# value holds.
_IF_OTHERWISE = re.compile(r"[ \t]*+,[ \t]*+(?:但是?|不过)?[ \t]*+(?:如果|若|假如)")


_DIGIT_START = frozenset("0123456789+-.")


def _several_values(tail: str, found: list[NumberToken]) -> bool:
    """Whether a (Chinese) answer clause's tail, which runs past commas, gives several values:
    values listed ("3，5，7"), two named quantities or letters each given one ("两数之和为
    30，两数之差为 6", "x = 3，y = 4"), or another value under a condition after the first ("6，但
    是如果不算重复的，就是 4")."""
    if "," not in tail and "、" not in tail:
        return False
    if _LISTED.fullmatch(tail):
        return True
    names = {match.group(1) or match.group(2) for match in _ASSIGNED.finditer(tail)
             if not _DRAWN.search(tail, max(0, match.start() - 12), match.start())}
    if len(names) > 1:
        return True
    return _IF_OTHERWISE.match(tail, found[0].end) is not None \
        and any(token.value != found[0].value and tail[token.start:token.start + 1] in _DIGIT_START
                for token in found[1:])  # (digits: not 四/五 inside "四舍五入")


def _bracket_undoes(tail: str, found: list[NumberToken], aside: int) -> bool:
    """Whether the bracket at `aside` of an answer clause's tail leaves no one value: it
    offers another ("5 (or 6 if counting the partial one)") or is a factor in a letter that
    the number before it multiplies ("5 (x - 1)", an expression left undone)."""
    if _FACTOR_BRACKET.match(tail, aside):
        return any(token.end == aside for token in found)
    return OR_BRACKET.match(tail, aside) is not None and any(
        token.start > aside and offers_another(tail, found[0], token) for token in found)


def offers_another(text: str, value: NumberToken, other: NumberToken) -> bool:
    """Whether `other`, in an `OR_BRACKET` after `value` ("5 (or 6 if …)"), offers another
    value: not the same number, nor the value written another way ("0.5 (or 50%)", "12 inches
    (or 1 foot)"). Also for `mmmu_open`'s hedges."""
    return other.value != value.value and not written_twice(text, value, other)


# "The answer is as follows.", "… is below", "… is clear from the graph": a tail that points to
# where the answer is written, not an answer in words.
_POINTS_ON = re.compile(r"\s*(?:as\s+follows|below|above|simple|clear|obvious|easy|straightforward"
                        r"|determined|found|shown|given|in\s+the|on\s+the|from\s+the)\b", re.I)

def points_on(tail: str) -> bool:
    """Whether an answer clause's tail points to where the answer is written ("as follows",
    "below", "simple", "in the table …"; `_POINTS_ON`) instead of stating it."""
    return _POINTS_ON.match(tail) is not None


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
    if tail[-1] in ":：" or any(ch.isdigit() for ch in tail) or points_on(tail) \
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
    still two); or a tail with digits names a quantity whose value the sentence states after
    the comma (`_names_a_quantity`)."""
    if len(tail.split()) < 3:
        return False
    if any(ch.isdigit() for ch in tail):
        return _names_a_quantity(text, tail, at)
    after = _after_comma(text, tail, at)
    return after is not None and any(ch.isdigit() for ch in after)


# "after 3 years with interest", "2/3 of the total": a tail that names a quantity — a phrase
# opening with a preposition, or a part of a whole — ...
# (a part is a fraction or a percent, "half of the 40 cookies" too, not a count: "12 of the
# students, which is 40%" is 12);
_PART_NAMED = re.compile(r"[^,]*?(?:(?<![\d.])\d+[ \t]*/[ \t]*\d+|\d[\d.]*[ \t]*%|\bhalf"
                         r"|\b(?:a|one|two|three)[ \t]+(?:third|quarter|fifth)s?)[ \t]+of[ \t]+"
                         r"(?:the|a|an|his|her|its|their|this|that)\b", re.I)
# a phrase opening with a preposition only before a value named after the comma ("the amount
# is …"), not a remark ("for 5 hours, which is 300 minutes" is 5).
_PHRASE_NAMED = re.compile(r"(?:after|in|for|over|within|during|by)\s", re.I)
# ... whose value the rest of the sentence states after the comma (", which is 40", ", the
# amount is $1,157.63").
_VALUE_AFTER_COMMA = re.compile(r"[ \t]*(?:which|that|it|(the(?:[ \t]+[\w-]+){1,3}))[ \t]+(?:is|are|was"
                                r"|were|equals?|comes\s+to)[ \t]+[-+$]?\.?\d", re.I)


_LONE_VALUE = re.compile(r"[ \t]*[-+$]?\.?\d[\d,.]*%?(?:[ \t]+[A-Za-z]+)?[ \t.]*")


def _names_a_quantity(text: str, tail: str, at: int) -> bool:
    """Whether a tail with digits names a quantity whose value follows its comma ("The final
    answer is: after 3 years with interest, the amount is $1,157.63.", "The answer is 2/3 of
    the total, which is 40.")."""
    if len(tail) > 300:
        return False  # (bounded: a tail of one endless clause)
    after = _after_comma(text, tail, at)
    if after is None:
        return False
    stated_after = _VALUE_AFTER_COMMA.match(after, 1)
    return stated_after is not None and (_PART_NAMED.match(tail) is not None or (
        _PHRASE_NAMED.match(tail) is not None and stated_after.group(1) is not None))


def value_after_comma(text: str, tail: str, at: int) -> NumberToken | None:
    """The number the rest of a tail's sentence states after the comma it is cut at (`stated`:
    "… the two bars, which is 13." is 13, "… one of the three options, 45." is 45), as a token
    of `text`; for a tail that names things (`names_things`)."""
    after = _after_comma(text, tail, at)
    if after is None:
        return None
    found = number_tokens(after)
    if not found or not (_VALUE_AFTER_COMMA.match(after, 1) or _LONE_VALUE.fullmatch(after, 1)):
        return None  # "The answer is two hundred people, 120 of them adults.": read on
    start = text.index(after, at + len(tail))
    token = stated(after, 0, found)
    return NumberToken(token.value, start + token.start, start + token.end, token.percent)


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
    4, so x = 5" is 5), as a token of `text`; None when it is not solved there, or when the
    equation is in a bracket left open after a value, which explains it ("The answer is 4 (n + 1
    = 4, so n = 3)." is 4)."""
    opened = tail.rfind("(")
    if opened > 0 and ")" not in tail[opened:] and any(ch.isdigit() for ch in tail[:opened]):
        return None
    start = solved_at(text, at + len(tail), tail)
    if start is None:
        return None
    found = number_tokens(text[start:start + 40])
    if not found or found[0].start:
        return None
    return NumberToken(found[0].value, start + found[0].start, start + found[0].end,
                       found[0].percent)
