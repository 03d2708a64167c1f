"""The fast paths of extract/answer_clause.py and no_answer.py pinned case by case (issue 29):
where a clause may start (`_starts_near`), the keyword positions on both sides of the
160-character switch, the clause search's rare full-scan branch (text whose lower-casing
changes length, "İ"), the windowed refusal search's same branch, and the edges of
`clean_response`, `clause_tail` and `pick_candidate`. Every expected value is worked out
by hand in the comment beside it (offsets counted character by character); none is
computed by the code under test."""

from __future__ import annotations

import re

import pytest

from bench_kit.scoring.extract.answer_clause import (
    _CLAUSE_KEYS,
    ANSWER_CLAUSE,
    _keys_pattern,
    _keyword_positions,
    _starts_near,
    clause_tail,
    last_clause,
)
from bench_kit.scoring.extract.choice_clause import CHOICE_CLAUSE, CHOICE_KEYS
from bench_kit.scoring.extract.continuation import first_block
from bench_kit.scoring.extract.no_answer import last_refusal
from bench_kit.scoring.extract.response import answer_text, clean_response, pick_candidate
from bench_kit.scoring.extract.truncation import line_loop_start


def _effective(text: str, at: int) -> list[int]:
    """The start offsets as `re.match` reads them: a negative offset is 0."""
    return sorted({max(0, start) for start in _starts_near(text, at)})


@pytest.mark.parametrize("text, at, expected", [
    # "a b c d answer": a0 b2 c4 d6, the keyword at 8. Three words back (d, c, b), not a
    # fourth (a); each word start found after skipping one space.
    ("a b c d answer", 8, [2, 4, 6, 8]),
    # "(" is neither a space nor a word character: no step back at all
    ("x(answer", 2, [2]),
    # "(,answer": the comma at 1 is skipped, "(" at 0 stops the word -> a start at 1; then
    # the text's start (0)
    ("(,answer", 2, [0, 1, 2]),
    # a space run at offset 0 is skipped to the text's start
    (" answer", 1, [0, 1]),
    # a one-letter word at offset 0: "I choose", the keyword at 2
    ("I choose B", 2, [0, 2]),
    # the apostrophe belongs to the word: "I'd" is one word starting at 0, not "d" at 2
    ("I'd choose B", 4, [0, 4]),
    # "a X answer": a0 X2, "X" is a word, not a separator
    ("a X answer", 4, [0, 2, 4]),
    # CJK: 所0 以1 正2 确3 选4 项5 是6 B7. The word loop runs back through the whole CJK run
    # (every CJK character is alphanumeric) to 0; the CJK rule adds at - 2 = 2, at - 1 = 3
    ("所以正确选项是B", 4, [0, 2, 3, 4]),
    # 正0 确1 选2 B3: the keyword at exactly 2 still gets the CJK rule (0 and 1); the
    # character after the keyword (ASCII "B") does not matter, the one before (确) does
    ("正确选B", 2, [0, 1, 2]),
    # o0 k1 ，2 选3: a full-width comma before the keyword is not a word and not an ASCII
    # separator (no step back), but it is non-ASCII: at - 2 = 1, at - 1 = 2; "k" at at - 2
    # being ASCII does not matter
    ("ok，选B", 3, [1, 2, 3]),
])
def test_where_a_clause_may_start(text, at, expected):
    assert _effective(text, at) == expected


def test_a_clause_starting_one_word_before_its_keyword_at_offset_0():
    # "I choose B": the keyword "choose" at 2; the clause "I choose B" starts at 0 and ends
    # after "B" (9) -> span (0, 10)
    assert last_clause("I choose B", CHOICE_CLAUSE, CHOICE_KEYS).span() == (0, 10)


def test_a_chinese_clause_starting_two_characters_before_its_keyword():
    # 所0 以1 正2 确3 选4 项5 是6 B7: "正确选项是" (2-7) is the clause, its keyword 选 at 4;
    # the word loop alone reaches 0 ("所以…", no clause) -> the tail "B"
    assert answer_text("所以正确选项是B") == "B"


def test_keys_are_matched_as_literals():
    # "axb a.b c": a0 x1 b2, a4 .5 b6, c8. "a.b" as a literal matches at 4 only (as a
    # regex it would match "axb" at 0 too)
    assert [m.start() for m in _keys_pattern(("a.b", "c")).finditer("axb a.b c")] == [4, 8]


@pytest.mark.parametrize("length, expected", [
    # "x" * 152 + "meanswer": 160 characters, the long path (one rfind per keyword): both
    # "mean" (152) and "answer" (154), last first
    (160, [154, 152]),
    # 159 characters: one regex pass, whose matches do not overlap: "mean" (151) takes the
    # characters of "answer" (153)
    (159, [151]),
])
def test_keyword_positions_switch_at_160_characters(length, expected):
    text = "x" * (length - 8) + "meanswer"
    assert list(_keyword_positions(text, CHOICE_KEYS)) == expected


def test_a_keyword_at_offset_0_of_a_long_text_is_found():
    # "answer" (0-5), " x" * 80 (6-165), " answer" (166-172): 173 characters, the long
    # path; the keyword at 167 first, then the one at 0
    text = "answer" + " x" * 80 + " answer"
    assert list(_keyword_positions(text, _CLAUSE_KEYS)) == [167, 0]


def test_a_clause_before_a_later_keyword_is_still_found():
    # The later keyword "answer" (19) is tried first: the clause "best option is" (4-18)
    # starts within its three words back but ends before it, so it is not that keyword's
    # clause; it is the clause of "option" (9) and must still be found for it. The full
    # scan's last match is (4, 18); the tail is "answer C" (to the final ".").
    text = "The best option is answer C."
    assert last_clause(text, ANSWER_CLAUSE, _CLAUSE_KEYS).span() == (4, 18)
    assert clause_tail(text) == "answer C"


# --- "İ" lower-cases to two characters: the offsets move, the whole text is scanned ----

def test_a_text_whose_lower_casing_changes_length_is_scanned_whole():
    # İ 0-29, " " 30, "answer" 31-36, " " 37, "is" 38-39, " " 40, "B" 41, "." 42, then
    # " x" pairs from 43: the clause "answer is" spans (31, 40). On the lower-cased text
    # (each İ two characters) "answer" sits at 61, in the x's: read there, no clause.
    text = "İ" * 30 + " answer is B." + " x" * 40
    assert last_clause(text, ANSWER_CLAUSE, _CLAUSE_KEYS).span() == (31, 40)
    assert clause_tail(text) == "B"


def test_a_text_with_a_keyword_but_no_clause_has_none():
    # "İ answer": the keyword without "is" / ":" / "=" after it is no clause
    assert last_clause("İ answer", ANSWER_CLAUSE, _CLAUSE_KEYS) is None
    assert clause_tail("İ answer") is None


@pytest.mark.parametrize("prefix, shift", [("", 0), ("İ ", 2)])
def test_accept_chooses_between_two_clauses(prefix, shift):
    # "answer: A. answer: B": clauses (0, 7) and (11, 18); `accept` takes only the one
    # followed by "A", so the first wins over the last. With "İ " in front (the full-scan
    # branch) both spans move by 2.
    text = prefix + "answer: A. answer: B"

    def followed_by_a(match):
        return match.string[match.end():].lstrip()[:1] == "A"

    found = last_clause(text, ANSWER_CLAUSE, _CLAUSE_KEYS, followed_by_a)
    assert found.span() == (shift + 0, shift + 7)
    assert last_clause(text, ANSWER_CLAUSE, _CLAUSE_KEYS).span() == (shift + 11, shift + 18)


# "İ: unsure. unclear. not sure.": İ0 :1, "unsure" 3-8, "unclear" 11-17, "not sure" 20-27
REFUSALS_AFTER_I = "İ: unsure. unclear. not sure."


@pytest.mark.parametrize("start, expected", [
    (0, (20, 28)),   # three refusals: the last
    (12, (20, 28)),  # "unclear" starts at 11, before 12: "not sure" is the only one left
    (21, None),      # "not sure" starts at 20, before 21: none left
])
def test_refusals_in_a_text_whose_lower_casing_changes_length(start, expected):
    found = last_refusal(REFUSALS_AFTER_I, start)
    assert (found.span() if found else None) == expected


def test_a_refusal_hint_without_a_refusal_is_none():
    # "data" is a hint literal, but "İ has data." says nothing NO_ANSWER matches
    assert last_refusal("İ has data.") is None


# --- clean_response, clause_tail, pick_candidate edges --------------------------------

def test_boxed_false_unwraps_the_box_in_place():
    # boxed=False: the box is not preferred over the text, it is replaced by its content
    assert clean_response("The answer is \\boxed{B}.", boxed=False) == "The answer is B."
    assert clean_response("The answer is \\boxed{B}.") == "B"


def test_clause_tail_strips_colons_before_the_answer():
    # "Answer =" is the clause ("=" takes no colon after it); the rest " : B" loses its
    # leading space and colon -> "B"
    assert clause_tail("Answer = : B") == "B"


def test_a_candidate_starting_exactly_at_the_clause_end_is_after_it():
    # "The answer is B": the clause "answer is" spans (4, 13); a candidate at 13 (the
    # clause's end) is after it and wins over one at 14
    found = pick_candidate("The answer is B", [(2, "early"), (13, "at end"), (14, "later")])
    assert (found.value, found.parse) == ("at end", "ok")


def test_a_refusal_at_offset_0_is_found_by_default():
    # "unsure, sorry.": "unsure" spans (0, 6); the default start is 0, so it counts
    assert last_refusal("unsure, sorry.").span() == (0, 6)


# --- first_block: a worked example written after the answer -------------------------------

@pytest.mark.parametrize("text, expected", [
    # after an answer clause the first "Problem:" line ends the block; spaces before the
    # colon and the line break's trailing spaces go
    ("The answer is True\nProblem: Find x.", "The answer is True"),
    ("Answer: True  \n\n  Problem :\nFind x.", "Answer: True"),
    # "Question:" likewise, and the first of two headers after the answer cuts
    ("The answer is no.\n\nQuestion: Is it red?\nProblem: x", "The answer is no."),
    # a header before the answer clause is kept: only a header after the answer cuts
    ("Okay.\nProblem: Is 91 prime?\nThe answer is No.\nProblem: x",
     "Okay.\nProblem: Is 91 prime?\nThe answer is No."),
    # no answer clause before the header (a chat answer laid out as "Question: … Answer: …",
    # review yesno3 item 5): kept whole
    ("It is True\nProblem: Find x.", "It is True\nProblem: Find x."),
    ("Sure.\nQuestion: Is the light red?\nAnswer: Yes", "Sure.\nQuestion: Is the light red?\nAnswer: Yes"),
    # the prompt written out again (a "Choices:" line after the header) is cut all the same
    ("Here it is.\nQuestion: Is it red?\nChoices:\n(A) Yes", "Here it is."),
    # nothing of its own before the header: the response restates its problem, kept whole
    ("  \nQuestion: Is 7 prime?\nAnswer: Yes.", "  \nQuestion: Is 7 prime?\nAnswer: Yes."),
    # not at a line start, or lower-case ("problem:" in prose): no cut
    ("The answer is: The Problem: it diverges. So False.", "The answer is: The Problem: it diverges. So False."),
    ("The answer is 2. Here is the\nproblem: x is odd.", "The answer is 2. Here is the\nproblem: x is odd."),
    # a header word without its colon is a sentence
    ("Answer: Yes.\nProblem solved.", "Answer: Yes.\nProblem solved."),
    # the one header pattern (NEXT_EXAMPLE, shared with the numbers' answer_part): numbered
    # headers, "Exercise:" and a markdown heading's marks cut too
    ("The answer is True\n\nProblem 2: Find x.", "The answer is True"),
    ("The answer is False.\nExercise:\nShow that 9 is odd.", "The answer is False."),
    ("The answer is no.\n### Question 3: Is it red?", "The answer is no."),
    # a number that is not the header's ("Problem 2 asks: …" has no colon after the number)
    ("The answer is no.\nProblem 2 asks: x", "The answer is no.\nProblem 2 asks: x"),
])
def test_first_block_ends_before_the_next_worked_example(text, expected):
    assert first_block(text) == expected


@pytest.mark.parametrize("text, expected", [
    # an opening bare answer (a match of `lead`) is an answer before the header too
    ("No.\n\nQuestion: Is it red?\nProblem: x", "No."),
    # ... but not when the response opens otherwise
    ("Well.\nQuestion: Is it red?\nAnswer: No", "Well.\nQuestion: Is it red?\nAnswer: No"),
])
def test_first_block_after_an_opening_answer(text, expected):
    assert first_block(text, re.compile(r"\s*(?:yes|no)\b", re.I)) == expected


# --- line_loop_start: a block of lines written again and again until the token limit --------

@pytest.mark.parametrize("text, expected", [
    # "a\n" is 2 characters: the loop of "b\n" written 4 times starts at 2
    ("a\nb\nb\nb\nb\n", 2),
    # the last line without its break is the same line: 4 repeats, from 2
    ("a\nb\nb\nb\nb", 2),
    # 3 repeats are no loop, nor are 3 and a last line cut short ("c" for "cat")
    ("a\nb\nb\nb", None),
    ("a\ncat\ncat\ncat\nc", None),
    # 4 repeats and a fifth line cut short: from 2
    ("a\ncat\ncat\ncat\ncat\nc", 2),
    # a two-line block 4 times after "x\n" (2 characters)
    ("x\nA\nB\nA\nB\nA\nB\nA\nB\n", 2),
    # ... 3 times is none
    ("x\nA\nB\nA\nB\nA\nB\n", None),
    # blank lines are no loop
    ("x\n\n\n\n\n\n", None),
    # a six-line block 4 times is a loop; a seven-line block is not looked for
    ("x\n" + "1\n2\n3\n4\n5\n6\n" * 4, 2),
    ("x\n" + "1\n2\n3\n4\n5\n6\n7\n" * 4, None),
    # the whole text one loop: from 0
    ("ok\nok\nok\nok\n", 0),
    # lines, not words: "one  two\n" (two spaces) is 9 characters before the loop
    ("one  two\nthree\nthree\nthree\nthree", 9),
    # a complete last line that differs is no line cut short: no loop ends the text
    # (review yesno3 item 2)
    ("a\ncat\ncat\ncat\ncat\nSo yes.", None),
    ("a\n-\n-\n-\n-\nSo yes.", None),
    # the last line equal to the line it repeats is written whole, not cut
    ("a\ncat\ncat\ncat\ncat", 2),
])
def test_line_loop_start(text, expected):
    assert line_loop_start(text) == expected


@pytest.mark.parametrize("text, expected", [
    # the refusals of a reasoning's conclusion: the matched span, counted by hand
    ("It is inconclusive.", "inconclusive"),
    ("so it is difficult to conclude it", "difficult to conclude"),
    ("hard to accurately determine", "hard to accurately determine"),
    ("difficult to draw a clear conclusion here", "difficult to draw a clear conclusion"),
    ("difficult to make a definitive call", "difficult to make a definitive"),
    ("we cannot definitively conclude that", "cannot definitively conclude"),
    # drawing a conclusion is no refusal
    ("It is easy to draw a clear conclusion.", None),
    # declining the request; the hedges of a legal or moral grey zone
    ("Sorry, but I can't assist with that.", "can't assist with that"),
    ("I cannot help with this request.", "cannot help with this"),
    ("I can't provide legal advice.", "can't provide legal advice"),
    ("I don't have the capability to provide opinions.", "don't have the capability to provide opinions"),
    ("I can't provide.", "can't provide"),
    ("The law is not straightforward.", "law is not straightforward"),
    # (the span read on the lower-cased text)
    ("The legality of it in India is not straightforward.", "legality of it in india is not straightforward"),
    ("It is not straightforward to say.", "it is not straightforward to"),
    ("Online casinos are a grey area in India.", "a grey area"),
    ("It is in a legal gray area.", "legal gray area"),
    # ... but not when it names something else, nor a road, nor a colour in the image
    # (review yesno3 item 6)
    ("I can't provide its breed.", None),
    ("I don't have the ability to provide his name.", None),
    ("The road is not straightforward.", None),
    ("The gray area on the left is a wall.", None),
    ("There is a grey area in the corner.", None),
    ("It is difficult to conclude what the owner likes.", None),
    ("I cannot definitively conclude its breed.", None),
    ("It is a matter of personal opinion.", "matter of personal opinion"),
    # helping with something else, or an ability to form opinions, is no refusal
    ("I can help with that.", None),
    ("I don't have the ability to form opinions.", None),
])
def test_refusals_of_a_conclusion(text, expected):
    found = last_refusal(text)
    assert (found.group() if found else None) == expected
