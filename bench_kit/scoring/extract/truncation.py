"""Whether a response was cut by its token limit or loops to it, for every answer family
(docs/METRICS.md#truncated-and-looping-responses). A truncated response has often not answered
yet: a lenient reading of it is no answer (multiple choice, numbers, `mmmu_open`), and an answer
written before a loop is read without the loop (yes/no).

Each family asks a different question of the same evidence, so each rule has its own name:

- `cut_off_mid_sentence` (multiple choice, `extract_choice`'s lenient readings): a long
  response (300 characters or more) whose last line is prose stopping on a word or an
  operator that needs another after it ("… we get the equation P=", "starting at") or inside
  a formula's bracket, or whose last sentence it has already written three times, or that
  ends repeating a stretch (`repeats_a_stretch`). It reads only the end's words, brackets and
  loops: an option letter may stand anywhere, so no number's position matters.
- `cut_off_before_number` / `stops_before_number` (the `numeric` extractor, the `mmmu_open`
  match): the response stops before it states its number: on an open expression (":", "=",
  ",", an open bracket), in a loop (`repeats_a_stretch`), with a bracket or display of its last
  sentence left open, a list item never written, or — a long response — mid-sentence after its
  last number or mid-stream at the token limit. A number answer is the last number of a
  finished statement, so where the last number sits decides.
- `repeats_a_stretch` (numbers): the text ends by writing one stretch of characters at least
  3 times over at least 60 characters, whatever its lines ("x_n^2 = 1/n\\nx_n^2 = 1/n…");
  a run of one digit is a repeating decimal, not a loop.
- `line_loop_start` (yes/no, `extract_yesno`): where a block of up to 6 whole lines written 4
  times or more begins ("This answer is correct.\\nThis answer is wrong.\\n…"): yes/no reads
  the answer before the loop, so it needs the loop's start, not a verdict.

Shared: what an expression left open ends on (`_OPEN_EXPRESSION`, `_OPERATORS`) and a stretch
written again and again (`repeats_a_stretch`), read by both cut-off rules.
"""

from __future__ import annotations

import re

from bench_kit.scoring.extract.answer_clause import sentence_start
from bench_kit.scoring.extract.concluding import CONCLUDES
from bench_kit.scoring.extract.response import final_answer_line
from bench_kit.text.numbers import NumberToken, number_tokens

# An expression left open: the last character needs something after it (":", "=", ",", an
# open bracket, a LaTeX command's backslash); and the arithmetic operators.
_OPEN_EXPRESSION = ":=,([{\\"
_OPERATORS = "+-*/×"

# --- multiple choice: a long response stopping mid-sentence, or looping -------------------

_ENDS = frozenset(".!?。！？)]}\"'`*|")  # how a finished response ends (a line of a table)


# How an unfinished sentence ends: an operator or a comma, or a word that needs another
# after it (an article, a preposition, a conjunction, a verb "is").
_DANGLING = re.compile(
    "(?:[" + re.escape(_OPEN_EXPRESSION + _OPERATORS + "÷;_^") + "]"
    r"|\b(?:the|a|an|of|to|at|in|on|by|for|from|with|as|and|or|but|than"
    r"|that|which|where|when|if|so|because|since|then|while|we|is|are|was|were|be|its|their"
    r"|this|these|starting|such|into|between|gives?|get|equals?|plugging|substituting"
    r"|rearranging|simplifying|solving))\s*$",
    re.I)
_OPENERS, _CLOSERS = "([{", ")]}"


_EMOTICON = re.compile(r"[:;]-?[()\[\]]")  # a smiley, ":(" ";-)"
_FORMULA = re.compile(r"[=\\^_0-9]")


def _open_bracket(line: str) -> bool:
    """Whether `line` (smileys removed) ends inside a bracket it opened: a formula cut off
    ("… = sin(3"); not prose ("… since the features (ears, tail, fur")."""
    return sum(map(line.count, _OPENERS)) > sum(map(line.count, _CLOSERS)) \
        and _FORMULA.search(line) is not None


def cut_off_mid_sentence(text: str) -> bool:
    """Whether a long response was cut off by the token limit: its last line is prose that
    stops mid-sentence ("… we get the equation P=", "starting at"), or it loops: its last
    sentence is one it has already written twice, or it ends repeating one stretch
    (`repeats_a_stretch`, the numbers' loop: a diagram drawn again and again)."""
    if len(text) < 300:
        return False
    line = _EMOTICON.sub("", text[text.rfind("\n") + 1:]).rstrip()  # "… not completely sure :("
    # (a `_DANGLING` match ends the stripped line, one word of 12 letters at most: its tail is read)
    if len(line) > 40 and line[-1] not in _ENDS and (_DANGLING.search(line, len(line) - 40)
                                                     or _open_bracket(line)):
        return True  # (a missing full stop alone is no evidence: "… most likely a dog")
    sentences = text.rstrip(" .").rsplit(".", 2)
    last = sentences[-1].strip()
    if len(last) >= 20 and text.count(last) >= 3:
        return True
    # ... or it stops mid-sentence, on the same line, right after such a sentence ("… plan
    # ever. This is a hyper"; not a closing line of its own: "…\n\nC")
    # (the fragment itself written before as the loop's: "This is a fig" of "This is a
    # figure of speech", not a conclusion of its own after an elimination that repeats)
    before = sentences[-2].strip() if len(sentences) == 3 and "\n" not in sentences[-1] else ""
    fragment = text.rstrip()[-1] not in _ENDS and len(before) >= 20 \
        and text.count(before) >= 3 and len(last) >= 5 and text.count(last) >= 3
    return fragment or repeats_a_stretch(text)  # (a loop with no sentence: "+---+\n|   |\n…")


# --- numbers: a response stopping before it states its number ------------------------------

# Cut off mid-expression: the response ends on ":", "=", ",", an open bracket or a backslash.
_CUT_OFF = frozenset(_OPEN_EXPRESSION)
_LONG = 400  # a response this long that stops mid-sentence was cut by its token limit
_LIST_NUMBER_END = re.compile(r"\n[ \t]*\d{1,3}\.$")
_TOKEN_LIMIT = 1000  # a response this long that ends on no closing punctuation was cut off
LOOP_REACH, _LOOP_MIN = 600, 60  # how far back a loop is looked for; its shortest span


def cut_off_before_number(text: str) -> bool:
    """Whether a cleaned response stops before it answers (`stops_before_number`): on ":", "=",
    "," or an open bracket, in a loop, or mid-sentence after its last number."""
    text = text.rstrip()
    if not text:
        return False
    found = number_tokens(text)
    return stops_before_number(text, found) if found else text[-1] in _CUT_OFF or repeats_a_stretch(text)


def stops_before_number(text: str, found: list[NumberToken]) -> bool:
    """Whether the response stops before an answer: on ":", "=", "," or an open bracket,
    in a loop, with a bracket of its last sentence left open ("… = 8\\left(\\frac{43"),
    or — a long response — mid-sentence after its last number ("By the Pythag")."""
    if text[-1] in _CUT_OFF or repeats_a_stretch(text):
        return True
    start = sentence_start(text, len(text))
    if any(text.count(left, start) > text.count(right, start) for left, right in ("{}", "()")):
        return True
    if text.rfind("\\[") > text.rfind("\\]") or _LIST_NUMBER_END.search(text, len(text) - 8):
        return True  # a display math never closed, "…\n\n21." a list item never written
    if len(text) >= _LONG and text[-1].isalpha() and found[-1].end < start:
        said = sentence_start(text, found[-1].start)  # "So there are 12 birds\n\nNote: …"
        lead = text[said:found[-1].start]
        return not (CONCLUDES.match(lead) and _STATES_VALUE.search(lead))
    return len(text) >= _TOKEN_LIMIT and _unfinished(text) and final_answer_line(text) is None


def _unfinished(text: str) -> bool:
    """Whether a response ends mid-stream: on a word, a digit or an operator, with no closing
    punctuation ("… For n = 29", "… the other side is", "T(50) = 124,842", "= 0.000000…");
    not on a run of one digit other than 0 ("= 0.3333…" writes out a repeating decimal), nor
    (`stops_before_number`) on a closing answer line ("A: 26")."""
    last = text[-1]
    if not (last.isalnum() or last in _OPERATORS + "&"):
        return False
    run = len(text) - len(text.rstrip(last))
    return not (last in "123456789" and run > 3)


# "Therefore, the total is 12": a concluding sentence that states its number.
_STATES_VALUE = re.compile(r"(?:\b(?:is|are|was|were|equals)|=)\s*$", re.I)


def repeats_a_stretch(text: str) -> bool:
    """Whether `text` ends by repeating one stretch (at least 3 times, over at least
    `_LOOP_MIN` characters): a model stuck in a loop until its token limit. Only the
    periods at which the last 8 characters recur are tried."""
    tail = text[-LOOP_REACH:]
    size = len(tail)
    if size < _LOOP_MIN:
        return False
    probe = tail[-8:]
    found = tail.rfind(probe, 0, size - 1)
    while found >= 0:
        period = size - 8 - found
        span = max(3 * period, _LOOP_MIN)
        if span > size:
            return False
        if tail[size - span + period:] == tail[size - span:size - period]:
            return not tail[-period:].isdigit()  # "5.3333…" repeats a digit: a decimal
        found = tail.rfind(probe, 0, found + 7)
    return False


# --- yes/no: where a block of lines written again and again begins -------------------------

# A base model cut by its token limit often ends in a loop: a block of a few lines written
# again and again ("This answer is correct.\nThis answer is wrong.\n…").
_LOOP_PERIOD = 6  # lines a repeated block may span
_LOOP_REPEATS = 4  # times it must be written for a loop


def line_loop_start(text: str) -> int | None:
    """The offset where a loop ending `text` begins (a block of up to 6 lines written 4
    times or more through the end, its last line possibly cut short: a proper beginning of
    the line it repeats), or None.

    >>> line_loop_start("It is odd.\\nThe answer is False.\\nOK\\nOK\\nOK\\nOK\\nO")
    32
    """
    lines = text.split("\n")
    shorter, start = lines[:-1], None
    for period in range(1, _LOOP_PERIOD + 1):
        # the last line as written, or cut short (a proper prefix of the line it repeats)
        cut = len(lines) > period and lines[-1] != lines[-1 - period] \
            and lines[-1 - period].startswith(lines[-1])
        for whole in (lines, shorter) if cut else (lines,):
            at = len(whole) - period - 1
            while at >= 0 and whole[at] == whole[at + period]:
                at -= 1
            first = at + 1
            if len(whole) - first >= period * _LOOP_REPEATS and any(
                    line.strip() for line in whole[first:first + period]):
                offset = sum(map(len, whole[:first])) + first  # each line's break counted
                start = offset if start is None else min(start, offset)
    return start
