"""Pins of scoring/extract/truncation.py beyond the family case tables (mutation testing,
benchmarks/mutation.py target `extract_truncation`): each family's cut-off and loop rule on
its documented edges (docs/METRICS.md, "Truncated and looping responses"), every branch,
and the choice between several loops that end a response. Expected values are worked out
by hand from the module docstring's rules, in the comments."""

from __future__ import annotations

import random
import string

import pytest

from bench_kit.scoring.extract.truncation import (
    cut_off_before_number,
    cut_off_mid_sentence,
    line_loop_start,
    repeats_a_stretch,
)
from bench_kit.text.numbers import number_tokens

# 1,000 lower-case letters and spaces: prose with no repeated 8-character stretch, no
# number, no sentence end and no capital letter; PROSE is its first 300 characters
_RANDOM = random.Random(11)
LONG_PROSE = "".join(_RANDOM.choice(string.ascii_lowercase + " ") for _ in range(999)) + "q"
PROSE = LONG_PROSE[:299] + "q"
S20 = "The plan is the best"  # a 20-character sentence


def test_the_fillers():
    assert len(LONG_PROSE) == 1000 and len(PROSE) == 300 and len(S20) == 20
    assert len({LONG_PROSE[i:i + 8] for i in range(993)}) == 993
    assert number_tokens(LONG_PROSE) == []
    assert not repeats_a_stretch(LONG_PROSE) and not cut_off_mid_sentence(PROSE)


# --- multiple choice: cut_off_mid_sentence ---------------------------------------------------

def test_the_last_line_is_read_without_its_trailing_spaces():
    # "P = (a + b. ": the line ends on a full stop once its trailing spaces go, so the open
    # bracket is no cut formula; no "." elsewhere, no loop -> not cut off
    assert not cut_off_mid_sentence(PROSE + "\nSo the pressure finally works out to P = (a + b. ")
    # without the full stop the bracket is left open in a formula ("=") -> cut off
    assert cut_off_mid_sentence(PROSE + "\nSo the pressure finally works out to P = (a + b  ")


def test_a_smiley_is_removed_before_the_last_word_is_read():
    # "… maybe the :(" without its smiley ends on "the", a word that needs another -> cut off
    assert cut_off_mid_sentence(PROSE + "\nI am not sure which of them it is, so maybe the :(")
    # "… sure :(": the smiley's bracket is no formula's, "sure" needs nothing -> not cut off
    assert not cut_off_mid_sentence(PROSE + "\nI have looked at it twice, I am not completely sure :(")


def test_the_last_sentence_is_read_whole():
    # "The answer is: box X" (20 characters, ending on a capital X) written three times apart
    # (no stretch repeats through the end): only spaces and full stops are stripped from the
    # end, so the sentence read is the 20-character one, three times -> a loop
    box = "The answer is: box X"
    assert len(box) == 20
    assert cut_off_mid_sentence(PROSE + ". " + box + ". One more. " + box + ". Two more. " + box + ".")


APART = S20 + ". One. " + S20 + ". Two. " + S20 + ". "  # S20 three times, apart


def test_a_fragment_on_a_line_of_its_own_is_no_loop():
    # "…best. \nThe p": the fragment "The p" (5 characters, written in each "The plan …") stands
    # on a line of its own after the third S20: a closing line, not the loop's -> not cut off
    assert not cut_off_mid_sentence(PROSE + ". " + APART + "\nThe p")
    # the sentence before the fragment starts a line ("Two.\nThe plan …"): the fragment is on
    # that sentence's line -> the loop cut mid-word
    assert cut_off_mid_sentence(PROSE + ". " + S20 + ". One. " + S20 + ". Two.\n" + S20 + ". The p")


def test_a_fragment_that_ends_its_sentence_is_finished():
    # "Great!" (written in each of the three "Great! The plan is the best", and once more at
    # the end, then two spaces): the response ends on "!" once trailing spaces are stripped
    # -> finished, not cut off; the sentence before it is the loop's but that is not enough
    great = "Great! " + S20
    text = PROSE + ". " + great + ". One. " + great + ". Two. " + great + ". Great!  "
    assert not cut_off_mid_sentence(text)
    # the same fragment without its "!": cut mid-word -> cut off
    assert cut_off_mid_sentence(text.rstrip()[:-1])


def test_the_fragment_must_be_written_three_times():
    # two sentences loop in turn; the last "It was a hyp" (12 characters) is written in the
    # two "It was a hyperbole" before it and itself: three times -> cut off
    twice = (PROSE + ". " + S20 + ". It was a hyperbole. One. " + S20 + ". It was a hyperbole. Two. "
             + S20 + ". It was a hyp")
    assert cut_off_mid_sentence(twice)
    # one "It was a hyperbole" before it: twice only -> not cut off
    once = PROSE + ". " + S20 + ". One. " + S20 + ". It was a hyperbole. Two. " + S20 + ". It was a hyp"
    assert not cut_off_mid_sentence(once)


# --- numbers: cut_off_before_number / stops_before_number ------------------------------------

def test_a_bracket_left_open_after_a_number():
    # a number, then "(" never closed in the last (only) sentence -> cut off before the answer
    assert cut_off_before_number("Let the side be x = (3 + 4")
    assert not cut_off_before_number("Let the side be x = (3 + 4)")


def test_long_prose_with_no_number_is_not_cut():
    # no number: only an open expression at the end or a loop would cut it; long prose ending
    # on a word does neither (the "mid-sentence after its last number" rule needs a number)
    assert not cut_off_before_number(LONG_PROSE[:450])


def test_a_long_response_stopping_mid_sentence_after_its_last_number():
    # 17 + 450 characters, ending on a letter; the last number (12) is in a sentence before
    # the last one, and "The count is " is no concluding sentence -> cut off
    assert cut_off_before_number("The count is 12. " + LONG_PROSE[:450])
    # "So the count is 12": a concluding sentence that states its number -> answered
    assert not cut_off_before_number("So the count is 12. " + LONG_PROSE[:450])


def test_a_display_is_open_only_after_its_last_close():
    # two displays, both closed -> not cut off; the second one left open -> cut off
    assert not cut_off_before_number(r"Area: \[ x = 1 \] and \[ y = 2 \] so the answer is 3.")
    assert cut_off_before_number(r"Area: \[ x = 1 \] and \[ y = 2")


@pytest.mark.parametrize("end, expected", [
    (" so the total is 12.", False),      # 1,020 characters ending on a full stop: finished
    (" so n = 29 and the row reads XXXX", True),  # on a word: mid-stream (a run of letters
    #                                             is no repeating decimal)
    (" so n = 29", True),                 # on a digit: mid-stream
    (" so x = 0.333", True),              # a run of 3 threes
    (" so x = 0.3333", False),            # a run of 4: a repeating decimal written out
    (" so x = 0.0000", True),             # a run of zeros is no repeating decimal
    (" so x = 29 +", True),               # on an operator
])
def test_a_response_at_the_token_limit(end, expected):
    # 1,000+ characters, the last number in the last (only) sentence, no answer line: cut off
    # when it ends mid-stream (a word, a digit, an operator), not on closing punctuation
    assert cut_off_before_number(LONG_PROSE + end) is expected


# --- numbers: repeats_a_stretch --------------------------------------------------------------

def test_a_loop_whose_lines_end_alike():
    # "a_n = 1/n\nb_n = 1/n\n" (20 characters) written 3 times: 60 characters. The last 8
    # ("n = 1/n\n") recur every 10 characters; period 10 is no loop (a_n and b_n alternate),
    # period 20 is -> a loop (a shorter period that fails does not end the search)
    assert repeats_a_stretch(PROSE + "\n" + "a_n = 1/n\nb_n = 1/n\n" * 3)
    assert cut_off_before_number(PROSE + "\n" + "a_n = 1/n\nb_n = 1/n\n" * 3)
    # twice: 40 characters, under 60 -> no loop
    assert not repeats_a_stretch(PROSE + "\n" + "a_n = 1/n\nb_n = 1/n\n" * 2)


# --- yes/no: line_loop_start -----------------------------------------------------------------

def test_a_loop_cut_short_on_a_line_like_the_first():
    # "No" (3 characters with its break), then "No, it is not." 4 times, then "No" cut short:
    # the loop starts at offset 3, although the first line equals the cut one
    assert line_loop_start("No\n" + "No, it is not.\n" * 4 + "No") == 3


def test_several_periods_ending_the_response():
    # one line 8 times: a block of 1 line (8 >= 4) and of 2 lines (8 >= 2 x 4) -> offset 0
    assert line_loop_start("\n".join(["OK"] * 8)) == 0
    # a 2-line block written 8 times after "It is odd.\n" (11 characters): periods 2 and 4
    # both loop from the same line -> 11
    block = ["This answer is correct.", "This answer is wrong."]
    assert line_loop_start("It is odd.\n" + "\n".join(block * 8)) == 11


LINES = [f"Line {name} of the block." for name in "abcdefg"]


@pytest.mark.parametrize("size, times, expected", [
    (6, 4, 6),      # 6 lines written 4 times, after "Intro" (5 + 1 characters) -> 6
    (6, 3, None),   # 3 times: no loop
    (7, 4, None),   # a block of 7 lines: longer than 6, no loop
    (1, 4, 6),
    (1, 3, None),
])
def test_block_size_and_times(size, times, expected):
    assert line_loop_start("Intro\n" + "\n".join(LINES[:size] * times)) == expected
