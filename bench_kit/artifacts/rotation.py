"""CircularEval rotations: what a prediction's `rotation` field means. Rotation r shows
option letter i with the text of letter i + r; the runner renders prompts with it and the
scorer maps the gold letter through it, so both read this one definition."""

from __future__ import annotations

from typing import Mapping


def rotate_choices(choices: Mapping[str, str], rotation: int) -> dict[str, str]:
    """Shift option texts by `rotation` positions (CircularEval): letter i shows the text of
    letter i + rotation.

    >>> rotate_choices({"A": "cat", "B": "dog", "C": "fox"}, 1)
    {'A': 'dog', 'B': 'fox', 'C': 'cat'}
    """
    letters = sorted(choices)
    texts = [choices[k] for k in letters]
    n = len(letters)
    return {letters[i]: texts[(i + rotation) % n] for i in range(n)}


def rotated_gold(letter: str, choices: Mapping[str, str], rotation: int) -> str:
    """Where the option at `letter` appears after `rotate_choices(choices, rotation)`.

    >>> rotated_gold("A", {"A": "cat", "B": "dog", "C": "fox"}, 1)
    'C'
    """
    letters = sorted(choices)
    return letters[(letters.index(letter) - rotation) % len(letters)]
