"""An answer clause's yes/no written in quotes ('the answer is "no" because …', '答案是“否”'):
read without its quotes, unless its sentence quotes the other word too ('"yes" or "no"
depending on …'): no answer (`bench_kit.scoring.extract.yesno`; docs/METRICS.md#extraction)."""

from __future__ import annotations

import re

# A quoted yes/no (also 是 / 否), in any of the quotes models write.
_QUOTED = re.compile(r"[\"'“‘「『]((?:yes|no)(?![A-Za-z])|[是否])[\"'”’」』]", re.I)
_OPENING = re.compile(r"^\s*" + _QUOTED.pattern, re.I)  # ... opening the clause's tail
_ZH = {"是": "yes", "否": "no"}


def opens_quoted(tail: str) -> bool:
    """Whether `tail` opens with a quoted yes/no."""
    return _OPENING.match(tail) is not None


def quotes_both(tail: str, end: int) -> bool:
    """Whether `tail[:end]` (the clause's sentence) quotes both yes and no."""
    return len({_ZH.get(found.group(1), found.group(1).lower())
                for found in _QUOTED.finditer(tail, 0, end)}) > 1


def unquoted(tail: str) -> str:
    """`tail` with the quotes around its opening yes/no dropped ('"no" because' -> 'no because')."""
    return _OPENING.sub(r"\1", tail, count=1)
