"""Word-bounded phrase matching: the one rule for "does this phrase occur as whole words".

A phrase edge that is a letter, digit or "_" of a spaced script must not touch another
one ("cat" is not in "concatenate" or "cat_x", "caf" is not in "café"); an edge in a script
written without spaces (CJK ideographs, kana) needs no boundary ("猫" is in "黑猫"); an
edge that is punctuation needs none either. A number is not part of a longer number:
"3" is not in "3.5" or "2,3", "5" is not in "3.5".
"""

from __future__ import annotations

import functools
import re

from bench_kit.text.cjk import CJK_CHARS, KANA_CHARS

_SPACELESS = CJK_CHARS + KANA_CHARS
# a letter, digit or "_" (as in \w) of a spaced script: not an ideograph or kana
_WORD_CHAR = f"[^\\W{_SPACELESS}]"
_IS_WORD_CHAR = re.compile(_WORD_CHAR)


@functools.lru_cache(maxsize=4096)
def _pattern(phrase: str, ignore_case: bool) -> re.Pattern[str]:
    before = after = ""
    if _IS_WORD_CHAR.fullmatch(phrase[0]):
        before = f"(?<!{_WORD_CHAR})" + (r"(?<!\d[.,])" if phrase[0].isdigit() else "")
    if _IS_WORD_CHAR.fullmatch(phrase[-1]):
        after = f"(?!{_WORD_CHAR})" + (r"(?![.,]\d)" if phrase[-1].isdigit() else "")
    return re.compile(before + re.escape(phrase) + after, re.IGNORECASE if ignore_case else 0)


def find_phrase(text: str, phrase: str, *, ignore_case: bool = False) -> re.Match[str] | None:
    """The first whole-word occurrence of `phrase` in `text` (None if there is none, or
    if `phrase` is empty).

    >>> find_phrase("a black cat.", "cat").span(), find_phrase("concatenate", "cat")
    ((8, 11), None)
    >>> find_phrase("是3.5吗", "3"), find_phrase("Fire EXIT", "exit", ignore_case=True).group()
    (None, 'EXIT')
    """
    if not phrase or (not ignore_case and phrase not in text):
        return None
    return _pattern(phrase, ignore_case).search(text)


def find_phrases(text: str, phrase: str) -> list[re.Match[str]]:
    """Every whole-word occurrence of `phrase` in `text`, in order (none for an empty phrase).

    >>> [m.start() for m in find_phrases("cat, concatenate, cat", "cat")]
    [0, 18]
    """
    if not phrase or phrase not in text:
        return []
    return list(_pattern(phrase, False).finditer(text))


def contains_phrase(text: str, phrase: str, *, ignore_case: bool = False) -> bool:
    """Whether `phrase` occurs in `text` as whole words (see the module docstring).

    >>> contains_phrase("a black cat.", "cat"), contains_phrase("黑猫", "猫")
    (True, True)
    """
    return find_phrase(text, phrase, ignore_case=ignore_case) is not None
