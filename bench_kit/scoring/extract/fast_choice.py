"""The fast path of multiple-choice extraction: the shapes most answers take, read without
the full rules of `bench_kit.scoring.extract.answers` and exactly as they read them
(tests/scoring/test_extract_fast.py compares the two), or None to say "use the full rules"."""

from __future__ import annotations

import re
from collections.abc import Mapping

from bench_kit.scoring.extract.choice_clause import BARE_LETTER, CLAUSE_HINT, LETTER_LIST, OR_NEXT
from bench_kit.scoring.extract.option_texts import by_option_text, echoes_options, option_texts
from bench_kit.scoring.extract.prose_letters import rules_out
from bench_kit.scoring.extract.response import (
    FAILED,
    PARSE_LENIENT,
    PARSE_OK,
    Extraction,
    extraction,
    normalize_text,
)

# The shapes most answers take, read without the full parser: "The answer is B.",
# "Answer: (B)", "I choose B", "选B", "答案是B" as the whole response; "B. text", "(B) text",
# "B) text".
_SHORT_CLAUSE = re.compile(
    r"(?:(?:the\s+)?(?:(?:correct|final|best|right)\s+(?:answer|option|choice)|answer)\s*"
    r"(?:is|:)|I\s+(?:choose|select|pick))\s*[(\[]?\s*([A-J])(\s*[)\]]?\s*[.!]?)"
    r"(?:\s+(\S[^\n]*))?", re.I)
_SHORT_CHINESE = re.compile(r"(?:(?:故|所以|因此|应该|应)?选(?:择)?|选项\s*(?:为|是|应为)?"
                            r"|(?:正确)?答案\s*[\])]?\s*(?:是|为|应为|应该是)?)\s*:?\s*[(\[]?\s*([A-J])\s*[)\]]?\s*\.?")
_SHORT_LEAD = re.compile(r"(?:\(([A-J])\)|\[([A-J])\]|([A-J])[.:)\]])[ \t]+(\S[^\n]*)")


# "The answer is red car." with a plain lower-case answer: no letter can be read from it.
_SHORT_TEXT_CLAUSE = re.compile(
    r"(?:the\s+)?(?:(?:correct|final|best|right)\s+)?answer\s*(?:is|:)\s*"
    r"([a-z0-9]{2,}(?: [a-z0-9]+)*)\s*[.!]?", re.I)
_ADVERBS = frozenset("clearly definitely probably likely most obviously certainly surely "
                     "indeed actually therefore thus then option choice letter".split())


def _fast_said(text: str, said: str, choices: Mapping[str, str],
               options: dict[str, str]) -> Extraction[str] | None:
    """Rules 5 and 7 for "The answer is <plain words>": rules 1-4 and 6 cannot answer
    (no letter, lead, second clause or line break), so only the option texts can."""
    first = said.split(" ", 1)[0].lower()
    if not said.islower() or first in _ADVERBS or CLAUSE_HINT.search(said.lower()):
        return None
    texts = option_texts(choices, options)
    if not texts:
        return FAILED
    if any("answer" in t for t in texts.values()):  # else no option can equal the whole text
        norm = normalize_text(text)
        exact = [letter for letter, t in texts.items() if t == norm]
        if len(exact) == 1:
            return extraction(options[exact[0]], PARSE_LENIENT)
    for answer in (said, text):
        letter = by_option_text(answer, texts)
        if letter:
            return extraction(options[letter], PARSE_LENIENT)
    return FAILED


def may_list(rest: str) -> bool:
    """Whether a lead's rest may continue a list of letters (`LETTER_LIST`): not when it
    opens with two letters that cannot start a separator ("cat", not "Cand D", "and C",
    "or C"). A cheap test before the pattern, for the fast path."""
    second = rest[1:2]
    return not (rest[:1].isalpha() and second.isalpha()) or second in "aAoO" \
        or rest[:2].lower() in ("an", "or")


def fast_choice(text: str, choices: Mapping[str, str],
                 options: dict[str, str]) -> Extraction[str] | None:
    """The answer of a response in one of the common shapes, exactly as the full parser
    reads it (tests/scoring/test_extract_fast.py compares the two), or None to say "use
    the full parser"."""
    bare = BARE_LETTER.fullmatch(text)
    if bare:
        letter = bare.group(1).upper()
        return extraction(options[letter], PARSE_OK) if letter in options else FAILED
    if len(text) > 200:
        return None
    if not text.isascii():
        chinese = _SHORT_CHINESE.fullmatch(text)
        if chinese:  # "选C", "答案是C", "故选：C" (a letter outside the options: the full rules)
            return extraction(options[chinese.group(1)], PARSE_OK) if chinese.group(1) in options else None
    short = _SHORT_CLAUSE.fullmatch(text)
    if short:
        letter, rest = short.group(1).upper(), short.group(3)
        bare_word = short.group(1) in "AI" and not short.group(2).strip()  # "A cat", "I think"
        if rest is not None and (bare_word or not short.group(1).isupper()
                                 or CLAUSE_HINT.search(rest.lower())
                                 or OR_NEXT.match(text, short.end(1))):
            return None  # "the answer is a cat", a second clause, "B or C": the full rules
        return extraction(options[letter], PARSE_OK) if letter in options else None
    said = _SHORT_TEXT_CLAUSE.fullmatch(text)
    if said:
        return _fast_said(text, said.group(1), choices, options)
    lead = _SHORT_LEAD.fullmatch(text)
    if lead is None:
        return None
    letter = lead.group(1) or lead.group(2) or lead.group(3)
    if letter not in options or letter == "I" or rules_out(lead.group(4)) \
            or OR_NEXT.match(text, lead.start(4) - 1) or CLAUSE_HINT.search(text.lower()) \
            or (len(text) < 40 and may_list(lead.group(4)) and LETTER_LIST.fullmatch(text)) \
            or echoes_options(text, choices, options):
        # a clause may follow, the lead may be ruled out, "(B) C" lists two letters (rule
        # 1), or the options are echoed: the full rules
        return None
    return extraction(options[letter], PARSE_OK)
