"""Ways a chat answer declines a yes/no question beyond the refusals every family shares
(`NO_ANSWER`): read by the fallback of `bench_kit.scoring.extract.yesno` (`_read`)."""

from __future__ import annotations

import re

from bench_kit.scoring.extract.no_answer import last_refusal

# "it is not (publicly) known whether …", "we don't know.", "a matter of debate (not after "no
# longer a" / "not a") / up to
# interpretation", "I will not answer this question", "not answerable", "no public
# information", "I cannot predict …", "not clear-cut", neither of a word and its opposite
# ("not (yet explicitly) legal or illegal"), "I can't definitively answer whether", "not
# appropriate for me to …", "no one-size-fits-all", "the answer depends / varies", "difficult to
# (definitively) label / classify" (20 tuning rows fixed, 1 broken, all of them StrategyQA or
# chat answers)
_DECLINES_SOURCE = (
    r"(?:it\s+is|it's|it’s)\s+not\s+(?:publicly\s+|currently\s+)?known\s+(?:whether|if)\b"
    r"|\b(?:we|i)\s+(?:don't|don’t|do\s+not)\s+know(?=\s*(?:[,.;:!]|$)|\s+(?:whether|if)\b)"
    r"|(?<!no\slonger\sa\s)(?<!not\sa\s)\bmatter\s+of\s+(?:debate|interpretation)|\bup\s+to\s+(?:the\s+)?interpretation"
    r"|\b(?:will\s+not|won't|won’t|cannot|can't|can’t)\s+answer\s+(?:this|the|your)\s+question"
    r"|\bnot\s+(?:[a-z]+ly\s+)?answerable|\bno\s+public\s+information|\bcannot\s+predict"
    r"|\b(?:cannot|can't|can’t)\s+(?:definitively|confidently|accurately)\s+answer\s+(?:whether|if)\b"
    r"|\bnot\s+appropriate\s+for\s+me\s+to\b|\bno\s+one[- ]size[- ]fits[- ]all\b"
    r"|\bnot\s+(?:so\s+)?clear[- ]cut\b|\banswer\s+(?:depends|varies)\b"
    r"|\b(?:difficult|hard)\s+to\s+(?:definitively\s+)?(?:label|classify|categorize|characterize)\b"
    r"|\bnot\s+(?:[a-z]+\s+){0,2}?([a-z]{3,})\s+or\s+(?:il|un|in|im|ir|non-?)\1\b")
_DECLINES = re.compile(_DECLINES_SOURCE, re.I)  # when lower-casing moves offsets ("İ")
_DECLINES_LOWER = re.compile(_DECLINES_SOURCE)  # on lower-cased text: faster than re.I
# A literal every `_DECLINES` match holds (lower-cased): the long pattern runs only near them
_DECLINE_HINT = re.compile(r"know|matter of|interpretation|answer|public information|predict|clear"
                           r"|appropriate for me|size|or (?:il|un|in|im|ir|non)|difficult|hard")
_DECLINE_REACH = 60  # characters a `_DECLINES` match reaches on either side of its hint


def last_decline(text: str) -> re.Match | None:
    """The last refusal of `text`: a shared one (`last_refusal`) or a yes/no one
    (`_DECLINES`, read only near its hint literals), whichever stands later."""
    shared = last_refusal(text)
    lowered, pattern = text.lower(), _DECLINES_LOWER
    if len(lowered) != len(text):
        lowered, pattern = text, _DECLINES
    windows: list[list[int]] = []
    for hint in _DECLINE_HINT.finditer(lowered):
        begin, stop = max(0, hint.start() - _DECLINE_REACH), hint.end() + _DECLINE_REACH
        if windows and begin <= windows[-1][1]:
            windows[-1][1] = stop
        else:
            windows.append([begin, stop])
    own = None
    for begin, stop in reversed(windows):
        for own in pattern.finditer(lowered, begin, stop):  # noqa: B007 - keeps the last
            pass
        if own is not None:
            break
    if shared is None or (own is not None and own.start() > shared.start()):
        return own
    return shared


def own_decline(found: re.Match) -> bool:
    """Whether a `last_decline` match is a yes/no decline (`_DECLINES`: "I don't know
    whether …", "a matter of interpretation", "the answer varies"), not a shared refusal."""
    return found.re is _DECLINES or found.re is _DECLINES_LOWER


# "There is no definitive answer to this question.": an opening sentence saying the question
# has no answer declines it ("There is no definitive answer to the Trolley Problem." is a
# fact about a problem, read on)
NO_ANSWER_OPENING = re.compile(r"\s*there(?:'s|’s|\s+is)\s+no\s+(?:(?:one|single|definitive|definite|clear"
                               r"|simple|straightforward|right|correct|certain|easy|universal)[\s,]+)*answer"
                               r"(?:\s+to\s+(?:this|the|your)\s+question)?(?=\s*(?:[.,;:]|$)|\s+(?:since"
                               r"|as|because)\b)", re.I)
