"""Which numbers of a text are only part of an expression, not a value of their own
(docs/METRICS.md#numbers): "4\\pi" (a coefficient), "\\sqrt{2}" (a radicand), "2^{x}" (an
exponent), "\\frac{\\sqrt{3}}{2}" (a fraction not read as a number), "1-\\frac{1}{4}" (an
operand of an operation left undone), "3:4" (a ratio), "P(1)" (a function's argument).
Used by the `numeric` extractor and the `mmmu_open` match."""

from __future__ import annotations

import re

from bench_kit.text.numbers import NumberToken

# "4\\pi", "2\\sqrt{3}", "2 \\cdot \\sqrt{3}": a number that is a coefficient of pi or a root.
_TIMES = r"\s*(?:(?:\\cdot|\\times|×|·)\s*)?"
# "3\\log_2 y", "2\\sin x": a coefficient of a function written as a LaTeX command too.
_COEFFICIENT_AFTER = re.compile(_TIMES + r"(?:\\pi|π|\\sqrt|√|\\(?:log|lg|ln|sin|cos|tan|cot|sec|csc|exp)(?![A-Za-z]))")
_PI_AFTER = re.compile(_TIMES + r"(?:\\pi|π)")
# "\\sqrt{2}", "2^{x}", "\\frac{\\sqrt{3}}{2}", "\\frac{1}{0}": inside a root, an exponent or a
# fraction not read as a number (a fraction that is read is one token from its "\\frac").
_INSIDE_BEFORE = re.compile(r"(?:\\sqrt\s*\{|√|\^\s*\{?|\\[dt]?frac\s*\{|\}\s*\{)\s*$")
# "5-\\frac{1}{2}", "3 × 2^4", "x - 1": the number is one operand of an operation left undone
# (an operand is a number, one letter or a bracket: "Answer - 42" is a label and its value).
_OPERAND_BEFORE = re.compile(r"(?:\d|(?<![^\W\d_])[^\W\d_]|[)}\]])[ \t]*(?:[-+*/×÷·]|\\times|\\cdot"
                             r"|\\div)[ \t]*$")
# "Option 2 - 45 degrees", "Step 3 – 12": a dash after a numbered label separates it from the
# value, it subtracts nothing.
LABEL_BEFORE = re.compile(r"\b(?:option|choice|step|case|method|part|question|item|figure"
                           r"|table|no\.?)[ \t]*#?\d+[ \t]*[-–][ \t]*$", re.I)
# "1 - sin(1)", "100 * 2^99", "2 + \\sqrt{3}": the number is the first operand of an operation
# left undone (the operand after the sign is a number, one letter, a bracket, a root or a
# function: "12 - the rest" is no operation).
_OPERAND_AFTER = re.compile(r"[ \t]*(?:[-+*/×÷·]|\\times|\\cdot|\\div)[ \t]*(?:\d|[^\W\d_](?![^\W\d_])"
                            r"|(?:sin|cos|tan|log|ln|exp|sqrt)\b|[(\\√])")
# "P(1)", "f(2)", "sin(1)": the argument of a function.
_ARGUMENT_BEFORE = re.compile(r"(?:(?<![A-Za-z])[A-Za-z]|\b(?:sin|cos|tan|log|ln|exp))\($")
# "3:4", "10:30": one side of a ratio or a clock time; the first term of a ratio to one
# ("7.95:1", as "7.95 : 1") is its value.
_RATIO_AFTER = re.compile(r":(?!1(?![\d.:]))\d")
_RATIO_BEFORE = re.compile(r"\d:$")


def not_a_value(text: str, token: NumberToken, pi_units: bool = False) -> bool:
    """Whether a number of `text` is part of an expression, not a value of its own: a
    coefficient of pi or a root ("4\\pi"; with `pi_units` pi is a unit, "4\\pi" is 4), or
    inside a root, an exponent or a fraction whose parts are not numbers ("\\sqrt{2}",
    "\\sqrt{   2}", "\\sqrt   {2}", "\\frac{\\sqrt{3}}{2}"); a times sign may stand between
    a coefficient and its pi or root ("2 \\cdot \\sqrt{3}")."""
    return (_COEFFICIENT_AFTER.match(text, token.end) is not None
            and not (pi_units and _PI_AFTER.match(text, token.end))) \
        or _INSIDE_BEFORE.search(text, max(0, _marker_end(text, token.start) - 8),
                                 token.start) is not None


def _marker_end(text: str, end: int) -> int:
    """Where a marker ("\\sqrt{") before the number at `end` would end, spaces stepped over
    before the number and before an opening brace: the 8-character look-back starts there, so
    "\\sqrt{   2}" and "\\sqrt   {2}" are radicands however many spaces they have (each space
    is stepped over once: the spaces stepped over end at this number or its brace)."""
    while end and text[end - 1].isspace():
        end -= 1
    if end and text[end - 1] == "{":
        end -= 1
        while end and text[end - 1].isspace():
            end -= 1
    return end


# "x^2+y^2=5", "2x+y+1=0", "(x-1)^2+(y+1)^2=\\frac{3}{8}": the right side of an equation in
# x and y is a constant of a curve or line, the equation is the answer.
_EQUALS_BEFORE = re.compile(r"=[ \t]*$")
_SIDE_START = re.compile(r".*(?:[,，;；:：=\n]|\\\\|或|\b(?:or|and)\b)", re.S)  # (\\: a LaTeX line break)
_X = re.compile(r"(?<![A-Za-z\\])x(?![A-Za-z])")
_Y = re.compile(r"(?<![A-Za-z\\])y(?![A-Za-z])")
# A curve's side has a coefficient, a constant term, a power or a bracket ("x^2+y^2",
# "2x+y+1"); a bare "x + y" is a quantity asked for ("The sum x + y = 12": 12 is its value).
_CURVE_MARK = re.compile(r"[\d^(\\]")


def _curve_constant(text: str, token: NumberToken) -> bool:
    """Whether a number is the right side of an equation in x and y (`_EQUALS_BEFORE`)."""
    if _EQUALS_BEFORE.search(text, max(0, token.start - 4), token.start) is None:
        return False
    side = text[max(0, token.start - 120):token.start].rstrip().removesuffix("=")
    cut = _SIDE_START.match(side)
    side = side[cut.end():] if cut else side
    return _X.search(side) is not None and _Y.search(side) is not None \
        and _CURVE_MARK.search(side) is not None


def part_of_expression(text: str, token: NumberToken, pi_units: bool) -> bool:
    """Whether the number picked as the answer is only part of what the response states:
    `not_a_value`, an operand of an operation it leaves undone ("1-\\frac{1}{4}"; "(x+1)-2",
    "\\sqrt{k^2+4}": a number whose sign follows a closing bracket is a term), the constant
    of an equation in x and y ("x^2+y^2=5": the curve is the answer), one side
    of a ratio ("3:4") or a function's argument ("P(1)")."""
    return not_a_value(text, token, pi_units) or _RATIO_AFTER.match(text, token.end) is not None \
        or _RATIO_BEFORE.search(text, max(0, token.start - 10), token.start) is not None \
        or (_OPERAND_BEFORE.search(text, max(0, token.start - 10), token.start) is not None
            and LABEL_BEFORE.search(text, max(0, token.start - 20), token.start) is None) \
        or _OPERAND_AFTER.match(text, token.end) is not None \
        or ("=" in text and _curve_constant(text, token)) \
        or (text[token.start:token.start + 1] in ("+", "-") and token.start > 0
            and text[token.start - 1] in ")}]") \
        or (text[token.end:token.end + 1] == ")"
            and _ARGUMENT_BEFORE.search(text, max(0, token.start - 4), token.start) is not None)
