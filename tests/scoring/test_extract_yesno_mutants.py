"""Pins of scoring/extract/yesno.py beyond tests/cases/extract_yesno.json and the review
probes (mutation testing, benchmarks/mutation.py target `extract_yesno`): its reaches
exactly on their edges, the clause and sentence breaks of the one-pass reader, the
"both" answers, the opening "Certainly" rules and the existence reading. Expected values
are worked out by hand from the docstrings and comments of the module, in the comments."""

from __future__ import annotations

import re

import pytest

from bench_kit.scoring.extract.existence import exists as _exists
from bench_kit.scoring.extract.yesno import (
    _concludes,
    _not_remark,
    _retracted,
    extract_yesno_detailed,
)
from bench_kit.scoring.extract.yesno_negation import _breaks, _first_line_end, but_explicit
from bench_kit.scoring.extract.yesno_negation import first_decisive as _first_decisive

DOG = "Is the dog sleeping?"  # content words {dog, sleeping}


def read(text, question=None):
    found = extract_yesno_detailed(text, question)
    return found.value, found.parse


# `_breaks(text, start, end, clause, sentence)`: the last break in text[start:end]; a
# sentence break (". ", "! ", "? ", newline) starts both a clause and a sentence, a clause
# break ("," ";" ":") a clause only; with none, the given clause and sentence stand.
SENTENCE_BREAKS = [". ", "! ", "? ", "\n"]
CLAUSE_BREAKS = [",", ";", ":"]


@pytest.mark.parametrize("mark", SENTENCE_BREAKS + CLAUSE_BREAKS)
def test_breaks_takes_the_last_of_two(mark):
    text = "ab" + mark + "cd" + mark + "ef"
    last = 4 + len(mark)  # "ab" + mark + "cd": the second mark starts here
    expected_sentence = last + 1 if mark in SENTENCE_BREAKS else 50
    assert _breaks(text, 0, len(text), 70, 50) == (last + 1, expected_sentence)


@pytest.mark.parametrize("mark", SENTENCE_BREAKS + CLAUSE_BREAKS)
def test_breaks_reads_only_between_start_and_end(mark):
    text = "ab" + mark + "cd"
    # the mark before `start` and after `end`: none seen, the given values stand
    assert _breaks(text, 2 + len(mark), len(text), 70, 50) == (70, 50)
    assert _breaks(text, 0, 2, 70, 50) == (70, 50)


@pytest.mark.parametrize("mark", SENTENCE_BREAKS + CLAUSE_BREAKS)
def test_a_break_at_offset_zero_counts(mark):
    # found at 0: the clause (and for a sentence break the sentence) begins at 1
    assert _breaks(mark + "ab", 0, len(mark) + 2, 70, 50) == \
        (1, 1 if mark in SENTENCE_BREAKS else 50)


def test_a_sentence_break_after_a_clause_break_sets_both():
    # "a, b. c": the ". " at 4 is the last break of either kind
    assert _breaks("a, b. c", 0, 7, 70, 50) == (5, 5)
    # "a. b, c": the "," at 4 starts the clause, the ". " at 1 the sentence
    assert _breaks("a. b, c", 0, 7, 70, 50) == (5, 2)


def test_retraction_reach_is_sixty_characters():
    # the retraction ("only a ") must start within 60 characters before "guess"
    for gap, expected in ((60, True), (61, False)):
        text = "There is no cat, but this is only" + " " * (gap - 6) + "a guess."
        assert text.index("guess") - text.index("only") == gap
        assert _retracted(text) is expected
        # retracted: the answer is taken back; else the first negation "no" answers
        assert read(text) == ((None, "failed") if expected else ("no", "lenient"))


def test_retraction_read_from_the_first_character_and_case_blind():
    assert _retracted("only a guess")  # the retraction starts at offset 0
    assert _retracted("I cannot see the IMAGE")  # read lower-cased
    # "İ" lower-cases to two characters: the text is read as written (no offsets moved),
    # still case-blind: an upper-case retraction with an "İ" elsewhere is seen
    assert _retracted("\u0130 CANNOT SEE THE IMAGE")
    # a retraction anywhere makes the response failed, "İ" or not
    for town in ("Izmir", "\u0130zmir"):
        assert read(f"There is no cat at {town}. This is only a GUESS.") == (None, "failed")
    assert not _retracted("I can see the image")


def test_hedge_reach_is_twenty_four_characters():
    # "may" starting 24 characters before "not" hedges it; 25 characters before, no
    assert read("It may" + " " * 21 + "not be a cat.") == (None, "failed")
    assert read("It may" + " " * 22 + "not be a cat.") == ("no", "lenient")


# A condition opening its sentence (within 40 characters, at most three words up to the
# word's end) and not closed by a comma after the negation: the negation answers when the
# sentence holds every content word of the question.
@pytest.mark.parametrize("reach, expected", [(40, "no"), (41, None)])
def test_condition_reach_is_forty_characters(reach, expected):
    lead = "A" * (reach - len(" when")) + " when"  # two words ending at `reach`
    assert _first_decisive(lead + " the dog is not sleeping.", DOG) == expected


def test_condition_reach_is_counted_from_its_sentence():
    # the long first sentence does not count: "When" opens the second one
    assert _first_decisive("x" * 50 + ". When the dog is not sleeping.", DOG) == "no"


def test_condition_within_three_words():
    assert _first_decisive("Only on when the dog is not sleeping.", DOG) == "no"  # 3 words
    assert _first_decisive("Only on days when the dog is not sleeping.", DOG) is None  # 4


def test_condition_closed_by_a_comma_after_the_negation():
    # "If …, …": the main clause follows, the negation is the condition's
    assert _first_decisive("If the dog is not sleeping, it is awake.", DOG) is None
    # a comma before the condition does not close it
    assert _first_decisive("Well, when the dog is not sleeping.", DOG) == "no"
    # "as long as" is a condition too (closed: skipped), not a concession (read)
    assert _first_decisive("As long as the dog is not sleeping, it is awake.", DOG) is None


def test_about_the_question_when_the_words_are_exactly_the_question():
    # sentence words {when, dog, not, sleeping} = the question's: it is about it (the
    # question's "not" does not come before "sleeping", so the negation echoes nothing)
    assert _first_decisive("When the dog is not sleeping.",
                           "When is the dog sleeping or not?") == "no"


def test_about_the_question_reads_the_negations_own_sentence():
    # the concession's sentence (the second) holds {dog, sleeping}: read
    assert _first_decisive("It is late. Although the dog is not sleeping it is quiet.",
                           DOG) == "no"


def test_elliptical_contrast_needs_a_comma_before_its_clause():
    # ", while the dog is not.": a contrast about someone else, skipped
    assert _first_decisive(", while the dog is not.", "Is the dog?") is None
    # "While …" opening its sentence is no contrast (the final comma is not before it)
    assert _first_decisive("While the dog is not,", "Is the dog?") == "no"


def test_courtesy_skips_every_concession():
    # after an opening "Absolutely" (courtesy) every concession is skipped, even about
    # the question; without courtesy it is read
    assert _first_decisive("Although the dog is not sleeping", DOG, courtesy=True) is None
    assert _first_decisive("Although the dog is not sleeping", DOG) == "no"
    # so "Certainly" commits: its sentence's only negation is in a concession (METRICS:
    # even one about the question, as with a comma before "although")
    assert read("Certainly it rains although the dog is not sleeping.", DOG) == ("yes", "ok")
    assert read("Certainly it rains, although the dog is not sleeping.", DOG) == ("yes", "ok")


def test_certainly_with_a_condition_about_the_question():
    # "when …" is a condition (not a concession): about the question, its negation is
    # read, so "Certainly" does not commit and the rest reads "no"
    assert read("Certainly when the dog is not sleeping.", DOG) == ("no", "lenient")


def test_certainly_with_a_hedge_reads_the_rest_with_the_question():
    # "however" makes "Absolutely" a courtesy; the rest restates the question: "yes"
    assert read("Absolutely, however the dog is sleeping.", DOG) == ("yes", "lenient")


def test_certainly_and_a_later_explicit_word_or_retraction():
    # an explicit "no" later in the opening paragraph: no commitment, the rest says "no"
    assert read("Certainly, the dog sleeps. Well, no.") == ("no", "lenient")
    # a retraction: no commitment, and the answer is taken back
    assert read("Certainly, the dog sleeps. But I cannot see the image.") == (None, "failed")
    # an explicit "No" in a later paragraph is not read: "Certainly" commits
    assert read("Certainly, the dog sleeps.\n\nIs it a cat? No.") == ("yes", "ok")


def test_yes_and_no_after_a_correction_is_no_answer():
    # the last correction says "yes and no": both offered, neither answered
    assert read("Yes. No wait, yes and no.") == (None, "failed")


def test_a_whole_word_after_a_correction():
    # "true" is a whole-answer word (not a leading one): after "Wait, actually" it wins
    assert read("No. Wait, actually true.") == ("yes", "ok")


def test_a_letter_with_a_word_under_a_condition():
    # "If" earlier in the answer clause's sentence: a clause under a condition is no
    # answer (METRICS), and its word is not read back in as the first decisive word
    assert read("If it rains, the answer is (B) No.") == (None, "failed")
    assert read("If it rains, the answer is (B) No. That is all.") == (None, "failed")
    # two conditions naming different answers: no answer either
    assert read("If it rains, the answer is (B) No. If it is dry, the answer is (A) Yes."
                ) == (None, "failed")
    # a condition in a later sentence does not count
    assert read("The answer is (B) No. If it rains, yes.") == ("no", "ok")
    # a refusal before the answer clause does not retract it (only one after it would)
    assert read("I cannot determine this. The answer is (B) No.") == ("no", "ok")


@pytest.mark.parametrize("question, expected", [
    # "any" dropped: {black, cat}, one said of two: exactly half is enough
    ("Are there any black cats?", ("yes", "lenient")),
    # {black, fluffy, cat}: one of three is less than half
    ("Are there any black fluffy cats?", (None, "failed")),
])
def test_existence_needs_half_the_asked_words(question, expected):
    assert read("There are many cats.", question) == expected


def test_existence_denied_only_in_the_first_two_sentences():
    # a denial in the third sentence is not read ("None is awake" denies nothing asked)
    assert read("There are many cats. They sleep. None is awake.",
                "Are there any cats?") == ("yes", "lenient")
    # the opening sentence is read after a leading line break, as the opener is
    assert _exists("\nThere are many cats.", "Are there any cats?")
    assert not _exists("\nThere are many cats.", "Are there any black fluffy cats?")


@pytest.mark.parametrize("text, expected", [
    ("(true)", ("yes", "ok")),   # a whole-answer word in brackets: bare, so "ok"
    ("false.", ("no", "ok")),    # with its full stop
])
def test_a_bare_word_with_punctuation_is_ok(text, expected):
    # "true" / "false" are whole answers only (no leading-word rule reads them): with the
    # punctuation stripped they are bare answers, not words found in prose ("lenient")
    assert read(text) == expected


def test_a_concession_without_a_question_is_skipped():
    # no question to hold the sentence against: the concession's negation never answers
    assert _first_decisive("Although there is no cat, there is a dog.", None) is None


def test_a_refusal_in_the_opening_declines_even_when_the_last_is_later():
    # the last refusal ("unsure") is in the second paragraph, but the opening paragraph
    # refuses too ("not sure"): the question is declined, the restatement not read
    assert read("I am not sure.\n\nThe cat is black. Still, I am unsure.", "Is the cat black?") \
        == (None, "failed")
    # a refusal only in a later paragraph is advice: the restatement answers
    assert read("The cat is black.\n\nStill, I am unsure.", "Is the cat black?") == ("yes", "lenient")


@pytest.mark.parametrize("text, expected", [
    # two corrections: the answer after the last one counts
    ("No. No wait, yes. No wait, no.", ("no", "ok")),
    ("Yes. No wait, no. Actually, wait, actually yes.", ("yes", "ok")),
])
def test_the_last_of_two_corrections(text, expected):
    assert read(text) == expected


@pytest.mark.parametrize("text, expected", [
    # two decisive words: the first one answers
    ("the cat is not here, but yes it is", "no"),
    ("yes it is, but the cat is not here", "yes"),
])
def test_the_first_of_two_decisive_words(text, expected):
    assert _first_decisive(text, None) == expected


# `_concludes(text, at)`: offset `at` lies in a sentence, or on a line, opening with a
# concluding word. Offsets by hand: "It is red. " is 11 characters, so "Therefore" starts at 11.
def test_concludes_reads_the_sentence_of_the_offset():
    text = "It is red. Therefore it is hard to say. It is blue."
    assert _concludes(text, text.index("hard"))  # its sentence opens "Therefore"
    assert not _concludes(text, text.index("blue"))  # "It is blue." does not
    assert not _concludes(text, text.index("red"))


def test_concludes_reads_the_line_of_the_offset():
    # the sentence "It is hard to say." concludes nothing; its line opens "Overall"
    text = "A.\nB.\nOverall the data is mixed. It is hard to say.\nEnd."
    assert _concludes(text, text.index("hard"))
    # the line is the one holding the offset: not the first line ("A."), not the last ("End.")
    assert not _concludes(text, text.index("End"))
    assert not _concludes("Overall.\nIt is hard to say.", 12)


def test_a_later_negation_whose_sentence_start_reads_nothing_is_skipped():
    # "Intro. More" is the first line (two sentences: no preamble, so the second line is a
    # later one); "!" opens no sentence text at 12, so the sentence of "not" (at 13) names no
    # word of the question: no answer. (A one-word first line, "Intro", is a heading: the
    # line after it counts as the first, whose "not" answers.)
    assert _first_decisive("Intro. More\n!not here", "Is the dog here?") is None
    assert _first_decisive("Intro\n!not here", "Is the dog here?") == "no"


STABLE = "The difference equation is y[n] = x[n]. Determine if the system is stable."


def test_an_answer_clause_restating_wins_over_an_earlier_restatement():
    # the first sentence restates "no"; the answer clause "that …" (its sentence read past the
    # comma) restates "yes", and the clause wins
    text = "At first the system is not stable, we thought.\nThe answer is that the system, as shown, is stable."
    assert read(text, STABLE) == ("yes", "lenient")


def test_a_remark_after_the_naming_clause_is_passed_over():
    # "This answer is correct." is no clause: the clause before it names "Stable"
    assert read("The answer is Stable.\nThis answer is correct.", STABLE) == ("yes", "lenient")


def test_a_remark_at_the_start_of_the_text():
    # "This" at offset 0 is read: the clause "answer is" is a remark
    found = re.compile("answer is").search("This answer is correct.")
    assert _not_remark(found) is False
    found = re.compile("answer is").search("The answer is correct.")
    assert _not_remark(found) is True


def test_the_explicit_word_after_but_is_read_from_the_offset():
    # from offset 27 (", but no, …"), not from the text's first "but"
    text = "Yes, but it is hard to tell, but no, it moves."
    assert text.index(", but no") == 27
    assert but_explicit(text, 27) == "no"
    assert but_explicit("It is hard to tell, but a glass is fine.", 18) is None


@pytest.mark.parametrize("text, expected", [
    ("a b c d\nb\nc", 7),  # the first line break, not the last (four words: no heading)
    ("a\nb\nc", 3),   # a heading of one word is a preamble: the next line's end
    ("\nab", 0),       # a break at offset 0: the first line is empty
    ("abc", 3),        # no break: the whole text
])
def test_first_line_end(text, expected):
    assert _first_line_end(text) == expected


def test_a_concession_whose_sentence_start_reads_nothing_is_skipped():
    # the sentence of "not" starts at "!" (offset 2), which opens no sentence text: the
    # concession's sentence names nothing asked, so its negation is skipped
    assert _first_decisive("x\n!Although the dog is not sleeping.", DOG) is None


def test_is_not_only_at_offset_0():
    # "Is not only legal": the verb at offset 0 is inside the 16-character look-back
    assert _first_decisive("Is not only legal but also encouraged.",
                           "Is it legal to collect rainwater?") == "yes"


def test_is_not_only_beyond_the_look_back():
    # "contains" + 6 spaces + "not" is 17 characters: the verb is outside the 16-character
    # look-back, so this is "not only" (skipped), not "contains not only cats" (yes)
    assert _first_decisive("The photo contains      not only cats.", "Is there a cat?") is None


def test_a_negated_quantifier_matches_the_question_in_any_case():
    # "Everyone" in the question holds "everyone": the negation is read
    assert _first_decisive("Not everyone does.", "Does Everyone like jazz?") == "no"


def test_an_elliptical_contrast_after_a_comma_is_skipped_even_when_it_names_the_question():
    # ", while the man is not." takes another subject's predicate: skipped, although the
    # sentence holds every word of the question (the contrast rule reads it, not this one)
    assert _first_decisive("The woman is wearing a hat, while the man is not.",
                           "Is the man wearing a hat?") is None


def test_the_later_line_rule_needs_an_ascii_question():
    # "café" makes the question non-ASCII: no content words are compared, so the negation
    # on the second line is read as it was before the rule
    # ("Hello. Hi." holds two sentences: no preamble, so "It is not." is a later line)
    assert _first_decisive("Hello. Hi.\nIt is not.", "Is the café open?") == "no"
    assert _first_decisive("Hello. Hi.\nIt is not.", "Is the cafe open?") is None


def test_a_yes_word_in_a_concession_about_the_question_is_read():
    # the concession's sentence holds "sky" and "blue": its "true" answers
    assert _first_decisive("Although it is true that the sky is blue, it is grey today.",
                           "Is the sky blue?") == "yes"


def test_a_refusal_in_a_concluding_line_that_is_not_the_last():
    # the refusal's line opens "Therefore"; the last line ("Ask the owner.") does not: failed
    text = "The cat is not black.\n\nTherefore, it is hard to say whether the cat is black.\nAsk the owner."
    assert read(text, "Is the cat black?") == (None, "failed")


def test_skipped_negations_let_a_later_one_answer():
    # an elliptical ", but the dog is not." is passed over, not the end of the search
    assert _first_decisive("The cat is on the sofa, but the dog is not. The dog is not red.",
                           "Is the dog red?") == "no"
    # so is a later line's negation that names under two words of the question
    egg = "Can you cook an egg using only direct sunlight on Mercury?"
    assert _first_decisive("Hi.\nMercury has no air.\nYou can't cook an egg with only direct "
                           "sunlight on Mercury.", egg) == "no"


def test_a_leading_yes_is_not_read_for_a_no_answer_hedge():
    # only a leading "no" can open "no clear answer": "Yes clear answer …" is a plain yes
    assert read("Yes clear answer here.") == ("yes", "ok")


def test_a_letter_with_no_yes_no_word_under_a_condition_is_no_clause_answer():
    # "(B) Wet" holds no yes/no word: the clause gives nothing (not "both"), and the
    # restatement after it answers
    assert read("If it rains, the answer is (B) Wet. The cat is black.", "Is the cat black?") == \
        ("yes", "lenient")


def test_only_spaces_and_stops_are_stripped_after_an_opening_word():
    # "Xno" is no "no": "Certainly" commits
    assert read("Certainly Xno.") == ("yes", "ok")


def test_not_only_after_another_verb_affirms_nothing():
    # "Consider not only legal costs": no "is / are / shows not only", so no yes
    assert _first_decisive("Consider not only legal costs.", "Is it legal to collect rainwater?") is None
