"""Whether a response says it cannot answer: unsure, missing information, a refusal.

`NO_ANSWER` is the phrase list; `last_refusal` finds its last match in a cleaned response
cheaply (near literal hints only). Shared by the choice, yes/no and number extractors.
"""

from __future__ import annotations

import functools
import re

# The response says it cannot answer (unsure, missing information, a refusal). Shared by
# the yes/no and number extractors.
NO_ANSWER = re.compile(
    r"not\s+sure|unsure|uncertain|cannot\s+(?:be\s+)?(?:definitively\s+|confidently\s+)?"
    r"(?:determined?|tell|say|provided|answered)|(?:can't|cannot|unable\s+to)\s+process"
    r"|(?:allow|give|provide)\s+(?:for\s+)?a\s+definitive\s+answer"
    r"|can't\s+(?:be\s+)?(?:determined?|tell|say|answer)|cannot\s+(?:accurately\s+)?answer|unclear"
    r"|(?:impossible|not\s+possible)\s+to\s+(?:tell|say|determine|answer)"
    r"|(?:do\s+not|don't)\s+have\s+(?:enough|sufficient|specific|real-time|the)\s+"
    r"(?:information|data|context|export|population|details)"
    r"|(?:not\s+enough|insufficient|no)\s+(?:information|data|context)"
    r"|(?:not|n't)\s+(?:provide|give|have|contain|include)\s+(?:enough\s+|sufficient\s+|any\s+)?"
    r"(?:information|data|context|details)|(?:question|it)\s+is\s+(?:not\s+clear|invalid"
    r"|not\s+valid|incomplete)|impossible\s+to\s+(?:provide|give)|no\s+way\s+to\s+"
    r"(?:determine|tell|know)|cannot\s+confidently|(?:unable|not\s+able)\s+to\s+(?:view|see"
    r"|access|provide|determine|answer|calculate)|(?:don't|do\s+not)\s+have\s+access"
    r"|cannot\s+(?:calculate|provide|view)|not\s+provided\s+in\s+the\s+(?:question|image)"
    r"|more\s+information\s+is\s+needed|please\s+provide|cannot\s+be\s+given"
    r"|without\s+(?:the\s+)?specific\s+(?:values|numbers|data|information)"
    r"|need\s+more\s+(?:information|data|context)|provide\s+more\s+(?:context|information)"
    r"|(?:would|will)\s+depend\s+on|depends\s+on\s+the\s+specific"
    r"|(?:difficult|hard)\s+to\s+(?:definitively\s+|accurately\s+)?(?:determine|tell|say"
    r"|draw\s+a\s+(?:clear|definitive|firm)\s+conclusion|make\s+a\s+definitive)"
    # "conclude" declines only ending its clause or before what it would conclude ("whether
    # …"), not "difficult to conclude what the owner likes" / "conclude its breed"
    r"|(?:(?:difficult|hard)\s+to\s+(?:definitively\s+|accurately\s+)?|cannot\s+definitively\s+)"
    r"conclude(?=\s*(?:[,.;:!]|$)|\s+(?:whether|if|that|anything|definitively|it)\b)|inconclusive"
    r"|(?:can't|cannot|unable\s+to)\s+(?:assist|help)\s+with\s+(?:that|this)"
    # "can't provide" an answer (or nothing named), not "can't provide its breed"
    r"|(?:can't|(?:don't|do\s+not)\s+have\s+the\s+(?:ability|capability)\s+to)\s+(?:provide|give)"
    r"(?:(?:\s+you\s+with)?\s+(?:an?|any|the)\s+|\s+)(?:(?:definitive|specific|accurate|exact|clear"
    r"|direct|simple|precise|real-time|personal|legal|medical|financial|professional)\s+)*"
    r"(?:answer|information|response|assessment|judgment|opinion|confirmation|verdict|advice)s?\b"
    r"|can't\s+provide(?=\s*(?:[,.;:!]|$))"
    # an answer or question "is not straightforward", not a road; "a grey area", not "the gray
    # area on the left" (a colour in an image)
    r"|\b(?:answer|question|issue|matter|situation|legality|status|law|this)\b[^.,;:!?\n]{0,40}?\bis\s+not"
    r"\s+straightforward"
    r"|it\s+is\s+not\s+straightforward\s+to\b|(?:legal|moral|ethical|regulatory)\s+gr[ae]y\s+area"
    r"|\ba\s+gr[ae]y\s+area\b(?!\s+(?:of|on|in|at|near|to)\s+the\b)"
    r"|matter\s+of\s+personal\s+(?:opinion|perspective|belief)"
    # ("It's not easy to say no to a friend" is an answer: the phrase must end its clause)
    r"|not\s+easy\s+to\s+(?:determine|tell|say)(?=\s*(?:[,.;:!]|$)|\s+(?:whether|if|from|which|what|how)\b)"
    r"|(?:would|'d|will)\s+need\s+to\s+(?:consult|check|refer\s+to|look\s+up)"
    r"|(?:can't|cannot)\s+confirm|(?:consider|recommend)\s+(?:checking|consulting)"
    r"|(?:don't|do\s+not)\s+have\s+(?:precise|exact|up-to-date|current|detailed)"
    r"|不确定|无法确定|无法判断|不清楚|看不清|不知道", re.I)


# A literal every NO_ANSWER match contains (on the lower-cased text): the long regex
# runs only near them (`last_refusal`).
_NO_ANSWER_HINT = re.compile(  # literals only: the regex engine scans them fast
    r"not|n't|unsure|uncertain|cannot|can't|unable|definitive|unclear|impossible|insufficient"
    r"|information|data|context|invalid|incomplete|way|please|without|need|provide|depend"
    r"|difficult|hard|consider|recommend|inconclusive|area|personal|不确定|无法|不清楚|看不清|不知道")
_NO_ANSWER_LOWER = re.compile(NO_ANSWER.pattern)  # on lower-cased text: 4x faster than re.I
_REFUSAL_REACH = 90  # characters a NO_ANSWER match can reach on either side of its hint


@functools.lru_cache(maxsize=64)
def last_refusal(text: str, start: int = 0) -> re.Match | None:
    """The last `NO_ANSWER` match in `text` starting at or after `start`, found near the
    hint literals only (the regex scan of a whole long response costs ~200 µs). Cached:
    the choice, yes/no and number rules all ask about the same cleaned response, and it
    is scanned once."""
    lowered = text.lower()
    if _NO_ANSWER_HINT.search(lowered, start) is None:
        return None
    if len(lowered) != len(text):  # lower-casing moved offsets (rare): scan it all
        every = list(NO_ANSWER.finditer(text, start))
        return every[-1] if every else None
    windows: list[list[int]] = []
    for hint in _NO_ANSWER_HINT.finditer(lowered, start):
        begin = max(start, hint.start() - _REFUSAL_REACH)
        stop = min(len(text), hint.end() + _REFUSAL_REACH)
        if windows and begin <= windows[-1][1]:
            windows[-1][1] = stop
        else:
            windows.append([begin, stop])
    for begin, stop in reversed(windows):
        found = list(_NO_ANSWER_LOWER.finditer(lowered, begin, stop))
        if found:
            return found[-1]
    return None
