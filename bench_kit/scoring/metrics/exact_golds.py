"""Golds that their tasks' own graders compare exactly, and the `mmmu_open` verdict on them
(docs/METRICS.md#exact-golds).

Two kinds of gold are code output, where a letter's case, a space or a character of
punctuation is the answer itself, not its spelling:

- a Python string literal ("'n'", '"5000   $"', "''") or a container holding one
  ("['a', 'b']", "{'H': 1, 'i': 1}"): CRUXEval's outputs; ZeroEval's grader compares the
  answer with the gold as strings, exactly, outer quotes aside (its `crux_eval.py`);
- a run of closing brackets (") ] }"): BIG-Bench-Hard's dyck_languages targets, scored by
  exact match (Suzgun et al. 2022), the spaces between brackets aside.

The answer compared is the one the response states: the value of its JSON "answer" field
as written (ZeroEval's format; `json_answer_value`), else the tail of its last answer
clause ("So the answer is ) ] }."), else its closing answer line ("A: 'abc'"), else its last
line when that is a bracket run, else its last `mmmu_candidates` candidate as it is written
("The output is 'Abc'." -> "Abc"). A literal stated as the whole assertion CRUXEval asks to
complete ("assert f('a') == 'b'") is its right side.
"""

from __future__ import annotations

import re
from typing import Callable, Sequence

from bench_kit.scoring.extract.response import clause_tail_at, final_answer_line, json_answer_value

_QUOTES = "'\""
_BRACKET_RUN = re.compile(r"\s*[)\]}>](?:\s*[)\]}>])*\s*")
_CONTAINER = {"[": "]", "{": "}", "(": ")"}
# The assertion CRUXEval asks to complete, stated whole: "assert f('a') == 'b'", "f(1) == [2]".
_ASSERTION = re.compile(r"\s*(?:assert\s+)?[\w.]+\(.*\)\s*==\s*(.+?)\s*", re.S)
# Where a stated answer ends in prose: a sentence end or a line break, not a comma ("'a, b'").
_ANSWER_END = re.compile(r"[.!?;](?:\s|$)|\n")


def exact_kind(gold: str) -> str | None:
    """"literal" for a Python string literal or a container holding one, "brackets" for a
    run of closing brackets, else None (the gold is matched as `mmmu_open_match` says)."""
    if len(gold) >= 2 and gold[0] in _QUOTES and gold[-1] == gold[0]:
        return "literal"
    if _CONTAINER.get(gold[:1]) == gold[-1:] and any(q in gold for q in _QUOTES):
        return "literal"
    if _BRACKET_RUN.fullmatch(gold):
        return "brackets"
    return None


def split_golds(golds: Sequence[str]) -> tuple[list[tuple[str, str]], list[str]]:
    """The golds compared exactly, each with its kind (`exact_kind`), and the others."""
    exact, rest = [], []
    for gold in golds:
        kind = exact_kind(gold)
        if kind:
            exact.append((gold, kind))
        else:
            rest.append(gold)
    return exact, rest


def matches_exactly(text: str, exact: Sequence[tuple[str, str]], raw: str | None,
                    candidates: Callable[[str], tuple[list[str], list[float]]]) -> bool:
    """Whether the answer the (cleaned) response `text` states (`stated_answer`; else its
    last candidate by `candidates`, `mmmu_candidates`, as written) is one of the `exact`
    golds (gold, kind) under `exact_match`."""
    stated = stated_answer(text, raw)
    if stated is None:
        keys = candidates(text)[0]
        stated = as_written(text, keys[-1]) if keys else None
    return stated is not None and any(exact_match(stated, gold, kind) for gold, kind in exact)


def stated_answer(text: str, raw: str | None = None) -> str | None:
    """The answer a response states, as written: the value of the JSON "answer" field of
    `raw` (the response before cleaning), else the tail of the last answer clause of `text`
    (the cleaned response), else its closing answer line, else its last line when that is a
    run of closing brackets only; None when it states none (the caller then takes its last
    candidate, `as_written`)."""
    if raw is not None and '"answer"' in raw:
        value = json_answer_value(raw)
        if value is not None:
            return value
    clause = clause_tail_at(text, _ANSWER_END)
    if clause is not None:
        return clause[0]
    line = final_answer_line(text)
    if line is not None:
        return line
    last = text.rstrip().rpartition("\n")[2]
    return last if _BRACKET_RUN.fullmatch(last) else None  # a last line of brackets only


def as_written(text: str, key: str) -> str | None:
    """A lower-cased candidate of `text` (`mmmu_candidates`) as `text` writes it, its last
    occurrence ("the output is 'Abc'" -> "Abc"); None when lower-casing changed the text's
    length (a few letters, "İ", lower-case to two characters) or the key is not in it."""
    lowered = text.lower()
    at = lowered.rfind(key)
    return None if at < 0 or len(lowered) != len(text) else text[at:at + len(key)]


def exact_match(answer: str, gold: str, kind: str) -> bool:
    """Whether a stated answer is the gold under its grader: a literal equal to the gold,
    outer quotes aside and a line break written as "\\n" (as Python writes it in the gold;
    an assertion stated whole, "assert f('a') == 'b'", states its right side, 'b'; backticks
    around the whole answer are markdown, not part of it); a
    bracket run equal to the gold, spaces (and a closing period) aside."""
    if len(answer) > 1 and answer[0] == answer[-1] == "`":
        answer = answer[1:-1]  # markdown code around the whole answer: "`'abc'`"
    if kind == "literal" and "==" in answer:
        assertion = _ASSERTION.fullmatch(answer)
        answer = answer if assertion is None else assertion.group(1)
    if kind == "brackets":
        return "".join(answer.split()).rstrip(".").strip("'\"`") == "".join(gold.split())
    return answer.replace("\n", "\\n").strip(_QUOTES) == gold.strip(_QUOTES)
