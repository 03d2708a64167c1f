"""How a reader's label is judged, without bench_kit's code (benchmarks/intent_agreement.py):
whether the reader's answer equals a gold (`label_is_correct`, a LaTeX gold read as plain
math by `plain_math`), whether a row is a number row, and whether an extracted number is
the reader's value. The measuring harness's own comparison: a figure is only as good as it."""

from __future__ import annotations

import ast
import re

_NUM = re.compile(r"^[-+]?(?:\d+(?:,\d{3})*(?:\.\d*)?|\.\d+)%?$")


_WORDS = {w: i for i, w in enumerate(
    "zero one two three four five six seven eight nine ten eleven twelve thirteen fourteen "
    "fifteen sixteen seventeen eighteen nineteen twenty".split())}


# "\frac{1}{2}" / "-\dfrac{3}{4}": the LaTeX spelling of a fraction, which the readers
# write as often as "1/2" (the report set's third reader: 8 of 11 differences were that).
_LATEX_FRACTION = re.compile(r"^([-+]?)\\[dt]?frac\{\s*(\d+)\s*\}\{\s*(\d+)\s*\}$")


# "4e-05", "5.27 × 10^-25", "9.98*10^-25", "10^5", "2*10^3" (a LaTeX gold "$2 \\times 10^{3}$" as plain
# math): a number in scientific notation, as TheoremQA's golds and its readers write them.
_SCIENTIFIC = re.compile(r"^(?:([-+]?\d+(?:\.\d+)?)\s*(?:[eE]([-+]?\d+)|(?:[×x*·]|\\times|\\cdot)\s*"
                         r"10\s*\^\s*[{(]?\s*([-+]?\d+)\s*[})]?)|10\s*\^\s*[{(]?\s*([-+]?\d+)\s*[})]?)$")


# "21.78万", "3亿", "12 million": a reader's value with a multiplier word kept as the response
# wrote it (report8's readers keep the response's own unit); the value is its magnitude. "余"
# after it ("5000余", "1万余": "more than", a sum stated roughly) is dropped: one reader kept it,
# another did not, and the value written is the same.
_MULTIPLIER = re.compile(r"^(.+?)\s*(万|亿|thousand|million|billion)?余?$")
_MULTIPLIER_VALUE = {"万": 1e4, "亿": 1e8, "thousand": 1e3, "million": 1e6, "billion": 1e9}


def _number(text: str) -> float | None:
    text = text.strip().replace("−", "-").rstrip(".")
    multiplied = _MULTIPLIER.match(text)
    if multiplied and multiplied.group(1) != text:
        value = _number(multiplied.group(1))
        factor = _MULTIPLIER_VALUE.get(multiplied.group(2) or "", 1.0)
        return None if value is None else round(value * factor, 6)
    scientific = _SCIENTIFIC.match(text)
    if scientific:
        exponent = next(part for part in scientific.groups()[1:] if part is not None)
        return float(scientific.group(1) or 1) * 10.0 ** int(exponent)
    fraction = _LATEX_FRACTION.match(text)
    if fraction:
        text = f"{fraction.group(1)}{fraction.group(2)}/{fraction.group(3)}"
    if text.lower() in _WORDS:
        return float(_WORDS[text.lower()])
    if _NUM.match(text):
        return float(text.replace(",", "").rstrip("%"))
    if re.match(r"^[-+]?\d+/\d+$", text):
        top, bottom = text.split("/")
        return float(top) / float(bottom) if float(bottom) else None
    return None


# TheoremQA's own grader compares a float gold within 4% of its size (TIGER-AI-Lab/TheoremQA,
# number_utils.py, `within_eps` via `compare_two_numbers`, commit acfc9686): the comparison used
# for a gold in scientific notation or below the decimals' step, where 2 decimals would call
# every small reading ("0", "5e-05" for 4e-05) right.
_RELATIVE_TOLERANCE = 0.04


def _same_float(value: float, gold: float, gold_text: str, row: dict) -> bool:
    """A float reading and gold: within 4% of the gold (TheoremQA's tolerance) when the gold
    is written in scientific notation or is smaller than the item's decimals can show
    ("4e-05", "0.0025" at 2 decimals), else equal at the item's decimals."""
    places = _places(row)
    if gold and (_SCIENTIFIC.match(gold_text.strip()) or abs(gold) < 10.0 ** -places):
        return abs(value - gold) <= _RELATIVE_TOLERANCE * abs(gold)
    return round(value, places) == round(gold, places)


def _places(row: dict) -> int:
    """The decimals a float gold is compared at: the item's precision, else 2 (a source
    that gives none, as the report set's: the rounding MMMU's ``eval_open`` applies, so
    the reader's "4.25" is not a gold "4.36", as 0 decimals had it)."""
    return 2 if row.get("precision") is None else int(row["precision"])


# A gold in LaTeX math ("$\\frac{2}{3}$", "$y=2 x$", "$(0,+\\infty)$") and the reader's answer
# ("2/3", "y=2x", "(0,+∞)") compared as plain math: written here, not with bench_kit's code.
_LATEX_SYMBOL = {"pi": "π", "infty": "∞", "cdot": "*", "times": "*", "leq": "≤", "le": "≤",
                 "geq": "≥", "ge": "≥", "neq": "≠", "circ": "°", "%": "%", "rightarrow": "→", "to": "→"}
_LATEX_SYMBOLS = re.compile(r"\\(" + "|".join(_LATEX_SYMBOL) + r")(?![a-zA-Z])")
_LATEX_WRAPPER = re.compile(r"\\(?:text|mathrm|mathbf|boxed)\s*\{([^{}]*)\}")
_LATEX_ROOT = re.compile(r"\\sqrt\s*\{([^{}]*)\}")
_LATEX_FRAC = re.compile(r"\\[dt]?frac\s*\{([^{}]*)\}\s*\{([^{}]*)\}")


def _term(part: str) -> str:
    """A numerator in parentheses unless it is one product ("3√10" in "3√10/10")."""
    return part if re.fullmatch(r"[\w.√π∞]+", part) else f"({part})"


# One factor: a number, a letter or a root of one ("2", "x", "√3", "√(2x)"). A denominator,
# a root's argument or an exponent (`_power`) of more is in parentheses: "\frac{1}{2x}" is "1/(2x)"
# (not "1/2x", "x/2"), "\sqrt{2x}" is "√(2x)" (not "\sqrt{2}x"), "2^{x+1}" is "2^(x+1)".
_FACTOR = re.compile(r"[-+]?(?:\d+(?:\.\d+)?|[a-zA-Zπ∞]|√(?:\d+(?:\.\d+)?|[a-zA-Zπ]|\([^()]*\)))")
_LATEX_POWER = re.compile(r"([_^])\s*\{([^{}]*)\}(?=([\w√(]?))")  # ("a_{1}2" is "a_(1)2")
# "3\frac{1}{2}": a mixed number, 3.5 (not 31/2); a proper fraction of digits only.
_LATEX_MIXED = re.compile(r"(?<![\w.}])([-+]?)(\d+)\s*\\[dt]?frac\s*\{\s*(\d+)\s*\}\s*\{\s*(\d+)\s*\}")
# "$1, 100$": values listed, not the number 1100 ("$10,\!404$" is one number).
_LISTED = re.compile(r"\d,\s+\d")


def _factor(part: str) -> str:
    return part if _FACTOR.fullmatch(part) else f"({part})"


def _power(match: re.Match) -> str:
    """An exponent or a subscript, in parentheses when it is more than one factor or a
    factor follows it."""
    part = re.sub(r"\s+", "", match.group(2))
    return match.group(1) + (f"({part})" if match.group(3) else _factor(part))


def _mixed(match: re.Match) -> str:
    whole, top, bottom = (int(match.group(i)) for i in (2, 3, 4))
    if not 0 < top < bottom:
        return match.group()
    return f"{match.group(1)}{whole + top / bottom!r}"


def plain_math(text: str) -> str:
    """A math answer without its LaTeX: "$\\frac{3 \\sqrt{10}}{10}$" -> "3√10/10"."""
    text = re.sub(r"\\(?:left|right)(?![a-zA-Z])|\\[,;!: ]|\$", "", text.strip().rstrip("."))
    text = _LATEX_SYMBOLS.sub(lambda m: _LATEX_SYMBOL[m.group(1)], text)
    text = _LATEX_MIXED.sub(_mixed, text)
    for _ in range(3):  # nested wrappers, roots, fractions and powers, innermost first
        text = _LATEX_WRAPPER.sub(r"\1", text)
        text = _LATEX_ROOT.sub(lambda m: "√" + _factor(re.sub(r"\s+", "", m.group(1))), text)
        text = _LATEX_FRAC.sub(lambda m: _term(re.sub(r"\s+", "", m.group(1))) + "/"
                               + _factor(re.sub(r"\s+", "", m.group(2))), text)
        text = _LATEX_POWER.sub(_power, text)
    text = text.replace("{", "").replace("}", "").replace("\\", "").replace("−", "-")
    return re.sub(r"\s+", "", text).lower()


# "$\\frac{1}{2}$ cm", "$4\\pi$ cm^2": a LaTeX value with a word written after the math. The
# word is dropped from the gold when the reader wrote the same word after the answer ("3/2 R"
# for "$\\frac{3}{2}$ R") or when it is a unit (`_UNITS`): a letter such as "a" or "x" after
# the math may be a factor of the value ("$\\sqrt{2}$ a" is not "√2").
_MATH_THEN_UNIT = re.compile(r"\s*(\$[^$]+\$)\s*([A-Za-zµ°Ω]+(?:\^\d)?)\.?\s*")
_UNITS = frozenset(
    "mm cm m km nm µm in ft mi s ms min h hr hours g kg mg t l ml n kn j kj ev w kw v mv hz khz "
    "mhz pa kpa atm k °c ° rad deg degrees mol ω c cm^2 m^2 km^2 cm^3 m^3 percent dollars "
    "meters seconds minutes units thousand million billion".split())
# "1/2π" written inline (π not spaced from its denominator): commonly 1/(2π), so never read as
# the multiple (1/2)π of `_pi_multiple`; it is "$\\frac{1}{2\\pi}$" or the same text ("2/3π" for
# "$\\frac{2}{3}\\pi$"). Spaced, "2/3 π" is (2/3)π.
_INLINE_OVER_PI = re.compile(r"([-+]?\d+)/(\d+(?:\.\d+)?)π")


def _math_without_unit(gold: str, label: str) -> tuple[str, str]:
    """A LaTeX gold and the reader's answer without the word after the gold's math
    (`_MATH_THEN_UNIT`): dropped from both when the answer ends with it, from the gold alone
    when it is a unit; kept otherwise."""
    unit = _MATH_THEN_UNIT.fullmatch(gold)
    if unit is None:
        return gold, label
    word = unit.group(2)
    written = re.fullmatch(r"(.+?)\s*" + re.escape(word) + r"\.?\s*", label, re.IGNORECASE)
    if written:
        return unit.group(1), written.group(1)
    return (unit.group(1), label) if word.lower() in _UNITS else (gold, label)


def _pi_multiple(math: str) -> float | None:
    """The factor of a plain-math multiple of π ("2/3π", "2π/3", "π/4" -> 2/3, 2/3, 1/4),
    rounded to 6 decimals, or None when the text is no such multiple."""
    if math.count("π") != 1 or "/π" in math or "/(" in math:  # "2/π" is no multiple
        return None
    rest = math.replace("π", "", 1).replace("*", "")
    rest = "1" + rest if rest[:1] in ("/", "") else rest
    rest = rest[:-1] if rest.endswith("/") else rest
    number = _number(rest.replace("-/", "-1/")) if rest != "-" else -1.0
    return None if number is None else round(number, 6)


# Tasks whose own graders compare strings exactly, not case- and punctuation-insensitively:
# - ZeroEval's CRUXEval rows (source "zeroeval:<model>/crux"): right when either grader accepts
#   the answer: ZeroEval's (yuchenlin/ZeroEval @ 570c626, src/evaluation/crux_eval.py,
#   `eval_model`: the answer with "\n" written as backslash-n and outer quotes stripped equals
#   the gold with outer quotes stripped; two empty strings are equal) or CRUXEval's own
#   (facebookresearch/cruxeval @ 10d71b4, evaluation/utils_general.py, `evaluate_score`:
#   `assert <gold> == <answer>` executed, i.e. equal Python values: ["a", "b"] is ['a', 'b'];
#   here both read with `ast.literal_eval`, never executed);
# - BIG-Bench-Hard's dyck_languages (source "bbh:<run>/dyck_languages"): the target is a run of
#   closing brackets scored by exact match (Suzgun et al. 2022, the repository's metric), so
#   ") ]" is not "] )"; the spaces between brackets do not count.
def _same_python_value(label: str, gold: str) -> bool:
    """Whether two texts are Python literals of one value (CRUXEval's assertion, unexecuted)."""
    try:
        value, expected = ast.literal_eval(label.strip()), ast.literal_eval(gold.strip())
    except (ValueError, SyntaxError, TypeError, MemoryError, RecursionError):
        return False
    return bool(value == expected)


def _exact_task(label: str, row: dict) -> bool | None:
    """Whether the label equals a gold under its task's own exact grader; None for other rows."""
    source = row.get("source", "")
    if source.startswith("zeroeval:") and source.endswith("/crux"):
        answer = label.replace("\n", "\\n").strip("'\"")
        return any(answer == gold.strip("'\"") or _same_python_value(label, gold)
                   for gold in row["golds"])
    if source.startswith("bbh:") and source.endswith("/dyck_languages"):
        return any("".join(label.split()) == "".join(gold.split()) for gold in row["golds"])
    return None


def label_is_correct(label: str, row: dict) -> bool:
    """Whether the reader's answer equals a gold: numbers (number words 0-20 included, and
    scientific notation: "4e-05", "5.27 × 10^-25", "10^5") for floats as `_same_float` (within
    4% for a scientific or tiny gold, else at the item's precision or 2 decimals) and exactly
    otherwise; a gold in LaTeX math as plain math (`plain_math`; a word after the math as
    `_math_without_unit`, a multiple of π compared by its factor: "2π/3" is
    "$\\frac{2}{3}\\pi$", but an inline "1/2π" is 1/(2π)); other text case- and
    punctuation-insensitively."""
    if label == "none":
        return False
    exact = _exact_task(label, row)
    if exact is not None:
        return exact
    for gold in row["golds"]:
        latex = "$" in gold or "\\" in gold
        answer = label
        if latex:
            listed = _LISTED.search(gold) is not None
            gold, answer = (plain_math(part) for part in _math_without_unit(gold, label))
            inline = None if re.search(r"\s(?:π|\\pi)", label) else _INLINE_OVER_PI.fullmatch(answer)
            if inline and gold == f"{inline.group(1)}/({inline.group(2)}π)":
                return True  # "1/2π" for "$\\frac{1}{2\\pi}$"
            if not listed and not inline and _pi_multiple(gold) is not None \
                    and _pi_multiple(gold) == _pi_multiple(answer):
                return True  # "2/3π" (LaTeX's) and "2π/3": one multiple of π
        g, v = (None if latex and listed else _number(gold)), _number(answer)
        if g is not None and v is not None:
            if row.get("answer_type") != "float":
                if v == g:
                    return True
            elif _same_float(v, g, gold, row):
                return True
        elif latex and answer == gold:
            return True
        elif not latex and re.sub(r"\W+", " ", answer).strip().lower() \
                == re.sub(r"\W+", " ", gold).strip().lower():
            return True
    return False


def is_number_row(label: str, row: dict) -> bool:
    """Whether a row counts in the number-value figure: the reader's answer is a number,
    or it is ``none`` on an item whose gold holds a digit (a number, a fraction, "4\\pi").
    An item whose golds have no digit (word sorting, a place, a letter) is not one the
    numeric extractor scores, so its unanswered rows say nothing about it."""
    if label == "none":
        return any(ch.isdigit() for gold in row["golds"] for ch in gold)
    return _number(label) is not None


def same_value(label: str, value: float | None) -> bool:
    """Whether an extracted number is the reader's answer (``none`` = no number)."""
    if label == "none" or value is None:
        return label == "none" and value is None
    number = _number(label)
    return number is not None and abs(number - value) <= 1e-9 * max(1.0, abs(number))
