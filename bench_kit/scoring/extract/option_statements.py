"""What a multiple-choice response says about the options as a whole (rules of
`bench_kit.scoring.extract.answers`): that no option is the answer (or that it cannot
answer, and what it leans to after all), which options it names only to set aside, which
option fills the question's blank or equals its answer number. Whether it stopped (cut off,
looping) before answering is `truncation.cut_off_mid_sentence`."""

from __future__ import annotations

import functools
import math
import re
from collections.abc import Iterator, Mapping

from bench_kit.scoring.extract.numbers import answer_number_token
from bench_kit.scoring.extract.prose_letters import SEGMENT_END, rules_out
from bench_kit.scoring.extract.response import (
    _NO_ANSWER_HINT,
    ANSWER_CLAUSE,
    FAILED,
    NO_ANSWER,
    PARSE_LENIENT,
    Extraction,
    extraction,
    last_refusal,
    sentence_start,
)
from bench_kit.scoring.extract.restatement import SENTENCE, comparisons, content_words
from bench_kit.text.latex import plain_latex
from bench_kit.text.normalize import normalize_for_match
from bench_kit.text.numbers import number_tokens
from bench_kit.text.words import contains_phrase

# The response says the answer is not among the options, or that it cannot answer: no
# letter, unless an answer clause follows the statement.
_NO_OPTION = re.compile(
    r"\b(?:answer|option|choice)s?\s+(?:is|are)\s+not\s+(?:provided|listed|given|available"
    r"|present|included|among|in|one\s+of|found)\b"
    r"|\b(?:is|are)\s+not\s+(?:among|in|one\s+of)\s+the\s+(?:given\s+|provided\s+|answer\s+)?"
    r"(?:choices|options)"  # "55.5° is not among the options"
    r"|\bnot\s+(?:available|given|listed|provided|present|included|found)\s+(?:in|among)"
    r"\s+the\s+(?:given\s+|provided\s+|answer\s+)?(?:choices|options)"
    r"|\bnone\s+of\s+the\s+(?:given\s+|provided\s+|answer\s+)?(?:options|choices)\s+"
    r"(?:\([^()]{0,30}\)\s+|(?:[a-j],?\s+(?:and\s+|or\s+)?){2,})?(?:match|is|are|fit|correspond|agree)"
    r"|\b(?:this|that|it|which|result|value)\s+is\s+not\s+(?:an?\s+|one\s+of\s+the\s+)?"
    r"(?:option|choice)s?\b"
    r"|\b(?:cannot|can't|can\s+not|unable\s+to)\s+(?:provide|determine|give)\s+(?:the|an|a)\s+"
    r"(?:exact\s+|correct\s+|definitive\s+|specific\s+)?(?:answer|solution)"
    r"|\binsufficient\s+to\s+(?:provide|determine|answer|solve)"
    # "the question seems flawed" (as "题目有误" below; not "the question asks")
    r"|\b(?:question|problem)\s+(?:itself\s+)?(?:is|seems|appears|may\s+be|might\s+be)\s+(?:to\s+be\s+)?"
    r"(?:flawed|faulty|erroneous|ill-posed|(?:incorrect|wrong)(?=\s*(?:[.,;:!]|$)))\b"
    r"|选项中没有|没有(?:正确|符合)的?(?:答案|选项)"
    # "题目选项都不正确" (every option; not "其他选项都不正确"), "无正确答案", "题目可能有误",
    # "本题无解", "不在选项中"
    r"|(?:所有|全部|四个|以上|题目|这些|给出的)(?:的)?(?:选项|答案)?(?:均|都)不(?:正确|对|符合|成立)"
    r"|无正确(?:的)?(?:答案|选项)"
    r"|题目(?:可能|本身|似乎)?(?:有误|有错|存在(?:错误|问题)|错误)|(?:题目|此题|本题)无解"
    r"|不在(?:给出的|给定的|所给)?选项中|无法从(?:给出的|给定的|所给)?选项中")  # on lower-cased text
# Literals one of which every _NO_OPTION match contains (on the lower-cased text): the
# regex runs only near them. _NO_OPTION_PART finds a piece of each in any case. (Every
# branch opens with a literal character: the engine skips the characters none opens with.)
_NO_OPTION_HINT = re.compile(r"is not|are not|not (?:avail|given|listed|provid|present|includ"
                             r"|found)|none of the|cannot|can't|can not|unable|insufficient|没有"
                             r"|都不|无正确|题目|无解|不在|无法从|flawed|faulty|erroneous|incorrect"
                             r"|wrong|ill-posed")
_NO_OPTION_PART = re.compile(r"ot|OT|one|ONE|n't|nable|nsufficient|没有|都不|无正确|题目|无解"
                             r"|不在|无法从|(?i:flawed|faulty|erroneous|incorrect|wrong|ill-posed)")
# Words of an option that is itself "the answer is not among the others" ("None of the
# above", "Neither"); an option that is itself a refusal matches NO_ANSWER ("Can't tell").
_NONE_OPTION = re.compile(r"\b(?:none|not|cannot|unable|neither)\b", re.I)

# "If the heart is wider …, then the answer is (A) Yes." — an answer under a condition.
_IF_CLAUSE = re.compile(r"\bif\b[^.\n]{0,200}?\banswer\s+(?:is|would\s+be)\s*:?\s*[(\[]?\s*"
                        r"([A-J])(?![A-Za-z])", re.I)


def hypothetical_clauses(text: str) -> bool:
    """Whether the response offers answers under conditions, naming different letters
    (an enumeration of cases, not a choice)."""
    if text.count("answer is") + text.count("answer would be") < 2:
        return False
    return len({m.group(1).upper() for m in _IF_CLAUSE.finditer(text)}) > 1


def _no_option(text: str) -> re.Match | None:
    """The last statement that the answer is not among the options."""
    lowered = text.lower()
    first = _NO_OPTION_HINT.search(lowered) if len(lowered) == len(text) else None
    if first is None or not _NO_OPTION_PART.search(text):
        return None  # (a lower-cased text of another length would shift the offsets)
    last = None
    for hint in _NO_OPTION_HINT.finditer(lowered, first.start()):  # every match holds a hint: look near it
        found = _NO_OPTION.search(lowered, max(0, hint.start() - 24), hint.end() + 48)
        if found is not None and not (found.group().startswith(("is", "are")) and _SOME_THING.search(
                lowered, max(0, found.start() - 30), found.start())):
            last = found
    return last


# "a tiger is not one of the options": something else ruled out, not the answer computed
_SOME_THING = re.compile(r"\b(?:a|an)\s+[a-z]+\s*$")


# A line that is only an answer clause: "The answer is (B)." A response made of such lines
# naming different letters answers several questions (a few-shot prompt's), not this one.
_CLAUSE_LINE = re.compile(r"[ \t]*(?:the\s+)?(?:final\s+|correct\s+)?answer\s+is\s*:?\s*[(\[]?([A-J])[)\]]?"
                          r"\.?[ \t]*", re.I)


def only_answer_lines(text: str) -> bool:
    """Whether every line of `text` is a bare answer clause and they name different letters."""
    first = text.lstrip()
    if first[:1] not in "TtFfCcAa" or not _CLAUSE_LINE.fullmatch(
            first[:first.find("\n")] if "\n" in first else first):
        return False  # (most responses: one look at the first line)
    letters = set()
    for line in text.split("\n"):
        if line.strip():
            clause = _CLAUSE_LINE.fullmatch(line)
            if clause is None:
                return False
            letters.add(clause.group(1).upper())
    return len(letters) > 1


# The opening verdict of an explanation: "Explanation for Problem 6: Choice B is correct."
# (a sentence of its own: not "Option B is correct only if …", "… correct in stating …",
# "Choice A is correct? Let's check")
_OPENING_VERDICT = re.compile(r"(?:[^\n:]{0,40}:)?\s*(?:choice|option)\s+((?-i:[A-J]))\s+is\s+"
                              r"(?:the\s+)?correct(?:\s+(?:answer|one|choice|option))?\s*(?:[.!\n]|$)", re.I)


def opening_verdict(text: str) -> str | None:
    """The letter an explanation's opening verdict names ("Explanation for Problem 6:
    Choice B is correct."), or None."""
    if len(text) < 200 and text.isascii():  # (a short text: two scans for the word it names)
        lowered = text.lower()
        if "option" not in lowered and "choice" not in lowered:
            return None
    opening = _OPENING_VERDICT.match(text)
    return None if opening is None else opening.group(1)


def says_no_option(text: str) -> bool:
    """Whether `text` says the answer is not among the options (`_NO_OPTION`)."""
    return _no_option(text) is not None


def final_answer_tail(text: str) -> str | None:
    """What follows an answer clause opening the last line ("[答案]: 无正确答案" -> "无正确答案",
    "Answer: A. ①② B. ①③" -> "A. ①② B. ①③"), or None."""
    line = text[text.rfind("\n") + 1:]
    clause = ANSWER_CLAUSE.match(line.lstrip(" \t[(【"))
    return None if clause is None else line.lstrip(" \t[(【")[clause.end():].strip()


def no_answer_statement(text: str, choices: Mapping[str, str]) -> re.Match | None:
    """The last statement that the response gives no option: that the answer is not among
    the options ("none of the options match") or that it cannot answer (`NO_ANSWER`: "it
    is impossible to determine"). A statement that some option makes itself is choosing
    that option, not a refusal: "none of the options …" beside "None of the above",
    "I can't tell" beside "Can't tell"."""
    if len(text) < 300:  # (each statement holds one of their literals: a short response
        lowered = text.lower()  # most often has none; a long one is scanned near them below)
        if _NO_OPTION_HINT.search(lowered) is None and _NO_ANSWER_HINT.search(lowered) is None:
            return None
    stated = [(statement, option) for statement, option in ((_no_option(text), _NONE_OPTION),
                                                            (last_refusal(text), NO_ANSWER))
              if statement is not None]
    if not stated:
        return None
    texts = [str(v) for v in choices.values()]
    found = [statement for statement, option in stated if not any(option.search(t) for t in texts)]
    return max(found, key=lambda m: m.end()) if found else None


# "None of the options match exactly. The closest answer is C.", "不在选项中，最接近的是D":
# an approximation offered after saying no option is right, not a choice.
# (not the question's own subject: "the nearest planet", "the closest star to Earth")
_CLOSEST = re.compile(r"\b(?:closest|nearest)\b(?!\s+(?!(?:options?|answers?|choices?|ones?|match(?:es)?"
                      r"|values?|approximations?|to|is|in|among|of|would|from)\b)[a-z])|最接近", re.I)


def closest_guess(text: str) -> tuple[int, int] | None:
    """(where the statement starts, where the sentence ends) of an option offered as the
    closest to an answer the response said is not among the options (`_no_option` before
    it), or None."""
    if not ("losest" in text or "earest" in text or "最接近" in text or "LOSEST" in text
            or "EAREST" in text):
        return None  # (most responses: C-speed substring scans; one is in every match)
    closest = None
    for closest in _CLOSEST.finditer(text):  # noqa: B007 - keeps the last
        pass
    if closest is None:
        return None
    refused = _no_option(text[:closest.start()])
    if refused is None:
        return None
    end = SEGMENT_END.search(text, closest.end())
    return refused.start(), len(text) if end is None else end.end()


_NOT_A_VALUE = ("√", "sqrt")  # an option "√10 cm" is not the number it holds
# ... but a root is a value of its own: "sqrt(3)/2", "2 sqrt(2)", "sqrt(10) cm"
_ROOT = re.compile(r"\s*(\d+(?:\.\d+)?)?\s*(?:sqrt|√)\s*\(?(\d+(?:\.\d+)?)\)?\s*(?:/\s*(\d+(?:\.\d+)?))?"
                   r"\s*([^\d()/^]{0,12})")


@functools.lru_cache(maxsize=4096)
def _option_value(text: str) -> float | None:
    """The number an option is ("10m", "60°", "5πcm" -> 5), or None for other options."""
    text = plain_latex(text)  # "$\\frac{7}{2} \\mathrm{~cm}^{2}$" -> "7/2 cm"
    root = _ROOT.fullmatch(text)
    if root is not None:  # "sqrt(3)/2" is 0.866…, "2 sqrt(2) cm" 2.83 (never the 3 or 2 it holds)
        factor, radicand, divisor = (float(group) if group else 1.0 for group in root.groups()[:3])
        return factor * math.sqrt(radicand) / divisor if divisor else None
    found = number_tokens(text)
    if len(found) != 1 or any(sign in text for sign in _NOT_A_VALUE):
        return None
    rest = text[:found[0].start] + text[found[0].end:]
    return found[0].value if len(rest) <= 12 and not any(ch.isdigit() for ch in rest) else None


@functools.lru_cache(maxsize=4096)
def _offers_no_answer(option: str) -> bool:
    """Whether an option's text offers no answer ("It is impossible to determine")."""
    return bool(_NONE_OPTION.search(option) or NO_ANSWER.search(option))


def by_option_value(text: str, choices: Mapping[str, str],
                    options: dict[str, str]) -> Extraction[str]:
    """Rule 7b: options that are all numbers (but for one that offers no answer, "It is
    impossible to determine"), and the response's answer number (the last one, unless
    written right after "not": "40°, not 34°" gives none) equals exactly one."""
    values: dict[str, float | None] = {}
    other = None
    for letter, key in options.items():  # (read one by one: most options stop at the second)
        value = values[letter] = _option_value(str(choices.get(key, "")))
        if value is None:
            if other is not None:
                return FAILED  # two options that are not numbers
            other = letter
    if len(values) < 3 if other else len(values) < 2:
        return FAILED
    if other and not _offers_no_answer(str(choices.get(options[other], ""))):
        return FAILED  # an option that is neither a number nor "it is impossible to tell"
    pi_units = any("π" in str(choices.get(key, "")) or "\\pi" in str(choices.get(key, ""))
                   for key in options.values())  # options "2πcm" … "5πcm"
    found, token, cleaned = answer_number_token(text, pi_units)
    if token is None or found.value is None or cleaned[max(0, token.start - 5):token.start].lower().strip() == "not":
        return FAILED
    if _in_root(cleaned, token.start, token.end):
        return FAILED
    hits = [letter for letter, value in values.items()
            if value is not None and found.value is not None
            and abs(value - found.value) <= 1e-9 * max(1.0, abs(value))]
    return extraction(options[hits[0]], PARSE_LENIENT) if len(hits) == 1 else FAILED


# A radicand ("sqrt 3", "sqrt(3)") or a factor written against its root ("6 sqrt 3"); not
# a number beside a root it is checked by ("5 = sqrt 25", "5 ( sqrt 25 = 5)").
_RADICAND_BEFORE = re.compile(r"sqrt\s?\(?\s?$")
_FACTOR_AFTER = re.compile(r" ?(?:/ ?)?sqrt")  # ("1/ sqrt 2" too)


def _in_root(text: str, start: int, end: int) -> bool:
    """Whether the number at `text[start:end]` is the radicand of a root or a factor
    written against it ("sqrt(3)", "6 sqrt(3)"; the response is plain text by then, "√"
    read as "sqrt")."""
    return _RADICAND_BEFORE.search(text, max(0, start - 7), start) is not None \
        or _FACTOR_AFTER.match(text, end) is not None


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


# A blank in the question ("It is (_) past three.", "The ___ of the cell"): the words
# after it, up to the end of the sentence, the response writes after the option it fills.
_BLANK = re.compile(r"(?:\(\s*_+\s*\)|_{2,})\s*([^.?!\n(]{1,40})")


def blank_filled(norm: str, texts: dict[str, str], question: str | None) -> str | None:
    """"It is (_) past three." -> "The time is quarter past three.": the one option whose
    text stands right before the words that follow the question's blank. `norm`: the
    normalised response; `texts`: letter -> normalised option text."""
    blank = _BLANK.search(question) if question and "_" in question else None
    after = normalize_for_match(blank.group(1)) if blank else ""
    if not after:
        return None
    filled = [letter for letter, text in texts.items() if f"{text} {after}" in f" {norm} "
              and f" {text} {after}" in f" {norm} "]
    return filled[0] if len(filled) == 1 else None


# "The other options, such as …", "this contrasts with the other options listed": options
# set aside as the others.
_OTHERS = re.compile(r"\bthe\s+other\s+(?:options?|choices?|answers?)\b"
                     r"|\bother\s+(?:\w+\s+){0,4}\w+,?\s+(?:such\s+as|like|including)\b", re.I)
_CLAUSE = re.compile(r"[^.!?\n;]+?(?=\s*(?:[.!?\n;]|,?\s+(?:but|however|although|though)\b"
                     r"|,\s+(?:as|because|since|compared\s+to)\b|$))", re.I)
# An explanation after the answer ("…is Rabbit, as it is prey for both Deer and Wolf"):
# what it names is not offered as the answer.
_EXPLAINS = re.compile(r"\s*,\s+(?:as|because|since|compared\s+to)\b", re.I)


def not_ruled_out(text: str, named: dict[str, str]) -> list[str]:
    """The letters of `named` (letter -> normalised option text, several options the
    response names) that some clause names without ruling them out: "… most likely a
    berry aneurysm rupture. Parkinson disease and glioblastoma are not typically
    associated …" keeps the first. A clause (a sentence, or its part before/after "but")
    rules out what it names when it negates (`rules_out`), sets the options aside as the
    others ("the other options, such as …") or explains the answer (", as it is prey for
    both …")."""
    kept: set[str] = set()
    for match, here in _naming_clauses(text, named):
        clause = match.group()
        if not (rules_out(clause) or _OTHERS.search(clause) or _EXPLAINS.match(clause)
                or _FIRST_IMPRESSION.search(clause) and _CORRECTED_AFTER.match(text, match.end())):
            kept.update(here)
    return sorted(kept)


# "At first glance it looks like a dog, …, but it is actually a cat": a first impression
# corrected later in its sentence is set aside.
_FIRST_IMPRESSION = re.compile(r"\b(?:at\s+first|initially|first\s+impression)\b", re.I)
_CORRECTED_AFTER = re.compile(r"[^.!?\n]{0,120}?\b(?:but|however)\b[^.!?\n]{0,80}?"
                              r"\b(?:actually|in\s+fact|really)\b", re.I)


def only_as_others(text: str, named: dict[str, str]) -> bool:
    """Whether every clause that names one of `named` sets it aside as one of the others
    ("The other options can be ruled out as there is no bow to suggest shooting an
    arrow"), and one does: named after the others' phrase, in its example ("such as …")
    or its reason ("as/since/because …"); not the clause's own subject ("Bird is correct
    while the other options are wrong", "Unlike the other options, a fish lives …")."""
    found = False
    for match, here in _naming_clauses(text, named):
        if not all(_set_aside(match.group(), named[letter]) for letter in here):
            return False
        found = True
    return found


_ASIDE = re.compile(r"\b(?:such\s+as|like|including|for\s+example|e\.g\.|as|since|because)\b", re.I)
_ASIDE_END = re.compile(r"(?:such\s+as|like|including)$", re.I)


def _set_aside(clause: str, text: str) -> bool:
    """Whether option `text` is named in `clause` after its "the other options" phrase,
    within that phrase's example or reason."""
    others = _OTHERS.search(clause)
    if others is None:
        return False
    rest = clause[others.end():]
    if _ASIDE_END.search(others.group()) is None:
        mark = _ASIDE.search(rest)
        if mark is None:
            return False
        rest = rest[mark.end():]
    return contains_phrase(normalize_for_match(rest), text)


def _naming_clauses(text: str, named: dict[str, str]) -> Iterator[tuple[re.Match, list[str]]]:
    """Each clause of `text` (`_CLAUSE`) that names options of `named`, with their letters."""
    for match in _CLAUSE.finditer(text):
        clause = normalize_for_match(match.group())
        here = [letter for letter, t in named.items() if contains_phrase(clause, t)]
        if here:
            yield match, here


# After "we cannot determine it with certainty": the answer the response leans to.
_LEANS = re.compile(r"[^.!?\n]{0,80}?\b(?:but|however)\b[^.!?\n]{0,40}?\b(?:most\s+|more\s+)?"
                    r"(?:likely|probably|appears?|seems?)\b", re.I)


# A sentence that opens by conceding: "While it is not possible to determine …, …".
_CONCEDES = re.compile(r"\s*(?:while|whilst|although|though|even\s+though)\b", re.I)


def leans_after(text: str, at: int) -> bool:
    """Whether the response, right after a refusal ending at `at`, leans to an answer ("…
    with certainty, but it is likely that …")."""
    return _LEANS.match(text, at) is not None


def concedes(text: str, refused: re.Match) -> bool:
    """Whether a refusal (`refused`) is conceded in a clause that the sentence's main
    clause then answers: "While it is not possible to determine the absolute direction …,
    it is safe to say that they rotate anti-clockwise"."""
    if _CONCEDES.match(text, sentence_start(text, refused.start())) is None:
        return False
    stop = SEGMENT_END.search(text, refused.end())
    rest = text[refused.end():stop.start() if stop else len(text)]
    comma = rest.find(",")  # the main clause answers: "…, it is safe to say that …"
    return comma >= 0 and _ANSWERING.search(rest, comma) is not None


# How a main clause after a conceded refusal answers (not "…, the background has a fish tank").
_ANSWERING = re.compile(r"\b(?:it\s+is|it's|safe\s+to\s+say|likely|probably|appears?\s+to\s+be"
                        r"|seems?\s+to\s+be|closest|clearly|definitely|certainly|guess|would\s+be"
                        r"|I\s+would|I'd)\b", re.I)
