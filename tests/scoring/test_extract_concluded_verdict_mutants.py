"""Pins of scoring/extract/concluded_verdict.py that the case tables leave open (mutation
testing, benchmarks/mutation.py target `extract_concluded_verdict`). Every expected value is
worked out by hand from `concluded`'s docstring and docs/METRICS.md ("Extraction": the last
concluding sentence of an "Is <thing> <predicate>?" question), in the comment beside it."""

from __future__ import annotations

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
