"""Answer extraction: model response text -> letter / yes-no / number / box (docs/METRICS.md#extraction).

Each extractor returns None when it finds no answer (never a random guess), and has a
`*_detailed` twin returning an `Extraction(value, parse)` with parse "ok" (a clean answer
form), "lenient" (found by a fallback) or "failed". All of them accept any string and
never raise on it; a leading `<think>…</think>` block, `<answer>` tags, `\\boxed{}`,
markdown emphasis and full-width forms are handled by `clean_response` first.

Multiple choice, in order (the first rule that answers wins). LaTeX in the response and
in the options is read as plain text first ("$\\frac{9}{2} \\mathrm{~cm}$" -> "9/2 cm").
With the question given, clauses of its instruction the response writes again word for word
("例如[正确答案]A<eoa>") are not read, and an answer before the first of them counts
(`bench_kit.scoring.extract.prompt_echo`).
1. the whole response is a letter form: "B", "(B)", "B.", "[B]", "Option B", "选项B" (ok);
   a short list of several letters ("A and c", "(A) (B) (C)") -> failed;
2. the last explicit answer clause: "The answer is B", "Answer: D", "答案是B", "【答案】B",
   "选B", "I choose B", "I'd lean towards B" (ok; not "选项D也是错误的" nor "选项：" heading the options; a clause
   naming a letter that is not an option, or a second letter after it, "A, E" / "(B) or
   (C)" -> failed);
3. the last line is a letter form, or an option written out ("F. K>0"), after some
   reasoning (lenient);
4. the response starts with a letter and a delimiter, "B. cat …", "(B) because …" (ok),
   unless its lines enumerate several options;
5. the response equals one option's text (lenient);
6. word-bounded capital letters in the prose (and lower-case ones alone in brackets, "is
   (b)."), skipping negated ones ("not A", "A is wrong"), letters inside echoed option
   texts (not options that are themselves letters), "A"/"I" used as an article or pronoun,
   letters naming things ("Machine A … Machine B"), symbols of a formula ("A = P(1 + r)")
   and units ("0.01 A"): one distinct letter -> it (lenient);
   several -> the one letter of the last concluding sentence ("Therefore, … (D) 4."),
   else on to rule 7;
7. the option texts contained in the answer clause or the response: exactly one (after
   dropping texts contained in a longer matched text and options named only to be set
   aside, "X and Y are not …"; a formula option not as a term of a longer formula; with a
   blank in the question, the option written before the words after it; with no text
   found, an option reworded: "flipped" for "flip", its content words in one sentence)
   -> it (lenient); several compared ("The sun is larger than the moon.") -> the side
   answering the question's comparative; options that are all numbers ("10m", "60°"; one
   may offer no answer, "It cannot be determined"): the response's answer number equals
   exactly one (lenient);
8. options that are exactly Yes and No: the response's yes/no answer (`extract_yesno`,
   with the question when given) -> that option (lenient);
otherwise failed: an article "A" or pronoun "I" is never read as a letter. Options past J
(A-R, without a gap): a whole response or last answer clause naming one of them answers
first, unless another bracketed letter follows it (`choice_clause.late_letter`); every letter
rule above reads A-J only (the option-text rules read every option). A lenient letter
is no answer when the response says the answer is not among the options or that it cannot
answer (unless an answer follows the statement, or the response takes the option it then
names as its answer, "… is (a) 20%, so that is the answer", or an option makes it itself:
"None of the above", "Can't tell"), and when a long response was cut off mid-sentence or loops. A
`\\boxed{}` value that no option has is answered only by an explicit letter form around
it, never by letters or texts in the prose. With Yes/No options a letter written with the
other option's word ("A: no") is that word.
"""

from __future__ import annotations

import re
from collections.abc import Mapping

from bench_kit.scoring.extract.answered_again import answered_again
from bench_kit.scoring.extract.boxes import (
    box_from_padded,
    box_to_padded,
    extract_box,
    extract_box_detailed,
    square_padding,
)
from bench_kit.scoring.extract.choice_clause import (
    AMBIGUOUS,
    BARE_LETTER,
    LETTER_LIST,
    LISTED_LETTER,
    clause_letter,
    late_letter,
    next_option,
    option_keys,
)
from bench_kit.scoring.extract.concluding import concluding_letters
from bench_kit.scoring.extract.example_answers import without_examples
from bench_kit.scoring.extract.fast_choice import fast_choice
from bench_kit.scoring.extract.invented_options import invents_options
from bench_kit.scoring.extract.letter_names import letter_uses
from bench_kit.scoring.extract.listed_options import without_listed_options
from bench_kit.scoring.extract.no_option_statements import (
    concedes,
    leans_after,
    no_answer_statement,
)
from bench_kit.scoring.extract.numbers import extract_number, extract_number_detailed
from bench_kit.scoring.extract.option_fragment import fragment_option
from bench_kit.scoring.extract.option_labels import OPTION_LABEL
from bench_kit.scoring.extract.option_statements import (
    hypothetical_clauses,
    only_answer_lines,
    opening_verdict,
)
from bench_kit.scoring.extract.option_texts import (
    echoes_options,
    option_texts,
    powers_matter,
    yes_and_no,
)
from bench_kit.scoring.extract.overruled import overruled
from bench_kit.scoring.extract.prompt_echo import echoed_clauses, without_echo
from bench_kit.scoring.extract.prose_letters import (
    SEGMENT_END,
    echoed_option_spans,
    is_article_or_pronoun,
    prose_letters,
    rules_out,
    upper_cased_letters,
)
from bench_kit.scoring.extract.response import (
    CONTINUATION,
    FAILED,
    PARSE_LENIENT,
    PARSE_OK,
    Extraction,
    clean_response,
    extraction,
    normalize_text,
    strip_reasoning,
)
from bench_kit.scoring.extract.stated_choice import stated_choice
from bench_kit.scoring.extract.text_choice import by_texts
from bench_kit.scoring.extract.truncation import cut_off_mid_sentence
from bench_kit.scoring.extract.yesno import extract_yesno, extract_yesno_detailed
from bench_kit.scoring.extract.yesno_options import letter_then_word, yesno_option
from bench_kit.text.latex import plain_latex
from bench_kit.types import LETTERS

__all__ = [
    "Extraction", "extract_choice", "extract_choice_detailed", "extract_yesno",
    "extract_yesno_detailed", "extract_number", "extract_number_detailed", "extract_box",
    "extract_box_detailed", "square_padding", "box_to_padded", "box_from_padded",
    "strip_reasoning",
]

_LEAD = re.compile(r"\s*+(?:(?i:option|choice|选项)\s*+)?"
                   r"(?:[(\[]\s*([A-J])\s*[)\]]|([A-J])\s*[.:)\]]|([A-J])(?=\s*\n)"
                   r"|([A-J])\s+[-–—]\s)")
# An option label in a new question the response writes ("…正确的是:A:甲;B:乙", "\n(A) cat").
_NEW_OPTION = re.compile(r"(?<![A-Za-z0-9])" + OPTION_LABEL)
_LINE_LEAD = re.compile(r"^[^\S\n]*+" + OPTION_LABEL, re.M)  # (one line: linear)


def _lists_letters(text: str, choices: Mapping[str, str], options: dict[str, str]) -> bool:
    """A response that is a list of letters (`LETTER_LIST`) names several different ones,
    and is not itself an option's text ("A and B" as an option), nor an option's letter
    and its text ("(D) H", "(C) (c - a) - (d - b)")."""
    if len({letter.upper() for letter in LISTED_LETTER.findall(text)}) < 2:
        return False  # "(D) (D)"
    return normalize_text(text) not in option_texts(choices, options).values() \
        and _written_option(text, choices, options) is None


def _segment_after(text: str, end: int) -> str:
    stop = SEGMENT_END.search(text, end)
    return text[end:stop.start() if stop else len(text)]


def _enumerates(text: str, options: dict[str, str]) -> bool:
    if "\n" not in text:
        return False  # one line holds one lead at most
    leads = {lead.group("letter") for lead in _LINE_LEAD.finditer(text)}
    return len(leads & options.keys()) > 1


def extract_choice_detailed(response: str, choices: Mapping[str, str],
                            question: str | None = None, *, fast: bool = True) -> Extraction[str]:
    """`extract_choice` with the parse path; rules in the module docstring. `fast=False`
    skips the fast path (the full rules only, which tests/scoring/test_extract_fast.py
    compares it with)."""
    spans = echoed_clauses(response, question, choices.values()) \
        if question and isinstance(response, str) and isinstance(choices, Mapping) else []
    if spans:  # the prompt's instruction written again: its letters are not an answer
        blanked, first = without_echo(response, spans), spans[0][0]
        if response[:first].strip():  # an answer before the echo (a new question after it) ...
            before = extract_choice_detailed(response[:first], choices, question, fast=fast)
            if before.parse == PARSE_OK and not _corrected(response[first:], blanked[first:], choices,
                                                            question, fast):
                return before
        response = blanked
    text = without_examples(clean_response(response))  # "例如[正确答案]D<eoa>": a format's example
    if not text:
        return FAILED
    if "\\" in text or "^" in text or "√" in text:
        # "\\frac{7}{2} \\mathrm{~cm}^{2}" reads "7/2 cm", like its option
        text = plain_latex(text, powers_matter(choices))
    options = option_keys(choices)
    # (a fast-path answer is one letter form or an option's text, the whole response: no
    # refusal, no options listed; options past J are read first)
    found = fast_choice(text, choices, options) if fast and len(options) <= len(LETTERS) else None
    if found is None:
        listing = _listing(text, choices, options, question, fast)
        if listing is not None:
            return listing
        if len(options) > len(LETTERS):  # options past J: "So the answer is (O)."
            late = late_letter(text, options)
            if late is not None:
                return extraction(options[late], PARSE_OK)
        found = _full_choice(text, choices, options, question)
    if found.value is not None and len(options) == 2:
        found = letter_then_word(text, choices, options, found)
    if found.value is None and isinstance(response, str) and "\\boxed" in response:
        # A box holding a value ("\\boxed{24/7}") beside a clause naming the letter.
        whole = clean_response(response, boxed=False)
        if whole != text:
            if "\\" in whole or "^" in whole or "√" in whole:
                whole = plain_latex(whole, powers_matter(choices))
            around = _full_choice(whole, choices, options, question)
            return around if around.parse == PARSE_OK else FAILED  # not a letter in the prose
    return found


def _corrected(after: str, blanked: str, choices: Mapping[str, str], question: str | None,
               fast: bool) -> bool:
    """Whether the response, past an echo of its prompt (`after`; `blanked`: with the echo
    blanked), answers again without writing a new question ("…例如[正确答案]A<eoa>。\n不对，
    应更正为：[正确答案]B<eoa>"): a correction, read with the rest; an answer after a new
    question (`CONTINUATION`, a question mark, or two option labels: "…以下说法正确的是:A:…;B:…",
    the question itself written again) is that question's."""
    if "?" in after or "？" in after or CONTINUATION.search(after) \
            or len({label.group("letter") for label in _NEW_OPTION.finditer(after)}) > 1:
        return False
    return extract_choice_detailed(blanked, choices, question, fast=fast).parse == PARSE_OK


def _listing(text: str, choices: Mapping[str, str], options: dict[str, str],
             question: str | None, fast: bool) -> Extraction[str] | None:
    """The reading of a response that writes options: invented ones ("F:…" after options
    A-E: options of its own, no answer), a question written again after its answer and
    answered otherwise (`answered_again`), or the question's own options written out again
    ("答案:A:英国法;B:韩国法;…", choosing none: the rest is read, and a lenient reading of it
    leaves the whole to the rules); None for any other response."""
    if invents_options(text, options):
        return FAILED
    again = answered_again(text, choices, options)  # "正确答案：C … A:… B:… 正确答案：D"
    if again is not None:
        return again
    listed = without_listed_options(text, choices, options)
    if listed is text or without_listed_options(listed, choices, options) is not listed:
        return None  # (one reading of the rest: no list is left in it)
    found = extract_choice_detailed(listed, choices, question, fast=fast)
    return None if found.parse == PARSE_LENIENT else found


def _outside(text: str, choices: Mapping[str, str], options: dict[str, str],
             question: str | None) -> Extraction[str]:
    """A letter outside the options was named: no answer, except that Yes/No options still
    read the yes/no the response states ("The correct option letter is D. X is not the
    maximum." -> No)."""
    texts = option_texts(choices, options)
    if yes_and_no(texts):
        return yesno_option(text, texts, options, question)
    return FAILED


def _full_choice(text: str, choices: Mapping[str, str], options: dict[str, str],
                 question: str | None = None) -> Extraction[str]:
    """The full rules of the module docstring, on a cleaned response."""
    bare = BARE_LETTER.fullmatch(text)
    if bare:
        letter = bare.group(1).upper()
        return extraction(options[letter], PARSE_OK) if letter in options else FAILED
    if len(text) < 40 and LETTER_LIST.fullmatch(text) and _lists_letters(text, choices, options):
        return FAILED
    cut = CONTINUATION.search(text)
    if cut and cut.start() > 0:  # the answer given before the model wrote a new question
        head = _full_choice(text[:cut.start()], choices, options, question)
        if head.parse == PARSE_OK:
            return head
        if isinstance(choices, Mapping) and no_answer_statement(text[:cut.start()], choices) is not None:
            return FAILED  # it said it cannot answer, then wrote another question and answered that
    if "\n" in text and only_answer_lines(text):
        return FAILED  # "The answer is (B).\n\nThe answer is (J).\n\nThe answer is (E)."
    clause = clause_letter(text)
    if clause == AMBIGUOUS:  # "(e), I and III only": the letter, then its own text?
        clause = clause_letter(text, texts=option_texts(choices, options))
    if clause is not None and hypothetical_clauses(text):
        clause = None  # "If …, the answer is (A) Yes. If …, the answer is (B) No."
    if clause is not None:
        if overruled(text, choices, options):
            return FAILED
        if clause in options:
            return extraction(options[clause], PARSE_OK)
        return _outside(text, choices, options, question)
    # "可以与A形成争议观点对的是：E", else a verdict opening the response (before a loop or cut-off)
    opening = stated_choice(text, options) or opening_verdict(text)
    if opening in options:
        return extraction(options[opening], PARSE_OK)
    if cut_off_mid_sentence(text):  # stopped mid-sentence, or looping, before it answered:
        # no lenient reading, so only a lead (rule 4, the one "ok" of rules 3-8) can answer
        placed = _placed_letter(text, choices, options, question)
        return placed if placed is not None and placed.parse == PARSE_OK else FAILED
    found = _unclaused_choice(text, choices, options, question)
    if found.parse == PARSE_LENIENT and isinstance(choices, Mapping):
        return _after_refusal(text, found, choices, options, question)
    return found


def _after_refusal(text: str, found: Extraction[str], choices: Mapping[str, str],
                   options: dict[str, str], question: str | None) -> Extraction[str]:
    """A lenient reading `found` of a response that may say it cannot answer ("none of the
    options match", "impossible to determine"): none then, unless an answer follows the
    statement — a clause, or a lenient one the response leans to, concedes or commits to
    ("… with certainty, but it is likely X", "So A is correct.")."""
    refused = no_answer_statement(text, choices)
    if refused is None:
        return found
    after = _full_choice(text[refused.end():], choices, options, question)
    if after.parse == PARSE_OK or (after.parse == PARSE_LENIENT and (
            leans_after(text, refused.end()) or concedes(text, refused)
            or _COMMITS.search(text, refused.end()))):
        return after
    return FAILED


# "… is (a) 20%, so that is the answer.", "So A is correct.": the response takes what it names
# as its answer. The verdict on a letter opens its sentence ("So", "Thus", "Therefore", "Hence"
# may lead it, also after a comma: "The closest is B, so B is correct."): not "whether A is
# correct", "Some might say A is correct", "If …, A is correct", "…, then A is correct". (Blanks
# after the last line break only: the same verdicts found, linear on runs of blank lines.)
_COMMITS = re.compile(r"(?:\b(?:that|this|which)\s+(?:is|must\s+be|should\s+be|will\s+be)\s+(?:the|our|my)\s+"
                      r"(?:final\s+)?answer|(?:(?<![^.!?\n])[^\S\n]*+|,\s*(?=(?:so|thus|therefore|hence)\s))"
                      r"(?:(?:so|thus|therefore|hence),?\s+)?"
                      r"\(?(?-i:[A-J])\)?\s+(?:is|must\s+be)\s+(?:the\s+)?correct"
                      r"(?:\s+(?:answer|option|choice))?)\s*(?:[.!\n]|$)", re.I)


def _placed_letter(text: str, choices: Mapping[str, str], options: dict[str, str],
                   question: str | None) -> Extraction[str] | None:
    """Rules 3-4: a bare letter on the last line, or a letter leading the response; None
    when neither decides."""
    if "\n" in text:
        line = text.rsplit("\n", 1)[1]
        last_line = BARE_LETTER.fullmatch(line)
        if last_line and last_line.group(1).upper() in options:
            return extraction(options[last_line.group(1).upper()], PARSE_LENIENT)
        written = _written_option(line, choices, options)
        if written is not None and not _enumerates(text, options):  # not the options echoed
            return written
    lead = _LEAD.match(text)
    if not lead:
        return None
    if echoes_options(text, choices, options):
        return FAILED  # "(A) cat (B) dog (C) bird (D) fish": the options, not a choice
    letter = next(g for g in lead.groups() if g)
    if lead.group(1) and letter not in options:  # "(E) 3" where the options end at D
        return _outside(text, choices, options, question)
    if letter in options and not _enumerates(text, options) \
            and not rules_out(_segment_after(text, lead.end())):
        other = next_option(text, lead.end(lead.lastindex or 0))
        if other and other != letter:
            return FAILED  # "(A) or (C)"
        if not (letter == "I" and is_article_or_pronoun(text, letter, lead.end(lead.lastindex or 0))):
            return extraction(options[letter], PARSE_OK)
    return None


def _written_option(line: str, choices: Mapping[str, str],
                    options: dict[str, str]) -> Extraction[str] | None:
    """Rule 3: the last line is an option written out, its letter and its text ("F. K>0"
    after the reasoning), or None."""
    lead = _LINE_LEAD.match(line)
    if lead is None:
        return None
    letter = lead.group("letter")
    said = normalize_text(plain_latex(line[lead.end():], powers_matter(choices)))
    texts = option_texts(choices, options)
    if said and letter in texts and texts[letter] == said:
        return extraction(options[letter], PARSE_LENIENT)
    return None


def _unclaused_choice(text: str, choices: Mapping[str, str], options: dict[str, str],
                      question: str | None) -> Extraction[str]:
    """Rules 3-8, for a response without an answer clause."""
    written = [key for key in options.values() if text.strip() == str(choices.get(key, "")).strip()] \
        if isinstance(choices, Mapping) else []
    if len(written) == 1:  # one option's own text as written, though it opens like a lead ("A:B = 2:1")
        return extraction(written[0], PARSE_LENIENT)
    placed = _placed_letter(text, choices, options, question)
    if placed is not None:
        return placed
    texts = option_texts(choices, options)
    if yes_and_no(texts):
        return yesno_option(text, texts, options, question)  # rule 8, not by their words
    norm = None
    if texts and len(text) <= 200:
        norm = normalize_text(text)
        exact = [letter for letter, t in texts.items() if t == norm]
        if len(exact) == 1 and not text.rstrip().endswith("?"):  # ("Dog?" asks it)
            return extraction(options[exact[0]], PARSE_LENIENT)
    raw_texts = [str(choices.get(key, "")) for key in options.values()] if texts else []
    prose = upper_cased_letters(text, options, raw_texts, texts)  # "is (b)." names B
    dropped: set[str] = set()
    strong = prose_letters(prose, options, echoed_option_spans(prose, raw_texts),
                           lambda: letter_uses(prose, raw_texts), dropped)
    if len(strong) > 1:  # several letters: the one the concluding sentence names, if one
        strong = concluding_letters(prose, options, raw_texts)
    if strong:
        return extraction(options[strong.pop()], PARSE_LENIENT) if len(strong) == 1 else FAILED
    found = by_texts(text, choices, options, texts, norm, question) if texts else FAILED
    if found.value is None and texts and (part := fragment_option(text, choices, options)):
        found = extraction(options[part], PARSE_LENIENT)  # "请求二审法院驳回上诉，维持原判。": D's last clauses
    if found.value is not None and any(options[letter] == found.value and not rules_out(
            str(choices.get(found.value, ""))) for letter in dropped):
        return FAILED  # "18, which does not match option C": C ruled out, not its text "18"
    return found  # (an option that itself negates, "(B) can't tell", is its own text)


def extract_choice(response: str, choices: Mapping[str, str],
                   question: str | None = None) -> str | None:
    """The option letter a response chose (the key as given in `choices`), or None.

    Empty `choices` means "any letter A-J" (no option-text matching). `question`, the prompt
    as asked, tells what the response writes again of it: the instruction echoed (its letters
    are no answer, `prompt_echo`), the stem restated (`option_texts`), and the yes/no asked of
    options that are Yes and No (rule 8).

    >>> extract_choice("The answer is clearly B, not A.", {"A": "cat", "B": "dog"})
    'B'
    >>> extract_choice("Answer: D", {"A": "1", "B": "2", "C": "3", "D": "4"})
    'D'
    >>> extract_choice("I think it is definitely the dog.", {"A": "cat", "B": "dog"})
    'B'
    """
    return extract_choice_detailed(response, choices, question).value
