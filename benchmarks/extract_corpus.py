"""Realistic multiple-choice responses for the extraction benchmark (benchmarks/extract_bench.py).

Every item has its own question and its own option texts (drawn from a word list with a
fixed seed), so no two items share an option set; every response is generated for its
item with a known intended letter (or None for a refusal / hedge), so the benchmark can
report agreement with intent next to the speed.

Two mixes:
- `short`: the answer forms models write without reasoning (bare letter, "(B)", "The
  answer is B.", markdown, Chinese, option text, "B. <text>", refusals);
- `cot`: 200-2,000 characters of reasoning before the answer — `<think>` blocks, markdown
  lists that walk through the options, Chinese reasoning, numbers — then a final answer;
- `reasoning`: the `cot` forms with about 620 characters of reasoning (600-640).
"""

from __future__ import annotations

import random

WORDS = ("red blue green yellow purple orange black white grey brown circle square "
         "triangle star hexagon arrow cat dog horse bird fish tree house car boat plane "
         "apple banana cherry lemon bread cheese clock lamp chair table window door river "
         "mountain bridge tower castle garden market station harbour forest desert island "
         "violin guitar piano drum camera phone laptop bottle basket candle mirror ladder").split()
LETTERS = "ABCDE"
FILLER_EN = (
    "Let me look at the image carefully.", "The chart shows several values over time.",
    "First, I count the objects in the left half of the picture.",
    "The colours are clearly visible, and the outline is sharp.",
    "Comparing the heights, the second bar is about 25% taller than the first.",
    "There are 3 large shapes and 7 small ones, so 10 in total.",
    "The text at the top reads 'Quarterly report 2023'.",
    "Looking at the legend, each colour corresponds to one region.",
    "I need to be careful not to confuse the shadow with the object itself.",
    "The object in the centre is partly hidden behind the table.",
)
FILLER_ZH = ("我仔细观察了图片中的每一个物体。", "图中左侧有三个较大的形状。",
             "根据图例，每种颜色代表一个地区。", "从数值上看，第二根柱子比第一根高约百分之二十五。")
SHORT_FORMS = (
    "{L}", "({L})", "{L}.", "The answer is {L}.", "Answer: {L}", "**{L}**", "答案是{L}",
    "{L}. {T}", "({L}) {T}", "The correct option is ({L}) {T}.", "<answer>{L}</answer>",
    "I choose {L}.", "Option {L}", "{T}", "The answer is {T}.", "选{L}",
)
REFUSALS = ("I'm sorry, I can't assist with that.", "I cannot tell from this image.",
            "I can't process this file.", "Could you provide a clearer image?")
FINALS = ("\n\nThe answer is {L}.", "\n\n**Answer: {L}**", "\n\nTherefore, the correct option "
          "is ({L}) {T}.", "\n\n答案是{L}。", "\n\nSo the answer is {L}", "\n\nFinal answer: {L}",
          "\n\n{L}")


def make_item(rng: random.Random, index: int) -> dict:
    """One item: a distinct question and distinct option texts (4 or 5 options)."""
    n = rng.choice((4, 4, 5))
    texts: list[str] = []
    while len(texts) < n:
        text = " ".join(rng.sample(WORDS, rng.choice((1, 2, 3))))
        if text not in texts:
            texts.append(text)
    return {"id": f"q{index}", "question": f"Question {index}: which one is shown?",
            "choices": dict(zip(LETTERS, texts))}


def _walkthrough(rng: random.Random, choices: dict, letter: str) -> str:
    lines = ["Let's check each option:"]
    for key, text in choices.items():
        verdict = ("this matches the image." if key == letter else
                   rng.choice(("this seems unlikely.", "this is wrong.", "not shown here.",
                               "too small to be right.")))
        lines.append(f"- **Option {key}** ({text}): {verdict}")
    return "\n".join(lines)


def _reasoning(rng: random.Random, choices: dict, letter: str, length: int) -> str:
    parts: list[str] = []
    size = 0
    while size < length:
        pick = rng.random()
        if pick < 0.15 and not any(p.startswith("Let's check") for p in parts):
            part = _walkthrough(rng, choices, letter)
        elif pick < 0.3:
            part = rng.choice(FILLER_ZH)
        else:
            part = rng.choice(FILLER_EN)
        parts.append(part)
        size += len(part) + 1
    return " ".join(parts)


def make_response(rng: random.Random, item: dict, mix: str) -> tuple[str, str | None]:
    """A response to `item` in the `short`, `cot` or `reasoning` mix and the letter it
    intends."""
    choices = item["choices"]
    letter = rng.choice(list(choices))
    if rng.random() < 0.04:
        return rng.choice(REFUSALS), None
    if mix == "short":
        return rng.choice(SHORT_FORMS).format(L=letter, T=choices[letter]), letter
    length = rng.randint(600, 640) if mix == "reasoning" else rng.randint(200, 2000)
    reasoning = _reasoning(rng, choices, letter, length)
    final = rng.choice(FINALS).format(L=letter, T=choices[letter])
    if rng.random() < 0.4:
        return f"<think>{reasoning}</think>{final.strip()}", letter
    return reasoning + final, letter


def make_corpus(n: int, mix: str, seed: int = 0) -> list[tuple[str, dict, str | None]]:
    """`n` (response, choices, intended letter) triples, one distinct item each."""
    rng = random.Random(f"{seed}-{mix}")
    out = []
    for index in range(n):
        item = make_item(rng, index)
        response, letter = make_response(rng, item, mix)
        out.append((response, item["choices"], letter))
    return out
