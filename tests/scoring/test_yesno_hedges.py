"""Pins of the yes/no rules for hedged answers (report5's StrategyQA chat answers, branch
s11-yn): which refusal stands last, the qualified and hedged answer clauses, the question
written out again, and the reaches of the "usually not" rule. Expected values are worked
out by hand from the rules in docs/METRICS.md (Yes/No), in the comments."""

from __future__ import annotations

import pytest

from bench_kit.scoring.extract.yesno import _asked_again, _qualified, extract_yesno_detailed
from bench_kit.scoring.extract.yesno_declines import last_decline as _last_decline
from bench_kit.scoring.extract.yesno_negation import first_decisive as _first_decisive


def read(text, question=None):
    found = extract_yesno_detailed(text, question)
    return found.value, found.parse


# `_last_decline`: the later of the shared refusal (NO_ANSWER) and the yes/no decline
def test_last_decline_takes_the_yes_no_decline_when_it_stands_later():
    text = "I am not sure. It is not known whether the cat is red."
    assert _last_decline(text).group() == "it is not known whether"


def test_last_decline_takes_the_shared_refusal_when_it_stands_later():
    text = "It is not known whether the cat is red. I am not sure."
    assert _last_decline(text).group() == "not sure"


def test_last_decline_of_a_decline_alone_and_of_neither():
    assert _last_decline("Electric cars never raced there, so we don't know.").group() == "we don't know"
    assert _last_decline("The cat is red.") is None


def test_last_decline_takes_the_last_of_two_declines():
    text = "We don't know. Later on it is a matter of debate."
    assert _last_decline(text).group() == "matter of debate"


def test_last_decline_at_the_start_of_the_text():
    # the window around "know" is cut at offset 0, where the decline starts
    assert _last_decline("We don't know.").group() == "we don't know"


def test_last_decline_of_two_far_apart_takes_the_later_window():
    # two declines more than twice the reach apart are read in two windows: the later wins
    text = "We don't know." + " x" * 100 + " It is a matter of debate."
    assert _last_decline(text).group() == "matter of debate"


def test_last_decline_keeps_offsets_of_the_text_as_written():
    text = "Intro. WE DON'T KNOW."  # (read lower-cased, offsets unchanged)
    found = _last_decline(text)
    assert (found.start(), found.end()) == (7, 20)


def test_last_decline_when_lower_casing_moves_offsets():
    text = "İ. We don't know."  # "İ".lower() is two characters: read as written, case-blind
    found = _last_decline(text)
    assert text[found.start():found.end()] == "We don't know"


@pytest.mark.parametrize("tail, expected", [
    ("unknown", "both"), ("not known", "both"), ("N/A", "both"), ("maybe", "both"),
    ("somewhat subjective", "both"), ("possibly yes", "both"), ("potentially no", "both"),
    ("unlikely", "no"), ("highly unlikely", "no"), ("unlikely to be yes", None),
    ("likely yes", "yes"), ("most probably no", "no"), ("likely, yes", "yes"),
    ("technically yes", "yes"), ("likely", None), ("yes", None), ("knownly", None),
])
def test_qualified_answer_clause_tails(tail, expected):
    # declining words answer nothing ("both"); "unlikely" ending the tail is no; a
    # "likely / probably / technically" before a yes/no reads the word; anything else is
    # left to the other clause rules (None)
    assert _qualified(tail) == expected


@pytest.mark.parametrize("text, expected", [
    ("Final answer: Is it red?\nYes.", 24),  # after the "?" (24 characters before it)
    ("Final answer: Is it red?", None),  # nothing follows
    ("Final answer: Is it red?\n  ", None),  # only space follows
    ("Final answer: it is red.\nYes.", None),  # the clause is no question
    ("It is red. Is it? Yes.", None),  # no answer clause
])
def test_asked_again(text, expected):
    assert _asked_again(text) == expected


def test_the_question_written_out_again_reads_only_what_follows():
    text = ("Q1. Is the sky green?\nNo, it is blue.\n"
            "Final answer: Is the sky blue?\nYes, the sky is blue.")
    assert read(text, "Is the sky blue?") == ("yes", "ok")


@pytest.mark.parametrize("text, expected", [
    ("If it rains, the answer would be yes.", (None, "failed")),
    ("If it rains, the answer is yes.", ("yes", "ok")),  # a condition alone does not hedge
    ("So it is possible that the answer is yes.", (None, "failed")),
    ("So it is likely that the answer is no.", (None, "failed")),
    ("Perhaps the answer is no.", (None, "failed")),
    ("It is possible. The answer is no.", ("no", "ok")),  # the hedge is in another sentence
])
def test_hedged_answer_clauses(text, expected):
    assert read(text) == expected


EVER = "Can stainless steel ever be magnetic?"


def test_usually_not_within_reach_does_not_answer_an_ever_question():
    # "generally" starting 60 characters before the negation (11 + 39 + 10): not the answer
    text = "Generally, " + "x" * 39 + " steel is not magnetic."
    assert read(text, EVER) == (None, "failed")


def test_usually_not_out_of_reach_answers():
    # "generally" starting 61 characters before the negation: the negation answers
    text = "Generally, " + "x" * 40 + " steel is not magnetic."
    assert read(text, EVER) == ("no", "lenient")


def test_not_generally_after_the_negation_counts_too():
    assert read("Stainless steel is not generally magnetic.", EVER) == (None, "failed")


def test_usually_not_answers_a_question_about_the_usual_case():
    assert read("Generally, stainless steel is not magnetic.", "Is stainless steel magnetic?") \
        == ("no", "lenient")


@pytest.mark.parametrize("text", [
    "People argue whether it is true or false.",
    "Each claim is marked yes/no by the checker.",
    "It can be correct or incorrect.",
])
def test_a_yes_word_offered_with_its_opposite_answers_nothing(text):
    assert read(text, "Is the claim right?") == (None, "failed")


def test_a_no_after_an_offered_pair_answers():
    assert read("It is marked true or false. No, the claim is not right.", "Is the claim right?") \
        == ("no", "lenient")


# pins of the mutation run of 2026-12-02 (extract_yesno): the "usually not" window's end
def test_usually_after_the_window_does_not_skip_the_negation():
    # the window ends 12 characters after "not": a "generally" further on is not read
    assert _first_decisive("It is not magnetic, as is generally known.", EVER) == "no"


def test_usually_ending_13_characters_after_the_negation_is_out_of_the_window():
    # "not" + "   in general" ends 13 characters after "not": outside the window
    assert _first_decisive("It is not   in general magnetic.", EVER) == "no"


def test_a_negation_after_a_skipped_usually_not_is_read():
    # the first "not" is skipped (after "Generally"), the second one answers
    assert _first_decisive("Generally it is not red. The cat is not here.", "Is the cat ever red?") == "no"
