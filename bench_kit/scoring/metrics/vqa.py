"""VQA accuracy as VLMEvalKit computes it (`vlmeval/dataset/utils/vqa_eval.py`,
`process_line` with `vqa_score`), itself adapted from the official VQA evaluation
(GT-Vision-Lab `vqaEval.py`); docs/SCORING.md §5 walks through the rules with examples and
docs/METRICS.md#reference-differences lists every difference from both.

1. The prediction and **each annotator answer** are normalised the same way: newlines and
   tabs to spaces, stripped, then *punctuation processing* and *digit/article processing*
   (below). The official script normalises the annotator answers with punctuation
   processing only, and only when they are not all identical (VQAv2's answers were
   normalised when they were collected); golds written anywhere else ("the dog", "Two",
   "zero") need the full normalisation, which is what VLMEvalKit does.
2. Score: for each annotator, the other annotators' answers equal to the prediction, m;
   acc = min(1, m / 3); the item's score is the mean over the annotators (the ten
   9-of-10 subsets for VQAv2's ten answers). With fewer than ten golds the same formula
   runs over the golds there are (three golds that all match score 2/3: each has two
   others). With a single gold both references always score 0 (it has no "others"); we
   score a single gold 1/0 instead.

Punctuation processing: each of ``; / [ ] " { } ( ) = + \\ _ - > < @ ` , ? !`` is deleted
when it touches a space somewhere in the text (``p + " "`` or ``" " + p`` occurs) or the
text holds a digit-comma-digit; otherwise replaced by a space. Apostrophes are kept, so
``man's`` stays ``man's`` (it does not meet ``mans``). Then periods not followed by a
digit are removed (at most 32: both references pass ``re.UNICODE`` as the count) — as the
official script does, so "2." reads "2"; VLMEvalKit also keeps a period that follows a
digit ("2." stays "2.", and misses "2").

Digit/article processing: lower-case, split on whitespace, number words ``none zero one
… ten`` to digits, articles ``a an the`` dropped, then the official contraction table
(``dont`` -> ``don't``, ``whats`` -> ``what's`` …; keys written with a capital, such as
``Im``, never match lower-cased text, as in both references).
"""

from __future__ import annotations

import re
from typing import Sequence

_PUNCT = (";", "/", "[", "]", '"', "{", "}", "(", ")", "=", "+", "\\", "_", "-", ">", "<",
          "@", "`", ",", "?", "!")
_COMMA_DIGITS = re.compile(r"(\d)(,)(\d)")
_PERIOD = re.compile(r"\.(?!\d)")
_NUMBER_WORDS = {"none": "0", "zero": "0", "one": "1", "two": "2", "three": "3", "four": "4",
                 "five": "5", "six": "6", "seven": "7", "eight": "8", "nine": "9", "ten": "10"}
_ARTICLES = frozenset({"a", "an", "the"})
# The published contraction table, as (written, official) pairs; lower-case keys only,
# because keys with a capital never match the lower-cased words.
_CONTRACTIONS = dict(pair.split("=") for pair in (
    "aint=ain't arent=aren't cant=can't couldve=could've couldnt=couldn't "
    "couldn'tve=couldn't've couldnt've=couldn't've didnt=didn't doesnt=doesn't dont=don't "
    "hadnt=hadn't hadnt've=hadn't've hadn'tve=hadn't've hasnt=hasn't havent=haven't "
    "hed=he'd hed've=he'd've he'dve=he'd've hes=he's howd=how'd howll=how'll hows=how's "
    "isnt=isn't itd=it'd itd've=it'd've it'dve=it'd've itll=it'll let's=let's maam=ma'am "
    "mightnt=mightn't mightnt've=mightn't've mightn'tve=mightn't've mightve=might've "
    "mustnt=mustn't mustve=must've neednt=needn't notve=not've oclock=o'clock "
    "oughtnt=oughtn't ow's'at='ow's'at 'ows'at='ow's'at 'ow'sat='ow's'at shant=shan't "
    "shed've=she'd've she'dve=she'd've she's=she's shouldve=should've shouldnt=shouldn't "
    "shouldnt've=shouldn't've shouldn'tve=shouldn't've somebody'd=somebodyd "
    "somebodyd've=somebody'd've somebody'dve=somebody'd've somebodyll=somebody'll "
    "somebodys=somebody's someoned=someone'd someoned've=someone'd've "
    "someone'dve=someone'd've someonell=someone'll someones=someone's "
    "somethingd=something'd somethingd've=something'd've something'dve=something'd've "
    "somethingll=something'll thats=that's thered=there'd thered've=there'd've "
    "there'dve=there'd've therere=there're theres=there's theyd=they'd theyd've=they'd've "
    "they'dve=they'd've theyll=they'll theyre=they're theyve=they've twas='twas "
    "wasnt=wasn't wed've=we'd've we'dve=we'd've weve=we've werent=weren't whatll=what'll "
    "whatre=what're whats=what's whatve=what've whens=when's whered=where'd wheres=where's "
    "whereve=where've whod=who'd whod've=who'd've who'dve=who'd've wholl=who'll whos=who's "
    "whove=who've whyll=why'll whyre=why're whys=why's wont=won't wouldve=would've "
    "wouldnt=wouldn't wouldnt've=wouldn't've wouldn'tve=wouldn't've yall=y'all "
    "yall'll=y'all'll y'allll=y'all'll yall'd've=y'all'd've y'alld've=y'all'd've "
    "y'all'dve=y'all'd've youd=you'd youd've=you'd've you'dve=you'd've youll=you'll "
    "youre=you're youve=you've").split())


def process_punctuation(text: str) -> str:
    """The official punctuation step (see the module docstring).

    >>> process_punctuation("yes!"), process_punctuation("red,white"), process_punctuation("1,000")
    ('yes ', 'red white', '1000')
    """
    out = text
    digit_comma = _COMMA_DIGITS.search(text) is not None
    for mark in _PUNCT:
        if mark not in out:
            continue
        if mark + " " in text or " " + mark in text or digit_comma:
            out = out.replace(mark, "")
        else:
            out = out.replace(mark, " ")
    return _PERIOD.sub("", out, 32)


def process_digit_article(text: str) -> str:
    """The official digit/article/contraction step.

    >>> process_digit_article("Two Dogs"), process_digit_article("the dont")
    ('2 dogs', "don't")
    """
    words = [_NUMBER_WORDS.get(word, word) for word in text.lower().split()]
    return " ".join(_CONTRACTIONS.get(word, word) for word in words if word not in _ARTICLES)


def vqa_normalize(answer: str) -> str:
    """A prediction as the official script compares it.

    >>> vqa_normalize("Two dogs, running!"), vqa_normalize("1,000"), vqa_normalize("man's")
    ('2 dogs running', '1000', "man's")
    """
    text = str(answer).replace("\n", " ").replace("\t", " ").strip()
    return process_digit_article(process_punctuation(text))


def vqa_accuracy(pred: str, golds: Sequence[str]) -> float:
    """VQA accuracy of one prediction against the raw annotator answers (repeats included),
    each gold normalised like the prediction: the mean over annotators of
    min(1, matches among the others / 3).

    >>> vqa_accuracy("cat", ["cat"] * 2 + ["dog"] * 8)
    0.6
    >>> vqa_accuracy("the dog", ["the dog"] * 6 + ["cat"] * 4), vqa_accuracy("two", ["Two", "2 dogs", "2"])
    (1.0, 0.444444444444)
    """
    n = len(golds)
    if n == 0:
        return 0.0
    p = vqa_normalize(pred)
    same = sum(1 for gold in golds if vqa_normalize(gold) == p)
    if n == 1:
        return float(same)
    total = same * min(1.0, (same - 1) / 3) + (n - same) * min(1.0, same / 3)
    return round(total / n, 12)
