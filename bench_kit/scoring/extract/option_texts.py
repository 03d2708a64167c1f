"""How a multiple-choice response names an option by its text (rules 5 and 7 of
`bench_kit.scoring.extract.answers`): options normalised once (LaTeX read as plain text),
an option's text stated in the response, and the one option a response names."""

from __future__ import annotations

import functools
import re
from collections.abc import Mapping

from bench_kit.scoring.extract.option_statements import not_ruled_out
from bench_kit.scoring.extract.response import normalize_text
from bench_kit.scoring.extract.restatement import SENTENCE, content_words
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
    """Whether option text `text` occurs in the normalised response `norm` as whole words,
    not right after a negation ("40°, not 34°" does not state 34°); an option that is a
    formula, not as a term of a longer one ("sqrt 3" is not stated in "6 sqrt 3")."""
    formula = _is_formula(text)
    if not formula and not _negates(norm):
        return contains_phrase(norm, text)  # words: "6 o'clock" states "o'clock"
    for found in find_phrases(norm, text):
        start, end = found.span()
        before = norm[max(0, start - 24):start].split()
        if before and (before[-1] in _NEGATING or " ".join(before[-2:]) in _NEGATING):
            continue
        after = norm[end:end + 24].split()[:1]
        if not formula or not any(_MATH_TERM.fullmatch(word) for word in before[-1:] + after):
            return True
    return False


@functools.lru_cache(maxsize=16)
def _negates(norm: str) -> bool:
    return _NEGATION_HINT.search(norm) is not None  # once per response, not per option


_NEGATING = frozenset(["not", "except", "excluding", "rather than", "instead of"])
_NEGATION_HINT = re.compile(r"\bnot\b|\bexcept|\brather than\b|\binstead of\b")


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
    if not found:  # no option verbatim: one reworded ("flipped", "the cricket population will increase")
        found = {letter: text for letter, text in texts.items() if _reworded(answer, norm, text)}
    maximal = [letter for letter, text in found.items()
               if not any(other != text and text in other for other in found.values())]
    if len(maximal) > 1:  # several named: the one not ruled out ("the others are not …")
        maximal = not_ruled_out(answer, {letter: found[letter] for letter in maximal})
    return maximal[0] if len(maximal) == 1 else None


@functools.lru_cache(maxsize=4096)
def _inflected(word: str) -> re.Pattern:
    return re.compile(rf"\b{re.escape(word)}{re.escape(word[-1])}?(?:ed|ing|s|es|d)\b")


def _reworded(answer: str, norm: str, text: str) -> bool:
    """Whether the response states option `text` in other words: a one-word option
    inflected ("flipped" for "flip"), or every content word of a longer option in one
    sentence ("It is likely that the cricket population will increase" for "Cricket will
    increase")."""
    if " " not in text:
        return len(text) > 2 and text in norm and text.isalpha() \
            and _inflected(text).search(norm) is not None
    words = _content_words(text)
    if not words or not all(word in norm for word in words):
        return False  # (a substring check first: most options are not there at all)
    return any(words <= content_words(sentence.group()) for sentence in SENTENCE.finditer(answer))


@functools.lru_cache(maxsize=4096)
def _content_words(text: str) -> frozenset[str]:
    """An option's content words, when it has two or more and all are words, not a formula
    or numbers ("1 3", "a b"); else empty."""
    words = content_words(text)
    if len(words) < 2 or not all(word.isalpha() and len(word) > 2 for word in words):
        return frozenset()
    return frozenset(words)
