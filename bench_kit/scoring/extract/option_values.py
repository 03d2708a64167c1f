"""Options that are numbers (rule 7b of `bench_kit.scoring.extract.answers`): the number an
option is ("10m", "sqrt(3)/2") and the one option equal to the response's answer number
(`by_option_value`)."""

from __future__ import annotations

import functools
import math
import re
from collections.abc import Mapping

from bench_kit.scoring.extract.no_answer import NO_ANSWER
from bench_kit.scoring.extract.no_option_statements import _NONE_OPTION
from bench_kit.scoring.extract.numbers import answer_number_token
from bench_kit.scoring.extract.response import FAILED, PARSE_LENIENT, Extraction, extraction
from bench_kit.text.latex import plain_latex
from bench_kit.text.numbers import number_tokens

_NOT_A_VALUE = ("√", "sqrt")  # an option "√10 cm" is not the number it holds
# ... but a root is a value of its own: "sqrt(3)/2", "2 sqrt(2)", "sqrt(10) cm"
_ROOT = re.compile(r"\s*(\d+(?:\.\d+)?)?\s*(?:sqrt|√)\s*\(?(\d+(?:\.\d+)?)\)?\s*(?:/\s*(\d+(?:\.\d+)?))?"
                   r"\s*([^\d()/^]{0,12})")


@functools.lru_cache(maxsize=4096)
def _option_value(text: str) -> float | None:
    """The number an option is ("10m", "60°", "5πcm" -> 5), or None for other options."""
    text = plain_latex(text)  # "$\\frac{7}{2} \\mathrm{~cm}^{2}$" -> "7/2 cm"
    root = _ROOT.fullmatch(text)
    if root is not None:  # "sqrt(3)/2" is 0.866…, "2 sqrt(2) cm" 2.83 (never the 3 or 2 it holds)
        factor, radicand, divisor = (float(group) if group else 1.0 for group in root.groups()[:3])
        return factor * math.sqrt(radicand) / divisor if divisor else None
    found = number_tokens(text)
    if len(found) != 1 or any(sign in text for sign in _NOT_A_VALUE):
        return None
    rest = text[:found[0].start] + text[found[0].end:]
    return found[0].value if len(rest) <= 12 and not any(ch.isdigit() for ch in rest) else None


@functools.lru_cache(maxsize=4096)
def _offers_no_answer(option: str) -> bool:
    """Whether an option's text offers no answer ("It is impossible to determine")."""
    return bool(_NONE_OPTION.search(option) or NO_ANSWER.search(option))


def option_values(choices: Mapping[str, str], options: dict[str, str]) -> dict[str, float | None] | None:
    """{letter: the number the option is} when the options are all numbers (but for one
    that offers no answer, "It is impossible to determine": None), else None."""
    values: dict[str, float | None] = {}
    other = None
    for letter, key in options.items():  # (read one by one: most options stop at the second)
        value = values[letter] = _option_value(str(choices.get(key, "")))
        if value is None:
            if other is not None:
                return None  # two options that are not numbers
            other = letter
    if len(values) < 3 if other else len(values) < 2:
        return None
    if other and not _offers_no_answer(str(choices.get(options[other], ""))):
        return None  # an option that is neither a number nor "it is impossible to tell"
    return values


def by_option_value(text: str, choices: Mapping[str, str],
                    options: dict[str, str]) -> Extraction[str]:
    """Rule 7b: options that are all numbers (`option_values`), and the response's answer
    number (the last one, unless written right after "not": "40°, not 34°" gives none)
    equals exactly one."""
    return by_values(text, choices, options, option_values(choices, options))


def by_values(text: str, choices: Mapping[str, str], options: dict[str, str],
              values: dict[str, float | None] | None) -> Extraction[str]:
    """`by_option_value` with the options' `values` read already (`option_values`)."""
    if values is None:
        return FAILED
    pi_units = any("π" in str(choices.get(key, "")) or "\\pi" in str(choices.get(key, ""))
                   for key in options.values())  # options "2πcm" … "5πcm"
    found, token, cleaned = answer_number_token(text, pi_units)
    if token is None or found.value is None or cleaned[max(0, token.start - 5):token.start].lower().strip() == "not":
        return FAILED
    if _in_root(cleaned, token.start, token.end):
        return FAILED
    hits = [letter for letter, value in values.items()
            if value is not None and found.value is not None
            and abs(value - found.value) <= 1e-9 * max(1.0, abs(value))]
    return extraction(options[hits[0]], PARSE_LENIENT) if len(hits) == 1 else FAILED


# A radicand ("sqrt 3", "sqrt(3)") or a factor written against its root ("6 sqrt 3"); not
# a number beside a root it is checked by ("5 = sqrt 25", "5 ( sqrt 25 = 5)").
_RADICAND_BEFORE = re.compile(r"sqrt\s?\(?\s?$")
_FACTOR_AFTER = re.compile(r" ?(?:/ ?)?sqrt")  # ("1/ sqrt 2" too)


def _in_root(text: str, start: int, end: int) -> bool:
    """Whether the number at `text[start:end]` is the radicand of a root or a factor
    written against it ("sqrt(3)", "6 sqrt(3)"; the response is plain text by then, "√"
    read as "sqrt")."""
    return _RADICAND_BEFORE.search(text, max(0, start - 7), start) is not None \
        or _FACTOR_AFTER.match(text, end) is not None
