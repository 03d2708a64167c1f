"""Pins of scoring/extract/restatement.py beyond the yes/no case tables (mutation testing,
benchmarks/mutation.py target `extract_restatement`): the stemmer's length limit, the
parts of a comparison, the choice between two comparisons in one sentence, the negation
and hedge windows and the sentences a restatement skips. Expected values are worked out
by hand from the docstrings of the module, in the comments."""

from __future__ import annotations

import pytest

from bench_kit.scoring.extract.contrasted_subjects import contrasted
from bench_kit.scoring.extract.named_answer import named_answer
from bench_kit.scoring.extract.question_asked import asked
from bench_kit.scoring.extract.restatement import (
    DENIAL,
    SENTENCE,
    _denial_about,
    _positive,
    _restated_comparison,
    comparisons,
    content_words,
    echoes_question,
    negative_prefixes,
    restated,
    stem,
)


@pytest.mark.parametrize("word, expected", [
    ("cats", "cat"),      # four letters ending in "s": plural
    ("bus", "bus"),       # three letters: kept
    ("glass", "glass"),   # "ss": kept
    ("busses", "buss"),   # "sses" -> "ss"
])
def test_stem(word, expected):
    assert stem(word) == expected


@pytest.mark.parametrize("text, expected", [
    # (+1 more / -1 less / 0 equal, the compared side, the side after than/to/as, negated)
    ("the cat is bigger than the dog", [(1, {"cat"}, {"dog"}, False)]),
    ("the cat is smaller than the dog", [(-1, {"cat"}, {"dog"}, False)]),
    ("the cat is equal to the dog", [(0, {"cat"}, {"dog"}, False)]),
    ("the cat is the same as the dog", [(0, {"cat"}, {"dog"}, False)]),
    # no "than": every word after the comparative is on the compared side
    ("the cat is bigger today", [(1, {"cat", "today"}, set(), False)]),
    # "to" before the comparative does not split it: "levels" is on the compared side
    ("the price rose to higher levels", [(1, {"price", "rose", "level"}, set(), False)]),
])
def test_comparison_parts(text, expected):
    assert comparisons(text) == expected


def test_the_other_side_stops_at_the_next_comparative():
    # "bigger": its other side runs from "than" to "smaller" ({dog}); "smaller" shares the
    # compared side of "bigger" (the cat is smaller, not the dog), "than the big old grey
    # cow" is its other side
    text = "the cat is bigger today than the dog and smaller than the big old grey cow"
    assert comparisons(text) == [
        (1, {"cat", "today"}, {"dog"}, False),
        (-1, {"cat", "today"}, {"big", "old", "grey", "cow"}, False)]
    # a later comparative's own words before "than" join the shared side
    assert comparisons("the cat is bigger than the dog and smaller today than the cow") == [
        (1, {"cat"}, {"dog"}, False), (-1, {"cat", "today"}, {"cow"}, False)]


@pytest.mark.parametrize("question, expected", [
    # the sentence says nothing of the dog against the mouse: "cat bigger than dog" read
    # swapped says "no", "cat bigger than mouse" says "yes" as well: no answer
    ("Is the dog bigger than the mouse?", None),
    ("Is the dog smaller than the mouse?", None),
    ("Is the cat bigger than the mouse?", "yes"),
])
def test_a_shared_compared_side(question, expected):
    assert restated("The cat is bigger than the dog and bigger than the mouse.",
                    question) == expected


@pytest.mark.parametrize("text, negated", [
    ("not bigger than the dog", True),                 # the negator at offset 0
    ("never in this or that bigger", True),            # five words before
    ("never in this or that way bigger", False),       # six words before: out of reach
])
def test_comparison_negated_within_five_words(text, negated):
    assert comparisons(text)[0][3] is negated


ASKED = (1, {"cat"}, {"dog"}, False)  # "Is the cat bigger than the dog?"


@pytest.mark.parametrize("sentence, expected", [
    ("The cat is bigger.", "yes"),                    # one side matches: enough
    ("The dog is bigger than the cat.", "no"),        # sides swapped: direction reversed
    ("The dog is equal to the cat.", "no"),           # equal is neither direction
    # two comparisons matching as well, both naming their other side, answering
    # differently: the sentence states it both ways, no answer
    ("The cat is bigger than the dog, the cat is smaller than the dog", None),
    # ... answering the same: that answer
    ("The cat is bigger than the dog, the dog is smaller than the cat", "yes"),
    # two matching as well that name no other side: the first one
    ("The cat is bigger, the cat is smaller", "yes"),
    # a comparison about something else, then the one asked about
    ("The sun is bigger than the moon, the cat is bigger than the dog", "yes"),
    # kept and swapped match as well (1 each): read as stated, not swapped
    ("The cat is bigger than the cat.", "yes"),
    # a comparison matching worse (the cat only) is not read, whatever it says
    ("The cat is bigger than the dog, the cat is smaller than the mouse", "yes"),
])
def test_restated_comparison(sentence, expected):
    assert _restated_comparison(sentence, ASKED) == expected


def test_asked_starts_after_a_sentence_break_at_offset_zero():
    assert asked("! Is it red?") == " Is it red?"


@pytest.mark.parametrize("sentence, wanted, expected", [
    ("The answer: (B) No", {"cat", "black"}, "no"),   # one-letter "b": names nothing
    ("there is no ox", {"cat", "black"}, None),       # "ox" is something else
    ("may not be black", {"black"}, "hedged"),        # the hedge at offset 0
])
def test_denial_about(sentence, wanted, expected):
    assert _denial_about(sentence, wanted) == expected


@pytest.mark.parametrize("text", [
    # a comparative in the sentence does not make a plain question a comparison
    "The cat is black and bigger than the dog.",
    # the echoed question and a tentative sentence are skipped, not the end of the reading
    "Is the cat black? Yes, the cat is black.",
    "If the cat is black, fine. The cat is black.",
])
def test_restated_reads_on(text):
    assert restated(text, "Is the cat black?") == "yes"


@pytest.mark.parametrize("text, expected", [
    # of two sentences stating the comparison, the last one
    ("The cat is bigger than the dog. The cat is smaller than the dog.", "no"),
    ("The cat is smaller than the dog. The cat is bigger than the dog.", "yes"),
])
def test_the_last_of_two_restated_comparisons(text, expected):
    assert restated(text, "Is the cat bigger than the dog?") == expected


@pytest.mark.parametrize("text, expected", [
    # of two sentences restating a plain question, the first one (METRICS: unlike
    # comparisons; the last one broke more tuning rows than it fixed)
    ("The cat is black. The cat is not black.", "yes"),
    ("The cat is not black. The cat is black.", "no"),
])
def test_the_first_of_two_plain_restatements(text, expected):
    assert restated(text, "Is the cat black?") == expected


# --- negative prefixes (METRICS: "The prefixes are non(-), un, ir, il, and in / im only
# before a word of five letters or more that is not one they make ordinary words with")
SHORT_PREFIXES = {"non", "non-", "un", "ir", "il"}


@pytest.mark.parametrize("word, expected", [
    ("kind", SHORT_PREFIXES),                      # four letters: no in / im
    ("exact", SHORT_PREFIXES | {"in", "im"}),      # five letters: in / im as well
    ("tense", SHORT_PREFIXES),                     # five letters, but "intense" is ordinary
    ("formal", SHORT_PREFIXES | {"in", "im"}),     # "informal" is not formal
])
def test_negative_prefixes(word, expected):
    assert set(negative_prefixes(word)) == expected


@pytest.mark.parametrize("text, question, expected", [
    # "in" before a five-letter word negates it
    ("The text is inexact.", "Is the text exact?", "no"),
    # "il" / "im" / "un" / "ir" before a word of five letters or more
    ("The move is illegal.", "Is the move legal?", "no"),
    ("The task is impossible.", "Is the task possible?", "no"),
    ("To believe in ghosts is irrational.", "Is it rational to believe in ghosts?", "no"),
    # "un" before a four-letter word
    ("The man is unkind.", "Is the man kind?", "no"),
    # "intense" is in the exception list: it does not deny "tense", no restatement
    ("The scene is intense.", "Is the scene tense?", None),
])
def test_a_prefixed_word_restates_no(text, question, expected):
    assert restated(text, question) == expected


# --- contrasts (docstring of `contrasted`, METRICS "A sentence contrasting the subject asked
# about with another one answers for it")
HAT = "The woman is not wearing a hat, while the man is."


@pytest.mark.parametrize("text, question, expected", [
    (HAT, "Is the man wearing a hat?", "yes"),      # the elliptical clause: its own polarity
    (HAT, "Is the woman wearing a hat?", "no"),     # the first statement: denied
    # a sentence before the first statement is not part of it (the look-back stops at ".")
    ("Hello there. " + HAT, "Is the woman wearing a hat?", "no"),
    # of two stops before the contrast, the last one begins the first statement
    ("A cat sits. A dog runs. " + HAT, "Is the woman wearing a hat?", "no"),
    # an upper-case "X" is no stop: "photo X" stays in the subject
    ("The woman in photo X is not wearing a hat, while the man is.",
     "Is the woman in photo X wearing a hat?", "no"),
    # a contrast skipped (no verb before it / a predicate not asked) does not end the reading
    ("Hard to say, but it is. " + HAT, "Is the man wearing a hat?", "yes"),
    ("The sky is blue, while the sea is. " + HAT, "Is the man wearing a hat?", "yes"),
    # the second subject names more than the question ("old"): not the one asked about
    ("The woman is not wearing a hat, while the old man is.", "Is the man wearing a hat?",
     None),
    # ... nor the first subject
    ("The old man is not wearing a hat, while the woman is.", "Is the man wearing a hat?",
     None),
    # the question names both subjects: it asks about neither one alone
    (HAT, "Is the woman or the man wearing a hat?", None),
    # the predicate is not what is asked: the man is afraid of the dog, not a dog
    ("The woman is not afraid of the dog, while the man is.", "Is the man a dog?", None),
    # "one" alone ("this one"): nothing to stand for, the cup asked about is full
    ("The cup is full, whereas this one is not.", "Is the cup full?", "yes"),
    # a negation in the subject ("with no hat") does not deny the predicate
    ("The man with no hat is smiling, while the woman is not.",
     "Is the man with no hat smiling?", "yes"),
    # "one" in a two-word second subject stands for the first one's noun (METRICS)
    ("The left cup is full, whereas the right one is not.", "Is the right cup full?", "no"),
    ("The left cup is full, whereas the right one is not.", "Is the left cup full?", "yes"),
    # a second subject with more than "one" and no "one": the words as they are
    ("The woman is not wearing a hat, while the old man is.",
     "Is the old man wearing a hat?", "yes"),
])
def test_contrasted(text, question, expected):
    assert contrasted(text, question) == expected


# the 200-character look-back: "Hi. Yak" then spaces, so that the first statement's look-back
# begins exactly after "Yak" (7 characters + 200 = the comma's offset)
FIRST = "the woman is not wearing a hat"
REACHED = "Hi. Yak" + " " * (200 - len(FIRST)) + FIRST + ", while the man is."


def test_contrast_look_back_is_200_characters():
    assert REACHED.index(",") - 200 == len("Hi. Yak")  # the layout the test relies on
    # "Yak" (one character more back, or back to "Hi.") would join the subject: unasked
    assert contrasted(REACHED, "Is the woman wearing a hat?") == "no"


# --- restatements through a negative prefix or a litotes (METRICS)
@pytest.mark.parametrize("text, question, expected", [
    # a negation echoing the question's own does not stop a prefixed word reading no
    ("It is irrational to believe things for which there is no objective evidence.",
     "Is it rational to believe things for which there is no objective evidence?", "no"),
    # every asked word but one must be there: a sentence about a thumb war says nothing
    # of a fish, whatever its prefixed words
    ("A thumb war is a non-violent activity.", "Is the fish violent?", None),
    # "unequal": a prefixed word, not a comparison ("equal" is a comparative word)
    ("The two sides are unequal.", "Are the two sides equal?", "no"),
    # litotes: "not irrational" says rational, "never a bad idea" a good one
    ("Believing in ghosts is not irrational.", "Is believing in ghosts rational?", "yes"),
    ("Learning Python first is never a bad idea.", "Is learning Python first a good idea?",
     "yes"),
    # the question asks about the negative word itself: "not illegal" is no
    ("It is not illegal to jaywalk.", "Is it illegal to jaywalk?", "no"),
])
def test_restated_through_prefix_or_litotes(text, question, expected):
    assert restated(text, question) == expected


@pytest.mark.parametrize("sentence, expected", [
    # "not a bad" -> "a good": the article kept, the negative word and "not" gone
    ("It is not a bad idea.", {"good", "idea"}),
    # no article: nothing in its place
    ("It is not illegal.", {"legal"}),
])
def test_positive_words(sentence, expected):
    assert content_words(_positive(sentence, set())) == expected


@pytest.mark.parametrize("gap, expected", [
    (39, True),    # the following word within 40 characters of the negation: read
    (40, False),   # 40 characters on: out of the (bounded) look-ahead, no echo
])
def test_echo_looks_40_characters_ahead(gap, expected):
    text = "there is no" + " " * gap + "objective evidence"
    denial = DENIAL.search(text)
    assert echoes_question(text, denial, "there is no objective evidence") is expected


@pytest.mark.parametrize("question, expected", [
    # no "?": the words after the last "Determine if / whether" (the sentence break before it)
    ("x[n] is the input. Determine if the system is stable.", "the system is stable."),
    ("Determine whether f is odd. Check if f is even.", "f is even."),
    ("Determine if f is odd", "f is odd"),
    # a "determine if" inside a sentence is no order: the whole question
    ("We must determine if f is odd.", "We must determine if f is odd."),
    # with a "?", the asking sentence as before
    ("Determine if f is odd. Is f even?", " Is f even?"),  # (from the break, its space kept)
])
def test_asked_as_an_order(question, expected):
    assert asked(question) == expected


def test_any_is_a_function_word():
    # "Is there any difference …?" is restated by "there is a difference …"
    assert content_words("Is there any difference?") == {"difference"}


@pytest.mark.parametrize("tail, question, expected", [
    ("Stable", "Determine if the system is stable.", "yes"),
    ("stable.", "Is the system stable?", None),  # the tail is one word, no stop after it
    ("Not stable", "Is the system stable?", "no"),
    ("not  stable", "Is the system stable?", "no"),
    ("Unstable", "Is the system stable?", "no"),
    ("Non-convex", "Is the function convex?", "no"),
    ("Nonconvex", "Is the function convex?", "no"),
    ("not unstable", "Is the system stable?", "yes"),
    # each negative prefix: "in" / "im" before a word of five letters or more, "ir", "il"
    ("Inexact", "Is the equation exact?", "no"),
    ("Impossible", "Is it possible?", "no"),
    ("Irregular", "Is the shape regular?", "no"),
    ("Illegal", "Is it legal?", "no"),
    ("an isomorphism", "Is T an isomorphism?", "yes"),
    ("Exact", "Is the equation exact or not?", "yes"),
    # one of two offered: no answer either way round
    ("FIR", "Is the system FIR or IIR?", None),
    ("IIR", "Is the system FIR or IIR?", None),
    ("unstable", "Is it stable or unstable?", None),
    # "in" before a word of under five letters is no negative prefix ("inodd"); a word the
    # question does not hold, a number, two words: none
    ("inodd", "Is f odd?", None),
    ("Linear", "Is the system stable?", None),
    ("2x", "Is the system stable?", None),
    ("very stable", "Is the system stable?", None),
])
def test_named_answer(tail, question, expected):
    assert named_answer(tail, question) == expected


def test_cannot_denies():
    # "cannot" is one word: a denial like "can not" / "can't"
    assert restated("Penguins cannot fly.", "Can penguins fly?") == "no"
    assert DENIAL.search("it cannot") is not None


def test_emphasis_words_are_function_words():
    # "really", "actually", "ever" stress the question; a restatement need not repeat them
    assert content_words("Do dinosaurs really ever actually exist?") == {"dinosaur", "exist"}
    assert restated("Human blood is a color other than red when it lacks oxygen.",
                    "Is human blood ever any color other than red?") == "yes"


@pytest.mark.parametrize("text, expected", [
    # a concession naming nothing asked, then the statement: read after ", but"
    ("It might not be obvious, but the man is wearing a hat.", "yes"),
    # the concession names the man: the whole sentence, which "but" makes tentative
    ("The man is tall, but the man is wearing a hat.", None),
    # a hedged statement after it stays a hedge
    ("It is hard to see, but the man may be wearing a hat.", None),
    ("It is hard to see, but most men are wearing a hat.", None),
])
def test_a_restatement_after_a_concession(text, expected):
    assert restated(text, "Is the man wearing a hat?") == expected


def test_latex_commands_and_being_are_not_asked_words():
    # "$\alpha = 0.01$": the command is notation; "being" is a function word
    assert asked("Can we reject H_0 at level $\\alpha = 0.01$?") == "Can we reject H_0 at level $  = 0.01$?"
    assert content_words("with the level being 5%") == {"level", "5"}


def test_a_decimal_point_is_no_sentence_break():
    # "0.01" stays in its sentence: the restatement holds "0" and "01"
    assert SENTENCE.findall("we cannot reject H_0 at level 0.01. Done") == [
        "we cannot reject H_0 at level 0.01", " Done"]
    assert restated("We cannot reject H_0 at level 0.01.", "Can we reject H_0 at level 0.01?") == "no"


@pytest.mark.parametrize("word", ["complex", "nuanced", "ambiguous", "depends", "depend"])
def test_a_sentence_calling_the_matter_complex_is_no_restatement(word):
    # "legal" is there, as the adjective of another noun, in a sentence that hedges
    assert restated(f"Online casino law in India is {word} given the legal framework.",
                    "Is online casino legal in India?") is None
    assert restated("Online casino play is legal in India.", "Is online casino legal in India?") == "yes"
