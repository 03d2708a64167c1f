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


def _split_first(response: str, question: str, options) -> list[tuple[int, int]]:
    """`echoed_clauses` as written before its substring pre-check: both texts split into
    clauses, every clause compared (the readable form the fast one is checked against)."""
    from bench_kit.scoring.extract import prompt_echo as echo

    asked = {m.group().strip() for m in echo._clauses(question)}
    echoed = [m for m in echo._clauses(response) if m.group().strip() in asked]
    if not echoed:
        return []
    texts = [str(text) for text in options]
    spans = [m.span() for m in echoed if echo._names_letter(m.group())
             and not any(m.group().strip() in text for text in texts)]
    return sorted(spans + echo._letter_runs(response, question, spans))


def test_substring_precheck_finds_what_the_full_split_finds():
    """The question's clauses are tried as substrings before the response is split: the same
    spans as splitting both, on responses echoing random clauses of several questions."""
    import random

    from bench_kit.scoring.extract.prompt_echo import _CLAUSE, echoed_clauses

    questions = [QUESTION, "Which option is right? Choose from A, B, C or D. Answer with the letter.",
                 "从A、B、C、D四个选项中选出一个。下列说法正确的是", "What is shown? (A) cat (B) dog"]
    rng = random.Random(0)
    for _ in range(3000):
        question = rng.choice(questions)
        parts = [m.group() for m in _CLAUSE.finditer(question)] + [c for c, _, _ in CASES] + ["B", " so B", "A,B,C,D"]
        response = "".join(rng.choice(parts) + rng.choice(["。", "\n", ". ", "，", "; ", " ", ""])
                           for _ in range(rng.randint(1, 5)))
        assert echoed_clauses(response, question, CHOICES.values()) == \
            _split_first(response, question, CHOICES.values()), response
