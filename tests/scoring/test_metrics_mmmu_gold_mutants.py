"""Pins of scoring/metrics/mmmu_gold.py that the case tables leave open (mutation testing,
benchmarks/mutation.py target `metrics_answers`). Every expected value is worked out by hand
from the module's docstrings (`gold_in`, `_has_value`, `_result_sides`, `_text_gold`,
`gold_number`, `_plain_math`) and docs/METRICS.md's `mmmu_open` rows, in the comment beside
it. Candidates are written lower-cased, as `mmmu_open` passes them."""

from __future__ import annotations

from bench_kit.scoring.metrics.mmmu_gold import gold_in, gold_number

# --- numeric golds: the values a candidate states


def test_a_part_of_an_expression_is_skipped_not_the_end_of_the_search():
    # "4\\pi" is part of an expression, not a value; the search goes on to 12.57
    assert gold_in("4\\pi, about 12.57", "12.57")


def test_a_minus_spaced_from_its_number_at_the_candidate_start_is_its_sign():
    # "a minus spaced from its number is its sign": "- 0.5" opening the candidate is -0.5
    assert gold_in("- 0.5", "-0.5")
    assert not gold_in("- 0.5", "0.5")


def test_a_fraction_followed_by_words_is_still_compared_exactly():
    # a LaTeX-fraction gold is compared exactly with a fraction of the candidate: "1/6" is not
    # "\\frac{6}{35}" though both are 0.17 — also when words follow the fraction
    assert not gold_in("1/6 of the cake", "$\\frac{6}{35}$")
    assert gold_in("6/35 of the cake", "$\\frac{6}{35}$")


def test_a_candidate_without_a_number_states_no_numeric_gold():
    # no number at all (an "and" in it): nothing is stated, no error
    assert not gold_in("cats and dogs", "3")


def test_a_bracket_labelling_an_operand_then_a_consequence():
    # "703 (previous day) + 246 = 949": the bracket labels an operand, the value is after the
    # last "="; the consequence ", so 950 pears" after it is cut off: 949 is stated, 950 not
    text = "703 (previous day) + 246 = 949, so 950 pears"
    assert gold_in(text, "949")
    assert not gold_in(text, "950")


def test_a_full_width_bracket_labelling_an_operand():
    # the same with full-width brackets: "703 （前一天） + 246 = 949" states 949, not 703
    assert gold_in("703 （前一天） + 246 = 949", "949")
    assert not gold_in("703 （前一天） + 246 = 949", "703")


def test_the_equation_solved_then_an_explanation():
    # "5x - 2 = 13, so x = 3": the equation solved, 3; the explanation after it (", where
    # y = 4") is cut off, so its "=" is not the value's
    text = "5x - 2 = 13, so x = 3, where y = 4"
    assert gold_in(text, "3")
    assert not gold_in(text, "4")


def test_a_single_number_before_the_first_of_two_equals():
    # "before its first [=] when that is a single number": "12 = 3 × 4 = 4 × 3" states 12
    assert gold_in("12 = 3 × 4 = 4 × 3", "12")


def test_a_latex_percent_gold_is_a_number():
    # gold_number reads "$12\\%$" as the number of "12%"
    assert gold_number("$12\\%$") is not None
    assert gold_number("$12\\%$") == gold_number("12%")


# --- text golds


def test_a_gold_starting_with_a_command_is_not_after_a_number_and_a_space():
    # '"\\pi" is not in "11\\pi" or "16 \\pi"' (a gold in math starting with a command, read
    # as plain "pi"); alone it is
    assert not gold_in("$16 \\pi$", "$\\pi$")
    assert gold_in("$\\pi$", "$\\pi$")


def test_roots_are_one_spelling():
    # '"\\sqrt{2}", "√2"': one spelling of roots
    assert gold_in("√2", "$\\sqrt{2}$")
    assert gold_in("sqrt(2)", "$\\sqrt{2}$")


def test_a_gold_that_is_a_list_of_letters_is_found():
    # the letters-listed rule is for a one-letter gold; a gold that is itself "a, b" is found
    assert gold_in("the points are a, b", "a, b")


def test_a_one_letter_gold_in_the_second_of_two_letter_lists():
    # "a one-letter gold not as one of letters listed": c is in the list "c, d", the second
    # list of the candidate: not its answer
    assert not gold_in("a, b. c, d", "c")
    # ... in the second or third of three lists, the same
    assert not gold_in("a, b. c, d. e, f", "c")
    assert not gold_in("a, b. c, d. e, f", "e")


def test_a_one_letter_gold_listed_then_alone():
    # c first inside "a, b, c", then alone after "the answer is": the later one is stated
    assert gold_in("a, b, c. the answer is c", "c")


def test_not_at_the_candidate_start():
    # "not right after not": "not paris" opening the candidate rejects paris
    assert not gold_in("not paris", "paris")


def test_a_plain_text_gold_may_be_a_numerator_or_after_a_hyphen():
    # only a gold in LaTeX math is "no numerator, denominator or power", and only math has
    # "no sign": a plain text gold may stand before "/" or after "-"
    assert gold_in("cat/dog", "cat")
    assert gold_in("north-west", "west")


def test_a_math_gold_is_not_continued_by_a_letter():
    # "neither continuing nor continued by a word": "$x$" is not in "$xy$"
    assert not gold_in("$xy$", "$x$")


def test_a_gold_starting_with_a_bracket_spacing_free():
    # '"(3, -4)" is "(3,-4)"': a gold opening with a bracket is found without its spaces
    assert gold_in("the point is (3,-4)", "(3, -4)")
