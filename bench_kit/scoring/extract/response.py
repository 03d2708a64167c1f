"""A model response as text to extract from: cleaning, the closing answer line, the JSON
answer field, normalisation. Where the answer clause is lies in `answer_clause`; whether the
response declines to answer, in `no_answer`.

Shared by the extractors (`bench_kit.scoring.extract.answers`) and the per-item scorers
(`bench_kit.scoring.item`). Every function here is total: any string in, a string out.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import Generic, Sequence, TypeVar

from bench_kit.scoring.extract.answer_clause import (
    _CLAUSE_KEYS,
    ANSWER_CLAUSE,
    clause_tail,
    clause_tail_at,
    last_clause,
    may_have_clause,
)
from bench_kit.text.normalize import normalize_for_match

# re-exported: the scorers import them from here (defined once, in bench_kit.text)
from bench_kit.text.numbers import format_number as format_number
from bench_kit.text.words import contains_phrase as contains_phrase

T = TypeVar("T")

PARSE_OK, PARSE_LENIENT, PARSE_FAILED = "ok", "lenient", "failed"
normalize_text = normalize_for_match  # the name the extractors and scorers import


@dataclass(frozen=True, slots=True)
class Extraction(Generic[T]):
    """What an extractor found and how.

    `parse` is "ok" (a clean, strict answer form such as "B" or "The answer is B"),
    "lenient" (found only by a fallback: option text, a letter amid prose, the last number
    of a sentence ...) or "failed" (nothing; `value` is None).
    """

    value: T | None
    parse: str
    detail: str = ""  # how it was read where that matters (e.g. a box's coordinate scale)


FAILED: Extraction = Extraction(None, PARSE_FAILED)
_MADE: dict[tuple, Extraction] = {}
# Plain-dict caches of this module, emptied with the functools caches before each test of a
# mutation run (benchmarks/mutation.py): filled in mutmut's parent process, they would
# answer every forked mutant from the original code.
RESETTABLE_CACHES = (_MADE,)


def extraction(value: T, parse: str) -> Extraction[T]:
    """`Extraction(value, parse)`, shared: a frozen dataclass costs ~1 µs to build, more
    than reading a short answer, and answers repeat (the same option letters)."""
    key = (value, parse)
    made = _MADE.get(key)
    if made is None:
        if len(_MADE) >= 4096:  # bounded: keys are the callers' option keys
            _MADE.clear()
        made = _MADE[key] = Extraction(value, parse)
    return made

# Full-width forms (U+FF01-FF5E) map onto ASCII; a few CJK brackets and marks too, so
# "（B）", "答案：Ｂ" and "１２３" read like their ASCII twins.
_WIDTH_MAP: dict[int, int | str] = {code: code - 0xFEE0 for code in range(0xFF01, 0xFF5F)}
_WIDTH_MAP.update({
    0x3000: " ", 0x00A0: " ", 0x200B: "", 0xFEFF: "", 0x3002: ".", 0x3001: ",",
    0x3010: "[", 0x3011: "]", 0x300C: '"', 0x300D: '"', 0x201C: '"', 0x201D: '"',
    0x2018: "'", 0x2019: "'", 0x2212: "-",
})
_WIDE = re.compile("[" + "".join(chr(code) for code in _WIDTH_MAP) + "]")
_WIDE_TEXT = {chr(code): (chr(value) if isinstance(value, int) else value)
              for code, value in _WIDTH_MAP.items()}
_ANSWER_TAG = re.compile(r"<answer>(.*?)(?:</answer>|$)", re.S | re.I)
# '{"reasoning": "…", "answer": "42"}': the answer field of a JSON object the prompt asked for
# (ZeroEval's format); a string (its escapes read), a bare number, or a bare list or object
# on one line, one level of nesting ("[1, [2]]", "{'a': 1}"; CRUXEval's outputs), as written,
# that ends the field (a comma, a closing brace or the line's end after it: not the list
# of a sentence, '"answer": [3, 5] under the key'), or a string in single quotes, not JSON but
# written by models ('"answer": \'["a", "b"]\''), with no single quote inside, that ends the
# field: its content, as written.
_JSON_ANSWER = re.compile(r'"answer"\s*:\s*(?:"((?:[^"\\]|\\.)*)"|([-+]?\.?\d[\d.,eE+-]*'
                          r'|(?:\[(?:[^\[\]\n]|\[[^\[\]\n]*\])*\]|\{(?:[^{}\n]|\{[^{}\n]*\})*\})'
                          r'(?=[ \t]*(?:[,}\n]|$)))'
                          r"|'([^'\n]*)'(?=[ \t]*(?:[,}\n]|$)))")
# A string value with unescaped quotes inside ('"answer": ""aCbCed""', '"He said "hi""': a
# letter, digit or quote right after its closing quote): from its opening quote to the first
# quote of its line that can close it, followed by a closing brace, the line's end, or a comma
# and the next key.
_BROKEN_AFTER = re.compile(r'[\w"]')
_BROKEN_STRING = re.compile(r'"([^\n]*?)"[ \t]*(?:\}|,[ \t]*(?:"|$)|$)', re.M)
# (GAOKAO-Bench's prompts close the explanation and the answer with "<eoe>" / "<eoa>")
_SPECIAL_TOKEN = re.compile(r"<\|[^|<>\n]{0,40}\|>|</?s>|<eo[ea]>")
# (2 levels: \frac{\sqrt{3}}{2}; "\boxed {0}": LaTeX allows spaces before the argument)
_BOXED = re.compile(r"\\boxed[ \t]*\{((?:[^{}]|\{(?:[^{}]|\{[^{}]*\})*\})*)\}")
# "\boxed{12}, not \boxed{13}", '"peace", not "war"', "答案是 A，不是 B": what comes right after
# "not" / "不是" (spaces, an opening "$" or bracket between) is ruled out, not the answer (the
# boxes here, a gold in an MMMU candidate: `bench_kit.scoring.metrics.mmmu_gold`).
RULED_OUT_BEFORE = re.compile(r"(?:\bnot|不是)[\s$(]*$")
_LATEX_TEXT = re.compile(r"\\(?:text|textbf|mathrm|mathbf)\{([^{}]*)\}")
# A Markdown heading marker; not GSM8K's closing "#### 42" (`FINAL_ANSWER_LINE`).
# "9.98*10^-25", "8 * 3", "2*x": a star between two operands on one line, one of them a digit,
# is a times sign, not emphasis ("a*b" stays two words).
_TIMES_STAR = re.compile(r"\*(?:(?<=\d\*)(?=[\w(.\\])|(?<=[\w.)\]}]\*)(?=\d)"  # (a literal first:
                         r"|(?<=\d \*)(?= [\w(.\\])|(?<=[\w.)\]}] \*)(?= \d))")  # a fast scan)
_HEADING = re.compile(r"^[ \t]*#{1,6}[ \t]+(?!-?[\d.,]+[ \t]*\Z)", re.M)

# A model that goes on to write the next question of its prompt ("Question: …", "Hint: …")
# has answered before it; what follows is a continuation, not its answer.
CONTINUATION = re.compile(r"\n[ \t]*(?:Question|Hint|Human|(?:请回答(?:以下|下列|下面)?的?)?问题|题目)\s*[:：]")
# A closing line (or its last sentence) that states the answer: one opening with an answer
# clause ("Answer: 36", "Final answer: 36"), "A: 36" (the answer line of a Q/A transcript)
# or GSM8K's own gold marker "#### 36". For open answers only: in multiple choice "A:" may
# be an option label.
FINAL_ANSWER_LINE = re.compile(
    r"(?:^|(?<=[.!?])[ \t]+)(?:A[ \t]*[:：]|" + ANSWER_CLAUSE.pattern + r")[ \t]*|^####[ \t]*",
    re.I)


def strip_reasoning(response: str) -> str:
    """Remove a leading `<think>…</think>` block (reasoning models keep it in the raw text).

    A block opened by the chat template shows only its closing tag; everything before that
    tag is removed too. A block that never closes (cut by the token limit) leaves "".

    >>> strip_reasoning("<think>count: 1, 2, 3</think> There are 3.")
    ' There are 3.'
    """
    if not isinstance(response, str):
        return ""
    if "think" not in response:  # the common case: one scan, no block
        return response
    head = response.lstrip()
    for tag in ("think", "thinking"):
        close = f"</{tag}>"
        if head.startswith(f"<{tag}>"):
            end = head.find(close)
            return "" if end < 0 else head[end + len(close):]
        end = response.find(close)
        if end >= 0 and f"<{tag}>" not in response[:end]:
            return response[end + len(close):]
    return response


def clean_response(response: str, boxed: bool = True) -> str:
    """The answer-bearing text of a response: reasoning removed, `<answer>` / `\\boxed{}`
    content preferred, so is the "answer" field of a JSON answer (`{"answer": "42"}`;
    `boxed=False`: a box is unwrapped in place instead), special tokens and markdown
    emphasis dropped, full-width forms made ASCII.

    >>> clean_response("<answer>**（B）**</answer>")
    '(B)'
    """
    # (a string without "think" holds no reasoning block: no call for the common case)
    text = response if type(response) is str and "think" not in response else strip_reasoning(response)
    if "<" in text:
        text = _SPECIAL_TOKEN.sub(" ", text)
        tags = _ANSWER_TAG.findall(text)
        if tags:
            text = tags[-1]
    if '"answer"' in text:
        text = _json_answer(text)
    if "\\" in text:
        found = list(_BOXED.finditer(text)) if boxed else None
        if found:
            kept = [box for box in found if not RULED_OUT_BEFORE.search(
                text, max(0, box.start() - 8), box.start())]
            text = (kept or found)[-1].group(1)
        elif not boxed:
            text = _BOXED.sub(r"\1", text)
        text = _LATEX_TEXT.sub(r"\1", text)
    if not text.isascii():  # replace only the mapped characters (translate is slow on CJK)
        for wide in set(_WIDE.findall(text)):  # (one `replace` per character found: each
            text = text.replace(wide, _WIDE_TEXT[wide])  # maps onto ASCII or "", no callback)
    if "*" in text or "`" in text or "__" in text:
        text = text.replace("**", "").replace("__", "").replace("`", "")
        if "*" in text:
            text = _TIMES_STAR.sub("×", text).replace("*", " ")
    if "#" in text:
        text = _HEADING.sub("", text)
    if "$" in text:  # "-$2" is minus two dollars
        text = text.replace("-$", "-").replace("$", " ")
    return text.strip()


# A template's blank echoed from the prompt: '{"answer": "<number>"}', "...", "N/A", "[answer]",
# "[e.g. 42]", "[number, e.g., 5]"; not a list value ("[4]", "['a', 'b']", "[]", "[True, None]",
# "[1e-05]": CRUXEval's outputs): a bracketed blank holds no quote and a word (letters not
# right after a letter or digit) other than True, False, None, inf and nan.
_PLACEHOLDER = re.compile(r"<[^<>]*>|\[(?=[^\[\]'\"]*?(?<![^\W_])"
                          r"(?!(?:True|False|None|inf|nan)(?![^\W_]))[^\W\d_])"
                          r"[^\[\]'\"]*\]|\.{2,}|…+|n/a", re.I)


def is_placeholder(value: str) -> bool:
    """Whether a JSON answer value is a template's blank echoed from the prompt
    (`_PLACEHOLDER`; blanks "___", spaces and double quotes around it aside)."""
    return _PLACEHOLDER.fullmatch(value.strip(' _"')) is not None


# Words that make a short clause tail a reference or a remark, not a value ("The final answer
# is above.", "So the answer is clear.").
_REFERENCE_WORDS = frozenset("a an the this that it above below as correct wrong same given "
                             "provided shown not clear obvious evident simple straightforward "
                             "unclear unknown".split())


def _states_value(tail: str) -> bool:
    """Whether a later answer clause's tail states a value: a digit, a quote or bracket
    ("'m'", "[1]"), or one or two words none of them a reference word ("Paris", "B")."""
    if any(ch.isdigit() or ch in "'\"[{" for ch in tail):
        return True
    words = tail.lower().split()
    return 0 < len(words) <= 2 and not any(word in _REFERENCE_WORDS for word in words)


def json_answer_value(text: str) -> str | None:
    """The value of the last JSON "answer" field of `text` as written, escapes read and
    nothing trimmed ('{"answer": "\\"R\\""}' -> '"R"'; a string whose inner quotes are not
    escaped runs to the first quote of its line that can close it: '"answer": ""R""' -> '"R"'),
    or None when `text` has none or an answer clause stating a value follows it
    (`_states_value`: a number, a literal, a word or two)
    ('"answer": "128"} … Thus, the final answer is 720 minutes.')."""
    found = None
    for match in _JSON_ANSWER.finditer(text):
        found = match
    if found is None:
        return None
    after = clause_tail_at(text[found.end():])
    if after is not None and _states_value(after[0]):
        return None  # a later answer clause states the answer: "So the answer is Paris."
    value = next(group for group in (found.group(1), found.group(2), found.group(3))
                 if group is not None)
    if found.group(1) is not None and _BROKEN_AFTER.match(text, found.end()):
        broken = _BROKEN_STRING.match(text, found.start(1) - 1)
        value = value if broken is None else broken.group(1)  # '"answer": ""aCbCed""'
    if found.group(1) is not None and "\\" in value:
        try:
            value = json.loads(f'"{value}"')
        except ValueError:
            pass
    return value


def _json_answer(text: str) -> str:
    """The last JSON "answer" field of `text` (`json_answer_value`; template blanks
    "___3___", spaces and double quotes trimmed), or `text` when it has none or an answer
    clause stating a value after it or it is "N/A" (the model declines); when the field is
    empty, an empty list or object ("[]", "{}") or a placeholder ("<number>", "...", "[answer]",
    "[e.g. 42]"), the object's
    "reasoning" field (`_json_reasoning`) when the object ends the response and that field is
    no placeholder itself, else the empty value or `text`."""
    value = json_answer_value(text)
    if value is None:
        return text
    trimmed = value.strip(' _"')
    empty = trimmed in _EMPTY_VALUES
    if trimmed and not empty and not is_placeholder(value):
        return _list_items(trimmed) if trimmed[0] == "[" and trimmed[-1] == "]" else trimmed
    if trimmed.lower() == "n/a" or not text.rstrip(" \t\r\n`").endswith("}"):
        return trimmed if empty else text  # "N/A" declines; a template echoed before the answer ("… {…}. There are 5 cats.")
    reasoning = _json_reasoning(text)  # (a blank itself, "___" or "...": the template echoed)
    if reasoning and reasoning.strip(' _"') and not is_placeholder(reasoning):
        return reasoning
    return trimmed if empty else text


# An empty list or object answers nothing the reasoning can say better; a gold that is a Python
# value ("[]") is compared with the field as written (`bench_kit.scoring.metrics.exact_golds`).
_EMPTY_VALUES = frozenset(("[]", "{}"))


def _list_items(value: str) -> str:
    """A JSON list of strings answered as its items written with commas ('["A", "C"]' ->
    "A, C", '["3 cm", "4 cm"]' -> "3 cm, 4 cm"); `value` itself when it is not such a list
    (empty, numbers, nested, in single quotes: "[4]", "['a']"). A gold that is a Python value
    is compared with the field as written (`bench_kit.scoring.metrics.exact_golds`)."""
    items = json_list_items(value)
    return value if items is None else ", ".join(items)


def json_list_items(value: str) -> list[str] | None:
    """The items of a JSON list of strings ('["A", "C"]' -> ["A", "C"]), or None when `value`
    is no such list (empty, numbers, nested, in single quotes: "[4]", "['a']")."""
    try:
        items = json.loads(value)
    except (ValueError, RecursionError):
        return None
    if not isinstance(items, list) or not items or not all(isinstance(item, str) for item in items):
        return None
    return items


# '{"reasoning": "There are 8 birds.", "answer": "[number]"}': with no answer in its field, the
# answer is the one the reasoning field states (ZeroEval's format), not the object's keys and
# blank read as prose.
_JSON_REASONING = re.compile(r'"reasoning"\s*:\s*"((?:[^"\\]|\\.)*)"')


def _json_reasoning(text: str) -> str | None:
    """The text of the last JSON "reasoning" string field of `text`, escapes read, or None."""
    found = None
    if '"reasoning"' in text:
        for match in _JSON_REASONING.finditer(text):
            found = match
    if found is None:
        return None
    value = found.group(1)
    if "\\" in value:
        try:
            value = json.loads(f'"{value}"')
        except ValueError:
            pass
    return value.strip() or None


# The end of the answer a closing line states ("A: 36. Note that 12 is the width.").
_LINE_ANSWER_END = re.compile(r"[.!?;](?:\s|$)|[。！？；]")
# Words that make a line's text a statement, not a bare value ("A: 12 would be wrong.").
_STATEMENT_WORD = re.compile(
    r"\b(?:is|are|was|were|be|been|being|isn't|aren't|would|will|could|should|can|cannot|"
    r"can't|may|might|must|not|no|does|do|did|seems?|means?|has|have|had)\b", re.I)
_MAX_LINE_ANSWER_WORDS = 6


def final_answer_line(text: str) -> str | None:
    """The answer a closing `FINAL_ANSWER_LINE` states ("...\nA: 36" -> "36"), cut at its
    sentence end; None when there is none or the line states no bare value or expression
    after its last "=" ("A: Option B is incorrect.", "A: 12 would be wrong.")."""
    line = text.rstrip()
    line = line[line.rfind("\n") + 1:]
    last = None
    for match in FINAL_ANSWER_LINE.finditer(line):
        last = match
    if last is None:
        return None
    answer = line[last.end():]
    stop = _LINE_ANSWER_END.search(answer)
    answer = (answer[:stop.start()] if stop else answer).strip()
    value = answer.rpartition("=")[2]  # "The ratio is 1:2 = 0.5": the result is the answer
    if (not value.strip() or len(value.split()) > _MAX_LINE_ANSWER_WORDS
            or _STATEMENT_WORD.search(value)):
        return None
    return answer


def pick_candidate(text: str, found: Sequence[tuple[int, T]]) -> Extraction[T]:
    """The answer among candidates found at offsets of `text` (boxes, points …): the first
    after the last answer clause is "ok"; without one, the first candidate, "ok" when all
    candidates are equal and "lenient" otherwise. `found` must be non-empty, in text order.
    """
    last = last_clause(text, ANSWER_CLAUSE, _CLAUSE_KEYS) if may_have_clause(text) else None
    clause_end = last.end() if last is not None else -1
    after = [value for start, value in found if start >= clause_end] if clause_end >= 0 else []
    if after:
        return Extraction(after[0], PARSE_OK)
    distinct = {value for _, value in found}
    return Extraction(found[0][1], PARSE_OK if len(distinct) == 1 else PARSE_LENIENT)


def answer_text(response: str) -> str:
    """The open answer of a response: the last answer clause's sentence if there is one,
    else the whole cleaned response.

    >>> answer_text("I looked closely. The answer is Paris. It is the capital.")
    'Paris'
    """
    text = clean_response(response)
    tail = clause_tail(text)
    return text if tail is None or not tail else tail
