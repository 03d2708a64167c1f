"""A leading yes / no the response does not settle on (docs/METRICS.md, yes/no; for
`bench_kit.scoring.extract.yesno`): taken back ("Yes. Actually, I cannot see the image."), or
followed by the other bare word as the closing sentence ("no, h5 is not a legal move for black.
yes": two answers, none settled on)."""

from __future__ import annotations

import re

# The closing sentence a bare yes / no after a sentence's end (not after a question mark: "is
# it legal? Yes" answers the question).
_CLOSING_WORD = re.compile(r"(?:^|[.!;\n])[ \t]*(yes|no)[ \t]*[.!]?[ \t]*$", re.I)
# Words that correct the opening verdict: then the closing word is the answer, not a second one.
_CORRECTED = re.compile(r"\b(?:actually|wait|correction|sorry|mistake|i\s+mean|on\s+second\s+thought"
                        r"|re-?consider\w*|instead)\b", re.I)
_REACH = 24  # the closing word and the end of the sentence before it


def closes_with_other(text: str, lead: str) -> bool:
    """Whether `text`, which opens with the verdict `lead` ("yes" / "no"), closes with the
    other word alone as its last sentence, with no correction between ("no, bishop moves two
    spaces on first move. yes")."""
    text = text.rstrip()
    closing = _CLOSING_WORD.search(text, max(0, len(text) - _REACH))
    return closing is not None and closing.start() > 0 and closing.group(1).lower() != lead \
        and _CORRECTED.search(text, 0, closing.start()) is None


# "Actually, I cannot see the image": the answer before it was a guess, taken back — only in
# the sentence of the leading yes/no or the one after it, and only when what cannot be seen is
# the image itself (not "I can't see any dog", "I can't tell whether it is a Persian")
_IMAGE = r"(?:the\s+|this\s+|that\s+|your\s+|any\s+)?(?:image|picture|photo|photograph|attachment|file|video)s?\b"
_TAKEN_BACK = re.compile(r"[^.!?\n]{0,300}?(?:[.!?][ \t]*)?\bactually,?\s+I\s+(?:(?:cannot|can't|can’t|can\s+not"
                         r"|am\s+unable\s+to|am\s+not\s+able\s+to)\s+(?:(?:see|view|access|look\s+at)\s+"
                         r"(?:" + _IMAGE + r"|[^.!?\n]{0,60}?,\s*so\s+I\s+(?:cannot|can't|can’t)\s+(?:say|tell|confirm))"
                         r"|(?:be\s+sure|tell)\s*(?:[.!]|$|for\s+sure\b|from\s+" + _IMAGE + r"))"
                         r"|(?:don't|don’t|do\s+not)\s+have\s+(?:the\s+ability|access)\b)", re.I)


def _taken_back(text: str) -> bool:
    """Whether `text` takes its leading answer back in its first or second sentence with
    "Actually, I cannot see the image / have no access …" (a cheap test for "ctually" first)."""
    return "ctually" in text[:700] and _TAKEN_BACK.match(text) is not None


def unsettled(text: str, lead: str) -> bool:
    """Whether the leading verdict `lead` of `text` is taken back (`_taken_back`) or closed
    by the other word (`closes_with_other`): no answer."""
    return _taken_back(text) or closes_with_other(text, lead)
