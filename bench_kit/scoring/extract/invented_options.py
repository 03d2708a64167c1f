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
_LABEL = re.compile(r"(?:^|(?<=[\n.;!?]))[ \t]*+(?:\[([A-J])\][ \t]*+:?|([A-J])[ \t]*+:)"
                    r"[ \t]*+(?=[^\s:：0-9])")


def invents_options(text: str, options: dict[str, str]) -> bool:
    """Whether `text` writes a label past the last of `options` (letters A-J only, as
    `option_keys` gives them) heading a sentence or a line, followed by its text."""
    if not options or len(options) >= len(LETTERS) or any(letter not in LETTERS for letter in options):
        return False
    last = max(options)
    return any((found.group(1) or found.group(2)) > last for found in _LABEL.finditer(text))
