"""Pins of scoring/extract/answers.py beyond the choice case table (mutation testing,
benchmarks/mutation.py target `extract_answers`): the rules of the module docstring one
by one, each threshold exactly on its edge and each first-vs-last choice with two
candidates, and the fast path for the common shapes on inputs where a pre-check decides.
Expected values are worked out by hand from the module docstring, in the comments."""

from __future__ import annotations

import pytest

from bench_kit.scoring.extract.answers import extract_choice, extract_choice_detailed
from bench_kit.scoring.extract.response import FAILED, Extraction

ABC = {"A": "cat", "B": "dog", "C": "cow"}
ABCD = {"A": "cat", "B": "dog", "C": "cow", "D": "pig"}
YES_NO = {"A": "Yes", "B": "No"}


def ok(letter: str) -> Extraction:
    return Extraction(letter, "ok")


def lenient(letter: str) -> Extraction:
    return Extraction(letter, "lenient")


def both_paths(text: str, choices, question: str | None = None) -> Extraction:
    """The answer of the fast path and of the full rules, which must agree."""
    fast = extract_choice_detailed(text, choices, question)
    assert extract_choice_detailed(text, choices, question, fast=False) == fast
    return fast


# --- rule 1: the whole response is a letter form ---------------------------------------

@pytest.mark.parametrize("text, expected", [
    ("B", ok("B")), ("(B)", ok("B")), ("B.", ok("B")), ("[B]", ok("B")),
    ("Option B", ok("B")), ("选项B", ok("B")),
    ("b", ok("B")),            # a lower-case letter form is the letter
    ("E", FAILED),             # a letter outside A-C: no answer, not a guess
])
def test_a_whole_response_letter_form(text, expected):
    assert both_paths(text, ABC) == expected


def test_a_short_letter_list_is_no_answer_up_to_39_characters():
    # "A" + 35 spaces + "- B" is 39 characters: a list of two letters under 40 -> failed
    assert both_paths("A" + " " * 35 + "- B", ABC) == FAILED
    # 40 characters: not a short list; rule 4 reads the lead "A -" (a letter and a dash)
    assert both_paths("A" + " " * 36 + "- B", ABC) == ok("A")


def test_a_letter_list_needs_two_different_letters_and_is_not_an_options_text():
    # "(D) (D)": one letter named twice is no list; the lead (D) is the answer
    assert both_paths("(D) (D)", ABCD) == ok("D")
    # "A and B" is option A's own text: the response equals it (rule 5), not a list
    assert both_paths("A and B", {"A": "A and B", "B": "C", "C": "D"}) == lenient("A")
    assert both_paths("A and B", ABC) == FAILED


# --- rule 2: the answer clause ---------------------------------------------------------

@pytest.mark.parametrize("text, expected", [
    # a filler ("clearly", "most likely") between the clause and a lower-case letter:
    # the letter a is named (nothing alphabetic follows it) -> A, ok
    ("The answer is clearly a.", ok("A")),
    ("The answer is most likely a.", ok("A")),
    # the last clause is "I mean b" (a correction) -> B, ok
    ("The answer is cat i mean b.", ok("B")),
    ("The answer is so i choose a", ok("A")),
])
def test_a_clause_with_lower_case_words_is_read_by_the_full_rules(text, expected):
    assert both_paths(text, {"A": "cat", "B": "dog"}) == expected


def test_an_outside_letter_with_yes_no_options_reads_the_yes_no_with_the_question():
    text = "The correct option letter is D. The nest is smaller than a fist."
    # D is not an option; Yes/No options read the yes/no the response states: "smaller"
    # against the "larger" asked -> No (B), lenient
    assert both_paths(text, YES_NO, "Is this nest larger than a fist?") == lenient("B")
    # without the question no sentence says yes or no -> no answer
    assert both_paths(text, YES_NO) == FAILED


# --- rules 3-4: the last line, the leading letter --------------------------------------

def test_the_last_line_written_out_as_an_option():
    # rule 3: after reasoning naming A and C, the last line is option B written out
    # (its letter and its text) -> B, lenient; both lead forms "(B)" and "B."
    head = "Option A says cat and option C says cow, neither fits.\n"
    assert both_paths(head + "(B) dog", ABCD) == lenient("B")
    assert both_paths(head + "B. dog", ABCD) == lenient("B")


def test_a_bare_letter_on_the_last_line():
    assert both_paths("Let me think.\nB", ABC) == lenient("B")
    assert both_paths("Let me think.\nb", ABC) == lenient("B")    # upper-cased
    assert both_paths("Let me think.\n(E)", ABC) == FAILED        # not an option


def test_a_lead_is_not_read_when_the_lines_enumerate_options():
    # two lines led by options A and B: the options echoed, no answer
    assert both_paths("A. cat\nB. dog", ABC) == FAILED
    # one led line followed by prose: the lead B is the answer (rule 4, ok)
    assert both_paths("B. dog\nbecause it barks", ABC) == ok("B")


def test_a_lead_ruled_out_in_its_own_segment():
    # "B. is incorrect …": the segment after the lead rules B out; C is the one letter left
    assert both_paths("B. is incorrect because dogs bark. C fits.", ABC) == lenient("C")


def test_a_lead_outside_the_options_and_two_leads_offered():
    assert both_paths("(E) 3", ABC) == FAILED        # options end at C
    assert both_paths("(A) or (C)", ABC) == FAILED   # two options offered


# --- rule 5: the response equals an option's text --------------------------------------

def test_the_whole_text_equal_to_an_option_holding_the_word_answer():
    # "the answer is no" is option A's text exactly (rule 5, lenient), though B ("no")
    # is inside it
    choices = {"A": "The answer is no", "B": "no"}
    assert both_paths("The answer is no.", choices) == lenient("A")


def test_extract_choice_returns_the_value():
    assert extract_choice("The answer is clearly a.", {"A": "cat", "B": "dog"}) == "A"
