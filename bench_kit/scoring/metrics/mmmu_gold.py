"""Whether a gold is in one of MMMU's open-answer candidates (`gold_in`, for
`bench_kit.scoring.metrics.mmmu_open`; docs/METRICS.md, the `mmmu_open` rows of its reference
differences): a numeric gold among the values a candidate states (after its last "=", without
an explanation or a consequence after its value), a text gold found as a whole word or term,
a gold in LaTeX math and the candidate both read as plain math first."""

from __future__ import annotations

import functools
import re

from bench_kit.scoring.extract.clause_number import (
    CALCULATION_AFTER_AND,
    CONCLUDED,
    OPERAND_LABEL,
    solved_at,
)
from bench_kit.scoring.extract.expression_parts import part_of_expression
from bench_kit.scoring.extract.numbers import asks_precision
from bench_kit.scoring.extract.response import RULED_OUT_BEFORE
from bench_kit.scoring.extract.written_twice import written_twice
from bench_kit.text.latex import plain_latex
from bench_kit.text.numbers import number_tokens, parse_number

_SPACED_MINUS = re.compile(r"(?<![\w)}])-\s+$")  # "$- \\frac{1}{2}$" is -1/2, "3 - 2" is no sign


# "1/6", "\\frac{6}{35}", "-\\dfrac{3}{4}": a number written as a fraction, an exact value.
_FRACTION = re.compile(r"-?\s*(?:\d+\s*/\s*\d+|\\[dt]?frac\s*\{\s*\d+\s*\}\s*\{\s*\d+\s*\})")


def _has_value(key: str, number: float, fraction: bool) -> bool:
    """Whether a number of a candidate that can be its value (`part_of_expression`: not
    "4\\pi", "\\sqrt{2}", an exponent, an operand of an operation left undone, "1 - sin(1)",
    "100 * 2^99", a ratio's side or a function's argument) is the gold's `number` at 2
    decimals; a minus spaced from its number is its sign ("- \\frac{1}{2}"). A gold written as
    a LaTeX fraction (`fraction`: "$\\frac{6}{35}$", an exact value as math answers are given;
    a plain "47/137" is MMMU's, rounded) is compared exactly with a fraction of the candidate
    ("1/6" is not "\\frac{6}{35}", though both are 0.17), with a decimal still at 2 decimals."""
    for t in number_tokens(key):
        if part_of_expression(key, t, False) or asks_precision(key, t):
            continue  # (nor "to 3 significant figures")
        value = -t.value if _SPACED_MINUS.search(key, max(0, t.start - 4), t.start) else t.value
        if fraction and _FRACTION.fullmatch(key, t.start, t.end):
            if abs(value - number) <= 1e-9 * max(1.0, abs(number)):
                return True
        elif round(value, 2) == round(number, 2):
            return True
    return False


_SINGLE_QUOTE = re.compile(r"(?<![^\W_])'|'(?![^\W_])")  # a single quote not between two letters


def gold_in(key: str, gold: str) -> bool:
    """Whether a gold is in a candidate: a number among the values after its last "="
    ("k=2" is 2, "3 + 4 = 7" is 7), a text as `_text_gold` (double quotes, and single quotes
    not between two letters, in the candidate aside when the gold has none; not right after
    "not" / "不是", `RULED_OUT_BEFORE`; a one-letter gold not as one of letters listed, "A, B",
    `_LETTER_LIST`); a gold in LaTeX math ("$\\sqrt{3}$",
    "$x^{2}+y^{2}=2$") and the candidate both read as plain text first."""
    number = gold_number(gold)
    if number is not None:
        fraction = "frac" in gold and _FRACTION.fullmatch(gold.strip(" $")) is not None
        return any(_has_value(side, number, fraction) for side in _result_sides(key))
    command = gold.strip(" $").startswith("\\")
    math = gold.strip().startswith("$")
    if math:
        gold, key = _plain_math(gold), _plain_math(key)
    needle = "".join(gold.lower().split())
    if '"' in key and '"' not in needle:  # 'The options are "A" and "B"' holds the gold A and B
        key = key.replace('"', "")
    if "'" in key and "'" not in needle:  # "The words are 'cat' and 'dog'." holds cat and dog
        key = _SINGLE_QUOTE.sub("", key)  # (an apostrophe between letters, "it's", kept)
    if not needle:
        return False
    pattern = _text_gold(needle, command, math)
    listed = len(needle) == 1 and needle.isalpha() and "," in key  # (、 is a comma by now)
    if not listed and "not" not in key and "不是" not in key:
        return pattern.search(key) is not None  # the common case
    lists = [m.span() for m in _LETTER_LIST.finditer(key)] if listed else []
    index = 0  # (one walk over the lists and the matches, both in order)
    for m in pattern.finditer(key):
        while index < len(lists) and lists[index][1] <= m.start():
            index += 1
        if index < len(lists) and lists[index][0] <= m.start():
            continue  # one of letters listed
        if RULED_OUT_BEFORE.search(key, max(0, m.start() - 8), m.start()) is None:
            return True
    return False


# "A, B", "A,B,C", "A、B 和 C": letters listed name several things (cities, points, options);
# a one-letter gold among them is not the answer they give.
_LETTER_LIST = re.compile(r"(?<![a-z0-9])[a-z](?:[ \t]*,[ \t]*[a-z](?![a-z0-9]))+"
                          r"(?:[ \t]*(?:和|and)[ \t]*[a-z](?![a-z0-9]))?")


_ROOT_OF_TERM = re.compile(r"sqrt\s*\((\d+(?:\.\d+)?|[a-z]+)\)")  # "sqrt(2)x" is not "sqrt(2x)"
_MATH_GOLD = re.compile(r"\s*\$([^$]+)\$\s*")
# What ends a candidate's stated value: an explanation after it ("42, where x = 6", "15 when
# n = 5", "30 (boys = 12)"), whose "=" is not the value's, or a consequence drawn from it
# ("The answer is 5 apples, so 6 pears" states 5).
# (?<!\s): a run of spaces is tried from its first space only (from every space it was
# quadratic, review numbers4 item 12); one %, spaces on one side of it only (two adjacent
# \s* backtracked quadratically, item 11).
_EXPLANATION = re.compile(r",?(?<!\s)\s+(?:where|when|since|because|with|as|if)\b"
                          r"|,\s+(?:so|thus|therefore|hence)\b|(?<!\s)\s+[(（]", re.I)
_SINGLE_VALUE = re.compile(r"\s*-?\d[\d,]*(?:\.\d+)?\s*(?:%\s*)?")


# "20, which is 4 more than 16", "12, and this is 5 more than 7": a value, then a remark on it.
_VALUE_REMARKED = re.compile(r"\s*(-?\d[\d,]*(?:\.\d+)?(?:\s*%|\s+[a-z]+)?)\s*,\s*(?:and\s+)?"
                             r"(?:this|that|which)\s+is\b", re.I)


# "…, which is 5000 m.": the value again, alone (with a unit or a percent sign).
_SAME_AGAIN = re.compile(r"\s*[-+$]?\d[\d,]*(?:\.\d+)?\s*(?:%|[A-Za-z]+)?\s*\.?\s*")


def _written_again(key: str, remarked: re.Match[str]) -> bool:
    """Whether the value after ", which is" is the remarked value written another way (as a
    percent, or in another unit of time or length: `written_twice`), not another quantity
    ("12, which is 3 dozen")."""
    found = number_tokens(key)
    first = [t for t in found if t.end <= remarked.end(1)]
    again = [t for t in found if t.start >= remarked.end()]
    return len(first) == 1 and len(again) == 1 and written_twice(key, first[0], again[0])


def gold_number(gold: str) -> float | None:
    """A gold's number: a plain number ("3", "1,250") or LaTeX math that is one ("$3$",
    "$-\\frac{3}{4}$", "$12\\%$"); else None."""
    math = _MATH_GOLD.fullmatch(gold)
    number = parse_number(math.group(1).replace("\\%", "%") if math else gold)
    return None if number is None else number[0]


_CALCULATION_AFTER = re.compile(CALCULATION_AFTER_AND, re.I)


def _result_sides(key: str) -> list[str]:
    """Where a candidate states its value, with an explanation or a consequence (", so 6
    pears") after its first number cut off: after its
    last "=" ("k=2" is 2, "3 + 4 = 7" is 7), or before its first when that is a single
    number ("42 = 6 × 7")."""
    remarked = _VALUE_REMARKED.match(key)
    if remarked is not None:
        if _SAME_AGAIN.fullmatch(key, remarked.end()) and _written_again(key, remarked):
            # "5 km, which is 5000 m", "0.5, which is 50%": one value written two ways
            return [remarked.group(1), key[remarked.end():]]
        return [remarked.group(1)]  # "20, which is 4 more than 16": 20
    found = number_tokens(key)
    calculation = _CALCULATION_AFTER.search(key, found[0].end) if found and "and" in key else None
    if calculation is not None and not CONCLUDED.search(key, calculation.end()):
        key = key[:calculation.start()]  # "7 and 7 × 3 = 21 is the product": 7, as for numbers
    explained = _EXPLANATION.search(key, found[0].end) if found else None
    while explained is not None and explained.group().strip() in ("(", "（"):
        close = key.find(")" if explained.group().strip() == "(" else "）", explained.end())
        if close < 0 or not OPERAND_LABEL.match(key, close + 1):
            break  # "30 (boys = 12)": the bracket explains the value
        explained = _EXPLANATION.search(key, close + 1)  # "703 (previous day) + 246 = 949"
    solved = solved_at(key, explained.start(), key[:explained.start()]) if explained else None
    if solved is not None:  # "5x - 2 = 13, so x = 3": the equation solved, 3
        key = key[solved:]
        found = number_tokens(key)
        explained = _EXPLANATION.search(key, found[0].end) if found else None
    key = key[:explained.start()] if explained else key
    sides = [key.rpartition("=")[2]]
    if "=" in key and _SINGLE_VALUE.fullmatch(key.partition("=")[0]):
        sides.append(key.partition("=")[0])
    return sides


def _plain_math(text: str) -> str:
    """Math read as plain text, lower-cased, one spelling of pi and roots ("14\\pi", "14π";
    "\\sqrt{2}", "√2")."""
    text = plain_latex(text).lower().replace("π", "pi").replace("√", "sqrt")
    return _ROOT_OF_TERM.sub(r"sqrt\1", text)


@functools.lru_cache(maxsize=256)
def _text_gold(needle: str, command: bool = False, math: bool = False) -> re.Pattern:
    """A text gold as found in a candidate: spacing free ("(3, -4)" is "(3,-4)", "2 \\pi"
    is "2\\pi"), neither continuing nor continued by a word or number ("b" is not in "bob"
    or "b2"; "\\pi" is not in "11\\pi" or "16 \\pi"); a gold in LaTeX math (`math`) is no
    numerator, denominator or power either ("$\\sqrt{3}$" is not in "2/\\sqrt{3}" or
    "\\sqrt{3}/2"); `command`: the gold starts with a LaTeX command."""
    body = r"\s*".join(map(re.escape, needle))
    if needle[-1].isalnum():
        body += r"(?![a-z0-9/^])(?!\.\d)" if math else r"(?![a-z0-9])(?!\.\d)"
    if math:  # no sign or further term either ("-3", "0.3", "sqrt3-1", "2x+1")
        body += r"(?!\s*[-+*×]\s*[\w(\\])"
    before = r"(?<![/^.+\-])(?<![+\-]\s)" if math else ""
    if needle[0] == "\\" or command:
        return re.compile(r"(?<![a-z0-9])(?<![a-z0-9]\s)" + before + body)
    return re.compile((r"(?<![a-z0-9])" if needle[0].isalnum() else "") + before + body)
