"""When a text match cannot show a copy (docs/AUDITS.md#what-text-cannot-show).

A text-only contamination match (`contamination.ngram`, `.minhash`, `.embedding`) is
reported at info, with the reason, in two cases:

- *generic question*: the item and the reference row share no specific content. A shared
  content token is specific when it is a name or a quoted word (text_features' entities
  that are not numbers), or when it is rare: in at most `specific_df` of the items of the
  file, or in no other item (a small file). The counts are the items file's, not the
  reference's, so the local and the dask engine agree. Numbers
  too are judged by rarity: "two bars" is template, "2015" is not. "What's the value of
  the lowest bar?" matches "What is the value of the smallest bar?" on any chart; only the
  image can tell.
- *shared passage, different question*: the item has a passage or hint and less than
  `same_question_share` of its question's word trigrams occur in the reference row, so the
  match lies in a passage the two share (ScienceQA's genetics boilerplate) while the
  questions differ.
"""

from __future__ import annotations

from typing import Any

from bench_kit.audit.contamination_rephrase import Idf, TextFeatures, text_features
from bench_kit.audit.content import item_hint
from bench_kit.text.normalize import normalize_for_audit
from bench_kit.text.tokens import word_tokens
from bench_kit.types import Severity

GENERIC = "generic question: the text cannot show a copy; compare the images (--reference-images)"
PASSAGE = "shared passage, different question"
_QUESTION_N = 3
_OWN = 1  # a token no other item of the file uses is specific to the item


def _features(ctx: Any) -> tuple[dict[str, TextFeatures], Idf]:
    """Item features (hint + question) by id and the IDF over the items file, once.

    The counts come from the items file, not the reference: a partitioned reference
    (audit.engine: dask) holds no token counts, and both engines must give the same
    findings."""

    def compute() -> tuple[dict[str, TextFeatures], Idf]:
        items = {}
        for item in ctx.items:
            hint, question = item_hint(item)
            items[item.id] = text_features(f"{hint} {question}" if hint else question)
        return items, Idf.fit(f.tokens for f in items.values())

    return ctx.memo("contamination_specific", compute)


def _trigrams(words: list[str]) -> set[str]:
    if len(words) < _QUESTION_N:
        return {" ".join(words)} if words else set()
    return {" ".join(words[i:i + _QUESTION_N]) for i in range(len(words) - _QUESTION_N + 1)}


def question_share(question: str, reference_text: str) -> float:
    """Share of the question's word trigrams that occur in the (normalised) reference text.

    >>> question_share("What is Bambi's genotype?", "in a group of horses what is the ratio")
    0.0
    """
    mine = _trigrams(word_tokens(normalize_for_audit(question)))
    if not mine:
        return 1.0
    return len(mine & _trigrams(word_tokens(reference_text))) / len(mine)


def specific_tokens(item: TextFeatures, ref: TextFeatures, idf: Idf,
                    max_df: float) -> list[str]:
    """Shared content tokens that are names, quoted words or rare: in at most `max_df` of
    the items, or in no other item of the file (small files)."""
    names = item.entities - item.numbers
    out = []
    for token in sorted(item.tokens & ref.tokens):
        count = idf.frequency.get(token, 0)
        if token in names or count <= _OWN or count / max(idf.documents, 1) <= max_df:
            out.append(token)
    return out


def text_cannot_show(ctx: Any, ident: str, row: dict[str, Any], settings: Any
                     ) -> tuple[str, dict[str, Any]] | None:
    """(reason, evidence) when the match of item `ident` with reference `row` is a generic
    template or a shared passage (module docstring); None when the text can show a copy."""
    item = ctx.by_id[ident]
    hint, question = item_hint(item)
    if hint:
        share = question_share(question, row["text"])
        if share < settings.same_question_share:
            return PASSAGE, {"question_share": round(share, 4)}
    features, idf = _features(ctx)
    ref = text_features(row.get("original") or row["question"])
    specific = specific_tokens(features[ident], ref, idf, settings.specific_df)
    if specific:
        return None
    return GENERIC, {}


def demote(ctx: Any, ident: str, row: dict[str, Any], settings: Any, severity: Severity,
           message: str, evidence: dict[str, Any]) -> tuple[Severity, str]:
    """(severity, message) of a text match after the rule above; evidence gains the reason."""
    if severity == "info":
        return severity, message
    found = text_cannot_show(ctx, ident, row, settings)
    if found is None:
        return severity, message
    reason, extra = found
    evidence.update({**extra, "text_cannot_show": reason, "severity_without_rule": severity})
    return "info", f"{reason} — {message}"
