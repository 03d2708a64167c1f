"""Answer extraction: model response text -> letter / yes-no / number / box (docs/METRICS.md#extraction).

Each extractor returns None when it finds no answer (never a random guess), and has a
`*_detailed` twin returning an `Extraction(value, parse)` with parse "ok" (a clean answer
form), "lenient" (found by a fallback) or "failed". All of them accept any string and
never raise on it; a leading `<think>…</think>` block, `<answer>` tags, `\\boxed{}`,
markdown emphasis and full-width forms are handled by `clean_response` first.

Multiple choice, in order (the first rule that answers wins). LaTeX in the response and
in the options is read as plain text first ("$\\frac{9}{2} \\mathrm{~cm}$" -> "9/2 cm").
1. the whole response is a letter form: "B", "(B)", "B.", "[B]", "Option B", "选项B" (ok);
   a short list of several letters ("A and c", "(A) (B) (C)") -> failed;
2. the last explicit answer clause: "The answer is B", "Answer: D", "答案是B", "【答案】B",
   "选B", "I choose B" (ok; not "选项D也是错误的" nor "选项：" heading the options; a clause
   naming a letter that is not an option, or a second letter after it, "A, E" / "(B) or
   (C)" -> failed);
3. the last line is a letter form, or an option written out ("F. K>0"), after some
   reasoning (lenient);
4. the response starts with a letter and a delimiter, "B. cat …", "(B) because …" (ok),
   unless its lines enumerate several options;
5. the response equals one option's text (lenient);
6. word-bounded capital letters in the prose, skipping negated ones ("not A", "A is
   wrong"), letters inside echoed option texts (not options that are themselves letters),
   and "A"/"I" used as an article or pronoun: one distinct letter -> it (lenient);
   several -> the one letter of the last concluding sentence ("Therefore, … (D) 4."),
   else on to rule 7;
7. the option texts contained in the answer clause or the response: exactly one (after
   dropping texts contained in a longer matched text and options named only to be set
   aside, "X and Y are not …"; a formula option not as a term of a longer formula; with a
   blank in the question, the option written before the words after it; with no text
   found, an option reworded: "flipped" for "flip", its content words in one sentence)
   -> it (lenient); several compared ("The sun is larger than the moon.") -> the side
   answering the question's comparative; options that are all numbers ("10m", "60°"; one
   may offer no answer, "It cannot be determined"): the response's answer number equals
   exactly one (lenient);
8. options that are exactly Yes and No: the response's yes/no answer (`extract_yesno`,
   with the question when given) -> that option (lenient);
otherwise failed: an article "A" or pronoun "I" is never read as a letter. A lenient letter
is no answer when the response says the answer is not among the options or that it cannot
answer (unless an answer follows the statement, or an option makes it itself: "None of the
above", "Can't tell"), and when a long response was cut off mid-sentence or loops. A
`\\boxed{}` value that no option has is answered only by an explicit letter form around
it, never by letters or texts in the prose. With Yes/No options a letter written with the
other option's word ("A: no") is that word.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Mapping

from bench_kit.scoring.extract.boxes import (
    box_from_padded,
    box_to_padded,
    extract_box,
    extract_box_detailed,
    square_padding,
)
from bench_kit.scoring.extract.numbers import extract_number, extract_number_detailed
from bench_kit.scoring.extract.option_statements import (
    blank_filled,
    by_option_value,
    closest_guess,
    compared_option,
    cut_off,
    final_answer_tail,
    hypothetical_clauses,
    leans_after,
    no_answer_statement,
    only_answer_lines,
    opening_verdict,
    says_no_option,
)
from bench_kit.scoring.extract.option_texts import (
    by_option_text,
    echoes_options,
    option_texts,
    powers_matter,
    yes_and_no,
)
from bench_kit.scoring.extract.prose_letters import (
    SEGMENT_END,
    concluding_letters,
    echoed_option_spans,
    is_article_or_pronoun,
    named_not_chosen,
    prose_letters,
    rules_out,
)
from bench_kit.scoring.extract.response import (
    _CLAUSE_KEYS,
    ANSWER_CLAUSE,
    CONTINUATION,
    FAILED,
    PARSE_LENIENT,
    PARSE_OK,
    Extraction,
    clause_tail,
    clean_response,
    extraction,
    last_clause,
    may_have_clause,
    normalize_text,
    strip_reasoning,
)
from bench_kit.scoring.extract.yesno import extract_yesno, extract_yesno_detailed
from bench_kit.scoring.extract.yesno_options import letter_then_word, yesno_option
from bench_kit.text.latex import plain_latex
from bench_kit.types import LETTERS

__all__ = [
    "Extraction", "extract_choice", "extract_choice_detailed", "extract_yesno",
    "extract_yesno_detailed", "extract_number", "extract_number_detailed", "extract_box",
    "extract_box_detailed", "square_padding", "box_to_padded", "box_from_padded",
    "strip_reasoning",
]

_AMBIGUOUS = "?"  # several options offered where one answer was asked
_ALL_OPTIONS = {letter: letter for letter in LETTERS}

_BARE = re.compile(r"\s*(?:(?:option|choice|letter|选项|答案)\s*:?\s*)?[(\[]?\s*([A-Ja-j])\s*"
                   r"[)\]]?\s*[.:,;!]?\s*", re.I)
# The whole response lists several letters ("A and e", "(A) (B) (C)", "B, D", "B-C-D"): no
# one answer.
_LETTER_LIST = re.compile(r"\s*[(\[]?[A-Ja-j][)\]]?(?:(?:\s*(?:,|-|and|&|/|or)\s*|\s+)"
                          r"[(\[]?[A-Ja-j][)\]]?)+\s*\.?\s*", re.I)
_LISTED = re.compile(r"(?<![A-Za-z])[A-Ja-j](?![A-Za-z])")
_LEAD = re.compile(r"\s*(?:(?i:option|choice|选项)\s*)?"
                   r"(?:[(\[]\s*([A-J])\s*[)\]]|([A-J])\s*[.:)\]]|([A-J])(?=\s*\n)"
                   r"|([A-J])\s+[-–—]\s)")
_LINE_LEAD = re.compile(r"^\s*(?:[(\[]\s*([A-J])\s*[)\]]|([A-J])\s*[.:)])", re.M)
_CHOICE_CLAUSE = re.compile(
    rf"(?:{ANSWER_CLAUSE.pattern}"
    r"|\bI\s*(?:would\s+|'d\s+|will\s+|'ll\s+)?(?:choose|select|pick|go\s+with)"
    r"|\bcorresponds?\s+to\s+(?:the\s+)?(?=option|choice)"
    r"|(?:\bno,?\s+wait|\bwait,?\s+(?:no|actually)|\bcorrection|\bI\s+mean|\bscratch\s+that"
    r"|\bon\s+second\s+thought|\bactually,?\s+(?:it'?s|it\s+is|it\s+should\s+be)"
    r"|(?:不对|更正|等等)[\s,，]*(?:应该|应)?(?:选|是))[\s,:;.!-]*+(?:it'?s\s+|it\s+is\s+)?"
    r"|(?:故|所以|因此|应该|应)?选(?:择)?\s*:?|选项\s*(?:为|是|应为)?\s*:?)"
    # possessive spaces and at most four fillers: linear on long runs of spaces or "选项"
    r"\s*+(?:(?:clearly|definitely|probably|likely|most\s+likely|obviously|certainly|surely|"
    r"indeed|actually|therefore|thus|then|option|choice|letter|选项)\s*+:?\s*+){0,4}"
    r"[(\[]?\s*+([A-Ja-j])(?![A-Za-z0-9_']|-[A-Za-z])",
    re.I,
)
_CHOOSE_KEYS = ("choose", "select", "pick", "go with", "wait", "correction", "mean", "scratch",
                "second thought", "actually", "correspond", "不对", "更正", "等等")
_CHOICE_KEYS = _CLAUSE_KEYS + _CHOOSE_KEYS
_CLAUSE_HINT = re.compile("|".join(map(re.escape, _CHOICE_KEYS)))
# A verdict after the second letter (and any more): "B, C and D are wrong", "B、C项错误",
# "B, C or D would not fit" -- those are ruled out, not offered ("选B和D错误" stays ambiguous).
_VERDICT = (r"(?:\s*[)\]]?\s*(?:,|、|and|or|&|和|或)\s*[(\[]?\s*[A-J](?![A-Za-z0-9_'])){0,8}"
            r"\s*[)\]]?\s*(?:(?:are|is|would|will|can|could)\s+(?:be\s+)?(?:all\s+|both\s+)?"
            r"(?:not\b|wrong|incorrect|distractors?|eliminated|ruled\s+out|excluded|false)"
            r"|项?(?:均|都)?(?:错误|错|不正确|不对|不符|排除))")
# "(A) or (C)", "A / C", "A或C", "A, E", "(B), (C), and (D)", "(A) (B)": a second option
# offered right after the first -> ambiguous (not "A, I think" or "A and a cat").
_OR_NEXT = re.compile(
    r"\s*[)\]]?\s*(?:,?\s*(?:or|/|或者?|还是|and|&|和)|,|、)\s*(?:option\s*|choice\s*|选项\s*)?"
    r"[(\[]?\s*([A-J])(?![A-Za-z0-9_'])(?!\s+(?!(?:and|or|are)\b)[a-z])(?:(?<=和[A-Ja-j])|(?!" + _VERDICT + "))"
    r"|\s*(?:[)\]]|(?<=[)\]]))\s*[(\[]\s*((?-i:[A-J]))\s*[)\]]", re.I)  # "(A) (B)", not "(D) (a)"


def _next_option(text: str, at: int) -> str | None:
    """The upper-case letter of a second option offered right after the one ending at
    `at` (`_OR_NEXT`), or None."""
    other = _OR_NEXT.match(text, at)
    return None if other is None else (other.group(1) or other.group(2)).upper()


def _options(choices: Mapping[str, str]) -> dict[str, str]:
    """{upper-case letter: the caller's key}; the caller's mapping is only read."""
    try:
        return _options_of(tuple(choices))
    except TypeError:  # not iterable, or keys that cannot be hashed: no usable options
        return _ALL_OPTIONS


@functools.lru_cache(maxsize=1024)
def _options_of(keys: tuple) -> dict[str, str]:
    # Cached per key tuple: every item of a benchmark has the same few option sets. The
    # result is shared, so callers must not modify it.
    options: dict[str, str] = {}
    for key in keys:
        if isinstance(key, str) and len(key.strip()) == 1 and key.strip().upper() in LETTERS:
            options.setdefault(key.strip().upper(), key)
    return options or _ALL_OPTIONS


def _names_letter(match: re.Match) -> bool:
    """Whether a choice-clause match names an option letter (not "a cat", "I think",
    "选项D也是错误的", "选项：" heading a list of the options)."""
    text, letter, end = match.string, match.group(1), match.end()
    if "选项" in match.group(0) and named_not_chosen(match):
        return False
    if letter.islower() and text[end:end + 16].lstrip()[:1].isalpha():
        return False  # "the answer is a cat"
    return not (letter in "AI" and is_article_or_pronoun(text, letter, end))  # "the answer is I think"


def _clause_letter(text: str, *, scan: bool = False) -> str | None:
    """The upper-case letter named by the last answer clause (`_AMBIGUOUS` when it offers
    two), or None without one. `scan=True` scans the whole text (the reference the fast
    keyword-anchored search is tested against)."""
    if scan:
        if not may_have_clause(text, _CHOOSE_KEYS):
            return None
        last = None
        for last in filter(_names_letter, _CHOICE_CLAUSE.finditer(text)):  # noqa: B007 - keeps the last
            pass
    else:
        lowered = text.lower()
        if len(lowered) == len(text) and _CLAUSE_HINT.search(lowered) is None:
            return None  # the anchored search starts only at a keyword: there is none
        last = last_clause(text, _CHOICE_CLAUSE, _CHOICE_KEYS, _names_letter)
    if last is None:
        return None
    letter = last.group(1).upper()
    other = _next_option(text, last.end())
    return _AMBIGUOUS if other and other != letter else letter


def _lists_letters(text: str, choices: Mapping[str, str], options: dict[str, str]) -> bool:
    """A response that is a list of letters (`_LETTER_LIST`) names several different ones,
    and is not itself an option's text ("A and B" as an option)."""
    if len({letter.upper() for letter in _LISTED.findall(text)}) < 2:
        return False  # "(D) (D)"
    return normalize_text(text) not in option_texts(choices, options).values()


def _segment_after(text: str, end: int) -> str:
    stop = SEGMENT_END.search(text, end)
    return text[end:stop.start() if stop else len(text)]


def _enumerates(text: str, options: dict[str, str]) -> bool:
    if "\n" not in text:
        return False  # one line holds one lead at most
    leads = {a or b for a, b in _LINE_LEAD.findall(text)}
    return len(leads & options.keys()) > 1


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
    if not said.islower() or first in _ADVERBS or _CLAUSE_HINT.search(said.lower()):
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


def _may_list(rest: str) -> bool:
    """Whether a lead's rest may continue a list of letters (`_LETTER_LIST`): not when it
    opens with two letters that cannot start a separator ("cat", not "Cand D", "and C",
    "or C"). A cheap test before the pattern, for the fast path."""
    second = rest[1:2]
    return not (rest[:1].isalpha() and second.isalpha()) or second in "aAoO" \
        or rest[:2].lower() in ("an", "or")


def _fast_choice(text: str, choices: Mapping[str, str],
                 options: dict[str, str]) -> Extraction[str] | None:
    """The answer of a response in one of the common shapes, exactly as the full parser
    reads it (tests/scoring/test_extract_fast.py compares the two), or None to say "use
    the full parser"."""
    bare = _BARE.fullmatch(text)
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
                                 or _CLAUSE_HINT.search(rest.lower())
                                 or _OR_NEXT.match(text, short.end(1))):
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
            or _OR_NEXT.match(text, lead.start(4) - 1) or _CLAUSE_HINT.search(text.lower()) \
            or (len(text) < 40 and _may_list(lead.group(4)) and _LETTER_LIST.fullmatch(text)) \
            or echoes_options(text, choices, options):
        # a clause may follow, the lead may be ruled out, "(B) C" lists two letters (rule
        # 1), or the options are echoed: the full rules
        return None
    return extraction(options[letter], PARSE_OK)


def extract_choice_detailed(response: str, choices: Mapping[str, str],
                            question: str | None = None, *, fast: bool = True) -> Extraction[str]:
    """`extract_choice` with the parse path; rules in the module docstring. `fast=False`
    skips the fast path (the full rules only, which tests/scoring/test_extract_fast.py
    compares it with)."""
    text = clean_response(response)
    if not text:
        return FAILED
    if "\\" in text or "^" in text or "√" in text:
        # "\\frac{7}{2} \\mathrm{~cm}^{2}" reads "7/2 cm", like its option
        text = plain_latex(text, powers_matter(choices))
    options = _options(choices)
    found = _fast_choice(text, choices, options) if fast else None
    if found is None:  # (a fast-path answer is a letter form or an option's text: no refusal)
        found = _full_choice(text, choices, options, question)
    if found.value is not None and len(options) == 2:
        found = letter_then_word(text, choices, options, found)
    if found.value is None and isinstance(response, str) and "\\boxed" in response:
        # A box holding a value ("\\boxed{24/7}") beside a clause naming the letter.
        whole = clean_response(response, boxed=False)
        if whole != text:
            if "\\" in whole or "^" in whole or "√" in whole:
                whole = plain_latex(whole, powers_matter(choices))
            around = _full_choice(whole, choices, options, question)
            return around if around.parse == PARSE_OK else FAILED  # not a letter in the prose
    return found


def _outside(text: str, choices: Mapping[str, str], options: dict[str, str],
             question: str | None) -> Extraction[str]:
    """A letter outside the options was named: no answer, except that Yes/No options still
    read the yes/no the response states ("The correct option letter is D. X is not the
    maximum." -> No)."""
    texts = option_texts(choices, options)
    if yes_and_no(texts):
        return yesno_option(text, texts, options, question)
    return FAILED


def _full_choice(text: str, choices: Mapping[str, str], options: dict[str, str],
                 question: str | None = None) -> Extraction[str]:
    """The full rules of the module docstring, on a cleaned response."""
    bare = _BARE.fullmatch(text)
    if bare:
        letter = bare.group(1).upper()
        return extraction(options[letter], PARSE_OK) if letter in options else FAILED
    if len(text) < 40 and _LETTER_LIST.fullmatch(text) and _lists_letters(text, choices, options):
        return FAILED
    cut = CONTINUATION.search(text)
    if cut and cut.start() > 0:  # the answer given before the model wrote a new question
        head = _full_choice(text[:cut.start()], choices, options, question)
        if head.parse == PARSE_OK:
            return head
    if "\n" in text and only_answer_lines(text):
        return FAILED  # "The answer is (B).\n\nThe answer is (J).\n\nThe answer is (E)."
    clause = _clause_letter(text)
    if clause is not None and hypothetical_clauses(text):
        clause = None  # "If …, the answer is (A) Yes. If …, the answer is (B) No."
    if clause is not None:
        if _overruled(text, choices, options):
            return FAILED
        if clause in options:
            return extraction(options[clause], PARSE_OK)
        return _outside(text, choices, options, question)
    opening = opening_verdict(text)
    if opening in options:  # before a loop or cut-off
        return extraction(options[opening], PARSE_OK)
    found = _unclaused_choice(text, choices, options, question)
    if found.parse == PARSE_LENIENT and cut_off(text):
        return FAILED  # stopped mid-sentence, or looping, before it answered
    if found.parse == PARSE_LENIENT and isinstance(choices, Mapping):
        refused = no_answer_statement(text, choices)
        if refused is not None:  # "none of the options match", "impossible to determine"
            after = _full_choice(text[refused.end():], choices, options, question)
            if after.parse == PARSE_OK or (after.parse == PARSE_LENIENT and leans_after(
                    text, refused.end())):
                return after  # an answer follows ("… with certainty, but it is likely X")
            return FAILED
    return found


# An answer block's tail that opens with a letter of its own: "C. …", "B (…", "(D), …"
_LEAD_LETTER = re.compile(r"[(\[]?[A-J](?:[)\].,:]|\s*[(,]|\s*$)")


def _overruled(text: str, choices: Mapping[str, str], options: dict[str, str]) -> bool:
    """Whether the answer clause of `text` is no answer after all: a closing answer block
    says no option is right or echoes the options ("【答案】: 无正确答案" after "选项D, …",
    "【答案】A. ①② B. ①③ …"), or the clause offers the option closest to an answer said not
    to be among them, with no answer clause of its own before or after ("None of the
    options match. The closest answer is C.")."""
    tail = final_answer_tail(text)
    if tail is not None and len(tail) > 3 and (
            says_no_option(tail) and _clause_letter(tail) is None
            and not _LEAD_LETTER.match(tail)  # "C. The exact value is not listed"
            or echoes_options(tail, choices, options)):
        return True
    guess = closest_guess(text)
    return guess is not None and _clause_letter(text[:guess[0]]) is None \
        and _clause_letter(text[guess[1]:]) is None


def _placed_letter(text: str, choices: Mapping[str, str], options: dict[str, str],
                   question: str | None) -> Extraction[str] | None:
    """Rules 3-4: a bare letter on the last line, or a letter leading the response; None
    when neither decides."""
    if "\n" in text:
        line = text.rsplit("\n", 1)[1]
        last_line = _BARE.fullmatch(line)
        if last_line and last_line.group(1).upper() in options:
            return extraction(options[last_line.group(1).upper()], PARSE_LENIENT)
        written = _written_option(line, choices, options)
        if written is not None and not _enumerates(text, options):  # not the options echoed
            return written
    lead = _LEAD.match(text)
    if not lead:
        return None
    if echoes_options(text, choices, options):
        return FAILED  # "(A) cat (B) dog (C) bird (D) fish": the options, not a choice
    letter = next(g for g in lead.groups() if g)
    if lead.group(1) and letter not in options:  # "(E) 3" where the options end at D
        return _outside(text, choices, options, question)
    if letter in options and not _enumerates(text, options) \
            and not rules_out(_segment_after(text, lead.end())):
        other = _next_option(text, lead.end(lead.lastindex or 0))
        if other and other != letter:
            return FAILED  # "(A) or (C)"
        if not (letter == "I" and is_article_or_pronoun(text, letter, lead.end(lead.lastindex or 0))):
            return extraction(options[letter], PARSE_OK)
    return None


def _written_option(line: str, choices: Mapping[str, str],
                    options: dict[str, str]) -> Extraction[str] | None:
    """Rule 3: the last line is an option written out, its letter and its text ("F. K>0"
    after the reasoning), or None."""
    lead = _LINE_LEAD.match(line)
    if lead is None:
        return None
    letter = lead.group(1) or lead.group(2)
    said = normalize_text(plain_latex(line[lead.end():], powers_matter(choices)))
    texts = option_texts(choices, options)
    if said and letter in texts and texts[letter] == said:
        return extraction(options[letter], PARSE_LENIENT)
    return None


def _by_texts(text: str, choices: Mapping[str, str], options: dict[str, str],
              texts: dict[str, str], norm: str | None, question: str | None) -> Extraction[str]:
    """Rule 7: an option's text in the last answer clause, then anywhere, then a compared
    option, then an option's value."""
    tail = clause_tail(text)
    if tail:
        letter = by_option_text(tail, texts)
        if letter:
            return extraction(options[letter], PARSE_LENIENT)
    norm = normalize_text(text) if norm is None else norm
    letter = blank_filled(norm, texts, question) or by_option_text(text, texts, norm) \
        or compared_option(text, texts, question)
    if letter:
        return extraction(options[letter], PARSE_LENIENT)
    return by_option_value(text, choices, options)


def _unclaused_choice(text: str, choices: Mapping[str, str], options: dict[str, str],
                      question: str | None) -> Extraction[str]:
    """Rules 3-8, for a response without an answer clause."""
    placed = _placed_letter(text, choices, options, question)
    if placed is not None:
        return placed
    texts = option_texts(choices, options)
    if yes_and_no(texts):
        return yesno_option(text, texts, options, question)  # rule 8, not by their words
    norm = None
    if texts and len(text) <= 200:
        norm = normalize_text(text)
        exact = [letter for letter, t in texts.items() if t == norm]
        if len(exact) == 1:
            return extraction(options[exact[0]], PARSE_LENIENT)
    raw_texts = [str(choices.get(key, "")) for key in options.values()] if texts else []
    strong = prose_letters(text, options, echoed_option_spans(text, raw_texts))
    if len(strong) > 1:  # several letters: the one the concluding sentence names, if one
        strong = concluding_letters(text, options, raw_texts)
    if strong:
        return extraction(options[strong.pop()], PARSE_LENIENT) if len(strong) == 1 else FAILED
    return _by_texts(text, choices, options, texts, norm, question) if texts else FAILED


def extract_choice(response: str, choices: Mapping[str, str],
                   question: str | None = None) -> str | None:
    """The option letter a response chose (the key as given in `choices`), or None.

    Empty `choices` means "any letter A-J" (no option-text matching). `question` is used
    only by options that are Yes and No (rule 8).

    >>> extract_choice("The answer is clearly B, not A.", {"A": "cat", "B": "dog"})
    'B'
    >>> extract_choice("Answer: D", {"A": "1", "B": "2", "C": "3", "D": "4"})
    'D'
    >>> extract_choice("I think it is definitely the dog.", {"A": "cat", "B": "dog"})
    'B'
    """
    return extract_choice_detailed(response, choices, question).value
