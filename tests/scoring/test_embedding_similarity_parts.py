"""embedding_similarity's own arithmetic with hand-given vectors in place of the bundled
model (the model itself: tests/scoring/test_corpus.py, marked slow). Each expected value is
worked out by hand beside it: the best gold's cosine with the prediction, clipped to 0-1
and rounded to 6 places; blank input scores 0 without loading the model."""

from __future__ import annotations

import numpy as np
import pytest

import bench_kit.embed
from bench_kit.scoring.metrics.text import embedding_similarity


@pytest.fixture
def vectors(monkeypatch):
    """encode() answers from a table of hand-given vectors and records what it was asked."""
    table: dict[str, list[float]] = {}
    calls: list[list[str]] = []

    def encode(texts, batch_size=64):
        calls.append(list(texts))
        return np.array([table[t] for t in texts], dtype=np.float64)

    monkeypatch.setattr(bench_kit.embed, "encode", encode)
    return table, calls


def test_the_best_gold_counts(vectors):
    table, calls = vectors
    table.update({"cat": [1.0, 0.0], "kitten": [0.6, 0.8], "car": [0.0, 1.0]})
    # cosines with "cat": kitten 1*0.6 + 0*0.8 = 0.6, car 0.0 -> the best, 0.6
    assert embedding_similarity("cat", ["car", "kitten"]) == 0.6
    # the prediction first, then the golds in their order
    assert calls == [["cat", "car", "kitten"]]


def test_a_negative_cosine_is_clipped_to_zero(vectors):
    table, _ = vectors
    table.update({"up": [0.0, 1.0], "down": [0.0, -1.0]})
    assert embedding_similarity("up", ["down"]) == 0.0  # cosine -1 -> 0


def test_above_one_is_clipped_to_one(vectors):
    table, _ = vectors
    table.update({"a": [2.0, 0.0], "b": [1.0, 0.0]})
    assert embedding_similarity("a", ["b"]) == 1.0  # 2*1 = 2 -> 1


def test_rounded_to_six_places(vectors):
    table, _ = vectors
    table.update({"p": [1.0, 0.0], "g": [0.123456789, 0.0]})
    assert embedding_similarity("p", ["g"]) == 0.123457  # 0.123456789 -> 0.123457


def test_blank_golds_are_left_out_and_golds_are_read_as_text(vectors):
    table, calls = vectors
    table.update({"five": [1.0, 0.0], "5": [0.8, 0.6]})
    assert embedding_similarity("five", [" ", 5, ""]) == 0.8  # only "5" is encoded
    assert calls == [["five", "5"]]


@pytest.mark.parametrize("pred, golds", [("", ["cat"]), ("   ", ["cat"]), ("cat", []),
                                         ("cat", ["", "  "])])
def test_blank_input_scores_zero_without_the_model(vectors, pred, golds):
    _, calls = vectors
    assert embedding_similarity(pred, golds) == 0.0
    assert calls == []
