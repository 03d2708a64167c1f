"""The prompt's own wording written again in a response (`echoed_clauses`): a model that
repeats its instruction ("从A,B,C,D中选出一个正确的答案，并写在[正确答案]和<eoa>之间。例如
[正确答案]A<eoa>。") names the letters of the instruction and of its answer template, not an
answer of its own; used by `bench_kit.scoring.extract.answers`."""

from __future__ import annotations

import functools
import math
import re
from bisect import bisect_right
from collections.abc import Iterable

from bench_kit.scoring.extract.option_labels import OPTION_LABEL
from bench_kit.types import LETTERS

# A clause: the text between clause or sentence marks (not the ASCII comma, which lists
# letters in an instruction, "A,B,C,D"; nor a full stop inside a number).
_CLAUSE = re.compile(r"[^，。；！？\n;!?.]+(?:\.(?=\d)[^，。；！？\n;!?.]*)*")
_MIN_LENGTH = 8  # shorter clauses ("A:cat", "是的") are too common to be echoes
# A clause that is one option written out ("D:应由甲公司承担责任", "(B) dog") is an answer when
# the response writes it alone, though the question holds it too.
# Only an echoed clause naming a letter (one standing alone: not the capital of "Choose" or
# "Answer") is blanked: the other words of an echo are read as before (a response copying the
# question stem, `option_texts.copies_question`).
_LETTER = re.compile(r"(?<![A-Za-z])[A-J](?![A-Za-z])")
_OPTION_LINE = re.compile(r"\s*+" + OPTION_LABEL)  # "A．…", "（A）…", "Option A: …"


# The option letters listed in order to choose from ("从A,B,C,D中选出", "A、B、C、D、E五个"),
# as an instruction lists them: no one of them chosen. (The "A" before its look-back, so the
# regex engine skips to each "A": ten times faster than `(?<![A-Za-z])A…`, same matches,
# tests/scoring/test_fast_patterns.py.)
_LETTER_RUN = re.compile(r"A(?<![A-Za-z]A)(?:\s*[,，、/]\s*[B-J])+(?![A-Za-z])")


_REST = re.compile(r"[^，。；！？\n;!?.]*")


def _clauses(text: str) -> list[re.Match]:
    return [m for m in _CLAUSE.finditer(text) if len(m.group().strip()) >= _MIN_LENGTH]


def echoed_clauses(response: str, question: str, options: Iterable[str]) -> list[tuple[int, int]]:
    """The spans of `response`'s clauses (eight characters or more) naming a letter that are
    clauses of `question` written again word for word, in order; not a clause that is one option
    written out with its letter, nor one of an option's text (`options`: the texts), nor one
    holding an option's text under a label of any wording ("Caption B: …"), which an answer
    may write too. When a clause of the question is written again, also the option
    letters listed in order as the question lists them ("从A,B,C,D中选出", reworded)."""
    # An echoed clause is in the response word for word: substring tests first (most responses
    # write no clause of the question, and splitting them into clauses costs far more); one
    # that counts names a letter, or any does when the question lists the letters in order.
    whole = _whole_question(response, question)
    asked = _asked(question)
    written = [clause for clause in asked if clause in response]
    if not written or not _LETTER_RUN.search(question) and not any(map(_names_letter, written)):
        return whole
    echoed = [m for m in _clauses(response) if m.group().strip() in asked]
    if not echoed:
        return whole
    texts = [str(text) for text in options]
    pieces = _option_pieces(tuple(texts))
    spans = [m.span() for m in echoed if _names_letter(m.group())
             and not any(m.group().strip() in text for text in texts)
             and not any(piece in m.group() for piece in pieces)]
    return sorted(spans + _letter_runs(response, question, spans) + whole)


@functools.lru_cache(maxsize=1024)
def _option_pieces(texts: tuple[str, ...]) -> tuple[str, ...]:
    """The options' texts cut as the clauses are (`_CLAUSE`), the pieces of four characters or
    more: a clause holding one writes that option out under whatever label the prompt gives it
    ("Caption B: The man is dancing fast", "Sentence A: …"), an answer, not an echo."""
    return tuple(piece for text in texts for piece in map(str.strip, _CLAUSE.findall(text))
                 if len(piece) >= 4)


def _whole_question(response: str, question: str) -> list[tuple[int, int]]:
    """The span of the whole question (several lines: its stem and its options) written again
    after something else, a new turn of the prompt ("D\n\nWhat is …?\nA. …\nD. …\nAnswer with
    the option's letter …\nB"); none when the response does not hold it."""
    whole = question.strip()
    at = response.find(whole) if "\n" in whole else -1
    return [(at, at + len(whole))] if at > 0 and response[:at].strip() else []


@functools.lru_cache(maxsize=1024)  # the same question is asked of many responses
def _asked(question: str) -> frozenset[str]:
    """The question's clauses of eight characters or more, stripped."""
    return frozenset([clause for clause in map(str.strip, _CLAUSE.findall(question))
                      if len(clause) >= _MIN_LENGTH])


def _names_letter(clause: str) -> bool:
    """A clause that names a letter and is not an option line: its echo is blanked."""
    return _LETTER.search(clause) is not None and not _OPTION_LINE.match(clause)


def _letter_runs(response: str, question: str, spans: list[tuple[int, int]]) -> list[tuple[int, int]]:
    """The spans outside `spans` of the option letters listed in order from A ("A,B,C,D"),
    with the words after them in their clause as the question has them ("中选出一个正确的
    答案"): the instruction reworded around an echo (not "选项A、B、C、D都是正确的")."""
    listed = {(_letters(m.group()), _rest(question, m.end())) for m in _LETTER_RUN.finditer(question)}
    # Linear in the response: each clause's end (and where its words stop) is found once, and
    # the words after a run are copied only when they may be as short as the question's.
    longest = max((len(rest) for _, rest in listed), default=0)
    runs, clause_end, words_end = [], -1, -1
    for m in _LETTER_RUN.finditer(response):
        if m.end() > clause_end:
            clause_end = _REST.match(response, m.end()).end()  # type: ignore[union-attr]
            words_end = m.end() + len(response[m.end():clause_end].rstrip())
        start = min(_SPACES.match(response, m.end()).end(), clause_end)  # type: ignore[union-attr]
        if words_end - start <= longest and (_letters(m.group()), response[start:words_end]) in listed:
            runs.append(m)
    return [m.span() for m in runs
            if _letters(m.group()) == LETTERS[:len(_letters(m.group()))]
            and not _inside(m.start(), spans)]


_SPACES = re.compile(r"\s*")


def _inside(at: int, spans: list[tuple[int, int]]) -> bool:
    """Whether `at` is inside one of `spans` (in order, not overlapping): only the last one
    starting at or before it may hold it."""
    i = bisect_right(spans, (at, math.inf))
    return i > 0 and at < spans[i - 1][1]


def _rest(text: str, at: int) -> str:
    """The words of `text` from `at` to the end of their clause."""
    return _REST.match(text, at).group().strip()  # type: ignore[union-attr]


def _letters(run: str) -> str:
    return "".join(ch for ch in run if "A" <= ch <= "J")


def without_echo(response: str, spans: list[tuple[int, int]]) -> str:
    """`response` with the `spans` blanked (spaces keep the offsets; spans may overlap: a
    letter run "A，B，C，D" and an echoed clause "D中选出一个正确的答案" cut at its "，")."""
    parts, at = [], 0
    for start, end in spans:
        start, end = max(start, at), max(end, at)
        parts += [response[at:start], " " * (end - start)]
        at = end
    return "".join(parts) + response[at:]
