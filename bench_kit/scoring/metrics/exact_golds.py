"""Golds that their tasks' own graders compare exactly, and the `mmmu_open` verdict on them
(docs/METRICS.md#exact-golds).

Golds that are code output, where a letter's case, a space or a character of punctuation
is the answer itself, not its spelling:

- a Python value holding a string ("'n'", '"5000   $"', "''", "['a', 'b']",
  "{'H': 1, 'i': 1}"; it parses with `ast.literal_eval`): CRUXEval's outputs; right when
  ZeroEval's grader (its `crux_eval.py`: the strings equal, outer quotes aside) or
  CRUXEval's assertion (equal Python values) accepts the answer; a list, tuple or dict of
  numbers only ("[666]") is compared so too, and also matched the ordinary way;
- a run of closing brackets (") ] }"; not a lone ">"): BIG-Bench-Hard's dyck_languages
  targets, scored by exact match (Suzgun et al. 2022), the spaces between brackets aside.

The answer compared is the one the response states: the value of its JSON "answer" field
as written (ZeroEval's format; `json_answer_value`, a placeholder skipped), else the content
of its last "[ANSWER] … [/ANSWER]" block (CRUXEval's format), else the tail of its last
answer clause ("So the answer is ) ] }."), else its closing answer line ("A: 'abc'"), else
its last line when that is a bracket run — and when that whole answer is not the gold, the
one literal or bracket run it holds ("['a'], since …"); with none stated, its last
`mmmu_candidates` candidate as it is written ("The output is 'Abc'." -> "Abc"), else the
last literal or bracket run written in it. A literal stated as the whole assertion
CRUXEval asks to complete ("assert f('a') == 'b'") is its right side.
"""

from __future__ import annotations

import ast
import re
from functools import lru_cache
from typing import Any, Callable, Sequence

from bench_kit.scoring.extract.answer_clause import clause_tail_at
from bench_kit.scoring.extract.response import (
    final_answer_line,
    is_placeholder,
    json_answer_value,
    strip_reasoning,
)

_QUOTES = "'\""
_BRACKET_RUN = re.compile(r"\s*[)\]}>](?:\s*[)\]}>])*\s*")
# The assertion CRUXEval asks to complete, stated whole: "assert f('a') == 'b'", "f(1) == [2]"
# (matched on the stripped answer: no space run after the right side to rescan).
_ASSERTION = re.compile(r"(?:assert\s+)?[\w.]+\(.*\)\s*==\s*(.+)", re.S)
# CRUXEval's own answer format: "[ANSWER]\nassert f('a') == 'b'\n[/ANSWER]" (the block's end
# may be missing).
_ANSWER_BLOCK = re.compile(r"\[ANSWER\](.*?)(?:\[/ANSWER\]|\Z)", re.S)
# A literal written in prose: a quoted string not inside a word ("it's" holds no quote) or a
# bracketed container on one line, one level of nesting ("['a', ['b']]", "('x',)").
_LITERAL_SPAN = re.compile(r"""(?<!\w)'[^'\n]*'(?!\w)|(?<!\w)"[^"\n]*"(?!\w)"""
                           r"|\[(?:[^\[\]\n]|\[[^\[\]\n]*\])*\]|\{(?:[^{}\n]|\{[^{}\n]*\})*\}"
                           r"|\((?:[^()\n]|\([^()\n]*\))*\)")
# A run of closing brackets written in prose: not right after a letter, a digit or another
# bracket ("(closing them)" ends in no run).
_RUN_SPAN = re.compile(r"(?<![\w)\]}>])[)\]}>](?:[ \t]*[)\]}>])*")
_MAX_LITERAL = 10_000  # the longest text parsed as a Python value (ast.literal_eval)
# Where a stated answer ends in prose: a sentence end or a line break, not a comma ("'a, b'").
_ANSWER_END = re.compile(r"[.!?;](?:\s|$)|\n")


@lru_cache(maxsize=4096)  # golds repeat across responses; parsing them is not free
def exact_kind(gold: str) -> str | None:
    """"literal" for a Python value holding a string (a string literal, or a list, tuple,
    set or dict holding one: it parses with `ast.literal_eval`; "(A', B')" does not),
    "value" for another list, tuple or dict literal ("[666]", "(3, -4)": also matched the
    ordinary way), "brackets" for a run of closing brackets holding a ")", "]" or "}" or two
    brackets (a lone ">" is a comparison sign), else None (the gold is matched as
    `mmmu_open_match` says)."""
    if gold[:1] in _QUOTES + "[{(":
        value = _gold_value(gold)
        if _holds_string(value):
            return "literal"
        if isinstance(value, (list, tuple, dict)):
            return "value"
    if _BRACKET_RUN.fullmatch(gold) and (any(ch in gold for ch in ")]}")
                                         or len("".join(gold.split())) > 1):
        return "brackets"
    return None


_NOT_PARSED = object()


def python_value(text: str) -> Any:
    """The Python value `text` writes (`ast.literal_eval`, stripped; at most _MAX_LITERAL
    characters), or `_NOT_PARSED`."""
    if len(text) > _MAX_LITERAL:
        return _NOT_PARSED
    try:
        return ast.literal_eval(text.strip())
    except (ValueError, SyntaxError, TypeError, MemoryError, RecursionError):
        return _NOT_PARSED


# A gold's value, parsed once (golds repeat across responses and readings; compared, never changed)
_gold_value = lru_cache(maxsize=4096)(python_value)


def _holds_string(value: Any) -> bool:
    """Whether a parsed value is a string or a container holding one (keys too)."""
    stack = [value]
    while stack:
        item = stack.pop()
        if isinstance(item, str):
            return True
        if isinstance(item, dict):
            stack.extend(item.keys())
            stack.extend(item.values())
        elif isinstance(item, (list, tuple, set, frozenset)):
            stack.extend(item)
    return False


def split_golds(golds: Sequence[str]) -> tuple[list[tuple[str, str]], list[str]]:
    """The golds compared exactly, each with its kind (`exact_kind`), and the golds matched
    the ordinary way (the others and the "value" golds)."""
    exact, rest = [], []
    for gold in golds:
        kind = exact_kind(gold)
        if kind:
            exact.append((gold, kind))
        if kind in (None, "value"):  # a container of numbers is also matched the ordinary way
            rest.append(gold)
    return exact, rest


def matches_exactly(text: str, exact: Sequence[tuple[str, str]], raw: str | None,
                    candidates: Callable[[str], tuple[list[str], list[float]]]) -> bool:
    """Whether the answer the (cleaned) response `text` states (`stated_answer`; else its
    last candidate by `candidates`, `mmmu_candidates`, as written) is one of the `exact`
    golds (gold, kind) under `exact_match`."""
    stated = stated_answer(text, raw)
    if stated is not None:  # the answer stated, else the one literal (bracket run) it holds
        readings: list[tuple[str | None, Callable[[Any], str | None]]] = [
            (stated, lambda kind: only_span(stated, kind))]
    else:  # the last candidate as written, else the last literal (bracket run) written
        keys = candidates(text)[0]
        written = as_written(text, keys[-1]) if keys else None
        readings = [(written, lambda kind: last_span(text, kind))]
    uncleaned = stated_answer(raw) if raw is not None and raw != text else None
    if uncleaned is not None and uncleaned != stated:  # stars, "$", backticks kept
        readings.append((uncleaned, lambda kind: only_span(uncleaned, kind)))
    elif stated is None and raw is not None and raw != text:
        readings.append(_raw_candidate(raw, candidates))
    for answer, span in readings:
        for gold, kind in exact:
            if answer is not None and exact_match(answer, gold, kind):
                return True
            found = span(kind)
            if found is not None and found != answer and exact_match(found, gold, kind):
                return True
    return any(empty_named(text, stated, gold) for gold, _ in exact)


# An empty value named in words as what is returned or output, in the response's last sentence
# ("The function returns an empty string.", "An empty list is returned.", "The final string is
# empty."), or as the whole stated answer ('{"answer": "an empty string"}'): its Python value.
_KINDS = r"(string|str|list|dict(?:ionary)?|tuple)"
_WHOLE_EMPTY = re.compile(r"\W*(?:an?\s+|the\s+)?empty\s+" + _KINDS + r"\W*", re.I)
_EMPTY_RETURNED = re.compile(
    r"\b(?:(?:returns?|returned|outputs?|gives|yields|evaluates\s+to|prints|stays|remains"
    r"|(?:output|result|answer|return\s+value|final\s+\w+)\s+(?:is|will\s+be|would\s+be))"
    r"\s+(?:an?\s+|the\s+)?empty\s+" + _KINDS +
    r"|\ban?\s+empty\s+" + _KINDS + r"\s+(?:is|will\s+be|would\s+be)\s+(?:returned|output|printed)"
    r"|\b(?:final|resulting|returned|output)\s+" + _KINDS + r"\s+is\s+empty)\b", re.I)
_EMPTY_VALUES: dict[str, Any] = {"string": "", "str": "", "list": [], "dict": {}, "dictionary": {},
                                 "tuple": ()}
_DENIED = re.compile(r"\b(?:not|never|no|cannot)\W*$|n't\W*$|\b(?:not|never)\s+\w+\W*$", re.I)
# After the phrase: a condition or another value returned ("… an empty list when n is 0, but
# here it returns [0, 1, 2]."): the phrase is not the answer.
_NOT_FINAL = re.compile(r"\s*,?\s*(?:when|if|whenever|unless)\b|.*?\b(?:returns?|returned|outputs?"
                        r"|gives|yields|prints)\b", re.I)
_SENTENCE_BREAK = re.compile(r"[.!?]\s+(?=\S)|\n")


def empty_named(text: str, stated: str | None, gold: str) -> bool:
    """Whether the response names, in words, the empty value the gold is as what is returned
    or output: the whole stated answer ("an empty string" for `''`), or once in its last
    sentence ("The function returns an empty string.", "The output is an empty list because
    …") when a stated answer holds the phrase or none is stated, not denied right before it ("does not return an empty string"); an empty value the
    input is ("Given an empty string, f returns 'x'.") is no answer."""
    if "mpty" not in (text[-400:] if stated is None else stated):
        return False  # (a stated answer without the word: that answer, "'x'", not the prose)
    phrase = _WHOLE_EMPTY.fullmatch(stated) if stated is not None and len(stated) < 40 else None
    if phrase is None:
        tail = text.rstrip()[-400:]
        breaks = [found.end() for found in _SENTENCE_BREAK.finditer(tail)]
        sentence = tail[breaks[-1]:] if breaks else tail
        found = list(_EMPTY_RETURNED.finditer(sentence))
        if len(found) != 1 or _DENIED.search(sentence[max(0, found[0].start() - 25):found[0].start()]) \
                or _NOT_FINAL.match(sentence, found[0].end()):
            return False
        phrase = found[0]
    value = _gold_value(gold)
    kind = next(group for group in phrase.groups() if group)
    empty = _EMPTY_VALUES[kind.lower()]
    return type(value) is type(empty) and value == empty


def _raw_candidate(raw: str, candidates: Callable[[str], tuple[list[str], list[float]]]
                   ) -> tuple[str | None, Callable[[Any], str | None]]:
    """The last candidate of the raw response (its reasoning block aside) as written, and its
    last literal, when cleaning only dropped characters from it (no `<answer>` tag, box or
    JSON answer to select): "The output is '$100'." keeps the "$" cleaning drops."""
    whole = strip_reasoning(raw).strip()
    if "<" in whole or "\\boxed" in whole or '"answer"' in whole:
        return None, lambda kind: None
    keys = candidates(whole)[0]
    return (as_written(whole, keys[-1]) if keys else None), lambda kind: last_span(whole, kind)


def _spans(text: str, kind: str):
    """The literals written in `text` (for kind "literal" those holding a quote: the gold
    holds a string, "(a string)" is prose) or its runs of closing brackets, in order."""
    if kind == "brackets":
        return (match.group() for match in _RUN_SPAN.finditer(text))
    return (span for span in (m.group() for m in _LITERAL_SPAN.finditer(text))
            if kind == "value" or "'" in span or '"' in span)


def only_span(answer: str, kind: str) -> str | None:
    """The one literal (kind "literal") or run of closing brackets ("brackets") a stated
    answer holds, words around it aside ("['a'], since both are kept" -> "['a']"); None when
    it holds none or several ("'abc' or 'abd'")."""
    found = list(_spans(answer, kind))
    return found[0] if len(found) == 1 else None


def last_span(text: str, kind: str) -> str | None:
    """The last literal (kind "literal") or run of closing brackets ("brackets") written in
    `text` ("The output will be ['a', 'b']." -> "['a', 'b']"), or None."""
    return next(reversed(list(_spans(text, kind))), None)


def stated_answer(text: str, raw: str | None = None) -> str | None:
    """The answer a response states, as written: the value of the JSON "answer" field of
    `raw` (the response before cleaning), else the tail of the last answer clause of `text`
    (the cleaned response), else its closing answer line, else its last line when that is a
    run of closing brackets only; None when it states none (the caller then takes its last
    candidate, `as_written`)."""
    if raw is not None and '"answer"' in raw:
        value = json_answer_value(raw)
        if value is not None and not is_placeholder(value):
            return value
    if "[ANSWER]" in text:  # CRUXEval's own format: the last block's content
        block = next(reversed(list(_ANSWER_BLOCK.finditer(text))), None)
        if block is not None and block.group(1).strip():
            return block.group(1).strip()
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
    if kind != "brackets" and "==" in answer:
        assertion = _ASSERTION.fullmatch(answer.strip())
        answer = answer if assertion is None else assertion.group(1)
    if kind == "brackets":
        return "".join(answer.split()).rstrip(".").strip("'\"`") == "".join(gold.split())
    if answer.replace("\n", "\\n").strip(_QUOTES) == gold.strip(_QUOTES):
        return True  # ZeroEval's string comparison
    if answer.strip()[:1] not in _QUOTES + "[{(":
        return False  # (no Python value to read: a word, a number)
    value = python_value(answer)  # CRUXEval's assertion: one Python value
    return value is not _NOT_PARSED and bool(value == _gold_value(gold))
