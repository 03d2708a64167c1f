"""How a letter named in prose is judged (rule 6 of `bench_kit.scoring.extract.answers`):
whether a capital A or I is a word, whether the rest of its segment rules it out or
affirms it, which letters are echoed inside option texts, which name things ("Machine A …
Machine B"), stand in formulas ("A = P(1 + r)") or are units ("0.01 A"), and which lower-case
letters in brackets ("is (b).") name options."""

from __future__ import annotations

import bisect
import math
import re
from collections.abc import Mapping

from bench_kit.scoring.extract.concluding import CONCLUDES_CJK
from bench_kit.scoring.extract.letter_names import (
    LetterUses,
    letters_as_options,
    names_thing,
)
from bench_kit.scoring.extract.question_replies import PLAIN_NO_AFTER, YES_AFTER
from bench_kit.scoring.extract.response import normalize_text

# What the rest of a segment says about the option just named.
_NEGATIVE = re.compile(
    r"\bnot\b|n't\b|\bunlikely|\bincorrect|\bwrong|\bfalse\b|\bimpossible|\beliminat"
    r"|\brul(?:e|ed|es)\s+out|\btoo\s+(?:high|low|small|large|big|many|few|long|short)"
    r"|\bcannot\b|\bno\s+(?:match|sense)|\bexclude|不对|错误|不正确|排除|不符合|不是", re.I)
# A literal every _NEGATIVE match contains (lower-cased ASCII): found in one fast scan.
_NEGATIVE_HINT = re.compile("no|n't|unlikely|incorrect|wrong|false|impossible|eliminat|rul"
                            "|too|exclude")


def rules_out(text: str) -> bool:
    """Whether `text` rules something out (`_NEGATIVE`); the hint scan skips the slow
    case-insensitive regex on most text (non-ASCII text always takes the regex)."""
    if text.isascii() and _NEGATIVE_HINT.search(text.lower()) is None:
        return False
    return _NEGATIVE.search(text) is not None


_POSITIVE = re.compile(  # (not a partial verdict: "A is correct in stating …", "… only if …")
    r"\bcorrect\b(?!\s+(?:in\s+(?:stating|saying)|about|for\s+part|only\s+(?:if|when)))|\bright\b|\bmatch(?:es)?\b|\bconsistent\b|\bbest\b|\btrue\b"
    r"|\bmost\s+likely|\bfits?\b|\baccurate|\bcorrect\s+answer|正确|符合|对的", re.I)
_LINK = re.compile(r"\s*+[)\]]?\s*+,?\s*+(?:or|and|/|或者?|和|还是)\s*+(?:option\s*+|choice\s*+)?[(\[]?\s*+",
                   re.I)
# "A, B, and C are wrong": a comma between letters, before the last link of a list.
_COMMA = re.compile(r"\s*+[)\]]?\s*+[,、]\s*+(?:option\s*+|choice\s*+)?[(\[]?\s*+", re.I)
# ... and shares the verdict when a plural verb follows the list ("Options B, D are incorrect")
_PLURAL_VERB = re.compile(r"\s*+[)\]]?\s*+(?:are|were)\b", re.I)
# "not A or C", "neither A nor B": a letter joined by "or" to a negated one is negated too.
_OR_LINK = re.compile(r"\s*+[)\]]?\s*+,?\s*+(?:or|nor|或)\s*+(?:option\s*+|choice\s*+)?[(\[]?\s*+", re.I)
# "Between A and B, B is better": the two letters set up a comparison; neither is chosen.
_COMPARED_BEFORE = re.compile(
    r"\bbetween\s+(?:options?\s*|choices?\s*)?[(\[]?\s*(?:(?-i:[A-J])\s*[)\]]?\s*(?:and|&|or)\s*"
    r"(?:option\s*|choice\s*)?[(\[]?\s*)?$", re.I)
SEGMENT_END = re.compile(r"\n|[.!?;](?:\s|$)|[。！？；]")
# A capital that is a word; not a geometry or formula label ("∠C", "△ABC", "C/2", "A=3"),
# nor the A of a clock time's "A.M.". (The letter first, then the look-back over it: the
# engine skips to capitals A-J.)
_LETTER = re.compile(r"[A-J](?<![A-Za-z0-9_∠△▲⊙∥⊥√$\\][A-J])(?![A-Za-z0-9_'^=²]|/\d|-[A-Za-z]|\.M\.)")
_NEGATED_BEFORE = re.compile(
    r"(?:\bnot|n't|\bnever|\bneither|\bnor|\brather\s+than|\binstead\s+of|\bexcept|\bexcluding|\bbesides|\bunlike"
    r"|不是|不选|而非|排除|非|不能确定|无法确定|不确定)\s*+(?:option\s*+|choice\s*+|选项\s*+)?[(\[]?\s*+$", re.I)
_REJECTED_AFTER = re.compile(
    r"\s*+[)\]]?\s*+[.:,-]?\s*+(?:is|are|was|seems|would\s+be)?\s*+"
    # (not a double negation: "B is not wrong")
    r"(?:(?:not\b(?!\s*(?:option\s*)?[(\[]?(?-i:[A-J])(?![A-Za-z]))|n't)(?!\s*(?:wrong|incorrect|false)\b)"
    r"|wrong|incorrect|false"
    r"|invalid|unlikely|eliminated|ruled\s+out"
    r"|错|不对|不正确|排除)", re.I)
# "B正确", "B选项是正确的", "C才是符合题意的": a Chinese verdict right after the letter
# (not "B不正确").
_AFFIRMED_AFTER = re.compile(r"\s*+[)\]]?\s*+(?:选项|项)?\s*+(?:是|为|也是|才是)?\s*+(?:正确|对的|符合题意)")
# "A cat is …" / "I think …": A or I followed by an ordinary lowercase word.
_ARTICLE_AFTER = re.compile(
    r"\s+(?!(?:is|was|would|seems|because|since|as|and|or|but|should|must|can|could|might|"
    r"will|appears|looks|fits|matches|describes|shows|corresponds|remains|has|best)\b)[a-z]")


# "I can't …", "I think …": the pronoun, unless a copula follows ("I is correct").
_PRONOUN_AFTER = re.compile(
    r"\s+(?!(?:is|was|seems|appears|would\s+be|fits|matches|describes|corresponds|remains"
    r"|because|since|and|or|but)\b)[a-z]")


def is_article_or_pronoun(text: str, letter: str, end: int) -> bool:
    """Whether the capital A or I ending at `end` is the article or pronoun, not a letter."""
    if letter == "I":
        return _PRONOUN_AFTER.match(text, end) is not None
    return letter == "A" and _ARTICLE_AFTER.match(text, end) is not None


_LISTED_NEXT = re.compile(r"\s*[.:,)]\s*\S")  # "A. text" heading a line of a list
# "选项D也是错误的", "选项B不正确": an option named to be ruled out, not chosen.
_ZH_RULED_OUT = re.compile(r"\s*+[)\]]?\s*+(?:也|则|就|同样|亦|全都|都|均|皆|全)?\s*+(?:是|为)?\s*+"
                           r"(?:错误|不正确|不对|错|不符合|不合题意|排除|不选)")
# ... and several ruled out together: "选项A、C、D都不正确", "选项A,C,D中的说法都不正确"
_ZH_LIST_RULED_OUT = re.compile(r"(?:\s*+[,、和与及]\s*+[A-J])+\s*+(?:中的|的)?\s*+(?:说法|表述|选项|项)?"
                                + _ZH_RULED_OUT.pattern)


def named_not_chosen(match: re.Match) -> bool:
    """Whether a "选项X" clause match names its option without choosing it: ruled out
    right after ("选项D也是错误的", with others: "选项A、C、D都不正确"), or heading a list of the options ("我们来看选项：\nA. …")."""
    text, end = match.string, match.end()
    return _ZH_RULED_OUT.match(text, end) is not None or _ZH_LIST_RULED_OUT.match(text, end) is not None or (
        "\n" in match.group(0) and _LISTED_NEXT.match(text, end) is not None)


def echoed_option_spans(text: str, raw_texts: list[str]) -> list[tuple[int, int]]:
    """Where option texts that contain a capital letter ("Vitamin C") are echoed."""
    spans = []
    lowered = None
    for raw in raw_texts:  # (islower: no capital letter at all; a letter option is no echo)
        if not raw.islower() and _LETTER.search(raw) and len(raw.strip("()[] ")) > 1:
            lowered = lowered if lowered is not None else text.lower()
            needle, start = raw.lower(), 0
            while (start := lowered.find(needle, start)) >= 0:
                spans.append((start, start + len(needle)))
                start += len(needle)
    return _merged(spans)


def _merged(spans: list[tuple[int, int]]) -> list[tuple[int, int]]:
    """Sorted, overlapping spans joined (so each position is in at most one)."""
    out: list[tuple[int, int]] = []
    for a, b in sorted(spans):
        if out and a <= out[-1][1]:
            out[-1] = (out[-1][0], max(out[-1][1], b))
        else:
            out.append((a, b))
    return out


def _inside(spans: list[tuple[int, int]], at: int) -> bool:
    """Whether `at` falls in one of `spans` (sorted, disjoint): a binary search, so a long
    response that echoes option texts thousands of times stays linear."""
    index = bisect.bisect_right(spans, (at, math.inf)) - 1
    return index >= 0 and spans[index][0] <= at < spans[index][1]


# A lower-case letter alone in brackets, as a word ("is (b).", "(e) $78.20"; not "f(c)", "f (c)"
# nor "(i)", a numeral): the way few-shot prompts that list options "(a) … (e)" name them.
_LOWER_BRACKETED = re.compile(r"(?<![\w)\]])(?<!\b\w )\(([a-h j])\)(?![\w(=^])")
# ... where it ends a sentence or clause, not after a word that names a part or a panel ("in
# (b)", "part (a)", "figure (c)")
_CLAUSE_END = frozenset(".,;:!?\n")
_PART_BEFORE = re.compile(r"\b(?:in|of|part|parts|panel|panels|figure|fig\.?|image|images|picture|subfigure"
                          r"|graph|plot|diagram|step|case|and|or)\s*$", re.I)


def upper_cased_letters(text: str, options: dict[str, str], raw_texts: list[str],
                        texts: Mapping[str, str]) -> str:
    """`text` with each option letter written in lower case alone in brackets
    (`_LOWER_BRACKETED`: "(b)") upper-cased ("(B)"), so the prose rules read it, when its
    option's own text follows it ("(b) 10.5", `texts`: letter -> normalised text) or it ends a
    sentence or clause ("is (b).", not "in (b)."); `text` itself when there is none, when one
    opens a line ("(a) The heat … (b) The force …" label parts of the answer), or when an
    option is itself a letter ("(a)")."""
    if "(" not in text or not _LOWER_BRACKETED.search(text) or letters_as_options(raw_texts):
        return text
    found = list(_LOWER_BRACKETED.finditer(text))
    if any(_opens_line(text, match.start()) for match in found):
        return text  # "(a) The heat of formation … (b) The force …": parts of the answer
    parts, at = [], 0
    for match in found:
        letter = match.group(1).upper()
        if letter in options and _names_option(text, match, texts.get(letter)):
            parts += [text[at:match.start(1)], letter]
            at = match.end(1)
    return "".join(parts) + text[at:]


def _names_option(text: str, match: re.Match, own: str | None) -> bool:
    """Whether the lower-case letter of `match` names its option: its own text follows, or
    it ends a sentence or clause and no word naming a part comes before it."""
    if own_text_follows(text, match.end(), own):
        return True
    after = text[match.end():match.end() + 1]
    return (not after or after in _CLAUSE_END) \
        and _PART_BEFORE.search(text, max(0, match.start() - 12), match.start()) is None


def _opens_line(text: str, at: int) -> bool:
    """Whether only spaces stand between `at` and the start of its line (a part's label,
    "(a) The heat of formation …", heads a line)."""
    newline = text.rfind("\n", max(0, at - 200), at)
    if newline < 0 and at >= 200:
        return False  # (no line break in the 200 characters before it: inside a line)
    return not text[newline + 1:at].strip()


def _bracketed(text: str, start: int, end: int) -> bool:
    """Whether the letter at `text[start:end]` stands alone in brackets ("(A)", "[B]")."""
    return start > 0 and text[start - 1] in "([" and text[end:end + 1] in ")]"


def _unit(text: str, start: int) -> bool:
    """Whether the letter at `start` is a unit, right after a number ("0.01 A", "1.6 C"): only
    the letters among A-J that are SI units (ampere, coulomb, farad, henry, joule), not "2 B"."""
    return start > 1 and text[start] in "ACFHJ" and text[start - 1] == " " and text[start - 2].isdigit()


# A letter alone after "so" / "thus" / "therefore" / "hence" / "所以" / "故" that closes the
# response ("D * 2 = 80 so D."): the answer, though the working wrote it as a symbol.
_CONCLUDING = re.compile(rf"(?:\b(?:so|thus|therefore|hence),?\s+|{CONCLUDES_CJK})\s*$", re.I)
_CLOSING = re.compile(r"[A-J][.。!]?\s*")


def _concludes(text: str, start: int) -> bool:
    """Whether the letter at `start` closes the response after "so" / "所以" (`_CONCLUDING`)."""
    return _CLOSING.fullmatch(text, start) is not None \
        and _CONCLUDING.search(text, max(0, start - 12), start) is not None


# "C 项中的 …", "C选项中的问题": a letter named as where something is, in Chinese
_IN_OPTION = re.compile(r"\s*(?:选项|项)\s*中")


def _only_located(text: str, end: int) -> bool:
    """Whether the letter ending at `end` only says where something is ("C 项中的 “天子之作为”
    显示出作者的文学才华", "C 选项中的问题最大"): "X项中" with no verdict that affirms in the
    rest of its sentence ("C选项中的说法正确" is a verdict)."""
    if not _IN_OPTION.match(text, end):
        return False
    reach = min(len(text), end + 200)  # (bounded: "A项中A项中…" without a sentence end stays linear)
    stop = SEGMENT_END.search(text, end, reach)
    if stop is None and reach < len(text):
        return False  # a long sentence: it may give its verdict later ("A项中，…，这个数字是正确的")
    return _POSITIVE.search(text, end, stop.start() if stop else reach) is None


def _named_letters(text: str, options: dict[str, str], spans: list[tuple[int, int]],
                   uses: LetterUses) -> list[tuple[str, int, int]]:
    """(letter, start, end) of each option letter the prose names, in order; end -1: ruled
    out right there ("not A", "not A or C"), -2: by a verdict right after ("C is wrong")."""
    named: list[tuple[str, int, int]] = []
    negated_end = -1  # where the last letter ruled out right there ends
    found: tuple[frozenset[str], frozenset[str]] | None = None  # (`uses`, at the first letter needing it)
    for match in _LETTER.finditer(text):
        letter, start, end = match.group(), match.start(), match.end()
        if letter not in options or _inside(spans, start):
            continue
        if not _bracketed(text, start, end):  # (in brackets, "The answer (A) is …", an option's)
            found = uses() if found is None else found
            if (letter in found[1] and not _concludes(text, start)
                    or names_thing(text, start, found[0]) or _unit(text, start)):
                continue  # a symbol ("A = P(1 + r)", not "… so D." closing), a thing's name ("Machine B"), a unit
        if _NEGATED_BEFORE.search(text, max(0, start - 24), start) or (
                negated_end >= 0 and _OR_LINK.fullmatch(text, negated_end, start)):
            named.append((letter, start, -1))  # ruled out right here ("not A", "not A or C")
            negated_end = end
            continue
        if _COMPARED_BEFORE.search(text, max(0, start - 40), start) or _only_located(text, end):
            continue  # "between A and B, …"; "C 项中的 … 显示出 …" (no verdict on C)
        if _REJECTED_AFTER.match(text, end):  # "C is wrong"; "A and C are wrong": both
            named.append((letter, start, -2))
            continue
        if not is_article_or_pronoun(text, letter, end):
            named.append((letter, start, end))
    return named


# A verdict right before a letter, whose object the letter is ("…, which matches option C", "this
# fits (B)"; not "does not match C"): it affirms that letter, and is no part of the segment of the
# letter before it ("Option A is correct in stating …, but …, which matches option C." is C).
_POINTS_TO = re.compile(r"(?<!\bnot\s)(?<!n't\s)(?<!\bnever\s)\b(?:match(?:es)?|fits?|corresponds?\s+to"
                        r"|consistent\s+with)\s*(?:option\s*|choice\s*)?[(\[]?\s*$", re.I)
_NEGATABLE = re.compile(r"\b(?:match(?:es)?|fits?|corresponds?\s+to|consistent\s+with)"
                        r"\s*(?:option\s*|choice\s*)?[(\[]?\s*$", re.I)  # `_POINTS_TO`, any before it
_POINTS_REACH = 40  # how far before a letter such a verdict is looked for


# A negation before such a verdict, an adverb between them allowed ("does not exactly match",
# "doesn't quite match", "no longer matches", "fails to match", "cannot match", "hardly fits"),
# or "nor" before its subject ("… nor the color fits A").
_DENIES_VERDICT = re.compile(r"(?:\b(?:not|never|cannot|hardly|barely|scarcely|no\s+longer"
                             r"|fail(?:s|ed)?\s+to|unable\s+to)|n't)\s+(?:\w+\s+)?$"
                             # "Neither the shape nor the color fits A": its subject between
                             r"|\bnor\s+(?:\w+\s+){0,3}$", re.I)


def _pointed_at(text: str, start: int) -> re.Match | None:
    """The verdict right before the letter at `start` whose object it is (`_POINTS_TO`),
    or None; a denied one is none (`_denied_at`)."""
    found = _POINTS_TO.search(text, max(0, start - _POINTS_REACH), start)
    if found is None or _DENIES_VERDICT.search(text, max(0, found.start() - 30), found.start()):
        return None
    return found


def _denied_at(text: str, start: int) -> bool:
    """Whether a denied verdict is right before the letter at `start` ("…, which does not
    exactly match option C"): the letter is ruled out."""
    found = _NEGATABLE.search(text, max(0, start - _POINTS_REACH), start)
    return found is not None and \
        _DENIES_VERDICT.search(text, max(0, found.start() - 30), found.start()) is not None


def _own_segment(text: str, named: list[tuple[str, int, int]], index: int,
                 end: int) -> tuple[str, re.Match | None]:
    """The segment of the letter `named[index]` (ending at `end`): up to the next letter or
    the sentence end (that match, or None), without a negation or a verdict the next letter
    owns ("B, not A": the "not" is A's; "…, which matches option C": C's)."""
    following = named[index + 1] if index + 1 < len(named) else None
    stop = following[1] if following else len(text)
    sentence = SEGMENT_END.search(text, end, stop)
    segment = text[end:sentence.start() if sentence else stop]
    if following is not None and following[2] < 0:
        negation = _NEGATED_BEFORE.search(segment)  # "B, not A": the "not" is A's
        return (segment[:negation.start()] if negation else segment), sentence
    if following is not None and sentence is None:
        points = _pointed_at(text, stop)
        if points is not None and points.start() >= end:
            return text[end:points.start()], sentence
    return segment, sentence


def prose_letters(text: str, options: dict[str, str], spans: list[tuple[int, int]],
                  uses: LetterUses = lambda: (frozenset(), frozenset()),
                  dropped: set[str] | None = None) -> set[str]:
    """The option letters the prose chooses: letters that are not negated, echoed in an
    option text or an article/pronoun. A letter whose own segment (up to the next letter
    or sentence end) rules it out ("C: 45% - this seems unlikely") is dropped (and added to
    `dropped`, when given, if a word at the letter rules it out: "not A", "C is wrong", "does
    not match option C"); when some segments affirm their letter ("B fits best"), only those
    letters count."""
    named = _named_letters(text, options, spans, uses)
    if not named:
        return set()
    named = _set_aside_as_others(text, named)
    affirmed: set[str] = set()
    neutral: set[str] = set()
    ruled_out: set[str] = set()
    linked: list[str] = []  # "C or D could be right": letters sharing the next verdict
    listed: list[str] = []  # "A, B, and C are wrong": A shares a ruling out of "B and C"
    strictly: set[str] = set()  # ruled out by a word at the letter: "not A", "C is wrong", "does not match C"
    for index, (letter, start, end) in enumerate(named):
        if end < 0:
            ruled_out.add(letter)
            strictly.add(letter)
            if end == -2:  # a verdict after the last of linked letters is theirs too
                (ruled_out if linked else neutral).update(linked + listed)
                linked = []
            else:
                neutral.update(listed)
            listed = []
            continue
        segment, sentence = _own_segment(text, named, index, end)
        if sentence is None and index + 1 < len(named) and _LINK.fullmatch(segment):
            linked.append(letter)
            continue
        if sentence is None and index + 1 < len(named) and not linked and _COMMA.fullmatch(segment):
            listed.append(letter)
            continue
        group, shared = linked + [letter], False
        plural = bool(listed) and _PLURAL_VERB.match(segment) is not None  # "B, D are incorrect"
        mark = sentence.start() if sentence is not None else -1
        asked = mark >= 0 and text.startswith("?", mark)
        # (each read once: a verdict in an asked segment, one denied right before the letter)
        positive = asked and _POSITIVE.search(segment) is not None
        denied = _denied_at(text, start)
        if positive and YES_AFTER.match(text, mark):
            affirmed.update(group)  # "C matches? Yes."
        elif positive and PLAIN_NO_AFTER.match(text, mark):
            ruled_out.update(group)  # "B matches? No."
        elif _AFFIRMED_AFTER.match(text, end):  # "B正确，其他选项都不正确": B's own verdict first
            affirmed.update(group)
        elif rules_out(segment) or denied:
            ruled_out.update(group)
            if denied:
                strictly.add(letter)
            # the list "A, B, and C" / "B, D are" shares it; "B, C is wrong" does not
            shared = bool(linked) or plural
        elif not asked and (_POSITIVE.search(segment) or _pointed_at(text, start)):
            # (not a question: "Choice A is correct? Let's check: …")
            affirmed.update(group + listed if plural else group)  # "A, C are both correct": both
        else:
            neutral.update(group)
        (ruled_out if shared else neutral).update(listed)
        linked, listed = [], []
    neutral.update(linked + listed)
    if dropped is not None:
        dropped.update(strictly - affirmed - neutral)
    if affirmed:
        return affirmed
    return neutral - ruled_out if ruled_out and len(neutral - ruled_out) == 1 else neutral


# "The only option … is (E).\n\nThe other options show the object from a different angle.
# Option (A) shows …, option (B) …": two or more letters walked through in the paragraph after
# "the other options" are the ones set aside, when a blank line parts that paragraph from a
# letter named before or after it (the answer's own paragraph). Not with the answer in the same
# paragraph ("The other options A and B are clearly wrong, so C."), nor one letter after it
# ("The other options do not fit. B is best.").
_OTHER_OPTIONS = re.compile(r"\bthe\s+other\s+(?:options?|choices?|answers?)\b", re.I)


def _set_aside_as_others(text: str, named: list[tuple[str, int, int]]) -> list[tuple[str, int, int]]:
    """`named` with the letters ruled out (end -1) that follow "the other options" in its
    paragraph (no blank line between), when they are two or more different letters and a
    letter is named in another paragraph. Linear: the blank lines are found once."""
    if not named or "other" not in text or "\n" not in text:
        return named
    others = [match.start() for match in _OTHER_OPTIONS.finditer(text)]
    if not others:
        return named
    breaks = [match.start() for match in _BLANK_LINE.finditer(text)]
    first = min(start for _letter, start, _end in named)
    last = max(start for _letter, start, _end in named)
    ends, open_ = [], []  # per statement: where its paragraph ends; whether a letter is outside it
    for at in others:
        index = bisect.bisect_left(breaks, at)
        ends.append(breaks[index] if index < len(breaks) else len(text))
        open_.append(index > 0 and first < breaks[index - 1] or last > ends[-1])
    after: dict[int, set[str]] = {}  # the others' statement -> the letters walked through after it
    owner = []
    for letter, start, _end in named:
        before = bisect.bisect_left(others, start) - 1
        if before >= 0 and open_[before] and start < ends[before]:
            after.setdefault(before, set()).add(letter)
            owner.append(before)
        else:
            owner.append(-1)
    return [(letter, start, -1 if index >= 0 and len(after[index]) > 1 else end)
            for (letter, start, end), index in zip(named, owner)]


_BLANK_LINE = re.compile(r"\n[ \t]*\n")


def own_text_follows(text: str, at: int, own: str | None) -> bool:
    """Whether the letter ending at `at` is followed, after a bracket, a comma or a colon, by
    its option's own text (`own`, normalised): "(e), I and III only", "(b) $50,000"."""
    if not own:
        return False
    said = normalize_text(text[at:at + len(own) + 8].lstrip(")] ,:"))
    return said == own or said.startswith(own + " ")
