"""Where a response states its answer: the last answer clause ("the answer is", "答案：")
and the sentence after it.

`ANSWER_CLAUSE` is the clause; `last_clause` finds the last match of such a keyword-led
pattern from the keyword occurrences backwards (not a scan of the whole reasoning);
`clause_tail` / `clause_tail_at` read what the clause states, up to its sentence end;
`sentence_after` / `sentence_start` find the sentence around an offset.
"""

from __future__ import annotations

import functools
import re

# "the answer is", "final answer:", "答案是", "答案：", "【答案】" ... (the letter/number comes
# after).
ANSWER_CLAUSE = re.compile(
    r"(?:\b(?:final|correct|right|best)\s+(?:answer|option|choice)s?(?:\s+letter)?"
    r"|\banswers?(?:\s+to\s+(?:the|this)\s+question)?)"
    r"\s*(?:(?:is|would\s+be|should\s+be|will\s+be|must\s+be)(?:\s*:)?|:|=)"
    r"|正确(?:答案|选项)\s*+[\])]?\s*+(?:是|为|应为|应该是)?\s*+:?"  # "[正确答案]A": as 答案's, its bracket
    r"|答案\s*+[\])]?\s*+(?:是|为|应为|应该是)?\s*+:?"  # "【答案】：B" reads "[答案]: B"
    r"|回答\s*:",  # "回答：没有" (an "Answer:" line)
    re.I,
)
# Every answer clause contains one of these; checking them first skips a regex scan.
_CLAUSE_KEYS = ("answer", "option", "choice", "答案", "选", "回答")
_SENTENCE_END = re.compile(r"\n|[.?;](?:\s|$)|!(?!\s*=)(?:\s|$)|,\s|[。！？；，]")  # "6! = 720"


# `text.lower()` of the last few texts: the clause searches of one response (a pre-check,
# then the search from the keywords, for the choice and the answer clause) lower it once.
lower_cased = functools.lru_cache(maxsize=8)(str.lower)


def may_have_clause(text: str, extra: tuple[str, ...] = ()) -> bool:
    """Cheap pre-check: False when `text` cannot contain an answer clause."""
    lowered = lower_cased(text)
    for key in _CLAUSE_KEYS + extra:  # (a loop: cheaper than a generator on short texts)
        if key in lowered:
            return True
    return False


# How far back from a keyword a clause may start: three words ("I would choose").
_LOOK_BACK = 48


def _starts_near(text: str, at: int) -> list[int]:
    """Where a clause around the keyword at `at` may start: the keyword itself, up to three
    words back ("the final answer", "I would choose"), or two characters back (CJK)."""
    starts = [at]
    pos = at
    floor = max(at - _LOOK_BACK, 0)  # bounded: a run of spaces or one endless "word"
    for _ in range(3):  # (CJK without spaces) is not walked per keyword occurrence
        pos -= 1
        while pos >= floor and text[pos] in " \t,":
            pos -= 1
        while pos >= floor and (text[pos].isalnum() or text[pos] == "'"):
            pos -= 1
        if (pos < floor and floor > 0) or pos + 1 >= starts[-1]:
            break
        starts.append(pos + 1)
    starts += [at - 2, at - 1] if at >= 2 and not text[at - 1].isascii() else []
    return sorted(set(starts))


@functools.lru_cache(maxsize=16)
def _keys_pattern(keys: tuple[str, ...]) -> re.Pattern:
    return re.compile("|".join(map(re.escape, keys)))


def _keyword_positions(lowered: str, keys: tuple[str, ...]):
    """Start offsets of the keywords in `lowered`, last first: one regex pass on short
    texts, one `rfind` per keyword (moving back) on long ones, whichever is cheaper."""
    if len(lowered) < 160:
        yield from reversed([m.start() for m in _keys_pattern(keys).finditer(lowered)])
        return
    found = {}
    for key in keys:
        at = lowered.rfind(key)
        if at >= 0:
            found[key] = at
    while found:
        key = max(found, key=found.__getitem__)
        at = found[key]
        yield at
        before = lowered.rfind(key, 0, at)
        if before >= 0:
            found[key] = before
        else:
            del found[key]


def last_clause(text: str, pattern: re.Pattern, keys: tuple[str, ...],
                accept=None) -> re.Match | None:
    """The last match of `pattern` in `text` that `accept` (a predicate; any when None)
    takes, found from the keyword occurrences backwards instead of scanning the whole
    text: every match of `pattern` must contain one of `keys` (lower-case) within its
    first three words. The same match a full `finditer` would end on, at a fraction of its
    cost on long reasoning (tests/scoring/test_extract_fast.py checks the two agree).
    """
    lowered = lower_cased(text)
    if len(lowered) != len(text):  # lower-casing moved offsets (rare: "İ"): scan it all
        last = None
        for each in pattern.finditer(text):
            if accept is None or accept(each):
                last = each
        return last
    tried: set[int] = set()
    for at in _keyword_positions(lowered, keys):
        match = pattern.match(text, at)  # most clauses start at their keyword
        if match is not None and (accept is None or accept(match)):
            return match
        if len(tried) > 64:  # keywords come last first: a start after this one is never asked again
            tried = {start for start in tried if start < at}
        tried.add(at)
        for start in _starts_near(text, at):
            if start in tried:
                continue
            match = pattern.match(text, start)
            if match is not None and match.end() > at and (accept is None or accept(match)):
                return match
            if match is None or match.end() > at:  # one ending before `at` may hold an
                tried.add(start)  # earlier keyword: tried again for it
    return None


def clause_matches(text: str, pattern: re.Pattern, keys: tuple[str, ...]) -> list[re.Match]:
    """What `pattern.finditer(text)` finds, tried only where a match can start: near the
    occurrences of `keys` (lower-case; as for `last_clause`, every match holds one within its
    first three words). The first match at or after the end of the one before, as `finditer`
    takes them, without trying the pattern at every offset of a long reasoning
    (tests/scoring/test_extract_fast.py checks the two agree)."""
    lowered = lower_cased(text)
    if len(lowered) != len(text):  # lower-casing moved offsets (rare: "İ"): scan it all
        return list(pattern.finditer(text))
    starts: set[int] = set()
    for key in keys:
        at = lowered.find(key)
        while at >= 0:
            starts.update(_starts_near(text, at))
            at = lowered.find(key, at + 1)
    found = []
    end = 0
    for start in sorted(starts):
        if start >= end:
            match = pattern.match(text, start)
            if match is not None:
                found.append(match)
                end = max(match.end(), start + 1)  # (never empty: an option letter ends each)
    return found


def clause_tail(text: str) -> str | None:
    """The rest of the sentence after the last answer clause ("The answer is X." -> "X"),
    or None when the text has no answer clause."""
    found = clause_tail_at(text)
    return None if found is None else found[0]


def clause_tail_at(text: str, end: re.Pattern = _SENTENCE_END,
                   accept=None) -> tuple[str, int] | None:
    """`clause_tail` and the offset in `text` where it starts (`end`: where the tail
    stops; by default at a comma too; `accept`: which clauses count, as in `last_clause`)."""
    if not may_have_clause(text):
        return None
    last = last_clause(text, ANSWER_CLAUSE, _CLAUSE_KEYS, accept)
    if last is None:
        return None
    return sentence_after(text, last.end(), end, " \t\r\n:")


def sentence_after(text: str, at: int, end: re.Pattern, skip: str) -> tuple[str, int]:
    """The rest of the sentence from offset `at` (leading `skip` characters passed over, up
    to the first match of `end`), stripped, and the offset where it starts."""
    rest = text[at:].lstrip(skip)
    begin = len(text) - len(rest)
    stop = end.search(rest)
    piece = rest if stop is None else rest[:stop.start()]
    stripped = piece.lstrip()
    return stripped.rstrip(), begin + len(piece) - len(stripped)


def sentence_start(text: str, at: int) -> int:
    """Where the sentence holding offset `at` starts: after the last line break or
    ". " / "! " / "? " before `at` (0 when there is none)."""
    return 1 + max(text.rfind("\n", 0, at),
                   *(text.rfind(stop, 0, at) for stop in (". ", "! ", "? ")))
