"""Pins of scoring/extract/question_replies.py, word by word. The module holds patterns only
(no function), so mutmut 3, which mutates function bodies, plants no mutant in it
(benchmarks/mutation.py, docs/TESTING.md); these cases hold each word of its lists instead,
every expected value read from the module's comments and docs/METRICS.md ("Extraction": a
question the response asks itself, answered yes or no)."""

from __future__ import annotations

import pytest

from bench_kit.scoring.extract.question_replies import NO_AFTER, PLAIN_NO_AFTER, YES_AFTER


@pytest.mark.parametrize("reply", [
    "Yes.", "yeah", "Yep!", "Sure.", "Definitely.", "Absolutely.", "Indeed.", "Correct.",
    "Certainly.", "Of course.", "Of  course", "I believe so.", "I think so.",
])
def test_each_yes_reply_is_a_yes(reply):
    # METRICS.md: a question is kept (read as said) when it is answered yes ("Is it real?
    # Yes.", "… I believe so", "Definitely", "Absolutely"); the pattern matches at the "?"
    assert YES_AFTER.match("? " + reply)


@pytest.mark.parametrize("between", ["", " ", "\n", "**", "_", '"', "'", ")", ' **" '])
def test_a_reply_after_quotes_spaces_and_markup(between):
    # the reply may follow the "?" directly or after spaces, a closing quote or bracket, and
    # Markdown's * and _: "Is it real?** Yes"
    assert YES_AFTER.match("?" + between + "Yes")
    assert NO_AFTER.match("?" + between + "No")
    assert PLAIN_NO_AFTER.match("?" + between + "No")


@pytest.mark.parametrize("reply", ["Yesterday it was.", "Surely not.", "Maybe.", "I believe it is."])
def test_not_a_yes(reply):
    # a yes word inside a longer word is not one ("Yesterday", "Surely"); no yes word at all
    assert not YES_AFTER.match("? " + reply)


def test_a_reply_after_another_word_is_no_reply():
    # the reply opens right after the question: "? I said yes" is not matched at the "?"
    assert not YES_AFTER.match("? I said yes")
    assert not NO_AFTER.match("? I said no")


@pytest.mark.parametrize("reply", ["No.", "Nope.", "Not really.", "Not at all.", "NO"])
def test_each_no_reply_is_a_no(reply):
    # "Is it a dog? No.", "Is it real? Not really.": answered no
    assert NO_AFTER.match("? " + reply)


@pytest.mark.parametrize("reply", ["No doubt.", "No doubts.", "No question about it.", "No questions."])
def test_an_affirming_idiom_is_no_no(reply):
    # '"No doubt", "No question about it" affirm': not a reply of no
    assert not NO_AFTER.match("? " + reply)
    assert not PLAIN_NO_AFTER.match("? " + reply)


@pytest.mark.parametrize("reply", ["None.", "Nobody.", "Notable."])
def test_a_no_inside_a_word_is_no_no(reply):
    assert not NO_AFTER.match("? " + reply)
    assert not PLAIN_NO_AFTER.match("? " + reply)


@pytest.mark.parametrize("reply", ["No.", "Nope.", "Not at all.", "no, it is fake"])
def test_each_plain_no(reply):
    # with two options a plain no to a question naming one is the other ("Is it real? No."
    # -> fake)
    assert PLAIN_NO_AFTER.match("? " + reply)


@pytest.mark.parametrize("reply", [
    "Not really.",  # hedged, review probe mc5#0
    "No really, it is.",  # "no" followed by "really" is the hedge too
    "No idea.", "No problem.", "No problems.",  # leave the question open
    "No wait, it is.", "No matter.", "No need.",  # "No" opening an idiom
    "No doubt.", "No question about it.",  # affirm
])
def test_not_a_plain_no(reply):
    assert not PLAIN_NO_AFTER.match("? " + reply)
