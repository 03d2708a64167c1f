"""CJK detection: which characters count as Chinese/Japanese/Korean ideographs."""

from __future__ import annotations

import re

# CJK Unified Ideographs, Extension A and the Compatibility Ideographs block.
CJK_CHARS = "\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff"
CJK = re.compile(f"[{CJK_CHARS}]")


def has_cjk(text: str) -> bool:
    """True when the text contains a CJK ideograph.

    >>> has_cjk("出口 EXIT"), has_cjk("EXIT")
    (True, False)
    """
    return CJK.search(text) is not None


def cjk_count(text: str) -> int:
    """Number of CJK ideographs in the text.

    >>> cjk_count("红色 circle 圆")
    3
    """
    return len(CJK.findall(text))
