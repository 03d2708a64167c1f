"""Smoothed inverse document frequencies and the postings index beside them: the one IDF
of the package (the rephrase overlap and rare tokens of the contamination audit, the
character n-gram neighbours of the `prior` baseline).

The weight is scikit-learn's `smooth_idf` (as if one extra document held every term):
`idf(t) = ln((N + 1) / (df(t) + 1)) + 1`, so a term no document holds weighs the most.
scikit-learn's TfidfVectorizer itself is not used: its analyzers pad and split text
otherwise than the tokenisers here, so its vectors would differ.

The table is bounded: at most `MAX_TERMS` distinct terms are kept (2 million, some
hundreds of MB). Past it, the terms held by the fewest documents are dropped (ties: the
terms that sort last), and a dropped term weighs as an unseen one: rare either way, at
most ln(df + 1) more than its own weight. While counting, the table is cut back to
`MAX_TERMS` whenever it doubles, so a term dropped then and seen again counts from
there. Below the cap every value is exact.
"""

from __future__ import annotations

import heapq
import math
from collections import Counter
from typing import Iterable

MAX_TERMS = 2_000_000


def _capped(frequency: Counter[str], max_terms: int) -> Counter[str]:
    """`frequency` with only its `max_terms` most frequent terms (itself if within)."""
    if len(frequency) <= max_terms:
        return frequency
    return Counter(dict(heapq.nsmallest(max_terms, frequency.items(),
                                        key=lambda kv: (-kv[1], kv[0]))))


class Idf:
    """Inverse document frequencies over a corpus (smoothed; unseen = rarest).

    >>> idf = Idf.fit([["bar", "chart"], ["bar"], ["pie"]])
    >>> idf.documents, idf.frequency["bar"], "line" in idf, "bar" in idf
    (3, 2, False, True)
    >>> round(idf("bar"), 4), round(idf("line"), 4)  # ln(4/3) + 1, ln(4/1) + 1
    (1.2877, 2.3863)
    """

    def __init__(self, documents: int, frequency: Counter[str],
                 max_terms: int = MAX_TERMS) -> None:
        self.documents = documents
        self.frequency = _capped(frequency, max_terms)

    @classmethod
    def fit(cls, documents: Iterable[Iterable[str]], max_terms: int = MAX_TERMS) -> "Idf":
        """Count each term once per document (a document is any iterable of terms)."""
        frequency: Counter[str] = Counter()
        count = 0
        for terms in documents:
            count += 1
            frequency.update(set(terms))
            if len(frequency) > 2 * max_terms:
                frequency = _capped(frequency, max_terms)
        return cls(count, frequency, max_terms)

    @classmethod
    def merged(cls, parts: Iterable[tuple[int, Counter[str]]],
               max_terms: int = MAX_TERMS) -> "Idf":
        """The IDF of a corpus counted in parts: (documents, term -> documents holding it)
        of each, summed (cut back like `fit` whenever the table doubles)."""
        frequency: Counter[str] = Counter()
        count = 0
        for documents, part in parts:
            count += documents
            frequency.update(part)
            if len(frequency) > 2 * max_terms:
                frequency = _capped(frequency, max_terms)
        return cls(count, frequency, max_terms)

    def __call__(self, term: str) -> float:
        return math.log((self.documents + 1) / (self.frequency.get(term, 0) + 1)) + 1.0

    def __contains__(self, term: object) -> bool:
        """Whether a document of the corpus holds `term` (as far as the table kept it)."""
        return isinstance(term, str) and self.frequency.get(term, 0) > 0


def postings(documents: Iterable[Iterable[str]]) -> dict[str, list[int]]:
    """term -> the positions of the documents holding it, in order (each once).

    >>> postings([["a", "b"], ["b", "b"]])
    {'a': [0], 'b': [0, 1]}
    """
    index: dict[str, list[int]] = {}
    for position, terms in enumerate(documents):
        for term in dict.fromkeys(terms):
            index.setdefault(term, []).append(position)
    return index
