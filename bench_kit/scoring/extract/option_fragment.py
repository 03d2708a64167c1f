"""A response that is one clause or more of one option's text, no more: "请求二审法院驳回上诉，维持原判。"
for the option "综上，上诉人的上诉理由和请求不成立，请求二审法院驳回上诉，维持原判" — the part of the
option that answers, copied (rule 7 of `bench_kit.scoring.extract.answers`, after the other
readings of an option's text; docs/METRICS.md#extraction)."""

from __future__ import annotations

import re
from collections.abc import Mapping

_WORD = re.compile(r"\w")
_PLAIN = re.compile(r"[\W_]+")
_MIN_WORD_CHARS = 8  # a clause, not a word or two that many options share


def _plain(text: str) -> str:
    return _PLAIN.sub("", text.lower())


def fragment_option(text: str, choices: Mapping[str, str], options: dict[str, str]) -> str | None:
    """The letter of the one option whose text holds the whole response (at most 300
    characters, opening with a word) as a run of whole clauses: starting at the option's
    start or after a punctuation mark, ending at its end or before one; else None."""
    said = text.strip()
    if not said or len(said) > 300 or not _WORD.match(said):
        return None
    plain = _plain(said)
    if len(plain) < _MIN_WORD_CHARS:
        return None
    found = []
    for letter, key in options.items():
        option = str(choices.get(key, ""))
        if option.isascii() and len(option) < len(plain):
            continue  # (an ASCII option shorter than the response holds no copy of it)
        if _plain(option) != plain and _clauses_of(option, plain):
            found.append(letter)
    return found[0] if len(found) == 1 else None


def _clauses_of(option: str, plain: str) -> bool:
    """Whether `plain` (word characters only) is a run of whole clauses of `option`."""
    if option.isascii() and (len(plain) > len(option) or plain not in "".join(_WORD.findall(option)).lower()):
        return False  # (ASCII: its word characters lower-cased together, as one by one below)
    words = [(at, ch.lower()) for at, ch in enumerate(option) if _WORD.match(ch)]
    flat = "".join(ch for _, ch in words)
    start = flat.find(plain)
    while start >= 0:
        first, last = words[start][0], words[start + len(plain) - 1][0]
        opens = first == 0 or not _WORD.match(option[first - 1])
        closes = last + 1 == len(option) or not _WORD.match(option[last + 1])
        if opens and closes:
            return True
        start = flat.find(plain, start + 1)
    return False
