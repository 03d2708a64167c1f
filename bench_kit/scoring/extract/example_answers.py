"""An answer written as an example of the format, not as the response's answer: "例如[正确答案]D<eoa>"
("for example [correct answer] D"), "e.g. Answer: B" — a model that writes a prompt's format
instruction again with another letter in its example. The example's letter is dropped before
the rules of `bench_kit.scoring.extract.answers` read the response (docs/METRICS.md#extraction)."""

from __future__ import annotations

import re

from bench_kit.scoring.extract.answer_clause import lower_cased
from bench_kit.scoring.extract.prose_number import EXAMPLE_CJK

# "例如[正确答案]D", "比如：答案是B", "e.g., Answer: (C)", "for example, the answer is A" (read after
# `clean_response`: "：" as ":", "【】" as "[]"); the letter group is what is dropped.
_EXAMPLE = re.compile(
    rf"(?:{EXAMPLE_CJK}|\be\.g\.|\bfor\s+example)[ \t,:]*+"
    r"(?:\[?正确答案\]?|答案|(?:the\s+)?(?:correct\s+)?answer)[ \t]*+(?:是|为|is)?[ \t]*+:?[ \t]*+"
    r"([(\[]?[A-J][)\]]?)(?![A-Za-z0-9])", re.I)
_EXAMPLE_WORDS = tuple(EXAMPLE_CJK.split("|"))  # the pre-check: none of them, no example here
_EXAMPLE_END = "如"  # the character each of them ends with: one search of a single character
assert all(word.endswith(_EXAMPLE_END) for word in _EXAMPLE_WORDS)


def without_examples(text: str) -> str:
    """`text` with the letter of each example answer dropped ("例如[正确答案]D" -> "例如[正确答案]"),
    or `text` itself when it holds none."""
    if "xample" not in text and ("." not in text or "e.g." not in lower_cased(text)) \
            and (text.isascii() or _EXAMPLE_END not in text or not any(word in text for word in _EXAMPLE_WORDS)):
        return text  # (the same checks, the cheap ones first: an ASCII text holds no CJK word)
    out, at = [], 0
    for found in _EXAMPLE.finditer(text):
        out.append(text[at:found.start(1)])
        at = found.end(1)
    if not out:
        return text
    out.append(text[at:])
    return "".join(out)
