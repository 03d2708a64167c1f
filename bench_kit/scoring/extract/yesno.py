"""Yes/no answers in model responses (English and Chinese, negation-aware); re-exported by
`bench_kit.scoring.extract.answers`."""

from __future__ import annotations

import re

from bench_kit.scoring.extract.answer_clause import clause_tail_at, sentence_start
from bench_kit.scoring.extract.concluded_verdict import concluded
from bench_kit.scoring.extract.continuation import first_block
from bench_kit.scoring.extract.contrasted_subjects import contrasted, exceptions_affirmed
from bench_kit.scoring.extract.existence import exists, there_is
from bench_kit.scoring.extract.named_answer import named_answer
from bench_kit.scoring.extract.no_answer import NO_ANSWER, last_refusal
from bench_kit.scoring.extract.question_asked import asked
from bench_kit.scoring.extract.response import (
    FAILED,
    PARSE_LENIENT,
    PARSE_OK,
    Extraction,
    clean_response,
)
from bench_kit.scoring.extract.restatement import (
    NOT_NO,
    SENTENCE,
    content_words,
    restated,
)
from bench_kit.scoring.extract.truncation import line_loop_start
from bench_kit.scoring.extract.yesno_closing import unsettled
from bench_kit.scoring.extract.yesno_declines import NO_ANSWER_OPENING, last_decline, own_decline
from bench_kit.scoring.extract.yesno_negation import (
    EXPLICIT,
    PARAGRAPH,
    YN_ZH,
    YN_ZH_SKIP,
    asks_answer,
    but_explicit,
    but_restated,
    first_decisive,
    no_answer_to,
    opening_end,
)
from bench_kit.scoring.extract.yesno_quoted import opens_quoted, quotes_both, unquoted

_YESNO_WHOLE = {
    **dict.fromkeys(("yes", "yeah", "yep", "yup", "true", "是", "是的", "对", "对的", "有",
                     "正确"), "yes"),
    **dict.fromkeys(("no", "nope", "false", "否", "不", "不是", "不对", "没有", "没", "无",
                     "错", "不正确"), "no"),
}
_YESNO_STRIP = " \t\r\n.!,;:\"'()[]"
# (a German / French / Spanish answer opens the same way: "Ja, ich kann Deutsch sprechen.",
# "Nein, …", Italian "Sì, il gatto è nero." — only before a punctuation mark: "Non-essential
# travel …" is no "Non"; the unaccented "Si" only before a comma, and not before an apposition:
# "Si, silicon, is a metalloid")
_YN_EN = (rf"(?<![A-Za-z])(?:(yes|yeah|yep|yup|(?:ja|oui|s[íì])(?=[,.!])|si(?=,)(?!,\s*\w+\s*,))|(no|nope|(?:nein|non)(?=[,.!])))"
          rf"(?![A-Za-z]){NOT_NO}")
_LEAD_YESNO = re.compile(rf"\s*(?:{_YN_EN}|(?!{YN_ZH_SKIP})(?:{YN_ZH}))", re.I)
# "Yes. No wait, no.": the answer after the last explicit correction counts.
_CORRECTION = re.compile(r"(?<![A-Za-z])(?:no,?\s+wait|wait,?\s+(?:no|actually)|correction|"
                         r"I\s+mean|on\s+second\s+thought|scratch\s+that)(?![A-Za-z])"
                         r"[\s,:;.!-]*", re.I)
# "Yes and no", "yes or no": both offered, neither answered.
_BOTH = re.compile(r"\s*(?:and|or|/)\s*(?:yes|no|yeah|nope)(?![A-Za-z])", re.I)
# "(B) No", "B: no", "A (Yes)": a letter before the word.
_LETTER_FIRST = re.compile(r"^[ \t]*+[(\[]?[A-J](?![A-Za-z])[)\]]?[ \t]*+[:.,)]?[ \t]*+(?=[(\[]?[A-Za-z])")
_CONDITION = re.compile(r"\b(?:if|otherwise|assuming|suppose)\b", re.I)
# An opening word that commits like "yes": "Absolutely!", "Certainly, there are …";
# "Absolutely not." / "Certainly not, …" is "no" ("Absolutely not sure" is neither).
_AFFIRM = re.compile(r"\s*(?:absolutely|certainly|definitely|of\s+course|indeed)(?![A-Za-z])"
                     r"(\s+not(?=\s*(?:[.,;:!\u2014\u2013-]|$)))?", re.I)
# ... but only when its sentence says nothing else: a negation, hedge or offer in the main
# clause after it ("Certainly, the man is not …", "Absolutely! However, it depends …",
# "Certainly! Here are some tips …") makes it a courtesy, and the rest is read without it.
_AFFIRM_DOUBT = re.compile(r"^\s*(?:but|not\s+(?:everyone|everybody|all|every|always))\b|\b(?:however|depends?|depending|hard|difficult|may|might|perhaps"
                           r"|possibly|unclear|if|unless|whether)\b|^\s*(?:here|I'd|I\s+would"
                           r"|I'll|I\s+will|I\s+can|let\s+me|please)\b", re.I)
_MAIN_CLAUSE_END = re.compile(r"(?:^|,)\s*(?:though|although|even\s+though|while|whereas)\b"
                              r"|,\s*(?:but|and\s+(?:it|this|that))\b", re.I)
# A later paragraph that takes the answer back ("Actually, I cannot see the image", "this
# is only a guess") voids it; other refusals there are advice.
_RETRACTED_AT = re.compile(r"image|picture|photo|guess|图片")  # on lower-cased text: fast
_RETRACTED_AT_ANY_CASE = re.compile(_RETRACTED_AT.pattern, re.I)  # when lower() moves offsets
_RETRACTION = re.compile(r"(?:(?:(?:cannot|can't|can\s+not|unable\s+to|not\s+able\s+to|(?:don't|do"
                         r"\s+not)\s+have\s+the\s+ability\s+to)\s+(?:see|view|access|look\s+at)"
                         r"|(?:provide|upload|share|send)(?:\s+me)?)\s+(?:the\s+|any\s+|an?\s+)?"
                         r"|(?:only|just)\s+a\s+|(?:无法|不能)?看(?:到|不到|不见))$", re.I)
_RETRACTION_REACH = 60  # characters before "image" / "guess" read for a retraction
# An opening "It is possible to cook an egg …" / "It's possible for a manager …" answers
# "Can …?" yes (readers of chat answers: 44 of 44). Only "possible to / for": "It's possible
# that …", "It's possible, but unlikely" hedge; and a "but not …" in the opening sentence
# ("possible to survive a few days without water, but not two weeks") answers otherwise.
_POSSIBLE = re.compile(r"\s*it(?:'s|’s|\s+is)\s+(?:definitely\s+|certainly\s+|entirely\s+|absolutely\s+"
                       r"|technically\s+)?possible\s+(?:to|for)\b(?![^.!?\n]*,\s*but\s+not\b)", re.I)
_COSTLY = (r"(?:(?:very|quite|extremely|really)\s+)?(?:difficult|hard|challenging|risky|dangerous"
           r"|expensive|rare)\b|only\s+(?:with|if|under|in|after|when)\b|(?:it\s+)?requires?\b")
# ... while an opening "It is possible that …" only hedges (a review's 6 of 6 careful readings)
_POSSIBLE_THAT = re.compile(r"\s*it(?:'s|’s|\s+is)\s+(?:quite\s+|very\s+|also\s+)?possible(?:\s+that\b"
                            r"|\s*(?:[.;!]|$|,\s*but\b))", re.I)  # (also a bare "It is possible, but not …")
# ... but a bare "It is possible, but difficult / only with a licence / it requires …" says
# what it takes: yes to a question asking whether it can be done ("Can a human …?", "Is it
# possible to …?"; not when the "but" is about knowing: "but hard to predict", "but risky to
# assume that", "but it requires a lab test to confirm")
_POSSIBLE_BUT = re.compile(r"\s*it(?:'s|’s|\s+is)\s+possible,?\s*but\s+(?:" + _COSTLY + r")(?![^.!?\n;]{0,60}?"
                           r"\bto\s+(?:predict|say|know|determine|confirm|assume|tell|verify|be\s+sure)\b)", re.I)
_ASKS_POSSIBLE = re.compile(r"^\s*(?:can|could)\b|\bis\s+it\s+possible\b", re.I)
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


# "This answer is correct.": a remark on an answer (a base model's loop of them after its
# own "The answer is False."), not an answer clause ("My answer is no." is one).
_REMARK = re.compile(r"\b(?:this|that|the\s+above)\s+\Z", re.I)
_REMARK_REACH = 12  # characters before a clause read for the remark's word


def _not_remark(clause: re.Match) -> bool:
    text, at = clause.string, clause.start()
    return _REMARK.search(text, max(0, at - _REMARK_REACH), at) is None


# An answer clause that states no answer: "The answer is unknown / not necessarily / maybe /
# subjective / N/A / not applicable / possibly yes …" ("both": no answer, and nothing
# earlier is read in its place); "The answer is (highly) unlikely" is no, and "likely /
# probably / technically yes" reads the word.
_DECLINED = re.compile(r"(?:(?:somewhat|rather|highly|very|still|currently)\s+)?(?:unknown|not\s+known"
                       r"|unclear|not\s+clear|uncertain|not\s+certain|maybe|subjective|n/a"
                       r"|not\s+applicable|not\s+(?:a\s+)?(?:definitive|definite|simple|clear|straightforward)"
                       r"|not\s+necessarily|not\s+directly|it\s+depends|depends|undetermined"
                       r"|indeterminate|debatable|possibly|potentially|perhaps)(?![A-Za-z])"
                       r"|不一定|未必|不确定|无法确定|很难说|视情况而定", re.I)  # (the same in Chinese)
_SURPRISINGLY = re.compile(r"(?:(?<=perhaps)|(?<=possibly))\s+(?:surprisingly|unexpectedly|counterintuitively"
                           r"|ironically)[\s,:]+(yes|no)(?![A-Za-z])", re.I)
_BUT_THEN_WORD = re.compile(r"[^.!?\n]{0,120}?,\s*but\b(?!\s+not\b)[^.!?\n:;,]{0,80}[,:]\s*(yes|no)"
                            r"(?![A-Za-z])", re.I)  # "…, but based on the shadow, yes"
_UNLIKELY = re.compile(r"(?:(?:most|very|highly|quite|extremely)\s+)?unlikely\Z", re.I)
_LIKELY = re.compile(r"(?:(?:most|very|highly|quite)\s+)?(?:likely|probably|technically)[\s,]+"
                     r"(?=(?:yes|no)(?![A-Za-z]))", re.I)


# ... and one its sentence hedges before it: "it is possible (or likely, not "most / highly /
# very likely") that the answer is yes", "perhaps(,) the answer is no", "if it were life size, the answer would be yes",
# the clause itself the condition: 'If the answer is "yes", the cat would be …' (a condition alone does
# not: "If you mean X, then the answer is no." answers)
_HEDGED_CLAUSE = re.compile(r"\b(?<!most\s)(?<!highly\s)(?<!very\s)(?:possible|likely)\s+that\s+(?:the\s+)?"
                            r"(?:final\s+)?answer\b"
                            r"|\b(?:perhaps|possibly|maybe),?\s+(?:the\s+)?(?:final\s+)?answer\b"
                            r"|\bif\b[^.!?\n]{0,200}?\banswer\s+would\s+be\b"
                            r"|\bif\s+(?:the\s+)?(?:final\s+)?answer\s+(?:is|were|was)\s+$", re.I)
# ... but not a condition that only says how the answer was found or which question it answers:
# "Even if it is small, …", "If we look closely at the image, …", "if the question is whether …"
_NOT_A_CONDITION = re.compile(r"even\s+if\b|if\s+(?:we|you|one|i)\s+(?:look|consider|examine|check|observe"
                              r"|inspect|focus|zoom|compare|count|analy[sz]e|study)\b"
                              r"|if\s+the\s+question\s+(?:is|asks|means)\b", re.I)


def _qualified(tail: str) -> str | None:
    """The answer of a clause tail that qualifies it: "both" (no answer) for a declining
    word ("unknown", "possibly yes"), "no" for "unlikely", the word for "likely yes"."""
    declined = _DECLINED.match(tail)
    if declined:  # ... unless a plain word follows: "perhaps surprisingly no"
        said = _SURPRISINGLY.match(tail, declined.end())
        return said.group(1).lower() if said else "both"
    if _UNLIKELY.match(tail):
        return "no"
    likely = _LIKELY.match(tail)
    return _lead_yesno(tail[likely.end():]) if likely else None


def _in_clause(text: str) -> str | None:
    """The yes/no of the last answer clause, or None; a letter with a word ("(B) No")
    reads the word unless retracted by a refusal after it, and is no answer ("both")
    when offered under a condition ("If it rains, the answer is (B) No.")."""
    tail, at = clause_tail_at(text, accept=_not_remark) or ("", 0)
    if not tail:
        return None
    qualified = _qualified(tail)
    if qualified == "both":  # "The answer is not clear from the image alone, but …, yes, …"
        said = _BUT_THEN_WORD.match(text, at)
        return said.group(1).lower() if said else "both"
    if qualified:
        return qualified
    hedged = _HEDGED_CLAUSE.search(text, sentence_start(text, at), at)
    if hedged and not _NOT_A_CONDITION.match(text, max(0, hedged.start() - 5), hedged.end()) \
            and not _NOT_A_CONDITION.match(text, hedged.start(), hedged.end()):
        return "both"  # "so it is possible that the answer is yes", "if …, the answer would be yes"
    worded = _LETTER_FIRST.sub("", tail, count=1)  # "(B) No", "B: no" -> the word
    stated = _YESNO_WHOLE.get(worded.strip(_YESNO_STRIP).casefold()) or _lead_yesno(worded) \
        or (_quoted_yesno(worded) if opens_quoted(worded) else None)  # 'the answer is "no" because …'
    if stated and worded is not tail:
        if _CONDITION.search(text, sentence_start(text, at), at):
            return "both"  # offered under a condition: no answer, not read back in later
        if last_refusal(text, at):
            return None
    return stated


def _quoted_yesno(tail: str) -> str | None:
    """The yes/no of an answer clause's tail that opens with a quoted yes/no, read without its
    quotes; "both" when its sentence quotes the other word too (`yesno_quoted`)."""
    end = _TAIL_END.search(tail)
    return "both" if quotes_both(tail, end.start() if end else len(tail)) else _lead_yesno(unquoted(tail))


_TAIL_END = re.compile(r"\n|[.!?;](?:\s|$)")  # the answer clause's sentence (commas kept)
_THAT = re.compile(r"that\s+", re.I)


def _asked_again(text: str) -> int | None:
    """Where the answer starts when the last answer clause writes the question out again
    ("Final answer: Do the Ubuntu people speak Ubuntu?\nNo, …"): after its "?", when
    something follows; None otherwise."""
    if "?" not in text:
        return None
    tail, at = clause_tail_at(text, _TAIL_END, accept=_not_remark) or ("", 0)
    end = at + len(tail)
    if tail and text.startswith("?", end) and not text[end + 1:].isspace() and end + 1 < len(text) \
            and tail.strip().casefold() not in _YESNO_WHOLE:  # ("Answer: yes?\nExplanation: …")
        return end + 1
    return None


def _clause_names(text: str, question: str) -> str | None:
    """The yes/no of a last answer clause that states the answer in the question's words:
    one word it asks about ("The answer is Stable.", "… is not exact.") or a clause
    restating it ("The answer is that the system is stable.")."""
    tail, _ = clause_tail_at(text, _TAIL_END, accept=_not_remark) or ("", 0)
    if not tail:
        return None
    that = _THAT.match(tail)
    return restated(tail[that.end():], question) if that else named_answer(tail, question)


def extract_yesno_detailed(response: str, question: str | None = None) -> Extraction[str]:
    """`extract_yesno` with the parse path: a bare yes/no, the last answer clause or a
    leading yes/no is "ok"; a restatement of `question` (when given) or the first decisive
    word elsewhere is "lenient"."""
    text = clean_response(first_block(response, _LEAD_YESNO))
    loop = line_loop_start(text)
    if loop:  # an explicit answer before a loop the model fell into is its answer ...
        before = text[:loop].rstrip()
        said = _extracted(before, question)
        # ... when the loop states none, or the answer line is right before the loop (not
        # "The answer is no.\nWait, let me recheck.\nThe answer is yes.\nThe answer is yes.…")
        if said.parse == PARSE_OK and (
                _extracted(before[before.rfind("\n") + 1:], question).parse == PARSE_OK
                or _extracted(text[loop:], question).parse != PARSE_OK):
            return said
    return _extracted(text, question)


def _extracted(text: str, question: str | None) -> Extraction[str]:
    """`extract_yesno_detailed` of a cleaned response."""
    if not text:
        return FAILED
    whole = _YESNO_WHOLE.get(text.strip(_YESNO_STRIP).casefold())
    if whole:
        return Extraction(whole, PARSE_OK)
    asked_at = _asked_again(text)
    if asked_at:  # "Final answer: Is it …?\nYes, …": what follows the question answers
        return _extracted(text[asked_at:].strip(), question)
    stated = _after_correction(text) or _in_clause(text)
    if stated:
        return FAILED if stated == "both" else Extraction(stated, PARSE_OK)
    if NO_ANSWER.match(text):
        return FAILED
    worded = _LETTER_FIRST.sub("", text, count=1)
    lead = _lead_yesno(worded)
    opened = _LEAD_YESNO.match(worded) if lead == "no" else None
    if opened and no_answer_to(worded, opened.end(), question):
        lead = None  # "No clear answer can be given."
    if lead:  # ... unless taken back: "Yes. Actually, I cannot see the image."
        return FAILED if lead == "both" or unsettled(worded, lead) else Extraction(lead, PARSE_OK)
    named = _clause_names(text, question) if question and question.isascii() else None
    if named:  # "The answer is Stable.", "The answer is that the system is stable."
        return FAILED if named == "both" else Extraction(named, PARSE_LENIENT)
    if question and _willing(text, question):
        return Extraction("yes", PARSE_LENIENT)  # "Can you make ASCII art?" -> "Sure! Here's …"
    affirmed = _AFFIRM.match(text)
    if affirmed:  # "Definitely no." reads the word after it
        rest = text[affirmed.end():].lstrip(_YESNO_STRIP + "-\u2014\u2013")
        said = _lead_yesno(rest) or ("no" if affirmed.group(1) else None)
        if said == "both":
            return FAILED
        if said or _commits(rest, question):
            return Extraction(said or "yes", PARSE_OK)
        return _read(rest, question) if rest else FAILED
    return _read(text, question)


# Asked to do something ("Can you make ASCII art?", "Could you write a poem?"), an assistant
# that opens "Sure" / "Certainly" / "Of course" / "Here's …" / "I can …" does it: yes, unless
# its opening paragraph refuses, takes it back ("Sure! However, I can't see the image") or
# says the asked deed cannot be done ("Here's the thing: Python can't do that"). A question about the image put to the assistant
# ("Can you see a dog?", "Could you tell me if the light is red?") asks no deed of it.
_ASKED_TO_DO = re.compile(r"\b(?:can|could|will|would)\s+you\s+(?=(\w+))(?!(?:please\s+)?(?:see|notice|spot"
                          r"|find|observe|identify|recognize|recognise|check|count|determine"
                          r"|confirm|verify|detect|locate|read|make\s+out)\b)"
                          r"(?![^?.\n]{0,40}?\b(?:if|whether)\b)|\bdo\s+you\s+know\s+how\b", re.I)
_UNDONE = r"\b(?:can't|cannot|can\s+not|couldn't|won't|unable\s+to|not\s+able\s+to)\s+"
_WILLING = re.compile(r"\s*(?:(?:sure|certainly|of\s+course|absolutely|definitely)(?![A-Za-z])"
                      r"(?!\s*+,?\s*+not\b)|here(?:'s|\s+is|\s+are)\s|I\s+can\s(?!not\b))", re.I)


def _willing(text: str, question: str) -> bool:
    """Whether `text` answers a request put to the assistant by opening "Sure" (or
    "Certainly", "Of course" …) with no refusal, retraction or "cannot <the asked verb>" in
    its opening paragraph."""
    asked = _WILLING.match(text) and _ASKED_TO_DO.search(question)
    if not asked:
        return False
    opening = text[:opening_end(text)]
    deed = asked.group(1)  # the verb asked ("do"), None for "Do you know how …"
    return last_refusal(opening) is None and not _retracted(opening) \
        and not (deed and re.search(_UNDONE + re.escape(deed) + r"\b", opening, re.I))


def _read(text: str, question: str | None) -> Extraction[str]:
    """The reading of a chat answer that opens with no explicit yes/no: a refusal, an
    existence, a restatement, then the first decisive word."""
    refusal = last_decline(text) or (None if asks_answer(question, text) else NO_ANSWER_OPENING.match(text))
    said = (but_explicit(text, refusal.end()) or (question and question.isascii() and (
        but_restated(text, refusal.end(), question) or _stated_before(text, refusal, question)))) \
        if refusal else None
    if said:  # "It's not easy to determine, but yes, the dog appears to be a puppy."
        return Extraction(said, PARSE_LENIENT)
    opening = PARAGRAPH.search(text)
    costly = question and _POSSIBLE_BUT.match(text) and _ASKS_POSSIBLE.search(asked(question))
    if (refusal and (_in_opening(text, refusal.start(), opening) or _concludes(text, refusal.start()))) \
            or _retracted(text) or (_POSSIBLE_THAT.match(text) and not costly):
        return FAILED
    if (question and exists(text, question)) or _POSSIBLE.match(text) or costly:
        return Extraction("yes", PARSE_LENIENT)
    stated = (concluded(text, question) or contrasted(text, question) or exceptions_affirmed(text, question)
              or restated(text, question) or there_is(text, question)) \
        if question and question.isascii() else None
    if stated:
        return Extraction(stated, PARSE_LENIENT)
    # a refusal further on ("If you're unsure, …", "I recommend checking …") leaves an answer
    # stated outright, but not one guessed from the first negation
    found = None if refusal else first_decisive(text, question)
    return FAILED if found is None else Extraction(found, PARSE_LENIENT)


def _stated_before(text: str, refusal: re.Match, question: str) -> str | None:
    """The yes/no of a restatement of `question` before a decline about something else: the
    declining clause names a thing of its own and no word the question asks about ("The cat
    looks black. I don't know whether it is a Persian.", "Tipping is not expected in Japan;
    elsewhere the answer varies."); None otherwise ("However, I don't know whether that's
    right.", "Still, I don't know."), and when the response takes its answer back."""
    start = max(text.rfind(stop, 0, refusal.start()) for stop in ".!?;\n") + 1
    if start <= 0:
        return None
    end = _CLAUSE_STOP.search(text, refusal.end())
    declined = text[start:end.start() if end else len(text)]
    named = content_words(text[start:refusal.start()] + " " + text[refusal.end():end.start() if end else len(text)])
    if content_words(declined) & content_words(asked(question)) or not named - _NAMES_NOTHING \
            or not own_decline(refusal) or _concludes(text, refusal.start()) or _retracted(text):
        return None  # (a shared refusal, "Therefore, …", "I don't know whether that's right.")
    return restated(text[:start], question)


_CLAUSE_STOP = re.compile(r"[.!?;\n]")
# words of a declining clause that point back to the answer rather than name another thing
_NAMES_NOTHING = frozenset("whether if however still but yet though although honestly frankly really truly "
                           "s it this that these those they right accurate correct true sure certain".split())


# "Therefore, it is difficult to conclude …", "In conclusion, we cannot say …", "The answer
# is: it is inconclusive …": a refusal in a concluding sentence is the conclusion, wherever
# it stands. (Not `concluding.CONCLUDES`, the sentence a verdict is read from: this one places
# a refusal, so "in short" and "the answer is" open it too, read from `sentence_start`.)
_CONCLUDING = re.compile(r"\s*(?:therefore|thus|hence|so|consequently|in\s+conclusion|in\s+summary"
                         r"|overall|in\s+short|(?:the\s+)?(?:final\s+)?answer\s+is)\b", re.I)


def _concludes(text: str, at: int) -> bool:
    """Whether offset `at` is in a concluding sentence or line ("Therefore, …", "In
    conclusion, …")."""
    return _CONCLUDING.match(text, sentence_start(text, at)) is not None \
        or _CONCLUDING.match(text, text.rfind("\n", 0, at) + 1) is not None


def _commits(rest: str, question: str | None) -> bool:
    """Whether an opening "Absolutely" / "Certainly" is the answer: the main clause of the
    sentence after it holds no negation, hedge or offer, no retraction follows and no
    explicit yes/no comes later."""
    first = SENTENCE.match(rest)
    main = first.group() if first else ""
    cut = _MAIN_CLAUSE_END.search(main)
    main = main[:cut.start()] if cut else main
    return not (_AFFIRM_DOUBT.search(main) or last_refusal(main)
                or first_decisive(main, question, courtesy=True)
                or _retracted(rest) or EXPLICIT.search(rest, 0, opening_end(rest)))


def _retracted(text: str) -> bool:
    """Whether `text` takes its answer back anywhere ("I cannot see the image", "this is
    only a guess", "please provide the image"): read only before the words every
    retraction ends on."""
    lowered, at = text.lower(), _RETRACTED_AT
    if len(lowered) != len(text):  # lower-casing moved offsets ("İ"): read as written,
        lowered, at = text, _RETRACTED_AT_ANY_CASE  # case-blind all the same
    return any(_RETRACTION.search(lowered, max(0, hit.start() - _RETRACTION_REACH), hit.start())
               for hit in at.finditer(lowered))


def _in_opening(text: str, at: int, opening: re.Match | None) -> bool:
    """Whether offset `at` is in the opening paragraph of `text` (the whole text when it is
    one paragraph): a refusal there declines the question; one in a later paragraph of a
    chat answer is advice."""
    return opening is None or at < opening.start() \
        or last_refusal(text[:opening.start()]) is not None


def extract_yesno(response: str, question: str | None = None) -> str | None:
    """The yes/no answer of a response, "yes" or "no" (English and Chinese, negation-aware);
    with the `question`, a restatement of it answers too ("The function is convex.").

    >>> extract_yesno("No, there is only a dog.")
    'no'
    >>> extract_yesno("图中没有猫。")
    'no'
    """
    return extract_yesno_detailed(response, question).value
