"""Nearest-neighbour search: exact below the threshold, faiss above it with measured recall,
persisted and reloaded."""

from __future__ import annotations

import numpy as np
import pytest

from bench_kit.audit.vector_index import IndexSettings, nearest, top1_exact


def clustered(n: int, dim: int = 32, centres: int = 64, seed: int = 0) -> np.ndarray:
    """Unit vectors around random centres (embeddings have cluster structure)."""
    rng = np.random.default_rng(seed)
    middle = rng.normal(size=(centres, dim))
    vectors = middle[rng.integers(0, centres, n)] + 0.35 * rng.normal(size=(n, dim))
    return (vectors / np.linalg.norm(vectors, axis=1, keepdims=True)).astype("float32")


def test_exact_search_below_the_threshold() -> None:
    corpus = clustered(500)
    queries = corpus[[3, 77, 499]] + 0.01
    scores, where, info = nearest(queries, corpus, IndexSettings(exact_below=501))
    assert info.method == "exact" and list(where) == [3, 77, 499]
    np.testing.assert_allclose(scores, (queries * corpus[[3, 77, 499]]).sum(axis=1), rtol=1e-5)


def test_a_corpus_smaller_than_the_lists_is_searched_exactly() -> None:
    # index_exact_below: 1 on a 255-row corpus: faiss cannot train 256 lists on 255 points
    # (it raised "Number of training points (255) should be at least as large as number of
    # clusters (256)"); the search is exact instead
    corpus = clustered(255)
    scores, where, info = nearest(corpus[[4, 9]], corpus, IndexSettings(exact_below=1))
    assert info.method == "exact" and list(where) == [4, 9]
    _, _, info = nearest(corpus[:2], corpus, IndexSettings(exact_below=1, nlist=300))
    assert info.method == "exact"


def test_faiss_above_the_threshold_reports_its_recall_and_persists(tmp_path) -> None:
    pytest.importorskip("faiss")
    corpus = clustered(20_000)
    rng = np.random.default_rng(1)
    picked = rng.choice(len(corpus), 300, replace=False)
    queries = corpus[picked] + 0.02 * rng.normal(size=(300, 32)).astype("float32")
    queries /= np.linalg.norm(queries, axis=1, keepdims=True)
    settings = IndexSettings(exact_below=10_000, nlist=64, nprobe=16, train_size=5_000,
                             recall_sample=300)
    path = tmp_path / "index.faiss"
    scores, where, info = nearest(queries, corpus, settings, index_path=path)
    assert info.method == "faiss" and path.exists()
    exact_scores, exact_where = top1_exact(queries, corpus)
    agree = float(((where == exact_where) | (np.abs(scores - exact_scores) < 1e-4)).mean())
    assert info.recall_at_1 == pytest.approx(agree) and info.recall_sample == 300
    assert agree >= 0.95
    again_scores, again_where, again = nearest(queries, corpus, settings, index_path=path)
    np.testing.assert_array_equal(again_where, where)  # read back, not rebuilt
    assert again.as_dict()["index"] == "IVF64_HNSW32,SQ8"


def test_a_probe_of_one_list_loses_recall_and_says_so() -> None:
    pytest.importorskip("faiss")
    corpus = clustered(20_000, centres=400, seed=3)
    queries = clustered(500, centres=400, seed=4)
    low = nearest(queries, corpus, IndexSettings(exact_below=10, nlist=256, nprobe=1,
                                                 train_size=10_000, recall_sample=500))[2]
    high = nearest(queries, corpus, IndexSettings(exact_below=10, nlist=256, nprobe=64,
                                                  train_size=10_000, recall_sample=500))[2]
    assert low.recall_at_1 < high.recall_at_1


def test_tiled_top1_matches_brute_force(monkeypatch):
    from bench_kit.audit import vector_index

    rng = np.random.default_rng(0)
    queries = rng.normal(size=(37, 8)).astype("float32")
    corpus = rng.normal(size=(101, 8)).astype("float32")
    monkeypatch.setattr(vector_index, "_QUERY_TILE", 5)
    monkeypatch.setattr(vector_index, "_CORPUS_TILE", 9)
    best, where = vector_index.top1_exact(queries, corpus)
    sims = queries @ corpus.T
    assert where.tolist() == sims.argmax(axis=1).tolist()
    assert np.allclose(best, sims.max(axis=1), atol=1e-5)
