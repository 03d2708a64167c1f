"""Nearest-neighbour search at reference-corpus scale: the faiss index of
bench_kit/audit/vector_index.py (IVF + HNSW quantizer + 8-bit codes, exact re-rank of the
top candidates) against exact search, on synthetic 384-d unit vectors.

The corpus is clustered like sentence embeddings (vectors around 20,000 random centres),
generated in chunks into a memory-mapped .npy file (`--workdir`; 10M vectors = 15.4 GB on
disk), which is how the audit keeps large reference embeddings: the index holds 8-bit codes
in memory and the re-rank reads candidate rows from the file. Queries: half are noisy
copies of corpus vectors (what a contamination audit looks for), half new vectors from the
same clusters.

Baseline in the same run: the exact tiled matrix product (`top1_exact`) over the whole
corpus for a sample of the queries, scaled to all queries; recall@1 of the index is measured
on that sample (agreement = same id, or the same cosine to 1e-4).

    python benchmarks/vector_index_scale.py --corpus 1000000 --queries 100000
    python benchmarks/vector_index_scale.py --corpus 10000000 --queries 100000
"""

from __future__ import annotations

import argparse
import resource
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench_kit.audit.vector_index import (IndexSettings, build_ivf, rerank,  # noqa: E402
                                          search_index, top1_exact)

DIM = 384
CHUNK = 250_000
CENTRES = 20_000
NOISE = 0.025


def unit(rows: np.ndarray) -> np.ndarray:
    return (rows / np.linalg.norm(rows, axis=1, keepdims=True)).astype("float32")


def draw(middle: np.ndarray, size: int, rng: np.random.Generator) -> np.ndarray:
    picks = rng.integers(0, CENTRES, size)
    return unit(middle[picks] + NOISE * rng.normal(size=(size, DIM)).astype("float32"))


def make_corpus(path: Path, total: int, middle: np.ndarray, seed: int) -> np.ndarray:
    corpus = np.lib.format.open_memmap(path, mode="w+", dtype="float32", shape=(total, DIM))
    for index, start in enumerate(range(0, total, CHUNK)):
        corpus[start:start + CHUNK] = draw(middle, min(CHUNK, total - start),
                                           np.random.default_rng((seed, index)))
    corpus.flush()
    return np.load(path, mmap_mode="r")


def make_queries(corpus: np.ndarray, middle: np.ndarray, count: int, seed: int) -> np.ndarray:
    rng = np.random.default_rng((seed, "queries".encode()[0]))
    half = count // 2
    copies = np.asarray(corpus[np.sort(rng.choice(len(corpus), half, replace=False))])
    copies = unit(copies + 0.01 * rng.normal(size=copies.shape).astype("float32"))
    return np.concatenate([copies, draw(middle, count - half, rng)])


def exact_streamed(queries: np.ndarray, corpus: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    best = np.full(len(queries), -np.inf, dtype="float32")
    where = np.zeros(len(queries), dtype="int64")
    for start in range(0, len(corpus), CHUNK):
        scores, at = top1_exact(queries, np.asarray(corpus[start:start + CHUNK]))
        better = scores > best
        best[better], where[better] = scores[better], at[better] + start
    return best, where


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--corpus", type=int, default=1_000_000)
    parser.add_argument("--queries", type=int, default=100_000)
    parser.add_argument("--sample", type=int, default=1000, help="queries searched exactly")
    parser.add_argument("--nprobe", type=int, default=32)
    parser.add_argument("--rerank", type=int, default=10)
    parser.add_argument("--nlist", type=int, default=None)
    parser.add_argument("--workdir", default=None, help="where the corpus .npy goes")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    settings = IndexSettings(exact_below=1, nlist=args.nlist, nprobe=args.nprobe,
                             rerank=args.rerank)
    middle = unit(np.random.default_rng(args.seed).normal(size=(CENTRES, DIM)))
    with tempfile.TemporaryDirectory(dir=args.workdir) as work:
        started = time.perf_counter()
        corpus = make_corpus(Path(work) / "corpus.npy", args.corpus, middle, args.seed)
        generate_s = time.perf_counter() - started
        queries = make_queries(corpus, middle, args.queries, args.seed)

        started = time.perf_counter()
        index = build_ivf(lambda: (np.asarray(corpus[i:i + CHUNK])
                                   for i in range(0, args.corpus, CHUNK)),
                          DIM, args.corpus, settings)
        build_s = time.perf_counter() - started
        started = time.perf_counter()
        _, candidates = search_index(index, queries, settings.nprobe, settings.rerank)
        scores, where = rerank(queries, corpus, candidates)
        search_s = time.perf_counter() - started

        rng = np.random.default_rng(args.seed + 3)
        picked = np.sort(rng.choice(len(queries), args.sample, replace=False))
        started = time.perf_counter()
        exact_scores, exact_where = exact_streamed(queries[picked], corpus)
        exact_all_s = (time.perf_counter() - started) * len(queries) / args.sample
    same = (exact_where == where[picked]) | (np.abs(exact_scores - scores[picked]) < 1e-4)
    copies = picked < args.queries // 2
    peak_mb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(f"| {args.corpus:,} | {len(queries):,} | IVF{settings.lists_for(args.corpus)}_HNSW32,"
          f"SQ8, nprobe {settings.nprobe}, re-rank {settings.rerank} | {generate_s:.0f} s | "
          f"{build_s:.0f} s | {search_s:.0f} s | {exact_all_s:.0f} s (est.) | "
          f"{exact_all_s / search_s:.1f}× | {same.mean():.3f} ({same[copies].mean():.3f} / "
          f"{same[~copies].mean():.3f}) | {peak_mb:,.0f} MB |")


if __name__ == "__main__":
    main()
