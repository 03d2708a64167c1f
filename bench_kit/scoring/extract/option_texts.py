"""How a multiple-choice response names an option by its text (rules 5 and 7 of
`bench_kit.scoring.extract.answers`): options normalised once (LaTeX read as plain text),
an option's text stated in the response, and the one option a response names."""

from __future__ import annotations

import functools
import re
from collections.abc import Mapping

from bench_kit.scoring.extract.option_statements import not_ruled_out
from bench_kit.scoring.extract.response import normalize_text
from bench_kit.text.latex import plain_latex
from bench_kit.text.words import contains_phrase, find_phrases


@functools.lru_cache(maxsize=8192)
def normalized_option(text: str) -> str:
    # Cached: the same items' options recur across models and modes. Options written in
    # LaTeX ("$2 \\mathrm{~cm}$") are read as the plain text a response writes ("2 cm").
    return normalize_text(plain_latex(text))


def yes_and_no(texts: dict[str, str]) -> bool:
    """The options (`option_texts`) are exactly Yes and No (rule 8)."""
    return len(texts) == 2 and sorted(texts.values()) == ["no", "yes"]


def option_texts(choices: Mapping[str, str], options: dict[str, str]) -> dict[str, str]:
    """{letter: normalised option text} for the options (`options`: letter -> the caller's
    key) that have a text."""
    texts: dict[str, str] = {}
    if not isinstance(choices, Mapping):
        return texts
    for letter, key in options.items():
        value = choices.get(key)
        if value is not None:
            norm = normalized_option(str(value))
            if norm:
                texts[letter] = norm
    return texts


_MATH_TERM = re.compile(r"[\d.]+|sqrt|pi")  # a normalised word of a formula


@functools.lru_cache(maxsize=8192)
def _is_formula(text: str) -> bool:
    return _MATH_TERM.search(text) is not None


def _stated(norm: str, text: str) -> bool:
    """Whether option text `text` occurs in the normalised response `norm` as whole words;
    an option that is a formula, not as a term of a longer one ("sqrt 3" is not stated in
    "6 sqrt 3" or "sqrt 3 4")."""
    if not _is_formula(text):
        return contains_phrase(norm, text)  # words: "6 o'clock" states "o'clock"
    for found in find_phrases(norm, text):
        start, end = found.span()
        beside = norm[max(0, start - 24):start].split()[-1:] + norm[end:end + 24].split()[:1]
        if not any(_MATH_TERM.fullmatch(word) for word in beside):
            return True
    return False


def by_option_text(answer: str, texts: dict[str, str], norm: str | None = None) -> str | None:
    """The one option whose text `answer` is or states (`texts`: letter -> normalised
    text; `norm`: `answer` normalised, when the caller has it), or None."""
    norm = normalize_text(answer) if norm is None else norm
    if not norm:
        return None
    exact = [letter for letter, text in texts.items() if text == norm]
    if exact:
        return exact[0] if len(exact) == 1 else None
    found = {letter: text for letter, text in texts.items() if text in norm and _stated(norm, text)}
    maximal = [letter for letter, text in found.items()
               if not any(other != text and text in other for other in found.values())]
    if len(maximal) > 1:  # several named: the one not ruled out ("the others are not …")
        maximal = not_ruled_out(answer, {letter: found[letter] for letter in maximal})
    return maximal[0] if len(maximal) == 1 else None
