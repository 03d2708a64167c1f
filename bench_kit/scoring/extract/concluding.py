"""A concluding sentence ("Therefore, …", "So the answer must be C.", "In summary, …"): one
definition (`CONCLUDES`, and the Chinese words `CONCLUDES_CJK`) for every family's rules, and
the letters the last one chooses (`concluding_letters`, rule 6 of
`bench_kit.scoring.extract.answers`)."""

from __future__ import annotations

import re

from bench_kit.scoring.extract.letter_names import letter_uses

# A sentence that concludes: "Therefore, the missing pattern is (D) 4.", "So the answer
# must be C."
CONCLUDES = re.compile(r"(?:^|(?<=[.!?])[ \t]++)[ \t*-]*+(?:therefore|thus|hence|so|in\s+conclusion"
                       r"|in\s+summary|to\s+summarize|overall|finally|consequently)\b", re.I | re.M)
# The Chinese words that conclude ("所以" so, "因此" therefore, "故" hence): an alternation
# for the rules to place in their own patterns ("所以 y = 5", "故选 C", "…，所以 …" after an
# example).
CONCLUDES_CJK = "所以|因此|故"


def concluding_letters(text: str, options: dict[str, str], raw_texts: list[str]) -> set[str]:
    """The letters the prose of the last concluding sentence chooses (`prose_letters`),
    for a response that names several letters on its way there."""
    # (imported here: prose_letters reads CONCLUDES_CJK, so a module-level import would be circular)
    from bench_kit.scoring.extract.prose_letters import (
        SEGMENT_END,
        echoed_option_spans,
        prose_letters,
    )

    starts = [match.start() for match in CONCLUDES.finditer(text)]
    if not starts:
        return set()
    end = SEGMENT_END.search(text, starts[-1] + 1)
    sentence = text[starts[-1]:end.start() if end else len(text)]
    return prose_letters(sentence, options, echoed_option_spans(sentence, raw_texts),
                         lambda: letter_uses(text, raw_texts))
