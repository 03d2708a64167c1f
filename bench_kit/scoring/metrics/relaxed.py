"""ChartQA relaxed accuracy (docs/METRICS.md#relaxed-accuracy): how a chart value is read,
and the multiplier policy.

The reference (pix2struct's `relaxed_correctness`, copied into VLMEvalKit) reads a value
with Python's `float()`, so "−12" (U+2212), "１２", "1,296", "$12" and "12." are text there
and must match the gold character for character. Here they are numbers. A multiplier word
("3905k", "83.817 million", "3万", "2亿") is a magnitude: by default "3905k" is 3,905,000
and misses a gold of 3905. When the item's metadata gives the chart's unit
(`meta.chart_unit: thousand`), a value written without a multiplier is in that unit, so
"3905k" meets "3905". `score.relaxed_multipliers: strip` restores the older reading (every
multiplier word dropped, as a unit) for benchmarks whose golds mix the two.
"""

from __future__ import annotations

import math
import re
import unicodedata
from dataclasses import dataclass
from typing import Literal, Mapping, Sequence

from bench_kit.errors import InputError

MultiplierPolicy = Literal["magnitude", "strip"]

MULTIPLIERS: Mapping[str, float] = {
    "k": 1e3, "thousand": 1e3, "thousands": 1e3, "mn": 1e6, "mio": 1e6, "million": 1e6,
    "millions": 1e6, "bn": 1e9, "billion": 1e9, "billions": 1e9, "trillion": 1e12,
    "trillions": 1e12, "百": 1e2, "千": 1e3, "万": 1e4, "十万": 1e5, "百万": 1e6,
    "千万": 1e7, "亿": 1e8, "万亿": 1e12,
}
# Dashes written as a minus sign before a digit; NFKC leaves U+2212 alone.
_MINUS = str.maketrans({"\u2212": "-", "\u2012": "-", "\u2013": "-", "\ufe63": "-"})
_MULTIPLIER = "|".join(sorted(map(re.escape, MULTIPLIERS), key=len, reverse=True))
_VALUE = re.compile(
    r"(?P<sign>[-+])?\s*+(?:US\$|[$€£¥₹]|(?:USD|EUR|GBP|RMB|CNY|JPY|INR)\b)?\s*+"
    r"(?P<num>[-+]?(?:\d{1,3}(?:,\d{3})+|\d+)(?:\.\d+)?(?:e[-+]?\d{1,3})?|[-+]?\.\d+)"
    r"\s*+(?P<pct>%)?\s*+(?:(?P<mult>" + _MULTIPLIER + r")(?![A-Za-z]))?"
    r"\s*+(?P<unit>(?:[^\W\d_][\w/.]*\s*){0,2})",
    re.I,
)
_PERCENT_WORDS = re.compile(r"^(?:per\s*cent|percent|pct)\b", re.I)


@dataclass(frozen=True, slots=True)
class ChartValue:
    """A chart value as written: the number, its multiplier (1 when none was written) and
    whether it was a percent."""

    number: float
    multiplier: float = 1.0
    percent: bool = False
    scaled: bool = False  # a multiplier word was written


def _ascii(text: str) -> str:
    return unicodedata.normalize("NFKC", str(text)).translate(_MINUS)


def chart_value(text: str) -> ChartValue | None:
    """A ChartQA value read as a number, or None when it is text.

    Read: full-width forms (NFKC), a minus written U+2212 or as a dash, a sign and a
    currency before the digits (`-$12`, `US$ 1,296`, `€3.5`), thousands commas, a final
    period, `%` (or "percent"), one multiplier word (`k`, `million`, `bn`, `万`, `亿` …)
    and up to two unit words after it (`kg`, `dollars`, `元`).

    >>> chart_value("−12"), chart_value("３９０５k"), chart_value("Asia")
    (ChartValue(number=-12.0, multiplier=1.0, percent=False, scaled=False), \
ChartValue(number=3905.0, multiplier=1000.0, percent=False, scaled=True), None)
    """
    body = _ascii(text).strip().rstrip(".").strip()
    found = _VALUE.fullmatch(body)
    if found is None:
        return None
    number = float(found["num"].replace(",", ""))
    if not math.isfinite(number):
        return None
    if found["sign"] == "-":
        number = -number
    unit = found["unit"].strip()
    percent = bool(found["pct"]) or bool(_PERCENT_WORDS.match(unit))
    mult = found["mult"]
    return ChartValue(number, MULTIPLIERS[mult.lower()] if mult else 1.0, percent, bool(mult))


def chart_number(text: str) -> tuple[float, bool] | None:
    """`(number as written, is_percent)` of a chart value (multiplier not applied), or None.

    >>> chart_number("$12"), chart_number("1296 million"), chart_number("45%"), chart_number("Asia")
    ((12.0, False), (1296.0, False), (45.0, True), None)
    """
    value = chart_value(text)
    return None if value is None else (value.number, value.percent)


def _magnitude(value: ChartValue, chart_unit: float, policy: MultiplierPolicy) -> float:
    if policy == "strip":
        return value.number
    if value.scaled:
        return value.number * value.multiplier
    return value.number if value.percent else value.number * chart_unit  # a percent has no unit


def chart_unit_of(meta: Mapping | None) -> float:
    """The chart's unit from item metadata (`chart_unit`: a multiplier word such as
    "thousand", "million", "万", or a positive number); 1 when absent.

    Raises:
        InputError: a `chart_unit` that is neither (field `meta.chart_unit`).
    """
    unit = (meta or {}).get("chart_unit")
    if unit is None:
        return 1.0
    if isinstance(unit, (int, float)) and not isinstance(unit, bool) and unit > 0:
        return float(unit)
    if isinstance(unit, str) and _ascii(unit).strip().lower() in MULTIPLIERS:
        return MULTIPLIERS[_ascii(unit).strip().lower()]
    raise InputError(f"chart_unit {unit!r} is not a multiplier word "
                     f"({', '.join(sorted(MULTIPLIERS))}) or a positive number",
                     field="meta.chart_unit")


def relaxed_match(pred: str, gold: str, tolerance: float = 0.05, *, chart_unit: float = 1.0,
                  multipliers: MultiplierPolicy = "magnitude") -> bool:
    """ChartQA relaxed accuracy of one prediction against one gold.

    Both read as numbers (`chart_value`): right when |pred - gold| / |gold| <= `tolerance`,
    compared as magnitudes (a multiplier word multiplies; a value without one is in
    `chart_unit`); a gold of 0 needs a prediction of exactly 0 (the relative error is
    undefined); a percent on one side only ("45%" vs "0.45") is compared both as written
    and divided by 100. Otherwise (either is text): case-insensitive exact match after
    NFKC and trimming space and a final period. Several golds: `relaxed_accuracy`.

    >>> relaxed_match("104", "100"), relaxed_match("106", "100"), relaxed_match("$12", "12")
    (True, False, True)
    >>> relaxed_match("3905k", "3905"), relaxed_match("3905k", "3905", chart_unit=1000)
    (False, True)
    """
    p, g = chart_value(pred), chart_value(gold)
    if p is None or g is None:
        return _ascii(pred).strip().rstrip(".").casefold() == \
            _ascii(gold).strip().rstrip(".").casefold()
    pv, gv = _magnitude(p, chart_unit, multipliers), _magnitude(g, chart_unit, multipliers)
    pairs = [(pv, gv)]
    if p.percent and not g.percent:
        pairs.append((pv / 100, gv))
    elif g.percent and not p.percent:
        pairs.append((pv, gv / 100))
    for a, b in pairs:
        if b == 0:
            if a == 0:
                return True
        elif abs(a - b) / abs(b) <= tolerance + 1e-12:
            return True
    return False


def relaxed_accuracy(pred: str, golds: Sequence[str], tolerance: float = 0.05, *,
                     chart_unit: float = 1.0, multipliers: MultiplierPolicy = "magnitude") -> bool:
    """ChartQA relaxed accuracy against several golds: right when any gold matches.

    >>> relaxed_accuracy("1296 million", ["Asia", "1296"], chart_unit=1e6)
    True
    """
    return any(relaxed_match(pred, gold, tolerance, chart_unit=chart_unit,
                             multipliers=multipliers) for gold in golds)
