"""An answer clause naming a word of the question ("The answer is Stable." to "Is the system
stable?") or one side of an asked comparison ("The answer is the dog."): `named_answer`, used
by `bench_kit.scoring.extract.yesno`."""

from __future__ import annotations

import re

from bench_kit.scoring.extract.no_answer import NO_ANSWER
from bench_kit.scoring.extract.restatement import (
    comparisons,
    content_words,
    negative_prefixes,
    stem,
)

# "The answer is Stable." / "The answer is not exact." to "Is the system stable?": an answer
# clause that names one word the question asks about ("no" with "not", or the word with a
# negative prefix: "Unstable", "Non-convex").
_NAMED = re.compile(r"\s*(not\s+)?(?:(?:a|an|the)\s+)?([A-Za-z][A-Za-z-]*[A-Za-z])\s*\Z", re.I)


def named_answer(tail: str, question: str) -> str | None:
    """"yes"/"no" when an answer clause's `tail` is one content word of `question` (or
    that word with a negative prefix, or "not" before it), or, when the question compares
    ("Is the cat bigger than the dog?"), the word of one side ("the cat": yes, "the dog":
    no; "not the cat": no; "not the dog": "both", no answer); None otherwise, when the word declines ("uncertain") and when the question offers
    the word as one of two ("Is it FIR or IIR?", "a dog or a cat"; "exact or not" is one)."""
    found = _NAMED.match(tail)
    if found is None or NO_ANSWER.match(found.group(2)):
        return None  # "The answer is uncertain."
    word = found.group(2).lower()
    compared = comparisons(question)
    if compared:  # "the dog" to "Is the cat bigger than the dog?": the other side wins, no
        _, left, right, negated = compared[0]
        side = "yes" if stem(word) in left - right else "no" if stem(word) in right - left else None
        if side is None or negated:
            return None  # neither side or both: no answer
        if found.group(1):  # "not the cat": the compared side is not the bigger one, no;
            return "no" if side == "yes" else "both"  # "not the dog": no answer, nothing read after
        return side
    wanted = content_words(question)
    if stem(word) in wanted:
        said = "yes"
    elif any(word.startswith(prefix) and stem(word[len(prefix):]) in wanted
             for prefix in ("non-", "non", "un", "in", "im", "ir", "il")
             if prefix in negative_prefixes(word[len(prefix):])):
        said = "no"  # "unstable" to "stable?"
    else:
        return None
    if re.search(rf"\b{re.escape(word)}\s+or\s+(?!not\b)\w|\bor\s+(?:(?:a|an|the)\s+)?{re.escape(word)}\b",
                 question, re.I):
        return None  # one of two offered: not a yes/no answer
    if found.group(1):
        said = "no" if said == "yes" else "yes"
    return said
