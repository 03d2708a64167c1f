"""That a multiple-choice response gives no option (rules of
`bench_kit.scoring.extract.answers`): it says the answer is not among the options or that it
cannot answer (`no_answer_statement`, `says_no_option`), offers the closest option after
saying so (`closest_guess`), or, after all, leans to an answer (`leans_after`) or concedes the
refusal in a clause its sentence then answers (`concedes`)."""

from __future__ import annotations

import re
from collections.abc import Mapping

from bench_kit.scoring.extract.answer_clause import sentence_start
from bench_kit.scoring.extract.no_answer import _NO_ANSWER_HINT, NO_ANSWER, last_refusal
from bench_kit.scoring.extract.prose_letters import SEGMENT_END

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
    # "So the answer is none of the above.", "So the answer is (not given)."
    r"|\banswer\s+is\s*:?\s*\(?(?:none\s+of\s+(?:the\s+above|these|them|the\s+(?:given\s+|answer\s+)?"
    r"(?:options|choices))|not\s+(?:given|listed|provided|available))\b"
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


def says_no_option(text: str) -> bool:
    """Whether `text` says the answer is not among the options (`_NO_OPTION`)."""
    return _no_option(text) is not None


# A response that opens with an apology ("对不起，…", "很抱歉，…") declines the question, whatever
# it writes after it (an answer clause after it still answers: `_after_refusal`).
_APOLOGY = re.compile(r"\s*(?:(?:很|非常|十分)?(?:对不起|抱歉)|不好意思)")
# ... but not one followed by nothing but a letter: "对不起，B。" answers B
_BARE_LETTER_AFTER = re.compile(r"[\s,，:：、]*[(（]?[A-J][)）]?[\s。.!！]*")


def no_answer_statement(text: str, choices: Mapping[str, str]) -> re.Match | None:
    """The last statement that the response gives no option: that the answer is not among
    the options ("none of the options match") or that it cannot answer (`NO_ANSWER`: "it
    is impossible to determine"; an apology opening it, "对不起，…"). A statement that some option makes itself is choosing
    that option, not a refusal: "none of the options …" beside "None of the above",
    "I can't tell" beside "Can't tell"."""
    apology = _APOLOGY.match(text)
    if apology is not None and _BARE_LETTER_AFTER.fullmatch(text, apology.end()):
        apology = None
    if len(text) < 300 and apology is None:  # (each statement holds one of their literals: a
        lowered = text.lower()  # short response most often has none; a long one is scanned near them)
        if _NO_OPTION_HINT.search(lowered) is None and _NO_ANSWER_HINT.search(lowered) is None:
            return None
    stated = [(statement, option) for statement, option in ((_no_option(text), _NONE_OPTION),
                                                            (last_refusal(text), NO_ANSWER),
                                                            (apology, NO_ANSWER))
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
