"""Numbers in model responses: digits, English number words and Chinese numerals.

Rules (docs/METRICS.md#numbers): thousands commas ("1,234"), percents ("45%" reads 45 with a percent
flag; metrics decide what a percent means), negatives, fractions ("3/4", LaTeX "\\frac{3}{4}",
"\\frac{-3}{4}"), mixed numbers ("1 1/2", "2\\frac{1}{2}"), powers of numbers ("2^{10}" -> 1024,
"1.5 × 10^{-3}" -> 0.0015), Chinese numerals
(三个 -> 3, 十二 -> 12, 两 -> 2, 一百零五 -> 105), number words (three -> 3, twenty-one ->
21); units are dropped, and so is a scale word written after digits ("5.2 million" -> 5.2,
"3万" -> 3: charts state the unit elsewhere). Which number of a response is the answer is
decided by `bench_kit.scoring.extract.numbers`.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass

_SMALL = ("zero one two three four five six seven eight nine ten eleven twelve thirteen "
          "fourteen fifteen sixteen seventeen eighteen nineteen").split()
_TENS = "twenty thirty forty fifty sixty seventy eighty ninety".split()
_WORD_VALUES: dict[str, tuple[str, int]] = {w: ("unit" if i < 10 else "teen", i)
                                             for i, w in enumerate(_SMALL)}
_WORD_VALUES.update({w: ("ten", 20 + 10 * i) for i, w in enumerate(_TENS)})
_WORD_VALUES.update({"hundred": ("hundred", 100), "thousand": ("scale", 1000),
                     "million": ("scale", 10**6), "billion": ("scale", 10**9)})
_WORD = "|".join(sorted(_WORD_VALUES, key=len, reverse=True))

_CN_DIGITS = {"零": 0, "〇": 0, "一": 1, "二": 2, "两": 2, "三": 3, "四": 4, "五": 5, "六": 6,
              "七": 7, "八": 8, "九": 9}
_CN_UNITS = {"十": 10, "百": 100, "千": 1000}
_CN_BIG = {"万": 10**4, "亿": 10**8}
# "一" in these words is not a count: 一共 (in total), 一些 (some), 一样 (same), 一半 (half),
# 一打 (a dozen) ...
# 一遍 (once through: "重新叙述一遍", "retell it"); after 之 / 这 / 那 / 同 / 每 / 任 / 其: 之一 (one
# of), 这一点 (this point), 同一 (the same), 每一 (each), 任一 (any), 其一 (one of them).
_CN_ONE_NOT_NUMBER_AFTER = frozenset("共些样起下直般定致切旦同边面方半打遍")
_CN_ONE_NOT_NUMBER_BEFORE = frozenset("唯统万进之这那同每任其")  # (进一步 = further)
# "第125条", "第264、241条", "第(四)项": a number after 第 (or a list of them) is an ordinal, an
# article or a rank, not a value; like 第一.
_ORDINAL_BEFORE = re.compile(r"第[ \t]*[(（]?(?:[ \t]*\d+[ \t]*[,，、])*[ \t]*$")

# (".5" is a decimal, but not after a CJK character: "潜逃.2011年" is "。" cleaned to "." before
# the year 2011)
_TOKEN = re.compile(
    r"(?P<num>(?<![A-Za-z0-9_.])[-+]?(?:\d{1,3}(?:,\d{3})+(?:\.\d+)?|\d+(?:\.\d+)?|(?<![^\x00-\x7f])\.\d+)"
    r"(?:e[-+]?\d{1,3}(?![A-Za-z0-9]))?)"
    r"(?:\s*/\s*(?P<den>\d{1,9})(?!\d|\.\d))?(?P<pct>\s*%)?"
    r"(?:\s*(?:hundred|thousand|million|billion|trillion)(?![A-Za-z])|\s*[百千万亿])?"
    rf"|(?P<words>(?<![A-Za-z])(?:{_WORD})(?:(?:\s+and\s+|\s+|-)(?:{_WORD}))*(?![A-Za-z]))"
    r"|(?P<cn>[零〇一二两三四五六七八九十百千万亿]+)",
    re.I,
)
_LATEX_FRACTION = re.compile(r"(?:(?<![A-Za-z0-9_.])[-+])?\\[dt]?frac\s*\{\s*([-+]?\d+(?:\.\d+)?)\s*\}"
                             r"\s*\{\s*([-+]?\d+(?:\.\d+)?)\s*\}")
# "1 1/2", "2\\frac{1}{2}": a whole number and a proper fraction after it, one number.
_MIXED_GAP = re.compile(r"[ \t]*")
_WHOLE = re.compile(r"[-+]?\d+")
_PROPER = re.compile(r"(?:\\[dt]?frac\s*\{\s*|)(\d+)\s*(?:/|\}\s*\{)\s*(\d+)\s*\}?")
# "3 and a half", "two and a half": a whole number and a half.
_AND_A_HALF = re.compile(r"[ \t]+and[ \t]+a[ \t]+half(?![A-Za-z])", re.I)
# "2^10", "10^{-3}": a number raised to a number (the exponent right after "^", "^{", "^(").
_CARET = re.compile(r"[ \t]*\^[ \t]*([{(]?)[ \t]*")
_EXPONENT = re.compile(r"[-+]?(?:\d|\.\d)")
# "1.5 × 10^{-3}", "3 x 10^8", "1.46 times 10^28" (also "\times" whose backslash a JSON
# escape turned into a tab): scientific notation, the mantissa times a power of ten.
_TIMES = re.compile(r"[ \t]*(?:[×xX*·]|\\times|\\cdot|times)[ \t]*")
_PRONOUN_ONE = re.compile(r"(?<![A-Za-z])(?:the|this|that|which|each|any|no|every|another|"
                          r"some)\s+$", re.I)
_MAX_NUMERAL_RUN = 16  # longer runs of number words / numerals are not one number
_STRICT_WRAP = re.compile(r"\s*[$€£¥]?\s*(.*?)\s*\.?\s*$", re.S)


@dataclass(frozen=True, slots=True)
class NumberToken:
    """One number found in a text: its value, where it is, and whether a % followed it."""

    value: float
    start: int
    end: int
    percent: bool = False


def format_number(value: float) -> str:
    """One spelling per number value, without trailing zeros: digits for an integer below
    1e16 (where a float still holds every digit), else Python's shortest repr.

    >>> format_number(12.0), format_number(0.50), format_number(-0.0), format_number(1e16)
    ('12', '0.5', '0', '1e+16')
    """
    if value == 0:
        return "0"
    if value.is_integer() and abs(value) < 1e16:
        return str(int(value))
    return repr(value)


def canonical_number(token: str) -> str:
    """`format_number` of a number written as text: '16.90' -> '16.9', '007' -> '7'.

    >>> canonical_number("16.90"), canonical_number("007"), canonical_number("-0")
    ('16.9', '7', '0')
    """
    return format_number(float(token))


def _words_to_numbers(span: str) -> list[float]:
    """Parse a run of number words; "three four" is two numbers, "one hundred and five" one."""
    out: list[float] = []
    total = current = 0
    last = None
    for word in re.split(r"[\s-]+", span.lower()):
        if word in ("", "and"):
            continue
        kind, value = _WORD_VALUES[word]
        starts_new = ((kind in ("unit", "teen") and last in ("unit", "teen"))
                      or (kind == "teen" and last == "ten")
                      or (kind == "ten" and last in ("unit", "teen", "ten")))
        if starts_new:
            out.append(total + current)
            total = current = 0
        if kind == "hundred":
            current = (current or 1) * 100
        elif kind == "scale":
            total += (current or 1) * value
            current = 0
        else:
            current += value
        last = kind
    out.append(total + current)
    return [float(v) for v in out]


def chinese_to_number(run: str) -> int:
    """Value of a run of Chinese numerals: 十二 -> 12, 两百 -> 200, 二〇二四 -> 2024.

    >>> chinese_to_number("一百零五"), chinese_to_number("三万五千")
    (105, 35000)
    """
    if len(run) > 1 and all(ch in _CN_DIGITS for ch in run):
        return int("".join(str(_CN_DIGITS[ch]) for ch in run))
    total = section = number = 0
    for ch in run:
        if ch in _CN_DIGITS:
            number = _CN_DIGITS[ch]
        elif ch in _CN_UNITS:
            section += (number or 1) * _CN_UNITS[ch]
            number = 0
        elif ch == "亿":
            total = (total + section + number) * _CN_BIG[ch]
            section = number = 0
        else:
            total += (section + number or 1) * _CN_BIG[ch]
            section = number = 0
    return total + section + number


def _ordinal(text: str, start: int) -> bool:
    """Whether the number at `start` follows 第 (`_ORDINAL_BEFORE`): an ordinal."""
    return "第" in text[max(0, start - 24):start] \
        and _ORDINAL_BEFORE.search(text, max(0, start - 24), start) is not None


def _name_index(text: str, start: int, end: int) -> bool:
    """Whether the number at `start`-`end` is written against 某 ("a certain …", how court
    records anonymise a name): "王1某", "石某1", "张某2" are people, not values, and so is 某一
    ("苏某一人", "某一天": a certain one)."""
    return text[start - 1:start] == "某" or (text[end:end + 1] == "某"
                                              and text[start:end].isdigit())


def _chinese_is_number(text: str, start: int, end: int) -> bool:
    if _ordinal(text, start):  # 第一 = "the first"
        return False
    if text[start:end] == "一":
        before = text[start - 1] if start > 0 else ""
        after = text[end] if end < len(text) else ""
        return (after not in _CN_ONE_NOT_NUMBER_AFTER
                and before not in _CN_ONE_NOT_NUMBER_BEFORE)
    if text[start:end] == "十" and text[end:end + 1] == "分" and text[end + 1:end + 2] != "钟":
        return False  # 十分 = "very", 十分钟 = ten minutes
    return True


def number_tokens(text: str) -> list[NumberToken]:
    """Every number in `text`, in order.

    >>> [t.value for t in number_tokens("1,234 apples, -3.5 and twenty-one, 三个, 45%")]
    [1234.0, -3.5, 21.0, 3.0, 45.0]
    """
    tokens: list[NumberToken] = []
    ordinals = "第" in text  # (one scan, not a window per number)
    names = "某" in text
    for match in _TOKEN.finditer(text):
        start, end = match.span()
        if names and _name_index(text, start, end):
            continue  # "王1某", "石某1", "苏某一人": the index of an anonymised name
        if match.group("num") is not None:
            if match.group("num") == "0" and text[end:end + 1] in ("x", "X"):
                continue  # "0x10801a410": an address, no number (its digits follow a letter)
            if ordinals and start and _ordinal(text, start):
                continue  # "第125条": an ordinal
            value = float(match.group("num").replace(",", ""))
            den = match.group("den")
            if den is not None and int(den) != 0:
                value /= int(den)
            if math.isfinite(value):
                tokens.append(NumberToken(value, start, end, match.group("pct") is not None))
        elif match.group("words") is not None:
            span = match.group("words")
            if span.lower() == "one" and _PRONOUN_ONE.search(text, max(0, start - 12), start):
                continue
            if span.count(" ") + span.count("-") < _MAX_NUMERAL_RUN:
                tokens.extend(NumberToken(v, start, end) for v in _words_to_numbers(span))
        elif end - start <= _MAX_NUMERAL_RUN and _chinese_is_number(text, start, end):
            tokens.append(NumberToken(float(chinese_to_number(match.group("cn"))), start, end))
    if "frac" in text:
        tokens = _with_latex_fractions(text, tokens)
    if "/" in text or "frac" in text:
        tokens = _with_mixed_numbers(text, tokens)
    if "half" in text or "HALF" in text or "Half" in text:
        tokens = _with_halves(text, tokens)
    return _with_powers(text, tokens) if "^" in text else tokens


def _with_latex_fractions(text: str, tokens: list[NumberToken]) -> list[NumberToken]:
    """`tokens` with the numbers of each LaTeX fraction ("\\frac{3}{4}") replaced by its
    value (a separate pass: in the main pattern it cost a quarter of its time). One pass
    over the fractions and the tokens, both in order of position."""
    fractions = []
    for match in _LATEX_FRACTION.finditer(text):
        bottom = float(match.group(2))
        if bottom:
            start, end = match.span()
            sign = -1.0 if text[start] == "-" else 1.0
            fractions.append(NumberToken(sign * float(match.group(1)) / bottom, start, end))
    if not fractions:
        return tokens
    kept: list[NumberToken] = []
    at = 0
    for token in sorted(tokens, key=lambda token: token.start):
        while at < len(fractions) and fractions[at].end <= token.start:
            at += 1
        if at < len(fractions) and fractions[at].start <= token.start:
            continue  # a number inside the fraction
        kept.append(token)
    return sorted(kept + fractions, key=lambda token: token.start)


# "Step 3 1/4 of the cake", "Page 12 3/4": a label's number, not a mixed number's whole.
_LABEL_BEFORE = re.compile(r"\b(?:step|page|item|part|line|question|q|no\.?|#)\s*$", re.I)


def _with_mixed_numbers(text: str, tokens: list[NumberToken]) -> list[NumberToken]:
    """`tokens` with a whole number followed (on its line) by a proper fraction read as one
    mixed number: "1 1/2" -> 1.5, "-2\\frac{1}{2}" -> -2.5 (not "1 3/2", "2.5 1/2", nor after a
    label: "Step 3 1/4")."""
    out: list[NumberToken] = []
    for token in tokens:
        before = out[-1] if out else None
        if (before is not None and not before.percent and not token.percent
                and _WHOLE.fullmatch(text, before.start, before.end)
                and _MIXED_GAP.fullmatch(text, before.end, token.start)
                and not _LABEL_BEFORE.search(text, max(0, before.start - 12), before.start)):
            proper = _PROPER.fullmatch(text, token.start, token.end)
            if proper and int(proper.group(1)) < int(proper.group(2)):
                sign = -1.0 if text[before.start] == "-" else 1.0
                out[-1] = NumberToken(before.value + sign * token.value, before.start, token.end)
                continue
        out.append(token)
    return out


def _with_halves(text: str, tokens: list[NumberToken]) -> list[NumberToken]:
    """`tokens` with a whole number followed by "and a half" read as one number: "3 and a half"
    -> 3.5, "two and a half" -> 2.5, "-1 and a half" -> -1.5."""
    out = []
    for token in tokens:
        half = _AND_A_HALF.match(text, token.end) \
            if not token.percent and token.value == int(token.value) else None
        if half is not None:
            token = NumberToken(token.value + (0.5 if text[token.start] != "-" else -0.5),
                                token.start, half.end())
        out.append(token)
    return out


def _with_powers(text: str, tokens: list[NumberToken]) -> list[NumberToken]:
    """`tokens` with a number raised to a number read as the power's value ("2^{10}" ->
    1024, "-2^2" -> -4) and a power of ten after "m ×" as m times it ("3 × 10^8" -> 3e8).
    A power too large for a float is no number at all."""
    out: list[NumberToken] = []
    skip = False
    for index, token in enumerate(tokens):
        if skip:
            skip = False
            continue
        caret = _CARET.match(text, token.end)
        following = tokens[index + 1] if index + 1 < len(tokens) else None
        if (caret is None or following is None or following.start != caret.end()
                or token.percent or following.percent or "/" in text[token.start:token.end]
                or not _EXPONENT.match(text, following.start)):
            out.append(token)
            continue
        skip = True
        base = abs(token.value) if text[token.start] == "-" else token.value
        try:
            value = math.pow(base, following.value)
        except (OverflowError, ValueError):
            continue  # "10^{400}", "(-8)^{1/3}": no value read
        value = -value if text[token.start] == "-" else value
        end = following.end
        if caret.group(1) and end < len(text) and text[end] in "})":
            end += 1
        start = token.start
        mantissa = out[-1] if out else None
        if (text[token.start:token.end] == "10" and mantissa is not None
                and not mantissa.percent and _TIMES.fullmatch(text, mantissa.end, token.start)):
            value, start = mantissa.value * value, mantissa.start
            out.pop()
        if math.isfinite(value):
            out.append(NumberToken(value, start, end))
    return out


def as_percent(first: NumberToken, second: NumberToken) -> bool:
    """Whether two numbers are one value, one of them written as a percent ("0.5 or 50%")."""
    return any(percent.percent and not plain.percent
               and abs(plain.value * 100 - percent.value) <= 1e-9 * max(1.0, abs(percent.value))
               for plain, percent in ((first, second), (second, first)))


def parse_number(text: str) -> tuple[float, bool] | None:
    """Read a whole string as one number (a gold answer): `(value, is_percent)` or None.

    Accepts a currency sign, thousands commas, a fraction, a trailing % and a final period.

    >>> parse_number("$1,234.50"), parse_number("45%"), parse_number("12 apples")
    ((1234.5, False), (45.0, True), None)
    """
    if not isinstance(text, str):
        return None
    body = _STRICT_WRAP.fullmatch(text)
    inner = body.group(1) if body else text
    found = number_tokens(inner)
    if len(found) != 1 or found[0].start != 0 or found[0].end != len(inner):
        return None
    return found[0].value, found[0].percent


_LEADING_NUMBER = re.compile(r"[-+]?\d+(?:\.\d+)?")


def leading_number(text: str) -> float | None:
    """A gold answer read loosely as a number (audits): digits with thousands commas and an
    ignored trailing unit, English number words up to twenty, Chinese numerals up to 99
    (a trailing 个 dropped); None when it is not a number.

    >>> [leading_number(t) for t in ("1,234", "3 cm", "three", "十二", "两个", "red")]
    [1234.0, 3.0, 3.0, 12.0, 2.0, None]
    """
    text = text.strip().lower()
    text = re.sub(r"(?<=\d),(?=\d{3}\b)", "", text)
    match = _LEADING_NUMBER.match(text)
    if match:
        rest = text[match.end():].strip()
        return float(match.group(0)) if not rest or not rest[0].isdigit() else None
    if text in _SMALL or text == "twenty":
        return float(_SMALL.index(text) if text in _SMALL else 20)
    return _two_digit_chinese(text.removesuffix("个"))


def _two_digit_chinese(text: str) -> float | None:
    if not text or any(ch not in _CN_DIGITS and ch != "十" for ch in text):
        return None
    if "十" not in text:
        return float(_CN_DIGITS[text]) if len(text) == 1 else None
    tens, _, units = text.partition("十")
    if len(tens) > 1 or len(units) > 1 or "十" in units:
        return None
    return float((_CN_DIGITS[tens] if tens else 1) * 10 + (_CN_DIGITS[units] if units else 0))
