"""Evidence that survives paraphrase, combined with the embedding neighbour (docs/AUDITS.md).

An embedding cosine alone cannot separate a rephrased reference question from a clean
question on the same topic: both land around 0.7–0.9. A rephrasing keeps what carries the
meaning — rare content words, named entities, numbers, years, units — while it changes word
order, voice and common words. So every item is compared with its candidate references
(the embedding top-1 and the reference sharing the most rare tokens) on:

- `overlap`: IDF-weighted Dice overlap of content tokens (stop words dropped, a light
  plural stem, CJK character bigrams); IDF from the reference corpus, so "bar", "chart",
  "value" weigh little and "Slovenia", "Putin", "2015" weigh a lot; tokens that are
  numbers or capitalised mid-sentence (names) count `entity_boost` times;
- `numbers`: agreement of the numbers (years and values with their sign and decimals):
  |shared| / |all| when either side has any;
- the options, when both the item and the reference have them, join the token sets.

- `contrasts`: closed classes (colours, highest/lowest, left/right, boys/girls, ...) in
  which the two name different members — a same-template question about another bar.

Common synonyms a rephrasing swaps (largest/biggest/highest, mean/average, %/percent,
ordinals and number words) are mapped to one token first.

`combined = w_cos·cosine + w_overlap·overlap + w_numbers·(numbers − 0.5) − w_contrast·
len(contrasts)` (the numbers term only when a side has numbers). The weights were tuned on
one half of the planted set in tests/audit/fixtures/rephrase (benchmarks/audit_rephrase.py);
the warn and review thresholds on public labelled sets, checked on a held-out one
(benchmarks/rephrase_operating_point.py).
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass
from typing import Any, Iterable, Sequence

from bench_kit.text.cjk import CJK_CHARS
from bench_kit.text.contrast import differing_classes
from bench_kit.text.idf import Idf, postings
from bench_kit.text.numbers import canonical_number
from bench_kit.text.streamsafe import nfkc

_TOKEN = re.compile(rf"-?\d+(?:\.\d+)?|[^\W\d_]+(?:'[^\W\d_]+)?|[{CJK_CHARS}]+")
_CJK_RUN = re.compile(f"[{CJK_CHARS}]+")
_NUMBER = re.compile(r"^-?\d+(?:\.\d+)?$")
_QUOTED = re.compile(r"[\"“'‘]([^\"”'’]{1,40})[\"”'’]")

STOPWORDS = frozenset("""
a an the of in on at to for from by with about as into over under between among than then
and or but if not no nor is are was were be been being am do does did done has have had
can could would should will shall may might must what which who whom whose where when why
how many much that this these those there here it its they them their he she his her we
our you your i me my some any all each every such so very
s t don didn isn aren doesn wasn weren per up out off also just only own
的 了 吗 呢 是 在 有 和 与 及 或 中 上 下 个 这 那 什么 多少 几 哪 哪个 图 图中
""".split())


# Synonyms a rephrasing swaps, mapped to one token, and ordinals/number words to numbers.
CANONICAL: dict[str, str] = {
    **dict.fromkeys("highest largest biggest maximum max peak top greatest tallest most "
                    "popular".split(), "MAX"),
    **dict.fromkeys("lowest smallest least minimum min tiniest fewest shortest".split(),
                    "MIN"),
    **dict.fromkeys("mean average".split(), "average"),
    **dict.fromkeys("percent percentage %".split(), "percent"),
    **dict.fromkeys("sum total combined together add".split(), "sum"),
    **dict.fromkeys("difference differ gap".split(), "difference"),
    **dict.fromkeys("more greater larger exceed above higher over".split(), "MORE"),
    **dict.fromkeys("less fewer smaller below lower under".split(), "LESS"),
    **dict.fromkeys("colour color coloured colored".split(), "colour"),
    **dict.fromkeys("graph chart plot".split(), "chart"),
    **dict.fromkeys("twice double".split(), "2"),
    **{word: str(n) for n, word in enumerate("zero one two three four five six seven eight "
                                            "nine ten".split())},
    **{word: str(n) for n, word in enumerate("zeroth first second third fourth fifth sixth "
                                            "seventh eighth ninth tenth".split())},
    **{f"{n}{suffix}": str(n) for n in range(1, 32) for suffix in ("st", "nd", "rd", "th")},
}
# Closed classes whose members contradict each other: a question that says "blue" where
# its neighbour says "red" (or "lowest" where it says "highest") asks something else.
CONTRAST: dict[str, str] = {
    **dict.fromkeys("red orange yellow green blue purple violet pink brown black white gray "
                    "grey navy cyan magenta gold silver".split(), "colour"),
    "MAX": "extreme", "MIN": "extreme", "MORE": "comparison", "LESS": "comparison",
    **dict.fromkeys("left leftmost right rightmost middle upper bottom".split(), "position"),
    **dict.fromkeys("boy girl men women man woman male female".split(), "group"),
    "last": "order", "1": "order",
    **dict.fromkeys("yes no".split(), "answer"),
}


def _stem(word: str) -> str:
    if len(word) > 4 and word.endswith("ies"):
        return word[:-3] + "y"
    if len(word) > 3 and word.endswith("s") and not word.endswith(("ss", "us", "is")):
        return word[:-1]
    return word


@dataclass(frozen=True)
class TextFeatures:
    """The paraphrase-surviving features of one text."""

    tokens: frozenset[str]
    entities: frozenset[str]  # numbers and mid-sentence capitalised words
    numbers: frozenset[str]


def text_features(text: str) -> TextFeatures:
    """Content tokens, entities and numbers of a question (plus options, if appended).

    >>> f = text_features("What is the value of Slovenia in 2015, -6 or 16.9?")
    >>> sorted(f.tokens), sorted(f.numbers)
    (['-6', '16.9', '2015', 'slovenia', 'value'], ['-6', '16.9', '2015'])
    >>> sorted(f.entities)
    ['-6', '16.9', '2015', 'slovenia']
    """
    text = nfkc(text).replace("’", "'")
    tokens: set[str] = set()
    entities: set[str] = set()
    numbers: set[str] = set()
    sentence_start = True
    quoted = {w.lower() for span in _QUOTED.findall(text) for w in span.split()}
    for match in _TOKEN.finditer(text):
        raw = match.group(0)
        if _CJK_RUN.fullmatch(raw):
            grams = [raw] if len(raw) == 1 else [raw[i:i + 2] for i in range(len(raw) - 1)]
            tokens.update(g for g in grams if g not in STOPWORDS)
            sentence_start = False
            continue
        if _NUMBER.match(raw):
            value = canonical_number(raw)
            tokens.add(value)
            numbers.add(value)
            entities.add(value)
            sentence_start = False
            continue
        word = raw.lower().removesuffix("'s")
        if word in STOPWORDS or len(word) < 2:
            sentence_start = False
            continue
        stem = CANONICAL.get(word) or CANONICAL.get(_stem(word)) or _stem(word)
        if _NUMBER.match(stem):
            numbers.add(stem)
            entities.add(stem)
        tokens.add(stem)
        if (raw[0].isupper() and not sentence_start) or word in quoted:
            entities.add(stem)
        sentence_start = False
        tail = text[match.end():match.end() + 2]
        if tail[:1] in ".?!" and not tail[1:2].isalnum():
            sentence_start = True
    return TextFeatures(frozenset(tokens), frozenset(entities), frozenset(numbers))


@dataclass(frozen=True)
class RephraseWeights:
    """Weights of the combined rephrase score (tuned: docs/AUDITS.md#rephrase-detection)."""

    cosine: float = 0.8
    overlap: float = 0.5
    numbers: float = 0.3
    entity_boost: float = 2.0
    contrast: float = 0.4


def weighted_overlap(a: TextFeatures, b: TextFeatures, idf: Idf, boost: float) -> float:
    """IDF-weighted Dice overlap of two token sets (entities weigh `boost` times more).

    Sums are exactly rounded (`math.fsum`), so the value does not depend on the order a
    set iterates in — which changes with the hash seed and when a set is pickled to a
    worker — and equal overlaps compare equal on every engine."""
    def weight(token: str, feats: TextFeatures) -> float:
        return idf(token) * (boost if token in feats.entities else 1.0)

    total = math.fsum([*(weight(t, a) for t in a.tokens), *(weight(t, b) for t in b.tokens)])
    if total <= 0:
        return 0.0
    shared = math.fsum(weight(t, a) + weight(t, b) for t in a.tokens & b.tokens)
    return shared / total


def contrasts(a: TextFeatures, b: TextFeatures) -> list[str]:
    """Closed classes (colour, extreme, position, ...) where the two texts name different
    members and share none: "blue line" vs "red line", "lowest" vs "highest"."""
    def classes(feats: TextFeatures) -> dict[str, set[str]]:
        out: dict[str, set[str]] = {}
        for token in feats.tokens:
            if token in CONTRAST:
                out.setdefault(CONTRAST[token], set()).add(token)
        return out

    return differing_classes(classes(a), classes(b))


def number_agreement(a: TextFeatures, b: TextFeatures) -> float | None:
    """|shared numbers| / |all numbers|, or None when neither text has a number."""
    union = a.numbers | b.numbers
    return len(a.numbers & b.numbers) / len(union) if union else None


@dataclass(frozen=True)
class PairScore:
    """The evidence for one (item, reference row) pair and the combined score."""

    cosine: float
    overlap: float
    numbers: float | None
    combined: float
    shared: tuple[str, ...]
    contrasts: tuple[str, ...] = ()

    def as_evidence(self) -> dict[str, Any]:
        """Evidence fields of a finding."""
        return {"cosine": round(self.cosine, 4), "overlap": round(self.overlap, 4),
                "numbers": None if self.numbers is None else round(self.numbers, 4),
                "combined": round(self.combined, 4), "shared_rare": list(self.shared),
                "contrasts": list(self.contrasts)}


def score_pair(cosine: float, item: TextFeatures, ref: TextFeatures, idf: Idf,
               weights: RephraseWeights) -> PairScore:
    """The combined rephrase score of one pair (see the module docstring)."""
    overlap = weighted_overlap(item, ref, idf, weights.entity_boost)
    numbers = number_agreement(item, ref)
    combined = weights.cosine * cosine + weights.overlap * overlap
    if numbers is not None:
        combined += weights.numbers * (numbers - 0.5)
    differ = contrasts(item, ref)
    combined -= weights.contrast * len(differ)
    shared = sorted(item.tokens & ref.tokens, key=lambda t: (-idf(t), t))[:6]
    return PairScore(cosine, overlap, numbers, combined, tuple(shared), tuple(differ))


def lexical_candidates(items: Sequence[TextFeatures], refs: Iterable[TextFeatures],
                       idf: Idf, boost: float) -> list[tuple[int, float]]:
    """For each item, the reference row (index, overlap) with the largest IDF overlap,
    found through an inverted index of the items' tokens (one pass over the reference)."""
    holding = postings(feats.tokens for feats in items)
    best: list[tuple[int, float]] = [(-1, 0.0)] * len(items)
    for index, ref in enumerate(refs):
        touched = {p for token in ref.tokens for p in holding.get(token, ())}
        for position in touched:
            value = weighted_overlap(items[position], ref, idf, boost)
            if value > best[position][1]:
                best[position] = (index, value)
    return best
