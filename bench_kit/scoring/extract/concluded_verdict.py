"""The verdict of a concluding sentence that restates the question's predicate
("Is the new opening "1. e4 e5" legal?" -> "Therefore, the opening is not legal."): for
`bench_kit.scoring.extract.yesno`, when nothing else states the answer (docs/METRICS.md)."""

from __future__ import annotations

import functools
import re

from bench_kit.scoring.extract.concluding import CONCLUDES
from bench_kit.scoring.extract.restatement import content_words, negative_prefixes

# Where the concluding sentence ends: its line's end, or a sentence end before a capital that
# is no move or name in the question's quotes ("… is legal. However, …").
_SENTENCE_END = re.compile(r"\n|[.!?][ \t]+(?=(?:However|But|This|It|The|In|Note)\b)")
# "Is the new opening "1. e4 e5 2. Ne2 Qf6" legal?": the last question opening "Is" / "Are".
# (also after an opening phrase: "Under the custom variant, is …?")
_IS_QUESTION = re.compile(r"(?:^|(?<=[.!?\n])|(?<=,))[ \t]*(?:is|are)\s[^?\n]{1,200}\?", re.I)
# "Is <thing> legal?": the predicate is the question's last word before its "?".
_PREDICATE = re.compile(r"([A-Za-z]{3,})[\"'”’)]*\s*\?\s*$")


@functools.lru_cache(maxsize=4096)
def _predicate(question: str) -> tuple[frozenset[str], re.Pattern, tuple[str, ...]] | None:
    """What a "Is <thing> <predicate>?" question asks, read once per question (every response
    to it asks the same): the content words naming the thing, the pattern of the predicate
    stated after a copula, and the predicate's negative prefixes; None for another question."""
    opened = None
    for opened in _IS_QUESTION.finditer(question):  # noqa: B007 - keeps the last
        pass
    query = opened.group() if opened else ""
    word = _PREDICATE.search(query)
    if word is None:
        return None
    predicate = word.group(1).lower()
    stated = re.compile(r"\b(?:is|are|was|were)\s+(not\s+)?(?:[a-z]{1,20}ly\s+)?(?:an?\s+)?([a-z-]{0,6})"
                        + re.escape(predicate) + r"\b")
    return frozenset(content_words(query[:word.start()])), stated, negative_prefixes(predicate)


def concluded(text: str, question: str) -> str | None:
    """"yes" / "no" when the last concluding sentence of `text` states the predicate of a
    "Is <thing> <predicate>?" question (its last word) about a thing the question names
    (another of its content words) after a copula: "is legal", "is technically legal" are
    "yes", "is not legal" and "is illegal" "no"; None otherwise."""
    asked = _predicate(question)
    if asked is None:
        return None
    others, statement, negative = asked
    last = None
    for last in CONCLUDES.finditer(text):  # noqa: B007 - keeps the last
        pass
    if last is None:
        return None
    stop = _SENTENCE_END.search(text, last.end())
    sentence = text[last.end():stop.start() if stop else len(text)]
    if not content_words(sentence) & others:
        return None
    stated = statement.search(sentence.lower())
    if stated is None or stated.group(2) and stated.group(2) not in negative:
        return None
    return "no" if stated.group(1) or stated.group(2) else "yes"
