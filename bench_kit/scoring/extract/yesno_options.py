"""Options that are exactly Yes and No (rule 8 of `bench_kit.scoring.extract.answers`):
the response's yes/no answer chooses the option, and a letter written with the other
option's word ("A: no") is that word."""

from __future__ import annotations

import re
from collections.abc import Mapping

from bench_kit.scoring.extract.option_texts import option_texts, yes_and_no
from bench_kit.scoring.extract.response import (
    CONTINUATION,
    FAILED,
    PARSE_LENIENT,
    Extraction,
    extraction,
)
from bench_kit.scoring.extract.yesno import extract_yesno

_LETTER_WORD = re.compile(r"(?<![A-Za-z])[(\[]?([A-J])[)\]]?[ \t]*+[:.)]?[ \t]*+((?i:yes|no))(?![A-Za-z])")
_YESNO_LINE = re.compile(r"^[ \t]*[(\[]?[A-Ja-j][)\].:][ \t]*(yes|no)[ \t]*$", re.M | re.I)


def letter_then_word(text: str, choices: Mapping[str, str], options: dict[str, str],
                      found: Extraction[str]) -> Extraction[str]:
    """Yes/No options: a letter written with the other option's word ("A: no", "A) no" with
    A = Yes) is that word ("A:" is the answer prefix of a Q/A transcript); the option list
    echoed ("(A) yes\n(B) no") is no answer."""
    said = _LETTER_WORD.findall(text)
    if not said:
        return found
    texts = option_texts(choices, options)
    if not yes_and_no(texts):
        return found
    if "\n" in text:
        cut = CONTINUATION.search(text)
        listed = {m.lower() for m in _YESNO_LINE.findall(text[:cut.start()] if cut else text)}
        if len(listed) == 2:
            return FAILED
    letter = next(k for k, key in options.items() if key == found.value)
    words = [word.lower() for named, word in said if named == letter]
    if words and words[-1] != texts[letter]:
        other = next(k for k, t in texts.items() if t == words[-1])
        return extraction(options[other], PARSE_LENIENT)
    return found


def yesno_option(text: str, texts: dict[str, str], options: dict[str, str],
                  question: str | None) -> Extraction[str]:
    """Rule 8: options that are Yes and No (`texts`) read a yes/no answer ("X is not the
    maximum" -> the No option), lenient."""
    said = extract_yesno(text, question)
    letter = next((k for k, t in texts.items() if t == said), None)
    return extraction(options[letter], PARSE_LENIENT) if letter else FAILED
