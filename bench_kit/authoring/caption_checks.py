"""Is a question made from a caption well formed? (`bench-kit author from-captions`).

Caption rules work on surface patterns, and real captions (COCO, Flickr8k) break them:
"A blue and yellow train" would give "What colour is the and?", "A green fire hydrant"
"What colour is the fire?", "Two buses and a taxi go down a street," "How many buses are
there and a taxi go down a street,?". Each generated question is checked here; a question
with a problem is rejected with the reason (written to the rejects file), never emitted.
The checks are conservative: they reject some fine questions rather than keep a broken one
(acceptance rates on real caption files are in docs/AUTHORING.md).
"""

from __future__ import annotations

import re

from bench_kit.text.words import find_phrase

# Words that cannot be the head of a noun phrase, nor end a question.
FUNCTION_WORDS = frozenset("""
a an the and or but nor so yet of in on at by for from to with without into onto over under
above below behind beside besides between near next through across along against around
about after before during while that which who whom whose this these those there here is
are was were be been being has have had do does did will would can could may might must
shall should as than then its their his her our your my some any each every no not very
too also just only""".split())
# Words that may follow a noun phrase (so the phrase has ended there).
_PARTICIPLE = re.compile(r"^[a-z]+(?:ing|ed)$")
_ADVERBS = frozenset("outside inside together here there nearby down up out away".split())
FINITE_PLURAL_VERBS = frozenset("are lie sit stand hang wait play run walk look pose".split())
_WORD = re.compile(r"[a-z]+(?:-[a-z]+)?")


def _words(text: str) -> list[str]:
    return _WORD.findall(text.lower())


def _phrase_ends_after(caption: str, phrase: str) -> str | None:
    """The word after `phrase` in the caption ("" at the end), or None if not found."""
    lowered = caption.lower()
    match = find_phrase(lowered, phrase)
    if match is None:
        return None
    following = _words(lowered[match.end():])
    return following[0] if following else ""


def _noun_problem(noun: str) -> str | None:
    words = _words(noun)
    if not words:
        return "empty noun phrase"
    for word in words:
        if word in FUNCTION_WORDS:
            return f"'{word}' in the noun phrase '{noun}' is not a noun"
    head = words[-1]
    if head.endswith(("ed", "ly")) or _PARTICIPLE.match(head) and head.endswith("ing"):
        return f"'{head}' is not a noun"
    if any(w.endswith("ing") for w in words):
        return f"the noun phrase '{noun}' holds a verb form"
    return None


def _surface_problem(question: str) -> str | None:
    if not question.endswith(("?", "？")):
        return "does not end with a question mark"
    if re.search(r"\s[,.;:]|[,.;:]\s*[?？]|\s{2,}", question):
        return "stray punctuation or spacing"
    words = _words(question)
    if words and words[-1] in FUNCTION_WORDS - {"there", "here"}:
        return f"ends with the dangling word '{words[-1]}'"
    return None


def attribute_problem(noun: str, caption: str) -> str | None:
    """'What colour is the NOUN?': NOUN must be the whole noun (not 'fire' of 'fire hydrant')."""
    problem = _noun_problem(noun)
    if problem:
        return problem
    following = _phrase_ends_after(caption, noun)
    if following and following not in FUNCTION_WORDS and following not in _ADVERBS \
            and not _PARTICIPLE.match(following) and not following.endswith("s"):
        return f"'{noun} {following}' continues the noun phrase; the colour may not be the " \
               f"{noun}'s"
    return None


def count_problem(noun: str, rest: str, inserted_are_there: bool) -> str | None:
    """'How many NOUNS …?': a noun phrase without verbs, followed by a verb or 'are there'
    plus a modifier (preposition, participle), never by a bare clause."""
    problem = _noun_problem(noun)
    if problem:
        return problem
    following = _words(rest)
    if inserted_are_there and rest.lstrip().startswith((",", ";")):
        return "'are there,' starts an appended clause"
    if not inserted_are_there:
        if not following or following[0] not in FINITE_PLURAL_VERBS:
            return "no finite verb after the counted noun"
        return None
    if following and following[0] not in FUNCTION_WORDS and following[0] not in _ADVERBS \
            and not _PARTICIPLE.match(following[0]):
        return f"'are there {following[0]}' does not parse"
    if following and following[0] in ("and", "or", "but"):
        return f"'are there {following[0]}' leaves a dangling clause"
    return None


def answer_problem(answers: list[str]) -> str | None:
    """Answers must be content words (no 'that', 'which', …)."""
    for answer in answers:
        for word in _words(answer):
            if word in FUNCTION_WORDS:
                return f"answer '{answer}' holds the function word '{word}'"
    return None


def question_problem(question: str) -> str | None:
    """Problems every English question is checked for (punctuation, dangling words)."""
    return _surface_problem(question)
