"""Tokenisers: word tokens for n-gram overlap, and edit tokens for rewrite distance."""

from __future__ import annotations

import re

from bench_kit.text.cjk import CJK_CHARS

# A CJK ideograph is a word of its own; otherwise a word is a run of non-space characters.
_WORD_TOKEN = re.compile(rf"[{CJK_CHARS}]|[^\s{CJK_CHARS}]+")
# Words (Latin letters/digits) are tokens; each CJK ideograph is a token; so is punctuation.
_EDIT_TOKEN = re.compile(rf"[{CJK_CHARS}]|[A-Za-z0-9']+|[^\sA-Za-z0-9{CJK_CHARS}]")


def word_tokens(text: str) -> list[str]:
    """Words of an (already normalised) text, each CJK character a word of its own.

    >>> word_tokens("how many 红色 circles")
    ['how', 'many', '红', '色', 'circles']
    """
    return _WORD_TOKEN.findall(text)


def edit_tokens(text: str) -> list[str]:
    """Lower-cased word / CJK-character / punctuation tokens (for `edit_ratio`).

    >>> edit_tokens("Is it red?  是红色吗")
    ['is', 'it', 'red', '?', '是', '红', '色', '吗']
    """
    return [t.lower() for t in _EDIT_TOKEN.findall(text)]
