"""The prompt's instruction written again in a response (bench_kit/scoring/extract/prompt_echo.py,
docs/METRICS.md "Extraction"): its letters are no answer. (These cases once lived here because
"[正确答案]A<eoa>" shapes tripped test_extract_fast.py's anchored-vs-full answer-clause check, which
reads every case table's inputs; answer_clause's "正确答案" now takes its bracket as "答案" does, so
the two scans agree, and review mc8's probes hold such inputs.)"""

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
     "B", "ok"),  # kept (passes without the rule too): an answer before the echoed instruction counts; the new question written after it and its answer do not
    ("[正确答案]A<eoa>\n例如[正确答案]A<eoa>。\n不对，应更正为：[正确答案]B<eoa>",
     "B", "ok"),  # an answer after the echo, with no new question before it, corrects the one before the echo
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


GAOKAO = ("下列关于我国经济的说法，正确的是（　　）\nA．我国经济总量位居世界第二\nB．我国已经成为发达国家\n"
          "C．我国人均收入位居世界前列\nD．我国不存在区域发展差距")
GAOKAO_CHOICES = {"A": "我国经济总量位居世界第二", "B": "我国已经成为发达国家", "C": "我国人均收入位居世界前列",
                  "D": "我国不存在区域发展差距"}
READING = ("Why did the author move to the countryside?\nA．He was tired of the city life.\nB．He wanted to find a new job.\n"
           "C．His parents asked him to.\nD．His doctor advised him to.")
READING_CHOICES = {"A": "He was tired of the city life.", "B": "He wanted to find a new job.",
                   "C": "His parents asked him to.", "D": "His doctor advised him to."}
SHAPES = ("Which statement about the figure is correct?\nOption A: The circle is the largest shape\n"
          "Option B: The square is the largest shape\nOption C: The triangle is the largest shape\n"
          "Option D: All shapes are equal")
SHAPES_CHOICES = {"A": "The circle is the largest shape", "B": "The square is the largest shape",
                  "C": "The triangle is the largest shape", "D": "All shapes are equal"}
CAPITAL = ("（A）北京是中国的首都城市\n（B）上海是中国的首都城市\n（C）广州是中国的首都城市\n（D）深圳是中国的首都城市")
CAPITAL_CHOICES = {"A": "北京是中国的首都城市", "B": "上海是中国的首都城市", "C": "广州是中国的首都城市", "D": "深圳是中国的首都城市"}
ICE = ("Which of the following best explains why ice floats on water? Choose the best answer.\n"
       "(A) Ice is denser than water\n(B) Ice is less dense than water\n(C) Ice contains air bubbles only\n"
       "(D) Water pushes all solids up")
ICE_CHOICES = {"A": "Ice is denser than water", "B": "Ice is less dense than water",
               "C": "Ice contains air bubbles only", "D": "Water pushes all solids up"}
HISTORY = ("以下是中国关于高考历史考试的单项选择题，请选出其中的正确答案。答案格式为：【答案】A。\n秦朝统一后推行的法律是（ ）\n"
           "A. 秦律\nB. 汉律\nC. 元律\nD. 明律")
HISTORY_CHOICES = {"A": "秦律", "B": "汉律", "C": "元律", "D": "明律"}
BUS = ("What colour is the bus?\nA. red\nB. blue\nC. green\nD. yellow\n"
       "Answer with the option's letter from the given choices directly.")
BUS_CHOICES = {"A": "red", "B": "blue", "C": "green", "D": "yellow"}

# Other benchmarks' prompts (review mc8): an option line under any label the question uses is
# an answer, not an echoed instruction; a capital opening a word names no letter.
OTHER_PROMPTS = [
    (GAOKAO, GAOKAO_CHOICES, "A．我国经济总量位居世界第二", "A"),  # GAOKAO-Bench's full-width dot
    (READING, READING_CHOICES, "A．He was tired of the city life. The author says he could not stand the noise.", "A"),
    (CAPITAL, CAPITAL_CHOICES, "（A）北京是中国的首都城市", "A"),  # full-width brackets
    (SHAPES, SHAPES_CHOICES, "Option B: The square is the largest shape\n\nThe square's side is longer.", "B"),
    (ICE, ICE_CHOICES, "The answer is A. Hmm, no, let me reconsider. Choose the best answer. Ice is less dense "
     "than water, so the answer is B.", "B"),  # "Choose the best answer" names no letter: no echo
    (HISTORY, HISTORY_CHOICES, "【答案】B。答案格式为：【答案】A。\n更正：【答案】A", "A"),  # a correction after the echo
    (BUS, BUS_CHOICES, "C\n\n" + BUS + "\nA", "C"),  # the whole question again: a new turn, answered after it
    (BUS, BUS_CHOICES, BUS + "\nA", "A"),  # kept: the question written first, then the answer
]


@pytest.mark.parametrize(("question", "choices", "response", "expected"), OTHER_PROMPTS)
def test_prompt_echo_other_prompts(question, choices, response, expected):
    assert extract_choice_detailed(response, choices, question).value == expected


def test_overlapping_spans_blank_once():
    """A letter run "A，B，C，D" and an echoed clause cut at its full-width comma ("D中选出…")
    overlap: the text blanked keeps its length."""
    from bench_kit.scoring.extract.prompt_echo import echoed_clauses, without_echo

    question = "请从A，B，C，D中选出一个正确的答案，并写在[正确答案]和<eoa>之间。\n下列哪一项正确？A:甲;B:乙;C:丙;D:丁"
    response = "请从A，B，C，D中选出一个正确的答案。[正确答案]B<eoa>"
    spans = echoed_clauses(response, question, ["甲", "乙", "丙", "丁"])
    assert len(spans) == 2 and spans[0][1] > spans[1][0]  # (the overlap this guards)
    assert without_echo(response, spans) == "请从" + " " * 17 + response[19:]


def _split_first(response: str, question: str, options) -> list[tuple[int, int]]:
    """`echoed_clauses` as written before its substring pre-check: both texts split into
    clauses, every clause compared (the readable form the fast one is checked against)."""
    from bench_kit.scoring.extract import prompt_echo as echo

    whole = echo._whole_question(response, question)
    asked = {m.group().strip() for m in echo._clauses(question)}
    echoed = [m for m in echo._clauses(response) if m.group().strip() in asked]
    if not echoed:
        return whole
    texts = [str(text) for text in options]
    spans = [m.span() for m in echoed if echo._names_letter(m.group())
             and not any(m.group().strip() in text for text in texts)]
    return sorted(spans + echo._letter_runs(response, question, spans) + whole)


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


_CAPTIONS = ("Which caption matches the video better?\nCaption A: The man is dancing slowly.\n"
             "Caption B: The man is dancing fast.")
_SENTENCES = ("Which sentence better captures the essence of the video?\nSentence A: The video is "
              "playing at normal speed.\nSentence B: The video is played in reverse.")


@pytest.mark.parametrize("question, response, expected", [
    # TempCompass caption matching (llyx97/TempCompass, caption_matching.json's wording): the
    # chosen caption written out under the prompt's own label is the answer, not an echo. The
    # echo rule read these None from 5dba2e7 to 1d08641 (report6's multiple choice, measured
    # as a total only: 2092 -> 1301/2100, back to 2093 with this rule).
    (_CAPTIONS, "Caption B: The man is dancing fast.", "B"),
    (_CAPTIONS, "Caption A: The man is dancing slowly. He moves gently.", "A"),
    (_SENTENCES, "Sentence A: The video is playing at normal speed.", "A"),
    (_SENTENCES, "Sentence B: The video is played in reverse. It goes backwards.", "B"),
    (_SENTENCES, "Sentence B", "B"),
])
def test_an_option_written_out_under_any_label_is_an_answer(question, response, expected):
    choices = {"A": _option_text(question, "A"), "B": _option_text(question, "B")}
    assert extract_choice_detailed(response, choices, question).value == expected


def _option_text(question: str, letter: str) -> str:
    """The option's text as the question's "<label> X: …" line gives it."""
    line = next(line for line in question.splitlines() if f" {letter}: " in line)
    return line.split(": ", 1)[1]
