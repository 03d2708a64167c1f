"""MMMU's open-answer match (`mmmu_open`, docs/METRICS.md#registered-metrics and the
`mmmu_open` rows of its reference differences): the candidate answers of a response, hedges
among them, and whether a gold is the final one. Re-exported by
`bench_kit.scoring.metrics.answers`."""

from __future__ import annotations

import re
from typing import Iterator, Sequence

from bench_kit.scoring.extract.answer_clause import clause_tail_at, may_have_clause
from bench_kit.scoring.extract.answer_part import answer_part
from bench_kit.scoring.extract.answer_slot import slot_answer
from bench_kit.scoring.extract.clause_number import (
    AND_CJK,
    OR_BRACKET,
    offers_another,
    points_on,
    stated_then_asked,
)
from bench_kit.scoring.extract.cn_ranges import cn_bound
from bench_kit.scoring.extract.number_refusals import refuses
from bench_kit.scoring.extract.numbers import revised_working, states_zero
from bench_kit.scoring.extract.response import (
    clean_response,
    final_answer_line,
    json_answer_value,
    json_list_items,
)
from bench_kit.scoring.extract.truncation import cut_off_before_number
from bench_kit.scoring.extract.written_twice import first_of_pair, written_twice
from bench_kit.scoring.metrics.exact_golds import matches_exactly, split_golds
from bench_kit.scoring.metrics.mmmu_gold import gold_in, gold_number
from bench_kit.text.cjk import CJK
from bench_kit.text.numbers import NumberToken, as_percent, number_tokens

_MMMU_SENTENCE = re.compile(r"(?<=[.!?。])\s+|\n")
_MMMU_INDICATOR = re.compile(r"\b(?:could\s+be|so|is|thus|therefore|final|answer|result)\b"
                             r"|答案是?|是", re.I)
_KEY_EDGES = ".,:;!? "
_QUOTES = "\"'"
_MAX_QUOTE_PAIRS = 3  # quotes around a candidate stripped as pairs at most this often ("\"'a'\"")
# Not a comma ("(3, -4)"), nor a factorial's "!" ("The answer is 6! = 720.").
_OPEN_ANSWER_END = re.compile(r"[.?;](?:\s|$)|!(?!\s*=)(?:\s|$)|\n|。")
# "X or Y", "either X or Y", "X / Y", "X或Y": a key offering several candidates; a spaced
# slash between two numbers is a fraction ("3 / 4" is 0.75), no hedge (`_hedge_parts`).
# Each alternative starts at a run of spaces' first (`(?<!\s)`): tried inside a long run too, it
# scanned the rest of the run at every space ("5" + " " * n + "(3)" was quadratic).
_HEDGE_SPLIT = re.compile(r"(?<!\s)(?:\s+or\s+|\s+/\s+|\s*(?:或者?|还是)\s*)", re.I)
# "12 and 15", "A 和 B": short answers joined by "and" offer several too (at most three
# words each); so do values with at most a short unit joined by commas ("k=2, -2").
# Not the 和 of a sum ("它们的和是15", "两数之和为15", "总和为36").
_AND_SPLIT = re.compile(r"(?<!\s)(?:\s+and\s+|\s*" + AND_CJK + r"\s*)", re.I)
# "k=2, -2"; not "(3, -4)" (a key with brackets), nor a consequence: "5 apples, so 6 pears"
_COMMA_SPLIT = re.compile(r",\s+(?!(?:so|thus|therefore|hence)\b)", re.I)
# "an integer value between 40 and 60": a range offers its two ends (not after the key's own
# value: "4, the gap between 3 and 7" states 4).
_BETWEEN = re.compile(r"\bbetween\s+(-?[\d.,/]*\d)\s*(?:and|&|-|–)\s*(-?[\d.,/]*\d)"
                      r"(?:\s*[a-z%°]+){0,2}\W*$", re.I)
_MAX_VALUE_WORDS = 3  # a short answer joined by "and"/"和"; each Chinese character is a word
_MAX_UNIT_WORDS = 2  # a value and its unit joined by commas ("12 cm"; not "2 cm longer")
_EITHER = re.compile(r"^(?:either|maybe|perhaps|possibly|probably)\s+", re.I)


def _unquoted(key: str) -> str:
    """`key` without the quotes around it, a pair at a time ("'abc'" -> "abc"), its edges
    trimmed after each; a lone quote at one end stays: a prime or a mark of minutes or feet
    ("30°15'", "A'", "5'10\"")."""
    for _ in range(_MAX_QUOTE_PAIRS):
        if len(key) < 2 or key[0] != key[-1] or key[0] not in _QUOTES:
            break
        key = key[1:-1].strip(_KEY_EDGES)
    return key


def _trim_key(key: str) -> str:
    """A candidate with its edges trimmed (quotes as a pair, `_unquoted`); brackets only when
    unbalanced, so `o(n log n)` keeps its closing parenthesis. One pass per bracket kind
    ("((((3" is linear)."""
    key = _unquoted(key.strip(_KEY_EDGES))
    for left, right in ("()", "[]"):
        lefts, rights = key.count(left), key.count(right)
        start, end = 0, len(key)
        while end and key[end - 1] == right and rights > lefts:
            rights, end = rights - 1, end - 1
            while end and key[end - 1] in _KEY_EDGES:
                end -= 1
        while start < end and key[start] == left and lefts > rights:
            lefts, start = lefts - 1, start + 1
            while start < end and key[start] in _KEY_EDGES:
                start += 1
        key = key[start:end]
    return _unquoted(key)


def _opens_lines(text: str, at: int) -> bool:
    """Whether an answer clause whose tail starts at `at` ends its line on a colon ("the
    answer is:\nStep 1: …"): it introduces the lines after it."""
    before = text[max(0, at - 40):at]
    kept = before.rstrip()
    return kept.endswith((":", "：")) and "\n" in before[len(kept):]


# A closing remark after a stated value, whose number is no answer: a note, a wish, a pointer
# ("Note that 1 kg equals 1000 g.", "Hope this helps with question 3.", "See step 2 above.",
# "(Image 1 shows the shape.)"), a precision ("Rounded to 2 decimal places.") or an estimate
# ("This took about 2 hours.").
_ASIDE = re.compile(r"^\W*(?:note|see|hope|i\s+hope|good\s+luck|great|thanks?|thank\s+you|rounded|let\s+me"
                    r"|feel\s+free)\b|^\s*[(（]"
                    r"|\b(?:question|problem|step|image|figure|part|exercise|example|page)\s+\d"
                    r"|\d\s+(?:decimal|significant)\b|\b(?:about|approximately|roughly|around)\s+\d", re.I)


def mmmu_candidates(response: str) -> tuple[list[str], list[float]]:
    """MMMU's open-answer candidates: per sentence, the text after its last indicator word
    ("is", "so", "thus", "answer" …; "=" too in the last sentence) when that text is not
    empty, and the whole last sentence when it has a number but no indicator ("In total, Amy
    scores 41 points."), or the whole response when no sentence gives one; plus every number
    in those texts. A response with an answer
    clause ("So the answer is 21.") has one candidate, that clause's answer: the numbers
    of its working ("A * B = 173 * -48 = (-8304) * (-48)") are not offered as answers; so
    has one whose closing line states it ("A: 36", "Final answer: 36", "#### 36"), its
    result when that is a calculation ("A: 3 * 12 = 36"). An answer clause whose line ends
    with a colon introduces the lines after it, and one that restates the question ("Final
    Answer: How many bars did he buy?") is answered by them: their candidates are taken."""
    stated = final_answer_line(str(response))
    if stated is not None and _trim_key(stated.lower().rpartition("=")[2]):
        key = stated.lower()
        key = _trim_key(key if _EQUATION.fullmatch(key) else key.rpartition("=")[2])
        return [key], [t.value for t in number_tokens(key)]
    clause = clause_tail_at(str(response), _OPEN_ANSWER_END)
    text = str(response)
    if clause is not None and (clause[0].endswith((":", "：")) or _opens_lines(text, clause[1])
                               or points_on(clause[0])):
        # "【答案】\n首先，我们解这个方程组：\n…", "The answer is as follows. There are 12 birds.":
        # the lines that follow
        text = text[clause[1]:]
    elif clause is not None and not stated_then_asked(clause[0]) and (
            clause[0].endswith("？") or text.startswith(("?", "？"), clause[1] + len(clause[0]))):  # "Final Answer: How many …?\nHe bought 6."
        text = text[clause[1] + len(clause[0]) + (not clause[0].endswith("？")):]
    elif clause is not None and _trim_key(clause[0].lower()):
        key = _trim_key(clause[0].lower())
        return [key], [t.value for t in number_tokens(key)]
    text = text.strip().strip(".").lower()
    sentences = [s for s in _MMMU_SENTENCE.split(text) if s.strip()]
    keys: list[str] = []
    for index, sentence in enumerate(sentences):
        sentence = _BULLET.sub("", sentence)  # "- 12 apples": a list item, no minus sign
        if index == len(sentences) - 1 and _REMARK.match(sentence) \
                and not _GIVES.search(sentence) and any(number_tokens(key) for key in keys):
            continue  # "The probability is 0.25. This is computed over 4 outcomes."
        ends = _indicator_ends(sentence)
        if index == len(sentences) - 1 and "=" in sentence:
            ends.append(sentence.rindex("=") + 1)
        if ends:
            key = _trim_key(sentence[max(ends):])
            if key:
                keys.append(key)
        elif index == len(sentences) - 1 and number_tokens(sentence) and not (
                _ASIDE.search(sentence) and any(number_tokens(key) for key in keys)):
            keys.append(_trim_key(sentence))  # "In total, Amy scores 41 points (26+15)."
    if not keys and text:
        keys = [_trim_key(text)]
    numbers = [t.value for key in keys for t in number_tokens(key)]
    return keys, numbers


# "答案：y=2x": a line stating an equation of one variable is its answer as a whole (a numeric
# gold is still read after its "=", `_result_sides`).
_EQUATION = re.compile(r"[\s:：$]*[a-z]\s*=[^=]+")
_BULLET = re.compile(r"^\s*[-*•]\s+(?=\S)")
# "It is 12, and this is 5 more than 7.", "It is 12, which is a dozen": a remark on the value
# stated before the comma.
_REMARKED = re.compile(r",\s*(?:and\s+)?(?:this|that|which)\s+$")
# "This is computed over 4 outcomes.": a closing remark on how a stated value was found.
_REMARK = re.compile(r"\W*(?:this|that|it)\s+(?:is|was)\s+(?:computed|calculated|based|obtained"
                     r"|derived|determined)\b")
# (not one giving a value: "This is calculated again with the correct rate, giving 12.")
_GIVES = re.compile(r"\b(?:giving|gives|gave|yielding|yields|results?\s+in|to\s+get|is\s+now)\b",
                    re.I)


def _indicator_ends(sentence: str) -> list[int]:
    """Where the indicator words of a candidate sentence end ("is", "so", "answer", …), but
    not an "is" remarking on the value ("…, and this is …", "…, which is …") after a number
    stated after an earlier indicator."""
    ends: list[int] = []
    for match in _MMMU_INDICATOR.finditer(sentence):
        if ends and match.group().lower() == "is" and any(
                ch.isdigit() for ch in sentence[max(ends[-1], match.start() - 200):match.start()]) \
                and _REMARKED.search(sentence, max(0, match.start() - 20), match.start()):
            continue
        ends.append(match.end())
    return ends


def _words(part: str) -> int:
    """How many words a part has, each Chinese character one ("平均数" is 3)."""
    return len(CJK.sub(" ", part).split()) + len(CJK.findall(part))


def _separators(split: re.Pattern, key: str,
                found: list[NumberToken]) -> Iterator[tuple[re.Match, bool]]:
    """The separators of `key` (`split`'s matches), each with whether it lies inside one of
    its numbers `found` ("3 / 4" is one fraction, "3 and a half" one number); one walk over
    the separators and the numbers, both in order."""
    index = 0
    for match in split.finditer(key):
        while index < len(found) and found[index].end <= match.start():
            index += 1
        yield match, index < len(found) and found[index].start < match.start() \
            and match.end() < found[index].end


def _hedge_parts(key: str) -> list[str]:
    """A key split at its hedge separators, except one inside a number ("3 / 4" is one
    fraction, 0.75; "3 / 4 or 5" is 0.75 or 5)."""
    parts, start = [], 0
    for found, inside in _separators(_HEDGE_SPLIT, key, number_tokens(key)):
        if not inside:
            parts.append(key[start:found.start()])
            start = found.end()
    return parts + [key[start:]]


def _written_twice(key: str) -> bool:
    """Whether a key is two numbers joined by "or" that are one value ("3/12 or 1/4",
    "2 hours or 120 minutes")."""
    found = number_tokens(key)
    return len(found) == 2 and first_of_pair(key, found, 1) is not None


def _two_quantities(key: str) -> bool:
    """Whether a hedge offers one number as two different quantities ("2 hours or 2
    minutes", "1 or 1%"): no gold is both."""
    found = number_tokens(key)
    return len(found) == 2 and found[0].value == found[1].value \
        and not written_twice(key, found[0], found[1])


def _offered_in_bracket(key: str) -> list[str] | None:
    """A value and another one a bracket after it offers ("4 (or 5 if including the end)",
    `OR_BRACKET`, as for numbers), or None: no such bracket, or the same value written
    another way ("0.5 (or 50%)", "12 inches (or 1 foot)")."""
    bracket = OR_BRACKET.search(key) if "(" in key else None
    if bracket is None:
        return None
    found = number_tokens(key)
    before = [t for t in found if t.end <= bracket.start()]
    after = [t for t in found if t.start >= bracket.end()]
    if not before or not after or not offers_another(key, before[-1], after[0]):
        return None
    return [_trim_key(key[:bracket.start()]), _trim_key(key[bracket.end():])]


def _hedged(key: str, golds: Sequence[str]) -> list[str] | None:
    """The candidates of a key that offers several ("-402 or 48", "12 and 15", "A 和 B",
    values "k=2, -2"), else None. A gold that itself contains the separator ("black or white") is
    no hedge."""
    if any(_HEDGE_SPLIT.search(str(g).lower()) for g in golds):
        return None
    between = _BETWEEN.search(key) if "between" in key else None
    if between is not None and not any(ch.isdigit() for ch in key[:between.start()]) \
            and not any("between" in str(g).lower() for g in golds):
        return [between.group(1), between.group(2)]  # "between 40 and 60": a range, two ends
    offered = _offered_in_bracket(key)
    if offered is not None:
        return offered  # "4 (or 5 if including the end)"
    parts = [_trim_key(_EITHER.sub("", part)) for part in _hedge_parts(key)]
    parts = [part for part in parts if part]
    values = [number_tokens(part) for part in parts[:3]]
    if len(parts) == 2 and all(len(found) == 1 for found in values) \
            and (as_percent(values[0][0], values[1][0]) or _written_twice(key)):
        return None  # "0.5, or 50%", "3/12 or 1/4": one value written two ways
    if len(parts) > 1:
        return parts
    if key.startswith(("[", "(")) and key.endswith(("]", ")")) \
            and all(gold_number(g) is not None for g in golds):
        key = key[1:-1]  # "[0.46, 0.4]" for one number: a list of values, not a point "(3, -4)"
    found = number_tokens(key)
    for split, mark in ((_AND_SPLIT, " and "), (_COMMA_SPLIT, ", ")):
        if split.search(key) and not any(split.search(str(g)) for g in golds) \
                and not any(inside for _, inside in _separators(split, key, found)) \
                and not (mark == ", " and any(ch in key for ch in "([{")):
            parts = [part for part in map(_trim_key, split.split(key)) if part]
            most = _MAX_VALUE_WORDS if mark == " and " else _MAX_UNIT_WORDS
            if len(parts) > 1 and all(_words(part) <= most and (
                    mark == " and " or number_tokens(part)) for part in parts):
                return parts
    return None


def _listed_items(raw: str | None, golds: Sequence[str]) -> list[str] | None:
    """The items of a JSON "answer" field that lists two or more strings ('["cat", "dog"]'), when
    no gold itself lists several (holds a comma: "north, south"), else None."""
    if not raw or '"answer"' not in raw or any("," in str(gold) for gold in golds):
        return None
    value = json_answer_value(raw)
    items = None if value is None else json_list_items(value.strip())
    return items if items is not None and len(items) > 1 else None


def mmmu_open_match(response: str, golds: Sequence[str], raw: str | None = None) -> bool:
    """MMMU open-question match: a numeric gold equals a number of the last candidate that
    has one, after rounding both to 2 decimals; a text gold (lowercased) is a substring of
    the last candidate. (MMMU accepts a gold in any sentence's candidate, so a number met
    on the way to a different final answer counts; here the final statement decides, read
    up to a new question the model writes itself or a closing such as "I hope this helps".)
    A response that says it cannot answer ("impossible to determine"; "not sure" after an
    answer is not such a statement), with no answer clause and no estimate after it, is
    wrong.

    A candidate that offers several answers ("It could be -402 or 48", "either X or Y",
    "A: 12 and 15")
    is right only when every one of them is a gold; when the last such hedge is the
    response's final word, the response is wrong otherwise.

    A response that fills its prompt's answer slot ("[金额]2000元<eoa>", `answer_slot`) is read
    in that slot alone; one filling several with different numbers is wrong.

    A gold that is code output (a Python string literal, a container holding one, a run of
    closing brackets: `exact_golds`) is compared exactly with the answer the response
    states, as its task's grader compares it; `raw`, the response before cleaning, gives
    the value of its JSON "answer" field as written.

    >>> mmmu_open_match("So the area is 3.14159 square meters.", ["3.14"])
    True
    >>> mmmu_open_match("It could be -402 or 48.", ["48"])
    False
    """
    written = str(response) if raw is None else raw
    slot = slot_answer(written) if "<eoa>" in written else None
    text = answer_part(str(response) if slot is None else clean_response(slot))  # "[金额]2000元<eoa>"
    exact, golds = split_golds([str(g) for g in golds])
    if exact:
        if matches_exactly(text, exact, raw, mmmu_candidates):
            return True
        if not golds:
            return False
    listed = _listed_items(raw, golds)
    if listed is not None:  # '{"answer": ["cat", "dog"]}': several answers, as a hedge
        return all(any(gold_in(item.lower(), gold) for gold in golds) for item in listed)
    working = revised_working(text, str(response)) if may_have_clause(text[:200]) else None
    if working is not None:
        text = working  # "The answer is 8.\n… So he needs 6 pages a day.": the working decides
    if refuses(text, unsure=False) and clause_tail_at(text) is None:
        return False  # "it's impossible to determine … in the 4 x 4 table"
    if clause_tail_at(text) is None and final_answer_line(text) is None and cut_off_before_number(text):
        return False  # no answer: "…we need to consider", a formula repeated to the token limit
    if clause_tail_at(text) is None and final_answer_line(text) is None \
            and any(gold_number(gold) is not None for gold in golds) and states_zero(text):
        return any(gold_number(gold) == 0 for gold in golds)  # "There are no clubs with 64 …"
    keys, _ = mmmu_candidates(text)
    if keys:
        parts = _hedged(keys[-1], golds)
        if parts is not None:
            return all(any(gold_in(part, gold) for gold in golds) for part in parts) \
                and not _two_quantities(keys[-1])
    numbered = [key for key in keys if number_tokens(key)]
    if numbered and cn_bound(numbered[-1], number_tokens(numbered[-1])[-1]):
        return False  # "判处6个月以上10年以下": a Chinese range or bound, no one value (as numbers)
    return any(gold_in(key, gold) for gold in golds
               for key in (numbered[-1:] if gold_number(gold) is not None else keys[-1:]))
