"""Yes/no answers in model responses (English and Chinese, negation-aware); re-exported by
`bench_kit.scoring.extract.answers`."""

from __future__ import annotations

import re

from bench_kit.scoring.extract.response import (
    FAILED,
    NO_ANSWER,
    PARSE_LENIENT,
    PARSE_OK,
    Extraction,
    clause_tail_at,
    clean_response,
    last_refusal,
    sentence_start,
)

_YESNO_WHOLE = {
    **dict.fromkeys(("yes", "yeah", "yep", "yup", "true", "是", "是的", "对", "对的", "有",
                     "正确"), "yes"),
    **dict.fromkeys(("no", "nope", "false", "否", "不", "不是", "不对", "没有", "没", "无",
                     "错", "不正确"), "no"),
}
_YESNO_STRIP = " \t\r\n.!,;:\"'()[]"
# "No doubt" / "no question" say "certainly", not "no".
_NOT_NO = r"(?!\s+(?:doubt|question)\b)"
_YN_EN = rf"(?<![A-Za-z])(?:(yes|yeah|yep|yup)|(no|nope))(?![A-Za-z]){_NOT_NO}"
_YN_ZH_SKIP = r"是否有?|有没有|对不对|能否|是不是"  # "whether" words echoed from the question
_YN_ZH = r"(不是|不对|不正确|没有|没|否|无|错|不)|(是|对|有|正确)"
_LEAD_YESNO = re.compile(rf"\s*(?:{_YN_EN}|(?!{_YN_ZH_SKIP})(?:{_YN_ZH}))", re.I)
_ANY_YESNO = re.compile(
    r"(?<![A-Za-z])(?:(yes|yeah|yep|yup|true|correct(?!\s+(?:option|answer|choice|letter)))"
    r"|(no|nope|not|never|none|nothing|false"
    rf"|incorrect))(?![A-Za-z]){_NOT_NO}|(n't)(?![A-Za-z])|({_YN_ZH_SKIP})|{_YN_ZH}", re.I)
# "Yes. No wait, no.": the answer after the last explicit correction counts.
_CORRECTION = re.compile(r"(?<![A-Za-z])(?:no,?\s+wait|wait,?\s+(?:no|actually)|correction|"
                         r"I\s+mean|on\s+second\s+thought|scratch\s+that)(?![A-Za-z])"
                         r"[\s,:;.!-]*", re.I)
# "Yes and no", "yes or no": both offered, neither answered.
_BOTH = re.compile(r"\s*(?:and|or|/)\s*(?:yes|no|yeah|nope)(?![A-Za-z])", re.I)
# A restatement of the question answers it: "Is the function convex?" -> "The function is
# (not) convex." Every content word of the question must be in one sentence of the response.
_WORD = re.compile(r"[a-z0-9]+")
_FUNCTION_WORDS = frozenset(
    "is are was were be been do does did have has had the a an this that these those there it "
    "its of in on at to for by with than as and or image picture shown figure based can could "
    "will would shall should may might according then".split())
# Comparisons restated with their direction: "Is X less than Y?" -> "X is less than Y" (yes),
# "X is greater than / equal to Y" (no), "There are more Y than X" (yes: the sides swapped).
_MORE = frozenset("greater more larger bigger higher longer taller older heavier wider".split())
_LESS = frozenset("less fewer smaller lower shorter younger lighter narrower".split())
_EQUAL = frozenset("equal same".split())
_COMPARATIVES = _MORE | _LESS | _EQUAL
_NEGATORS = frozenset("not no never neither nor t".split())  # "isn't" -> "isn", "t"
_CLAUSE = re.compile(r"[,;:]")
# "(B) No", "B: no", "A (Yes)": a letter before the word.
_LETTER_FIRST = re.compile(r"^[ \t]*[(\[]?[A-J][)\]]?[ \t]*[:.,)]?[ \t]*(?=[(\[]?[A-Za-z])")
_CONDITION = re.compile(r"\b(?:if|otherwise|assuming|suppose)\b", re.I)
SENTENCE = re.compile(r"[^.!?\n]+")
_NEGATION = re.compile(r"\b(?:not|no|never|neither|nor)\b|n't\b", re.I)
_TENTATIVE = re.compile(r"\b(?:if|whether|determine|unless|question|while|whereas|but)\b",
                        re.I)


def _stem(word: str) -> str:
    if word.endswith("sses"):
        return word[:-2]  # "busses" -> "buss"
    return word[:-1] if len(word) > 3 and word.endswith("s") and not word.endswith("ss") else word


def content_words(text: str) -> set[str]:
    """The lower-cased, stemmed words of `text` that are not function words."""
    return {_stem(w) for w in _WORD.findall(text.lower()) if w not in _FUNCTION_WORDS}


def comparisons(text: str) -> list[tuple[int, set[str], set[str], bool]]:
    """Every comparison in the clauses of `text`: (+1 more / -1 less / 0 equal, content
    words of the compared side, content words after "than" / "to" / "as", negated)."""
    found = []
    for clause in _CLAUSE.split(text.lower()):
        words = _WORD.findall(clause)
        for index, word in enumerate(words):
            if word not in _COMPARATIVES:
                continue
            sign = 1 if word in _MORE else -1 if word in _LESS else 0
            rest = words[index + 1:]
            split = next((i for i, w in enumerate(rest) if w in ("than", "to", "as")), len(rest))
            end = next((i for i, w in enumerate(rest[split:]) if w in _COMPARATIVES), None)
            after = rest[split:] if end is None else rest[split:split + end]
            negated = any(w in _NEGATORS for w in words[max(0, index - 5):index])
            found.append((sign, content_words(" ".join(words[:index] + rest[:split])) - _COMPARATIVES,
                          content_words(" ".join(after)) - _COMPARATIVES, negated))
    return found


def _restated_comparison(sentence: str,
                         asked: tuple[int, set[str], set[str], bool]) -> str | None:
    """"yes"/"no" when `sentence` states the comparison the question asks about (`asked`,
    its first from `comparisons`), in the same or another direction (sides swapped:
    direction reversed); of several comparisons in the sentence, the one whose sides best
    match the question's."""
    sign, left, right, _ = asked
    best, answer = 0, None
    for said_sign, said_left, said_right, negated in comparisons(sentence):
        kept = len(left & said_left) + len(right & said_right)
        swapped = len(left & said_right) + len(right & said_left)
        if max(kept, swapped) <= best:
            continue
        best = max(kept, swapped)
        if said_sign == 0 or sign == 0:  # "X is equal to Y" to "Is X greater than Y?"
            same = said_sign == sign
        else:
            same = (said_sign == sign) != (swapped > kept)
        answer = "yes" if same != negated else "no"
    return answer


def _restated(text: str, question: str) -> str | None:
    """"yes"/"no" when a sentence of `text` restates `question` as a statement (negated:
    "no"); None otherwise."""
    wanted = content_words(question)
    if len(wanted) < 2:
        return None
    compared = wanted - _COMPARATIVES if wanted & _COMPARATIVES else None
    asked = comparisons(question)[:1] if compared is not None else []  # parsed once
    stated = None
    for match in SENTENCE.finditer(text):
        sentence = match.group()
        if text.startswith("?", match.end()):
            continue  # the question echoed, not answered
        if _TENTATIVE.search(sentence):
            continue
        have = content_words(sentence)
        if compared is not None and compared <= have and have & _COMPARATIVES:
            if asked:
                stated = _restated_comparison(sentence, asked[0]) or stated  # the last one
        elif wanted <= have and stated is None:
            return "no" if _NEGATION.search(sentence) else "yes"
    return stated


def _lead_yesno(text: str) -> str | None:
    """The yes/no a text starts with; "both" for "yes and no"."""
    match = _LEAD_YESNO.match(text)
    if not match:
        return None
    if _BOTH.match(text, match.end()):
        return "both"
    yes_en, no_en, no_zh, yes_zh = match.groups()
    return "yes" if (yes_en or yes_zh) else "no"


def _after_correction(text: str) -> str | None:
    """The yes/no stated after the last correction ("No wait, yes"), or None."""
    corrected = None
    for corrected in _CORRECTION.finditer(text):  # noqa: B007 - keeps the last
        pass
    if corrected is None:
        return None
    after = text[corrected.end():]
    return _YESNO_WHOLE.get(after.strip(_YESNO_STRIP).casefold()) or _lead_yesno(after)


def _in_clause(text: str) -> str | None:
    """The yes/no of the last answer clause, or None; a letter with a word ("(B) No")
    reads the word unless offered under a condition or retracted by a refusal after it."""
    tail, at = clause_tail_at(text) or ("", 0)
    if not tail:
        return None
    worded = _LETTER_FIRST.sub("", tail, count=1)  # "(B) No", "B: no" -> the word
    stated = _YESNO_WHOLE.get(worded.strip(_YESNO_STRIP).casefold()) or _lead_yesno(worded)
    if stated and worded is not tail:
        if _CONDITION.search(text, sentence_start(text, at), at) or last_refusal(text, at):
            return None
    return stated


def extract_yesno_detailed(response: str, question: str | None = None) -> Extraction[str]:
    """`extract_yesno` with the parse path: a bare yes/no, the last answer clause or a
    leading yes/no is "ok"; a restatement of `question` (when given) or the first decisive
    word elsewhere is "lenient"."""
    text = clean_response(response)
    if not text:
        return FAILED
    whole = _YESNO_WHOLE.get(text.strip(_YESNO_STRIP).casefold())
    if whole:
        return Extraction(whole, PARSE_OK)
    stated = _after_correction(text) or _in_clause(text)
    if stated:
        return FAILED if stated == "both" else Extraction(stated, PARSE_OK)
    if NO_ANSWER.match(text):
        return FAILED
    lead = _lead_yesno(_LETTER_FIRST.sub("", text, count=1))
    if lead:
        return FAILED if lead == "both" else Extraction(lead, PARSE_OK)
    if last_refusal(text):
        return FAILED
    stated = _restated(text, question) if question and text.isascii() else None
    if stated:
        return Extraction(stated, PARSE_LENIENT)
    for match in _ANY_YESNO.finditer(text):
        yes_en, no_en, no_contracted, skip, no_zh, yes_zh = match.groups()
        if skip:
            continue
        return Extraction("yes" if (yes_en or yes_zh) else "no", PARSE_LENIENT)
    return FAILED


def extract_yesno(response: str, question: str | None = None) -> str | None:
    """The yes/no answer of a response, "yes" or "no" (English and Chinese, negation-aware);
    with the `question`, a restatement of it answers too ("The function is convex.").

    >>> extract_yesno("No, there is only a dog.")
    'no'
    >>> extract_yesno("图中没有猫。")
    'no'
    """
    return extract_yesno_detailed(response, question).value
