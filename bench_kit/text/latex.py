"""LaTeX math as plain text, for matching an answer against option texts written in LaTeX
(MATH-Vision and Kangaroo-style items: "$\\frac{7}{2} \\mathrm{~cm}^{2}$" -> "7/2 cm").

Only what changes how a value or a word reads: fractions, thin spaces, units and their
powers, `\\text{}`-style wrappers, degrees, and the command names of functions and Greek
letters (kept as words: "\\cos (2 \\beta)" -> "cos (2 beta)"). Everything else is left as
it is; the result is for matching, not for display.
"""

from __future__ import annotations

import re

# Innermost braces only: nested fractions are unwrapped from the inside out. An argument
# without braces is one character, as TeX reads it: "\\frac12" is 1/2, "\\sqrt3" is sqrt(3).
_ARGUMENT = r"(?:\{([^{}]*)\}|([0-9A-Za-z]))"
_FRAC = re.compile(r"\\[dt]?frac\s*" + _ARGUMENT + r"\s*" + _ARGUMENT)
_SQRT = re.compile(r"\\sqrt\s*" + _ARGUMENT)
_WRAPPER = re.compile(r"\\(?:text|textbf|textrm|mathrm|mathbf|mathit|operatorname|mbox|boxed)\s*"
                      r"\{([^{}]*)\}")
_DEGREES = re.compile(r"\^\s*\{?\s*\\circ\s*\}?")
# A unit's power ("cm^{2}", "m^3"): dropped unless the caller keeps it (`keep_power`: the
# options differ by it, 8 cm² and 8 cm³, or "m" is a variable, m²+1 and m³+1).
# (Read as "\\b((?i:[cmdk]?m|ft|in|yd|units?))\\s*\\^…": the unit's first letter first, in every
# case form (?i) matches, then the look-back for the word boundary and the rest of the unit:
# the engine skips to those letters, three times faster on long responses, same matches.)
_UNIT_POWER = re.compile("([cdkmfiyuCDKMFIYU\u212a\u0130\u0131](?<!\\w.)"
                         "(?:(?<=[cdkmCDKM\u212a])[mM]|(?<=[mM])|(?<=[fF])[tT]|(?<=[iI\u0130\u0131])[nN]"
                         "|(?<=[yY])[dD]|(?<=[uU])[nN][iI\u0130\u0131][tT][sS\u017f]?))"
                         r"\s*\^\s*\{?\s*([23])\s*\}?(?![0-9])")


def _SUPERSCRIPT(power: re.Match[str]) -> str:  # noqa: N802 (a replacement, like r"\1")
    return str(power.group(1)) + {"2": "²", "3": "³"}[power.group(2)]


_SPACING = re.compile(r"\\[,;: ]|\\quad|\\qquad|~")  # a space
_NO_SPACING = re.compile(r"\\!|\\left|\\right")  # nothing
_SYMBOL = {"\\pi": " pi ", "\\cdot": "×", "\\times": "×", "\\%": "%", "\\circ": "°",
           "\\le": "≤", "\\ge": "≥", "\\leq": "≤", "\\geq": "≥", "\\neq": "≠"}
# Every other command ("\\alpha" -> " alpha "), after the symbols (`_SYMBOL_COMMAND`): a command
# runs from its backslash over its letters, so the two passes find the commands one would.
_COMMAND = re.compile(r"\\([A-Za-z]+)")
_SYMBOL_COMMAND = re.compile("|".join(re.escape(name) + ("(?![A-Za-z])" if name[1:].isalpha() else "")
                                     for name in _SYMBOL))
_MATH_DELIMITER = re.compile(r"\\[()\[\]]")  # "\\(", "\\[" …; "$" is replaced first


def plain_latex(text: str, keep_power: bool = False) -> str:
    """`text` with its LaTeX math read as plain text (unchanged when it holds none); a
    unit's power dropped, or with `keep_power` written as a superscript ("cm²").

    >>> plain_latex("$\\\\frac{7}{2} \\\\mathrm{~cm}^{2}$")
    '7/2 cm'
    >>> plain_latex("$10,\\\\!404$")
    '10,404'
    >>> plain_latex("$30^{\\\\circ}$")
    '30°'
    """
    if "\\" not in text and "$" not in text and "^" not in text and "√" not in text:
        return text
    # (each substitution only where its literal is: every match of it holds that literal)
    if "√" in text:
        text = text.replace("√", " sqrt ")  # "√3/2" reads as "\\frac{\\sqrt{3}}{2}" does
    if "$" in text:  # (a "$" becoming a space joins no backslash to a bracket)
        text = text.replace("$", " ")
    if "\\(" in text or "\\)" in text or "\\[" in text or "\\]" in text:
        text = _MATH_DELIMITER.sub(" ", text)
    if "\\" in text or "~" in text:  # (two passes, no callback: the matches of one never
        text = _SPACING.sub(" ", text)  # overlap those of the other, a space makes none)
        if "\\" in text:
            text = _NO_SPACING.sub("", text)
    if "circ" in text:
        text = _DEGREES.sub("°", text)
    text = _unwrapped(text)
    if "^" in text:
        text = _UNIT_POWER.sub(_SUPERSCRIPT if keep_power else r"\1", text)
    if "\\" in text:
        text = _SYMBOL_COMMAND.sub(lambda m: _SYMBOL[m.group()], text)
        text = _COMMAND.sub(r" \1 ", text)
    if "{" in text or "}" in text:
        text = text.replace("{", "").replace("}", "")
    if "\t" in text:  # a run of blanks reads as one space (a single space is left as it is)
        text = text.replace("\t", " ")
    while "  " in text:  # (each pass halves a run: faster than a regex over every space)
        text = text.replace("  ", " ")
    if "\n" in text:  # (no two blanks in a row left: a space on either side of a line break)
        text = text.replace(" \n", "\n").replace("\n ", "\n")
    return text.strip()  # (line breaks kept)


def _unwrapped(text: str) -> str:
    """`text` with its wrappers, fractions and roots read, nested ones innermost first."""
    for _ in range(3):
        if "\\" not in text:  # (every command below opens with one)
            break
        before = text
        if "{" in text:
            text = _WRAPPER.sub(r"\1", text)
        if "frac" in text:
            text = _FRAC.sub(_fraction, text)
        if "sqrt" in text:
            text = _SQRT.sub(lambda m: f" sqrt({_argument(m, 1).strip()})", text)
        if text == before:
            break
    return text


def _fraction(match: re.Match[str]) -> str:
    """A `_FRAC` match as "numerator/denominator"; an unbraced denominator ends its word
    ("\\frac123" is 1/2 times 3: "1/2 3", not "1/23")."""
    end = " " if match.group(4) is not None else ""
    return f"{_grouped(_argument(match, 1))}/{_grouped(_argument(match, 3))}{end}"


def _argument(match: re.Match[str], group: int) -> str:
    """A command's argument (`_ARGUMENT`): in braces (group `group`) or one character."""
    braced = match.group(group)
    return braced if braced is not None else match.group(group + 1)


def _grouped(part: str) -> str:
    """A fraction's part, in parentheses when it is more than a number, a name or a root
    ("1 + √3", "2x": "\\frac{1}{2x}" is "1/(2x)", not "1/2x")."""
    part = part.strip()
    return part if _SIMPLE_PART.fullmatch(part) else f"({part})"


_SIMPLE_PART = re.compile(r"\d+(?:\.\d+)?|[A-Za-z_]\w*|sqrt\([^()]*\)")
