"""Answer extraction: the case tables in tests/cases/, plus robustness properties."""

from __future__ import annotations

import copy
import random
from types import MappingProxyType

import pytest
from conftest import cases

from bench_kit.errors import InputError
from bench_kit.scoring.extract.answers import (
    box_from_padded,
    box_to_padded,
    extract_box,
    extract_box_detailed,
    extract_choice,
    extract_choice_detailed,
    extract_number,
    extract_number_detailed,
    extract_yesno,
    extract_yesno_detailed,
    square_padding,
)
from bench_kit.scoring.extract.boxes import NO_BOX
from bench_kit.scoring.extract.response import (
    clean_response,
    normalize_text,
    strip_reasoning,
)


@pytest.mark.parametrize("case", cases("extract_choice"))
def test_extract_choice(case):
    choices = case["choices"]
    before = copy.deepcopy(choices)
    # A read-only mapping: any attempt to mutate the caller's choices raises.
    question = case.get("question")
    found = extract_choice_detailed(case["input"], MappingProxyType(choices), question)
    assert (found.value, found.parse) == (case["expected"], case["parse"])
    assert extract_choice(case["input"], choices, question) == case["expected"]
    assert choices == before


@pytest.mark.parametrize("case", cases("extract_yesno"))
def test_extract_yesno(case):
    found = extract_yesno_detailed(case["input"], case.get("question"))
    assert (found.value, found.parse) == (case["expected"], case["parse"])
    assert extract_yesno(case["input"], case.get("question")) == case["expected"]


@pytest.mark.parametrize("case", cases("extract_number"))
def test_extract_number(case):
    found = extract_number_detailed(case["input"])
    expected = case["expected"]
    assert found.parse == case["parse"]
    if expected is None:
        assert found.value is None and extract_number(case["input"]) is None
    else:
        assert found.value == pytest.approx(expected)
        assert extract_number(case["input"]) == pytest.approx(expected)


@pytest.mark.parametrize("case", cases("extract_box"))
def test_extract_box(case):
    found = extract_box_detailed(case["input"], case["width"], case["height"],
                                 box_format=case["box_format"])
    assert found.parse == case["parse"]
    if case["expected"] is None:
        assert found.value is None
    elif case["expected"] == "no_box":
        assert found.value == NO_BOX and found.detail == "rejection"
    else:
        assert found.value == pytest.approx(tuple(case["expected"]))
        assert found.detail.endswith(case["family"]) or case["box_format"] != "auto"
        assert extract_box(case["input"], case["width"], case["height"],
                           case["box_format"]) == found.value


def test_extract_box_records_the_scale_it_applied():
    assert extract_box_detailed("[100, 100, 200, 200]", 640, 480,
                                box_format="norm1000").detail == "norm1000"
    assert extract_box_detailed("[100, 100, 900, 200]", 640, 480).detail == "auto:norm1000"


def test_extract_box_rejects_an_unknown_format():
    with pytest.raises(InputError):
        extract_box_detailed("[1, 2, 3, 4]", 640, 480, box_format="thousand")


@pytest.mark.parametrize("case", cases("padding"))
def test_square_padding(case):
    width, height = case["width"], case["height"]
    assert square_padding(width, height) == tuple(case["padding"])
    assert box_to_padded(case["box"], width, height) == pytest.approx(tuple(case["padded"]))
    assert box_from_padded(case["padded"], width, height) == pytest.approx(tuple(case["box"]))


def test_extraction_is_deterministic_and_never_guesses():
    response = "I cannot tell which option is right."
    choices = {"A": "cat", "B": "dog", "C": "fox", "D": "owl"}
    assert {extract_choice(response, choices) for _ in range(50)} == {None}


@pytest.mark.parametrize("raw, expected", [
    ("<think>a</think>b", "b"),
    ("  <think>\nx\n</think>\n\nB", "\n\nB"),
    ("reasoning without an opening tag</think>B", "B"),
    ("<think>never closed", ""),
    ("no block here", "no block here"),
    ("B <think>late</think>", "B <think>late</think>"),
])
def test_strip_reasoning(raw, expected):
    assert strip_reasoning(raw) == expected


@pytest.mark.parametrize("raw, expected", [
    ("<answer>**（B）**</answer>", "(B)"),
    ("# Answer\n`C`", "Answer\nC"),
    ("x <|im_end|>", "x"),
    ("$\\boxed{\\frac{1}{2}}$", "\\frac{1}{2}"),
])
def test_clean_response(raw, expected):
    assert clean_response(raw) == expected


@pytest.mark.parametrize("raw, expected", [
    ("  The Eiffel-Tower, 1,063 ft! ", "eiffel tower 1063 ft"),
    ("-3.5 degrees", "-3.5 degrees"),
    ("3-4", "3 4"),
    ("Ｈｅｌｌｏ，World", "hello world"),
    ("答案：北京。", "答案 北京"),
    ("An apple", "apple"),
])
def test_normalize_text(raw, expected):
    assert normalize_text(raw) == expected


_FUZZ_ALPHABET = list("ABCDEFGHIJabcdefij0123456789 .,:;()[]{}<>/\\-+%$*_`#'\"\n\t") + [
    "答案", "是", "不", "没有", "选项", "一", "十", "万", "<think>", "</think>", "<answer>",
    "</answer>", "\\boxed{", "answer is ", "The answer is ", "yes", "no", "not ", "one",
    "hundred", "−", "（", "）", "Ｂ", "\u200b", "e5", "\ud800"]


def test_extractors_accept_any_string():
    rng = random.Random(1234)
    choices = {"A": "x", "B": "Plan B", "C": "一"}
    for _ in range(2000):
        text = "".join(rng.choice(_FUZZ_ALPHABET) for _ in range(rng.randint(0, 40)))
        for found, allowed in (
            (extract_choice_detailed(text, choices), (None, "A", "B", "C")),
            (extract_yesno_detailed(text), (None, "yes", "no")),
        ):
            assert found.value in allowed
            assert (found.value is None) == (found.parse == "failed")
        number = extract_number_detailed(text)
        assert number.value is None or isinstance(number.value, float)
        assert (number.value is None) == (number.parse == "failed")
        box = extract_box_detailed(text, 640, 480)
        assert box.value is None or len(box.value) == 4


@pytest.mark.parametrize("text", [
    "(" * 20000, "1," * 10000, "answer is " * 2000, "[1 " * 5000, "A " * 10000, "一" * 20000,
    "亿" * 5000, "hundred " * 3000, "9" * 5000, "<answer>" * 3000, "\\boxed{" * 3000,
    "{" * 10000 + "}" * 10000, "<think>" * 3000, "1.1." * 5000, "(1,2)" * 4000, "not " * 5000 + "A",
    "B, " * 7000, "答案" * 8000, "选" * 20000, "1e" * 10000, "\n" * 20000, "x" * 100000,
])
def test_extractors_handle_long_pathological_input(text):
    # Linear-time regexes: these finish at once; catastrophic backtracking would hang here.
    extract_choice(text, {"A": "a", "B": "Vitamin B"})
    extract_yesno(text)
    number = extract_number(text)
    assert number is None or number == number  # not NaN
    extract_box(text, 640, 480)


def test_points_follow_the_declared_box_format():
    from bench_kit.scoring.metrics.detection import extract_point_detailed

    assert extract_point_detailed("(500, 250)", 640, 480).value == (500.0, 250.0)
    assert extract_point_detailed("(500, 250)", 640, 480, box_format="norm1000").value \
        == pytest.approx((320.0, 120.0))
    assert extract_point_detailed("(0.5, 0.5)", 640, 480, box_format="pixel").value \
        == (0.5, 0.5)
