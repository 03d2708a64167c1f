"""Pins of scoring/extract/option_texts.py beyond the choice case tables (mutation testing,
benchmarks/mutation.py target `extract_option_texts`): units whose powers matter, the
negation and formula windows, the one option a response names (exact, stated, reworded
strongly or weakly) and the three-word negation reach. Expected values are worked out by
hand from the docstrings of the module, in the comments."""

from __future__ import annotations

import pytest

from bench_kit.scoring.extract.option_texts import (
    _asked_words,
    _last_sentence,
    _stated,
    by_option_text,
    normalized_option,
    opening_option,
    option_texts,
    powers_matter,
    yes_and_no,
)
from bench_kit.scoring.extract.reworded_option import (
    _content_words,
    _in_one_clause,
    _negated,
    _reworded,
)

AB = {"A": "A", "B": "B"}


def test_a_power_is_dropped_unless_asked_for():
    # `plain_latex` drops a unit's power by default, keeps it with keep_power
    assert normalized_option("8 cm^2") == "8 cm"
    assert normalized_option("8 cm^2", True) == "8 cm2"


@pytest.mark.parametrize("choices, expected", [
    ({"A": "8 cm^2", "B": "8 cm^3"}, True),   # the same once the powers are dropped
    ({"A": "2^2", "B": "3^2"}, False),         # "2" and "3" differ anyway
    ({"A": "8 cm", "B": "9 cm"}, False),       # no power at all
    (["a^2", "a^3"], False),                   # not a mapping: no options
])
def test_powers_matter(choices, expected):
    assert powers_matter(choices) is expected


def test_option_texts_keep_powers_only_when_they_matter():
    assert option_texts({"A": "8 cm^2", "B": "8 cm^3"}, AB) == {"A": "8 cm2", "B": "8 cm3"}
    assert option_texts({"A": "8 cm^2", "B": "9 cm"}, AB) == {"A": "8 cm", "B": "9 cm"}


def test_yes_and_no_options():
    assert yes_and_no({"A": "yes", "B": "no"})
    assert not yes_and_no({"A": "yes", "B": "no", "C": "maybe"})


def test_stated_after_a_negated_mention():
    # the first "red" follows "not", the second does not: stated
    assert _stated("it is not red it is red", "red")
    assert not _stated("it is not red", "red")


def test_a_formula_reads_only_the_words_next_to_it():
    # the word right before ("times") and right after ("and") are not terms of a formula;
    # the "6" two words before and the "5" two words after do not count
    assert _stated("6 times sqrt 3", "sqrt 3")
    assert _stated("sqrt 3 and 5", "sqrt 3")
    assert not _stated("6 sqrt 3", "sqrt 3")  # a term of "6 sqrt 3"


def test_the_callers_normalised_text_is_used():
    # `norm` given: it is what is read, not `answer`
    assert by_option_text("X", {"A": "red"}, norm="red") == "A"


def test_two_options_with_the_same_text_are_ambiguous():
    assert by_option_text("red", {"A": "red", "B": "red"}) is None


def test_a_weak_rewording_alone_is_no_answer():
    # "falls" (not the participle, not the last word) is another form of "fall": weak
    assert by_option_text("The temperature falls below zero.", {"A": "fall", "B": "spring"}) is None


def test_not_only_with_one_or_two_options():
    # one option named: "not only" does not matter
    assert by_option_text("not only red", {"A": "red", "B": "blue"}) == "A"
    # two named with "not only … but also": both, no answer
    assert by_option_text("It is not only red but also blue.", {"A": "red", "B": "blue"}) is None


@pytest.mark.parametrize("words, index, expected", [
    (["not", "flipped"], 1, True),                    # right before
    (["not", "a", "b", "flipped"], 3, True),          # three words before
    (["not", "a", "b", "c", "flipped"], 4, False),    # four words before: out of reach
    (["flipped", "not"], 0, False),                   # after it
])
def test_negated_reads_three_words_before(words, index, expected):
    assert _negated(words, index) is expected


@pytest.mark.parametrize("answer, text, expected", [
    ("The coin flipped.", "flip", 2),                 # participle: strong
    ("The population increases.", "increase", 2),     # the sentence's last word: strong
    ("The population increases fast.", "increase", 1),  # elsewhere: weak
    ("The fall is here.", "fall", 0),                 # the word itself is no inflected form
    ("The meat rotted.", "rot", 2),                   # three letters: read
    ("It upped.", "up", 0),                           # two letters: never
    ("The coin was not flipped.", "flip", 0),         # negated
])
def test_one_word_option_reworded(answer, text, expected):
    assert _reworded(answer, answer.lower().rstrip("."), text) == expected


@pytest.mark.parametrize("answer, text, expected", [
    # every content word in one sentence: strong
    ("Cricket will increase.", "cricket will increase", 2),
    ("It rains. The cricket population will increase.", "cricket will increase", 2),
    # a negation before an option word, not before another word
    ("The cricket population will not increase.", "cricket will increase", 0),
    ("The cricket population will not fall, so it will increase.", "cricket will increase", 2),
    # an option that negates itself is stated by its negation
    ("The price will not rise.", "will not rise", 2),
    # an option of numbers has no content words: never reworded, even with its numbers
    # said in one sentence
    ("It is 1 and 3.", "1 3", 0),
    # an option absent from the answer: 0 (an int, as documented)
    ("Anything at all.", "cricket will increase", 0),
])
def test_longer_option_reworded(answer, text, expected):
    found = _reworded(answer, answer.lower().rstrip("."), text)
    assert found == expected and type(found) is int


@pytest.mark.parametrize("text, expected", [
    ("cat toy", frozenset({"cat", "toy"})),  # two words of three letters
    ("ox cart", frozenset()),               # "ox": two letters
    ("123 456", frozenset()),               # numbers
    ("red", frozenset()),                   # one word
])
def test_content_words_of_an_option(text, expected):
    assert _content_words(text) == expected


# The opening statement (`opening_option`), its last-sentence fallback and the clause test
# for reworded options. Expected values by hand from the docstrings.
ACTIVITY = "What activity is the person engaged in?\nA. cooking\nB. dancing"
COOK_DANCE = {"A": "cooking", "B": "dancing"}


@pytest.mark.parametrize("answer, expected", [
    ("One. Two.  ", " Two"),        # trailing spaces stripped first, the leading space kept
    ("Wow. Great!", " Great"),      # a closing "!" is not the start of the last sentence
    ("Hm. Is it?", " Is it"),       # nor a closing "?"
    ("A. B. C.", " C"),             # the last stop before the end, not the first
    (".Two.", "Two"),               # a stop at offset 0 counts
    ("One. Box X.", " Box X"),      # only . ! ? and a line break are stops
    ("Only one.", "Only one"),      # no stop before: the whole text
])
def test_last_sentence(answer, expected):
    assert _last_sentence(answer).group() == expected


def test_last_sentence_after_a_closing_stop_is_empty():
    # "Really?!": the last stop before the final "!" is the "?" right before it: nothing
    # between them is a sentence
    assert _last_sentence("Really?!") is None


@pytest.mark.parametrize("question", ["?", "\nA. cat\nB. dog"])
def test_a_question_without_an_asking_sentence_asks_no_words(question):
    assert _asked_words(question) == frozenset()


def test_the_opening_statement_needs_word_options_and_no_label_first():
    pets = "Which pets are in the picture?"
    # options with numbers: no opening statement (the asked words picture + pets are there)
    assert opening_option("The picture has 2 cats as pets. 3 dogs too.",
                          {"A": "2 cats", "B": "3 dogs"}, pets) is None
    # a response opening with an option label: rule 4's, not an opening statement
    assert opening_option("(B) The picture has cats as pets.", {"A": "cats", "B": "dogs"},
                          pets) is None


def test_a_later_plain_sentence_naming_another_option_revises_the_opening():
    # (review mc3 item 1: the opening statement is not trusted when a plain later sentence
    # about the question's subject states another option; the last sentence is not read then)
    answer = ("The person is engaged in cooking. The best option for the activity the person "
              "is engaged in is dancing.")
    assert opening_option(answer, COOK_DANCE, ACTIVITY) is None
    # ... nor when a later sentence corrects it
    assert opening_option("The person is engaged in cooking. Actually it is not.", COOK_DANCE,
                          ACTIVITY) is None
    # a later sentence that hedges ("would") or is about something else leaves it
    assert opening_option("The person is engaged in cooking. Dancing would need music.",
                          COOK_DANCE, ACTIVITY) == "A"


@pytest.mark.parametrize("answer, expected", [
    ("The person is engaged in cooking? Dancing maybe.", None),  # a question: hedged
    ("The person is engaged in cooking.? Dancing.", "A"),        # only the stop after it is read
    ("The person likes cooking. Dancing too.", None),            # 1 of 3 asked words: under half
])
def test_the_opening_sentence_window_and_share(answer, expected):
    assert opening_option(answer, COOK_DANCE, ACTIVITY) == expected


def test_the_opening_statement_needs_whole_words():
    # "cook" is inside "cooking", not stated as a word
    assert opening_option("The person is engaged in cooking.", {"A": "cook", "B": "dance"},
                          ACTIVITY) is None


def test_the_opening_statement_keeps_the_longer_of_two_nested_options():
    question = "Which way are the wind turbines rotating?\nA. Randomly\nB. Clockwise\nC. Anti-clockwise"
    texts = option_texts({"A": "Randomly", "B": "Clockwise", "C": "Anti-clockwise"},
                         {"A": "A", "B": "B", "C": "C"})
    assert opening_option("The wind turbines are rotating anti-clockwise.", texts, question) == "C"


def test_in_one_clause_with_exactly_the_options_words():
    assert _in_one_clause("Cricket increase, then the frog.", "cricket will increase")
    assert not _in_one_clause("Cricket, then increase.", "cricket will increase")


# Review mc3 (item 2): an -ly form is the option only when it tells how something moves.
@pytest.mark.parametrize("answer, expected", [
    ("The video is shifting horizontally.", "A"),
    ("The lines are drawn horizontally.", "A"),
    ("The poem is horizontally.", None),                 # right after a copula
    ("It does not move at all horizontally.", None),     # a negation within six words before
    ("No, it moves left and right horizontally.", None),  # "no" the sixth word before
    ("No, it now moves left and right horizontally.", "A"),  # "no" the seventh: out of reach
    ("I could see it moving horizontally.", None),       # a sentence about seeing
])
def test_an_ly_form_reads_only_how_something_moves(answer, expected):
    from bench_kit.scoring.extract.option_texts import by_option_text

    texts = {"A": "horizontal", "B": "vertical", "C": "diagonal"}
    assert by_option_text(answer, texts) == expected


# report5's rules in option_texts.py (values worked out by hand).
from bench_kit.scoring.extract.option_texts import (  # noqa: E402
    _corrected,
    _without_condition,
    copies_question,
)

QUESTION5 = "Sharon works for 5 hours while Karen works for 4 hours each day.\nA. 1 hour\nB. 2 hours"


@pytest.mark.parametrize("answer, question, expected", [
    ("Sharon works for 5 hours while Karen works for 4 hours", QUESTION5, True),   # nine words of the stem
    ("Sharon works for 5 hours while Karen works", QUESTION5, True),               # eight words
    ("Sharon works for 5 hours while Karen", QUESTION5, False),                    # seven: too few
    ("while Karen works for 4 hours each day. A. 1 hour", QUESTION5, False),       # an option line is not the stem
    ("Sharon works for 5 hours while Karen works for 4 hours", None, False),
    ("Sharon works for 5 hours while Karen works for 4 hours each day" * 3, "Sharon works for 5 hours", False),
])
def test_copies_question(answer, question, expected):
    assert copies_question(answer, question) is expected


@pytest.mark.parametrize("answer, expected", [
    # the condition with its comma blanked: "If pelicans increase," is 21 characters
    ("If pelicans increase, fish decrease.", " " * 21 + " fish decrease."),
    ("When pelicans increase, fish decrease.", " " * 23 + " fish decrease."),
    # after a sentence end the space before "As" is part of it: 22 characters
    ("Fish fall. As pelicans increase, fish decrease.", "Fish fall." + " " * 22 + " fish decrease."),
    ("If frogs increase, fish decrease.", "If frogs increase, fish decrease."),   # frogs: not the question's
    ("Fish, if pelicans increase, decrease.", "Fish, if pelicans increase, decrease."),  # not opening a sentence
])
def test_without_condition(answer, expected):
    assert _without_condition(answer, "What happens to fish if pelicans increase?") == expected


TEXTS = {"A": "cat", "B": "dog", "C": "bird"}


@pytest.mark.parametrize("answer, expected", [
    ("It is a cat. Actually, it is a dog.", "B"),
    ("It is a cat. Wait, a dog. Sorry, I meant a bird.", "C"),     # the last correction
    ("It is a cat. Actually, a dog or a bird.", ""),                # several: no answer
    ("It is a cat. Actually, hard to say.", ""),                    # none: no answer
    ("Actually, it is a dog, not a cat.", None),                    # nothing named before it
    ("It is a cat and a dog.", None),                               # no correction
    ("The cat is closer to us than the dog.", None),               # "closer" compares here
    ("It is a cat. It is a common mistake to call it a dog.", None),   # "mistake" excuses
    ("It is a cat. On closer inspection, it is a dog.", "B"),
    ("It is a cat. Looking more closely, it is a bird.", "C"),
    ("It is a cat. It is actually sitting by a dog.", None),       # "actually" inside a clause: emphasis
    ("It is a cat and actually a dog.", None),
    ("It is a cat. Sorry for any confusion: a dog is near.", None),  # "sorry for" excuses
    ("It is a cat, actually a dog.", "B"),                          # after a comma: a correction
    ("It is a cat; wait, a dog.", "B"),
    ("It is a cat. No actually a dog.", "B"),                       # after "no"
    ("It is a cat. Hmm actually it is a bird.", "C"),
    ("It is a cat (sorry, a dog).", "B"),
    ("It is a cat - actually a dog.", "B"),
    ("It is a cat. No, it is actually a dog.", "B"),                  # "is actually" before an option's text
    ("It is a cat. It is actually the bird.", "C"),
    ("It is a cat. It's actually a dog.", "B"),
    ("It is a cat. It is actually hungry.", None),                   # not before an option's text
])
def test_corrected(answer, expected):
    assert _corrected(answer, TEXTS, None) == expected
