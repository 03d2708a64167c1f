"""The token index of a partitioned reference finds the rare-token match the local scan
finds: the same row and overlap for every item, ties to the first row."""

from __future__ import annotations

import random

import pyarrow as pa

from bench_kit.audit.contamination_rephrase import (
    Idf,
    lexical_candidates,
    text_features,
)
from bench_kit.audit.distributed.rare_tokens import (
    document_counts,
    indexed_lexical_candidates,
    row_features,
    token_columns,
)

WORDS = ("apple river chart value blue red count circle triangle square mountain city flag "
         "poster water cloud ocean vapour process planet gas plant air light shadow number "
         "bar line year total left right top bottom highest lowest").split()
NAMES = ["Slovenia", "Putin", "Kenya", "Oslo", "2015", "16.9", "-6", "1984"]


def questions(count: int, seed: int) -> list[str]:
    """Zipf-like words, a few names and numbers mid-sentence (entities)."""
    rng = random.Random(seed)
    weights = [1.0 / (rank + 1) for rank in range(len(WORDS))]
    out = []
    for _ in range(count):
        words = rng.choices(WORDS, weights, k=rng.randint(3, 18))
        if rng.random() < 0.4:
            words.insert(rng.randrange(len(words) + 1), rng.choice(NAMES))
        out.append("What " + " ".join(words) + "?")
    return out


def test_index_equals_the_scan():
    texts = questions(900, seed=1)
    texts[700] = texts[100]  # an exact tie: the first row must win
    rows = [{"original": t if n % 3 else None, "question": t.lower()} for n, t in
            enumerate(texts)]
    table = pa.table({"original": [r["original"] for r in rows],
                      "question": [r["question"] for r in rows],
                      **{k: pa.array(v, pa.list_(pa.string()))
                         for k, v in token_columns(rows).items()}})
    refs = [row_features(r["original"], r["question"]) for r in rows]
    idf = Idf.fit(f.tokens for f in refs)
    assert document_counts(table) == (idf.documents, dict(idf.frequency))
    rng = random.Random(3)
    item_texts = questions(80, seed=2) + [texts[100], "Which Kenya zebra?", "nothing here"]
    for text in rng.sample(texts, 40):  # near copies: one word dropped
        words = text.split()
        del words[rng.randrange(len(words))]
        item_texts.append(" ".join(words))
    items = [text_features(t) for t in item_texts]
    for boost in (2.0, 1.0, 0.5):
        expected = lexical_candidates(items, refs, idf, boost)
        assert indexed_lexical_candidates(items, table, idf, boost) == expected
    assert expected[80] == (100, 1.0) and expected[82] == (-1, 0.0)
