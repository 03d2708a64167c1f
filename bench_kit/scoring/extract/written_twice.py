"""Two numbers of a response that are one value written two ways ("3/12 or 1/4", "0.5 or
50%", "7/12 or 58.3%", "2 hours or 120 minutes"): one answer, not a hedge between two
(docs/METRICS.md#numbers). Used by the `numeric` extractor and the `mmmu_open` match."""

from __future__ import annotations

import re

from bench_kit.text.numbers import NumberToken, as_percent

# Units a value is converted between, in a base unit of their kind: time (seconds) and length
# (metres). "2 hours or 120 minutes" is 7200 seconds twice.
_UNIT_SIZE = {
    "hour": 3600.0, "hours": 3600.0, "hr": 3600.0, "hrs": 3600.0, "h": 3600.0,
    "minute": 60.0, "minutes": 60.0, "min": 60.0, "mins": 60.0,
    "second": 1.0, "seconds": 1.0, "sec": 1.0, "secs": 1.0, "s": 1.0,
    "km": 1000.0, "kilometers": 1000.0, "kilometres": 1000.0, "m": 1.0, "meters": 1.0,
    "metres": 1.0, "cm": 0.01, "centimeters": 0.01, "centimetres": 0.01, "mm": 0.001,
    "millimeters": 0.001, "millimetres": 0.001,
    # imperial lengths ("12 inches or 1 foot"); not "in", a preposition more often than a unit
    "inch": 0.0254, "inches": 0.0254, "foot": 0.3048, "feet": 0.3048, "ft": 0.3048,
    "yard": 0.9144, "yards": 0.9144, "mile": 1609.344, "miles": 1609.344,
}
_KIND = {**{unit: "time" for unit in ("hour", "hours", "hr", "hrs", "h", "minute", "minutes",
                                      "min", "mins", "second", "seconds", "sec", "secs", "s")},
         **{unit: "length" for unit in ("km", "kilometers", "kilometres", "m", "meters",
                                        "metres", "cm", "centimeters", "centimetres", "mm",
                                        "millimeters", "millimetres", "inch", "inches",
                                        "foot", "feet", "ft", "yard", "yards", "mile",
                                        "miles")}}
_UNIT_AFTER = re.compile(r"[ \t]*([A-Za-z]{1,11})\b")
# "3/12 or 1/4", "7/12, or 58.3%", "2 hours or 120 minutes": the second spelling after "or".
_OR_BETWEEN = re.compile(r"[ \t]*(?:[A-Za-z]{1,11}[ \t]*)?,?[ \t]*\(?[ \t]*(?:or|i\.e\.,?)[ \t]+", re.I)
_RELATIVE = 1e-9


def _decimals(written: str) -> int | None:
    """How many decimals a number is written with ("58.3%" 1, "0.15" 2), None for a whole
    number or a fraction (no rounding is read into "1/4" or "120")."""
    if "/" in written or "." not in written:
        return None
    return sum(ch.isdigit() for ch in written.partition(".")[2])


def _unit(text: str, token: NumberToken) -> str | None:
    found = _UNIT_AFTER.match(text, token.end)
    return found.group(1).lower() if found and found.group(1).lower() in _UNIT_SIZE else None


def _same(first: float, second: float, decimals: int | None) -> bool:
    if abs(first - second) <= _RELATIVE * max(1.0, abs(first), abs(second)):
        return True
    return decimals is not None and abs(round(first, decimals) - second) <= 10.0 ** -(decimals + 3)


def written_twice(text: str, first: NumberToken, second: NumberToken) -> bool:
    """Whether `second` (after `first` in `text`) is `first` written another way: the same
    value ("3/12 or 1/4"), as a percent ("0.5 or 50%"), rounded to the decimals it is written
    with ("7/12 or 0.58", "7/12 or 58.3%"), or converted to another unit of time or length
    ("2 hours or 120 minutes", "1.5 km or 1500 m")."""
    if as_percent(first, second):
        return True
    decimals = _decimals(text[second.start:second.end])
    value = first.value * 100 if second.percent and not first.percent else first.value
    units = _unit(text, first), _unit(text, second)
    if units[0] and units[1] and units[0] != units[1]:
        if _KIND[units[0]] != _KIND[units[1]]:
            return False
        value = value * _UNIT_SIZE[units[0]] / _UNIT_SIZE[units[1]]
    return _same(value, second.value, decimals)


def first_of_pair(text: str, found: list[NumberToken], index: int) -> NumberToken | None:
    """The first spelling when `found[index]` follows an "or" that joins it to the same value
    written another way ("3/12 or 1/4" -> 3/12; `written_twice`), else None."""
    if index <= 0:
        return None
    before, token = found[index - 1], found[index]
    if token.start - before.end > 30 or not _OR_BETWEEN.fullmatch(text, before.end, token.start):
        return None
    return before if written_twice(text, before, token) else None


# One number counting two different things ("3 dogs and 3 cats", "1 cracker and 1 cake"): two
# values, not one written twice (`two_things`).
_NOUN_AFTER = re.compile(r"[ \t]+([A-Za-z]+)")
_NO_NOUN = frozenset(("is", "are", "was", "were", "and", "or", "in", "of", "to", "for", "at",
                      "times", "more", "less", "percent"))


def noun_after(text: str, token: NumberToken) -> bool:
    """Whether a noun-like word follows a number ("1 bar"; not "2 of them", "2 are in Asia")."""
    word = _NOUN_AFTER.match(text, token.end)
    return word is not None and word.group(1).lower() not in _NO_NOUN


def two_things(text: str, left: NumberToken, right: NumberToken) -> bool:
    """Whether one number said twice counts two different things ("3 dogs and 3 cats"): a
    different noun right after each."""
    one, two = _NOUN_AFTER.match(text, left.end), _NOUN_AFTER.match(text, right.end)
    if one is None or two is None:
        return False
    first, second = one.group(1).lower(), two.group(1).lower()
    return first != second and first not in _NO_NOUN and second not in _NO_NOUN
