"""Pins of scoring/metrics/relaxed.py beyond tests/cases/relaxed_match.json and the reference
vectors (mutation testing, benchmarks/mutation.py target `metrics_relaxed`): how a chart
value is read (every dash, every multiplier word, the longest multiplier first, a unit
word that starts like a multiplier), the chart unit's checks, the tolerance on a negative
gold, and that `relaxed_accuracy` passes every option on. Expected values are worked out by
hand from docs/METRICS.md#relaxed-accuracy and the module's docstrings."""

from __future__ import annotations

import pytest

from bench_kit.errors import InputError
from bench_kit.scoring.metrics.relaxed import (
    ChartValue,
    chart_number,
    chart_unit_of,
    chart_value,
    relaxed_accuracy,
    relaxed_match,
)


@pytest.mark.parametrize("text", ["\u221212", "\u201212", "\u201312", "\ufe6312", "-12",
                                  "-$12", "\u2212$12", "$-12", "-US$ 12", "- 12"])
def test_every_minus_is_a_minus(text):
    # U+2212 minus, U+2012 figure dash, U+2013 en dash, U+FE63 small hyphen-minus; a sign
    # before or after the currency
    assert chart_value(text) == ChartValue(-12.0)


@pytest.mark.parametrize("text, expected", [
    ("+12", ChartValue(12.0)),
    (".5", ChartValue(0.5)),
    ("1e3", ChartValue(1000.0)),                    # an exponent is a number
    ("12.", ChartValue(12.0)),                      # a final period
    (" 12 . ", ChartValue(12.0)),                   # spaces, period, spaces
    ("USD 12", ChartValue(12.0)),
    ("£12", ChartValue(12.0)), ("¥12", ChartValue(12.0)), ("₹12", ChartValue(12.0)),
    ("12 pct", ChartValue(12.0, percent=True)),
    ("12 percent", ChartValue(12.0, percent=True)),
    ("12 per cent", ChartValue(12.0, percent=True)),
    ("12%", ChartValue(12.0, percent=True)),
    ("12 PERCENT", ChartValue(12.0, percent=True)),  # case-insensitive
    ("5 Million", ChartValue(5.0, 1e6, scaled=True)),
    ("5 thousands", ChartValue(5.0, 1e3, scaled=True)),
    ("5mn", ChartValue(5.0, 1e6, scaled=True)),
    ("5 mio", ChartValue(5.0, 1e6, scaled=True)),
    ("5bn", ChartValue(5.0, 1e9, scaled=True)),
    ("5 billions", ChartValue(5.0, 1e9, scaled=True)),
    ("5 trillion", ChartValue(5.0, 1e12, scaled=True)),
    ("5 trillions", ChartValue(5.0, 1e12, scaled=True)),
    ("5 millions", ChartValue(5.0, 1e6, scaled=True)),
    ("3百", ChartValue(3.0, 1e2, scaled=True)),
    ("3千", ChartValue(3.0, 1e3, scaled=True)),
    # the longest word first: 十万 is 10^5, not 十 (no multiplier) ..., 百万 not 百 + a unit
    ("3十万", ChartValue(3.0, 1e5, scaled=True)),
    ("3百万", ChartValue(3.0, 1e6, scaled=True)),
    ("3千万", ChartValue(3.0, 1e7, scaled=True)),
    ("3万亿", ChartValue(3.0, 1e12, scaled=True)),
    ("3亿", ChartValue(3.0, 1e8, scaled=True)),
    # a multiplier followed by a letter is a unit word: "km" is not k + "m"
    ("5 km", ChartValue(5.0)),
    ("5 kg", ChartValue(5.0)),
    # two unit words after the multiplier
    ("5 million US dollars", ChartValue(5.0, 1e6, scaled=True)),
    ("5% growth", ChartValue(5.0, percent=True)),
])
def test_chart_value_reads(text, expected):
    assert chart_value(text) == expected


@pytest.mark.parametrize("text", ["Asia", "12 a b c", "12 a b X", "1e999", "nan", "inf", "1_000", "",
                                  "12,34", "k", "$"])
def test_chart_value_text(text):
    # three unit words, an infinite value, Python literals, a bad comma: text, not numbers
    assert chart_value(text) is None


def test_chart_number_drops_the_multiplier_keeps_the_percent():
    assert chart_number("5 million") == (5.0, False)
    assert chart_number("−5%") == (-5.0, True)
    assert chart_number("five") is None


@pytest.mark.parametrize("meta, expected", [
    (None, 1.0), ({}, 1.0), ({"chart_unit": None}, 1.0),
    ({"chart_unit": 1000}, 1000.0), ({"chart_unit": 0.5}, 0.5),
    ({"chart_unit": " Thousand "}, 1e3), ({"chart_unit": "MILLION"}, 1e6),
    ({"chart_unit": "万"}, 1e4), ({"chart_unit": "k"}, 1e3),
])
def test_chart_unit_of(meta, expected):
    assert chart_unit_of(meta) == expected
    assert type(chart_unit_of(meta)) is float


@pytest.mark.parametrize("unit", [0, -1000, True, "dozen", "", [1000]])
def test_chart_unit_of_refuses(unit):
    with pytest.raises(InputError, match=r"chart_unit .* is not a multiplier word \(") as err:
        chart_unit_of({"chart_unit": unit})
    assert err.value.field == "meta.chart_unit"
    # the words listed sorted ("million" < "mio": l before o), comma-separated
    assert "(billion, billions, bn, k, million, millions, mio, mn, thousand, thousands, " \
           "trillion, trillions, " in str(err.value)
    assert str(err.value).endswith(") or a positive number")


@pytest.mark.parametrize("pred, gold, expected", [
    # relative error |pred - gold| / |gold|: on a negative gold the error is positive
    ("-105", "-100", True),     # 5 / 100 = 5%: on the boundary
    ("-106", "-100", False),    # 6%
    ("-94", "-100", False),     # 6% the other way
    ("100", "-100", False),     # 200%
    # the 1e-12 slack of docs/METRICS.md: 83.817 * 1.05 = 88.00785 exactly in decimals
    ("88.00785", "83.817", True),
    ("88.0079", "83.817", False),
    # a gold of 0 needs exactly 0, also with a percent on one side
    ("0%", "0", True),
    ("0.0001%", "0", False),
    # both percent: compared as written only (45 vs 0.45 is far)
    ("45%", "0.45%", False),
    # percent on the gold: the prediction as written, or the gold divided by 100
    ("0.45", "45%", True), ("45", "45%", True), ("4.5", "45%", False),
])
def test_relaxed_match_by_hand(pred, gold, expected):
    assert relaxed_match(pred, gold) is expected


def test_a_percent_is_divided_by_exactly_100():
    # with no tolerance: 45% is 0.45 exactly (and 0.45 is 45%), 46% is not
    assert relaxed_match("45%", "0.45", tolerance=0)
    assert relaxed_match("0.45", "45%", tolerance=0)
    assert not relaxed_match("46%", "0.45", tolerance=0)


def test_the_percent_of_the_gold_is_divided_not_the_prediction():
    # gold 50%: pairs (pred, 50) and (pred, 0.5). A prediction 0.005 is neither (a divided
    # prediction would be 0.00005); a prediction of 50% vs gold 0.5: pairs (50, 0.5) and
    # (0.5, 0.5) -> right.
    assert relaxed_match("0.005", "50%") is False
    assert relaxed_match("50%", "0.5") is True
    assert relaxed_match("5000", "50%") is False


def test_text_comparison_normalises_both_sides():
    assert relaxed_match("ＡＳＩＡ", " asia. ")            # NFKC, case, spaces, final period
    assert relaxed_match(" Asia. ", "asia")
    # only a final period goes: not a leading one, not other final letters
    assert not relaxed_match(".Asia", "asia")
    assert not relaxed_match("BOX", "bo") and not relaxed_match("bo", "BOX")
    assert relaxed_match(" Straße ", "STRASSE")           # casefold, not lower
    assert not relaxed_match("Asia", "Asia Pacific")


def test_chart_unit_scales_a_bare_value_not_a_percent():
    # chart in thousands: "5" is 5,000, so it meets "5k"; "5%" stays 5 (a percent has no
    # unit) and misses a gold of "5k"
    assert relaxed_match("5", "5k", chart_unit=1000)
    assert not relaxed_match("5", "5k")
    assert not relaxed_match("5%", "5k", chart_unit=1000)
    assert relaxed_match("5%", "5", chart_unit=1000) is False  # 5 vs 5,000 (and 0.05)


def test_strip_policy_ignores_the_chart_unit_and_every_multiplier():
    assert relaxed_match("5 million", "5k", multipliers="strip")
    assert relaxed_match("5", "5k", chart_unit=1000, multipliers="strip")
    assert not relaxed_match("6", "5k", chart_unit=1000, multipliers="strip")


def test_relaxed_accuracy_passes_every_option_on():
    assert relaxed_accuracy("110", ["Asia", "100"], 0.1)
    assert not relaxed_accuracy("110", ["Asia", "100"])
    assert relaxed_accuracy("3905k", ["3905"], chart_unit=1000)
    assert not relaxed_accuracy("3905k", ["3905"])
    assert relaxed_accuracy("3905k", ["3905"], multipliers="strip")
    # the default chart unit is 1: "5k" is 5,000
    assert relaxed_accuracy("5k", ["5000"])
    assert relaxed_accuracy("asia", ["Europe", "Asia"])     # any gold, not only the first
    assert not relaxed_accuracy("asia", [])
