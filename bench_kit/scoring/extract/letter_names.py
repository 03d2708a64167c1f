"""Capital letters in prose that are no option (`bench_kit.scoring.extract.prose_letters`):
letters that name things ("Machine A … Machine B") and letters written as symbols of a formula
("A = P(1 + r/n)") or whose value is spoken of ("B的值为负数")."""

from __future__ import annotations

import re
from collections.abc import Callable

# A word right before a capital letter ("Machine A", "vitamin E"). Written before two
# different letters it names things ("Machine A … Machine B"), unless it is a word for an
# option or a word of the grammar ("options A and B", "between A and B", "than C").
_NAMING = re.compile(r"\b([A-Za-z]{3,}) ([A-J])(?![A-Za-z0-9_'])")
_NOT_NAMING = frozenset(
    "option options choice choices answer answers letter letters statement statements image images "
    "picture pictures figure figures graph graphs plot plots diagram diagrams panel panels pattern "
    "patterns view views shape shapes solution solutions and nor but not than the from with where "
    "which since after before then only both either neither between choose chose select selected "
    "pick picked eliminate eliminates eliminating are was were being been can could did does get "
    "gets reach reaches likely also even just for into onto over under about against like see "
    "says said say that this these those its their our your photo photos frame frames clip clips chart "
    "charts table tables map maps drawing drawings sketch sketches alternative alternatives item items "
    "selection therefore thus hence because while whereas unlike except including among toward towards "
    "without through beside near versus "
    # words of weighing options: an adverb, a verb of thinking or trying, "candidate" ("Maybe A? …
    # Maybe B", "I think A … I think B", "Consider A: … Consider B: …", "Candidate A fails")
    "maybe perhaps probably possibly clearly obviously definitely certainly surely think believe "
    "guess consider considering regarding assume assuming suppose supposing choosing picking "
    "selecting check checking try trying candidate candidates "
    # verbs of a verdict ("… fits A; everything fits D")
    "fit fits fitting match matches matching suits".split())


# A capital letter written as a symbol of a formula ("A = P(1 + r/n)", "A + 10 = 44", "2 * D"):
# a quantity throughout the response, not an option ("where A is the final amount").
_SYMBOL = re.compile(r"(?<![A-Za-z0-9_(\[])([A-J])(?= ?[=+*/^×](?![=>]))"
                     r"|(?:(?<=[=+*/×])|(?<=[=+*/×] ))([A-J])(?![A-Za-z0-9_')\]])")


# ... or a letter whose value is spoken of ("B的值为负数时", "C的取值范围") or compared in words
# with a number ("C: 大于 1"): a quantity too
_VALUE_OF = re.compile(r"(?<![A-Za-z0-9_])([A-J])\s?(?:的(?:值|取值|数值|绝对值)"
                       r"|:?\s?(?:不)?(?:大于|小于|等于)\s?-?\d)")
# ... unless the letter also gets its own verdict: an option restated so ("A 大于 0，因此 A 正确")
_OWN_VERDICT = re.compile(r"(?<![A-Za-z0-9_])([A-J])\s?(?:选项|项)?\s?(?:是|为)?\s?(?:正确|错误|不正确|符合)")


# `letter_uses` of a text, computed when the first letter needs it (most texts name none).
LetterUses = Callable[[], tuple[frozenset[str], frozenset[str]]]


def letters_as_options(raw_texts: list[str]) -> bool:
    """Whether some option is itself a letter ("(A)", "B", "(a)": a pictured region)."""
    return any(len(bare := raw.strip("()[] ")) == 1 and bare.isalpha() for raw in raw_texts)


def letter_uses(text: str, raw_texts: list[str]) -> tuple[frozenset[str], frozenset[str]]:
    """(`name_words`, the capital letters written as symbols of a formula, `_SYMBOL`, or
    spoken of as values, `_VALUE_OF`) of `text`: letters that are no option where they follow such a word, or anywhere."""
    if letters_as_options(raw_texts):
        return frozenset(), frozenset()  # options that are letters: pictured regions "(A)" … "(E)"
    symbols = frozenset(a or b for a, b in _SYMBOL.findall(text)) if _has_operator(text) else frozenset()
    if "的" in text or "于" in text:
        symbols |= frozenset(_VALUE_OF.findall(text)) - frozenset(_OWN_VERDICT.findall(text))
    return name_words(text), symbols


def _has_operator(text: str) -> bool:
    return any(sign in text for sign in "=+*/^×")


def name_words(text: str) -> frozenset[str]:
    """Lower-cased words that name things by letters in `text` (`_NAMING`): each written
    right before two different capital letters ("Machine A … Machine B")."""
    if text.count(" ") < 3:
        return frozenset()
    seen: dict[str, str] = {}
    names = set()
    for match in _NAMING.finditer(text):
        word = match.group(1).lower()
        if word in _NOT_NAMING or word in names:
            continue
        if seen.setdefault(word, match.group(2)) != match.group(2):
            names.add(word)
    return frozenset(names)


def names_thing(text: str, start: int, names: frozenset[str]) -> bool:
    """Whether the letter at `start` follows, after one space, a word of `names`."""
    if not names or start < 4 or text[start - 1] != " ":
        return False
    head = text[max(0, start - 40):start - 1]
    word = head[len(head.rstrip("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz")):]
    return word.lower() in names
