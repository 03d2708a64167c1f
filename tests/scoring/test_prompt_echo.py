"""The prompt's instruction written again in a response (bench_kit/scoring/extract/prompt_echo.py,
docs/METRICS.md "Extraction"): its letters are no answer. These cases live here, not in
tests/cases/extract_choice.json, because the case table's inputs also feed
test_extract_fast.py's anchored-vs-full answer-clause check, which "[正确答案]A<eoa>" shapes
trip on (the two scans end one space apart: a known discrepancy of answer_clause, not of
this rule)."""

from __future__ import annotations

import pytest

from bench_kit.scoring.extract.answers import extract_choice_detailed

QUESTION = "请你运用法律知识从A,B,C,D中选出一个正确的答案，并写在[正确答案]和<eoa>之间。例如[正确答案]A<eoa>。请你严格按照这个格式回答。\n搬家途中，蒙某从车上坠地受伤。下列哪一选项是正确的?A:应由郭某承担赔偿责任;B:应由甲公司承担赔偿责任;C:应由甲公司与郭某承担连带责任;D:应由甲公司与徐某承担连带责任。"
CHOICES = {"A": "应由郭某承担赔偿责任", "B": "应由甲公司承担赔偿责任", "C": "应由甲公司与郭某承担连带责任", "D": "应由甲公司与徐某承担连带责任"}

CASES = [
    ("请你运用法律知识从A,B,C,D中选出一个正确的答案，并写在[正确答案]和<eoa>之间。例如[正确答案]A<eoa>。请你严格按照这个格式回答。",
     None, "failed"),  # the instruction and its answer template written again, nothing else, is no answer
    ("请从A,B,C,D中选出一个正确的答案，并写在[正确答案]和<eoa>之间。",
     None, "failed"),  # the instruction reworded around an echoed clause; its letter list names no answer
    ("[正确答案]B<eoa>\n\n请你运用法律知识从A,B,C,D中选出一个正确的答案，并写在[正确答案]和<eoa>之间。例如[正确答案]A<eoa>。请你严格按照这个格式回答。\n案件发生时，下列哪一选项是正确的?A:甲;B:乙;C:丙;D:丁。\n\n[正确答案]D<eoa>",
     "B", "ok"),  # an answer before the echoed instruction counts; the new question written after it and its answer do not
    ("请你运用法律知识从A,B,C,D中选出一个正确的答案，并写在[正确答案]和<eoa>之间。例如[正确答案]A<eoa>。\n[正确答案]C<eoa>",
     "C", "ok"),  # the instruction written again, then the response's own answer
    ("[正确答案]A<eoa>",
     "A", "ok"),  # kept: the answer template filled in as the answer is an answer, not an echo of the example
    ("D:应由甲公司与徐某承担连带责任。",
     "D", "ok"),  # kept: one option written out with its letter is an answer, though the question holds it
    ("请从A,B,C,D中选出一个正确的答案。\n选项A、B、C、D都是正确的说法。",
     None, "failed"),  # kept: the option letters listed in a verdict, not the instruction's words, are read as before
]


@pytest.mark.parametrize(("response", "expected", "parse"), CASES)
def test_prompt_echo(response, expected, parse):
    found = extract_choice_detailed(response, CHOICES, QUESTION)
    assert (found.value, found.parse) == (expected, parse)
