"""The answer written in the slot of a prompt's answer template (docs/METRICS.md#numbers).

Prompts such as LawBench's and GAOKAO-Bench's ask for the answer between a bracketed label
and an end-of-answer token ("将答案写在[金额]与<eoa>之间"); a response that fills that slot
("[金额]2000元<eoa>", "[刑期]24月<eoa>") states its answer there, as it would in an
`<answer>` tag, and what it writes after the slot (a judgment retold, a note, code) is no
answer. The instruction and its example written again ("例如[金额]2000元<eoa>", `SLOT_ECHO`)
fill no slot. Several filled slots with different numbers offer several answers: none. With
no slot filled, the token still closes the answer: what follows the first one is no answer.
"""

from __future__ import annotations

import re

from bench_kit.scoring.extract.prose_number import EXAMPLE_CJK
from bench_kit.text.numbers import number_tokens

# The prompt's answer format echoed: its instruction "将答案写在[金额]与<eoa>之间" ("write the
# answer between …", also "请将[刑期]与<eoa>之间填写…") and an example of its answer slot ("例如[金额]2000元<eoa>", "for example
# [Answer] 12"), up to the example's end (a clause mark): neither is an answer. A slot's label
# is a word: a bracket holding a digit or one letter is a citation or a variable ("例如[1]中的方法",
# "例如[x]=3"), no slot.
SLOT_ECHO = re.compile(r"答案(?:写|填|放)在[^\n.。]{0,30}?之间|[\[【][^\[\]【】\n]{1,12}[\]】][ \t]*[与和][ \t]*<eoa>"
                       rf"|(?:{EXAMPLE_CJK}|\bfor\s+example\b|\be\.g\.)[ \t,:：，]*"
                       r"\[(?![\d,\s–-]+\])(?![A-Za-z]\])[^\[\]\n]{1,12}\][^\n.。,，;；\[]{0,30}", re.I)
# "[金额]2000元<eoa>", "【刑期】6个月<eoa>": a bracketed label, its value and the end-of-answer
# token, on one line. (The blanks after the label taken whole, or all but the last when only
# blanks fill the slot: the same matches, linear on a run of them.)
_FILLED = re.compile(r"[\[【][^\[\]【】\n<>]{1,12}[\]】](?>[ \t]*+(?![\[\]【】<>\n])|[ \t]*(?=[ \t](?![ \t])))([^\[\]【】<>\n]{1,60}?)[ \t]*+(?=<eoa>)")


def slot_answer(response: str) -> str | None:
    """The answer slot a response fills, label and content ("[金额]2000元<eoa>，…" ->
    "[金额]2000元": a label that is an answer clause, "【答案】", is read as one), or
    None when it fills none (an echoed instruction or example fills none); "" when its
    filled slots hold different numbers ("[刑期]6个月<eoa>\\n[刑期]7个月<eoa>": several
    answers). Slots holding no number are left aside when another holds one."""
    if "<eoa>" not in response:
        return None  # the common case: no template of this kind
    text = SLOT_ECHO.sub(" ", response) if "[" in response else response
    filled = list(_FILLED.finditer(text))
    if not filled:
        return _closed_answer(text)
    valued = [(match.group().strip(), number_tokens(match.group(1))) for match in filled]
    valued = [(content, found) for content, found in valued if found] or valued[:1]
    values = {tuple(token.value for token in found) for _, found in valued}
    return valued[0][0] if len(values) == 1 else ""

# "3572元<eoa>+3750元": a calculation going on after the token.
_GOES_ON = re.compile(r"[ \t]*[-+×*/÷=]")


def _closed_answer(text: str) -> str | None:
    """The response up to its first end-of-answer token when a number comes before it and
    text after it ("刑期:12个月。\n<eoa>\n根据上述事实…预测判决刑期。\n<eoa>…", "犯罪总金额:2500元<eoa>6757元"):
    the token closes the answer, what follows is a continuation; else None (also when the
    calculation goes on after it: "金额:3572元<eoa>+3750元<eoa>=7242元")."""
    end = text.find("<eoa>")
    if end < 0 or not text[end + 5:].strip() or _GOES_ON.match(text, end + 5) \
            or not number_tokens(text[:end]):
        return None
    return text[:end]
