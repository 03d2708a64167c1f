"""Questions asking whether something exists ("Is there a microwave?", "Are there any weird
traditions?") answered by a sentence saying it does or does not ("There is no microwave.",
"There are many …"); used by `bench_kit.scoring.extract.yesno`."""

from __future__ import annotations

import re

from bench_kit.scoring.extract.question_asked import asked
from bench_kit.scoring.extract.restatement import (
    DENIAL,
    HEDGED_STATE,
    SENTENCE,
    content_words,
    stem,
)

# "Are there any weird traditions?" -> "There are many …", "Here are some …": the opening
# sentence lists what the question asks about (half its words or more), so it exists.
_EXISTS_ASKED = re.compile(r"(?:^|[.?!]\s+)(?:is|are)\s+there\b([^.?!]*)\?\s*$", re.I)
_EXISTS_SAID = re.compile(r"\s*(?:there\s+(?:are|is|exist)|here\s+are)\s+(?:many|several|some"
                          r"|numerous|various|a\s+few|a\s+number\s+of|plenty|countless|lots)\b",
                          re.I)


# words of an existence question that name nothing asked for: "any" and the speakers ("… that
# can help me fall asleep?" is answered by "Here are some types of music that can help …")
_NOT_ASKED = frozenset("any i me my we us our you your".split())


def exists(text: str, question: str) -> bool:
    """Whether `text` opens by listing what an "Is there / Are there …?" `question` asks
    about ("There are many …", "Here are some …")."""
    existence = _EXISTS_ASKED.search(question)
    if existence is None or not _EXISTS_SAID.match(text):
        return False
    wanted = content_words(existence.group(1)) - _NOT_ASKED
    opening = SENTENCE.search(text)  # after any leading space, as `_EXISTS_SAID` reads it
    said = content_words(opening.group()) if opening else set()
    # "There are several trees, but no people." / "There are many cats. None is black."
    following = SENTENCE.search(text, opening.end()) if opening else None
    if DENIAL.search(text, 0, following.end() if following else len(text)):
        return False
    return bool(wanted) and 2 * len(wanted & said) >= len(wanted)


# "Is there a microwave?" -> "There is no microwave." / "There is a dog lying on the rug.": a
# sentence opening "there is (no)" with the one word the question asks about in the three after
_THERE_ASKED = re.compile(r"\s*(?:(?:is|are)\s+there|there\s+(?:is|are))\b", re.I)
# ("There is no doubt a dog", "There isn't just one dog", "There is not only a dog": no denial)
_THERE_SAID = re.compile(r"(?:^|(?<=[.!?\n]))[ \t*]*there\s+(?:is|are)((?:n't|n’t|\s+not?\b)(?!\s+(?:just|only"
                         r"|merely|simply|one|many|much|doubt|denying|mistaking|question)\b))?\s+"
                         r"((?:an?|any|one|two|three|several|some|many)\s+)?([a-z]+(?:[ \t]+[a-z]+){0,2})",
                         re.I)


# ("There is no dog except the one sleeping on the rug." denies nothing)
_SAVED = re.compile(r"[^.!?\n]{0,40}?\b(?:other\s+than|except|besides|apart\s+from)\s+(?:the|this|that|one)\b", re.I)


# ... and so does a sentence about the thing, opening "The X is / are …" with no negation,
# hedge, absence or unreality in it ("The cat is nowhere to be seen / missing / gone", "The ghost
# is a myth", "The dog is a stuffed toy")
_THE_SAID = re.compile(r"(?:^|(?<=[.!?\n]))[ \t*]*the\s+([a-z]+)\s+(?:is|are)\b(?![^.!?\n]*(?:\b(?:not|no|never"
                       r"|may|might|could|perhaps|possibly|maybe|probably|nowhere|missing|absent|gone|lost"
                       r"|unknown|myth|myths|legend|fictional|imaginary|fake|toy|toys|stuffed|extinct|hypothetical"
                       r"|unavailable|invisible|none|nonexistent|non-existent|only|just)\b(?!-)|n't\b|n’t\b))", re.I)


def there_is(text: str, question: str) -> str | None:
    """"yes"/"no" when `question` asks "Is there a X?" (X its one content word) and a
    sentence of `text` opens "There is (no / not a) …" with X in its next three words (not
    hedged: "There is probably a dog"); None otherwise."""
    asking = asked(question)
    wanted = content_words(asking)
    if len(wanted) != 1 or not _THERE_ASKED.match(asking):
        return None
    for found in _THERE_SAID.finditer(text):
        named = found.group(3)
        if wanted <= content_words(named) and not HEDGED_STATE.search(named) \
                and not (found.group(1) and _SAVED.match(text, found.start(3))):
            return "no" if found.group(1) else "yes"
    for found in _THE_SAID.finditer(text):  # "The sign is a no-entry sign." says there is one
        if {stem(found.group(1).lower())} == wanted:
            return "yes"
    for found in _THE_ABSENT.finditer(text):  # "The cat is nowhere to be seen." says there is none
        if {stem(found.group(1).lower())} == wanted:
            return "no"
    return None


# ... and "The X is / are nowhere to be seen / missing from … / absent / gone" says there is none
_THE_ABSENT = re.compile(r"(?:^|(?<=[.!?\n]))[ \t*]*the\s+([a-z]+)\s+(?:is|are)\s+(?:nowhere\b|missing\s+from\b"
                         r"|absent\b|gone\b(?!\s+(?:to|for|into|out|through|up|down|over|by)\b))", re.I)
