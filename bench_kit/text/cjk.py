"""CJK character ranges: the one table of which characters are Chinese/Japanese/Korean.

Every regex that needs a CJK range builds it from the strings here (a test,
tests/test_one_definition.py, fails on a range written elsewhere). Ranges are Unicode's
blocks (Unicode 15.1, https://www.unicode.org/charts/):

- ideographs (`CJK_CHARS`): CJK Unified Ideographs U+4E00-9FFF, Extension A U+3400-4DBF,
  Compatibility Ideographs U+F900-FAFF, and the Supplementary and Tertiary Ideographic
  Planes U+20000-3FFFF (Extensions B-I and the Compatibility Supplement);
- kana (`KANA_CHARS`): Hiragana U+3040-309F, Katakana U+30A0-30FF, Katakana Phonetic
  Extensions U+31F0-31FF;
- hangul (`HANGUL_CHARS`): Hangul Syllables U+AC00-D7AF.

The Yijing Hexagram Symbols (U+4DC0-4DFF), which sit between Extension A and the
Unified block, are symbols, not ideographs, and are left out.
"""

from __future__ import annotations

import re

CJK_CHARS = "\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\U00020000-\U0003ffff"
KANA_CHARS = "\u3040-\u30ff\u31f0-\u31ff"
HANGUL_CHARS = "\uac00-\ud7af"
# Characters of the CJK scripts that are written without spaces: each is a token of its own.
CJK_SCRIPT_CHARS = CJK_CHARS + KANA_CHARS + HANGUL_CHARS

CJK = re.compile(f"[{CJK_CHARS}]")


def has_cjk(text: str) -> bool:
    """True when the text contains a CJK ideograph.

    >>> has_cjk("出口 EXIT"), has_cjk("EXIT"), has_cjk("\U00020000")
    (True, False, True)
    """
    return CJK.search(text) is not None


def cjk_count(text: str) -> int:
    """Number of CJK ideographs in the text.

    >>> cjk_count("红色 circle 圆")
    3
    """
    return len(CJK.findall(text))
