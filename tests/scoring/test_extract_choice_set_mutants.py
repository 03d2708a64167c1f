"""Pins of scoring/extract/choice_set.py that the doctests leave open (mutation testing,
benchmarks/mutation.py target `extract_choice_set`). Every expected value is worked out by
hand from the module's docstring rules, in the comment beside it."""

from __future__ import annotations

from bench_kit.scoring.extract.choice_set import SHORT_ANSWER, extract_choice_set
from bench_kit.scoring.extract.response import FAILED

ABC = {"A": "cat", "B": "car", "C": "cow"}


def test_a_clause_gives_parse_ok_and_a_sorted_tuple():
    # clause "The answer is" -> tail "C and A" -> letters {C, A} sorted -> ('A', 'C')
    found = extract_choice_set("Looking at each one. The answer is C and A.", ABC)
    assert (found.value, found.parse) == (("A", "C"), "ok")


def test_a_short_bare_list_is_lenient():
    found = extract_choice_set("B, C", ABC)
    assert (found.value, found.parse) == (("B", "C"), "lenient")


def test_short_answer_boundary_is_inclusive():
    assert SHORT_ANSWER == 40
    # 40 characters exactly: "A and C" (7) + 33 spaces-free filler ending the text
    text = "A and C" + " x" * 16 + "y"  # 7 + 32 + 1 = 40 characters
    assert len(text) == 40
    assert extract_choice_set(text, ABC).value == ("A", "C")
    longer = text + "y"  # 41 characters, no answer clause: a long response -> failed
    assert extract_choice_set(longer, ABC) is FAILED


def test_letters_outside_the_choices_are_dropped_and_none_left_fails():
    # D is a letter of _LETTER's class but not an option: only A stays
    assert extract_choice_set("A, D", ABC).value == ("A",)
    # only D: no option letter -> FAILED (never an empty tuple)
    assert extract_choice_set("D", ABC) is FAILED


def test_brackets_and_word_boundaries():
    # "(A)" and "[C]" count; the A of "Apple" and the "B" inside "AB" do not
    assert extract_choice_set("(A) or [C]", ABC).value == ("A", "C")
    assert extract_choice_set("Apple", ABC) is FAILED
    assert extract_choice_set("AB", ABC) is FAILED
    # lower-case letters are not option letters
    assert extract_choice_set("a, c", ABC) is FAILED


def test_only_the_clause_sentence_counts_when_there_is_a_clause():
    # the B before the clause is ignored; the tail stops at the sentence end ". "
    found = extract_choice_set("B is wrong. The answer is A. C is not.", ABC)
    assert (found.value, found.parse) == (("A",), "ok")


def test_an_empty_clause_tail_falls_back_to_the_short_text():
    # "A. The answer is:" has a clause whose tail is "" (nothing after the colon): a falsy
    # tail, so the whole 17-character text is read leniently -> ('A',)
    found = extract_choice_set("A. The answer is:", ABC)
    assert (found.value, found.parse) == (("A",), "lenient")
