"""Pins of scoring/extract/numbers.py beyond tests/cases/extract_number.json (mutation
testing, benchmarks/mutation.py target `extract_numbers`): its length and digit limits
exactly on their edges and the choices between two candidate numbers. Expected values are
worked out by hand from the module docstring's rules, in the comments."""

from __future__ import annotations

import random
import string

import pytest

from bench_kit.scoring.extract.answer_part import answer_part, looping
from bench_kit.scoring.extract.answer_part import answer_part_tokens as _answer_part
from bench_kit.scoring.extract.numbers import (
    _candidates,
    answer_number,
    answer_number_token,
    extract_number_detailed,
    refuses,
)
from bench_kit.text.numbers import NumberToken, number_tokens

# 500 lower-case letters with no repeated 8-letter stretch: prose that neither loops nor
# holds a number or a sentence end
_RANDOM = random.Random(0)
FILLER = "".join(_RANDOM.choice(string.ascii_lowercase) for _ in range(500))


def test_filler_has_no_repeated_stretch():
    assert len({FILLER[i:i + 8] for i in range(len(FILLER) - 7)}) == len(FILLER) - 7


def read(text):
    found = extract_number_detailed(text)
    return found.value, found.parse


@pytest.mark.parametrize("text, expected", [
    ("1" * 20, (1.111111111111111e19, "ok")),           # 20 digits: a number
    ("1" * 21, (None, "failed")),                        # 21: a degenerate run
    ("It is " + "1" * 20 + ".", (1.111111111111111e19, "ok")),
])
def test_twenty_digits_is_the_limit(text, expected):
    assert read(text) == expected


@pytest.mark.parametrize("text, expected", [
    ("12 apples", (12.0, "ok")),
    ("abcdefghijkl 5", (5.0, "ok")),        # rest "abcdefghijkl": 12 characters
    ("abcdefghijklm 5", (5.0, "lenient")),  # 13: not a lone number
    ("5 abcdefghijk.", (5.0, "ok")),        # the final "." is stripped first: 12 left
    ("5, abc", (5.0, "lenient")),           # a comma: a clause mark
    ("5; abc", (5.0, "lenient")),
])
def test_a_lone_number(text, expected):
    assert read(text) == expected


def test_the_stated_number_and_the_count_of_a_whole():
    assert read("There are 3 bars larger than 4.") == (3.0, "lenient")  # "are 3"
    assert read("3 of the 4 numbers are even, so") == (3.0, "lenient")  # "3 of the 4"
    assert read("The area is 5 cm^2") == (5.0, "lenient")  # 2 is an exponent


def test_final_value_clause():
    # the last "final value is": 7 of its own sentence, not the 9 after it
    assert read("The final value is 7. Then 9 more.") == (7.0, "ok")
    assert read("Final value: 7") == (7.0, "ok")
    assert read("The final value is 2. Later the final value is 8. Then 9.") == (8.0, "ok")


def test_a_count_of_zero_unless_refused():
    assert read("There are no red cubes.") == (0.0, "lenient")
    assert read("There are no red cubes. I am not sure.") == (None, "failed")
    assert read("There is no way to know.") == (None, "failed")


def test_refusal_and_estimate():
    assert read("It cannot be determined, but an estimate is 5.") == (5.0, "lenient")
    assert read("It cannot be determined. It is 5.") == (None, "failed")
    # refuses(): the estimate must come after the refusal and before `end`
    text = "It cannot be determined, but an estimate is 5."
    assert not refuses(text)
    assert refuses(text, end=28)  # the refusal ends at 23; 23-28 is ", but": no "estimat"
    # unsure=False: "not sure" alone is no refusal; "cannot be determined" still is
    assert refuses("I am not sure.")
    assert not refuses("I am not sure.", unsure=False)
    assert refuses("The value is undefined.", unsure=False)


def test_answer_part_cuts_only_after_a_number():
    # the first number (5) ends before "\nQuestion": cut there
    assert answer_part("5 here.\nQuestion: 6") == "5 here."
    assert _answer_part("5 here.\nQuestion: 6")[1][0].value == 5.0
    # the first number (6) is after the cut: nothing cut
    assert answer_part("a\nQuestion: 6 and 5") == "a\nQuestion: 6 and 5"
    # a continuation at offset 0 is not looked for (search from 1)
    assert answer_part("Question: x 5") == "Question: x 5"
    assert read("It is 5.\nI hope this helps! 7 more") == (5.0, "ok")


def test_two_values_side_by_side_and_a_range_are_no_answer():
    assert read("The values are 4 and 5.") == (None, "failed")
    assert read("around 10 to 15 years") == (None, "failed")
    assert read("\\boxed{25} or \\boxed{26}") == (None, "failed")


def test_long_response_cut_mid_sentence():
    head = "There are 7 cats. "  # 18 characters; the last sentence starts after it
    # 400 characters ending on a letter, the number before its last sentence: cut off
    assert read(head + FILLER[:400 - len(head)]) == (None, "failed")
    # 399 characters: not long enough to call it cut off
    assert read(head + FILLER[:399 - len(head)]) == (7.0, "lenient")


@pytest.mark.parametrize("text, expected", [
    ("abcdefghijklmnopqrst" * 3, True),              # 60 characters, period 20: a loop
    ("abcdefghijklmnopqrs" * 3 + "a", False),        # 58 characters: under 60
    (FILLER[:200] + "abcdefghijklmnopqrs" * 3, False),  # period 19 x 3 = 57 < 60
    (FILLER[:200] + "abcdefghijklmnopqrs" * 4, True),   # 76 >= 60
    (FILLER[:200] + "abcdefghijklmnopqrst" * 3, True),
    (FILLER[:200] + "0123456789" * 7, False),        # a repeating decimal, not a loop
    (FILLER[:200] + "a123456789" * 7, True),
    (FILLER[:100], False),
])
def testlooping(text, expected):
    assert looping(text) is expected


def test_percent_flag():
    found, percent = answer_number("The answer is 45%.")
    assert (found.value, found.parse, percent) == (45.0, "ok", True)
    assert answer_number("The answer is 45.")[1] is False


def test_a_continuation_right_after_the_first_number():
    # "\nQuestion" at offset 1 (the search starts at 1); the 5 ends at 1 = the cut: kept
    assert read("5\nQuestion: 6") == (5.0, "ok")


def test_exponents_at_the_edges_of_the_window():
    assert read("^2") == (None, "failed")  # "^" at offset 0 is in the window
    # "x^ { 2": "^" at 1, the 2 at 5: 4 before, in the window (1, 5) -> dropped; one more
    # space puts the 2 at 6 and "^" 5 before it, outside the window (2, 6) -> kept
    assert _candidates("x^ { 2", number_tokens("x^ { 2")) == []
    assert [t.value for t in _candidates("x^  { 2", number_tokens("x^  { 2"))] == [2.0]


def test_long_written_numbers_count_digits_not_characters():
    # 21 characters but 16 digits: a number
    assert read("1,000,000,000,000,000") == (1e15, "ok")
    # 26 characters, exactly 20 digits: still a number
    assert read("11,111,111,111,111,111,111") == (1.111111111111111e19, "ok")


def test_an_open_bracket_in_the_last_sentence_only():
    # "a)" closes a bracket in an earlier sentence; "(approx" is left open in the last
    assert read("Step a) done. The value is 5 (approx") == (None, "failed")


def test_not_cut_off_when_short_or_ending_a_sentence():
    # short: the number before the last sentence is still the answer
    assert read("There are 7 cats. They sleep.") == (7.0, "lenient")
    # long but the number is in the last sentence
    assert read(FILLER[:420] + ". There are 7 cats.") == (7.0, "lenient")
    # long, the number before the last sentence, but the text ends on "!" (not a letter)
    assert read("There are 7 cats. " + FILLER[:400] + "!") == (7.0, "lenient")
    # long and ending on a letter, but its last number (9) is in the last sentence
    assert read("7 and 8 cats. " + FILLER[:400] + " so 9 more cats") == (9.0, "lenient")


def test_the_stated_number_with_a_sentence_offset_and_a_bracket():
    # the sentence starts at 11: "3 of the 4" is read at offsets relative to it
    assert read("I counted. 3 of the 4 numbers are even, so") == (3.0, "lenient")
    # "is (12)": the "(" after "is" is passed over to reach 12 (not the last number, 3)
    assert read("The sum is (12) using 3 terms") == (12.0, "lenient")


def test_an_example_only_in_the_clause_sentence_counts():
    # "In this example" after the clause's sentence: the answer stands
    assert read("The answer is 50. In this example we add.") == (50.0, "ok")
    # the clause's own sentence is an example, and another sentence follows it
    assert read("If the price is 5, the answer would be 50. OK.") == (None, "failed")


def test_one_grounding_box_makes_a_caption():
    assert read("The cat [0.1,0.2,0.3,0.4] is 3.") == (None, "failed")


def test_the_zero_token_spans_the_no_phrase():
    # "There are no " (13 characters) + the letter that follows: offsets 0-14
    found, token, _ = answer_number_token("There are no red cubes.")
    assert (found.value, token) == (0.0, NumberToken(0.0, 0, 14))


def test_a_method_only_answer_after_a_concluding_sentence():
    # "So …" comes before "The final answer will be …", not after it: still no answer
    assert read("So there are 3 steps. The final answer will be the total count.") == \
        (None, "failed")


def test_range_window_is_30_characters():
    # "1", 27 spaces, "to 5": the 5 starts at 31, the window (1, 31) misses the 1 -> 5
    assert read("1" + " " * 27 + "to 5") == (5.0, "lenient")
    # one space less: the 5 at 30, window (0, 30) holds "1 … to": a range -> none
    assert read("1" + " " * 26 + "to 5") == (None, "failed")


def test_option_label_window_is_8_characters():
    assert read("(a) 1000, as listed here") == (None, "failed")  # label at offset 0
    # "(" 9 characters before 1000: outside the window -> 1000
    assert read("x (a)      1000, as listed") == (1000.0, "lenient")
    assert read("x (a)     1000, as listed") == (None, "failed")  # 8 before: inside


def test_an_estimate_after_the_number_does_not_lift_a_refusal():
    assert read("It cannot be determined. It is 5, an estimate.") == (None, "failed")


def test_a_loop_needs_three_periods_of_a_long_unit():
    unit = "abcdefghijklmnopqrstuvwxy"  # 25 characters: a loop must span 3 x 25 = 75
    # 60 periodic characters (2.4 periods) after prose: over _LOOP_MIN but not 3 periods
    assert not looping(FILLER[:200] + unit * 2 + unit[:10])
    assert looping(FILLER[:200] + unit * 3)


def test_threshold_window_is_12_characters():
    # "than" + 8 spaces = 12 characters before the 8: a threshold, not a second value, and
    # not the number the sentence states either (its last number that is no threshold) -> 4
    assert read("It fell from 4 while rising than" + " " * 8 + "8.") == (4.0, "lenient")
    # 9 spaces: "than" falls outside the window: 4 and 8 coordinated by "while" -> none
    assert read("It fell from 4 while rising than" + " " * 9 + "8.") == (None, "failed")


# --- the answer clause's tail, thresholds and parts of expressions (review items 6-11) ---

def test_an_elaboration_is_looked_for_up_to_the_last_number():
    # tokens 12, 12, 3: "with" lies between the second and the last -> the answer is 12
    # (not 3, the last number, as when only the stretch before the second were searched)
    assert read("The answer is 12 = 12 with 3 left.") == (12.0, "ok")


def test_or_and_count_only_between_the_two_last_numbers():
    # "and" after the last number offers nothing: 3 + 4 = 7 -> 7
    assert read("The answer is 3 + 4 = 7 and nothing else.") == (7.0, "ok")
    assert read("The answer is 4 or 7.") == (None, "failed")


@pytest.mark.parametrize("text, expected", [
    ("The answer is (3 , 4).", (None, "failed")),  # a space before the comma: still a pair
    ("The answer is [3, 4].", (None, "failed")),
    ("The answer is (≈3, 4).", (None, "failed")),  # something before the number: a pair too
    ("The answer is (3), 4 more.", (3.0, "ok")),  # the bracket closes in the tail: no pair
    ("The answer is [3], 4 more.", (3.0, "ok")),
])
def test_a_pair_is_a_bracket_left_open_at_the_tails_comma(text, expected):
    assert read(text) == expected


def test_a_threshold_is_found_in_a_later_sentence_and_within_12_characters():
    # the sentence starts after the first: its offset must not move the window
    assert read("The chart has 7 bars. Only 2 countries have a score of more than 50.") \
        == (2.0, "lenient")
    # "than" + 8 spaces = 12 characters before the 50: a threshold -> 2
    assert read("Only 2 teams scored more than" + " " * 8 + "50.") == (2.0, "lenient")
    # 9 spaces: outside the (bounded) look-back, the 50 is the sentence's last number
    assert read("Only 2 teams scored more than" + " " * 9 + "50.") == (50.0, "lenient")


@pytest.mark.parametrize("text, expected", [
    ("√2", (None, "failed")),  # a radicand at offset 1: the look-back starts at 0
    ("f(2)", (None, "failed")),  # a function's argument, its letter at offset 0
    ("The answer is \\sqrt{  2}", (None, "failed")),  # "\sqrt{" + 2 spaces = 8: inside
    # spaces before the number are stepped over: a radicand however spaced (the review of
    # the metrics pins: "\\sqrt{   2}" is no 2)
    ("The answer is \\sqrt{   2}", (None, "failed")),
    ("The answer is \\sqrt{" + " " * 40 + "2}", (None, "failed")),
    ("The answer is 5-" + " " * 8 + "\\frac{1}{2}", (None, "failed")),  # 10 back: an operand
    ("The answer is 5-" + " " * 9 + "\\frac{1}{2}", (0.5, "ok")),  # 11 back: outside
])
def test_part_of_expression_windows(text, expected):
    """The look-backs of `part_of_expression` are bounded (8 characters for a root, an
    exponent or a fraction, 10 for an operand); at offset 0 they still see the text."""
    assert read(text) == expected


def test_the_stated_number_is_found_in_a_later_sentence():
    # offsets within the sentence, not the text: "is" + 12 in the second sentence -> 12,
    # not 5, the sentence's last number
    assert read("We look again. The total is 12 for 5 days.") == (12.0, "lenient")
