"""The first decisive yes/no or negation word of a chat answer (`first_decisive`), the
fallback of `bench_kit.scoring.extract.yesno` when a response states no answer outright:
which negations deny what was asked and which only qualify, condition or hedge."""

from __future__ import annotations

import re

from bench_kit.scoring.extract.question_asked import asked
from bench_kit.scoring.extract.restatement import (
    LITOTES,
    NOT_NO,
    SENTENCE,
    SOMETIMES,
    USUALLY,
    WORDS,
    content_words,
    echoes_question,
    litotes_asked,
    negates_opposite,
    restated,
    stem,
)

# "whether" words echoed from the question, and words holding 是/有/不 that are not answers
# ("but", "all", "only")
YN_ZH_SKIP = r"是否有?|有没有|对不对|能否|是不是|但是|可是|不过|所有|只是|还是|于是|要是|总是|不仅"
YN_ZH = r"(不是|不对|不正确|没有|没|否|无|错|不)|(是|对|有|正确)"
_ANY_YESNO = re.compile(
    r"(?<![A-Za-z])(?:(yes|yeah|yep|yup|true|correct(?!\s+(?:option|answer|choice|letter)))"
    r"|(no|nope|not|never|none|nothing|false"
    rf"|incorrect))(?![A-Za-z]){NOT_NO}|(n't)(?![A-Za-z])|({YN_ZH_SKIP})|{YN_ZH}", re.I)
# An explicit yes/no later in the answer ("Of course, if …. But it's off, so no.").
EXPLICIT = re.compile(r"(?<![A-Za-z])(?:yes|no)(?![A-Za-z])(?=\s*(?:[,.!;:]|$))", re.I)
# A negation in a condition ("If you do not have one, …", "whether or not …") describes
# a condition, not the answer: skipped when the clause closes with a comma after it (its
# main clause follows). A concession ("Although there is no cat, …") states a fact: read.
_CONDITIONS = frozenset(("if", "unless", "whether", "when", "as long as"))
_CONCESSIONS = frozenset(("although", "though", "while", "whereas"))
_CLOSES = re.compile(r"[^.!?\n,;:]{0,200},")
# "The woman is wearing a hat, while the man is not.": an elliptical negation contrasting
# someone else after ", while" / ", whereas" is skipped.
_LEAD_REACH = 40  # characters from a sentence's start to the end of a condition opening it
_ELLIPTICAL = re.compile(r"\s*(?:[.,;!?]|$)")
# "I don't have personal opinions", "I'm not a doctor": the speaker about itself, an answer
# only when the question is put to it ("Are you …?", "Does ChatGPT …?", "Can an AI …?").
_FIRST_PERSON = (r"\bI(?:'m|\s+am|\s+do|\s+did|\s+ca|\s+can|\s+could|\s+would|\s+will|\s+wo"
                 r"|\s+have)?")
# ... followed by what it has, is or can give ("I don't see a cat" is an answer).
_SELF_AFTER = re.compile(r"\s+(?:have|possess|a|an|able|capable|qualified|give|provide|offer|make"
                         r"|hold|form|express|share|personally)\b", re.I)
# Negations that deny nothing the question asks: "not only … but also", a "not
# necessarily" ending its clause (a hedge: "Not necessarily. It depends …"), "never-ending",
# and a relative clause about someone ("people who have not received gifts").
_NOT_ONLY = re.compile(r"\s+(?:only|just)\b|\s+necessarily\s*(?:[.,;:!]|$)", re.I)
# "Not everyone likes jazz, but …": a quantifier negated denies only when it is asked about
# ("Does everyone like jazz?").
_NOT_ALL = re.compile(r"\s+(everyone|everybody|all|every|always)\b", re.I)
# ... read with the speaker (group 1) in one search of the characters before a negation
_BEFORE_SKIP = re.compile(rf"(?:(?i:\b(?:may|might)(?:\s+or\s+(?:may|might))?|\bwhether\s+or)|({_FIRST_PERSON}))\s*$")
_TAIL = 24  # characters before a negation read for a hedge or the speaker

_COMPOUND = re.compile(r"-[A-Za-z]")
# a negation in a relative clause about people in general ("people who have not …")
_RELATIVE = (r"(?:people|person|one|those|anyone|anybody|someone|somebody|everyone|everybody|others"
             r"|individuals|persons|users|patients|children|adults|students|many|some)"
             r"\s+(?:who|whom|whose)")
# "There is no definitive answer" hedges, unless the question asks whether there is one.
_NO_ANSWER_TO = re.compile(r",?\s+(?:an?\s+)?(?:(?:one|single|definitive|clear|simple|straightforward|right"
                           r"|correct|universal|universally\s+\w+|definite|easy)[\s,]+)+"
                           r"(?:answer|response|yes\s*(?:or|/|-or-)\s*no)", re.I)  # "not a simple yes or no"
_ASKS_ANSWER = re.compile(r"\b(?:answer|response|solution)(?!\s*(?:key|sheet|box|card|booklet)s?\b)",
                          re.I)  # (not "Is there an answer key in the photo?")
# "Is any option correct?" is answered no by "There is no correct answer / option" only
_ASKS_OPTION = re.compile(r"\b(?:options?|choices?)\b[^?]{0,40}\bcorrect\b", re.I)
_NO_CORRECT = re.compile(r"\bno\s+(?:correct|right)\s+(?:answers?|options?|choices?)\b", re.I)
PARAGRAPH = re.compile(r"\n[ \t]*\n")
# Put to the assistant: "you" the subject of anything but looking or judging ("Do you see
# a dog?" asks about the image), or the question names an AI.
_TO_YOU = re.compile(r"\b(?:do|did)\s+you\b(?!\s+(?:see|notice|spot|find|observe|think|believe"
                     r"|consider|know|recognize|recognise)\b)|\b(?:are|can|could|have|were|will"
                     r"|would)\s+you\b(?!\s+(?:see|notice|spot|find|observe|tell|identify|describe"
                     r"|recognize|recognise)\b)|\byourself\b|\b(?:ChatGPT|chatbots?|AIs?|language"
                     r"\s+models?|artificial\s+intelligence|(?:AI|virtual)\s+assistants?)\b", re.I)
# One pass over a response for the fallback: its yes/no words, subordinating words
# (group 7) and relative clauses about people (group 8); the clause and sentence breaks
# before each are found between it and the one before (`_breaks`).
_SCAN = re.compile(_ANY_YESNO.pattern + r"|\b(if|unless|whether|when|as\s+long\s+as|although"
                   r"|though|while|whereas)\b|\b(" + _RELATIVE + r")\b", re.I)



_CLAUSE_END = re.compile(r"[.!?\n;]")
_BUT_THEN = re.compile(r"[^.!?\n]{0,60}?[,;]?\s*but\s+(?:(?:in\s+general|generally|overall|usually"
                       r"|mostly|I\s+(?:think|believe|would\s+say)|I'd\s+say)\s*,?\s*)?",
                       re.I)  # from a refusal's end to "but (in general / I think)"


def but_explicit(text: str, at: int) -> str | None:
    """The explicit yes/no after "but" that follows a refusal or hedge ending at `at`
    ("…, but yes, …", "…, but in general yes, …", "I don't know, but I think yes." / "… but I
    think so."; not "but no single …"), or None."""
    but = _BUT_THEN.match(text, at)
    said = EXPLICIT.match(text, but.end()) if but else None
    if said:
        return said.group().lower()
    thought = _THINK_SO.match(text, at)  # "I don't know, but I think so."
    return None if thought is None else "yes" if thought.group(1).lower() == "so" else "no"


# ... and "but I think so / not" ending its sentence stands for the yes / no
_THINK_SO = re.compile(r"[^.!?\n]{0,60}?[,;]?\s*but\s+(?:I\s+(?:think|believe|would\s+say)|I'd\s+say)\s+(so|not)"
                       r"\s*(?:[.!;]|$)", re.I)


def but_restated(text: str, at: int, question: str) -> str | None:
    """The yes/no of a restatement of `question` in the clause after "but" that follows a
    refusal ending at `at` ("The distinction is not clear-cut, but botanically a tomato is a
    fruit."), or None."""
    but = _BUT_THEN.match(text, at)
    if but is None or text[but.end():but.end() + 4].lower().startswith("not "):
        return None
    end = _CLAUSE_END.search(text, but.end(), but.end() + 300)
    return restated(text[but.end():end.start() if end else but.end() + 300], question)


def opening_end(text: str) -> int:
    """Where the opening paragraph of `text` ends."""
    opening = PARAGRAPH.search(text)
    return opening.start() if opening else len(text)


def first_decisive(text: str, question: str | None, courtesy: bool = False) -> str | None:
    """The first yes/no or negation word of `text` that answers, or None. Skipped: a
    negation in a subordinate clause (`_skips_clause`), in a relative clause about people,
    hedged ("may not"), "not only", compounds ("never-ending") and the speaker's remarks
    about itself (unless the question is put to it); "there is no definitive answer"
    answers nothing unless the asking sentence asks for an answer. One pass over `text`:
    linear in its length."""
    to_you = bool(question and _TO_YOU.search(question))
    echoed = " ".join(WORDS.findall(asked(question).lower())) if question else ""
    sentence = clause = relative = 0  # where the sentence / clause began, "who" was seen
    subordinate = None  # (its end, its word, the clause it opened in)
    about: dict[int, bool] = {}  # per sentence start: whether it is about the question
    seen = 0  # where the last match ended: breaks are looked for after it only
    sometimes = bool(question and SOMETIMES.search(question))
    litotes_end = 0  # where the last pair skipped ("not incorrect", "true or false") ends
    # after the first line a negation answers only in a sentence naming the question
    opening = _first_line_end(text) if question and question.isascii() and not courtesy else len(text)
    wanted = content_words(asked(question)) if question and opening < len(text) else set()
    naming: dict[int, bool] = {}  # per sentence start: whether it names the question
    question_words = content_words(question) if question else set()
    for match in _SCAN.finditer(text):
        yes_en, no_en, no_contracted, skip, no_zh, yes_zh, sub, who = match.groups()
        at = match.start()
        clause, sentence = _breaks(text, seen, at, clause, sentence)
        seen = match.end()
        if sub:
            subordinate = (match.end(), " ".join(sub.lower().split()), clause)
        elif who:
            relative = match.end()
        elif at < litotes_end:
            continue  # the second word of a pair already read as one ("true or false")
        elif yes_en or yes_zh:
            offered = _OFFERED.match(text, match.end())
            if offered:  # "the belief being true or false", "a simple yes or no": no answer
                litotes_end = offered.end()
                continue
            if subordinate and subordinate[0] > clause and _skips_clause(
                    text, match, subordinate, sentence, question, about, courtesy):
                continue  # "While it is true that …", "whether something is true or false"
            return "yes"
        elif not skip and not relative > clause and not (
                subordinate and subordinate[0] > clause and _skips_clause(
                    text, match, subordinate, sentence, question, about, courtesy)):
            after = match.end()
            if _affirms_asked(text, after, question) or negates_opposite(text, at, question_words):
                return "yes"  # "It is not only legal …" to "Is it legal …?"; "not right" to "wrong?"
            if echoed and echoes_question(text, match, echoed):
                continue  # "… believe things for which there is no objective evidence …"
            litotes_end = _litotes(text, match, question)
            if _NOT_ONLY.match(text, after) or _COMPOUND.match(text, after) or _idiom(
                    text, after, question_words) or litotes_end or _quantified(text, after, question):
                continue
            if _set_aside(text, at, after, sentence, question_words, to_you, sometimes) \
                    or at > opening and not _NO_WORD.match(text, at) \
                    and not _names_asked(text, sentence, wanted, naming):
                continue  # "… / Mercury has no atmosphere, …" to "Can you cook an egg …?"
            if no_answer_to(text, match.end(), question):
                return but_explicit(text, match.end())  # "No single answer fits, but yes, …"
            return "no"
    return None


def _set_aside(text: str, at: int, after: int, sentence: int, question_words: set[str],
               to_you: bool, sometimes: bool) -> bool:
    """Whether a negation at `at` (ending at `after`, in the sentence from `sentence`) is
    not the answer: an elliptical contrast of another subject ("The cat is on the sofa, but
    the dog is not."), hedged ("may not") or the speaker on itself ("I don't have …"), or
    "generally not" to a question asking about some cases ("… magnetic in some instances?")."""
    if _denies_other(text, at, after, question_words) or _mixed(text, at, after, sentence, question_words):
        return True
    ellipsis = _ELLIPTICAL.match(text, after) and _BUT_ELLIPSIS.search(
        text, max(sentence, at - _BUT_REACH), at)
    if ellipsis and not _ellipsis_answers(text, sentence, ellipsis, question_words):
        return True
    before = _BEFORE_SKIP.search(text[max(sentence, at - _TAIL):at])
    if before and (not before.group(1) or (not to_you and _SELF_AFTER.match(text, after))):
        return True
    return bool(sometimes and USUALLY.search(text, max(sentence, at - _USUALLY_REACH), after + 12))


# "There is no dog, while the cat is." / "…, but there is a cat." to "Is there a cat?": a "no"
# before a thing the question does not name, contrasted later in its sentence with a clause
# naming every word the question asks about, denies the other thing only (not "The patient has
# no elevated temperature, but the patient does have a cough." to "… have a fever?")
_NO_THING = re.compile(r"([^.!?\n,;]{1,80}),\s*(?:but|while|whereas)\s+([^.!?\n]{1,80})", re.I)


def _denies_other(text: str, at: int, after: int, question_words: set[str]) -> bool:
    """Whether the "no" at `at` (ending at `after`) denies things the question does not name,
    contrasted in its sentence with one it names (`_NO_THING`)."""
    if after - at != 2 or text[at:after].lower() != "no":
        return False
    found = _NO_THING.match(text, after)
    return found is not None and bool(question_words) and not content_words(found.group(1)) & question_words \
        and question_words <= content_words(found.group(2))


# "The food is not bad, but it is not great either.": a negation "… either" after a litotes
# in its sentence weighs both ways (neither good nor great), no answer — unless the "either"
# clause names the asked word ("Is the food great?": no)
_EITHER = re.compile(r"[^.!?\n,;]{0,40}?\beither\b", re.I)
_MIXED_REACH = 200  # characters before the negation read for the litotes


def _mixed(text: str, at: int, after: int, sentence: int, question_words: set[str]) -> bool:
    """Whether the negation at `at` is a "not … either" after a litotes in its sentence,
    naming no word the question asks about ("not great either" answers "Is the food great?")."""
    either = _EITHER.match(text, after)
    return either is not None and not content_words(either.group()) & question_words \
        and LITOTES.search(text, max(sentence, at - _MIXED_REACH), at) is not None


# "…, but the dog is not.": an elliptical negation contrasting another subject, which the
# contrast rule (`contrasted`) reads when it names what the question asks about; one whose
# subject the question names ("Is the dog on the sofa?") is its answer
_BUT_ELLIPSIS = re.compile(r",\s*but\s+([^.!?\n,;]{1,60}?)\s+(?:is|are|was|were|does|do|did|can|could"
                           r"|has|have|will|would|should)\s*\Z", re.I)
_BUT_REACH = 80  # characters before the negation read for it
_AUXILIARY_END = re.compile(r"\b(?:is|are|was|were|does|do|did|can|could|has|have|will|would"
                            r"|should)\s*\Z", re.I)


def _ellipsis_answers(text: str, sentence: int, ellipsis: re.Match, asked: set[str]) -> bool:
    """Whether an elliptical "…, but the dog is not." answers: the question names its subject,
    and the clause before "but" is elliptical too ("The cat is, but the dog is not.") or names
    what is asked of it ("The man looks happy, but the woman does not." to "Is the woman
    happy?"; not "The sky is clear, but the ground is not." to "Is the ground dry?")."""
    subject = content_words(ellipsis.group(1))
    if not subject & asked:
        return False
    before = text[max(sentence, ellipsis.start() - _BUT_REACH):ellipsis.start()]
    return _AUXILIARY_END.search(before) is not None or bool((content_words(before) - subject) & asked)


# "true or false", "yes or no", "correct or incorrect": both offered, neither answered
_OFFERED = re.compile(r"\s*(?:(?:or|/)\s*(?:no|false|incorrect|not)|and\s*(?:no|false|incorrect)"
                     r"|and\s+not(?=\s*[.,;:!?]|\s*$))(?![A-Za-z])", re.I)  # not "true and not just a myth"
_USUALLY_REACH = 60  # characters before a negation read for `USUALLY` (and a few after: "not generally")
_NAMED_WORDS = 2  # content words of the question a later line's negation must name
_NO_WORD = re.compile(r"(?:no|nope|false)(?=[ \t]*(?:[,.!;:\n]|$))", re.I)  # "(B) No\n": an answer


def _names_asked(text: str, sentence: int, wanted: set[str], naming: dict[int, bool]) -> bool:
    """Whether the sentence of `text` starting at `sentence` holds two of the `wanted`
    words (all of them when fewer); `naming` keeps the answer per sentence."""
    if sentence not in naming:
        stop = SENTENCE.match(text, sentence)
        said = content_words(text[sentence:stop.end() if stop else sentence])
        naming[sentence] = len(said & wanted) >= min(_NAMED_WORDS, len(wanted))
    return naming[sentence]


def _litotes(text: str, negation: re.Match, question: str | None) -> int:
    """Where a litotes starting at `negation` ends when it negates a negative word the
    question does not ask about ("not a bad idea" to "Is it a good idea?": no "no", nor is
    the "incorrect" of "not incorrect" read after it); 0 otherwise."""
    found = LITOTES.match(text, negation.start())
    asked_word = found is not None and question and litotes_asked(found, content_words(question))
    return found.end() if found is not None and not asked_word else 0


def no_answer_to(text: str, after: int, question: str | None) -> bool:
    """Whether the "no" ending at `after` opens a hedge ("no clear answer") to a question
    that does not ask for an answer."""
    return _NO_ANSWER_TO.match(text, after) is not None and not asks_answer(question, text, after - 2)


def asks_answer(question: str | None, text: str = "", at: int = 0) -> bool:
    """Whether the asking sentence of `question` asks about an answer ("Is there an answer
    written on the whiteboard?"): "there is no answer" then answers it; or asks whether an
    option / choice is correct and `text` says "no correct answer / option" near `at`."""
    if not question:
        return False
    asking = asked(question)
    return bool(_ASKS_ANSWER.search(asking) or (
        _ASKS_OPTION.search(asking) and _NO_CORRECT.search(text, max(0, at), at + 60)))


_NOT_ONLY_WORD = re.compile(r"\s+(?:only|just)\s+(?:(?:a|an|the)\s+)?([A-Za-z]+)\b(?!')", re.I)
_BEING = re.compile(r"\b(?:is|are|was|were|shows?|contains?)\s+not\Z", re.I)


def _affirms_asked(text: str, after: int, question: str | None) -> bool:
    """Whether the negation ending at `after` opens "is not only / shows not just" + a word
    the question asks about ("It is not only legal but also encouraged." to "Is it legal
    …?"; not "consider not only the nanny's salary")."""
    if not question or not _BEING.search(text, max(0, after - 16), after):
        return False
    found = _NOT_ONLY_WORD.match(text, after)
    return found is not None and stem(found.group(1).lower()) in content_words(asked(question))


def _quantified(text: str, after: int, question: str | None) -> bool:
    """Whether the negation ending at `after` negates a quantifier the question does not
    hold ("not everyone", "not always")."""
    found = _NOT_ALL.match(text, after)  # (a word of the question: "all" is not in "small")
    return found is not None and not (question and re.search(
        rf"\b{found.group(1)}\b", question, re.I))


def _breaks(text: str, start: int, end: int, clause: int, sentence: int) -> tuple[int, int]:
    """Where the clause and the sentence holding offset `end` begin, given where they
    began at `start`: the last break in `text[start:end]` (C-speed `rfind`s over a span
    no other call reads again)."""
    stop = max(text.rfind(". ", start, end), text.rfind("! ", start, end),
               text.rfind("? ", start, end), text.rfind("\n", start, end))
    cut = max(stop, text.rfind(",", start, end), text.rfind(";", start, end),
              text.rfind(":", start, end))
    return (cut + 1 if cut >= 0 else clause), (stop + 1 if stop >= 0 else sentence)


def _skips_clause(text: str, negation: re.Match, subordinate: tuple[int, str, int],
                  sentence: int, question: str | None, about: dict[int, bool],
                  courtesy: bool) -> bool:
    """Whether `negation`, in the clause of a subordinating word (`subordinate`: its end,
    the word, where its clause began), is not the answer: a condition closed by a comma
    ("If you do not …, …") or trailing its main clause ("…, even if they would not …"); an
    elliptical contrast ("…, while the man is not."); any other condition or concession
    ("Although there is no cat, …", "While I can't …, I …") unless its sentence holds
    every content word of the question (then it is about what was asked; `about` keeps
    that per sentence). `courtesy` (after an opening "Absolutely"): every concession."""
    end, word, opened_in = subordinate
    if word in _CONDITIONS:
        if end - sentence > _LEAD_REACH or len(text[sentence:end].split()) > 3 \
                or _CLOSES.match(text, negation.end()):
            return True  # closed by a comma, or not opening its sentence: trailing
    elif courtesy:
        return True
    elif opened_in > sentence and text.startswith(",", opened_in - 1) \
            and _ELLIPTICAL.match(text, negation.end()):
        return True  # ", while the man is not."
    if not question:
        return True
    if sentence not in about:
        stop = SENTENCE.match(text, sentence)
        said = content_words(text[sentence:stop.end() if stop else sentence])
        about[sentence] = content_words(asked(question)) <= said
    return not about[sentence]


_PREAMBLE = 80  # characters of a one-sentence first line ("Let me look at the image.")
_SENTENCE_INSIDE = re.compile(r"[.!?]\s+\S")
_TEXT = re.compile(r"\S")
# ... ending as a sentence does, or a heading of up to three words ("Let me analyze this.",
# "**Answer**", "# Answer"), hedging nothing ("(C) Maybe" is an answer)
_PREAMBLE_LINE = re.compile(r"(?![^\n]*\b(?:maybe|perhaps|possibly|probably|unsure|depends)\b)[ \t]*"
                            r"(?:#*[ \t]*[A-Za-z]+(?:[ \t]+[A-Za-z]+){0,2}:?|[^\n]*[.:])[ \t]*(?:\n|\Z)",
                            re.I)


def _first_line_end(text: str) -> int:
    """Where the first line of `text` ends (a list's items after it are later lines); a
    short one-sentence first line ("Let me analyze this.", "**Answer**") is a preamble, and
    the line after it counts as the first too."""
    found = text.find("\n")
    if found < 0:
        return len(text)
    if found <= _PREAMBLE and not _SENTENCE_INSIDE.search(text, 0, found) \
            and _PREAMBLE_LINE.match(text, 0, found + 1):
        start = _TEXT.search(text, found)  # the next line that holds text
        following = text.find("\n", start.start()) if start else -1
        return len(text) if following < 0 else following
    return found


# Set phrases that deny nothing: "not alone", "including but not limited to", "no matter
# what", "not to mention", "no wonder", and "not easy" (how hard a thing is, not whether it
# is: "Learning to swim is not easy, but …") unless the question holds the word ("Am I
# alone?", "Is it easy to learn Chinese?")
_IDIOM = re.compile(r"\s+(alone|limited\s+to|matter|to\s+mention|wonder|easy|doubt|denying|mistaking)\b", re.I)


# "no <thing> other than / except / besides / apart from the one …" names one that is there
_SAVE = re.compile(r"(?:\s+[A-Za-z]+){1,3}?\s+(?:other\s+than|except|besides|apart\s+from)\s+(?:the|this|that|one)\b",
                   re.I)


def _idiom(text: str, after: int, question_words: set[str]) -> bool:
    """Whether the negation ending at `after` opens a set phrase the question does not ask
    about, or is a "no" saving one thing ("no dogs other than the one on the left")."""
    if text[after - 2:after].lower() == "no" and _SAVE.match(text, after):
        return True  # "There is no dog except the one on the rug."
    found = _IDIOM.match(text, after)
    if found is not None and found.group(1).lower() == "easy" and text[after - 2:after].lower() == "no":
        return False  # "There is no easy or safe way …" denies
    return found is not None and found.group(1).split()[0].lower() not in question_words
