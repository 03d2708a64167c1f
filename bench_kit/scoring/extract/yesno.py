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
    clause_tail,
    clean_response,
    last_refusal,
)

_YESNO_WHOLE = {
    **dict.fromkeys(("yes", "yeah", "yep", "yup", "true", "是", "是的", "对", "对的", "有",
                     "正确"), "yes"),
    **dict.fromkeys(("no", "nope", "false", "否", "不", "不是", "不对", "没有", "没", "无",
                     "错", "不正确"), "no"),
}
_YESNO_STRIP = " \t\r\n.!,;:\"'()[]"
# "No doubt" / "no question" say "certainly", "No problem" / "no worries" are courtesy.
_NOT_NO = r"(?!\s+(?:doubt|question|problem|worries)\b)"
_YN_EN = rf"(?<![A-Za-z])(?:(yes|yeah|yep|yup)|(no|nope))(?![A-Za-z]){_NOT_NO}"
# "whether" words echoed from the question, and words holding 是/有/不 that are not answers
# ("but", "all", "only")
_YN_ZH_SKIP = r"是否有?|有没有|对不对|能否|是不是|但是|可是|不过|所有|只是|还是|于是|要是|总是|不仅"
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
_DENIAL = re.compile(rf"\b(?:not|no{_NOT_NO}|never|neither|nor|none|nothing|nobody)\b|n't\b", re.I)
_TENTATIVE = re.compile(r"\b(?:if|whether|determine|unless|question|while|whereas|but)\b",
                        re.I)
# An opening word that commits like "yes": "Absolutely!", "Certainly, there are …";
# "Absolutely not." / "Certainly not, …" is "no" ("Absolutely not sure" is neither).
_AFFIRM = re.compile(r"\s*(?:absolutely|certainly|definitely|of\s+course|indeed)(?![A-Za-z])"
                     r"(\s+not(?=\s*(?:[.,;:!\u2014\u2013-]|$)))?", re.I)
# ... but only when its sentence says nothing else: a negation, hedge or offer in the main
# clause after it ("Certainly, the man is not …", "Absolutely! However, it depends …",
# "Certainly! Here are some tips …") makes it a courtesy, and the rest is read without it.
_AFFIRM_DOUBT = re.compile(r"^\s*but\b|\b(?:however|depends?|depending|hard|difficult|may|might|perhaps"
                           r"|possibly|unclear|if|unless|whether)\b|^\s*(?:here|I'd|I\s+would"
                           r"|I'll|I\s+will|I\s+can|let\s+me|please)\b", re.I)
_MAIN_CLAUSE_END = re.compile(r"(?:^|,)\s*(?:though|although|even\s+though|while|whereas)\b"
                              r"|,\s*(?:but|and\s+(?:it|this|that))\b", re.I)
# An explicit yes/no later in the answer ("Of course, if …. But it's off, so no.").
_EXPLICIT = re.compile(r"(?<![A-Za-z])(?:yes|no)(?![A-Za-z])(?=\s*(?:[,.!;:]|$))", re.I)
# A later paragraph that takes the answer back ("Actually, I cannot see the image", "this
# is only a guess") voids it; other refusals there are advice.
_RETRACTION = re.compile(r"(?:cannot|can't|can\s+not|unable\s+to|not\s+able\s+to|(?:don't|do\s+not)"
                         r"\s+have\s+the\s+ability\s+to)\s+(?:see|view|access|look\s+at)\s+"
                         r"(?:the\s+|any\s+)?(?:image|picture|photo)|(?:only|just)\s+a\s+guess"
                         r"|(?:provide|upload|share|send)\s+(?:me\s+)?(?:the|an|a)\s+"
                         r"(?:image|picture|photo)|无法看到|看不到", re.I)
# A negation in a condition ("If you do not have one, …", "whether or not …") describes
# a condition, not the answer: skipped when the clause closes with a comma after it (its
# main clause follows). A concession ("Although there is no cat, …") states a fact: read.
_CONDITIONS = frozenset(("if", "unless", "whether", "when", "as long as"))
_CONCESSIONS = frozenset(("although", "though", "while", "whereas"))
_CLOSES = re.compile(r"[^.!?\n,;:]{0,200},")
# "The woman is wearing a hat, while the man is not.": an elliptical negation contrasting
# someone else after ", while" / ", whereas" is skipped.
_ELLIPTICAL = re.compile(r"\s*(?:[.,;!?]|$)")
# "I don't have personal opinions", "I'm not a doctor": the speaker about itself, an answer
# only when the question is put to it ("Are you …?", "Does ChatGPT …?", "Can an AI …?").
_FIRST_PERSON = re.compile(r"\bI(?:'m|\s+am|\s+do|\s+did|\s+ca|\s+can|\s+could|\s+would|\s+will"
                           r"|\s+wo|\s+have)?\s*$")
# ... followed by what it has, is or can give ("I don't see a cat" is an answer).
_SELF_AFTER = re.compile(r"\s+(?:have|possess|a|an|able|capable|qualified|give|provide|offer|make"
                         r"|hold|form|express|share|personally)\b", re.I)
# "Are there any weird traditions?" -> "There are many …", "Here are some …": the opening
# sentence lists what the question asks about (half its words or more), so it exists.
_EXISTS_ASKED = re.compile(r"(?:^|[.?!]\s+)(?:is|are)\s+there\b([^.?!]*)\?\s*$", re.I)
_EXISTS_SAID = re.compile(r"\s*(?:there\s+(?:are|is|exist)|here\s+are)\s+(?:many|several|some"
                          r"|numerous|various|a\s+few|a\s+number\s+of|plenty|countless|lots)\b",
                          re.I)
# Negations that deny nothing the question asks: "not only … but also", "never-ending",
# and a relative clause about someone ("people who have not received gifts").
_NOT_ONLY = re.compile(r"\s+(?:only|just)\b", re.I)
# A hedged negation ("it may not help") qualifies a claim; it does not deny it.
# ("could not" denies: "I could not find any cat.")
_HEDGE_BEFORE = re.compile(r"\b(?:may|might)(?:\s+or\s+(?:may|might))?\s*$", re.I)
_TAIL = 24  # characters before a negation read for a hedge or the speaker

_COMPOUND = re.compile(r"-[A-Za-z]")
# a negation in a relative clause about people in general ("people who have not …")
_RELATIVE = (r"(?:people|person|one|those|anyone|anybody|someone|somebody|everyone|everybody|others"
             r"|individuals|persons|users|patients|children|adults|students|many|some)"
             r"\s+(?:who|whom|whose)")
# "There is no definitive answer" hedges, unless the question asks whether there is one.
_NO_ANSWER_TO = re.compile(r"\s+(?:(?:one|single|definitive|clear|simple|straightforward|right"
                           r"|correct|universal|universally\s+\w+|definite|easy)[\s,]+)+"
                           r"(?:answer|response)", re.I)
_ASKS_ANSWER = re.compile(r"\b(?:answer|response|solution)", re.I)
_PARAGRAPH = re.compile(r"\n[ \t]*\n")
# Put to the assistant: "you" the subject of anything but looking or judging ("Do you see
# a dog?" asks about the image), or the question names an AI.
_TO_YOU = re.compile(r"\b(?:do|did)\s+you\b(?!\s+(?:see|notice|spot|find|observe|think|believe"
                     r"|consider|know|recognize|recognise)\b)|\b(?:are|can|could|have|were|will"
                     r"|would)\s+you\b(?!\s+(?:see|notice|spot|find|observe|tell|identify|describe"
                     r"|recognize|recognise)\b)|\byourself\b|\b(?:ChatGPT|chatbots?|AIs?|language"
                     r"\s+models?|artificial\s+intelligence|(?:AI|virtual)\s+assistants?)\b", re.I)
# One pass over a response for the fallback: its yes/no words, clause breaks (group 7),
# subordinating words (group 8) and relative clauses about people (group 9).
_SCAN = re.compile(_ANY_YESNO.pattern + r"|([,;:\n]|[.!?](?=\s|$))|\b(if|unless|whether|when"
                   r"|as\s+long\s+as|although|though|while|whereas)\b|\b(" + _RELATIVE + r")\b", re.I)


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


def _asked(question: str) -> str:
    """The words of `question` a restatement must hold: the last sentence ending in "?"
    ("I sleep badly. Is there music that helps?" -> "Is there music that helps?") without a
    trailing condition (", assuming …", ", even if …")."""
    ends = [m.end() for m in _QUESTION_END.finditer(question)]
    if ends:
        starts = [m.end() for m in _SENTENCE_BREAK.finditer(question, 0, ends[-1] - 1)]
        question = question[starts[-1] if starts else 0:ends[-1]]
    return _TRAILING_CONDITION.sub("", question)


def _restated(text: str, question: str) -> str | None:
    """"yes"/"no" when a sentence of `text` restates `question` as a statement (negated:
    "no"); None otherwise."""
    wanted = content_words(_asked(question))
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
            denied = _DENIAL.search(sentence)
            if denied and _HEDGE_BEFORE.search(sentence, 0, denied.start()):
                return None  # "The woman may not be wearing glasses."
            return "no" if denied else "yes"
    return stated


_QUESTION_END = re.compile(r"\?")
_SENTENCE_BREAK = re.compile(r"[.!?](?=\s)")
_TRAILING_CONDITION = re.compile(r",\s*(?:assuming|if|even\s+if|given|provided|when|unless)\b"
                                 r"[^?]*", re.I)


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
    tail = clause_tail(text)
    if not tail:
        return None
    worded = _LETTER_FIRST.sub("", tail, count=1)  # "(B) No", "B: no" -> the word
    stated = _YESNO_WHOLE.get(worded.strip(_YESNO_STRIP).casefold()) or _lead_yesno(worded)
    if stated and worded is not tail:
        at = text.rfind(tail)
        opened = max(text.rfind("\n", 0, at), text.rfind(". ", 0, at))
        if _CONDITION.search(text, opened + 1, at) or last_refusal(text, at):
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


def _read(text: str, question: str | None) -> Extraction[str]:
    """The reading of a chat answer that opens with no explicit yes/no: a refusal, an
    existence, a restatement, then the first decisive word."""
    refusal = last_refusal(text)
    opening = _PARAGRAPH.search(text)
    if (refusal and _in_opening(text, refusal.start(), opening)) or (
            _RETRACTION.search(text)):
        return FAILED
    if question and _exists(text, question):
        return Extraction("yes", PARSE_LENIENT)
    stated = _restated(text, question) if question and question.isascii() else None
    if stated:
        return Extraction(stated, PARSE_LENIENT)
    # a refusal further on ("If you're unsure, …", "I recommend checking …") leaves an answer
    # stated outright, but not one guessed from the first negation
    found = None if refusal else _first_decisive(text, question)
    return FAILED if found is None else Extraction(found, PARSE_LENIENT)


def _exists(text: str, question: str) -> bool:
    """Whether `text` opens by listing what an "Is there / Are there …?" `question` asks
    about ("There are many …", "Here are some …")."""
    asked = _EXISTS_ASKED.search(question)
    if asked is None or not _EXISTS_SAID.match(text):
        return False
    wanted = content_words(asked.group(1)) - {"any"}
    opening = SENTENCE.match(text)
    said = content_words(opening.group()) if opening else set()
    # "There are several trees, but no people." / "There are many cats. None is black."
    following = SENTENCE.search(text, opening.end()) if opening else None
    if _DENIAL.search(text, 0, following.end() if following else len(text)):
        return False
    return bool(wanted) and 2 * len(wanted & said) >= len(wanted)


def _commits(rest: str, question: str | None) -> bool:
    """Whether an opening "Absolutely" / "Certainly" is the answer: the main clause of the
    sentence after it holds no negation, hedge or offer, no retraction follows and no
    explicit yes/no comes later."""
    first = SENTENCE.match(rest)
    main = first.group() if first else ""
    cut = _MAIN_CLAUSE_END.search(main)
    main = main[:cut.start()] if cut else main
    return not (_AFFIRM_DOUBT.search(main) or last_refusal(main)
                or _first_decisive(main, question, courtesy=True)
                or _RETRACTION.search(rest) or _EXPLICIT.search(rest, 0, _opening_end(rest)))


def _opening_end(text: str) -> int:
    """Where the opening paragraph of `text` ends."""
    opening = _PARAGRAPH.search(text)
    return opening.start() if opening else len(text)


def _in_opening(text: str, at: int, opening: re.Match | None) -> bool:
    """Whether offset `at` is in the opening paragraph of `text` (the whole text when it is
    one paragraph): a refusal there declines the question; one in a later paragraph of a
    chat answer is advice."""
    return opening is None or at < opening.start() \
        or last_refusal(text[:opening.start()]) is not None


def _first_decisive(text: str, question: str | None, courtesy: bool = False) -> str | None:
    """The first yes/no or negation word of `text` that answers, or None. Skipped: a
    negation in a subordinate clause (`_skips_clause`), in a relative clause about people,
    hedged ("may not"), "not only", compounds ("never-ending") and the speaker's remarks
    about itself (unless the question is put to it); "there is no definitive answer"
    answers nothing unless the asking sentence asks for an answer. One pass over `text`:
    linear in its length."""
    to_you = bool(question and _TO_YOU.search(question))
    sentence = clause = relative = 0  # where the sentence / clause began, "who" was seen
    subordinate = None  # (its end, its word, the clause it opened in)
    wanted: list[set[str]] = []  # the question's content words, once needed
    for match in _SCAN.finditer(text):
        yes_en, no_en, no_contracted, skip, no_zh, yes_zh, cut, sub, who = match.groups()
        at = match.start()
        if cut:
            clause = match.end()
            if cut not in ",;:":
                sentence = clause
        elif sub:
            subordinate = (match.end(), " ".join(sub.lower().split()), clause)
        elif who:
            relative = match.end()
        elif yes_en or yes_zh:
            return "yes"
        elif not skip and not relative > clause and not _skips_clause(
                text, match, subordinate, (sentence, clause), question, wanted, courtesy):
            tail = text[max(sentence, at - _TAIL):at]
            if _HEDGE_BEFORE.search(tail) or (not to_you and _FIRST_PERSON.search(tail)
                                              and _SELF_AFTER.match(text, match.end())):
                continue
            if _NOT_ONLY.match(text, match.end()) or _COMPOUND.match(text, match.end()):
                continue
            if _NO_ANSWER_TO.match(text, match.end()) and not (
                    question and _ASKS_ANSWER.search(_asked(question))):
                return None
            return "no"
    return None


def _skips_clause(text: str, negation: re.Match, subordinate: tuple[int, str, int] | None,
                  began: tuple[int, int], question: str | None, wanted: list[set[str]],
                  courtesy: bool) -> bool:
    """Whether `negation` sits in a subordinate clause that is not the answer: a condition
    closed by a comma ("If you do not …, …") or trailing its main clause ("…, even if
    they would not …"); an elliptical contrast ("…, while the man is not."); any other
    condition or concession ("Although there is no cat, …", "While I can't …, I …")
    unless its sentence holds every content word of the question (then it is about what
    was asked). `courtesy` (after an opening "Absolutely"): every concession is skipped."""
    sentence, clause = began
    if subordinate is None or subordinate[0] <= clause:
        return False  # no subordinating word in this clause
    end, word, opened_in = subordinate
    if word in _CONDITIONS:
        if _CLOSES.match(text, negation.end()) or len(text[sentence:end].split()) > 3:
            return True  # closed by a comma, or not opening its sentence: trailing
    elif courtesy:
        return True
    elif opened_in > sentence and text.startswith(",", opened_in - 1) \
            and _ELLIPTICAL.match(text, negation.end()):
        return True  # ", while the man is not."
    if not question:
        return True
    if not wanted:
        wanted.append(content_words(_asked(question)))
    stop = SENTENCE.match(text, negation.end())
    return not wanted[0] <= content_words(text[sentence:stop.end() if stop else len(text)])


def extract_yesno(response: str, question: str | None = None) -> str | None:
    """The yes/no answer of a response, "yes" or "no" (English and Chinese, negation-aware);
    with the `question`, a restatement of it answers too ("The function is convex.").

    >>> extract_yesno("No, there is only a dog.")
    'no'
    >>> extract_yesno("图中没有猫。")
    'no'
    """
    return extract_yesno_detailed(response, question).value
