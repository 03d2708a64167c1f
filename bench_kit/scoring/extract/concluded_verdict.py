"""The verdict of a concluding sentence that restates the question's predicate
("Is the new opening "1. e4 e5" legal?" -> "Therefore, the opening is not legal."): for
`bench_kit.scoring.extract.yesno`, when nothing else states the answer (docs/METRICS.md).
The sentence is read with the guards of `bench_kit.scoring.extract.restatement`: a
tentative one (the question asked again, a condition, a contrast) or a hedged one says
nothing."""

from __future__ import annotations

import functools
import re

from bench_kit.scoring.extract.concluding import CONCLUDES
from bench_kit.scoring.extract.restatement import (
    DENIAL,
    HEDGED_STATE,
    TENTATIVE,
    WORDS,
    adds,
    content_words,
    negative_prefixes,
)

# Where the concluding sentence ends: its line's end or a sentence end, unless the next
# token is one of the question's quoted tokens ("the opening "1. e4 e5" is legal": "1." ends
# no sentence).
_SENTENCE_END = re.compile(r"\n|[.!?][.!?]*(?=[ \t]|$)")
_NEXT_TOKEN = re.compile(r"[ \t]+[\"'“‘(]*([^\s\"'”’)]+)")
_QUOTED = re.compile(r"[\"“]([^\"”\n]{1,200})[\"”]")
# "Is the new opening "1. e4 e5 2. Ne2 Qf6" legal?": the last question opening "Is" / "Are".
# (also after an opening phrase: "Under the custom variant, is …?")
_IS_QUESTION = re.compile(r"(?:^|(?<=[.!?\n])|(?<=,))[ \t]*(?:is|are)\s[^?\n]{1,200}\?", re.I)
# "Is <thing> legal?": the predicate is the question's last word before its "?" (not the
# second of two offered, "Is the number odd or even?", which asks no yes/no, nor a compared
# side: "Is X less than Chartreuse?", "Is blood ever any color other than red?").
_PREDICATE = re.compile(r"(?<!\bor )(?<!\bthan )\b([A-Za-z]{3,})[\"'”’)]*\s*\?\s*$")
# "…, which is legal in standard chess, is illegal here": a relative clause says something
# else than the sentence's own verdict
_RELATIVE = re.compile(r",[ \t]*(?:which|who)\b[^,;\n]{0,120},")
# Adverbs between the copula and the predicate that deny it ("hardly supported") or hedge it
# ("supposedly legal", "nearly full"); others ("technically", "monotonically") leave it stated.
# The words that may stand between the copula and the predicate: a negation, an adverb, an
# article ("is not only a legal", "is technically legal", "is neither open nor closed"; not
# "is more than Chartreuse", "is the roughest")
_BETWEEN = r"not|never|neither\s+[a-z-]+\s+nor|[a-z]{1,20}ly|an?|only|just|also|still|now|indeed"
# A correction opening a later sentence ("Wait, …", "Actually, …") replaces the conclusion.
_CORRECTED = re.compile(r"(?:^|(?<=[.!?])[ \t]+)(?:wait|actually|on\s+second\s+thought|correction|hmm+)\b[,:!]?",
                        re.I | re.M)
# A contrast in the sentence leaves the verdict to the part after it ("bounded above but not
# bounded below" states none).
_CONTRASTS = frozenset(("but", "while", "whereas"))
_SCARCELY = frozenset("hardly barely scarcely rarely seldom".split())
_HEDGING = frozenset("supposedly seemingly allegedly apparently arguably presumably potentially "
                     "likely nearly almost partly partially somewhat".split())


# What a question asks (`_predicate`): the thing's words, the predicate, its pattern after a
# copula, its negative prefixes, the question's quoted tokens and its lower-cased words.
_Asked = tuple[frozenset[str], str, re.Pattern, tuple[str, ...], frozenset[str], str]


@functools.lru_cache(maxsize=4096)
def _predicate(question: str) -> _Asked | None:
    """What a "Is <thing> <predicate>?" question asks, read once per question (every response
    to it asks the same): the content words naming the thing, the predicate, the pattern of it
    stated after a copula (up to three words between), the predicate's negative prefixes,
    the question's quoted tokens and its lower-cased words; None for another question."""
    opened = None
    for opened in _IS_QUESTION.finditer(question):  # noqa: B007 - keeps the last
        pass
    query = opened.group() if opened else ""
    word = _PREDICATE.search(query)
    if word is None:
        return None
    predicate = word.group(1).lower()
    stated = re.compile(r"\b(?:is|are|was|were)(n't|n’t)?\s+((?:(?:" + _BETWEEN + r")\s+){0,3}?)([a-z-]{0,6})"
                        + re.escape(predicate) + r"\b")
    quoted = frozenset(token for found in _QUOTED.finditer(question) for token in found.group(1).split())
    return (frozenset(content_words(query[:word.start()])), predicate, stated, negative_prefixes(predicate), quoted,
            " ".join(WORDS.findall(query.lower())))


def _sentence(text: str, start: int, quoted: frozenset[str]) -> tuple[str, str]:
    """The sentence of `text` from `start` and the mark that ends it ("" at a line's or the
    text's end)."""
    for end in _SENTENCE_END.finditer(text, start):
        following = _NEXT_TOKEN.match(text, end.end())
        if following is None or following.group(1) not in quoted:
            return text[start:end.start()], end.group()[:1].strip()
    return text[start:], ""


def _between(words: str, question: str) -> str | None:
    """How the words between the copula and the predicate bear on it: "no" when they deny
    it ("not", "neither … nor", "hardly"; not "not only" / "not just", which add, unless the
    question asks about that word), "hedged" when they hedge it, "" otherwise."""
    if any(not adds(words, denial, question) for denial in DENIAL.finditer(words)):
        return "no"
    said = set(words.split())
    if said & _SCARCELY:
        return "no"
    return "hedged" if said & _HEDGING else ""


def concluded(text: str, question: str) -> str | None:
    """"yes" / "no" when the last concluding sentence of `text` states the predicate of a
    "Is <thing> <predicate>?" question (its last word) about a thing the question names
    (another of its content words) after a copula: "is legal", "is technically legal" are
    "yes", "is not legal", "is hardly legal" and "is illegal" "no" ("is not illegal" "yes");
    None otherwise, and for a sentence that asks ("So the door is open? No, …"), hedges
    ("possibly", "supposedly", "may") or is tentative (`restatement.TENTATIVE`: "whether",
    "if"); after a contrast ("but", "while") the part after it must state the verdict. A
    sentence opening with a correction ("Wait, …") after it is read instead when it states a
    verdict ("Actually, it is a bad opening." states none)."""
    asked = _predicate(question)
    if asked is None:
        return None
    last = None
    for last in CONCLUDES.finditer(text):  # noqa: B007 - keeps the last
        pass
    if last is None:
        return None
    corrected = None
    for corrected in _CORRECTED.finditer(text, last.end()):  # noqa: B007 - keeps the last
        pass  # "Therefore, … illegal. Wait, … so the opening is legal."
    return (corrected and _verdict(text, corrected.end(), asked)) or _verdict(text, last.end(), asked)


def _verdict(text: str, start: int, asked: _Asked) -> str | None:
    """The verdict of the sentence of `text` opening at `start` on the question read as
    `asked` (`_predicate`), or None."""
    others, predicate, statement, negative, quoted, words = asked
    sentence, mark = _sentence(text, start, quoted)
    if mark == "?" or not content_words(sentence) & others:
        return None
    sentence = _RELATIVE.sub(",", sentence.lower())
    contrast = None
    for found in TENTATIVE.finditer(sentence):
        if found.group() not in _CONTRASTS:
            return None  # "whether the opening is legal", "legal only if …"
        contrast = found
    if contrast:  # "… is not open, but it is closed": the verdict is the last part's, when it
        # names the predicate ("… legal, but not a good one": the part before it)
        sentence = sentence[contrast.end():] if predicate in sentence[contrast.end():] \
            else sentence[:contrast.start()]
    stated = statement.search(sentence)
    if stated is None or stated.group(3) and stated.group(3) not in negative \
            or HEDGED_STATE.search(sentence, 0, stated.end()) or DENIAL.search(sentence, 0, stated.start()):
        # (a denial before it, "we cannot conclude that …", leaves it open; a hedge after the
        # verdict is the reason's: "… legal, as the knight could …")
        return None
    between = _between(stated.group(2), words)
    if between == "hedged":
        return None
    denied = bool(stated.group(1)) or between == "no"
    return "no" if denied != bool(stated.group(3)) else "yes"
