"""Options a multiple-choice response names only to set them aside (rules of
`bench_kit.scoring.extract.answers`): ruled out, named as "the other options", in an
explanation of the answer, or as a first impression it corrects (`not_ruled_out`,
`only_as_others`)."""

from __future__ import annotations

import re
from collections.abc import Iterator

from bench_kit.scoring.extract.prose_letters import rules_out
from bench_kit.text.normalize import normalize_for_match
from bench_kit.text.words import contains_phrase

# "The other options, such as …", "this contrasts with the other options listed": options
# set aside as the others.
_OTHERS = re.compile(r"\bthe\s+other\s+(?:options?|choices?|answers?)\b"
                     r"|\bother\s+(?:\w+\s+){0,4}\w+,?\s+(?:such\s+as|like|including)\b", re.I)
# (The look-ahead reads as `(?=\s*(?:[.!?\n;]|,?\s+(?:but|…)\b|,\s+(?:as|…)\b|$))`, written so it
# does not backtrack through a run of blanks, a condition blanked out by `by_option_text`:
# the blanks taken whole, then what the shorter takes could find inside them, a line break or
# "but" after them. Same matches; cubic in the run before, 10 ms on 60 blanks. The look-ahead
# reads the same at every blank of a run: the clause takes a run after its first character whole.)
_CLAUSE = re.compile(r"[^.!?\n;](?:[^.!?\n;\s]|[^\S\n]++)*?(?=\s*+(?:[.!?\n;]|,?\s+(?:but|however|although|though)\b"
                     r"|,\s+(?:as|because|since|compared\s+to)\b|$)|[^\S\n]*+\n"
                     r"|\s++(?:but|however|although|though)\b)", re.I)
# An explanation after the answer ("…is Rabbit, as it is prey for both Deer and Wolf"):
# what it names is not offered as the answer.
_EXPLAINS = re.compile(r"\s*,\s+(?:as|because|since|compared\s+to)\b", re.I)


def not_ruled_out(text: str, named: dict[str, str]) -> list[str]:
    """The letters of `named` (letter -> normalised option text, several options the
    response names) that some clause names without ruling them out: "… most likely a
    berry aneurysm rupture. Parkinson disease and glioblastoma are not typically
    associated …" keeps the first. A clause (a sentence, or its part before/after "but")
    rules out what it names when it negates (`rules_out`), sets the options aside as the
    others ("the other options, such as …") or explains the answer (", as it is prey for
    both …")."""
    kept: set[str] = set()
    for match, here in _naming_clauses(text, named):
        clause = match.group()
        if not (rules_out(clause) or _OTHERS.search(clause) or _EXPLAINS.match(clause)
                or _FIRST_IMPRESSION.search(clause) and _CORRECTED_AFTER.match(text, match.end())):
            kept.update(here)
    return sorted(kept)


# "At first glance it looks like a dog, …, but it is actually a cat": a first impression
# corrected later in its sentence is set aside.
_FIRST_IMPRESSION = re.compile(r"\b(?:at\s+first|initially|first\s+impression)\b", re.I)
_CORRECTED_AFTER = re.compile(r"[^.!?\n]{0,120}?\b(?:but|however)\b[^.!?\n]{0,80}?"
                              r"\b(?:actually|in\s+fact|really)\b", re.I)


def only_as_others(text: str, named: dict[str, str]) -> bool:
    """Whether every clause that names one of `named` sets it aside as one of the others
    ("The other options can be ruled out as there is no bow to suggest shooting an
    arrow"), and one does: named after the others' phrase, in its example ("such as …")
    or its reason ("as/since/because …"); not the clause's own subject ("Bird is correct
    while the other options are wrong", "Unlike the other options, a fish lives …")."""
    found = False
    for match, here in _naming_clauses(text, named):
        if not all(_set_aside(match.group(), named[letter]) for letter in here):
            return False
        found = True
    return found


_ASIDE = re.compile(r"\b(?:such\s+as|like|including|for\s+example|e\.g\.|as|since|because)\b", re.I)
_ASIDE_END = re.compile(r"(?:such\s+as|like|including)$", re.I)


def _set_aside(clause: str, text: str) -> bool:
    """Whether option `text` is named in `clause` after its "the other options" phrase,
    within that phrase's example or reason."""
    others = _OTHERS.search(clause)
    if others is None:
        return False
    rest = clause[others.end():]
    if _ASIDE_END.search(others.group()) is None:
        mark = _ASIDE.search(rest)
        if mark is None:
            return False
        rest = rest[mark.end():]
    return contains_phrase(normalize_for_match(rest), text)


_BLANKS = re.compile(r"[^\S\n]+")


def _clauses(text: str) -> Iterator[re.Match]:
    """`_CLAUSE.finditer(text)`, linear in a run of blanks after a clause: the look-ahead that
    ended the clause reads the same at each blank of the run, so each blank but the last is a
    clause of its own (matched once, not the run read again from each of them)."""
    at = 0
    while (match := _CLAUSE.search(text, at)) is not None:
        yield match
        at = match.end()
        blanks = _BLANKS.match(text, at)
        if blanks is not None:
            for start in range(at, blanks.end() - 1):
                yield _BLANKS.match(text, start, start + 1)  # type: ignore[misc]
            at = max(at, blanks.end() - 1)


def _naming_clauses(text: str, named: dict[str, str]) -> Iterator[tuple[re.Match, list[str]]]:
    """Each clause of `text` (`_CLAUSE`) that names options of `named`, with their letters."""
    for match in _clauses(text):
        clause = normalize_for_match(match.group())
        here = [letter for letter, t in named.items() if contains_phrase(clause, t)]
        if here:
            yield match, here
