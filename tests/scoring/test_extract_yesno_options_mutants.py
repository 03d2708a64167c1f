"""Pins of scoring/extract/yesno_options.py beyond the choice case table (mutation testing,
benchmarks/mutation.py target `extract_yesno_options`): options that are exactly Yes and No
(rule 8 of answers.py), a letter written with the other option's word, the echoed option
list, and every first-vs-last choice with two candidates. Expected values are worked out by
hand from the docstrings, in the comments."""

from __future__ import annotations

import pytest

from bench_kit.scoring.extract.answers import extract_choice_detailed
from bench_kit.scoring.extract.response import FAILED, Extraction
from bench_kit.scoring.extract.yesno_options import letter_then_word, yesno_option

YES_NO = {"A": "Yes", "B": "No"}
AB = {"A": "A", "B": "B"}
TEXTS = {"A": "yes", "B": "no"}  # option_texts of YES_NO
FOUND_A = Extraction("A", "ok")


@pytest.mark.parametrize("text, expected", [
    # A = Yes written with "no": that is the word No, option B, lenient
    ("A: no", Extraction("B", "lenient")),
    ("A) no", Extraction("B", "lenient")),
    ("(A) No", Extraction("B", "lenient")),
    ("A. NO", Extraction("B", "lenient")),   # the word is read case-blind
    # A written with its own word: the found answer stands
    ("A: yes", FOUND_A),
    # no letter-word pair at all ("A" then prose): the found answer stands
    ("A because it is shown", FOUND_A),
    # "Ano": the word must stand alone (not followed by a letter)
    ("A: nothing", FOUND_A),
])
def test_a_letter_with_the_other_options_word_is_that_word(text, expected):
    assert letter_then_word(text, YES_NO, AB, FOUND_A) == expected


def test_the_last_word_written_with_the_letter_counts():
    # two pairs for A: the last one decides (words[-1])
    assert letter_then_word("A: yes. Wait, A: no", YES_NO, AB, FOUND_A) == Extraction("B", "lenient")
    assert letter_then_word("A: no. Wait, A: yes", YES_NO, AB, FOUND_A) == FOUND_A


def test_only_the_found_letters_words_count():
    # found A; "B: no" is B's own word, A's only word is yes -> A stays
    assert letter_then_word("B: no. A: yes", YES_NO, AB, FOUND_A) == FOUND_A
    # found B; "A: yes" is not about B, "B: yes" says the other word -> A
    assert letter_then_word("A: yes, B: yes", YES_NO, AB, Extraction("B", "ok")) \
        == Extraction("A", "lenient")


def test_the_callers_keys_are_returned():
    # lower-case keys: options maps A -> "a"; the other option's key is "b"
    choices = {"a": "Yes", "b": "No"}
    assert letter_then_word("A: no", choices, {"A": "a", "B": "b"}, Extraction("a", "ok")) \
        == Extraction("b", "lenient")
    # No first: A = No, B = Yes; "B: no" -> the No option A
    assert letter_then_word("B: no", {"A": "No", "B": "Yes"}, AB, Extraction("B", "ok")) \
        == Extraction("A", "lenient")


def test_options_that_are_not_yes_and_no_are_left_alone():
    found = Extraction("A", "ok")
    assert letter_then_word("A: no", {"A": "cat", "B": "dog"}, AB, found) == found


@pytest.mark.parametrize("text", [
    "(A) yes\n(B) no",                  # the option list echoed: no answer
    "A. Yes\nB. No\nI think so.",
    "Options:\n  A: yes\n  B: no  ",    # indented, trailing spaces
])
def test_the_echoed_option_list_is_no_answer(text):
    assert letter_then_word(text, YES_NO, AB, FOUND_A) == FAILED


def test_one_listed_word_is_not_the_option_list():
    # two lines, both "yes" (A = yes, B = yes): one distinct word is no list; A's word
    # is its own -> the found A stands
    assert letter_then_word("A) yes\nB) Yes", YES_NO, AB, FOUND_A) == FOUND_A
    # one line only (no line break): "(A) yes (B) no" is read by the pairs, A said yes
    assert letter_then_word("(A) yes (B) no", YES_NO, AB, FOUND_A) == FOUND_A


def test_the_option_list_after_a_new_question_is_not_counted():
    # the lines after "\nQuestion:" (CONTINUATION) are a new question the model wrote;
    # before it only "A: yes" is listed -> not the list, and A said yes -> A
    text = "A: yes\nQuestion: is it red?\nA) yes\nB) no"
    assert letter_then_word(text, YES_NO, AB, FOUND_A) == FOUND_A
    # the same list before the new question is the echoed list
    assert letter_then_word("A) yes\nB) no\nQuestion: is it red?", YES_NO, AB, FOUND_A) == FAILED


def test_through_extract_choice():
    # "A: no" with A = Yes: the answer is No (B), lenient
    assert extract_choice_detailed("A: no", YES_NO) == Extraction("B", "lenient")
    # the echoed list alone: nothing chosen
    assert extract_choice_detailed("(A) yes\n(B) no", YES_NO).value is None


@pytest.mark.parametrize("text, question, expected", [
    ("Yes, it is.", None, Extraction("A", "lenient")),
    ("No, it is not.", None, Extraction("B", "lenient")),
    ("I am not able to see it clearly, sorry.", None, FAILED),
    # the restatement of the question decides: "smaller" against "larger" asked -> no
    ("The nest is smaller than a fist.", "Is this nest larger than a fist?",
     Extraction("B", "lenient")),
    # without the question the sentence holds no yes/no word: no answer
    ("The nest is smaller than a fist.", None, FAILED),
])
def test_yesno_option_reads_the_yes_no_answer(text, question, expected):
    assert yesno_option(text, TEXTS, AB, question) == expected


def test_yesno_option_returns_the_callers_key():
    # A = No, B = Yes under keys "1"/"2" -> "yes" is the key of B
    assert yesno_option("Yes.", {"A": "no", "B": "yes"}, {"A": "1", "B": "2"}, None) \
        == Extraction("2", "lenient")
