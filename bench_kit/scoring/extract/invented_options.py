"""Options a response invents: a label past the question's last option heading a sentence
or a line ("F:…" after options A-E, "…。G:…", "【E】：…" after A-D). A model that writes options
of its own goes on with the prompt's list instead of answering it: no letter of its text is
a choice (rule in `bench_kit.scoring.extract.answers`; docs/METRICS.md#extraction)."""

from __future__ import annotations

import re

from bench_kit.types import LETTERS

# A label opening the response, a line or a sentence, its text right after it: "F:自诉人…",
# "【G】：…" (read after `clean_response`: "[G]:", "。" as "."; not "Atom I: 18", "in terms of
# H: T = 20 - H", a word before the letter, nor "G: 255", a value).
_LABEL = re.compile(r"[ \t]*+(?:\[([A-J])\][ \t]*+:?|([A-J])[ \t]*+:)[ \t]*+(?=[^\s:：0-9])")
# ... after a line or sentence mark, which the scan reads (faster than a look-back at every
# position; the same labels: tests/scoring/test_fast_patterns.py)
_LABEL_AFTER_MARK = re.compile(r"[\n.;!?]" + _LABEL.pattern)
# The letters past each last option ("D": E-J), whose labels `_LABEL` looks for.
_PAST = {last: tuple(letter for letter in LETTERS if letter > last) for last in LETTERS}


def invents_options(text: str, options: dict[str, str]) -> bool:
    """Whether `text` writes a label past the last of `options` (letters A-J only, as
    `option_keys` gives them) heading a sentence or a line, followed by its text."""
    if not options or len(options) >= len(LETTERS) or any(letter not in LETTERS for letter in options):
        return False
    last = max(options)
    if not _may_label(text, _PAST[last]):
        return False  # (the common case, found by a few substring searches)
    return any((found.group(1) or found.group(2)) > last for found in labels(text))


def _may_label(text: str, past: tuple[str, ...]) -> bool:
    """Whether `text` holds "[X]" or "X:" (blanks between them allowed) for a letter X of
    `past`: each label past the last option does. A few substring searches, not a scan of
    every sentence (reasoning names the letters "I", "E" … anywhere)."""
    if "[" in text and any(f"[{letter}]" in text for letter in past):
        return True
    at = text.find(":")
    while at >= 0:
        before = at - 1
        while before >= 0 and text[before] in " \t":
            before -= 1
        if before >= 0 and text[before] in past:
            return True
        at = text.find(":", at + 1)
    return False


def labels(text: str) -> list[re.Match]:
    """The labels heading the response, a line or a sentence (`_LABEL`)."""
    first = _LABEL.match(text)
    return ([first] if first else []) + list(_LABEL_AFTER_MARK.finditer(text))
