"""An elliptical contrast answers for the subject it names (`contrasted`): "The woman is not
wearing a hat, while the man is." says the man wears one and the woman does not; used by
`bench_kit.scoring.extract.yesno`."""

from __future__ import annotations

import re

from bench_kit.scoring.extract.question_asked import asked
from bench_kit.scoring.extract.restatement import (
    DENIAL,
    NEGATORS,
    SOMETIMES,
    USUALLY,
    WORDS,
    content_words,
    stem,
)

# "The woman is not wearing a hat, while the man is.": a statement about one subject, then
# an elliptical one about another, which takes the first one's predicate with its own polarity.
# (Blanks after "while" taken whole: linear on runs of them; the one clause that loses its match,
# a subject of blanks alone, "…, but   is.", named no subject and was passed over.)
_CONTRAST = re.compile(r",\s*+(?:while|whereas|but)\s++([^.!?\n,;]{1,60}?)\s+"
                       r"(?:is|are|does|do|did|can|has|have|was|were)(\s+not|n't)?\s*(?:[.!;]|$)", re.I)
_VERB = re.compile(r"\b(?:is|are|does|do|did|can|has|have|was|were)(?:n't|n’t)?\b", re.I)  # "isn't"
_CONTRAST_REACH = 200  # characters before the contrast read for its first statement


def contrasted(text: str, question: str) -> str | None:
    """"yes"/"no" when a sentence of `text` contrasts the subject the question asks about
    with another one ("The woman is not wearing a hat, while the man is." to "Is the man
    wearing a hat?" -> "yes"; to "Is the woman …?" -> "no"); None otherwise."""
    wanted = content_words(asked(question))
    for match in _CONTRAST.finditer(text):
        reach = max(0, match.start() - _CONTRAST_REACH)  # (bounded: linear in the text)
        begins = max(reach - 1, *(text.rfind(stop, reach, match.start()) for stop in ".!?\n,;")) + 1
        first, second = text[begins:match.start()], content_words(match.group(1))
        verb = _VERB.search(first)
        if verb is None or not second:
            continue
        subject = content_words(first[:verb.start()])
        predicate = content_words(first[verb.end():]) - NEGATORS
        head = WORDS.findall(first[:verb.start()].lower())[-1:]
        if "one" in second and head and len(second) > 1:  # "the left cup …, whereas the right one is not"
            second = second - {"one"} | {stem(head[0])}
            shared = {stem(head[0])}
        else:
            shared = set()
        if not predicate and subject and not subject & second and first[verb.end():].strip() == "":
            # both clauses elliptical: "The cat is, but the dog is not." answers for the one asked
            if subject <= wanted and not second <= wanted:
                return "no" if DENIAL.search(first, verb.start()) else "yes"
            if second <= wanted and not subject <= wanted:
                return "no" if match.group(2) else "yes"
            continue
        if not subject or subject & second != shared or not predicate or not predicate <= wanted:
            continue
        if second <= wanted and not subject <= wanted and wanted <= second | predicate:
            return "no" if match.group(2) else "yes"
        if subject <= wanted and not second <= wanted and wanted <= subject | predicate:
            return "no" if DENIAL.search(first, verb.start()) else "yes"
    return None


# "Lightning typically does not strike the same place twice, but it can and often does.", "In
# general, stainless steel is not magnetic, but some grades such as 430 are.": what usually
# holds denied, then the exceptions affirmed, elliptically; to a question asking whether it is
# ever / sometimes / in some cases so (`SOMETIMES`), yes (not a reported opinion: "but some
# people think it is", "but some would say it is")
_EXCEPTIONS = re.compile(r"(?:\bnot\b|n't\b|n’t\b)[^.!?\n]{0,160}?,\s*but\s+(?:it|they|some\b(?![^.!?\n,;]{0,60}?\b(?:think|thinks|say|says|said|would|believe|believes|fear|fears|claim"
                         r"|claims|argue|argues|feel|feels|suggest|suggests)\b)[^.!?\n,;]{0,60}?)"
                         r"\s+(?:can|could|do|does|is|are|will)\b(?:\s+and\s+(?:often|sometimes|occasionally"
                         r"|frequently)\s+(?:does|do|is|are))?\s*(?:[.!;]|$)", re.I)
_USUALLY_REACH = 60  # characters before the negation read for "typically", "in general"


def exceptions_affirmed(text: str, question: str) -> str | None:
    """"yes" when `text` says what usually holds is not so, but the exceptions are
    (`_EXCEPTIONS`), to a question asking whether it ever / sometimes is; None otherwise."""
    if not SOMETIMES.search(question):
        return None
    for found in _EXCEPTIONS.finditer(text):
        if USUALLY.search(text, max(0, found.start() - _USUALLY_REACH), found.start()):
            return "yes"
    return None
