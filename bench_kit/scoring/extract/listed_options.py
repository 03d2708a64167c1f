"""The question's options written out again inside a response: every option's label, in
order, each followed by its own text and nothing else ("正确答案:A:英国法;B:韩国法;C:中国法;D:日本法。",
"A: cat\\nB: dog\\nC: bird\\nD: fish" before the reasoning). Such a list chooses none of them: its
labels are no letters of an answer, and the response is read without it (rule in
`bench_kit.scoring.extract.answers`; docs/METRICS.md#extraction). A list whose items say more
than the option ("A: … 正确。", a walk through the options) is the response's own words and is
read as written."""

from __future__ import annotations

import re
from collections.abc import Mapping

from bench_kit.types import LETTERS

# An option label as written in a list (read after `clean_response`: "【A】" as "[A]", "：" as
# ":"), opening the response, a line or a sentence, or after ";" / "," of a list run together
# or a bracket ("[正确答案]A:…"): "A:", "A.", "A)", "(A)", "[A]:" (not "选A", "是A:", a word
# before it).
# (Written for speed: the bracket or letter first, then the look-back at the character before
# it, so the engine skips to each; the same matches as the readable
# `(?:^|(?<=[\s.;,:?!\]]))(?:[(\[]([A-J])[)\]][ \t]*+:?|([A-J])[ \t]*+[:.)])[ \t]*+`,
# tests/scoring/test_fast_patterns.py.)
_LABEL = re.compile(r"[(\[A-J](?<![^\s.;,:?!\]].)"
                    r"(?:(?<=[(\[])([A-J])[)\]][ \t]*+:?|(?<=([A-J]))[ \t]*+[:.)])[ \t]*+")
_WORD = re.compile(r"\w")
# What may follow an option's copied text inside its item: punctuation, spaces and at most
# one other character (a copying slip, "推动力力" for "推动力量"), not a verdict on it.
_VERDICT_MARKS = frozenset("对错√✓×✗")
_SENTENCE_END = re.compile(r"[\n.;!?]")
_REST_WINDOW = 64  # how far the sentence after a list's last item is read
_ENOUGH = 0.85  # share of an option's word characters an item must copy (a cut-off copy)


def _copied(text: str, start: int, stop: int | None, option: str) -> int | None:
    """The end of a copy of `option` from `text[start]` (its word characters in order,
    punctuation and spaces skipped), or None when too little of it is copied or too much
    else follows it, up to `stop` (the next label; None: the end of the sentence)."""
    wanted = [ch for ch in option.lower() if _WORD.match(ch)]
    if not wanted:
        return None
    at, got, end = start, 0, start
    limit = len(text) if stop is None else stop
    while at < limit and got < len(wanted):
        ch = text[at].lower()
        if _WORD.match(ch):
            if ch != wanted[got]:
                break
            got += 1
            end = at + 1
        at += 1
    if got < len(wanted) and len(text) - end <= 3 and not _WORD.search(text, end):
        return len(text)  # the response ends inside the copy: cut off while copying it ("应由��")
    if got < _ENOUGH * len(wanted):
        return None
    if stop is None:
        found = _SENTENCE_END.search(text, end, end + _REST_WINDOW)  # (bounded: linear)
        stop = found.start() if found else min(len(text), end + _REST_WINDOW)
    rest = [ch for ch in text[end:stop] if _WORD.match(ch) or ch in _VERDICT_MARKS]
    return end if len(rest) <= 1 and not _VERDICT_MARKS.intersection(rest) else None


def without_listed_options(text: str, choices: Mapping[str, str], options: dict[str, str]) -> str:
    """`text` with each list of every option written out again blanked (each item a line
    break), or `text` itself when it holds none. The last item of a list ends where its
    option's text ends (what follows it is the response's own)."""
    if len(options) < 2 or any(letter not in LETTERS for letter in options):
        return text
    order = sorted(options)
    if order[0] not in text or order[1] not in text:
        return text  # a list starts with the first two labels (its cheap pre-check)
    labels = [found for found in _LABEL.finditer(text) if (found.group(1) or found.group(2)) in options]
    spans: list[tuple[int, int]] = []
    for first in range(len(labels)):
        run = labels[first:first + len(order)]
        if [found.group(1) or found.group(2) for found in run] != order[:len(run)]:
            continue  # (a shorter run at the end: a list cut off, checked below)
        if spans and run[0].start() < spans[-1][1]:
            continue
        items = []
        for index, label in enumerate(run):
            stop = run[index + 1].start() if index + 1 < len(run) else None
            option = str(choices.get(options[label.group(1) or label.group(2)], ""))
            end = _copied(text, label.end(), stop, option)
            if end is None:
                break
            items.append((label.start(), end if stop is None else stop))
        else:
            if len(run) == len(order) or ((len(run) > 1 or spans) and _cut_off(text, run[-1], option)):
                spans.extend(items)
    if not spans:
        return text
    out, at = [], 0
    for start, end in spans:
        out.append(text[at:start])
        out.append("\n")
        at = end
    out.append(text[at:])
    return "".join(out)


def _cut_off(text: str, label: re.Match, option: str) -> bool:
    """Whether the response ends inside the copy of `option` after `label`: a list cut
    off by the response's end (not a whole last item, "… The answer is (A) Connor.")."""
    said = [ch for ch in text[label.end():].lower() if _WORD.match(ch)]
    wanted = [ch for ch in option.lower() if _WORD.match(ch)]
    return len(said) < len(wanted) and _copied(text, label.end(), None, option) == len(text)

