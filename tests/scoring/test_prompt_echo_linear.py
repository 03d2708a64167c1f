"""Review mc8's shapes stay linear in the response's length (twice the characters take at
most 2.5 times as long): 选项 lists ruled out before a whitespace run (a ruled-out verdict's
adjacent \\s* were polynomial), a whitespace run of blank lines after a letter (option lines
looked for at each line's start scanned the rest of the run: quadratic), and the prompt's
instruction echoed (its clauses, a later correction, new questions)."""

from __future__ import annotations

import pytest

from bench_kit.scoring.extract.answers import extract_choice
from tests.scoring.linear_timing import assert_linear

QUESTION = ("请你运用法律知识从A,B,C,D中选出一个正确的答案，并写在[正确答案]和<eoa>之间。例如[正确答案]A<eoa>。"
            "请你严格按照这个格式回答。\n甲将房屋出租给乙，下列哪一说法是正确的?A:乙有优先购买权;B:乙无优先购买权;"
            "C:甲应通知丙;D:合同无效。")
CHOICES = {"A": "乙有优先购买权", "B": "乙无优先购买权", "C": "甲应通知丙", "D": "合同无效"}
ECHO = "例如[正确答案]A<eoa>。"


def _repeat(unit: str, n: int) -> str:
    return (unit * (n // len(unit) + 1))[:n]


SHAPES = {
    "a 选项 list, then spaces": lambda n: "选项A、C" + " " * n + "x",
    "a 选项 letter, then blank lines": lambda n: "选项A" + _repeat(" \n", n) + "x",
    "the instruction echoed again and again": lambda n: _repeat("[正确答案]B<eoa>\n" + ECHO + "\n", n),
    "an echo, then new questions and answers": lambda n: "[正确答案]B<eoa>\n" + ECHO + _repeat(
        "A:甲;B:乙;C:丙。[正确答案]C<eoa>\n", n),
    "an echo, then a long correction": lambda n: "[正确答案]A<eoa>\n" + ECHO + _repeat("不对，应更正为 ", n)
    + "[正确答案]B<eoa>",
    "option lines under other labels": lambda n: _repeat("Option A: x\n（B）y\nA．z\n", n),
}


@pytest.mark.parametrize("shape", sorted(SHAPES))
def test_review_mc8_shapes_stay_linear(shape):
    make = SHAPES[shape]
    assert_linear(shape, make(200_000), make(400_000), lambda text: extract_choice(text, CHOICES, QUESTION))
