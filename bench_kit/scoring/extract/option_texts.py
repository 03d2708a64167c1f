"""How a multiple-choice response names an option by its text (rules 5 and 7 of
`bench_kit.scoring.extract.answers`): options normalised once (LaTeX read as plain text),
an option's text stated in the response, and the one option a response names."""

from __future__ import annotations

import functools
import operator
import re
from collections.abc import Mapping

from bench_kit.scoring.extract.option_labels import OPTION_LABEL
from bench_kit.scoring.extract.question_replies import NO_AFTER, PLAIN_NO_AFTER, YES_AFTER
from bench_kit.scoring.extract.response import normalize_text
from bench_kit.scoring.extract.restatement import SENTENCE, content_words
from bench_kit.scoring.extract.reworded_option import (
    _WEAK,
    _in_one_clause,
    _not_others,
    _reworded,
    shortened_cjk,
)
from bench_kit.scoring.extract.set_aside_options import not_ruled_out
from bench_kit.text.latex import plain_latex
from bench_kit.text.words import contains_phrase, find_phrases


@functools.lru_cache(maxsize=8192)
def normalized_option(text: str, keep_power: bool = False) -> str:
    # Cached: the same items' options recur across models and modes. Options written in
    # LaTeX ("$2 \\mathrm{~cm}$") are read as the plain text a response writes ("2 cm").
    return normalize_text(plain_latex(text, keep_power))


def powers_matter(choices: Mapping[str, str]) -> bool:
    """Whether two options differ only by a unit's power (8 cm² and 8 cm³; m²+1 and m³+1):
    then the powers are kept, in the options and the response (`plain_latex`)."""
    return isinstance(choices, Mapping) and _powers_differ(tuple(choices.values()))


def _powers_differ(values: tuple) -> bool:
    """`powers_matter` for the options' values."""
    if "^" not in "".join(map(str, values)):
        return False
    return _powers_matter(tuple(str(value) for value in values))


@functools.lru_cache(maxsize=4096)
def _powers_matter(values: tuple[str, ...]) -> bool:
    dropped = [normalized_option(value) for value in values]
    kept = [normalized_option(value, True) for value in values]
    return len(set(dropped)) < len(set(kept))


def yes_and_no(texts: dict[str, str]) -> bool:
    """The options (`option_texts`) are exactly Yes and No (rule 8)."""
    return len(texts) == 2 and sorted(texts.values()) == ["no", "yes"]


# The last call's (choices, options, option values, texts): the fast path and the rules ask
# about the same options several times per response.
_LAST_TEXTS: tuple = (None, None, (), {})


def option_texts(choices: Mapping[str, str], options: dict[str, str]) -> dict[str, str]:
    """{letter: normalised option text} for the options (`options`: letter -> the caller's
    key) that have a text. The result is shared with the next call on the same unchanged
    options (the same mapping holding the same value objects): callers must not modify it."""
    global _LAST_TEXTS
    if not isinstance(choices, Mapping):
        return {}
    values = tuple(choices.values())
    last = _LAST_TEXTS
    if choices is last[0] and options is last[1] and len(values) == len(last[2]) \
            and all(map(operator.is_, values, last[2])):
        return last[3]
    texts: dict[str, str] = {}
    keep = _powers_differ(values)
    for letter, key in options.items():
        value = choices.get(key)
        if value is not None:  # (one argument when the powers go: the cache's cheapest key)
            norm = normalized_option(str(value), True) if keep else normalized_option(str(value))
            if norm:
                texts[letter] = norm
    _LAST_TEXTS = (choices, options, values, texts)
    return texts


_MATH_TERM = re.compile(r"[\d.]+|sqrt|pi")  # a normalised word of a formula


@functools.lru_cache(maxsize=8192)
def _is_formula(text: str) -> bool:
    return _MATH_TERM.search(text) is not None


def _stated(norm: str, text: str) -> bool:
    """Whether option text `text` occurs in the normalised response `norm` as whole words,
    not right after a negation ("40°, not 34°" does not state 34°, "not A or B" neither); an option that is a
    formula, not as a term of a longer one ("sqrt 3" is not stated in "6 sqrt 3")."""
    formula = _is_formula(text)
    if not formula and not _negates(norm):
        return contains_phrase(norm, text)  # words: "6 o'clock" states "o'clock"
    for found in find_phrases(norm, text):
        start, end = found.span()
        before = norm[max(0, start - 24):start].split()
        if before and (before[-1] in _NEGATING or " ".join(before[-2:]) in _NEGATING
                       or before[-1] in ("or", "nor") and "not" in before[-5:-1]):
            continue  # ("not dancing or singing" states neither)
        after = norm[end:end + 24].split()[:1]
        if not formula or not any(_MATH_TERM.fullmatch(word) for word in before[-1:] + after):
            return True
    return False


@functools.lru_cache(maxsize=16)
def _negates(norm: str) -> bool:
    return _NEGATION_HINT.search(norm) is not None  # once per response, not per option


_NEGATING = frozenset(["not", "except", "excluding", "rather than", "instead of"])
_NEGATION_HINT = re.compile(r"\bnot\b|\bexcept|\brather than\b|\binstead of\b")


def by_option_text(answer: str, texts: dict[str, str], norm: str | None = None,
                   question: str | None = None) -> str | None:
    """The one option whose text `answer` is or states (`texts`: letter -> normalised
    text; `norm`: `answer` normalised, when the caller has it; `question`: the item's
    question, for `opening_option`), or None."""
    norm = normalize_text(answer) if norm is None else norm
    if not norm:
        return None
    exact = [letter for letter, text in texts.items() if text == norm]
    if exact:
        return exact[0] if len(exact) == 1 else None
    if question and _CONDITION.search(answer):
        kept = _without_condition(answer, question)
        if kept is not answer:  # "If pelicans increase, fish may decrease.": not "increase"
            answer, norm = kept, normalize_text(kept)
    found = {letter: text for letter, text in texts.items() if text in norm and _stated(norm, text)}
    found = _not_others(answer, norm, found)
    if not found:  # no option verbatim: one reworded ("flipped", "the cricket population will increase")
        how = {letter: _reworded(answer, norm, text) for letter, text in texts.items()
               if " " in text or text in norm}  # (a one-word option is in `norm` or not said)
        found = _not_others(answer, norm, {letter: texts[letter] for letter, way in how.items() if way})
        if not found and not answer.isascii():  # "经济得到了发展" for "经济得到恢复和发展"
            return shortened_cjk(answer, texts)
        if len(found) == 1 and how[next(iter(found))] == _WEAK:
            return None
        if len(found) > 1:  # "If frogs are removed, the cricket population will increase"
            within = {letter: text for letter, text in found.items() if _in_one_clause(answer, text)}
            found = within if len(within) == 1 else found
    maximal = [letter for letter, text in found.items()
               if not any(other != text and text in other for other in found.values())]
    if len(maximal) > 1 and _BOTH.search(norm):  # "not only a cat but also a dog": both
        return None
    if len(maximal) > 1:
        corrected = _corrected(answer, texts, question)
        if corrected is not None:  # "It is singing. Wait, no, it is dancing.": what the correction says
            return corrected or None
    if len(maximal) > 1:  # several named: the one not ruled out ("the others are not …")
        unruled = not_ruled_out(answer, {letter: found[letter] for letter in maximal})
        if len(unruled) > 1:
            return opening_option(answer, texts, question)
        maximal = unruled
    return maximal[0] if len(maximal) == 1 else None


# A condition opening a sentence ("If pelicans increase, …", "As the number of pelicans
# increases, …"): when its words are the question's, it restates the question, not an answer.
_CONDITION = re.compile(r"(?:^|(?<=[.!?\n]))[ \t]*(?:if|when|as)\s+([^,.!?\n]{1,160}),", re.I)


def _without_condition(answer: str, question: str) -> str:
    """`answer` with the conditions that restate the question's own (every content word of
    them in the question) blanked out, or `answer` itself when none does."""
    asked = content_words(question)
    kept = _CONDITION.sub(lambda match: " " * len(match.group())
                          if content_words(match.group(1)) <= asked else match.group(), answer)
    return answer if kept == answer else kept


# A first sentence that hedges, weighs options or asks is no opening answer.
_HEDGED = re.compile(r"\b(?:if|whether|or|but|however|although|though|may|might|could|seems?"
                     r"|appears?|looks?|likely|possibly|probably|perhaps|either|neither|nor|not"
                     r"|no|cannot|first|initially|glance)\b|n't\b|\?", re.I)
# Where a question's own text ends: its option lines ("A. …", "(A) …", "Options:").
_OPTION_LINES = re.compile(r"\n[^\S\n]*+(?:options?[ \t]*+:|" + OPTION_LABEL + ")", re.I)
_ASKING = frozenset("what which how who whom whose where when why option describe best word "
                    "following statement".split())
_LABEL_FIRST = re.compile(r"\s*+" + OPTION_LABEL)
_NUMBER_WORD = re.compile(r"\d|\b(?:sqrt|pi)\b")  # an option of numbers or a formula


def opening_option(answer: str, texts: dict[str, str], question: str | None) -> str | None:
    """The one option the response's first sentence states while restating the question
    ("What activity is the person engaged in?" -> "The person is engaged in drawing a
    picture. … There is no indication of dancing …"): a plain statement (no hedge, no
    negation, no "or", not a question), holding at least half of the asking sentence's
    content words, and options of words (not formulas or numbers); else None."""
    if not question or any(_NUMBER_WORD.search(text) for text in texts.values()) \
            or _LABEL_FIRST.match(answer):
        return None
    asked = _asked_words(question)
    if not asked:
        return None
    first = SENTENCE.search(answer)
    letter = _restating(answer, first, asked, texts)
    if letter is not None and first is not None \
            and _revised_after(answer, first.end(), texts[letter], texts, asked):
        return None
    if letter is None and first is not None:  # "… The best option to describe it is yellow."
        last = _last_sentence(answer)
        if last is not None and last.start() > first.start() and _NAMES_OPTION.search(last.group()):
            letter = _restating(answer, last, asked, texts)
    return letter


# A later sentence that corrects an opening statement ("Hmm, actually, looking again, it's a
# phone", "Wait, no, on second thought", "Sorry, I meant rainy", "Upon closer inspection").
_CORRECTING = r"actually|wait|second\s+thought|I\s+meant?|look(?:ing)?\s+again|on\s+reflection|correction"
_CORRECTS = re.compile(rf"\b(?:{_CORRECTING}|sorry|closer|mistake)\b", re.I)


# The corrections `_corrected` reads an answer after: `_CORRECTS` without the words that also
# compare or excuse ("closer to the camera", "a common mistake", "sorry for any confusion"), ...
_CORRECTION = re.compile(rf"\b(?:{_CORRECTING}|sorry(?!\s+for\b)|closer\s+(?:look|inspection|examination)"
                         r"|looking\s+(?:more\s+)?closely)\b", re.I)
# ... and opening a sentence or clause ("Wait, no, …", "…, actually, …", "Hmm, actually …"), or
# "is actually" right before an option's text ("it is actually badminton"); not a word inside a
# clause ("He is actually talking on it", "singing and actually dancing").
_OPENS = re.compile(r"(?:^|[.!?\n;:,(—-]|\b(?:no|hmm+|oh|um|uh|well|ok|okay|but))\s*"
                    r"(?:(?:on|upon|at|after|with|taking)\s+(?:a\s+)?)?$", re.I)  # "On closer inspection"


_COPULA_BEFORE = re.compile(r"(?:\b(?:is|are|was|were)|'s|'re)\s+$", re.I)


def _correction_opens(answer: str, match: re.Match, texts: dict[str, str]) -> bool:
    before = answer[max(0, match.start() - 24):match.start()]
    if _OPENS.search(before) is not None:
        return True
    if match.group().lower() != "actually" or _COPULA_BEFORE.search(before) is None:
        return False
    after = normalize_text(answer[match.end():match.end() + 80]).split()
    after = after[1:] if after[:1] in (["a"], ["an"], ["the"]) else after
    return any(after[:len(text.split())] == text.split() for text in texts.values())


def _corrected(answer: str, texts: dict[str, str], question: str | None) -> str | None:
    """For a response naming several options: when it corrects itself (`_CORRECTION`) after
    naming one, the option the text after its last correction names ("" for none or
    several: no answer); None when it makes no correction after an option."""
    last = max((found for found in _CORRECTION.finditer(answer) if _correction_opens(answer, found, texts)),
               key=lambda match: match.start(), default=None)
    if last is None:
        return None
    head = normalize_text(answer[:last.start()])
    if not any(text in head and _stated(head, text) for text in texts.values()):
        return None  # ("Actually, the dog is …": nothing named before it to correct)
    return by_option_text(answer[last.end():], texts, None, question) or ""


_WOULD = re.compile(r"\b(?:would|should)\b", re.I)
_PRONOUNS = frozenset("his her hers its their theirs him them he she they it".split())


def _revised_after(answer: str, at: int, chosen: str, texts: dict[str, str],
                   asked: frozenset[str]) -> bool:
    """Whether the response after its opening statement (from `at`) corrects it, or a
    plain later sentence (no hedge, no negation, no "would") about the question's subject
    states another option ("The video shows a man walking his dog. The dog is running
    alongside him."; not "The bag on the table is his too.")."""
    rest = answer[at:at + 4000]
    if _CORRECTS.search(rest):
        return True
    others = [text for text in texts.values() if text != chosen and text not in chosen]
    for sentence in SENTENCE.finditer(rest):
        plain = sentence.group() + rest[sentence.end():sentence.end() + 1]  # (its "?")
        if _HEDGED.search(plain) is None and _WOULD.search(plain) is None \
                and not (asked - _PRONOUNS).isdisjoint(content_words(plain)):
            norm = normalize_text(sentence.group())
            if any(text in norm and _stated(norm, text) for text in others):
                return True
    return False


def _last_sentence(answer: str) -> re.Match | None:
    """The response's last sentence (`SENTENCE`), found from the end (a search for it
    would be quadratic)."""
    body = answer.rstrip()
    end = len(body) - 1 if body[-1:] in (".", "!", "?") else len(body)
    return SENTENCE.match(answer, 1 + max(body.rfind(stop, 0, end) for stop in ".!?\n"))
_NAMES_OPTION = re.compile(r"\b(?:option|answer|choice)\b", re.I)


def _restating(answer: str, sentence: re.Match | None, asked: frozenset[str],
               texts: dict[str, str]) -> str | None:
    """The one option `sentence` states plainly while restating the question (`asked`)."""
    if sentence is None or _HEDGED.search(answer, sentence.start(), min(sentence.end() + 1, len(answer))):
        return None
    if 2 * len(asked & content_words(sentence.group())) < len(asked):
        return None
    norm = normalize_text(sentence.group())
    found = [text for text in texts.values() if text in norm and _stated(norm, text)]
    maximal = [letter for letter, text in texts.items() if text in found
               and not any(other != text and text in other for other in found)]
    return maximal[0] if len(maximal) == 1 else None


_KEPT_QUESTION = re.compile(  # a question that states its option: a tag, a "why", a yes after it
    r"(?:,\s*(?:is|are|was|were|does|do|did|has|have)n'?t\s+(?:it|they|that|this|he|she)"
    r"|,\s*(?:right|correct|no|yes|eh|surely)|^\W*(?:why|what\s+makes|how\s+come)\b.*"
    r"|^\W*(?:is|are|was|were|does|do|did|has|have)n'?t\b.*)\s*$", re.IGNORECASE)


def answered_no(answer: str) -> bool:
    """Whether a question the response asks is answered no ("Is it real? Not really.")."""
    return "?" in answer and NO_AFTER.search(answer) is not None


def other_than_denied(answer: str, texts: dict[str, str]) -> str | None:
    """With two options: the other one, when the response asks about one and answers a
    plain no ("Is it real? No." -> fake; not "Not really."); None otherwise (`texts`: letter
    -> normalised text)."""
    if len(texts) != 2:
        return None
    for sentence in SENTENCE.finditer(answer):
        end = sentence.end()
        if answer.startswith("?", end) and PLAIN_NO_AFTER.match(answer, end, end + 40):
            asked = by_option_text(sentence.group(), texts)
            if asked is not None:
                return next(letter for letter in texts if letter != asked)
    return None


def without_questions(answer: str) -> str:
    """`answer` with the sentences it asks (ending in "?") blanked: an option's text in a
    question the response asks itself is asked, not said ("Is it a cat? It is a dog.").
    Kept: a tag question ("It's a dog, isn't it?"), a "why"/"what makes" question, a
    negative question ("Isn't it obviously fake?") and one answered yes ("Is it real? Yes.")."""
    if "?" not in answer:
        return answer
    parts, at = [], 0
    for sentence in SENTENCE.finditer(answer):
        end = sentence.end()
        if answer.startswith("?", end) and end > sentence.start() \
                and not _KEPT_QUESTION.search(sentence.group()[-300:]) \
                and not YES_AFTER.match(answer, end, end + 40):
            parts += [answer[at:sentence.start()], " " * (end - sentence.start())]
            at = end
    return "".join(parts) + answer[at:] if parts else answer


def copies_question(answer: str, question: str | None, norm: str | None = None) -> bool:
    """Whether the response only copies the item's question stem (eight words or more of
    it, before its option lines): the question's numbers and words are no answer (`norm`:
    `answer` normalised, when the caller has it)."""
    if not question or len(answer) > 2 * len(question):
        return False
    norm = normalize_text(answer) if norm is None else norm
    if norm.count(" ") < 7:
        return False
    stop = _OPTION_LINES.search(question)
    return norm in normalize_text(question[:stop.start() if stop else len(question)])


@functools.lru_cache(maxsize=1024)
def _asked_words(question: str) -> frozenset[str]:
    """The content words of the question's asking sentence (its last one before its option
    lines), without the asking words ("what", "which", "option")."""
    stop = _OPTION_LINES.search(question)
    sentences = SENTENCE.findall(question[:stop.start() if stop else len(question)])
    asking = next((s for s in reversed(sentences) if s.strip()), "")
    return frozenset(content_words(asking) - _ASKING)


_BOTH = re.compile(r"\bnot only\b")


# An option's label in an echo of the options: "(A) ", "[A] ", "A. ", "A: ", "A) ".
_LABEL = re.compile(r"[(\[]\s*([A-J])\s*[)\]]|(?<![A-Za-z0-9])([A-J])[.:)](?=\s)")
# ... or the options run together under Chinese-style labels ("A:秦律;B:汉律", "A:秦律 B:汉律"):
# a form of its own, tried alone (inside "(A) A:B = 1:2" it would find "A:" labels too).
_RUN_TOGETHER = re.compile(r"(?:^|(?<=[;\s]))([A-J]):(?=\S)")


def echoes_options(text: str, choices: Mapping[str, str], options: dict[str, str]) -> bool:
    """Whether the whole response is the options echoed, each label (all of one form)
    followed by its own option's text ("(A) cat (B) dog (C) bird (D) fish"): no one of them
    chosen."""
    if sum(map(text.count, ").:]")) < 2:  # every label holds one: two labels at least
        return False
    texts = option_texts(choices, options)
    return any(_labels_each_text(text, list(form.finditer(text)), texts) for form in (_LABEL, _RUN_TOGETHER))


def _labels_each_text(text: str, labels: list[re.Match], texts: dict[str, str]) -> bool:
    """Whether `labels` (two or more) open `text` and each is followed by its own option's
    text and nothing else."""
    if len(labels) < 2 or text[:labels[0].start()].strip():
        return False
    ends = [label.start() for label in labels[1:]] + [len(text)]
    seen = set()
    for label, end in zip(labels, ends):
        letter = next(group for group in label.groups() if group)
        if letter in seen or texts.get(letter) != normalize_text(text[label.end():end]):
            return False
        seen.add(letter)
    return True
