"""Nearest-neighbour search of unit vectors (cosine = inner product) for the audits.

Below `exact_below` reference vectors the search is exact: a tiled numpy matrix product,
memory bounded by the tile. Above it, faiss (imported only then): an inverted-file index
with an HNSW coarse quantizer and 8-bit scalar-quantised vectors (`IVF{n}_HNSW32,SQ8`,
about 1 byte per dimension per vector), searched with `nprobe` lists per query for
`rerank` candidates, which are then scored exactly against the float vectors (an array or
a memory-mapped .npy), so quantisation never decides between near ties. Its recall
is measured, never assumed: a sample of the queries is also searched exactly and the
share whose best match agrees (same reference, or the same cosine to 1e-4) is reported as
`recall_at_1` in the search's `info`, which the audit summary carries.

The approximate index is persisted under the cache folder, keyed by the corpus content
hash and the embedder (see `cached_index`), so a second audit neither trains nor adds.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable

EXACT_BELOW = 200_000
RECALL_SAMPLE = 1000
_QUERY_TILE = 1024
_CORPUS_TILE = 16384


def top1_exact(queries: Any, corpus: Any) -> tuple[Any, Any]:
    """Best inner product and its corpus index per query row (first index on ties)."""
    import numpy as np

    best = np.full(len(queries), -np.inf, dtype=np.float32)
    where = np.zeros(len(queries), dtype=np.int64)
    for q0 in range(0, len(queries), _QUERY_TILE):
        block = queries[q0:q0 + _QUERY_TILE]
        for c0 in range(0, len(corpus), _CORPUS_TILE):
            sims = block @ corpus[c0:c0 + _CORPUS_TILE].T
            arg = sims.argmax(axis=1)
            value = sims[np.arange(len(block)), arg]
            better = value > best[q0:q0 + len(block)]
            best[q0:q0 + len(block)][better] = value[better]
            where[q0:q0 + len(block)][better] = arg[better] + c0
    return best, where


@dataclass
class IndexSettings:
    """How to search: exact below `exact_below` vectors, else IVF-HNSW-SQ8 with these knobs."""

    exact_below: int = EXACT_BELOW
    nlist: int | None = None  # inverted lists; None = about 2·sqrt(n), within [256, 16384]
    nprobe: int = 32
    rerank: int = 10  # candidates per query scored exactly
    train_size: int = 100_000
    recall_sample: int = RECALL_SAMPLE
    seed: int = 0

    def lists_for(self, n: int) -> int:
        """Number of inverted lists for a corpus of `n` vectors."""
        if self.nlist:
            return self.nlist
        return int(min(16384, max(256, 2 * math.sqrt(n))))


@dataclass
class SearchInfo:
    """What the search did: `exact` or the approximate index, and its measured recall."""

    method: str
    corpus: int
    recall_at_1: float | None = None
    recall_sample: int = 0
    params: dict[str, Any] = field(default_factory=dict)

    def as_dict(self) -> dict[str, Any]:
        """JSON form for the audit summary."""
        return {"method": self.method, "corpus": self.corpus, "recall_at_1": self.recall_at_1,
                "recall_sample": self.recall_sample, **self.params}


def build_ivf(corpus_chunks: Callable[[], Any], dim: int, size: int,
              settings: IndexSettings) -> Any:
    """Train and fill an `IVF{n}_HNSW32,SQ8` inner-product index from `corpus_chunks()`
    (an iterable of float32 arrays, read twice: a training sample, then every vector)."""
    import faiss
    import numpy as np

    nlist = settings.lists_for(size)
    index = faiss.index_factory(dim, f"IVF{nlist}_HNSW32,SQ8", faiss.METRIC_INNER_PRODUCT)
    want = min(size, max(settings.train_size, 40 * nlist))
    sample = []
    rng = np.random.default_rng(settings.seed)
    share = want / size
    for chunk in corpus_chunks():
        take = chunk[rng.random(len(chunk)) < share]
        sample.append(take)
    index.train(np.ascontiguousarray(np.concatenate(sample)[:want], dtype="float32"))
    for chunk in corpus_chunks():
        index.add(np.ascontiguousarray(chunk, dtype="float32"))
    return index


def search_index(index: Any, queries: Any, nprobe: int, k: int = 1) -> tuple[Any, Any]:
    """Top-k (scores, ids) of every query in a faiss index, shape (n, k); id -1 = none."""
    import faiss
    import numpy as np

    ivf = faiss.extract_index_ivf(index)
    ivf.nprobe = nprobe
    quantizer = faiss.downcast_index(ivf.quantizer)
    if hasattr(quantizer, "hnsw"):  # the coarse search must find the nprobe best lists
        quantizer.hnsw.efSearch = max(64, 2 * nprobe)
    scores, where = index.search(np.ascontiguousarray(queries, dtype="float32"), k)
    return scores, where.astype("int64")


def rerank(queries: Any, corpus: Any, candidates: Any) -> tuple[Any, Any]:
    """The exact best of each query's candidate ids (rows of `candidates`, -1 = none)."""
    import numpy as np

    best = np.full(len(queries), -np.inf, dtype="float32")
    where = np.full(len(queries), -1, dtype="int64")
    for q0 in range(0, len(queries), _QUERY_TILE):
        ids = candidates[q0:q0 + _QUERY_TILE]
        safe = np.where(ids < 0, 0, ids)
        order = np.argsort(safe, axis=None)  # sorted reads: kind to a memory-mapped corpus
        rows = np.empty((safe.size, corpus.shape[1]), dtype="float32")
        rows[order] = corpus[safe.ravel()[order]]
        sims = np.einsum("qkd,qd->qk", rows.reshape(*safe.shape, -1), queries[q0:q0 + len(ids)])
        sims[ids < 0] = -np.inf
        arg = sims.argmax(axis=1)
        best[q0:q0 + len(ids)] = sims[np.arange(len(ids)), arg]
        where[q0:q0 + len(ids)] = ids[np.arange(len(ids)), arg]
    return best, where


def measured_recall(queries: Any, corpus: Any, found: Any, found_scores: Any,
                    sample: int, seed: int = 0) -> tuple[float, int]:
    """Share of a query sample whose approximate top-1 equals the exact one (same index, or
    a tie in cosine to 1e-4)."""
    import numpy as np

    if not len(queries):
        return 1.0, 0
    rng = np.random.default_rng(seed)
    picked = np.sort(rng.choice(len(queries), size=min(sample, len(queries)), replace=False))
    exact_scores, exact_where = top1_exact(queries[picked], corpus)
    same = (exact_where == found[picked]) | (np.abs(exact_scores - found_scores[picked]) < 1e-4)
    return float(same.mean()), int(len(picked))


def nearest(queries: Any, corpus: Any, settings: IndexSettings | None = None, *,
            index_path: Path | None = None) -> tuple[Any, Any, SearchInfo]:
    """Top-1 neighbour of each query row among the corpus rows (both unit float32).

    Exact below `settings.exact_below` corpus rows, or below the index's number of lists
    (faiss cannot train fewer points than lists); otherwise the faiss index (loaded from
    `index_path` when it exists there, built and saved there otherwise) and its recall@1
    measured on a sample against exact search.
    """
    settings = settings or IndexSettings()
    size = len(corpus)
    if size < settings.exact_below or size < settings.lists_for(size):
        scores, where = top1_exact(queries, corpus)
        return scores, where, SearchInfo("exact", size)
    import faiss

    if index_path is not None and index_path.exists():
        index = faiss.read_index(str(index_path))
    else:
        index = build_ivf(lambda: (corpus[i:i + 262144] for i in range(0, size, 262144)),
                          corpus.shape[1], size, settings)
        if index_path is not None:
            index_path.parent.mkdir(parents=True, exist_ok=True)
            tmp = index_path.with_suffix(".tmp")
            faiss.write_index(index, str(tmp))
            tmp.replace(index_path)
    _, candidates = search_index(index, queries, settings.nprobe, settings.rerank)
    scores, where = rerank(queries, corpus, candidates)
    recall, sampled = measured_recall(queries, corpus, where, scores, settings.recall_sample,
                                      settings.seed)
    params = {"index": f"IVF{settings.lists_for(size)}_HNSW32,SQ8", "nprobe": settings.nprobe,
              "rerank": settings.rerank}
    return scores, where, SearchInfo("faiss", size, recall, sampled, params)
