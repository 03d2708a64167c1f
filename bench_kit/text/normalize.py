"""The two normalisations of text, named by what they are for.

- `normalize_for_match`: an answer compared with a gold answer (scoring). Numbers keep their
  decimal point, leading minus and thousands (1,063 -> 1063); English articles are dropped.
- `normalize_for_audit`: a question or answer compared with another item's or a reference
  text (audits: duplicates, contamination, label conflicts). Every punctuation mark and
  symbol becomes a space, so "3.5" is "3 5"; articles are kept (they matter for n-grams).

Both apply NFKC (in linear time: bench_kit.text.streamsafe), lowercase and collapse whitespace; they are total (any string in).
"""

from __future__ import annotations

import re
import string
import unicodedata

from bench_kit.text.streamsafe import nfkc

# Regexes start with a literal so the scan skips ordinary characters quickly.
_THOUSANDS = re.compile(r",(?<=\d,)(?=\d{3}(?!\d))")
_NUMERIC_MARK = re.compile(r"\.(?<=\d\.)(?=\d)|-(?<![\w.]-)(?=\d)")
_PUNCT = re.compile(r"[^\w\s\x01\x02]|_")
_ASCII_PUNCT = bytes.maketrans(string.punctuation.encode(), b" " * len(string.punctuation))
_ARTICLES = frozenset({"a", "an", "the"})
_SPACES = re.compile(r"\s+")


def _mark_numeric(match: re.Match[str]) -> str:
    return "\x01" if match.group() == "." else "\x02"


def normalize_for_match(text: str) -> str:
    """Normalise an open answer for comparison: NFKC, casefold, punctuation to spaces (a
    decimal point, a leading minus and thousands commas are kept as numbers), English
    articles dropped, whitespace collapsed.

    >>> normalize_for_match("  The Eiffel-Tower, 1,063 ft! ")
    'eiffel tower 1063 ft'
    """
    if text.isascii() and text.replace(" ", "").isalnum():  # plain words: nothing else applies
        words = text.lower().split()
        if not _ARTICLES.isdisjoint(words):
            words = [word for word in words if word not in _ARTICLES]
        return " ".join(words)
    text = nfkc(text).casefold()
    if "\x01" in text or "\x02" in text:
        text = text.replace("\x01", " ").replace("\x02", " ")
    if "," in text:
        text = _THOUSANDS.sub("", text)
    marked = "." in text or "-" in text
    if marked:  # decimal points and minus signs survive as \x01 / \x02
        text = _NUMERIC_MARK.sub(_mark_numeric, text)
    if text.isascii():  # bytes.translate: one table lookup per character
        text = text.encode().translate(_ASCII_PUNCT).decode()
    else:
        text = _PUNCT.sub(" ", text)
    if marked:
        text = text.replace("\x01", ".").replace("\x02", "-")
    words = text.split()
    if not _ARTICLES.isdisjoint(words):
        words = [word for word in words if word not in _ARTICLES]
    return " ".join(words)


def normalize_for_audit(text: str) -> str:
    """NFKC, lowercase, punctuation, symbols, separators and controls to spaces,
    whitespace collapsed (docs/AUDIT_METHODS.md#text-normalisation).

    >>> normalize_for_audit("  Is the RED circle\\u3000left of it？ ")
    'is the red circle left of it'
    """
    text = nfkc(text).lower()
    text = "".join(" " if unicodedata.category(ch)[0] in "PSZC" else ch for ch in text)
    return _SPACES.sub(" ", text).strip()
