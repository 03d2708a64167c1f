"""Whether a response says an option in other words (bench_kit.scoring.extract.option_texts
reads an option's text with these): a one-word option inflected ("flipped" for "flip", an -ly
adverb) or a longer option's content words within one clause ("Cricket will increase" said as
"the cricket population increases"), never right after a negation; a Chinese option said
with words left out ("经济得到了发展" for "经济得到恢复和发展"); and the options a response
names only as the others it sets aside."""

from __future__ import annotations

import functools
import re

from bench_kit.scoring.extract.restatement import NEGATORS, SENTENCE, WORDS, content_words, stem
from bench_kit.scoring.extract.set_aside_options import only_as_others
from bench_kit.text.cjk import CJK


def _not_others(answer: str, norm: str, found: dict[str, str]) -> dict[str, str]:
    """`found` without the options named only as the others set aside ("The other options
    can be ruled out as there is no bow to suggest shooting an arrow"); "other" is in every
    such clause."""
    if not found or "other" not in norm:
        return found
    return {letter: text for letter, text in found.items()
            if not only_as_others(answer, {letter: text})}


@functools.lru_cache(maxsize=4096)
def _inflected(word: str) -> re.Pattern:
    """An inflected form of `word`; group "strong": its participle ("flipped", "turned")."""
    return re.compile(rf"{re.escape(word)}{re.escape(word[-1])}?(?:(?P<strong>ed|d)|ing|s|es|ly)")


def _negated(words: list[str], index: int) -> bool:
    """Whether one of the three words before `words[index]` negates it ("not flipped",
    "has not been flipped", "will not increase"; "isn't" normalises to "isn t")."""
    return not NEGATORS.isdisjoint(words[max(0, index - 3):index])


_WEAK, _STRONG = 1, 2
_COPULAS = frozenset("is are was were be been being".split())
# A sentence about judging or seeing, not about what is shown ("I can't see the sky clearly",
# "It's hard to judge, really", "too blurry to judge the image properly").
_JUDGING = re.compile(r"\b(?:can|cannot|could|may|might|hard|difficult|too|whether|check|judge|see"
                      r"|seen|read|tell|determine|answer|sure)\b", re.I)


def _adverb(words: list[str], index: int, judging: bool) -> bool:
    """Whether the -ly form `words[index]` tells how the subject moves or is done
    ("shifting horizontally", "published weekly", "drawn perfectly"): not right after a
    copula ("The poem is lovely"), no negation in the six words before it ("does not move
    vertically; it pans across the room horizontally" keeps the second), and its sentence
    not about judging or seeing (`judging`)."""
    if judging or index and words[index - 1] in _COPULAS:
        return False
    return NEGATORS.isdisjoint(words[max(0, index - 6):index])


def _reworded_word(answer: str, norm: str, text: str) -> int:
    """`_reworded` for a one-word option: `_STRONG` for its participle or the sentence's
    last word, `_WEAK` for another inflected form, 0 when not said (or only negated, or an
    "-ly" form that is no adverb of manner)."""
    if not (len(text) > 2 and text in norm and text.isalpha()):
        return 0
    pattern, found = _inflected(text), 0
    for sentence in SENTENCE.finditer(answer):
        words, judging = WORDS.findall(sentence.group().lower()), None
        for index, word in enumerate(words):
            form = pattern.fullmatch(word)
            if form is not None and form.group().endswith("ly"):
                if judging is None:  # (once a sentence)
                    judging = _JUDGING.search(sentence.group()) is not None
                if not _adverb(words, index, judging):
                    continue
            if form is not None and not _negated(words, index):
                strong = form.group("strong") or index == len(words) - 1
                found = max(found, _STRONG if strong else _WEAK)
    return found


def _reworded(answer: str, norm: str, text: str) -> int:
    """How the response states option `text` in other words, not negated: 0 not at all;
    `_STRONG`: a one-word option as its participle ("flipped" for "flip") or as the
    sentence's last word ("The population increases."), or every content word of a longer
    option in one sentence ("It is likely that the cricket population will increase" for
    "Cricket will increase"), none of them right after a negation; `_WEAK`: another
    inflected form ("the temperature falls below zero" for the season "fall"), which makes
    a second option ambiguous but is no answer alone."""
    if " " not in text:
        return _reworded_word(answer, norm, text)
    if text.isascii() and text.replace(" ", "").isalnum():  # words split at spaces: first
        for word in text.lower().split():  # a cheaper test than the content words
            if len(word) > 2 and word[:3] in norm:
                break
        else:
            return 0  # each content word is a word's prefix of 3+ letters: none is in `norm`
    wanted = _content_words(text)
    if not wanted or not all(word in norm for word in wanted):
        return 0  # (a substring check first: most options are not there at all)
    negative = not NEGATORS.isdisjoint(wanted)  # an option that negates ("will not rise")
    for sentence in SENTENCE.finditer(answer):
        words = WORDS.findall(sentence.group().lower())
        if not wanted <= content_words(" ".join(words)):
            continue
        if negative or not any(stem(word) in wanted and _negated(words, index)
                               for index, word in enumerate(words)):
            return _STRONG
    return 0


_CLAUSE_PART = re.compile(r"[^,;:.!?\n]+")


def _in_one_clause(answer: str, text: str) -> bool:
    """Whether every content word of a longer option is in one clause of `answer` (between
    commas, not only in one sentence)."""
    wanted = _content_words(text)
    return bool(wanted) and any(wanted <= content_words(part.group())
                                for part in _CLAUSE_PART.finditer(answer))


@functools.lru_cache(maxsize=4096)
def _content_words(text: str) -> frozenset[str]:
    """An option's content words, when it has two or more and all are words, not a formula
    or numbers ("1 3", "a b"); else empty."""
    words = content_words(text)
    if len(words) < 2 or not all(word.isalpha() and len(word) > 2 for word in words):
        return frozenset()
    return frozenset(words)


_PARTICLES = frozenset("了的地得着过")  # grammar a restatement adds ("得到了")
_CJK_NEGATORS = frozenset("不没未非无否")


def shortened_cjk(answer: str, texts: dict[str, str]) -> str | None:
    """The one option a short Chinese response says with words left out: its characters
    (particles aside) are, in order, at least half of that option's ("经济得到了发展" for
    "经济得到恢复和发展"), and the option's negations are kept ("经济发展" is not "经济不发展");
    None when no option or several are so said, or the response is long or not Chinese
    (`texts`: letter -> normalised text)."""
    said = CJK.findall(answer)
    if not 4 <= len(said) <= 40 or 2 * len(said) < len(answer.replace(" ", "")):
        return None
    core = [ch for ch in said if ch not in _PARTICLES]
    found = []
    for letter, text in texts.items():
        own = CJK.findall(text)
        if len(own) < 4 or 2 * len(core) < len(own) or not _CJK_NEGATORS.intersection(own) <= set(core):
            continue
        rest = iter(own)
        if all(ch in rest for ch in core):  # (in order: each found after the one before)
            found.append(letter)
    return found[0] if len(found) == 1 else None
