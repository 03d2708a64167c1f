"""The letter forms and answer clauses of a multiple-choice response (rules 1-2 of
`bench_kit.scoring.extract.answers`): a bare letter ("B", "(B)", "Option B"), a list of
letters, the last answer clause naming a letter ("The answer is B", "答案是B", "I choose B",
corrections such as "no wait, it's C") and a second option offered right after it ("(B)
or (C)"). Shared by the full rules and the fast path (`fast_choice`)."""

from __future__ import annotations

import functools
import re
from collections.abc import Mapping

from bench_kit.scoring.extract.answer_clause import (
    _CLAUSE_KEYS,
    ANSWER_CLAUSE,
    last_clause,
    lower_cased,
    may_have_clause,
)
from bench_kit.scoring.extract.concluding import CONCLUDES_CJK
from bench_kit.scoring.extract.option_mentions import answer_before
from bench_kit.scoring.extract.prose_letters import (
    is_article_or_pronoun,
    named_not_chosen,
    own_text_follows,
)
from bench_kit.types import LETTERS

AMBIGUOUS = "?"  # several options offered where one answer was asked
_ALL_OPTIONS = {letter: letter for letter in LETTERS}

BARE_LETTER = re.compile(r"\s*+(?:(?:option|choice|letter|选项|答案)\s*+:?\s*+)?[(\[]?\s*+([A-Ja-j])\s*+"
                         r"[)\]]?\s*+[.:,;!]?\s*+", re.I)  # (possessive: linear on runs of spaces)
# The whole response lists several letters ("A and e", "(A) (B) (C)", "B, D", "B-C-D"): no
# one answer.
LETTER_LIST = re.compile(r"\s*+[(\[]?[A-Ja-j][)\]]?(?:(?:\s*+(?:,|-|and|&|/|or)\s*+|\s++)"
                         r"[(\[]?[A-Ja-j][)\]]?)+\s*+\.?\s*+", re.I)
LISTED_LETTER = re.compile(r"(?<![A-Za-z])[A-Ja-j](?![A-Za-z])")
CHOICE_CLAUSE = re.compile(
    rf"(?:{ANSWER_CLAUSE.pattern}"
    r"|\bI\s*(?:would\s+|'d\s+|will\s+|'ll\s+)?(?:choose|select|pick|go\s+with|lean\s+towards?)"
    r"|\bcorresponds?\s+to\s+(?:the\s+)?(?=option|choice)"
    r"|(?:\bno,?\s+wait|\bwait,?\s+(?:no|actually)|\bcorrection|\bI\s+mean|\bscratch\s+that"
    r"|\bon\s+second\s+thought|\bactually,?\s+(?:it'?s|it\s+is|it\s+should\s+be)"
    r"|(?:不对|更正|等等)[\s,，]*(?:应该|应)?(?:选|是))[\s,:;.!-]*+(?:it'?s\s+|it\s+is\s+)?"
    rf"|(?:{CONCLUDES_CJK}|应该|应)?选(?:择)?\s*+:?|选项\s*+(?:为|是|应为)?\s*+:?"
    r"|(?:选项|答案)对应的?(?:字母|选项)\s*+(?:为|是)?\s*+:?)"  # "选项对应的字母是A"
    # possessive spaces and at most four fillers: linear on long runs of spaces or "选项"
    r"\s*+(?:(?:clearly|definitely|probably|likely|most\s+likely|obviously|certainly|surely|"
    r"indeed|actually|therefore|thus|then|option|choice|letter|选项)\s*+:?\s*+){0,4}"
    r"[(\[]?\s*+([A-Ja-j])(?![A-Za-z0-9_']|-[A-Za-z])",
    re.I,
)
_CHOOSE_KEYS = ("choose", "select", "pick", "go with", "lean toward", "wait", "correction", "mean", "scratch",
                "second thought", "actually", "correspond", "不对", "更正", "等等")
CHOICE_KEYS = _CLAUSE_KEYS + _CHOOSE_KEYS
CLAUSE_HINT = re.compile("|".join(map(re.escape, CHOICE_KEYS)))
# A verdict after the second letter (and any more): "B, C and D are wrong", "B、C项错误",
# "B, C or D would not fit" -- those are ruled out, not offered ("选B和D错误" stays ambiguous).
_VERDICT = (r"(?:\s*+[)\]]?\s*+(?:,|、|and|or|&|和|或)\s*+[(\[]?\s*+[A-J](?![A-Za-z0-9_'])){0,8}"
            r"\s*+[)\]]?\s*+(?:(?:are|is|would|will|can|could)\s++(?:be\s++)?(?:all\s++|both\s++)?"
            r"(?:not\b|wrong|incorrect|distractors?|eliminated|ruled\s+out|excluded|false)"
            r"|项?(?:均|都)?(?:错误|错|不正确|不对|不符|排除))")
# "(A) or (C)", "A / C", "A或C", "A, E", "(B), (C), and (D)", "(A) (B)": a second option
# offered right after the first -> ambiguous (not "A, I think" or "A and a cat").
OR_NEXT = re.compile(
    r"\s*+[)\]]?\s*+(?:,?\s*+(?:or|/|或者?|还是|and|&|和)|,|、)\s*+(?:option\s*+|choice\s*+|选项\s*+)?"
    r"[(\[]?\s*+([A-J])(?![A-Za-z0-9_'])(?!\s+(?!(?:and|or|are)\b)[a-z])(?:(?<=和[A-Ja-j])|(?!" + _VERDICT + "))"
    r"|(?:\s*+[)\]]|(?<=[)\]]))\s*+[(\[]\s*+((?-i:[A-J]))\s*+[)\]]"  # "(A) (B)", not "(D) (a)"
    # "【答案】A B C D": capital letters apart by spaces only, up to the end of the line or
    # sentence (not "A I think", "A B is wrong")
    r"|[ \t]++((?-i:[A-J]))(?=[ \t]+(?-i:[A-J])(?![A-Za-z0-9_'])|[ \t]*(?:[.;。；\n]|$))", re.I)


def next_option(text: str, at: int) -> str | None:
    """The upper-case letter of a second option offered right after the one ending at
    `at` (`OR_NEXT`), or None."""
    other = OR_NEXT.match(text, at)
    return None if other is None else next(g for g in other.groups() if g).upper()


def option_keys(choices: Mapping[str, str]) -> dict[str, str]:
    """{upper-case letter: the caller's key}; the caller's mapping is only read."""
    try:
        return _options_of(tuple(choices))
    except TypeError:  # not iterable, or keys that cannot be hashed: no usable options
        return _ALL_OPTIONS


@functools.lru_cache(maxsize=1024)
def _options_of(keys: tuple) -> dict[str, str]:
    # Cached per key tuple: every item of a benchmark has the same few option sets. The
    # result is shared, so callers must not modify it. Letters past J count only when the
    # options run on to them without a gap (BIG-Bench-Hard's colour task: A-R).
    options: dict[str, str] = {}
    for key in keys:
        if isinstance(key, str) and len(key.strip()) == 1 and key.strip().upper() in _ALPHABET:
            options.setdefault(key.strip().upper(), key)
    if any(letter not in LETTERS for letter in options) and \
            "".join(sorted(options)) != _ALPHABET[:len(options)]:
        options = {letter: key for letter, key in options.items() if letter in LETTERS}
    return options or _ALL_OPTIONS


_ALPHABET = "ABCDEFGHIJKLMNOPQRSTUVWXYZ"
# With options past J: the whole response is one of those letters ("(K)", "Option M"), or
# the last answer clause names one ("So the answer is (O)."), upper case (or lower case in
# brackets: "the answer is (k).").
_LATE_BARE = re.compile(r"\s*+(?:(?i:option|choice|letter)\s*+:?)?\s*+[(\[]?\s*+([K-Z])\s*+"
                        r"[)\]]?\s*+[.:,;!]?\s*+")
_LATE_CLAUSE = re.compile(CHOICE_CLAUSE.pattern.replace(
    r"[(\[]?\s*+([A-Ja-j])", r"[(\[]?\s*+((?-i:[K-Z])|(?<=[(\[])(?-i:[k-z])(?=[)\]]))"),
                          re.I)
# ... not when a second letter is offered right after it ("(K) or (L)"; after a lower-case "(k)"
# also a lower-case letter in brackets: "(k) or (l)")
_LATE_NEXT = re.compile(r"\s*+[)\]]?\s*+(?:,?\s*+(?:or|/|and)(?:\s++(?:maybe|possibly|perhaps))?|,)"
                        r"\s*+[(\[]?\s*+([A-Z])(?![A-Za-z0-9_'])")
_LATE_NEXT_LOWER = re.compile(_LATE_NEXT.pattern.replace(r"[(\[]?\s*+([A-Z])(?![A-Za-z0-9_'])",
                                                         r"[(\[]\s*+([A-Za-z])\s*+[)\]]"))
# ... nor when a letter in brackets follows later ("The answer is (K). Actually no, it's (B).";
# after "(k)" also "(b)")
_LATER_LETTER = re.compile(r"[(\[]\s*([A-Z])\s*[)\]]")
_LATER_LETTER_LOWER = re.compile(r"[(\[]\s*([A-Za-z])\s*[)\]]")
# ... unless that letter is ruled out: "The answer is (K), not (L).", "(K), (L) is wrong."
_LATE_NOT = re.compile(r"(?:\bnot|n't)\s*$", re.I)
_LATE_WRONG = re.compile(r"\s*+[)\]]?\s*+(?:is|are)\s+(?:wrong|incorrect|not\b)", re.I)


def _ruled_out(text: str, start: int, end: int) -> bool:
    """Whether the letter at `text[start:end]` is negated or said to be wrong."""
    return _LATE_NOT.search(text, max(0, start - 8), start) is not None \
        or _LATE_WRONG.match(text, end) is not None


def late_letter(text: str, options: dict[str, str]) -> str | None:
    """With options past J: the letter past J that the whole response is or that its last
    answer clause names, when it is an option and no second letter follows it; else None
    (the rules for A-J read the rest)."""
    bare = _LATE_BARE.fullmatch(text)
    if bare:
        return bare.group(1) if bare.group(1) in options else None
    if CLAUSE_HINT.search(text.lower()) is None:
        return None
    last = last_clause(text, _LATE_CLAUSE, CHOICE_KEYS, names_letter)
    if last is None or last.group(1).upper() not in options:
        return None
    later = last_clause(text, CHOICE_CLAUSE, CHOICE_KEYS, names_letter)
    if later is not None and later.start() > last.start():
        return None  # a later clause names a letter A-J
    lower = last.group(1).islower()  # ("the answer is (k)." in lower case, in brackets)
    letter = last.group(1).upper()
    second = (_LATE_NEXT_LOWER if lower else _LATE_NEXT).match(text, last.end())
    if second and second.group(1).upper() != letter and not _ruled_out(text, *second.span(1)):
        return None
    if any(found.group(1).upper() != letter and not _ruled_out(text, *found.span())
           for found in (_LATER_LETTER_LOWER if lower else _LATER_LETTER).finditer(text, last.end())):
        return None  # the rules for A-J read it ("… it's (B)"), or none does
    return letter


def names_letter(match: re.Match) -> bool:
    """Whether a choice-clause match names an option letter (not "a cat", "I think",
    "选项D也是错误的", "选项：" heading a list of the options)."""
    text, letter, end = match.string, match.group(1), match.end()
    if "选项" in match.group(0) and named_not_chosen(match):
        return False
    if letter.islower() and text[end:end + 16].lstrip()[:1].isalpha():
        return False  # "the answer is a cat"
    return not (letter in "AI" and is_article_or_pronoun(text, letter, end))  # "the answer is I think"


def clause_letter(text: str, *, scan: bool = False, texts: Mapping[str, str] | None = None) -> str | None:
    """The upper-case letter named by the last answer clause (`AMBIGUOUS` when it offers
    two, unless what follows is the letter's own option text, from `texts`: "(e), I and III
    only" where E is "I and III only"), or None without one. `scan=True` scans the whole
    text (the reference the fast keyword-anchored search is tested against)."""
    if scan:
        if not may_have_clause(text, _CHOOSE_KEYS):
            return None
        last = None
        for last in filter(names_letter, CHOICE_CLAUSE.finditer(text)):  # noqa: B007 - keeps the last
            pass
    else:
        # (substring scans: a fifth of the time of `CLAUSE_HINT` on a long response)
        if not may_have_clause(text, _CHOOSE_KEYS) and len(lower_cased(text)) == len(text):
            return None  # the anchored search starts only at a keyword: there is none
        last = last_clause(text, CHOICE_CLAUSE, CHOICE_KEYS, names_letter)
    if last is None:
        return None
    if "选项" in last.group(0):  # "正确答案：A … 选项D也是正确的": the answer stays A
        last = answer_before(last, CHOICE_CLAUSE, names_letter)
    letter = last.group(1).upper()
    other = next_option(text, last.end())
    if other and other != letter and not (texts and own_text_follows(text, last.end(), texts.get(letter))):
        return AMBIGUOUS
    return letter
