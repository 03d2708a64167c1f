"""The closing-line and JSON-answer rules of bench_kit/scoring/extract/response.py pinned
case by case (mutation testing, benchmarks/mutation.py target `extract`):
`final_answer_line` (where a closing line may open, the last of two, the sentence end, the
six-word bound, the statement words, the last "="), `_json_answer` (the last field, bare
numbers, escapes, the trimmed blanks, placeholders, an answer clause after the object) and
`sentence_start`. Every expected value is worked out by hand from the rule in the
function's docstring and docs/METRICS.md ("Cleaning"; `mmmu_open`'s closing-line row), in
the comment beside it; none is computed by the code under test."""

from __future__ import annotations

import pytest

from bench_kit.scoring.extract.answer_clause import clause_tail_at, may_have_clause, sentence_start
from bench_kit.scoring.extract.response import (
    _MADE,
    PARSE_OK,
    Extraction,
    _json_answer,
    clean_response,
    extraction,
    final_answer_line,
)

# --- final_answer_line ------------------------------------------------------------------


@pytest.mark.parametrize("text, expected", [
    # the closing line "A: <answer>" after the working
    ("Work: 3 * 12.\nA: 36", "36"),
    # the LAST line of three: an earlier line is not the closing line
    ("Step 1: 3 * 4 = 12\nStep 2: 12 * 3 = 36\nA: 36", "36"),
    # trailing blank lines and spaces are not the last line
    ("Work.\nA: 36\n\n  ", "36"),
    # a closing line that is not the last line states nothing
    ("A: 36\nThe width is 12.", None),
    # one line alone is its own last line
    ("Answer: 36", "36"),
    ("Final answer: 36", "36"),
    ("ANSWER: 36", "36"),                  # the answer clause is case-blind
    ("A : 36", "36"),                      # spaces before the colon
    ("A\uff1a36", "36"),                   # a full-width colon
    ("\u7b54\u6848:36\u3002\u5176\u4e2d", "36"),  # "答案:36。其中": cut at "。"
    # GSM8K's gold marker, with or without a space, but only opening the line
    ("#### 72", "72"),
    ("####72", "72"),
    ("Total. #### 72", None),
])
def test_the_closing_line_is_the_last_line(text, expected):
    assert final_answer_line(text) == expected


@pytest.mark.parametrize("text, expected", [
    # the last sentence of the line opens after ". ", "! " or "? " (spaces or a tab)
    ("I added them. Answer: 42", "42"),
    ("Done! Answer: 42", "42"),
    ("Right? Answer: 42", "42"),
    ("Done.\tAnswer: 42", "42"),
    # a clause that does not open the line or a sentence of it is no closing line
    ("so Answer: 42", None),
    # a full stop with no space after it ends no sentence ("3.5")
    ("Done.Answer: 42", None),
    # two closing sentences on the line: the last one counts ("1" with the first)
    ("A: 1. Answer: 2", "2"),
])
def test_the_closing_sentence_of_the_line(text, expected):
    assert final_answer_line(text) == expected


@pytest.mark.parametrize("text, expected", [
    # cut at the sentence end: ". " (the comment's own example), "!", ";", "." at the end
    ("A: 36. Note that 12 is the width.", "36"),
    ("A: 36!", "36"),
    ("A: 36; the width is 12", "36"),
    ("A: 3.5.", "3.5"),                    # a decimal point is no sentence end
    ("A: 3.5", "3.5"),
    ("A: 36 .", "36"),                     # the piece before the cut is stripped
])
def test_the_answer_is_cut_at_its_sentence_end(text, expected):
    assert final_answer_line(text) == expected


@pytest.mark.parametrize("text, expected", [
    # six words after the last "=" (or in the whole answer) are a value, seven are not
    ("A: the red brick house on Elm", "the red brick house on Elm"),
    ("A: the red brick house on Elm Street", None),
    # only what follows the last "=" is counted: nine words before it do not matter
    ("A: total = 3 apples plus 4 pears and 5 plums = 12",
     "total = 3 apples plus 4 pears and 5 plums = 12"),
    # the whole answer is returned, the calculation with its result (mmmu_open reads it)
    ("Answer: 3 * 12 = 36", "3 * 12 = 36"),
    # a statement word before the last "=" is not read: "1:2 = 0.5" ends on a value
    ("A: The ratio is 1:2 = 0.5", "The ratio is 1:2 = 0.5"),
    # nothing after the last "=", or nothing at all: no value
    ("A: 3 * 12 =", None),
    ("A: 3 * 12 = .", None),
    ("A:", None),
    ("Answer: .", None),
])
def test_the_value_after_the_last_equals_sign(text, expected):
    assert final_answer_line(text) == expected


@pytest.mark.parametrize("text, expected", [
    # the docstring's two statements
    ("A: Option B is incorrect.", None),
    ("A: 12 would be wrong.", None),
    ("A: 12 WOULD be wrong.", None),       # statement words are case-blind
    ("A: it cannot be 12", None),
    ("A: 12 has 3 digits", None),          # "has" (in the second half of the list)
    # a statement word inside another word is no statement word
    ("A: Paris", "Paris"),
    ("A: Nothing", "Nothing"),
])
def test_a_statement_is_no_closing_value(text, expected):
    assert final_answer_line(text) == expected


# --- _json_answer and clean_response's JSON answer ---------------------------------------

_JSON = '{"reasoning": "12 * 3", "answer": "36"}'


@pytest.mark.parametrize("text, expected", [
    (_JSON, "36"),
    # the last "answer" field of two
    ('{"answer": "1"}\n{"answer": "2"}', "2"),
    # a bare JSON number (sign, leading point, exponent)
    ('{"answer": 42}', "42"),
    ('{"answer": -0.5}', "-0.5"),
    ('{"answer": .5}', ".5"),
    ('{"answer": 1e3}', "1e3"),
    # escapes are read: \" is a quote, \u00e9 is é, \n a line break
    (r'{"answer": "a\"b"}', 'a"b'),
    (r'{"answer": "\u00e9t\u00e9"}', "\u00e9t\u00e9"),
    (r'{"answer": "x\ny"}', "x\ny"),
    # an escape JSON cannot read is kept as written
    (r'{"answer": "\x41"}', r"\x41"),
    # template blanks, spaces and quotes around the value are trimmed, nothing else
    ('{"answer": "___3___"}', "3"),
    ('{"answer": " 42 "}', "42"),
    (r'{"answer": "\"42\""}', "42"),
    ('{"answer": "XL"}', "XL"),
    ('{"answer": "Paris..."}', "Paris..."),  # a value with dots is no placeholder
    # spaces around the colon
    ('{"answer" :  "7"}', "7"),
])
def test_the_json_answer_field_is_the_answer(text, expected):
    assert _json_answer(text) == expected


@pytest.mark.parametrize("value", [
    "", "   ", "___", "<number>", "<your answer>", "...", "..", "\u2026", "N/A", "n/a",
    "[answer]",
])
def test_an_empty_field_or_a_placeholder_is_no_answer(value):
    text = '{"reasoning": "no idea", "answer": "' + value + '"}'
    # a blank reads the reasoning field; "N/A" declines: the response is read as it is
    assert _json_answer(text) == (text if value.lower() == "n/a" else "no idea")
    alone = '{"answer": "' + value + '"}'
    assert _json_answer(alone) == alone  # no reasoning field: the response as it is


def test_no_answer_field_leaves_the_text():
    # "Answer" with a capital and an unquoted answer are not the JSON field
    for text in ['{"Answer": "36"}', "answer: 36", '{"answers": "36"}']:
        assert _json_answer(text) == text


def test_an_answer_clause_stating_a_number_after_the_object_overrides_it():
    # METRICS.md's example: the prose after the object revises it
    text = '{"answer": "128"} Thus, the final answer is 720 minutes.'
    assert _json_answer(text) == text
    # the clause's tail "720 minutes" holds a digit (not only digits)
    text = '{"answer": "128"} The answer is 720 min.'
    assert _json_answer(text) == text


def test_an_answer_clause_without_a_number_after_the_object_does_not():
    # the clause's tail "clear" states no number: the field stands
    assert _json_answer('{"answer": "128"} So the answer is clear.') == "128"
    # a clause with a number BEFORE the object does not count
    assert _json_answer('The answer is 5. {"answer": "7"}') == "7"


def test_clean_response_keeps_the_json_answer():
    assert clean_response(_JSON) == "36"
    assert clean_response('{"answer": "<number>"}') == '{"answer": "<number>"}'
    # the word "answer" in quotes with no field after it: the text as it is
    text = 'The word "answer" has six letters.'
    assert clean_response(text) == text


# --- sentence_start -----------------------------------------------------------------------


@pytest.mark.parametrize("text, at, expected", [
    # the sentence opens right after its stop mark: the "." of ". " (its space is the
    # sentence's leading blank, which the callers' searches pass over) or the line break
    ("One. Two", 6, 4),          # ". " at 3-4: after the "." at 3
    ("One! Two", 6, 4),
    ("One? Two", 6, 4),
    ("One\nTwo", 5, 4),          # after the line break at 3
    ("One Two", 5, 0),           # no break: 0
    ("a. b. c", 3, 2),           # the last break BEFORE `at` (". " at 1; the one at 4 is after)
    ("a. b. c", 6, 5),           # the last of two breaks before `at` (". " at 4)
    (". x", 2, 1),               # a break at offset 0 counts
    ("\nx", 1, 1),
    ("3.5 is it", 6, 0),         # "." with no space after it is no sentence end
])
def test_sentence_start(text, at, expected):
    assert sentence_start(text, at) == expected


# --- clause_tail_at's offset --------------------------------------------------------------


def test_the_clause_tail_offset_is_where_the_tail_starts():
    # "The answer is B .": the clause "answer is" ends at 13, the tail "B" starts at 14
    # (after the skipped space); the space before the "." is stripped off the tail and
    # does not move its start
    assert clause_tail_at("The answer is B .") == ("B", 14)


# --- extraction: shared, bounded ----------------------------------------------------------


def test_extraction_is_the_dataclass_and_is_shared():
    # a value no test asks for, so the first call builds it (not an entry left by others)
    value = "a value only this test asks for"
    made = extraction(value, PARSE_OK)
    assert made == Extraction(value, PARSE_OK)
    assert (made.value, made.parse, made.detail) == (value, "ok", "")
    assert extraction(value, PARSE_OK) is made  # the second call shares the first's


def test_the_shared_extractions_are_bounded():
    _MADE.clear()
    try:
        for n in range(4096):
            extraction(f"bound {n}", PARSE_OK)
        assert len(_MADE) == 4096  # 4096 entries fit: emptied only when full at 4096
        extraction("bound 4096", PARSE_OK)
        assert len(_MADE) == 1     # full: emptied, then the new one stored
    finally:
        _MADE.clear()


# --- may_have_clause ----------------------------------------------------------------------


def test_may_have_clause_is_false_without_a_keyword():
    # the docstring: False when the text cannot hold an answer clause (no keyword in it)
    assert may_have_clause("It is 42.") is False
    assert may_have_clause("The ANSWER is 42.") is True   # the keywords are case-blind
    assert may_have_clause("\u7b54\u6848\uff1a42") is True  # "答案：42"
    # a caller's extra keys are keywords too
    assert may_have_clause("I choose B", ("choose",)) is True
    assert may_have_clause("I choose B") is False
