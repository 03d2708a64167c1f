"""Pins of scoring/extract/prompt_echo.py that tests/scoring/test_prompt_echo.py leaves open
(mutation testing, benchmarks/mutation.py target `extract_prompt_echo`). Every expected value
is worked out by hand from the module's docstrings and docs/METRICS.md ("Extraction": a model
that writes its prompt's instruction again), offsets counted in the comment beside it."""

from __future__ import annotations

import pytest

from bench_kit.scoring.extract.prompt_echo import echoed_clauses, without_echo

OPTIONS = ["甲", "乙", "丙", "丁"]
# clauses: "请从A,B,C,D中选出一个正确的答案" (19), "并写在[正确答案]和<eoa>之间" (17),
# "例如[正确答案]A<eoa>" (14); its letter run "A,B,C,D" is followed by "中选出一个正确的答案"
INSTRUCTION = "请从A,B,C,D中选出一个正确的答案，并写在[正确答案]和<eoa>之间。例如[正确答案]A<eoa>。"


def test_a_clause_of_eight_characters_is_an_echo_and_seven_is_not():
    # "clauses (eight characters or more)": "例如答案是A选项" is 8 characters and names A
    question = "例如答案是A选项。下列哪个动物是猫？"
    assert echoed_clauses("例如答案是A选项。我选B。", question, ["狗", "猫"]) == [(0, 8)]
    # "例如答案A选项" is 7: too short to be an echo, nothing blanked
    question = "例如答案A选项。下列哪个动物是猫？"
    assert echoed_clauses("例如答案A选项。我选B。", question, ["狗", "猫"]) == []


def test_a_clause_that_is_an_options_own_text_is_no_echo():
    # "nor words of an option's text": the question's clause "维生素C能预防坏血病" (10
    # characters, names C) is option A's text, so writing it is an answer, not an echo
    question = "维生素C能预防坏血病，这个说法对吗？"
    response = "维生素C能预防坏血病。"
    assert echoed_clauses(response, question, ["维生素C能预防坏血病", "维生素C不能预防坏血病"]) == []
    # ... with other options the same clause is an echo: span (0, 10)
    assert echoed_clauses(response, question, ["对", "错"]) == [(0, 10)]


def test_letter_runs_listed_as_the_question_lists_them_outside_the_echo():
    # the echoed "例如[正确答案]A<eoa>" is (0, 14); "。从" then the run "A,B,C,D" at 16-23 with
    # the question's words after it ("中选出一个正确的答案") is the instruction reworded: blanked;
    # "A,B" followed by "都不对" is not listed so in the question: kept
    response = "例如[正确答案]A<eoa>。从A,B,C,D中选出一个正确的答案。我认为A,B都不对，选C。"
    assert echoed_clauses(response, INSTRUCTION, OPTIONS) == [(0, 14), (16, 23)]


def test_a_run_with_other_letters_than_the_questions_is_kept():
    # the question's run is "A,B,C,D"; "A,B" with the same words after it is not the letters
    # "as the question lists them": only the echoed template (0, 14) is blanked
    response = "例如[正确答案]A<eoa>。从A,B中选出一个正确的答案。"
    assert echoed_clauses(response, INSTRUCTION, OPTIONS) == [(0, 14)]


def test_a_run_inside_an_echoed_clause_is_not_listed_again():
    # the whole clause "请从A,B,C,D中选出一个正确的答案" (0, 19) is echoed; its run (2-9) lies
    # inside it, so it adds no span of its own
    response = "请从A,B,C,D中选出一个正确的答案。选C。"
    assert echoed_clauses(response, INSTRUCTION, OPTIONS) == [(0, 19)]
    # a run at the echoed clause's very start (offset 0) is inside it too
    question = "下面的题目，A,B,C,D中选出一个正确的答案。"
    assert echoed_clauses("A,B,C,D中选出一个正确的答案。选C。", question, OPTIONS) == [(0, 17)]


def test_ten_option_letters_up_to_j():
    # an instruction over ten options, A to J; the echoed clause "并写在[正确答案]和<eoa>之间"
    # (0-17) names no capital letter A-J, so it is not blanked itself, but the run after "。从"
    # (19-38) is the question's "A,…,J" with its words: blanked
    question = "请从A,B,C,D,E,F,G,H,I,J中选出一个正确的答案，并写在[正确答案]和<eoa>之间。"
    response = "并写在[正确答案]和<eoa>之间。从A,B,C,D,E,F,G,H,I,J中选出一个正确的答案。"
    assert echoed_clauses(response, question, OPTIONS) == [(19, 38)]
    # nine letters, A to I, are not the question's list: kept
    response = "并写在[正确答案]和<eoa>之间。从A,B,C,D,E,F,G,H,I中选出一个正确的答案。"
    assert echoed_clauses(response, question, OPTIONS) == []


def test_without_echo_keeps_the_offsets():
    # "the spans blanked (spaces keep the offsets)": one space per blanked character
    assert without_echo("ab中间cd", [(2, 4)]) == "ab  cd"
    # two spans, the text between and after them kept
    assert without_echo("0123456789", [(1, 3), (5, 8)]) == "0  34   89"
    assert without_echo("abc", []) == "abc"


# --- the module's patterns (mutmut plants no mutant in module-level patterns: these cases
# hold their marks and separators one by one)


@pytest.mark.parametrize("mark", ["\n", ";", "；", "！", "?"])
def test_a_clause_ends_at_each_clause_mark(mark):
    # clauses are "between clause marks": "例如答案是A选项" (8) then a mark is the question's
    # clause written again, (0, 8), whatever mark ends it in the response
    question = "例如答案是A选项。下列哪个动物是猫？"
    assert echoed_clauses("例如答案是A选项" + mark + "我选B", question, ["狗", "猫"]) == [(0, 8)]


def test_a_full_stop_inside_a_number_does_not_end_a_clause():
    # "nor a full stop inside a number": "例如答案是A得3.5分" is one clause of 11 characters
    question = "例如答案是A得3.5分。下列哪个动物是猫？"
    assert echoed_clauses("例如答案是A得3.5分。我选B。", question, ["狗", "猫"]) == [(0, 11)]


@pytest.mark.parametrize("line", ["D：应由甲公司与徐某承担连带责任", "D:应由甲公司与徐某承担连带责任",
                                  "(D) 应由甲公司与徐某承担连带责任", "【D】、应由甲公司与徐某承担连带责任"])
def test_one_option_written_out_with_its_letter_is_no_echo(line):
    # "not a clause that is one option written out with its letter" (a full-width or ASCII
    # colon, the letter in brackets): the response's answer, though the question holds it
    question = "下列说法正确的是？" + line + "；E：其他。"
    options = ["应由郭某承担赔偿责任", "应由甲公司与徐某承担连带责任"]
    assert echoed_clauses(line + "。", question, options) == []


# (not "，": it is also a clause mark, so "D中选出一个正确的答案" is an echoed clause of its own
# that overlaps the run's span; see docs/TESTING.md)
@pytest.mark.parametrize("separator", [",", "、", "/", ", "])
def test_letter_runs_with_each_separator(separator):
    # "A,B,C,D", "A、B、C、D" ...: the letters listed in order, each separator of the run;
    # after the echoed "并写在[正确答案]和<eoa>之间" (17) and "。从" the run starts at 19
    run = separator.join("ABCD")
    question = "请从" + run + "中选出一个正确的答案，并写在[正确答案]和<eoa>之间。"
    response = "并写在[正确答案]和<eoa>之间。从" + run + "中选出一个正确的答案。"
    assert echoed_clauses(response, question, OPTIONS) == [(19, 19 + len(run))]


def test_a_clause_naming_j_names_a_letter():
    # the letters are A to J (ten options): an echoed clause naming only J is blanked
    question = "例如答案是J选项。下列哪个动物是猫？"
    assert echoed_clauses("例如答案是J选项。我选B。", question, ["狗", "猫"]) == [(0, 8)]
