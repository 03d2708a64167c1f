"""Pins of scoring/extract/checklist.py beyond tests/cases/parse_checklist.json (mutation
testing, benchmarks/mutation.py target `extract_checklist`). Expected values are worked out
by hand from the module's rules, in the comments."""

from __future__ import annotations

import pytest

from bench_kit.scoring.extract.checklist import parse_checklist, verdict


@pytest.mark.parametrize("text, expected", [
    ("PASSED - fine", True),    # a mark, lower-cased before the look-up
    ("fail: no ball", False),
    ("✓ red", True),
    ("✔", True),
    ("✗ wrong", False),
    ("✘", False),
    ("× nope", False),
    ("pass", True),
    ("failed", False),
    ("-yes", True),             # the first-word pattern skips the leading "-": a yes/no read
    ("no, it is square", False),  # no mark: the yes/no extractor says "no"
    ("maybe", None),            # neither a mark nor a yes/no
    ("", None),
])
def test_verdict(text, expected):
    assert verdict(text) is expected


def test_the_first_numbered_line_of_a_check_wins():
    # "1. yes" then "1. no": check 1 keeps the first (True); check 2 is "no"
    assert parse_checklist("1. yes\n1. no\n2. no", ["a", "b"]) == [True, False]


def test_numbers_outside_one_to_n_are_ignored():
    # 3 lines for 2 checks (no line-order fallback); "3." is index 2 (past the end) and
    # "0." is index -1 (would be the last check if negative indexes were allowed)
    assert parse_checklist("1. yes\n3. no\n0. no", ["a", "b"]) == [True, None]


def test_the_last_number_one_to_n_is_read():
    # "2." is index 1 = len(names) - 1, the last valid one
    assert parse_checklist("2. no\nextra line\nanother", ["a", "b"]) == [None, False]


def test_bracket_and_check_forms():
    assert parse_checklist("[2] 是\nCheck 1: no\nmore", ["a", "b"]) == [False, True]


def test_a_name_line_needs_the_whole_name_then_a_space():
    # "redder: no" starts with "red" but not "red ": only "red: yes" is read
    assert parse_checklist("redder: no\nred: yes\nthird", ["red"]) == [True]


def test_a_numbered_verdict_is_not_overwritten_by_a_name_line():
    # check 1 "yes" by number; the later name line "a: no" must not replace it
    assert parse_checklist("1. yes\na: no\nb: no", ["a", "b"]) == [True, False]


def test_an_empty_name_never_matches():
    # normalize_text("!!") is "": without the `name and` guard every line would match it
    assert parse_checklist("yes it is\nsomething\nmore", ["!!", "b"]) == [None, None]


def test_line_order_fallback_needs_exactly_one_line_per_check():
    # blank lines are skipped: 2 non-empty lines for 2 checks -> read in order
    assert parse_checklist("yes\n\n  \nno", ["a", "b"]) == [True, False]
    # 3 lines for 2 checks: no fallback
    assert parse_checklist("yes\nno\nyes", ["a", "b"]) == [None, None]
    # the fallback only when nothing was found: check 2 by number, line 1 not read
    assert parse_checklist("yes\n2. no", ["a", "b"]) == [None, False]
