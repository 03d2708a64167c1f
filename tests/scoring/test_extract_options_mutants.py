"""Pins of scoring/extract/option_statements.py, no_option_statements.py, option_values.py,
set_aside_options.py (one file until 2026-12-02) and truncation.py's `cut_off_mid_sentence`
beyond the choice case table (mutation testing, benchmarks/mutation.py targets
`extract_options` and `extract_truncation`): each rule's thresholds exactly
on their edge and each first-vs-last choice with two candidates. Expected values are
worked out by hand from the docstrings, in the comments."""

from __future__ import annotations

import math
import random
import string

import pytest

from bench_kit.scoring.extract.no_answer import NO_ANSWER
from bench_kit.scoring.extract.no_option_statements import (
    _no_option,
    concedes,
    leans_after,
    no_answer_statement,
)
from bench_kit.scoring.extract.option_statements import (
    blank_filled,
    compared_option,
    hypothetical_clauses,
)
from bench_kit.scoring.extract.option_values import (
    _in_root,
    _offers_no_answer,
    _option_value,
    by_option_value,
)
from bench_kit.scoring.extract.set_aside_options import not_ruled_out, only_as_others
from bench_kit.scoring.extract.truncation import cut_off_mid_sentence, repeats_a_stretch

ABC = {"A": "A", "B": "B", "C": "C"}
AB = {"A": "A", "B": "B"}


def test_hypothetical_clauses_need_two_clauses_and_two_letters():
    assert hypothetical_clauses("If x, the answer is A. If y, the answer is B.")
    # the same letter twice: one answer, not an enumeration of cases
    assert not hypothetical_clauses("If x, the answer is A. If y, the answer is A.")
    # one "answer is" only (the second is "answer:"): fewer than 2 -> False
    assert not hypothetical_clauses("If x, the answer is A. If y, answer: B")
    # "answer would be" counts toward the two
    assert hypothetical_clauses("If x, the answer is A. If y, the answer would be B.")


@pytest.mark.parametrize("text, expected", [
    ("10m", 10.0),
    ("$\\frac{7}{2}$", 3.5),              # plain_latex: 7/2
    ("10 abcdefghijk", 10.0),             # rest " abcdefghijk" is 12 characters: allowed
    ("10 abcdefghijkl", None),            # 13 characters: not a value
    ("√10 cm", math.sqrt(10)),            # a root is its value, never the 10 under it
    ("sqrt 4", 2.0),
    ("2 sqrt(2)", 2 * math.sqrt(2)),      # a factor before the root
    ("sqrt(3)/2", math.sqrt(3) / 2),      # a divisor after it
    ("sqrt(3)/0", None),                  # no value for a zero divisor
    ("sqrt(2) + 1", None),                # a root in a longer formula: not a value
    ("10 and 20", None),                  # two numbers
    ("cat", None),                        # none
])
def test_option_value(text, expected):
    assert _option_value(text) == expected


@pytest.mark.parametrize("text, expected", [
    ("None of the above", True), ("Neither", True), ("It is impossible to tell", True),
    ("Cat", False), ("10", False)])
def test_offers_no_answer(text, expected):
    assert _offers_no_answer(text) is expected


def test_by_option_value_picks_the_one_equal_option():
    assert by_option_value("The answer is 20.", {"A": "10", "B": "20", "C": "30"}, ABC).value == "B"
    # two number options are enough when all are numbers
    assert by_option_value("It is 20", {"A": "10", "B": "20"}, AB).value == "B"
    # one option: fewer than 2
    assert by_option_value("It is 20", {"A": "20"}, {"A": "A"}).value is None


def test_by_option_value_with_one_option_that_offers_no_answer():
    # 3 options, one "Cannot be determined": allowed -> B
    found = by_option_value("It is 20", {"A": "10", "B": "20", "C": "Cannot be determined"}, ABC)
    assert (found.value, found.parse) == ("B", "lenient")
    # 2 options with the no-answer one: fewer than 3 -> failed
    assert by_option_value("It is 20", {"A": "20", "B": "cannot tell"}, AB).value is None
    # the one non-number option is a word, not a refusal -> failed
    assert by_option_value("It is 20", {"A": "10", "B": "20", "C": "cat"}, ABC).value is None
    # two non-number options -> failed
    assert by_option_value("It is 20", {"A": "10", "B": "cat", "C": "dog"}, ABC).value is None


def test_by_option_value_not_before_the_number_and_ties():
    # "It is 40, not 20": the number read is the stated 40 ("is 40"), no option -> none
    assert by_option_value("It is 40, not 20", {"A": "10", "B": "20", "C": "30"}, ABC).value is None
    # "40°, not 34°" (no "is"): the last number, 34° at offset 9; the five characters
    # before it (4-9) are " not ", "not" once stripped: written right after "not" -> none
    # (six would take in the comma). Without the "not" the same 34° gives B
    degrees = {"A": "40°", "B": "34°", "C": "50°"}
    assert by_option_value("40°, not 34°", degrees, ABC).value is None
    assert by_option_value("40°, 34°", degrees, ABC).value == "B"
    # two options equal to the answer -> failed (not the first of them)
    assert by_option_value("It is 20", {"A": "20", "B": "20"}, AB).value is None


def test_by_option_value_relative_tolerance():
    # |1000000.0001 - 1000000| = 1e-4 <= 1e-9 * 1e6 = 1e-3 -> A
    assert by_option_value("It is 1000000.0001", {"A": "1000000", "B": "5"}, AB).value == "A"
    # 0.01 > 1e-3 -> none
    assert by_option_value("It is 1000000.01", {"A": "1000000", "B": "5"}, AB).value is None


def test_no_option_statement_is_the_last():
    found = _no_option("None of the options match. Also none of the choices is right.")
    # the second statement starts at offset 32 ("None of the options match. Also " is 32)
    assert (found.start(), found.group()) == (32, "none of the choices is")
    assert _no_option("The answer is B.") is None


def test_no_answer_statement():
    # an option that is itself "None of the above": choosing it, not refusing
    assert no_answer_statement("None of the options match.", {"A": "1", "B": "None of the above"}) is None
    assert no_answer_statement("None of the options match.", {"A": "1", "B": "2"}).group() == \
        "none of the options match"
    # both kinds: the one that ends last
    assert no_answer_statement("It is unclear. None of the options match.",
                               {"A": "1", "B": "2"}).group() == "none of the options match"
    assert no_answer_statement("None of the options match. It is unclear.",
                               {"A": "1", "B": "2"}).group() == "unclear"


def test_leans_after():
    # a refusal ending at 16 ("I cannot be sure"), then ", but it is likely": leans
    assert leans_after("I cannot be sure, but it is likely B.", 16)
    # the sentence ends first: no lean
    assert not leans_after("I cannot be sure. B is likely.", 16)


QUESTION = "It is (_) past three."
TIMES = {"A": "quarter", "B": "half"}


def test_blank_filled():
    assert blank_filled("the time is quarter past three", TIMES, QUESTION) == "A"
    assert blank_filled("the time is quarter past three", TIMES, "It is ___ past three.") == "A"
    # at the very start of the response (padded with a space on both sides)
    assert blank_filled("quarter past three", TIMES, QUESTION) == "A"
    # "xquarter" is not the word "quarter"
    assert blank_filled("the time is xquarter past three", TIMES, QUESTION) is None
    # two options with the same text: no one option
    assert blank_filled("the time is quarter past three", {"A": "quarter", "B": "quarter"},
                        QUESTION) is None
    # one underscore is no blank; no question at all
    assert blank_filled("quarter past three", TIMES, "It is _ past three.") is None
    assert blank_filled("quarter past three", TIMES, None) is None


SUN = {"A": "the moon", "B": "the sun"}
LARGER = "Which is larger, the moon or the sun?"


def test_compared_option():
    assert compared_option("The sun is larger than the moon.", SUN, LARGER) == "B"
    # the opposite comparative: the other side
    assert compared_option("The moon is smaller than the sun.", SUN, LARGER) == "B"
    # negated: the other side
    assert compared_option("The sun is not larger than the moon.", SUN, LARGER) == "A"
    assert compared_option("The sun is larger than the moon.", SUN, None) is None


def test_not_ruled_out():
    named = {"A": "berry aneurysm", "B": "parkinson disease"}
    text = "It is most likely a berry aneurysm. Parkinson disease is not associated."
    assert not_ruled_out(text, named) == ["A"]
    # an explanation after ", as": what it names is set aside
    assert not_ruled_out("The answer is rabbit, as it is prey for deer.",
                         {"A": "rabbit", "B": "deer"}) == ["A"]
    assert not_ruled_out("Cat fits. The other options, such as dog, do not.",
                         {"A": "cat", "B": "dog"}) == ["A"]
    # sorted letters
    assert not_ruled_out("Dog fits, but cat too", {"B": "dog", "A": "cat"}) == ["A", "B"]


# 300 letters and spaces with no repeated 8-character stretch: prose that does not loop
_RANDOM = random.Random(0)
PROSE = "".join(_RANDOM.choice(string.ascii_lowercase + " ") for _ in range(300))


def test_prose_has_no_repeated_stretch():
    assert len({PROSE[i:i + 8] for i in range(293)}) == 293 and not repeats_a_stretch(PROSE)


def test_cut_off_length_and_last_line():
    # "x" * 297 + " to" is 300 characters ending on a word that needs another ("to")
    assert not cut_off_mid_sentence("x" * 296 + " to")  # 299 characters: under 300, never
    assert cut_off_mid_sentence("x" * 297 + " to")      # 300 characters, dangling "to"
    assert not cut_off_mid_sentence(PROSE + "y")         # a missing full stop alone is no evidence
    # a last line of exactly 40 characters is not prose: not cut off; 41 is
    assert not cut_off_mid_sentence("y" * 259 + "\n" + "z" * 37 + " to")
    assert cut_off_mid_sentence("y" * 258 + "\n" + "z" * 38 + " to")


def test_cut_off_loop_needs_a_20_character_sentence_three_times():
    # the sentences written apart (no stretch repeats through the end: the sentence rule alone)
    twenty = "abcdefghij klmnopqrs"  # 20 characters
    assert len(twenty) == 20
    text = "w" * 300 + ". " + ". ".join([twenty, "One more", twenty, "Two more", twenty]) + "."
    assert cut_off_mid_sentence(text)
    # written twice only
    assert not cut_off_mid_sentence("w" * 300 + ". " + ". ".join([twenty, "One more", twenty]) + ".")
    # 19 characters, three times
    nineteen = twenty[1:]
    assert not cut_off_mid_sentence(
        "w" * 300 + ". " + ". ".join([nineteen, "One more", nineteen, "Two more", nineteen]) + ".")
    # ... written one after another they are a stretch repeated through the end: 3 × 21 = 63
    # characters from the first "b" (`repeats_a_stretch` needs 60)
    assert cut_off_mid_sentence("w" * 300 + ". " + ". ".join([nineteen] * 3) + ".")


def test_cut_off_when_a_stretch_repeats_to_the_end():
    # r2-mc-00326's shape: a box diagram drawn again and again to the token limit (no
    # sentence, no dangling word; the numbers' loop, `repeats_a_stretch`)
    box = "+-------+\n|       |\n"  # 20 characters
    assert cut_off_mid_sentence(PROSE + "\n" + box * 3)
    assert not cut_off_mid_sentence(PROSE + "\n" + box * 2)  # 40 characters: under 60
    assert not cut_off_mid_sentence(PROSE[:200] + "\n" + box * 4)  # 281 characters: under 300


def test_no_option_on_a_text_whose_lower_casing_changes_length():
    # "İ" lower-cases to two characters: offsets would shift, so no statement is read
    assert _no_option("İ none of the options match") is None


def test_no_option_windows_around_the_hint():
    # the hint "is not" after "result" + 18 spaces starts at 24: the window (0, …) holds
    # the statement's start; 19 spaces put it at 25 and the window starts inside "result"
    assert _no_option("result" + " " * 18 + "is not an option").span() == (0, 40)
    assert _no_option("result" + " " * 19 + "is not an option") is None
    # the hint "none of the" ends at 11; the statement may end up to 48 past it (59):
    # " options (" 10 + 26 x's + ") " 2 + "correspond" 10 = 48 -> found, 27 x's -> 49 -> not
    assert _no_option("none of the options (" + "x" * 26 + ") correspond").span() == (0, 59)
    assert _no_option("none of the options (" + "x" * 27 + ") correspond") is None


def test_by_option_value_with_an_option_missing_from_the_choices():
    # option C's key is not in the choices: its text is "" (not a number, not a refusal)
    assert by_option_value("It is 20", {"A": "10", "B": "20"}, ABC).value is None


def test_by_option_value_not_at_the_start_of_the_text():
    # "not 20": the five characters before 20 are "not " (from offset 0) -> none
    assert by_option_value("not 20", {"A": "10", "B": "20", "C": "30"}, ABC).value is None
    assert by_option_value("20", {"A": "10", "B": "20", "C": "30"}, ABC).value == "B"


def test_by_option_value_tolerance_below_one():
    # value 0.5: tolerance 1e-9 * max(1, 0.5) = 1e-9; 5e-10 off -> A, 1.5e-9 off -> none
    assert by_option_value("It is 0.5000000005", {"A": "0.5", "B": "7"}, AB).value == "A"
    assert by_option_value("It is 0.5000000015", {"A": "0.5", "B": "7"}, AB).value is None


def test_compared_option_skips_sentences_without_one_option_a_side():
    # no option on either side of the first comparison: the second decides (B)
    assert compared_option("The sky is larger than the sea. The sun is larger than the moon.",
                           SUN, LARGER) == "B"
    # one option on the left only: skipped; then "the moon is larger than the sun" -> A
    assert compared_option("The sun is larger than the sky. The moon is larger than the sun.",
                           SUN, LARGER) == "A"
    # both options on the left, none on the right: skipped; then B
    assert compared_option("The sun and the moon are larger than the sea. The sun is larger "
                           "than the moon.", SUN, LARGER) == "B"


def test_leans_after_reads_from_the_offset():
    # a lean at the start of the text, the refusal ending later: nothing leans after it
    text = "But it is likely B. I cannot be sure. Maybe."
    assert not leans_after(text, text.index(". Maybe"))


def test_cut_off_reads_the_last_line():
    # the last line "short tail" (10 characters) is short; the line before it is long
    assert not cut_off_mid_sentence("y" * 300 + "\n" + "a" * 50 + "\nshort tail")


def test_cut_off_without_a_period():
    # ends on "!" (finished); no "." at all: the last "sentence" is the whole text, once
    assert not cut_off_mid_sentence("y" * 300 + "!")


# --- the whole-response statements of the review leftovers and report3's misses ----------

from bench_kit.scoring.extract.no_option_statements import (  # noqa: E402
    closest_guess,
    says_no_option,
)
from bench_kit.scoring.extract.option_statements import (  # noqa: E402
    final_answer_tail,
    only_answer_lines,
    opening_verdict,
)


@pytest.mark.parametrize("text, expected", [
    ("The answer is (B).\n\nThe answer is (J).", True),
    ("The answer is (B).\n\nThe answer is (B).", False),     # one letter
    ("The answer is (B).", False),                           # one line, one letter
    ("\n\nThe answer is (B).\nThe answer is (C).", True),    # leading blank lines
    ("The answer is B.\n   \nThe answer is C.", True),       # a blank line of spaces
    ("the final answer is: b\nAnswer is C", True),           # any case, "final", a colon
    ("Correct answer is B\nanswer is C", True),
    ("Dogs bark. The answer is (A).\nThe answer is (E).", False),  # first line has prose
    ("The answer is (B).\nSo it is C.", False),              # a later line is not a clause
    ("So the answer is B\nThe answer is C", False),          # "So" opens no bare clause
])
def test_only_answer_lines(text, expected):
    assert only_answer_lines(text) is expected


@pytest.mark.parametrize("text, expected", [
    ("x\n[答案]: 无正确答案", "无正确答案"),
    ("x\n[答案]A. ①② B. ①③", "A. ①② B. ①③"),
    ("Answer:  B  ", "B"),                  # one line: the whole text; stripped
    ("why\n  (答案): B", "B"),               # leading spaces and bracket before the clause
    ("So, the answer is B", None),         # the clause does not open the line
    ("Answer: B\nbecause dogs bark", None),  # only the last line counts
])
def test_final_answer_tail(text, expected):
    assert final_answer_tail(text) == expected


def test_closest_guess_spans_the_statement_and_the_closest_sentence():
    text = "None of the options match. The closest answer is C."
    assert closest_guess(text) == (0, len(text))
    text = "None of the options match. The closest is C. Answer: C"
    assert closest_guess(text) == (0, text.index("Answer"))  # the sentence end, after ". "
    text = "不在选项中，最接近的是D。"
    assert closest_guess(text) == (0, len(text))
    text = "NONE OF THE OPTIONS MATCH. THE CLOSEST IS C"  # upper case; no sentence end
    assert closest_guess(text) == (0, len(text))
    text = "Sure. None of the options match; the nearest is B; the closest is C."
    assert closest_guess(text) == (text.index("None"), len(text))  # the last "closest"


@pytest.mark.parametrize("text", [
    "None of the options match.",                    # no closest option offered
    "The closest is C. None of the options match.",  # the statement after it
    "The closest answer is C.",                      # no statement at all
])
def test_closest_guess_none(text):
    assert closest_guess(text) is None


@pytest.mark.parametrize("text, expected", [
    ("Explanation for Problem 6:   Choice B is correct.", "B"),
    ("Choice B is correct.", "B"),
    ("Option C is the correct one.", "C"),
    ("choice b is correct.", None),                   # a lower-case letter is no option
    ("x" * 40 + ": Choice B is correct.", "B"),       # a 40-character heading
    ("x" * 41 + ": Choice B is correct.", None),      # 41: not a heading
    ("First, Choice B is correct.", None),            # not the opening
])
def test_opening_verdict(text, expected):
    assert opening_verdict(text) == expected


def test_says_no_option():
    assert says_no_option("None of the options match.") is True
    assert says_no_option("Answer: B") is False


_LONG = "x" * 300 + "\n"


@pytest.mark.parametrize("line, expected", [
    ("So the pressure finally works out to P = (a + b", True),  # a bracket left open
    ("So the pressure works out to P = (a + b) + c", False),   # balanced, no dangling word
    ("So the pressure works out to the list [1, 2", True),
    ("So the pressure works out to the set {1, 2", True),
    # a bracket left open in prose (no digit, =, \\, ^ or _ on the line) is no evidence
    ("So the pressure works out to the set {a, b", False),
    ("Therefore the animal is most likely a dog, since the features (ears, tail, fur", False),
    ("So the pressure works out to a) b) c) d) e", False),     # more closers than openers
    ("So the pressure works out to the value 5 \\", True),     # a trailing backslash
    ("So the pressure works out to the limit lim_", True),
    ("So the pressure works out to the power 10^", True),
    ("So the pressure is P = rho g h. Then Plugging", True),
    ("So the pressure is P = rho g h. Then plugging", True),
    ("(" + "1" * 39, False),                                    # 40 characters: too short
    ("(" + "1" * 40, True),                                     # 41
])
def test_cut_off_inside_a_formula(line, expected):
    assert cut_off_mid_sentence(_LONG + line) is expected


def test_final_answer_tail_strips_only_spaces_and_brackets():
    # "XAnswer": no word boundary before "Answer" once nothing is stripped -> no clause
    assert final_answer_tail("XAnswer: B") is None


@pytest.mark.parametrize("text", [
    "None of the options match. The nearest is C.",          # "nearest" alone
    "NONE OF THE OPTIONS MATCH. THE NEAREST IS C.",          # upper case alone
])
def test_closest_guess_reads_nearest_in_any_case(text):
    assert closest_guess(text) == (0, len(text))


def test_closest_guess_needs_the_word_not_the_letters():
    # "losest" inside another word passes the substring scan; the word regex finds none
    assert closest_guess("None of the options match; the unclosest is C") is None


def test_cut_off_reads_the_last_line_only():
    # brackets opened on an earlier line do not make the last line a cut formula
    assert cut_off_mid_sentence(_LONG + "(((( a\nSo the pressure finally works out to P = 5 q") is False


def test_cut_off_on_an_open_bracket_itself():
    # the last character opens a bracket: an expression left open, as for numbers ("[" and
    # "{" joined ":", "=", ",", "(" and "\\" on 2026-12-02); no digit or "=" on the line needed
    assert cut_off_mid_sentence(_LONG + "So the options named in the brackets are [")
    assert cut_off_mid_sentence(_LONG + "So the options named in all the braces are {")
    assert not cut_off_mid_sentence(_LONG + "So the options named in the brackets are []")


def test_cut_off_needs_the_last_character_unfinished():
    # a full stop after the open bracket: the response ended there
    assert cut_off_mid_sentence(_LONG + "So the pressure finally works out to P = (a + b.") is False


# The report4 multiple-choice round: a number inside a root, a conceded refusal, a loop
# cut mid-word, a corrected first impression, options named only among the others.
@pytest.mark.parametrize("text, start, end, expected", [
    ("sqrt3", 4, 5, True),          # "sqrt" right before, from offset 0
    ("sqrt(3)", 5, 6, True),        # the radicand
    ("sqrt ( 3", 7, 8, True),       # the radicand, 7 characters from the start of "sqrt"
    ("3 sqrt", 0, 1, True),         # a factor: "sqrt" against it
    ("1/ sqrt 2", 0, 1, True),      # a numerator over a root
    ("sqrt = 3", 7, 8, False),      # checked by a root, not inside it
    ("5 ( sqrt 25 = 5)", 0, 1, False),  # the answer before its own check
    ("5 = sqrt 25", 0, 1, False),
    ("3  sqrt", 0, 1, False),       # two spaces: not written against it
])
def test_in_root_reach(text, start, end, expected):
    assert _in_root(text, start, end) is expected


def _conceded(text: str) -> bool:
    return concedes(text, NO_ANSWER.search(text))


def test_concedes():
    # the refusal's own sentence opens with "While" and a comma follows it in that sentence
    assert _conceded("While it is impossible to tell, it is B. Later text.")
    assert _conceded("While it is impossible to tell, it is likely B")  # no stop: the rest is read
    # the main clause must answer ("it is", "likely", "I would", …), read after the comma
    assert not _conceded("While it is impossible to tell, B")
    assert not _conceded("While I cannot tell whether it is B, the tail is long.")
    # the sentence ends before any comma: no main clause answers
    assert not _conceded("While it is impossible to tell. Then, B.")


S20 = "The plan is the best"  # 20 characters
FILLER = "Some other words about the sarcastic statements here. " * 6


def test_a_loop_cut_mid_word_at_the_edges():
    # a 20-character sentence written exactly three times (apart: the sentence rule alone),
    # then a fragment on its line
    apart = S20 + ". One. " + S20 + ". Two. " + S20 + ". "
    assert cut_off_mid_sentence(FILLER + apart + "The p")  # the fragment written 3 times
    assert not cut_off_mid_sentence(FILLER + apart + "Th")  # a fragment under 5 characters
    # a fragment that was not written before is a conclusion, not the loop's
    assert not cut_off_mid_sentence(FILLER + (S20 + ". ") * 3 + "This is a hyp")
    # ... but a finished sentence after it (trailing spaces stripped first): no cut-off
    assert not cut_off_mid_sentence(FILLER + (S20 + ". ") * 3 + "Finished.  ")
    # written one after another, the short fragment starts the stretch over: a loop
    assert cut_off_mid_sentence(FILLER + (S20 + ". ") * 3 + "Th")


def test_a_first_impression_is_corrected_only_after_it():
    # the correction comes before the first impression: both stay named
    assert not_ruled_out("But it is actually a cat. At first glance it looks like a dog.",
                         {"A": "cat", "B": "dog"}) == ["A", "B"]


def test_only_as_others_needs_a_clause_naming_the_option():
    assert only_as_others("Nothing here.", {"A": "cat"}) is False


# Review mc3 (item 3): an option is set aside only inside the others' example or reason.
@pytest.mark.parametrize("text, expected", [
    ("The other options, such as cat, do not fit.", True),       # the example
    ("The other animals, like cat, do not fit.", True),          # "other … like" is the phrase
    ("The other options can be ruled out since a cat is small.", True),  # the reason
    ("The other options are wrong and cat is right.", False),    # no example, no reason
    ("Cat is correct while the other options are wrong.", False),  # the clause's subject
    ("Unlike the other options, a cat purrs.", False),
    ("Cat is correct.", False),                                  # no "other options" at all
])
def test_only_as_others_needs_the_others_example_or_reason(text, expected):
    assert only_as_others(text, {"A": "cat"}) is expected


# report5's rules in option_statements.py (values worked out by hand).
from bench_kit.scoring.extract.option_statements import after_asked_line  # noqa: E402


@pytest.mark.parametrize("text, expected", [
    ("Final Answer: How many?\nSix.", "\nSix."),
    ("Answer: how many?  \nSix.", "\nSix."),                 # spaces after the "?"
    ("answer: is a?\nx\nFinal Answer: what b?\ny", "\ny"),    # the last such line
    ("Answer: dog?\nSix.", "Answer: dog?\nSix."),           # no interrogative word: an answer
    ("Final Answer: How many? Six.", "Final Answer: How many? Six."),   # the line goes on
    ("How many?\nSix.", "How many?\nSix."),                   # no answer line
    ("Final Answer: Six.", "Final Answer: Six."),             # no "?"
    ("The answer: is it? no\nSix", "The answer: is it? no\nSix"),      # "The" before it
])
def test_after_asked_line(text, expected):
    assert after_asked_line(text) == expected


@pytest.mark.parametrize("text, expected", [
    ("So the answer is none of the above.", True),
    ("So the answer is (not given).", True),
    ("The answer is: none of these", True),
    ("the answer is none of the given options", True),
    ("The answer is not listed", True),
    ("The answer is none of them", True),
    ("The answer is nonetheless B", False),
    ("The answer is notable", False),
])
def test_answer_naming_no_option(text, expected):
    assert says_no_option(text) is expected


def test_rule_7_reads_the_option_values_once(monkeypatch):
    """`_texts_in` reads the options' values (`option_values`) once, for the answer clause's
    number and for the last resort (`by_values`), not once more inside `by_option_value`."""
    from bench_kit.scoring.extract import text_choice
    from bench_kit.scoring.extract.option_texts import option_texts
    from bench_kit.scoring.extract.option_values import by_values, option_values

    calls = []
    monkeypatch.setattr(text_choice, "option_values",
                        lambda choices, options: calls.append(1) or option_values(choices, options))
    choices = {"A": "cat", "B": "dog", "C": "bird"}
    found = text_choice._texts_in("The answer is 3 legs.", choices, ABC, option_texts(choices, ABC),
                              None, None)
    assert found.value is None and len(calls) == 1
    numbers = {"A": "10", "B": "20", "C": "30"}
    assert by_values("It is 20", numbers, ABC, option_values(numbers, ABC)) == \
        by_option_value("It is 20", numbers, ABC)
    assert by_values("It is 20", numbers, ABC, None).value is None
