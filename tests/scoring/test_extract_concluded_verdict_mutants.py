"""Pins of scoring/extract/concluded_verdict.py that the case tables leave open (mutation
testing, benchmarks/mutation.py target `extract_concluded_verdict`). Every expected value is
worked out by hand from `concluded`'s docstring and docs/METRICS.md ("Extraction": the last
concluding sentence of an "Is <thing> <predicate>?" question), in the comment beside it."""

from __future__ import annotations

import pytest

from bench_kit.scoring.extract.concluded_verdict import concluded

QUESTION = 'Is the opening "1. e4 e5" legal?'  # the thing: "opening" (and the moves); predicate: "legal"


def test_the_concluding_sentence_ends_at_its_line_end():
    # "to its line's end": the concluding sentence is " the position is unclear." alone,
    # which names nothing the question names (no "opening") -> None; the next line's
    # "The opening is legal." is not part of it
    assert concluded("Therefore, the position is unclear.\nThe opening is legal.", QUESTION) is None
    # the same words on the concluding line itself answer: "yes"
    assert concluded("Therefore, the opening is legal.\nThe position is unclear.", QUESTION) == "yes"


def test_the_concluding_sentence_ends_before_a_following_however():
    # a sentence end before "However" closes it: " the position is fine" names no thing of
    # the question -> None (the later "the opening is not legal" is another sentence, which
    # no concluding word opens)
    text = "Therefore, the position is fine. However, the opening is not legal."
    assert concluded(text, QUESTION) is None


def test_the_sentence_must_name_a_thing_the_question_names():
    # "names a thing the question names": "the position is legal" states the predicate after
    # a copula but about "position", not among the question's words before "legal" -> None
    assert concluded("Therefore, the position is legal.", QUESTION) is None
    # naming one of them (a move of the quoted opening) is enough: "e4 is legal" -> "yes"
    assert concluded("Therefore, e4 is legal.", QUESTION) == "yes"


@pytest.mark.parametrize("after", ["But the opening is not legal.", "This means the opening is not legal.",
                                   "It seems the opening is not legal.", "The opening is not legal.",
                                   "In fact, the opening is not legal.", "Note the opening is not legal."])
def test_the_concluding_sentence_ends_before_each_opening_word(after):
    # a sentence end before a capital word that opens a new sentence (However, But, This, It,
    # The, In, Note) closes the concluding sentence: " the position is fine" names no thing of
    # the question -> None, whatever the next sentence says
    assert concluded("Therefore, the position is fine. " + after, QUESTION) is None


def test_an_are_question_and_each_copula():
    # "Is" / "Are" open the question; the predicate is stated after is / are / was / were
    moves = 'Are the moves "e4 e5" legal?'
    assert concluded("Therefore, the moves are legal.", moves) == "yes"
    assert concluded("Therefore, the moves were not legal.", moves) == "no"
    assert concluded("Therefore, the opening was legal.", QUESTION) == "yes"


def test_a_three_letter_predicate():
    # the predicate is the question's last word before "?", three letters or more: "bad"
    assert concluded("Therefore, the move is bad.", 'Is the move "e4" bad?') == "yes"


def test_a_predicate_in_quotes_before_the_question_mark():
    # closing quotes between the predicate and "?" are skipped: 'Is the move "legal"?' asks
    # "legal" about "move"
    assert concluded("Therefore, the move is legal.", 'Is the move "legal"?') == "yes"


def test_an_adverb_or_an_article_before_the_predicate():
    # the docstring's "is technically legal" is yes; METRICS.md's "… is not a legal …" is no
    assert concluded("Therefore, the opening is technically legal.", QUESTION) == "yes"
    assert concluded("Therefore, the opening is not a legal one.", QUESTION) == "no"
    assert concluded("Therefore, the opening is an illegal one.", QUESTION) == "no"


def test_a_negative_prefix_and_another_prefix():
    # "is illegal" and "is non-legal" are no (negative prefixes); a word merely ending in the
    # predicate with another prefix ("paralegal") states nothing
    assert concluded("Therefore, the opening is illegal.", QUESTION) == "no"
    assert concluded("Therefore, the opening is non-legal.", QUESTION) == "no"
    assert concluded("Therefore, the opening is paralegal.", QUESTION) is None


@pytest.mark.parametrize("question, predicate_sentence", [
    # a compared side is no predicate: "blood is red" does not say blood is "other than red"
    ("Is human blood ever any color other than red?", "In summary, human blood is red."),
    ("Is the sample less than Chartreuse?", "In conclusion, the sample is Chartreuse."),
    # nor the second of two words offered
    ("Is the number odd or even?", "Therefore, the number is even."),
])
def test_a_compared_or_offered_last_word_is_no_predicate(question, predicate_sentence):
    """Held against report3's six answers to "Is human blood ever any color other than red?"
    ("In summary, human blood is typically red, but it may appear …", labelled yes): read as
    yes with "red" as the predicate — right by chance, and "… human blood is red." would read
    yes too — they are left to the other rules (docs/METRICS.md)."""
    assert concluded("Some working.\n\n" + predicate_sentence, question) is None
