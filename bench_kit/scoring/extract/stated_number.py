"""Which number of a sentence is the one it states (`bench_kit.scoring.extract.numbers`): the
number after its last "is" / "are" / "=" (or a sum someone needs, spends, makes or pays, unless
a later clause concludes from it), the count of "3 of the 4", and not a threshold restated
from the question ("more than 50"); and a count of zero stated in words ("There are no clubs
with exactly 64 members.", `no_count`)."""

from __future__ import annotations

import re

from bench_kit.scoring.extract.answer_clause import sentence_start
from bench_kit.scoring.extract.no_answer import last_refusal
from bench_kit.text.numbers import NumberToken

SENTENCE_END = re.compile(r"[.!?](?=\s|$)|\n")  # where a sentence of a response ends

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
    r"|=|≈)\s*+"
    r"(?:(?:approximately|about|around|roughly|only|exactly|just|nearly|almost|a\s+total\s+of"
    r"|a\s+difference\s+of|totally|an?|~)\s++)*(?=[-+(]?\s*\.?[\dA-Za-z])", re.I)
# "the book that costs 20 dollars": a relative clause with a sum, describing a thing named.
_DESCRIBED = re.compile(r"\b(?:the|a|an)\s+[a-z]+\s+(?:that|which)\s+(?:costs?|costed|sells?\s+for)\b",
                        re.I)
# "…, so her change is 2 dollars": a consequence after the described thing, which the
# sentence concludes.
_CONSEQUENCE = re.compile(r"[,;][ \t]*(?:so|thus|therefore|hence|which\s+means)\b", re.I)
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
    if len(tokens) > 1 and ("that" in sentence or "which" in sentence):
        described = _DESCRIBED.search(sentence)
        if described and tokens[0].start - offset < described.start() \
                and not _CONSEQUENCE.search(sentence, described.end()):
            # "Lisa needs 5 more dollars to buy the book that costs 20 dollars": the clause
            # after "the book" describes it; its sum is no value the sentence states
            sentence = sentence[:described.start()]
            tokens = [t for t in tokens if t.start - offset < described.start()]
    last = tokens[-1]
    if len(tokens) > 1 and OF_WHOLE.fullmatch(sentence, tokens[-2].end - offset,
                                               last.start - offset):
        return tokens[-2]  # "3 of the 4 numbers": the count
    starts = {token.start - offset: token for token in tokens}
    if len(tokens) > 1 and "so" in sentence:
        so = _SO_VALUE.search(sentence)
        if so is not None and so.end() in starts and starts[so.end()] is tokens[-1] \
                and not _WORKED_AFTER.match(sentence, starts[so.end()].end - offset):
            return starts[so.end()]  # "5 red marbles and 5 blue marbles, so 10 marbles in total"
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
    bound = _bound_stated(sentence, offset, tokens)
    if bound is not None:
        return bound
    for token in reversed(tokens):  # "it will take 4 years to be greater than 32,000,000"
        if not THRESHOLD.search(sentence, max(0, token.start - offset - 12), token.start - offset) \
                or _TIMES_COUNT.match(sentence, token.end - offset):  # "crosses 50 at least 3 times"
            return last if _YEAR.fullmatch(sentence, token.start - offset, token.end - offset) \
                else token  # "In 2019, sales were more than 300 units": 300
    return tokens[-1]


# ", so 10 marbles in total": a consequence that opens with the sentence's last value concludes
# it (not ", so 6 tickets cost $24", whose value follows).
_SO_VALUE = re.compile(r",[ \t]*(?:and[ \t]+)?so[ \t]+", re.I)
_WORKED_AFTER = re.compile(r"[ \t]*(?:[-+×*/÷=]|x[ \t]*\d)")  # (not ", so 19 - 7 = 12 more")


# "at least 6 chairs", "at most 12 minutes": a bound the sentence states ...
_AT_BOUND = re.compile(r"\bat\s+(?:least|most)\s+$", re.I)
# ... before numbers that only describe a place or a thing after it ("in the room with 3
# tables", "in the 5 km race").
_DESCRIBING = re.compile(r"\b(?:with|in|of|for|on|during)\s+(?:the\s+|a\s+|an\s+)?$", re.I)


def _bound_stated(sentence: str, offset: int, tokens: list[NumberToken]) -> NumberToken | None:
    """The bound a sentence states ("There must be at least 6 chairs in the room with 3
    tables." is 6) when every number after it is in a phrase describing a place or a thing."""
    if "at " not in sentence.lower():
        return None
    for index, token in enumerate(tokens[:-1]):
        if _AT_BOUND.search(sentence, max(0, token.start - offset - 12), token.start - offset):
            after = tokens[index + 1:]
            if all(_DESCRIBING.search(sentence, max(0, t.start - offset - 14), t.start - offset)
                   for t in after):
                return token
            return None
    return None


# "There are no red cubes", "The function has no zeros": a count of zero, in a response
# with no number at all.
_NONE_OF = re.compile(r"\b(?:there\s+(?:is|are|were|was)|has|have|had)\s+no\s+(?!way\b|idea\b)[a-z]",
                      re.I)
# "There are no clubs with exactly 64 members.": a count of zero; the sentence's number is the
# condition restated from the question. One clause only (`_ONE_CLAUSE`: no clause mark nor
# coordinator anywhere in the sentence, at most 3 words after its number), so "There is no
# need to convert any of the units, so the area is 24." states 24.
# "… no trees taller than 30 meters …": "than" after a comparative ("taller", "more") of the
# things counted, not one right after "no" ("no better estimate than 42", "no other number
# than 7", "no more than 5").
_NONE_WITH = re.compile(r"[ \t*-]*there\s+(?:is|are|were|was)\s+no\s+(?!way\b|idea\b)"
                        r"(?:[a-z][^.!?\n\d,;:]*\b(?:with|of|that|who|which|at)\b"
                        r"|(?![a-z]+er\b|more\b|less\b|fewer\b)[a-z][^.!?\n\d,;:]*"
                        r"\b(?!(?:other|rather)\b)(?:[a-z]+er|more|less|fewer)\s+than\b)",
                        re.I)
# "…, because the heaviest is 180 grams": a reason after the count of zero explains it.
_REASON = re.compile(r"[,;][ \t]*(?:because|since|as)\b", re.I)
# "There is no difference between the two bars, which both show 40.": a difference of zero.
# Only "… between …" in one clause, or with a remark that both show the same ("…, which both
# show 40"); not "There is no difference in the result; both methods give 42.".
_NO_DIFFERENCE = re.compile(r"[ \t*-]*there\s+(?:is|was)\s+no\s+difference\s+between\b[^.!?\n,;:]*"
                            r"(?:,[ \t]*(?:which|as|since)[ \t]+(?:both|each|they[ \t]+both)\b[^.!?\n,;:]*)?"
                            r"(?:[.!?\n]|$)", re.I)
_CLAUSE_BREAK = re.compile(r"[,;:—–，；]|\b(?:and|but|so|while|whereas|because|since|then|which)\b",
                           re.I)
# (a place closing it: "in the park", "on the left side of the chart")
_FEW_WORDS = re.compile(r"[^\s\d]*(?:\s+[^\s\d]+){0,3}(?:\s+(?:in|on)\s+the\s+[^\s\d]+"
                        r"(?:\s+(?:side|part|half|corner|end)\s+of\s+the\s+[^\s\d]+)?)?\s*")


def no_count(text: str, found: list[NumberToken]) -> NumberToken | None:
    """A count of zero a response without an answer clause states, as a token over its words:
    "there is / are no …" or "has no …" in a response without numbers ("The function has no
    zeros."), or its last sentence with a number opening "There are no … with / of / that /
    than …" ("There are no clubs with exactly 64 members."; a reason after a comma may follow,
    "…, because the heaviest is 180 grams."), or "There is no difference …"; None for a
    refusal ("there is no information")."""
    differs = _NO_DIFFERENCE.match(text, sentence_start(text, found[-1].start)) if found else None
    if differs is not None:
        return None if last_refusal(text) else NumberToken(0.0, differs.start(), differs.end())
    zero = _NONE_WITH.match(text, sentence_start(text, found[-1].start)) if found \
        else _NONE_OF.search(text)
    if zero is None or last_refusal(text):
        return None
    if found:
        reason = _REASON.search(text, zero.end(), found[-1].start)
        within = [t for t in found if zero.end() <= t.start < reason.start()] if reason else found
        if not within or not _one_clause(text, zero.end(), within[-1],
                                         reason.start() if reason else None):
            return None
    return NumberToken(0.0, zero.start(), zero.end())


def _one_clause(text: str, at: int, last: NumberToken, end: int | None = None) -> bool:
    """Whether the sentence of a count of zero, from `at` (after its condition word) on, is
    one clause that ends (at `end`, if given) within 3 words of its number `last` ("… with
    exactly 64 members."; a place after them too: "… taller than 30 meters in the park.", "…
    higher than 50 on the left side of the chart.")."""
    if end is None:
        stop = SENTENCE_END.search(text, last.end, last.end + 80)
        end = stop.start() if stop else len(text)
    return end - at <= 300 and not _CLAUSE_BREAK.search(text, at, end) \
        and _FEW_WORDS.fullmatch(text, last.end, end) is not None


# "There is one office that is exactly 38 square meters.": a count of things meeting a
# condition restated from the question (`count_with`).
_THERE_IS = re.compile(r"[ \t*-]*there\s+(?:is|are|were|was)\s+(?:only\s+|exactly\s+)?", re.I)
_CONDITION = re.compile(r"[^.!?\n\d,;:]*?\b(?:with|of|that|who|which|at)\b", re.I)


def count_with(text: str, found: list[NumberToken]) -> NumberToken | None:
    """The count a last sentence "There is / are <count> … with / of / that / who / which /
    at … <number>" states, when it is one clause ending within 3 words of its number ("There
    is one office that is exactly 38 square meters." is 1, as "There are no clubs with
    exactly 64 members." counts 0); else None."""
    if len(found) < 2:
        return None
    start = sentence_start(text, found[-1].start)
    there = _THERE_IS.match(text, start)
    count = next((t for t in found if t.start == there.end()), None) if there else None
    if count is None or count is found[-1]:
        return None
    condition = _CONDITION.match(text, count.end)
    if condition is None or condition.end() > found[-1].start or any(
            count.end < t.start < found[-1].start for t in found):
        return None
    return count if _one_clause(text, condition.end(), found[-1]) else None
