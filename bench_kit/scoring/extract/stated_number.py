"""Which number of a sentence is the one it states (`bench_kit.scoring.extract.numbers`): the
number after its last "is" / "are" / "=" (or a sum someone needs, spends, makes or pays, unless
a later clause concludes from it), the count of "3 of the 4", and not a threshold restated
from the question ("more than 50")."""

from __future__ import annotations

import re

from bench_kit.text.numbers import NumberToken

# "is 23", "there are two", "= 10", "was approximately 2.5": the number a sentence states; so
# is a sum someone needs, spends, costs, makes or pays ("Darnel needs $23,550.00 to buy a red
# two-door coupe", "Duncan made $15.00 on July 5"), only when no later clause of the sentence
# draws a consequence, a total, another sum or what is had now (`_MONEY_LATER`: "The recipe
# needs 2 cups …, so … 8 cups", "costs $50 per person, … for 200 dollars in total", "saved $5
# each week … and now has $60"; the cleaned text has no "$").
_STATES = re.compile(
    r"(?:\b(?:is|are|was|were|be|equals?|equal\s+to|comes\s+to|gives|a\s+total\s+of)\b"
    r"|\b(?:needs?|needed|spends?|spent|costs?|made|makes|earns?|earned|pays?|paid|saved|raised"
    r"|owes?)\b"
    r"|=|≈)\s*"
    r"(?:(?:approximately|about|around|roughly|only|exactly|just|nearly|almost|a\s+total\s+of"
    r"|a\s+difference\s+of|totally|an?|~)\s+)*(?=[-+(]?\s*\.?[\dA-Za-z])", re.I)
_MONEY_VERB = re.compile(r"needs?|needed|spends?|spent|costs?|made|makes|earns?|earned|pays?|paid"
                         r"|saved|raised|owes?", re.I)
_MONEY_LATER = re.compile(r"\b(?:so|thus|therefore|hence|which|leaving|total\w*|dollars?|euros?"
                          r"|yuan|now|has)\b|元", re.I)
# "3 of the 4 numbers", "three out of five": the count, not the whole it is taken from.
OF_WHOLE = re.compile(r"\s+(?:out\s+)?of\s+(?:the\s+|all\s+|these\s+)?", re.I)
# "lower than 8", "at least 60": a threshold restated from the question, not a value.
THRESHOLD = re.compile(r"\b(?:than|least|most)\s+$", re.I)
_TIMES_COUNT = re.compile(r"\s+times\b", re.I)  # a count of occurrences is no threshold
_YEAR = re.compile(r"1[89]\d\d|20\d\d")  # a year, never a threshold's stated value


def stated(sentence: str, offset: int, tokens: list[NumberToken]) -> NumberToken:
    """The number a sentence states (after its last "is" / "are" / "=" that a number
    follows), else its last number that is no threshold ("more than 50")."""
    last = tokens[-1]
    if len(tokens) > 1 and OF_WHOLE.fullmatch(sentence, tokens[-2].end - offset,
                                               last.start - offset):
        return tokens[-2]  # "3 of the 4 numbers": the count
    starts = {token.start - offset: token for token in tokens}
    concludes = None  # where the sentence's last `_MONEY_LATER` word starts (one scan, when asked)
    for match in reversed(list(_STATES.finditer(sentence))):
        at = match.end()
        while at < len(sentence) and sentence[at] in " (":
            at += 1
        if at in starts and _MONEY_VERB.match(sentence, match.start()):
            if concludes is None:
                concludes = max((m.start() for m in _MONEY_LATER.finditer(sentence)), default=-1)
            if concludes >= starts[at].end - offset:
                continue  # a sum needed, spent, … that a later clause concludes from
        if at in starts:
            return starts[at]
    for token in reversed(tokens):  # "it will take 4 years to be greater than 32,000,000"
        if not THRESHOLD.search(sentence, max(0, token.start - offset - 12), token.start - offset) \
                or _TIMES_COUNT.match(sentence, token.end - offset):  # "crosses 50 at least 3 times"
            return last if _YEAR.fullmatch(sentence, token.start - offset, token.end - offset) \
                else token  # "In 2019, sales were more than 300 units": 300
    return tokens[-1]
