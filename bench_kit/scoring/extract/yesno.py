"""Yes/no answers in model responses (English and Chinese, negation-aware); re-exported by
`bench_kit.scoring.extract.answers`."""

from __future__ import annotations

import re

from bench_kit.scoring.extract.response import (
    FAILED,
    PARSE_LENIENT,
    PARSE_OK,
    Extraction,
    clause_tail,
    clean_response,
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
    r"(?<![A-Za-z])(?:(yes|yeah|yep|yup|true|correct)|(no|nope|not|never|none|nothing|false"
    rf"|incorrect))(?![A-Za-z]){_NOT_NO}|(n't)(?![A-Za-z])|({_YN_ZH_SKIP})|{_YN_ZH}", re.I)
# "Yes. No wait, no.": the answer after the last explicit correction counts.
_CORRECTION = re.compile(r"(?<![A-Za-z])(?:no,?\s+wait|wait,?\s+(?:no|actually)|correction|"
                         r"I\s+mean|on\s+second\s+thought|scratch\s+that)(?![A-Za-z])"
                         r"[\s,:;.!-]*", re.I)
# "Yes and no", "yes or no": both offered, neither answered.
_BOTH = re.compile(r"\s*(?:and|or|/)\s*(?:yes|no|yeah|nope)(?![A-Za-z])", re.I)
_UNSURE = re.compile(
    r"not\s+sure|unsure|uncertain|cannot\s+(?:be\s+)?(?:determined?|tell|say)"
    r"|can't\s+(?:be\s+)?(?:determined?|tell|say)|unclear|impossible\s+to\s+(?:tell|say|determine)"
    r"|不确定|无法确定|无法判断|不清楚|看不清|不知道", re.I)


def _lead_yesno(text: str) -> str | None:
    """The yes/no a text starts with; "both" for "yes and no"."""
    match = _LEAD_YESNO.match(text)
    if not match:
        return None
    if _BOTH.match(text, match.end()):
        return "both"
    yes_en, no_en, no_zh, yes_zh = match.groups()
    return "yes" if (yes_en or yes_zh) else "no"


def extract_yesno_detailed(response: str) -> Extraction[str]:
    """`extract_yesno` with the parse path: a bare yes/no, the last answer clause or a
    leading yes/no is "ok"; the first decisive word elsewhere is "lenient"."""
    text = clean_response(response)
    if not text:
        return FAILED
    whole = _YESNO_WHOLE.get(text.strip(_YESNO_STRIP).casefold())
    if whole:
        return Extraction(whole, PARSE_OK)
    corrected = None
    for corrected in _CORRECTION.finditer(text):  # noqa: B007 - keeps the last
        pass
    if corrected is not None:
        after = text[corrected.end():]
        stated = _YESNO_WHOLE.get(after.strip(_YESNO_STRIP).casefold()) or _lead_yesno(after)
        if stated:
            return FAILED if stated == "both" else Extraction(stated, PARSE_OK)
    tail = clause_tail(text)
    if tail:
        stated = _YESNO_WHOLE.get(tail.strip(_YESNO_STRIP).casefold()) or _lead_yesno(tail)
        if stated:
            return FAILED if stated == "both" else Extraction(stated, PARSE_OK)
    if _UNSURE.match(text):
        return FAILED
    lead = _lead_yesno(text)
    if lead:
        return FAILED if lead == "both" else Extraction(lead, PARSE_OK)
    if _UNSURE.search(text):
        return FAILED
    for match in _ANY_YESNO.finditer(text):
        yes_en, no_en, no_contracted, skip, no_zh, yes_zh = match.groups()
        if skip:
            continue
        return Extraction("yes" if (yes_en or yes_zh) else "no", PARSE_LENIENT)
    return FAILED


def extract_yesno(response: str) -> str | None:
    """The yes/no answer of a response, "yes" or "no" (English and Chinese, negation-aware).

    >>> extract_yesno("No, there is only a dog.")
    'no'
    >>> extract_yesno("图中没有猫。")
    'no'
    """
    return extract_yesno_detailed(response).value
