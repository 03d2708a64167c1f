"""extract_yesno is linear in the response's length on the shapes its chat-prose rules
read (conditions, relative clauses, hedges, the speaker on itself, openers, paragraphs):
twice the characters take at most 2.5 times as long (docs/BENCHMARKS.md#extraction-speed).
The shapes are the ones a review of those rules timed."""

from __future__ import annotations

import pytest

from bench_kit.scoring.extract.yesno import extract_yesno
from tests.scoring.linear_timing import assert_linear


def _repeat(unit: str, n: int) -> str:
    return (unit * (n // len(unit) + 1))[:n]


SHAPES = {
    "negations in conditions": lambda n: _repeat("if it is not ", n),
    "a condition with no comma": lambda n: _repeat("if " + "a" * 280 + " not ", n),
    "relative clauses": lambda n: _repeat("people who do not ", n),
    "hedged negations": lambda n: _repeat("it may not ", n),
    "the speaker on itself": lambda n: _repeat("I do not have ", n),
    "not only": lambda n: _repeat("not only ", n),
    "concessions in one sentence": lambda n: _repeat("although the cat is not here ", n),
    "an opener then prose": lambda n: "Certainly" + _repeat(" x", n),
    "paragraphs then a refusal": lambda n: _repeat("The cat is red. ", n // 2) + "\n\n"
    + _repeat("please provide ", n // 2),
    "Chinese": lambda n: _repeat("如果不", n),
    # the rules of the review's wrong readings (contrast, litotes, quantifiers, hedges)
    "contrasts": lambda n: _repeat("the dog is not red, while the cat is. ", n),
    "a contrast in one long sentence": lambda n: _repeat("the dog is not red ", n) + ", while the cat is.",
    "litotes": lambda n: _repeat("the cat is not a bad red ", n),
    "negated quantifiers": lambda n: _repeat("not everyone ", n),
    "hedged answers": lambda n: _repeat("no clear answer ", n),
    # a contrast's look-back for its first statement: stops that never occur ("!", "?", ";")
    "contrasts with only some stops": lambda n: _repeat("a, but b is.", n),
    # a loop written until the token limit (`line_loop_start` walks back over every line of it)
    "a one-line loop": lambda n: _repeat("This answer is correct.\n", n),
    "a six-line loop": lambda n: _repeat("a\nb\nc\nd\ne\nf\n", n),
    # worked examples after the answer (`first_block` cuts at the first)
    "worked examples": lambda n: "The answer is True\n" + _repeat("Problem:\nFind x.\n", n),
    # negations after the opening paragraph, each sentence read for the question's words once
    "later negations": lambda n: "Intro.\n\n" + _repeat("the dog is not here. ", n),
    "a later negation in one long sentence": lambda n: "Intro.\n\n" + _repeat("dog not ", n),
    # the rules of report5's hedged answers: declines, hedged clauses, "unlikely", reported
    # claims, a verbless ", but not …" contrast, the question written out again
    "declines": lambda n: _repeat("it is not known whether we don't know ", n),
    "hedged answer clauses": lambda n: _repeat("if the cat is possibly red the answer would be ", n),
    "unlikely with no stop": lambda n: _repeat("it is unlikely the cat is red ", n),
    "reported claims": lambda n: _repeat("the claim that the cat is red. ", n),
    "but not contrasts": lambda n: _repeat("the cat is red, but not ", n),
    "questions written out again": lambda n: _repeat("Final answer: Is the cat red?\n", n),
    "pairs offered": lambda n: _repeat("true or false ", n),
    # the rules of the yes/no review probes (s12): a "no" denying something else, "not … either"
    # after a litotes, a word offered with its opposite, an answer taken back ("-ing" words are
    # read word by word within `content_words`' own pass: no shape of their own)
    "no then a contrast": lambda n: _repeat("there is no dog, but the cat is here ", n),
    "not bad, not red either": lambda n: _repeat("the cat is not bad, but not red either ", n),
    "words with their opposites": lambda n: _repeat("the cat is good or bad red ", n),
    "answers taken back": lambda n: "Yes. " + _repeat("actually, I can ", n),
}


@pytest.mark.parametrize("shape", sorted(SHAPES))
def test_twice_the_length_takes_at_most_two_and_a_half_times_as_long(shape):
    make = SHAPES[shape]
    assert_linear(shape, make(200_000), make(400_000),
                  lambda text: extract_yesno(text, "Is the cat red?"))


def test_usually_not_to_an_ever_question_is_linear():
    """Negations after "generally" to "… ever …?" (`_USUALLY` is read before each one)."""
    assert_linear("usually not", _repeat("it is generally not red ", 200_000),
                  _repeat("it is generally not red ", 400_000),
                  lambda text: extract_yesno(text, "Is the cat ever red?"))


@pytest.mark.parametrize("unit, question", [
    ("it is generally not red, but some cats ", "Is the cat ever red?"),  # exceptions affirmed
    ("not red, but it can, ", "Is the cat ever red?"),
    ("there is a dog. ", "Is there a cat?"),  # "There is (no) X" to "Is there an X?"
    ("there is no dog, ", "Is there a cat?"),
    ("the dog is here. ", "Is there a cat?"),  # "The X is …" to "Is there an X?"
    ("the cat is ", "Is there a cat?"),
    # the narrowed rules of review yesno5: reported opinions, "There is not only …", absence
    # words, an elliptical state, "no correct / clear answer" to an option question
    ("it is generally not red, but some people think ", "Is the cat ever red?"),
    ("there is not only a dog, ", "Is there a dog?"),
    ("the cat is missing and ", "Is there a cat?"),
    ("the dog is nowhere. ", "Is there a cat?"),
    ("I don't know, but I think so, ", "Is the cat red?"),
    ("there is no dog other than ", "Is there a dog?"),
    ("the door is closed and open ", "Is the door open?"),
    ("there is no clear answer, ", "Is any option correct?"),
])
def test_review_probe_rules_are_linear(unit, question):
    """The rules of the yes/no review probes (s12) read per "not" / per sentence, bounded."""
    assert_linear(unit, _repeat(unit, 200_000), _repeat(unit, 400_000),
                  lambda text: extract_yesno(text, question))


@pytest.mark.parametrize("text", ["A{}3", "Sure{}x", "The answer is B{} - No."])
def test_runs_of_spaces_are_linear(text):
    """A letter, "Sure" or an answer clause, then a run of spaces (the space fuzz, issue 25)."""
    assert_linear(text, text.format(" " * 100_000), text.format(" " * 200_000),
                  lambda response: extract_yesno(response, "Is the cat red?"))
