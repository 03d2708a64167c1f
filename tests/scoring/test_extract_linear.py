"""extract_choice is linear in the response's length: twice the characters take at most
2.5 times as long, up to 1M characters (docs/BENCHMARKS.md#extraction-speed)."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from bench_kit.scoring.extract.answers import extract_choice
from tests.scoring.linear_timing import assert_linear

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "benchmarks"))
from extract_corpus import make_corpus  # noqa: E402

CHOICES = {"A": "red cat", "B": "blue car", "C": "green tree", "D": "Vitamin C"}
_REASONING = " ".join(response for response, _, _ in make_corpus(200, "cot", seed=5))


def _repeat(unit: str, n: int) -> str:
    return (unit * (n // len(unit) + 1))[:n]


SHAPES = {
    "reasoning then an answer": lambda n: _repeat(_REASONING, n) + "\n\nThe answer is B.",
    "option texts echoed": lambda n: _repeat("red cat blue car Vitamin C, ", n),
    "answer clauses without a letter": lambda n: _repeat("the answer is maybe ", n),
    "letters ruled out": lambda n: _repeat("not A, ", n) + " so B",
    # review (reviews of the multiple-choice rules, "TIMING"): were quadratic
    "option keyword repeated (CJK)": lambda n: _repeat("选项", n),
    "answer clause then spaces": lambda n: "The answer is " + " " * n + "x",
    # a run of spaces between two letters: the verdict after a letter was exponential in it
    "spaces between letters": lambda n: "We see A" + " " * n + "B here",
    "a negated letter, spaces, then another": lambda n: "not A" + " " * n + "and C here",
    "options echoed with their labels": lambda n: _repeat("(A) red cat (B) blue car ", n),
    "letters compared": lambda n: _repeat("between A and B, ", n),
    "closest option after none match": lambda n: _repeat(
        "None of the options match. The closest answer is B. ", n),
    "question said to be flawed": lambda n: _repeat("the question is wrong ", n) + "B",
    "answer clause lines": lambda n: _repeat("The answer is (B).\nThe answer is (C).\n", n),
    "a formula cut off": lambda n: _repeat("P(A) = (x + ", n),
    "an opening verdict then a loop": lambda n: "Explanation: Choice B is correct. " + _repeat(
        "so the value of A is 1 = 1, ", n),
    "closing answer blocks": lambda n: _repeat("选项D, 可以. ", n) + "\n[答案]: 无正确答案",
    # one long line of prose without an answer clause, stopping mid-sentence: the cut-off
    # check now runs before the lenient readings (speed), on every such response
    "one long line stopping mid-sentence": lambda n: _repeat("so the blue car is ", n) + " the",
    # a verdict right before a letter ("…, which matches option C"): looked for in a bounded stretch
    "verdicts before letters": lambda n: _repeat("which matches option A, ", n) + " so B",
    "a long segment ending in a verdict": lambda n: "Option A " + _repeat("x ", n) + "matches option C.",
    # option texts in questions the response asks itself are blanked (one scan of its sentences)
    "questions asked": lambda n: _repeat("Is it a red cat? ", n) + "It is a blue car.",
    "questions answered yes or tagged": lambda n: _repeat("Is it a red cat? Yes, isn't it? ", n) + "Hmm?",
    "questions answered no": lambda n: _repeat("Is it a red cat? No. ", n) + "Not really?",
    "denied verdicts before letters": lambda n: _repeat("which does not exactly match option A, ", n) + " so B",
}


@pytest.mark.parametrize("shape", sorted(SHAPES))
def test_twice_the_length_takes_at_most_two_and_a_half_times_as_long(shape):
    make = SHAPES[shape]
    assert_linear(shape, make(500_000), make(1_000_000),
                  lambda text: extract_choice(text, CHOICES))


# Options past J (a clause naming one, twice over) and the opening statement with the
# question given (a long first sentence restating it, then option texts discussed).
WIDE_CHOICES = dict(zip("ABCDEFGHIJKLMNOPQR", "red orange yellow green blue brown magenta fuchsia "
                        "mauve teal turquoise burgundy silver gold black grey purple pink".split()))
QUESTION = "What colour is the car?\nA. red cat\nB. blue car"
WIDE_SHAPES = {
    "clauses naming letters past J": (lambda n: _repeat("So the answer is (K) or (L). ", n),
                                      WIDE_CHOICES),
    "a long opening statement": (lambda n: "The car colour is blue car " + _repeat("and more ", n)
                                 + ". Not red cat. Green tree too.", CHOICES),
    "a long last sentence naming the option": (lambda n: "The car colour is blue car or red cat. "
                                               "Green tree. The best option for the car colour is "
                                               + _repeat("blue ", n) + "car", CHOICES),
}


@pytest.mark.parametrize("shape", sorted(WIDE_SHAPES))
def test_late_letters_and_opening_statements_stay_linear(shape):
    make, choices = WIDE_SHAPES[shape]
    assert_linear(shape, make(500_000), make(1_000_000),
                  lambda text: extract_choice(text, choices, QUESTION))


# Review mc3 (item 9): a whitespace run around "Option" in a whole late-letter response
# (three adjacent \s* were cubic), later bracketed letters after a late clause, -ly forms of
# a one-word option, and an opening statement followed by many plain sentences.
def test_a_whole_late_letter_response_is_linear():
    from bench_kit.scoring.extract.choice_clause import late_letter, option_keys

    options = option_keys(WIDE_CHOICES)
    assert_linear("option, newlines", "Option" + "\n" * 200_000 + "x",
                  "Option" + "\n" * 400_000 + "x", lambda text: late_letter(text, options))


REVIEW_MC3_SHAPES = {
    "letters in brackets after a late clause": (
        lambda n: "The answer is (K). " + _repeat("(K) or (B) not (L) ", n), WIDE_CHOICES),
    "-ly forms of a one-word option": (
        lambda n: _repeat("It moves horizontally and not horizontally, ", n) + "horizontally.",
        {"A": "horizontal", "B": "vertical", "C": "diagonal"}),
    "an opening statement, then plain sentences": (
        lambda n: "The car colour is blue car. " + _repeat("The car colour is red cat. ", n),
        CHOICES),
    # report5's shapes: letters naming things or standing in formulas, units, lower-case
    # letters in brackets, clause letters with their own text, corrections
    "letters naming things": (lambda n: _repeat("Machine A and vitamin B, Machine C. ", n), CHOICES),
    "letters as symbols and units": (lambda n: _repeat("A = 2 * B + 0.5 C, so A is ", n), CHOICES),
    "lower-case letters in brackets": (lambda n: _repeat("it is (b) red cat, f (c) or (d). ", n), CHOICES),
    "clause letters with texts after a comma": (
        lambda n: _repeat("the answer is (a), B and red cat ", n), CHOICES),
    "corrections between options": (
        lambda n: _repeat("It is a red cat. Wait, no, actually a blue car, ", n), CHOICES),
    "answer lines asking the question again": (
        lambda n: _repeat("Final Answer: how many cats are there?\nThere are 3 cats.\n", n),
        {"A": "1", "B": "2", "C": "3"}),
    "letters after 'the other options'": (
        lambda n: _repeat("The other options: (A) red cat, (B) blue car. ", n), CHOICES),
    "conditions restating the question": (
        lambda n: _repeat("If the car colour is red cat, it is blue car. ", n), CHOICES),
    "answer clauses naming no option": (
        lambda n: _repeat("so the answer is none of the above, ", n) + "red cat", CHOICES),
}


@pytest.mark.parametrize("shape", sorted(REVIEW_MC3_SHAPES))
def test_review_mc3_shapes_stay_linear(shape):
    make, choices = REVIEW_MC3_SHAPES[shape]
    assert_linear(shape, make(500_000), make(1_000_000),
                  lambda text: extract_choice(text, choices, QUESTION))


# review mc4 (TIMING item 9): the letters after "the other options" were looked up with a scan
# from the statement to each letter, quadratic without a blank line in between
REVIEW_MC4_SHAPES = {
    "letters after 'the other options', no blank line": (
        lambda n: "(E) fits.\n\nThe other options. " + _repeat("A, B, ", n),
        {"A": "10", "B": "20", "C": "30", "D": "40", "E": "50"}),
    "paragraphs of others after answers": (
        lambda n: _repeat("(E) fits.\n\nThe other options: (A) red cat, (B) blue car.\n\n", n),
        {**CHOICES, "E": "pink bus"}),
}


@pytest.mark.parametrize("shape", sorted(REVIEW_MC4_SHAPES))
def test_review_mc4_shapes_stay_linear(shape):
    make, choices = REVIEW_MC4_SHAPES[shape]
    assert_linear(shape, make(100_000), make(200_000),
                  lambda text: extract_choice(text, choices, QUESTION))


def test_setting_aside_the_other_options_is_linear():
    """The set-aside step alone on the review's input (a letter every three characters)."""
    import re

    from bench_kit.scoring.extract.prose_letters import _set_aside_as_others

    def call(text: str) -> None:
        _set_aside_as_others(text, [(m.group(), m.start(), m.end()) for m in re.finditer("[A-E]", text)])
    make = REVIEW_MC4_SHAPES["letters after 'the other options', no blank line"][0]
    assert_linear("set aside", make(200_000), make(400_000), call)


NUMBER_SHAPES = {  # the review's probes (/work/wt/reviews/numbers.md, items 1 and 2)
    "digits in brackets": lambda n: "The box is [" + "1" * n + "]",
    "fractions among numbers": lambda n: _repeat(
        "The value is 45% and 12 cm^2, \\frac{1}{2} [0.1,0.2,0.3,0.4] 0x1f ", n),
    # mixed numbers, powers, unread values and hedged boxes (review items 6-8)
    "powers and mixed numbers": lambda n: _repeat(
        "2^{10} and 1 1/2, 3 × 10^8 \\frac {3} {4} (3, 4) 10:30 5-\\frac{1}{2} 4\\pi ", n),
    "boxed answers offered": lambda n: _repeat("\\boxed{12} or maybe ", n),
    "the answer is, with values": lambda n: _repeat("The answer is 3 out of 5 or 12 and ", n),
    "JSON answer fields": lambda n: _repeat('{"answer": "1\\", "answer": 2, ', n),
    "JSON answer left open": lambda n: '{"reasoning": "x", "answer": "' + _repeat("\\\" 7", n),
    # review numbers2: separators, thresholds, labels before mixed numbers, 和, placeholders
    "labels, thresholds and separators": lambda n: _repeat(
        "Step 3 1/4 in 2019 more than 300 Answer - 42 和为 0.5 or 50% with x is ", n),
    "JSON placeholders": lambda n: _repeat('{"answer": "<number>"} {"answer": "..."} ', n),
    "asides after a value": lambda n: "The answer is 7" + _repeat(" (3 + 4)", n),
    # review of the metrics pins: the look-back steps over spaces, times signs before a root
    "radicands after spaces, times signs": lambda n: _repeat(
        "\\sqrt{" + " " * 30 + "2} 2 \\cdot \\sqrt{3} x^{   5} \\sqrt" + " " * 30 + "{ 7} ", n),
    "spaces around a number": lambda n: "The answer is" + " " * n + "2" + " " * n + "\\cdot",
    # report4's shapes: few-shot blocks, self-grading, answer-line loops, words, operations
    "worked examples and self-grading lines": lambda n: _repeat(
        "The answer is 3\n\nProblem:\nx\nThis answer is correct.\n", n),
    "an answer line looping, cut off": lambda n: _repeat("The answer is 28900.\n", n)
    + "The answer is 28",
    "answers in words": lambda n: _repeat("The answer is None. ", n),
    "operations left undone": lambda n: _repeat("1 - sin(1) 100 * 2^99 9.98*10^-25 8 * 3 ", n),
    "values written twice, sums of money": lambda n: _repeat(
        "3/12 or 1/4, 2 hours or 120 minutes needs 5 to buy 7 ", n),
    "no count with a condition": lambda n: "There are no clubs" + _repeat(" with 64 of", n),
    "explanations before answer clauses": lambda n: "It is 3. " + _repeat(
        "This is because 1.\nThe answer is 2.\n", n),
    "labels before dashes, counts of occurrences": lambda n: "Answer: " + _repeat(
        "Option 2 - 45 at least 3 times ", n),
    "precisions": lambda n: _repeat("round 12 to 2 decimal places, 3 sig. figs ", n),
    "displays opened, alignment marks, code described": lambda n: _repeat(
        "\\[ 1 & 2 & [3] / 2 This code will output 4 ", n) + "\n21.",
    # review numbers3: a verb of money yields to a later conclusion (one scan for it, not one
    # per verb)
    "verbs of money then a conclusion": lambda n: _repeat("needs 5 ", n) + " so 7",
    # report5's shapes: questions restated after "Final Answer:", answers graded, left unfilled
    # or revised by the working, brackets that explain a value or label an operand
    "questions restated, answers graded": lambda n: _repeat(
        "Final Answer: How many, in all, are there? The answer is incorrect. ", n) + "So 6.",
    "values explained by brackets": lambda n: _repeat(
        "Amy scores 41 points (26+15) + 3 more signatures (100 - 64 ", n),
    "an opening answer revised": lambda n: "The answer is 8.\n" + _repeat(
        "So 3 + 4 = 7 (a b) Explanation: ", n),
    "clauses left unfilled, numbers asked": lambda n: _repeat("The answer is . How many 12? ", n),
    "spelled numbers before a comma": lambda n: _repeat("The answer is the two big bars, ", n)
    + "which is 13.",
    "equations solved after a comma": lambda n: "Answer: x - 1 = 4" + _repeat(", so x = ", n) + "5",
    "a count with a condition": lambda n: "There is one office that" + _repeat(" is very", n)
    + " 38 m.",
    # review numbers4, items 11-12 (quadratic in mmmu_open_match; the same texts here)
    "spaces before a bracket labelling an operand": lambda n: "The answer is 5" + " " * n
    + "(3) + 4 = 7",
    "spaces before a closing word": lambda n: "The answer is 5" + " " * n + "x",
    # bare JSON lists and objects as answer values (exact golds), left open or nested
    "JSON bare lists and objects left open": lambda n: _repeat('{"answer": [1, [2, {"answer": {', n),
    "a JSON bare list on a long line": lambda n: '{"answer": [' + _repeat("'a', ", n) + "'b'",
    "a JSON string with unescaped quotes": lambda n: '{"answer": ""' + _repeat('a" , x', n),
    # review numbers probes (third session): pauses, tables after a pointer, second counts,
    # reasons after a zero count, values after refusals, checked or asked-why values, named
    # quantities, relative clauses with sums, products in words, brackets in letters
    "an ellipsis, then numbers": lambda n: "The answer is..." + _repeat(" 1 2", n),
    "a table after a pointing clause": lambda n: "The answer is in the table below.\n"
    + _repeat("| 1 | 2 |\n", n),
    "counts with bounds joined by and": lambda n: "There are 2 bars" + _repeat(" over 40 and 1 bar", n),
    "no count with reasons": lambda n: "There are no apples that weigh more than 200 grams"
    + _repeat(", because 1", n),
    "values stated after refusals": lambda n: _repeat("There is no solution; the real solution is 2. ", n),
    "values checked or asked why": lambda n: _repeat("The total is 24 — does that fit? Why 24? ", n),
    "a quantity named before a comma": lambda n: "The answer is after 3 years" + _repeat(
        " with interest", n) + ", the amount is 5.",
    "relative clauses with sums": lambda n: _repeat("needs 5 dollars to buy the book that costs 20 ", n),
    "products in words, brackets in letters": lambda n: "The answer is 2" + _repeat(
        " times 10 (x - 1) (or 6)", n),
    "bounds before describing phrases": lambda n: "There must be at least 6 chairs" + _repeat(
        " in the room with 3", n),
    "Chinese clauses after commas": lambda n: "答案：" + _repeat("和为 30，差为 6，得到 2，", n),
    # review numbers5: refusals followed by numbers, "no difference between", comparatives
    # before "than", revision words, a calculation concluded after "and"
    "no solution, then numbers": lambda n: "There is no solution" + _repeat(" x, 1", n),
    "no difference between long phrases": lambda n: "There is no difference between" + _repeat(
        " a and b", n) + ", which both show 40.",
    "no things with comparatives before than": lambda n: "There are no " + _repeat(
        "trees taller ", n) + "than 30 meters.",
    "revision words before a share": lambda n: "The answer is 120.\n" + _repeat("wait no ", n)
    + "Therefore, each of the 4 pays 30.",
    "calculations after and, then so": lambda n: "The answer is 7" + _repeat(" and 7 x 3 = 21", n)
    + " so 21",
}


@pytest.mark.parametrize("shape", sorted(NUMBER_SHAPES))
def test_answer_number_is_linear(shape):
    from bench_kit.scoring.extract.numbers import answer_number

    make = NUMBER_SHAPES[shape]
    assert_linear(shape, make(100_000), make(200_000), answer_number, rounds=2)


MMMU_SHAPES = {  # the review's probe (/work/wt/reviews/numbers.md, item 11) and a mix
    "open brackets before a number": (lambda n: "(" * n + "3", "3"),
    "closing brackets after a number": (lambda n: "The answer is 3" + ")" * n, "3"),
    "values joined by and": (lambda n: "A: " + _repeat("12 and ", n) + "15", "3"),
    "values joined by commas": (lambda n: "The answer is " + _repeat("k=2, ", n), "2"),
    "math against a LaTeX gold": (lambda n: "The answer is " + _repeat(
        "\\frac{2}{\\sqrt{3}} + 14π - ", n), "$\\sqrt{3}$"),
    "an answer heading with a colon": (lambda n: "[答案]\n首先：\n" + _repeat("a=1+2=3。", n), "3"),
    # review numbers2: explanations after a value, a numeric LaTeX gold, signs, 之和
    "explanations after a value": (lambda n: "The answer is 42" + _repeat(
        ", where x = 6 (b = 2) when - 1", n), "$42$"),
    "signed terms against a math gold": (lambda n: "The answer is " + _repeat(
        "-\\sqrt{3}.5 + 2x ", n), "$\\sqrt{3}$"),
    "sums in Chinese": (lambda n: "答案：" + _repeat("两数之和为15和", n), "15"),
    # review of the metrics pins: spaced slashes (fractions and hedges), spaced radicands
    "consequences after a value": (lambda n: "The answer is 5" + _repeat(", so 6", n), "5"),
    "spaced slashes": (lambda n: "The answer is " + _repeat("3 / 4 or red / ", n), "0.75"),
    "radicands after spaces": (lambda n: "The answer is " + _repeat(
        "\\sqrt{" + " " * 30 + "2} 2 \\cdot \\sqrt{3} ", n), "2"),
    # report4's shapes: a formula looping with no answer, operations left undone
    "a formula looping": (lambda n: _repeat("x_n^2 = 1/n\n", n), "2"),
    "operations left undone": (lambda n: "The answer is " + _repeat("1 - sin(1) + 2 * ", n), "1"),
    "a bracketed list, values written twice": (lambda n: "The answer is [" + _repeat(
        "0.4, 3/12 or 1/4, ", n) + "1]", "0.4"),
    "consequences without an answer clause": (lambda n: "So it is " + _repeat(
        "5 apples, so ", n) + "6 pears", "5"),
    # (ending on a line of its own: a last line cut short at one length and not at the other,
    # "Step 1: 3" against "St", would be a candidate at one only, since report5's rule below)
    "an answer clause opening lines": (lambda n: "The answer is:\n" + _repeat(
        "Step 1: 3 + 4 = 7\n", n) + "\nDone.", "7"),
    "ranges": (lambda n: "The answer is " + _repeat("between 40 and 60 ", n) + "km", "40"),
    "no count with a condition": (lambda n: "There are no clubs" + _repeat(" with 64 of", n), "0"),
    # review numbers3, item 13: a run of spaces before a bracket was quadratic (the hedge and
    # "and" separators were tried at every space of the run)
    "spaces before a bracket": (lambda n: "The answer is 5" + " " * n + "(3).", "5"),
    "spaces between words": (lambda n: "The answer is 5" + " " * n + "or" + " " * n + "6", "5"),
    # report5's shapes: a question restated after the answer clause, a last sentence with no
    # indicator word
    "a question restated, a closing sentence": (lambda n: "Final Answer: How many" + _repeat(
        " apples, in all,", n) + "?\n" + _repeat("Amy scores 41 points ", n), "41"),
    "brackets labelling operands": (lambda n: "The answer is 703" + _repeat(" (a) + 2", n)
                                    + " = 9", "9"),
    "equations solved after a comma": (lambda n: "The answer is 5x - 2 = 13" + _repeat(
        ", so x = ", n) + "3", "3"),
    "lines, then a closing sentence with no indicator": (lambda n: _repeat(
        "Step 1: 3 + 4 = 7\n", n) + "\nAmy scores 41 points (26+15).", "41"),
    # review numbers4, items 11-12: a run of spaces after a value, before a bracket labelling
    # an operand (two adjacent \s* in _SINGLE_VALUE) or before a word (_EXPLANATION's
    # ",?\s+where|…" tried from every space)
    "spaces before a bracket labelling an operand": (lambda n: "The answer is 5" + " " * n
                                                     + "(3) + 4 = 7", "5"),
    "spaces before a closing word": (lambda n: "The answer is 5" + " " * n + "x", "5"),
    # golds compared exactly: a string literal, a run of closing brackets
    "a literal gold against quoted words": (lambda n: "The output is " + _repeat("'Ab' is ", n), "'ab'"),
    "a bracket-run gold against a long run": (lambda n: "So the answer is " + _repeat(") ] ", n), ") ]"),
    "assertions against a literal gold": (lambda n: "The answer is f(" + _repeat("1) == (", n), "'b'"),
    "a last line of brackets": (lambda n: "x\n" + _repeat(") ] ", n) + "a", ") ]"),
    # review json4, item 14: an assertion's right side then a space run was quadratic
    "an assertion then a space run": (lambda n: "So the answer is f('a') == 'b" + " " * n + "'",
                                      "'abc'"),
    # review json4: literals and bracket runs written in prose, CRUXEval's answer blocks
    "literals left open in prose": (lambda n: "The output is " + _repeat("['a', (\"b ", n), "'b'"),
    "quotes and words in prose": (lambda n: "It's " + _repeat("x' 'y, don't ", n), "'y'"),
    "bracket runs in prose": (lambda n: "Output: " + _repeat(") ] } a) > ", n), ") ]"),
    "answer blocks left open": (lambda n: _repeat("[ANSWER] 'a' ", n), "'a'"),
    # review numbers probes (third session): remarks and consequences after a value, list
    # items and factorials, a pointing clause, precisions asked for
    "remarks and consequences after a value": (lambda n: "So it is " + _repeat(
        "5, which is 4, so 6 ", n), "5"),
    "list items and factorials": (lambda n: _repeat("- 12 apples\n6! = 720 ", n), "720"),
    "a pointing clause": (lambda n: "The answer is as follows. " + _repeat("There are 12 birds ", n), "12"),
    "precisions asked for": (lambda n: "The result is " + _repeat("45.6 to 3 significant figures ", n), "3"),
    "a value then a remark": (lambda n: "It is 20" + _repeat(", which is", n), "20"),
    # review numbers5: a value written again after "which is", a closing remark giving a value
    "a value written again": (lambda n: "The answer is 5 km, which is " + _repeat("5000 ", n), "5"),
    "a closing remark giving a value": (lambda n: "The value is 10. This is calculated " + _repeat(
        "again ", n) + "giving 12.", "12"),
    # quotes around a candidate are stripped as pairs, a few at most
    "quotes around an answer": (lambda n: "The answer is " + "'" * n + "x" + "'" * n, "'x'"),
    "empty values named in words": (lambda n: "The output is " + _repeat("an empty string ", n), "''"),
    "empty values returned in one long sentence": (lambda n: "It returns an empty list " + _repeat("x ", n), "[]"),
}


@pytest.mark.parametrize("shape", sorted(MMMU_SHAPES))
def test_mmmu_open_match_is_linear(shape):
    from bench_kit.scoring.metrics.answers import mmmu_open_match

    make, gold = MMMU_SHAPES[shape]
    assert_linear(shape, make(100_000), make(200_000),
                  lambda text: mmmu_open_match(text, [gold]), rounds=2)


# review json4, item 14: the assertion in a JSON answer field (the raw response passed)
RAW_SHAPES = {
    "an assertion then a space run in a JSON answer": (
        lambda n: '{"answer": "assert f(\'a\') == \'b' + " " * n + '\'"}', "'abc'"),
    "a JSON placeholder with a long blank": (lambda n: '{"answer": "[' + "e" * n + ' 1]"}', "'e'"),
    "JSON single-quoted strings left open": (lambda n: _repeat("{\"answer\": 'a ", n) + " x", "'a'"),
    # a blank answer field: the reasoning field is read; a list of strings; the raw last candidate
    "a placeholder after a long reasoning field": (lambda n: '{"reasoning": "' + _repeat(
        'x \\"y\\" ', n) + '", "answer": "[answer]"}', "'x'"),
    "reasoning fields repeated": (lambda n: _repeat('{"reasoning": "a", ', n) + '"answer": "..."}', "'a'"),
    "a JSON list of many strings": (lambda n: '{"answer": [' + _repeat('"a", ', n) + '"b"]}', "a, b"),
    "a literal the cleaning changes": (lambda n: "The output is '$" + _repeat("1 ", n) + "'.", "'$1'"),
}


@pytest.mark.parametrize("shape", sorted(RAW_SHAPES))
def test_mmmu_open_match_with_raw_is_linear(shape):
    from bench_kit.scoring.extract.response import clean_response
    from bench_kit.scoring.metrics.answers import mmmu_open_match

    make, gold = RAW_SHAPES[shape]
    assert_linear(shape, make(100_000), make(200_000),
                  lambda text: mmmu_open_match(clean_response(text), [gold], raw=text), rounds=2)


# Runs of blanks (issue 25, the space fuzz `benchmarks/space_fuzz.py`): adjacent `\s*` split only
# by optional tokens backtracked through the run when what follows it fails the match.
def _blanks(unit: str, n: int) -> str:
    return unit * (n // len(unit))


ECHO_QUESTION = "请根据给定的一个诉方观点，从A,B,C,D,E五个辩方候选观点中选出可以与之形成争议观点的一个。"
BLANK_SHAPES = {
    "选项A、C then spaces": (lambda n: "选项A、C" + _blanks(" ", n) + "x", None),
    "选项A then spaces and newlines": (lambda n: "选项A" + _blanks(" \n", n) + "x", None),
    "答案 then spaces": (lambda n: "答案" + _blanks(" ", n) + "x", None),
    "例如答案 then spaces": (lambda n: "例如答案" + _blanks(" ", n) + "x", None),
    "(A) then spaces": (lambda n: "(A)" + _blanks(" ", n) + "x", None),
    "a letter then newlines": (lambda n: "A" + _blanks("\n", n) + "x", None),
    "a letter line then spaces and newlines": (lambda n: "A." + _blanks(" \n", n) + "x", None),
    "an answer clause, spaces, a letter line": (lambda n: "The answer is" + _blanks(" ", n) + "\nB", None),
    "Chinese option lines with spaces": (lambda n: "A:红色的猫。" + _blanks(" ", n) + "\nB:蓝色的车。", None),
    "the other options then spaces": (lambda n: "The other options" + _blanks(" ", n) + " are red cat", None),
    "two options named, spaces, a full stop": (lambda n: "It is the red cat and the blue car"
                                                + _blanks(" ", n) + ".", None),
    "an echoed clause split by spaces": (lambda n: "请根据给定的一个诉方观点，" + _blanks(" ", n)
                                         + ECHO_QUESTION[13:], ECHO_QUESTION),
    "an echoed clause, then letter runs": (lambda n: ECHO_QUESTION[13:-1] + "，" + _blanks("A,B ", n),
                                           ECHO_QUESTION),
}


@pytest.mark.parametrize("shape", sorted(BLANK_SHAPES))
def test_runs_of_blanks_are_linear(shape):
    make, question = BLANK_SHAPES[shape]
    choices = dict(zip("ABCDE", ("red cat", "blue car", "green tree", "Vitamin C", "pink bus")))
    assert_linear(shape, make(100_000), make(200_000),
                  lambda text: extract_choice(text, choices if question else CHOICES, question), rounds=2)


def test_a_late_letter_then_spaces_is_linear():
    from bench_kit.scoring.extract.choice_clause import late_letter, option_keys

    options = option_keys(WIDE_CHOICES)
    assert_linear("late letter, spaces", "The answer is (K)" + " " * 100_000 + "x",
                  "The answer is (K)" + " " * 200_000 + "x", lambda text: late_letter(text, options))


BLANK_NUMBER_SHAPES = {
    "dates repeated": lambda n: _repeat("2018年12月，", n),
    "a value, a comma, spaces": lambda n: "The final value is 1," + " " * n + " as there is one",
    "a stating verb, spaces, a list": lambda n: "The final list is" + " " * n + " [0.0, 1.0].",
    "an answer slot label, spaces": lambda n: "【解析】" + " " * n + "\nx<eoa>",
}


@pytest.mark.parametrize("shape", sorted(BLANK_NUMBER_SHAPES))
def test_answer_number_on_runs_of_blanks_is_linear(shape):
    from bench_kit.scoring.extract.numbers import answer_number

    make = BLANK_NUMBER_SHAPES[shape]
    assert_linear(shape, make(100_000), make(200_000), answer_number, rounds=2)
