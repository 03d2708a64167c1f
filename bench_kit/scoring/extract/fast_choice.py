"""The fast path of multiple-choice extraction: the shapes most answers take, read without
the full rules of `bench_kit.scoring.extract.answers` and exactly as they read them
(tests/scoring/test_extract_fast.py compares the two), or None to say "use the full rules"."""

from __future__ import annotations

import re
from collections.abc import Mapping

from bench_kit.scoring.extract.choice_clause import BARE_LETTER, CLAUSE_HINT, LETTER_LIST, OR_NEXT
from bench_kit.scoring.extract.concluding import CONCLUDES_CJK
from bench_kit.scoring.extract.no_option_statements import no_answer_statement
from bench_kit.scoring.extract.option_texts import (
    by_option_text,
    echoes_options,
    normalized_option,
    option_texts,
    powers_matter,
)
from bench_kit.scoring.extract.prose_letters import rules_out
from bench_kit.scoring.extract.response import (
    FAILED,
    PARSE_LENIENT,
    PARSE_OK,
    Extraction,
    extraction,
    normalize_text,
)
from bench_kit.types import LETTERS

# The shapes most answers take, read without the full parser: "The answer is B.",
# "Answer: (B)", "I choose B", "选B", "答案是B" as the whole response; "B. text", "(B) text",
# "B) text".
_SHORT_CLAUSE = re.compile(
    r"(?:(?:the\s+)?(?:(?:correct|final|best|right)\s+(?:answer|option|choice)|answer)\s*"
    r"(?:is|:)|I\s+(?:choose|select|pick))\s*[(\[]?\s*([A-J])(\s*[)\]]?\s*[.!]?)"
    r"(?:\s+(\S[^\n]*))?", re.I)
_SHORT_CHINESE = re.compile(rf"(?:(?:{CONCLUDES_CJK}|应该|应)?选(?:择)?|选项\s*+(?:为|是|应为)?"
                            r"|(?:正确)?答案\s*+[\])]?\s*+(?:是|为|应为|应该是)?)\s*+:?\s*+[(\[]?\s*+([A-J])\s*+"
                            r"[)\]]?\s*+\.?")
_SHORT_LEAD = re.compile(r"(?:\(([A-J])\)|\[([A-J])\]|([A-J])[.:)\]])[ \t]+(\S[^\n]*)")
# How an ASCII text each shape can match opens (re.I: either case; a text in other
# characters tries every shape): _SHORT_CLAUSE and _SHORT_TEXT_CLAUSE ("the", "correct",
# "final", "best", "right", "answer", or "I" and a space), _SHORT_LEAD.
_CLAUSE_WORDS = ("the", "correct", "final", "best", "right", "answer")
_LETTER_HEADS = frozenset(LETTERS)  # the option letters a response may open with
_LEAD_HEADS = frozenset("([") | _LETTER_HEADS


# "The answer is red car." with a plain lower-case answer: no letter can be read from it.
_SHORT_TEXT_CLAUSE = re.compile(
    r"(?:the\s+)?(?:(?:correct|final|best|right)\s+)?answer\s*(?:is|:)\s*"
    r"([a-z0-9]{2,}(?: [a-z0-9]+)*)\s*[.!]?", re.I)
_ADVERBS = frozenset("clearly definitely probably likely most obviously certainly surely "
                     "indeed actually therefore thus then option choice letter".split())


def _fast_said(text: str, said: str, choices: Mapping[str, str],
               options: dict[str, str]) -> Extraction[str] | None:
    """Rules 5 and 7 for "The answer is <plain words>": rules 1-4 and 6 cannot answer
    (no letter, lead, second clause or line break), so only the option texts can; an
    option they find is no answer if the response says it cannot answer ("The answer is
    not sure"): the full rules then read what follows the statement."""
    first = said.split(" ", 1)[0].lower()
    if not said.islower() or first in _ADVERBS or CLAUSE_HINT.search(said.lower()):
        return None
    letter = _exact_option(normalize_text(said), choices, options, unless="answer")
    if letter is None:  # (else by_option_text's first reading: the one option `said` is)
        letter = _said_option(text, said, choices, options)
        if letter is None:
            return FAILED
    if no_answer_statement(text, choices) is not None:
        return None
    return extraction(options[letter], PARSE_LENIENT)


def _said_option(text: str, said: str, choices: Mapping[str, str],
                 options: dict[str, str]) -> str | None:
    """The option `_fast_said` reads (the whole text, or what is said, equal to or stating
    an option's text), or None."""
    texts = option_texts(choices, options)
    if texts and any("answer" in t for t in texts.values()):  # else no option can equal the whole text
        norm = normalize_text(text)
        exact = [letter for letter, t in texts.items() if t == norm]
        if len(exact) == 1:
            return exact[0]
    for answer in (said, text) if texts else ():
        letter = by_option_text(answer, texts)
        if letter:
            return letter
    return None


def _fast_text(text: str, choices: Mapping[str, str],
               options: dict[str, str]) -> Extraction[str] | None:
    """Rule 5 for a short response that is one option's text ("red car"), or None: with
    no line break, no answer-clause keyword (so no clause and no opening verdict), no
    letter list and no lead a letter can open, rules 1-4 cannot answer; a response shorter
    than 300 characters is never cut off; the answer stands unless it says it cannot
    answer (`no_answer_statement`)."""
    head = text.lstrip()
    if head[:1] in "([" or (head[:1] in _LETTER_HEADS and not head[1:2].isalnum()) \
            or "\n" in text or text.rstrip().endswith("?"):
        return None  # "(B) …", "B. …", "B - …": a lead the full rules read; "Dog?" is asked
    lowered = text.lower()
    if len(lowered) != len(text) or CLAUSE_HINT.search(lowered) or (
            len(text) < 40 and head[:1].isalpha() and may_list(head[1:])
            and LETTER_LIST.fullmatch(text)):  # (a list opens with a letter and a separator)
        return None
    norm = normalize_text(text)
    if norm in ("yes", "no"):
        return None  # (options Yes and No are read by rule 8)
    letter = _exact_option(norm, choices, options)
    if letter is None or no_answer_statement(text, choices) is not None:
        return None
    return extraction(options[letter], PARSE_LENIENT)


def _exact_option(norm: str, choices: Mapping[str, str], options: dict[str, str],
                  unless: str = "") -> str | None:
    """The one letter whose option text (`option_texts`) is `norm`, or None: no option,
    several, or (with `unless`) an option whose text holds `unless`. Options of plain
    words are read without the cache, and only when they hold `norm`'s first word (their
    normal form is their words lower-cased, less articles: else it cannot be `norm`)."""
    if not norm or not isinstance(choices, Mapping):
        return None
    first = norm.split(" ", 1)[0]
    found, keep = None, None
    for letter, key in options.items():
        value = choices.get(key)
        if value is None:
            continue
        text = str(value)
        if text.isascii() and text.replace(" ", "").isalnum():
            lowered = text.lower()
            if unless and unless in lowered:
                return None
            if first not in lowered:
                continue
            option = normalize_text(text)
        else:
            keep = powers_matter(choices) if keep is None else keep
            option = normalized_option(text, True) if keep else normalized_option(text)
            if unless and unless in option:
                return None
        if option == norm:
            if found is not None:
                return None
            found = letter
    return found


def _plain(rest: str) -> bool:
    """Whether the rest of a response after its letter is plain words ("red car"): no
    label, bracket or comma, so no second option can follow (`OR_NEXT`) unless the rest
    opens with "or"/"and" or a capital letter alone ("B C D"), and the options are not echoed."""
    return rest.isascii() and rest.replace(" ", "").isalnum() \
        and not (rest[:1] in _LETTER_HEADS and rest[1:2] in ("", " "))


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
    if len(text) <= 11 or not (text.isascii() and text.isprintable()) \
            or len(text) - text.count(" ") <= 11:  # (else more than a bare form's 11 non-spaces)
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
    elif not (text[:7].lower().startswith(_CLAUSE_WORDS) or text[:1] in "Ii" and text[1:2].isspace()):
        return _fast_lead(text, choices, options)  # (ASCII text opens with a clause's first word)
    short = _SHORT_CLAUSE.fullmatch(text)
    if short:
        letter, rest = short.group(1).upper(), short.group(3)
        bare_word = short.group(1) in "AI" and not short.group(2).strip()  # "A cat", "I think"
        if rest is not None and (bare_word or not short.group(1).isupper()
                                 or CLAUSE_HINT.search(rest.lower())
                                 or (not _plain(rest.rstrip(".!")) or rest[:2].lower() in ("or", "an"))
                                 and OR_NEXT.match(text, short.end(1))):
            return None  # "the answer is a cat", a second clause, "B or C": the full rules
        return extraction(options[letter], PARSE_OK) if letter in options else None
    said = _SHORT_TEXT_CLAUSE.fullmatch(text)
    if said:
        return _fast_said(text, said.group(1), choices, options)
    return _fast_lead(text, choices, options)


def _fast_lead(text: str, choices: Mapping[str, str],
               options: dict[str, str]) -> Extraction[str] | None:
    """"B. text", "(B) text", "B) text" (rule 4), else the response as an option's text."""
    lead = _SHORT_LEAD.fullmatch(text) if not text.isascii() or text[:1] in _LEAD_HEADS else None
    if lead is None:
        return _fast_text(text, choices, options)
    letter, rest = lead.group(1) or lead.group(2) or lead.group(3), lead.group(4)
    plain = _plain(rest)
    if letter not in options or letter == "I" or rules_out(rest) \
            or ((not plain or rest[:2].lower() in ("or", "an"))
                and OR_NEXT.match(text, lead.start(4) - 1)) \
            or CLAUSE_HINT.search(text.lower()) \
            or (len(text) < 40 and may_list(rest) and LETTER_LIST.fullmatch(text)) \
            or (not plain and echoes_options(text, choices, options)):
        # a clause may follow, the lead may be ruled out, "(B) C" lists two letters (rule
        # 1), or the options are echoed: the full rules
        return None
    return extraction(options[letter], PARSE_OK)
