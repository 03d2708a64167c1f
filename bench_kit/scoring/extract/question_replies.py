"""The reply a response gives right after a question it asks itself ("Is it real? Yes.",
"B matches? No."): the patterns, matched at the question mark, that the option-text rules
(`bench_kit.scoring.extract.option_texts`) and the prose letters
(`bench_kit.scoring.extract.prose_letters`) read."""

from __future__ import annotations

import re

YES_AFTER = re.compile(r"\?[\s*_\"')]*(?:yes|yeah|yep|sure|definitely|absolutely|indeed|correct"
                       r"|certainly|of\s+course|i\s+(?:believe|think)\s+so)\b", re.IGNORECASE)
# "No" opening an idiom is not a reply of no: "No doubt", "No question about it" affirm; "No
# idea", "No problem" answer nothing (still a question left open, so not a plain no either)
_AFFIRMING = r"(?!\s+(?:doubts?|questions?)\b)"
_NOT_A_NO = r"(?!\s+(?:doubts?|questions?|idea|problems?|wait|matter|need)\b)"
NO_AFTER = re.compile(r"\?[\s*_\"')]*(?:no|nope|not\s+really|not\s+at\s+all)\b" + _AFFIRMING,
                      re.IGNORECASE)
# ... a plain no, not a hedged "not really"
PLAIN_NO_AFTER = re.compile(r"\?[\s*_\"')]*(?:no|nope|not\s+at\s+all)\b(?!\s+really)" + _NOT_A_NO,
                            re.IGNORECASE)
