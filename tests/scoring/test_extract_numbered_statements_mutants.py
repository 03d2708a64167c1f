"""Pins of scoring/extract/numbered_statements.py that the case tables leave open (mutation
testing, benchmarks/mutation.py target `extract_numbered_statements`). Every expected value is
worked out by hand from the module's docstring and docs/METRICS.md ("Extraction": options that
are sets of numbered statements), in the comment beside it."""

from __future__ import annotations

import pytest

from bench_kit.scoring.extract.answers import extract_choice_detailed
from bench_kit.scoring.extract.numbered_statements import as_circled

STATEMENTS = {"A": "①②", "B": "①③", "C": "②④", "D": "③④"}


def test_a_full_width_run_alone_is_read_too():
    # METRICS.md names "（1）（3）" as a run: a text whose only brackets are full-width ones
    # (no ASCII "(") is converted, "（1）（3）" -> "①③"; the pre-check that skips texts without
    # brackets must look for both kinds
    assert as_circled("（1）（3）正确", STATEMENTS) == "①③正确"
    # ... and the response then says option B's text, "①③" (lenient, as the case table's
    # "根据我的计算结果，(1) (2)." -> A)
    found = extract_choice_detailed("根据我的计算结果，（1）（3）.", STATEMENTS)
    assert (found.value, found.parse) == ("B", "lenient")


def test_only_when_every_option_is_a_set_of_statements():
    # "when every option is a set of circled statement numbers": options that are words
    # leave the run as written
    assert as_circled("(1) (2)", {"A": "cat", "B": "dog"}) == "(1) (2)"
    # one option that is not a set is enough to leave it
    assert as_circled("(1) (2)", {"A": "①②", "B": "以上都不对"}) == "(1) (2)"


def test_no_options_leave_the_text():
    # with no options there is no option of statements to say: the text is returned as is
    assert as_circled("(1) (2)", {}) == "(1) (2)"


def test_an_option_written_with_spaces_is_still_a_set_of_statements():
    # the options' spaces are not part of the set: "① ②" is the set ①②, so the run of
    # "(1) (2)" is written "①②" (its own spaces and brackets dropped)
    spaced = {"A": "① ②", "B": "① ③", "C": "② ④", "D": "③ ④"}
    assert as_circled("(1) (2)", spaced) == "①②"
    assert as_circled("故选（2）、（4）。", spaced) == "故选②④。"


def test_a_lone_bracketed_number_is_no_run():
    # "each run of two or more bracketed statement numbers": "(1)" and "(3)" with a word
    # between them ("和" is no separator) are two lone numbers, not the statements ①③
    assert as_circled("故选(1)和(3)", STATEMENTS) == "故选(1)和(3)"
    assert as_circled("（2）", STATEMENTS) == "（2）"


@pytest.mark.parametrize("verdict", ["错误", "不正确", "不对", "错", "排除", " 错误",
                                     "都错误", "均不正确", "也不对", "是错的", "为错误", "都 错误"])
def test_each_negative_verdict_after_a_run_leaves_it(verdict):
    # "not a run that a negative verdict follows": each word of the negative verdicts
    # (错误 / 不正确 / 不对 / 错 / 排除, after 都 / 均 / 也 / 是 / 为 or not, a space before
    # either) rules the run out: it stays "(1)(2)", not the statements ①②
    assert as_circled("(1)(2)" + verdict, STATEMENTS) == "(1)(2)" + verdict


def test_a_run_followed_by_another_word_is_read():
    # "(1)(2)正确" is no negative verdict: the run is ①②
    assert as_circled("(1)(2)正确", STATEMENTS) == "①②正确"
