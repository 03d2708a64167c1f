"""What a multiple-choice response says about the options as a whole (rules of
`bench_kit.scoring.extract.answers`): that no option is the answer, that it goes on with the
next question of its prompt, or which option its answer number is."""

from __future__ import annotations

import functools
import re
from collections.abc import Mapping

from bench_kit.scoring.extract.numbers import answer_number_token
from bench_kit.scoring.extract.response import FAILED, PARSE_LENIENT, Extraction
from bench_kit.scoring.extract.restatement import SENTENCE, comparisons, content_words
from bench_kit.text.numbers import number_tokens

# The response says the answer is not among the options, or that it cannot answer: no
# letter, unless an answer clause follows the statement.
_NO_OPTION = re.compile(
    r"\b(?:answer|option|choice)s?\s+(?:is|are)\s+not\s+(?:provided|listed|given|available"
    r"|present|included|among|in|one\s+of|found)\b"
    r"|\bnot\s+(?:available|given|listed|provided|present|included|found)\s+(?:in|among)"
    r"\s+the\s+(?:given\s+|provided\s+|answer\s+)?(?:choices|options)"
    r"|\bnone\s+of\s+the\s+(?:given\s+|provided\s+|answer\s+)?(?:options|choices)\s+"
    r"(?:\([^()]{0,30}\)\s+|(?:[a-j],?\s+(?:and\s+|or\s+)?){2,})?(?:match|is|are|fit|correspond|agree)"
    r"|\b(?:this|that|it|which|result|value)\s+is\s+not\s+(?:an?\s+|one\s+of\s+the\s+)?"
    r"(?:option|choice)s?\b"
    r"|\b(?:cannot|can't|can\s+not|unable\s+to)\s+(?:provide|determine|give)\s+(?:the|an|a)\s+"
    r"(?:exact\s+|correct\s+|definitive\s+|specific\s+)?(?:answer|solution)"
    r"|\binsufficient\s+to\s+(?:provide|determine|answer|solve)"
    r"|选项中没有|没有(?:正确|符合)的?(?:答案|选项)")  # matched on lower-cased text
# Literals one of which every _NO_OPTION match contains (on the lower-cased text): the
# regex runs only near them. NO_OPTION_PART finds a piece of each in any case, first.
_NO_OPTION_HINT = re.compile(r"(?:is|are) not|not (?:avail|given|listed|provid|present|includ"
                             r"|found)|none of the|cannot|can't|can not|unable|insufficient|没有")
NO_OPTION_PART = re.compile(r"ot|OT|one|ONE|n't|nable|nsufficient|没有")
# Words an option text would use to offer "no answer" itself ("None of the above").
_NO_ANSWER_OPTION = re.compile(r"\b(?:none|not|cannot|unable|neither)\b", re.I)

# "If the heart is wider …, then the answer is (A) Yes." — an answer under a condition.
_IF_CLAUSE = re.compile(r"\bif\b[^.\n]{0,200}?\banswer\s+(?:is|would\s+be)\s*:?\s*[(\[]?\s*"
                        r"([A-J])(?![A-Za-z])", re.I)


def hypothetical_clauses(text: str) -> bool:
    """Whether the response offers answers under conditions, naming different letters
    (an enumeration of cases, not a choice)."""
    if text.count("answer is") + text.count("answer would be") < 2:
        return False
    return len({m.group(1).upper() for m in _IF_CLAUSE.finditer(text)}) > 1


def no_option(text: str, choices: Mapping[str, str]) -> re.Match | None:
    """The last statement that the answer is not among the options, unless some option
    itself offers that ("None of the above")."""
    lowered = text.lower()
    if len(lowered) != len(text):
        return None  # (a lower-cased text of another length would shift the offsets)
    last = None
    for hint in _NO_OPTION_HINT.finditer(lowered):  # every match holds a hint: look near it
        found = _NO_OPTION.search(lowered, max(0, hint.start() - 24), hint.end() + 48)
        if found is not None:
            last = found
    if last is None or any(_NO_ANSWER_OPTION.search(str(v)) for v in choices.values()):
        return None
    return last


@functools.lru_cache(maxsize=4096)
def _option_value(text: str) -> float | None:
    """The number an option is ("10m", "60°", "5πcm" -> 5), or None for other options."""
    found = number_tokens(text)
    if len(found) != 1:
        return None
    rest = text[:found[0].start] + text[found[0].end:]
    return found[0].value if len(rest) <= 12 and not any(ch.isdigit() for ch in rest) else None


def by_option_value(text: str, choices: Mapping[str, str],
                    options: dict[str, str]) -> Extraction[str]:
    """Rule 7b: options that are all numbers, and the response's answer number (the last
    one, unless written right after "not": "40°, not 34°" gives none) equals exactly one."""
    values = {letter: _option_value(str(choices.get(key, ""))) for letter, key in options.items()}
    if len(values) < 2 or None in values.values():
        return FAILED
    found, token, cleaned = answer_number_token(text)
    if token is None or found.value is None or cleaned[max(0, token.start - 5):token.start].lower().strip() == "not":
        return FAILED
    hits = [letter for letter, value in values.items()
            if value is not None and found.value is not None
            and abs(value - found.value) <= 1e-9 * max(1.0, abs(value))]
    return Extraction(options[hits[0]], PARSE_LENIENT) if len(hits) == 1 else FAILED




def compared_option(text: str, texts: dict[str, str], question: str | None) -> str | None:
    """"Which is larger, the moon or the sun?" -> "The sun is larger than the moon.": the
    option on the side of a comparison that answers the question's comparative (its own
    side when the directions agree, the other side when they are opposite), for a response
    that names several options. `texts`: letter -> normalised option text."""
    asked = comparisons(question) if question else []
    if not asked:
        return None
    sign = asked[0][0]
    words = {letter: content_words(t) for letter, t in texts.items()}
    for match in SENTENCE.finditer(text):
        for said, left, right, negated in comparisons(match.group()):
            lefts = [k for k, w in words.items() if w and w <= left]
            rights = [k for k, w in words.items() if w and w <= right]
            if len(lefts) == 1 and len(rights) == 1 and lefts != rights and said and sign:
                return lefts[0] if (said == sign) != negated else rights[0]
    return None
