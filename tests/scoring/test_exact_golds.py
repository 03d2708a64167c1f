"""Golds compared exactly (docs/METRICS.md#exact-golds): the verdict on tests/cases/exact_golds.json
as the `mmmu_open` scorer reads a response, the helpers of
`bench_kit.scoring.metrics.exact_golds`, and the JSON answer field read as written.
Expected values are worked out by hand from the responses."""

from __future__ import annotations

import pytest
from conftest import cases

from bench_kit.scoring.extract.response import _json_answer, clean_response, json_answer_value
from bench_kit.scoring.item import score_item
from bench_kit.scoring.metrics.answers import mmmu_open_match
from bench_kit.scoring.metrics.exact_golds import (
    as_written,
    exact_kind,
    exact_match,
    last_span,
    only_span,
    stated_answer,
)
from bench_kit.types import Item


@pytest.mark.parametrize("case", cases("exact_golds"))
def test_mmmu_open_match_on_exact_golds(case):
    response = case["response"]
    assert mmmu_open_match(clean_response(response), case["golds"], raw=response) \
        is case["expected"]


@pytest.mark.parametrize("gold, kind", [
    ("'n'", "literal"), ('"5000   $"', "literal"), ("''", "literal"), ('""', "literal"),
    ("['a', 'b']", "literal"), ("{'H': 1}", "literal"), ("('a',)", "literal"),
    (") ] }", "brackets"), (")", "brackets"), ("}>", "brackets"), (" ] ", "brackets"),
    # a container of numbers: compared as a value, and also the ordinary way
    ("[1, 1]", "value"), ("(3,-4)", "value"), ("[2014, 2016]", "value"), ("{1: 2}", "value"),
    ("[666]", "value"), ("[]", "value"),
    # not exact: a number, a word, a lone quote, mixed brackets
    ("8.5", None), ("True", None), ("'", None), ("(3)", None), ("[1, 1", None),
    ("'a\"", None), ("( ]", None), ("", None), ("'a' or 'b", None),
    # review json4 #4: primed math golds are no Python value; #5: a lone comparison sign
    ("(A', B')", None), ("(A',B')", None), ("(x', y')", None), ("{f', g'}", None),
    (">", None), ("<", None), (" > ", None), (">>", "brackets"), ("> >", "brackets"),
    ("[", None), ("'", None), ('"', None), ("['a'", None), ("'a']", None), (" 'a' ", None),
])
def test_exact_kind(gold, kind):
    assert exact_kind(gold) == kind


@pytest.mark.parametrize("answer, gold, kind, expected", [
    ("abc", "'abc'", "literal", True),
    ("'abc'", "'abc'", "literal", True),
    ('"abc"', "'abc'", "literal", True),
    ("Abc", "'abc'", "literal", False),
    ("abc ", "'abc'", "literal", False),
    ("a\nb", "'a\\nb'", "literal", True),  # Python writes the line break as backslash-n
    ("a\nb", "'a b'", "literal", False),
    ("", "''", "literal", True),
    (") ]", ")]", "brackets", True),
    (") ].", ") ]", "brackets", True),  # a closing period
    ("`) ]`", ") ]", "brackets", True),
    (") ] ]", ") ]", "brackets", False),
    ("\") ]\".", ") ]", "brackets", True),  # quotes inside a closing period
    (" ) ] . ", ") ]", "brackets", True),
    ("'abc'", "' abc'", "literal", False),  # only the quotes are outer, not the spaces
    # the whole assertion stated: its right side
    ("assert f('a') == 'b'", "'b'", "literal", True),
    ("f(1, [2]) == ['b']", "['b']", "literal", True),
    ("f(1)=='b' ", "'b'", "literal", True),
    ("assert f('a') == 'c'", "'b'", "literal", False),
    ("'b' == 'b'", "'b'", "literal", False),  # no call on the left: the answer as it is
    ("a == b", "'a == b'", "literal", True),
    ("assert f('a') == 'b'", ") ]", "brackets", False),
    ("f(x) == ) ]", ") ]", "brackets", False),  # an assertion is read for literals only
    # backticks around the whole answer are markdown
    ("`'abc'`", "'abc'", "literal", True),
    ("`assert f(1) == 'abc'`", "'abc'", "literal", True),
    ("`abc", "'abc'", "literal", False),
    ("abc`", "'abc'", "literal", False),
    ("`", "'`'", "literal", True),
    ("``", "''", "literal", True),
    (") ]X", ") ]", "brackets", False),  # only a period, quotes and backticks are stripped
    ("X) ]", ") ]", "brackets", False),
    ("] )", ") ]", "brackets", False),
    # review json4 #8, #10: equal Python values are right (CRUXEval's assertion)
    ('["a", "b"]', "['a', 'b']", "literal", True),
    ("['a','b']", "['a', 'b']", "literal", True),
    ("{'i': 1, 'H': 1}", "{'H': 1, 'i': 1}", "literal", True),
    ("['b', 'a']", "['a', 'b']", "literal", False),
    ("('a', 'b')", "['a', 'b']", "literal", False),  # a tuple is not a list
    ("[666, ]", "[666]", "value", True),
    ("[1,1]", "[1, 1]", "value", True),
    ("assert f(1) == [ 666 ]", "[666]", "value", True),
    ("abc", "['abc']", "literal", False),  # a word is no Python value
    ("['a'] x", "['a']", "literal", False),  # trailing words: no value
    ("'" + "a" * 10_001 + "'", "'" + "a" * 10_001 + "'", "literal", True),  # equal strings
    ("['" + "a" * 10_000 + "']", "[\"" + "a" * 10_000 + "\"]", "literal", False),  # too long to parse
])
def test_exact_match(answer, gold, kind, expected):
    assert exact_match(answer, gold, kind) is expected


def test_stated_answer_prefers_the_raw_json_value():
    raw = '{"reasoning": "So the answer is \'b\'.", "answer": "\'a\'"}'
    assert stated_answer(clean_response(raw), raw) == "'a'"
    # no raw response: the cleaned text's answer clause, then its closing line
    assert stated_answer("So the answer is 'Ab'.") == "'Ab'"
    assert stated_answer("Working.\nA: 'Ab'") == "'Ab'"
    assert stated_answer("It returns the text unchanged") is None
    # a raw response without an answer field: the cleaned text is read
    assert stated_answer("So the answer is ) ].", "So the answer is ) ].") == ") ]"
    # the clause's tail runs past a comma to the sentence's end
    assert stated_answer("So the answer is 'a, b'. Done") == "'a, b'"
    # a last line of brackets only, when nothing else states an answer
    assert stated_answer("The stack is ( [\n] ) ") == "] )"
    assert stated_answer("The stack is ( [\n] ) x") is None
    assert stated_answer("The stack is ( [\nWe close them.\n] )") == "] )"  # the last line
    assert stated_answer("] )\nThe stack is ( [") is None


def test_as_written_restores_the_case_of_the_last_occurrence():
    assert as_written("x is 'Abc', then 'ABC'", "abc") == "ABC"
    assert as_written("The output is 'Abc'", "abc") == "Abc"
    assert as_written("nothing here", "abc") is None
    # "İ" lower-cases to two characters: offsets no longer line up
    assert as_written("İ is 'Abc'", "abc") is None


@pytest.mark.parametrize("text, expected", [
    ('{"answer": "\\"R\\""}', '"R"'),  # escapes read, quotes kept
    ('{"answer": " a "}', " a "),  # nothing trimmed
    ('{"answer": ""}', ""),
    ("{\"answer\": ['a', 'b']}", "['a', 'b']"),  # a bare list, as written
    ('{"answer": [1, [2, 3]]}', "[1, [2, 3]]"),  # one level of nesting
    ("{\"answer\": {'a': 1}}", "{'a': 1}"),  # a bare object
    ('{"answer": 42}', "42"),
    ('{"answer": [1,\n2]}', None),  # a list over several lines is not read
    ('{"answer": [[[1]]]}', None),  # nor one nested deeper
    ('{"answer": "1"} Thus, the final answer is 2.', None),
    # review json4 #6, #9: a later clause stating a word or a literal overrides the value
    ('{"answer": "A"}\nSo the answer is Paris.', None),
    ('{"answer": "\'n\'"}\nSo the answer is \'m\'.', None),
    ('{"answer": "A"}\nSo the answer is New York.', None),
    # a clause tail that refers or explains states no value
    ('{"answer": "20"}\nThe final answer is corrected from the initial calculation.', "20"),
    ('{"answer": "20"}\nThe final answer is above.', "20"),
    ('{"answer": "20"}\nThe final answer is the same.', "20"),
    ('{"answer": "20"}\nThe answer is provided as a string literal.', "20"),
    # a bare list must end the field: not the list of a sentence
    ('"answer": [3, 5] under the key', None),
    ('{"answer": [3, 5]}', "[3, 5]"),
    ('{"answer": [3, 5], "x": 1}', "[3, 5]"),
    ('"answer": [3, 5]\nnext', "[3, 5]"),
    # a string in single quotes (not JSON; r6-open-01585's shape): its content, as written
    ('{"answer": \'["a", "b"]\'\n}', '["a", "b"]'),
    ("{\"answer\": 'B'}", "B"),
    ("{\"answer\": 'it's'}", None),  # a single quote inside: not read
    ("\"answer\": 'x' is", None),  # not the field's end
    # inner quotes not escaped: to the last quote of the line that a comma, brace or end follows
    ('{\n "answer": ""aCbCed""\n}', '"aCbCed"'),
    ('{"answer": "He said "hi"", "x": 1}', 'He said "hi"'),
    ('{"answer": "a"b" }', 'a"b'),
    ('"answer": "36" is what I get', "36"),  # no quote closes it later: kept
    ('"answer": "36"` and "x"', "36"),  # the later quote is followed by neither
    ('"answer": "a"b and more', "a"),  # a letter after it but no quote to close it: kept
    ("{\"answer\": ['a\\n']}", "['a\\n']"),  # a bare value's escapes are not read

    ('no field', None),
])
def test_json_answer_value(text, expected):
    assert json_answer_value(text) == expected


@pytest.mark.parametrize("value, expected", [
    ("[4]", "[4]"), ("['a']", "['a']"), ("[True, False]", "[True, False]"),
    ("[]", "r"),  # an empty list is no blank, but answers nothing: the reasoning field is read
    ("[1a]", "[1a]"),
    # a bracketed word is still a template's blank: the reasoning field is read in its place
    ("[answer]", None), ("[your answer here]", None), ("[x]", None),
    ("[1e-05]", "[1e-05]"), ("[None, -inf, nan]", "[None, -inf, nan]"),
    # review json4 #7: a template echo holding a digit or a comma is still a blank
    ("[e.g. 42]", None), ("[number, e.g., 5]", None), ("[your answer, 1-2 words]", None),
    ("[Nancy, 2]", None),  # "nan" inside a word is a word
])
def test_a_list_value_is_no_placeholder(value, expected):
    text = '{"reasoning": "r", "answer": "' + value + '"}'
    assert _json_answer(text) == ("r" if expected is None else expected)


@pytest.mark.parametrize("text, expected", [
    # a blank or empty field: the reasoning field's text, escapes read; none: the response
    ('{"reasoning": "There are \\"8\\" birds.", "answer": "<number>"}', 'There are "8" birds.'),
    ('{"reasoning": "Paris.", "answer": "___"}', "Paris."),
    ('{"answer": "[answer]"}', '{"answer": "[answer]"}'),
    ('{"reasoning": "", "answer": "..."}', '{"reasoning": "", "answer": "..."}'),
    # a reasoning field that is a blank itself, an object echoed before the answer: the response
    ('{"reasoning": "...", "answer": "..."}', '{"reasoning": "...", "answer": "..."}'),
    ('{"reasoning": "___", "answer": "___"}', '{"reasoning": "___", "answer": "___"}'),
    ('Form: {"reasoning": "r", "answer": "..."}. There are 5.', 'Form: {"reasoning": "r", "answer": "..."}. There are 5.'),
    # the last reasoning field
    ('{"reasoning": "a"} {"reasoning": "b", "answer": "..."}', "b"),
    # "N/A" declines (no blank of a template): the response, the reasoning field unread
    ('{"reasoning": "There are 8 birds.", "answer": "N/A"}', '{"reasoning": "There are 8 birds.", "answer": "N/A"}'),
    # a JSON list of strings: its items with commas; other lists as written
    ('{"answer": ["A", "C"]}', "A, C"), ('{"answer": ["3 cm", "4 cm"]}', "3 cm, 4 cm"),
    ('{"answer": [3, 4]}', "[3, 4]"), ('{"answer": ["a", 1]}', '["a", 1]'),
    ('{"answer": [["a"]]}', '[["a"]]'), ('{"answer": []}', "[]"),
    # an empty list or object: the reasoning field, else the empty value
    ('{"reasoning": "There are 3.", "answer": "[]"}', "There are 3."),
    ('{"reasoning": "There are 3.", "answer": {}}', "There are 3."),
    ('{"reasoning": "r", "answer": []} Then 4.', "[]"),
])
def test_a_blank_json_answer_reads_the_reasoning_field(text, expected):
    assert _json_answer(text) == expected


def test_the_scorer_reads_the_raw_json_value():
    raw = '```json\n{"reasoning": "Joined.", "answer": "\'*ume;*vo\'"}\n```'
    assert score_item(_item("'*ume;*vo'"), raw).hit is True
    assert score_item(_item("'*ume;*v'"), raw).hit is False


def _item(gold: str) -> Item:
    return Item.model_validate({
        "id": "q1", "question": "What does f return?", "capability": "reasoning.code",
        "layer": "reasoning", "difficulty": "easy", "created_at": "2026-11-01T00:00:00Z",
        "task": "open", "metric": "mmmu_open", "answers": [gold]})


def test_golds_that_are_not_strings_are_read_as_text():
    # a JSON items file may give a number gold as a number: read as "12", no exact kind
    assert mmmu_open_match("The answer is 12.", [12]) is True
    assert mmmu_open_match("The answer is 13.", [12]) is False


def test_an_empty_response_states_nothing():
    # no clause, no closing line, no candidate at all: wrong, not an error
    assert mmmu_open_match("", ["'a'"]) is False
    assert mmmu_open_match(" . ", [") ]"]) is False


def test_the_stated_answer_of_other_forms():
    # review json4 #1: CRUXEval's [ANSWER] block, closed or not
    assert stated_answer("[ANSWER]\nassert f('a') == 'b'\n[/ANSWER]") == "assert f('a') == 'b'"
    assert stated_answer("x [ANSWER] 'a' [/ANSWER] then [ANSWER]'b'") == "'b'"
    assert stated_answer("[ANSWER] [/ANSWER]\nSo the answer is 'c'.") == "'c'"  # an empty block
    # review json4 #11: a placeholder JSON value states nothing
    raw = '{"reasoning": "So the answer is \'c\'. Done.", "answer": "[answer]"}'
    assert stated_answer(clean_response(raw), raw) == "'c'"
    raw = '{"reasoning": "So the answer is \'c\'. Done.", "answer": "\'d\'"}'
    assert stated_answer(clean_response(raw), raw) == "'d'"


def test_the_literal_or_run_a_text_holds():
    assert only_span("['a', 'b'], since both are kept", "literal") == "['a', 'b']"
    assert only_span("'abc' or 'abd'", "literal") is None
    assert only_span("'abc' (a string)", "literal") == "'abc'"  # "(a string)" holds no quote
    assert only_span("(3, 4) (a point)", "value") is None
    assert only_span(") ] } (closing the remaining brackets)", "brackets") == ") ] }"
    assert only_span(") ] } or ] )", "brackets") is None
    assert last_span("It's f('abc'), so it returns 'cba'.", "literal") == "'cba'"
    assert last_span("The output's value isn't known", "literal") is None
    assert last_span(") ] }\n\nThese close (them) in order.", "brackets") == ") ] }"
    assert last_span("x -> y", "brackets") == ">"
    assert last_span("no brackets", "brackets") is None
    assert last_span("The point is (3, -4).", "value") == "(3, -4)"
