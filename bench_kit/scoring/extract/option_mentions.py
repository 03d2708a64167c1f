"""An option named in the discussion after the answer: "正确答案：A … 因此，选项D也是正确的",
"[正确答案]C … 选项D中的“…”是错误的", "选项E的诉方观点是…" — a bare "选项X" ("option X") that is not
affirmed right after it ("选项B正确", "选项B是正确的") talks about that option; an earlier answer clause
("答案", "正确答案") naming another letter stays the answer (rule 2 of
`bench_kit.scoring.extract.answers`; docs/METRICS.md#extraction)."""

from __future__ import annotations

import re
from collections.abc import Callable

# The clause is "选项" alone before its letter (no "选", "为", "是": "故选项D", "选项为D" choose).
_BARE = re.compile(r"\s*+选项\s*+:?\s*+[(\[]?\s*+", re.S)
# ... affirmed right after its letter: "选项B正确", "选项B是正确的", "选项B才是正确答案", "选项B符合题意" (not
# "也是正确的", also right beside the answer given before).
_AFFIRMED = re.compile(r"\s*+[)\]]?\s*+(?:是|为|才是)?\s*+(?:正确|对的|符合题意)")


def answer_before(match: re.Match, clause: re.Pattern, names: Callable[[re.Match], bool]) -> re.Match:
    """The clause that answers when `match` (the last `clause` match naming a letter) is a
    bare "选项X" not affirmed right after: the last earlier match with "答案" in it naming
    another letter, if any; else `match` itself."""
    head = match.group(0)[:match.start(1) - match.start()]
    if not _BARE.fullmatch(head) or _AFFIRMED.match(match.string, match.end()):
        return match
    earlier = None
    for found in clause.finditer(match.string, 0, match.start()):
        if "答案" in found.group(0) and names(found):
            earlier = found
    if earlier is None or earlier.group(1).upper() == match.group(1).upper():
        return match
    return earlier
