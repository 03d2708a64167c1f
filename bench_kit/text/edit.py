"""Edit distance: Levenshtein on strings or token lists, and the token edit ratio."""

from __future__ import annotations

from typing import Sequence

from bench_kit.text.tokens import edit_tokens


def levenshtein(a: Sequence[object], b: Sequence[object]) -> int:
    """Edit distance (insertions, deletions, substitutions) between two strings or two
    token sequences.

    >>> levenshtein("kitten", "sitting"), levenshtein(["a", "b"], ["b"])
    (3, 1)
    """
    if a == b:
        return 0
    if len(a) < len(b):
        a, b = b, a
    if not b:
        return len(a)
    previous = list(range(len(b) + 1))
    for i, ca in enumerate(a, start=1):
        current = [i]
        for j, cb in enumerate(b, start=1):
            current.append(min(previous[j] + 1, current[j - 1] + 1,
                               previous[j - 1] + (ca != cb)))
        previous = current
    return previous[-1]


def edit_ratio(a: str, b: str) -> float:
    """Token-level Levenshtein distance divided by the longer token count (0 = same).

    >>> edit_ratio("what colour is the circle", "what colour is this object")
    0.4
    """
    x, y = edit_tokens(a), edit_tokens(b)
    if not x and not y:
        return 0.0
    return levenshtein(x, y) / max(len(x), len(y))
