"""The shared text rules of bench_kit.text (CJK ranges, number spelling, word-bounded
phrases), each case on a boundary; expected values come from the Unicode charts and
from arithmetic written beside them."""

from __future__ import annotations

import unicodedata

import pytest

from bench_kit.scoring.metrics.text import rouge_tokens
from bench_kit.text.cjk import CJK, has_cjk
from bench_kit.text.numbers import canonical_number, format_number
from bench_kit.text.tokens import edit_tokens, word_tokens
from bench_kit.text.words import contains_phrase, find_phrase


@pytest.mark.parametrize("char, ideograph", [
    ("\u3400", True), ("\u4dbf", True),       # Extension A: first and last
    ("\u4dc0", False), ("\u4dff", False),     # Yijing Hexagram Symbols, between A and Unified
    ("\u4e00", True), ("\u9fff", True),       # CJK Unified Ideographs
    ("\uf900", True), ("\ufaff", True),       # Compatibility Ideographs
    ("\U00020000", True), ("\U0002a6df", True), ("\U00030000", True),  # Extensions B, G
    ("\u33ff", False), ("\ua000", False), ("\uf8ff", False), ("\ufb00", False),
    ("\u3042", False), ("\uac00", False),     # kana and hangul are not ideographs
])
def test_ideograph_range_edges(char: str, ideograph: bool) -> None:
    assert has_cjk(char) is ideograph
    if ideograph:  # Unicode names every assigned ideograph "CJK ... IDEOGRAPH-XXXX"
        assert "IDEOGRAPH" in unicodedata.name(char, "CJK UNIFIED IDEOGRAPH")


def test_every_named_ideograph_in_the_bmp_is_in_the_table() -> None:
    missing = [hex(code) for code in range(0x10000)
               if "CJK" in unicodedata.name(chr(code), "") and "IDEOGRAPH" in
               unicodedata.name(chr(code), "") and not CJK.match(chr(code))]
    assert missing == []


def test_tokenisers_split_an_extension_b_character_like_any_ideograph() -> None:
    ext_b = "\U00020001"
    assert word_tokens(f"红{ext_b}色") == ["红", ext_b, "色"]
    assert edit_tokens(f"a{ext_b}b") == ["a", ext_b, "b"]
    assert rouge_tokens(f"猫{ext_b}") == ["猫", ext_b]
    assert rouge_tokens("ねこ 고양이") == ["ね", "こ", "고", "양", "이"]


@pytest.mark.parametrize("value, text", [
    (12.0, "12"), (0.5, "0.5"), (-0.0, "0"), (0.0, "0"), (-7.0, "-7"),
    (9999999999999998.0, "9999999999999998"),  # just below 1e16: digits
    (1e16, "1e+16"),                            # at 1e16: a float no longer holds every digit
    (float("inf"), "inf"), (1.25e-07, "1.25e-07"),
])
def test_format_number(value: float, text: str) -> None:
    assert format_number(value) == text


@pytest.mark.parametrize("token, text", [
    ("16.90", "16.9"), ("007", "7"), ("-0", "0"), ("-6", "-6"), ("2015", "2015"),
    ("1e16", "1e+16"),
])
def test_canonical_number_is_format_number_of_the_token(token: str, text: str) -> None:
    assert canonical_number(token) == text == format_number(float(token))


@pytest.mark.parametrize("text, phrase, found", [
    ("a cat.", "cat", True), ("concatenate", "cat", False), ("cats", "cat", False),
    ("cat_x", "cat", False),             # "_" is not a boundary (as in \b)
    ("café au lait", "caf", False),      # é is a letter: no match inside the word
    ("is it 3.5?", "3", False), ("is it 3.5?", "5", False), ("2,300 votes", "300", False),
    ("3. yes", "3", True),               # a full stop without a digit after it ends the number
    ("1, 3 or 5", "3", True),
    ("黑猫", "猫", True), ("这是red吗", "red", True),  # no boundary needed next to ideographs
    ("紧急出口", "出口", True), ("", "cat", False), ("cat", "", False),
    ("x-ray.", "x-ray", True), ("(A) red", "(A)", True),
])
def test_contains_phrase(text: str, phrase: str, found: bool) -> None:
    assert contains_phrase(text, phrase) is found


def test_case_is_kept_unless_ignored() -> None:
    assert not contains_phrase("Fire EXIT", "exit")
    match = find_phrase("Fire EXIT", "exit", ignore_case=True)
    assert match is not None and match.span() == (5, 9)
