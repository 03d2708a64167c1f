"""Rule 7 of `bench_kit.scoring.extract.answers`: the option whose text (or value) a response
states — in its last answer clause, then anywhere, then the side of a comparison the question
asks for (docs/METRICS.md#extraction)."""

from __future__ import annotations

from collections.abc import Mapping

from bench_kit.scoring.extract.answer_clause import clause_tail
from bench_kit.scoring.extract.numbered_statements import as_circled
from bench_kit.scoring.extract.option_statements import (
    after_asked_line,
    blank_filled,
    compared_option,
)
from bench_kit.scoring.extract.option_texts import (
    answered_no,
    by_option_text,
    copies_question,
    other_than_denied,
    without_questions,
)
from bench_kit.scoring.extract.option_values import by_values, option_values
from bench_kit.scoring.extract.response import (
    FAILED,
    PARSE_LENIENT,
    Extraction,
    extraction,
    normalize_text,
)


def by_texts(text: str, choices: Mapping[str, str], options: dict[str, str],
              texts: dict[str, str], norm: str | None, question: str | None) -> Extraction[str]:
    """Rule 7: an option's text in the last answer clause, then anywhere (statements
    numbered "(1) (2)" read as an option's "①②"), then a compared option, then an option's value; none from a response that only copies the question,
    nothing from an answer line that asks the question again (`after_asked_line`)."""
    circled = as_circled(text, choices)  # "(1) (2)" for the option "①②"
    if circled is not text:
        text, norm = circled, None
    if norm is None and question and len(text) <= 2 * len(question):
        norm = normalize_text(text)  # (`copies_question` reads it, and the rules below)
    if copies_question(text, question, norm):
        return FAILED
    after = after_asked_line(text)  # "Final Answer: How many … two rolls?\n…": not the question's words
    if after is not text:
        text, norm = after, None
    said = without_questions(text)  # "Is it a cat? It is a dog.": "cat" is asked, not said
    if said is not text:
        found = _texts_in(said, choices, options, texts, None, question)
        if found.value is None and answered_no(text):  # "Is it real? No.": the other of two
            other = other_than_denied(text, texts)
            return FAILED if other is None else extraction(options[other], PARSE_LENIENT)
        if found.value is not None:
            return found
        if not said.strip(" .!?\n") and clause_tail(text) is None:
            return FAILED  # only asked ("The car is blue?", "Dog?"): no answer
        # (else the questions are read: "The answer is dog?")
    return _texts_in(text, choices, options, texts, norm, question)


def _texts_in(text: str, choices: Mapping[str, str], options: dict[str, str],
              texts: dict[str, str], norm: str | None, question: str | None) -> Extraction[str]:
    """Rule 7's reading of `text` (see `_by_texts`)."""
    tail = clause_tail(text)
    letter = by_option_text(tail, texts) if tail else None
    if letter:
        return extraction(options[letter], PARSE_LENIENT)
    stated = tail is not None and any(ch.isdigit() for ch in tail)
    values = option_values(choices, options) if stated else None  # (read once, here or below)
    if values is not None:
        # "【答案】 (X) √5" with options that are numbers: the value it states is the answer,
        # not a number of the reasoning that an option equals
        return by_values(text, choices, options, values)
    norm = normalize_text(text) if norm is None else norm
    letter = blank_filled(norm, texts, question) or by_option_text(text, texts, norm, question) \
        or compared_option(text, texts, question)
    if letter:
        return extraction(options[letter], PARSE_LENIENT)
    return by_values(text, choices, options, values if stated else option_values(choices, options))
