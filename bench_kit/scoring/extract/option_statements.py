"""What a multiple-choice response's statements say as a whole (rules of
`bench_kit.scoring.extract.answers`): answers under conditions naming different letters, a
response made only of answer lines, an explanation's opening verdict, what follows a closing
answer clause, the option on the answering side of a comparison, the option that fills the
question's blank. That it gives no option is `no_option_statements`; options that are numbers,
`option_values`; options named only to set them aside, `set_aside_options`; whether it stopped
(cut off, looping) before answering, `truncation.cut_off_mid_sentence`."""

from __future__ import annotations

import re

from bench_kit.scoring.extract.answer_clause import ANSWER_CLAUSE
from bench_kit.scoring.extract.restatement import SENTENCE, comparisons, content_words
from bench_kit.text.normalize import normalize_for_match

# "If the heart is wider …, then the answer is (A) Yes." — an answer under a condition.
_IF_CLAUSE = re.compile(r"\bif\b[^.\n]{0,200}?\banswer\s+(?:is|would\s+be)\s*:?\s*[(\[]?\s*"
                        r"([A-J])(?![A-Za-z])", re.I)


def hypothetical_clauses(text: str) -> bool:
    """Whether the response offers answers under conditions, naming different letters
    (an enumeration of cases, not a choice)."""
    if text.count("answer is") + text.count("answer would be") < 2:
        return False
    return len({m.group(1).upper() for m in _IF_CLAUSE.finditer(text)}) > 1


# A line that is only an answer clause: "The answer is (B)." A response made of such lines
# naming different letters answers several questions (a few-shot prompt's), not this one.
_CLAUSE_LINE = re.compile(r"[ \t]*(?:the\s+)?(?:final\s+|correct\s+)?answer\s+is\s*+:?\s*+[(\[]?([A-J])[)\]]?"
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


def final_answer_tail(text: str) -> str | None:
    """What follows an answer clause opening the last line ("[答案]: 无正确答案" -> "无正确答案",
    "Answer: A. ①② B. ①③" -> "A. ①② B. ①③"), or None."""
    line = text[text.rfind("\n") + 1:]
    clause = ANSWER_CLAUSE.match(line.lstrip(" \t[(【"))
    return None if clause is None else line.lstrip(" \t[(【")[clause.end():].strip()


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


# An answer line that asks the question again (least-to-most prompts: "Final Answer: How many
# pita breads …?" then the answer on the next line).
# (a question: it holds an interrogative word; "Answer: dog?" is an answer, hesitant)
_ASKED_LINE = re.compile(r"^[ \t]*(?:final\s+)?answer\s*:(?=[^\n?]*\b(?:what|how|which|who|whom|whose|where"
                         r"|when|why|whether|is|are|was|were|does|do|did|can|could|will|would|should)\b)"
                         r"[^\n?]*\?[ \t]*$", re.I | re.M)


def after_asked_line(text: str) -> str:
    """`text` after its last answer line that asks the question again, whose numbers are
    the question's, not an answer ("… as two rolls?" is no 2); `text` without one."""
    if "?" not in text or "nswer" not in text:
        return text
    last = max(_ASKED_LINE.finditer(text), key=lambda match: match.start(), default=None)
    return text if last is None else text[last.end():]
