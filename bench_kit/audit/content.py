"""What an item's text is, for comparing items with each other and with reference rows.

Templated benchmarks ask one question stem about many passages, option sets and images, so
"the same question" is the wrong unit: two items are the same content only when the
question, its hint/passage (however the importer stored it) and its options all agree, and
the image decides between items whose text is a shared template (docs/AUDIT_METHODS.md).

- `split_hint`: the hint of an item — `meta.hint` (`meta.context`), or a "Hint: …" line the
  importer prepended to the question (`import --hint prepend`);
- `joined_questions`: the normalised hint + question, in both orders, so a file that puts
  the passage after the question matches one that puts it before;
- `content_key`: joined question + the normalised option set (order ignored);
- `template_siblings`: items whose content key is shared by items with another image.
"""

from __future__ import annotations

import re
from collections import defaultdict
from collections.abc import Sequence
from typing import Any

from bench_kit.text.normalize import normalize_for_audit
from bench_kit.types import Item, Severity

HINT_KEYS = ("hint", "context")
_PREPENDED = re.compile(r"^\s*(?:hint|context)\s*[:：]\s*(.*?)\n(.+)$", re.IGNORECASE | re.DOTALL)


def split_hint(question: str, hint: Any = None) -> tuple[str, str]:
    """(hint, question): a given hint, or a "Hint: …" first line split off the question.

    >>> split_hint("Hint: Read the passage.\\nWhich word is a noun?")
    ('Read the passage.', 'Which word is a noun?')
    >>> split_hint("Which word is a noun?", "Read the passage.")
    ('Read the passage.', 'Which word is a noun?')
    """
    if isinstance(hint, str) and hint.strip():
        return hint, question
    match = _PREPENDED.match(question)
    if match:
        return match.group(1), match.group(2)
    return "", question


def item_hint(item: Item) -> tuple[str, str]:
    """(hint, question) of an item, wherever its importer stored the hint."""
    hint = next((item.meta[key] for key in HINT_KEYS if isinstance(item.meta.get(key), str)
                 and item.meta[key].strip()), None)
    return split_hint(item.question, hint)


def joined_questions(question: str, hint: str = "") -> list[str]:
    """Normalised hint + question, then question + hint (one entry when there is no hint).

    >>> joined_questions("Which is wet?", "Look: rain.")
    ['look rain which is wet', 'which is wet look rain']
    """
    first = normalize_for_audit(f"{hint} {question}")
    second = normalize_for_audit(f"{question} {hint}")
    return [first] if second == first else [first, second]


def options_key(options: Sequence[str]) -> str:
    """The normalised option set, order ignored."""
    return " | ".join(sorted(normalize_for_audit(o) for o in options))


def content_key(question: str, options: Sequence[str]) -> str:
    """A normalised (joined) question with its option set: what exact matching compares."""
    return f"{question} || {options_key(options)}" if options else question


def item_options(item: Item) -> list[str]:
    """The item's option texts, in letter order."""
    return [item.choices[k] for k in sorted(item.choices)] if item.choices else []


def item_content_keys(item: Item) -> list[str]:
    """The item's content keys (one per order of hint and question)."""
    hint, question = item_hint(item)
    return [content_key(q, item_options(item)) for q in joined_questions(question, hint)]


def template_siblings(ctx: Any) -> dict[str, list[str]]:
    """Item id -> sorted ids of the items with the same content key but another image set.

    Such items are a template asked about different images: their text alone does not
    identify them, so text matches on it are listed for review, not raised."""

    def compute() -> dict[str, list[str]]:
        by_key: dict[str, list[Item]] = defaultdict(list)
        for item in ctx.items:
            if item.images:
                by_key[item_content_keys(item)[0]].append(item)
        out: dict[str, list[str]] = {}
        for group in by_key.values():
            for item in group:
                others = sorted(o.id for o in group if o.images != item.images)
                if others:
                    out[item.id] = others
        return out

    return ctx.memo("template_siblings", compute)


# What a text match demoted by `as_template` asks of a reviewer (appended to its message).
TEMPLATE_ASK = " (a template text shared by items with other images: compare the images)"


def as_template(ctx: Any, ident: str, severity: Severity) -> tuple[Severity, dict[str, Any]]:
    """(severity, evidence) of a text match on item `ident`: info, naming the siblings, when
    its text is a template shared by items with other images (the image decides)."""
    siblings = template_siblings(ctx).get(ident)
    if not siblings or severity == "info":
        return severity, {}
    return "info", {"template_siblings": len(siblings), "sibling_examples": siblings[:5],
                    "severity_without_template": severity}
