"""An answer clause that a closing answer block or a closest-option offer overrules (rule 2
of `bench_kit.scoring.extract.answers`: "【答案】: 无正确答案" after "选项D, …", "None of the
options match. The closest answer is C."; docs/METRICS.md#extraction)."""

from __future__ import annotations

import re
from collections.abc import Mapping

from bench_kit.scoring.extract.choice_clause import clause_letter
from bench_kit.scoring.extract.no_option_statements import closest_guess, says_no_option
from bench_kit.scoring.extract.option_statements import final_answer_tail
from bench_kit.scoring.extract.option_texts import echoes_options

# A closing answer block that is only "none": "【答案】: 无", "Answer: None."
_BARE_NONE = re.compile(r"(?:无|没有|none)\s*[.。]?", re.I)
_NONE_WORD = re.compile(r"无|没有|\bnone\b", re.I)  # ... in an option: that option answers it
# An answer block's tail that opens with a letter of its own: "C. …", "B (…", "(D), …"
_LEAD_LETTER = re.compile(r"[(\[]?[A-J](?:[)\].,:]|\s*[(,]|\s*$)")


def overruled(text: str, choices: Mapping[str, str], options: dict[str, str]) -> bool:
    """Whether the answer clause of `text` is no answer after all: a closing answer block
    says no option is right, is only "none" or echoes the options ("【答案】: 无正确答案"
    after "选项D, …", "【答案】: 无", "【答案】A. ①② B. ①③ …"), or the clause offers the option closest to an answer said not
    to be among them, with no answer clause of its own before or after ("None of the
    options match. The closest answer is C.")."""
    tail = final_answer_tail(text)
    if tail is not None and _BARE_NONE.fullmatch(tail) and not any(
            _NONE_WORD.search(str(choices.get(key, ""))) for key in options.values()):
        return True  # "【答案】: 无" after "答案为A、B、C、D都不正确" (not with an option "None of these")
    if tail is not None and len(tail) > 3 and (
            says_no_option(tail) and clause_letter(tail) is None
            and not _LEAD_LETTER.match(tail)  # "C. The exact value is not listed"
            or echoes_options(tail, choices, options)):
        return True
    guess = closest_guess(text)
    return guess is not None and clause_letter(text[:guess[0]]) is None \
        and clause_letter(text[guess[1]:]) is None
