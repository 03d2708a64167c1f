"""A concluding sentence ("Therefore, …", "So the answer must be C.", "In summary, …"): one
definition (`CONCLUDES`) for every family's rules, and the letters the last one chooses
(`concluding_letters`, rule 6 of `bench_kit.scoring.extract.answers`)."""

from __future__ import annotations

import re

from bench_kit.scoring.extract.letter_names import letter_uses
from bench_kit.scoring.extract.prose_letters import SEGMENT_END, echoed_option_spans, prose_letters

# A sentence that concludes: "Therefore, the missing pattern is (D) 4.", "So the answer
# must be C."
CONCLUDES = re.compile(r"(?:^|(?<=[.!?])[ \t]+)[ \t*-]*(?:therefore|thus|hence|so|in\s+conclusion"
                       r"|in\s+summary|to\s+summarize|overall|finally|consequently)\b", re.I | re.M)


def concluding_letters(text: str, options: dict[str, str], raw_texts: list[str]) -> set[str]:
    """The letters the prose of the last concluding sentence chooses (`prose_letters`),
    for a response that names several letters on its way there."""
    starts = [match.start() for match in CONCLUDES.finditer(text)]
    if not starts:
        return set()
    end = SEGMENT_END.search(text, starts[-1] + 1)
    sentence = text[starts[-1]:end.start() if end else len(text)]
    return prose_letters(sentence, options, echoed_option_spans(sentence, raw_texts),
                         lambda: letter_uses(text, raw_texts))
