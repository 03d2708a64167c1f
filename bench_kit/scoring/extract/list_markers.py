"""The numbers of a response that mark the items of a list, not values (for
`bench_kit.scoring.extract.numbers`; docs/METRICS.md#numbers): a number opening a line with
a full stop, a comma or a closing bracket and text after it ("\\n3. 在公安机关侦查期间…",
"\\n7、户籍证明…", cleaning writes 、 as a comma), a Chinese numeral doing so after a line's
start or a sentence's end ("三、被告人…", "…损害。十、被告人…"), and a Chinese numeral in
brackets ("（一）", "（五十四）"), the way Chinese documents number their sections."""

from __future__ import annotations

import re

from bench_kit.text.cjk import CJK_CHARS
from bench_kit.text.numbers import NumberToken

# Where an item's marker may stand: a line's start (spaces and an opening bracket allowed; not
# the text's own start: "15,因为每盒有5个" is an answer clause's value and its reason).
_LINE_START = re.compile(r"\n[ \t]*\(?[ \t]*$")
# ... and, for a Chinese numeral, after a sentence's end too ("。十、" cleaned to ".十,").
_SENTENCE_START = re.compile(r"(?:\n|[.;!?])[ \t]*\(?[ \t]*$")
# What follows a marker: its full stop or closing bracket, then the item's text (after a space,
# anything: "\n2. 2018年…"; right after it, a word: not "1.3"), or 、 (cleaned to a comma) and
# Chinese text; not the line's end ("\n12.\n" is a value alone), nor a comma before other text
# ("\n12, as counted": a value; "(1,+∞)": an interval).
_AFTER_MARKER = re.compile(r"[.)](?:[ \t]+\S|[^\W\d_])|[ \t]*,[ \t]*[" + CJK_CHARS + "]")
_LEADING = re.compile(r"\s*")
_CN_BRACKETED = re.compile(r"[ \t]*\)")
_CN_NUMERALS = frozenset("零〇一二两三四五六七八九十百")


def marks_item(text: str, token: NumberToken) -> bool:
    """Whether `token` (a number of the cleaned `text`) marks a list item rather than
    stating a value ("\\n3. 在公安机关…", "三、被告人…", "（五十四）责令…")."""
    written = text[token.start:token.end]
    chinese = all(ch in _CN_NUMERALS for ch in written)
    if not chinese and not (written.isdigit() and len(written) <= 3):
        return False
    if chinese and text[max(0, token.start - 4):token.start].rstrip(" \t").endswith("(") \
            and _CN_BRACKETED.match(text, token.end):
        return True  # "（一）"
    if _AFTER_MARKER.match(text, token.end) is None:
        return False
    before = _SENTENCE_START if chinese else _LINE_START
    if before.search(text, max(0, token.start - 8), token.start) is not None:
        return True
    if chinese or text[token.end] not in ".)":
        return False
    leading = _LEADING.match(text, 0, token.start + 1)  # (the text's first number: no slice per token)
    return leading is not None and leading.end() == token.start \
        and _next_item(text, int(written), token.end)


def _next_item(text: str, number: int, after: int) -> bool:
    """Whether a line after `after` opens with the next item's marker ("1. …\n2. …"): the
    text's first number is a list's first marker, not an answer ("1. The answer is …")."""
    return re.search(rf"\n[ \t]*{number + 1}[.)、,]", text[after:]) is not None


def may_mark_items(text: str) -> bool:
    """Cheap pre-check: whether `text` may hold a list marker (a line break or a bracket)."""
    return "\n" in text or "(" in text or "," in text
