"""The text contamination checks (bench_kit/audit/contamination.py) beyond their
thresholds: the on-disk MinHash signature cache (keyed by corpus and shingle, read in
chunks, a stale file replaced), the progress callback, template texts, the first of equal
reference rows, LSH candidates below the threshold, the items' texts and the evidence
scores. Expected values are worked out by hand beside each case; the thresholds are in
test_contamination_boundaries.py."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from conftest import make_item
from test_contamination_boundaries import WORDS, _open, _run

from bench_kit.audit import contamination as cm
from bench_kit.audit.reference import build_reference, open_reference
from bench_kit.audit.registry import AuditContext, spec_of
from bench_kit.types import Item

# --- the MinHash signature cache and the progress callback ------------------------------------


def _progress_run(tmp_path: Path, name: str, items: list[dict], refs: list[dict],
                  **settings: Any):
    """Like `_run`, with a progress callback; returns (findings, progress calls)."""
    source = tmp_path / "ref_src.jsonl"
    source.write_text("".join(json.dumps(r) + "\n" for r in refs), encoding="utf-8")
    build_reference([source], tmp_path / "ref.jsonl")
    seen: list[tuple] = []
    ctx = AuditContext(items=[Item.model_validate(row) for row in items], root=tmp_path,
                       references=open_reference([tmp_path / "ref.jsonl"]),
                       progress=lambda *a: seen.append(a))
    spec = spec_of(name)
    return list(spec.run(ctx, spec.params(contamination=settings))), seen


MINHASH_TEXT = "What is the boiling point of water at sea level in kelvin?"
MINHASH_REFS = [{"id": "r0", "question": "Who painted the ceiling of the chapel?"},
                {"id": "r1", "question": MINHASH_TEXT},
                {"id": "r2", "question": "How many moons does Mars have?"}]


def test_minhash_signatures_are_cached_and_a_stale_file_is_replaced(tmp_path, monkeypatch):
    import numpy as np

    calls = []
    real = cm.signatures
    monkeypatch.setattr(cm, "signatures", lambda texts, *a: calls.append(len(texts))
                        or real(texts, *a))
    cache = tmp_path / "cache"
    items = [_open("q", MINHASH_TEXT)]
    first, seen = _progress_run(tmp_path, "contamination.minhash", items, MINHASH_REFS,
                                cache_dir=str(cache))
    assert calls == [1, 3]                 # the item, then the 3 reference rows
    assert seen == [("contamination.minhash", 3, 3)]
    [stored] = cache.glob("minhash-*.npy")
    rows = np.load(stored)
    assert rows.shape == (3, 128) and rows.dtype == np.uint32
    assert rows[1].tolist() == [int(v) for v in real([cm.reference_text(MINHASH_TEXT, [])],
                                                     5, 128)[0].hashvalues]
    calls.clear()
    again, seen = _progress_run(tmp_path, "contamination.minhash", items, MINHASH_REFS,
                                cache_dir=str(cache))
    assert calls == [1] and seen == [("contamination.minhash", 3, 3)]   # read from the cache
    assert [(f.id, f.evidence["ref_id"], f.score) for f in again] == [
        (f.id, f.evidence["ref_id"], f.score) for f in first] == [("q", "r1", 1.0)]
    # a file of another shape under the key (a stale or foreign one) is recomputed
    np.save(stored, np.zeros((2, 128), dtype=np.uint32))
    calls.clear()
    third, _ = _progress_run(tmp_path, "contamination.minhash", items, MINHASH_REFS,
                             cache_dir=str(cache))
    assert calls == [1, 3] and [f.evidence["ref_id"] for f in third] == ["r1"]
    assert np.load(stored).shape == (3, 128)


def test_progress_is_reported_at_the_last_row(tmp_path):
    items = [_open("q", MINHASH_TEXT)]
    for name in ("contamination.exact", "contamination.ngram"):
        _, seen = _progress_run(tmp_path, name, items, MINHASH_REFS, cache_dir=None)
        assert seen == [(name, 3, 3)]
    _, seen = _progress_run(tmp_path, "contamination.minhash", items, MINHASH_REFS,
                            cache_dir=None)
    assert seen == [("contamination.minhash", 3, 3)]


def test_an_impossible_lsh_setting_names_the_params_file(tmp_path):
    from bench_kit.errors import ConfigError

    with pytest.raises(ConfigError, match=r"^params.yaml: audit.contamination.minhash_threshold: "
                                          r"0.99 with minhash_perm 16: .*lower the threshold "
                                          r"or raise minhash_perm$"):
        _run(tmp_path, "contamination.minhash", [_open("q", MINHASH_TEXT)], MINHASH_REFS,
             minhash_threshold=0.99, minhash_perm=16)


def test_a_template_text_is_info_in_every_text_check_and_findings_come_by_id(tmp_path):
    # the same 13-word question on two items with different images: the text alone cannot
    # tell which was copied (info, naming the sibling); listed by id, not by file order
    from bench_kit.audit.content import TEMPLATE_ASK

    question = " ".join(WORDS)
    items = [make_item(id="tb", question=question, task="open", answers=["x"], image="b.png"),
             make_item(id="ta", question=question, task="open", answers=["x"], image="a.png")]
    refs = [{"id": "r", "question": question}]
    for name, before in [("contamination.exact", "error"), ("contamination.ngram", "error"),
                         ("contamination.minhash", "warn")]:
        found = _run(tmp_path, name, items, refs)
        assert [f.id for f in found] == ["ta", "tb"], name
        first = found[0]
        assert first.severity == "info", name
        assert first.evidence["severity_without_template"] == before, name
        assert first.evidence["template_siblings"] == 1, name
        assert first.evidence["sibling_examples"] == ["tb"], name
        assert first.message.endswith(TEMPLATE_ASK), name
        assert first.evidence["ref_id"] == "r" and first.score == 1.0, name


def test_minhash_cache_is_keyed_by_corpus_and_shingle_and_read_in_chunks(tmp_path, monkeypatch):
    calls = []
    real = cm.signatures
    monkeypatch.setattr(cm, "signatures", lambda texts, *a: calls.append(len(texts))
                        or real(texts, *a))
    real_chunks = cm.row_chunks
    monkeypatch.setattr(cm, "row_chunks", lambda rows, size=2: real_chunks(rows, size))
    cache = str(tmp_path / "cache")
    items = [_open("q", MINHASH_TEXT)]
    # the match is the last row, in the second chunk of 2: written and read at offset 2
    refs = [MINHASH_REFS[0], MINHASH_REFS[2], MINHASH_REFS[1]]
    for expected_calls in ([1, 2, 1], [1]):                 # computed, then cached
        calls.clear()
        found, seen = _progress_run(tmp_path, "contamination.minhash", items, refs,
                                    cache_dir=cache)
        assert calls == expected_calls
        assert seen == [("contamination.minhash", 3, 3)]   # after the last chunk
        assert [(f.evidence["ref_id"], f.score) for f in found] == [("r1", 1.0)]
    # another corpus of the same size: computed again, not read from the first one's file
    calls.clear()
    other = [MINHASH_REFS[0], {"id": "r9", "question": "Where is the tallest tower?"},
             MINHASH_REFS[2]]
    assert _progress_run(tmp_path, "contamination.minhash", items, other,
                         cache_dir=cache)[0] == []
    assert calls == [1, 2, 1]
    # another shingle size: computed again
    calls.clear()
    _progress_run(tmp_path, "contamination.minhash", items, refs, cache_dir=cache,
                  minhash_shingle=4)
    assert calls == [1, 2, 1]


def test_minhash_lsh_candidates_below_the_threshold_are_not_reported(tmp_path):
    from datasketch import LeanMinHash, MinHashLSH

    item = "what is the boiling point of water at sea level in kelvin"
    reordered = "the boiling point of water at sea level in kelvin is what"
    # Jaccard 0.738 on 5-shingles, yet LSH (threshold 0.8, 128 permutations) proposes it
    score = cm._jaccard(cm.shingles(item, 5), cm.shingles(reordered, 5))
    assert round(score, 3) == 0.738
    lsh = MinHashLSH(threshold=0.8, num_perm=128)
    item_sig, ref_sig = cm.signatures([item, reordered], 5, 128)
    lsh.insert(0, item_sig)
    assert lsh.query(LeanMinHash(seed=1, hashvalues=ref_sig.hashvalues, scheme=ref_sig.scheme))
    assert _run(tmp_path, "contamination.minhash", [_open("q", item)],
                [{"id": "r", "question": reordered}]) == []


def test_minhash_first_best_row_and_the_options(tmp_path):
    # two identical rows: the first is kept
    [found] = _run(tmp_path, "contamination.minhash", [_open("q", MINHASH_TEXT)],
                   [{"id": "first", "question": MINHASH_TEXT},
                    {"id": "second", "question": MINHASH_TEXT}])
    assert found.evidence["ref_id"] == "first"
    # an mc item is compared with its options: the same question and options, Jaccard 1
    mc = make_item(id="mc", question="What colour is the ball in the picture here?", task="mc",
                   answers=["A"], choices={"A": "Red", "B": "Blue"})
    [found] = _run(tmp_path, "contamination.minhash", [mc],
                   [{"id": "r", "question": "What colour is the ball in the picture here?",
                     "choices": ["Red", "Blue"]}])
    assert found.evidence["jaccard"] == 1.0 and found.evidence["score"] == 1.0


def test_minhash_without_item_text_finds_nothing(tmp_path):
    assert _run(tmp_path, "contamination.minhash", [_open("q", "?")], MINHASH_REFS) == []


def test_exact_keeps_the_first_row_of_each_kind_and_joins_the_hint(tmp_path):
    mc = {"task": "mc", "answers": ["A"], "choices": {"A": "Red", "B": "Blue"}}
    items = [make_item(id="both", question="What colour is the ball?", **mc),
             _open("plain", "How tall is the tower?"),
             _open("hinted", "Which is wet?", meta={"hint": "Look: rain."})]
    refs = [{"id": "o1", "question": "What colour is the ball?", "choices": ["red", "blue"]},
            {"id": "o2", "question": "What colour is the ball?", "choices": ["blue", "red"]},
            {"id": "p1", "question": "How tall is the tower?"},
            {"id": "p2", "question": "How tall is the tower?"},
            {"id": "h", "question": "Look: rain. Which is wet?"}]
    found = {f.id: f for f in _run(tmp_path, "contamination.exact", items, refs)}
    assert {k: f.evidence["ref_id"] for k, f in found.items()} == {
        "both": "o1", "plain": "p1", "hinted": "h"}
    assert all(f.evidence["score"] == 1.0 for f in found.values())


def test_item_texts():
    ctx = AuditContext(items=[Item.model_validate(make_item(
        id="q", question="Which is wet?", meta={"hint": "Look: rain."}, task="mc",
        answers=["A"], choices={"A": "Rain", "B": "Sun"}))], root=Path("."))
    # (id, hint + question + options, hint + question), normalised
    assert cm.item_texts(ctx) == [("q", "look rain which is wet rain sun",
                                   "look rain which is wet")]


def test_progress_with_one_reference_row(tmp_path):
    for name in ("contamination.exact", "contamination.ngram"):
        _, seen = _progress_run(tmp_path, name, [_open("q", MINHASH_TEXT)], MINHASH_REFS[:1],
                                cache_dir=None)
        assert seen == [(name, 1, 1)]


def test_scores_in_the_evidence(tmp_path):
    q15 = " ".join(WORDS + ["november", "oscar"])     # 3 grams, 1 shared: 1/3
    [finding] = _run(tmp_path, "contamination.ngram", [_open("q", q15)],
                     [{"id": "r", "question": " ".join(WORDS)}])
    assert finding.evidence["score"] == 0.3333
    [finding] = _run(tmp_path, "contamination.minhash", [_open("q", "abcdefghi")],
                     [{"id": "r", "question": "abcdefghij"}], minhash_threshold=5 / 6,
                     minhash_perm=256)
    assert finding.evidence["score"] == 0.8333          # 5 / 6


def test_shingle_hash_of_five_characters_by_hand():
    # "abcde": 97 R^4 + 98 R^3 + 99 R^2 + 100 R + 101 modulo 2**32 (Python integers)
    r = 1_000_003
    expected = (97 * r**4 + 98 * r**3 + 99 * r**2 + 100 * r + 101) % 2**32
    assert cm.shingle_hashes("abcde", 5).tolist() == [expected]


def test_ngram_items_after_an_all_boilerplate_item_are_read(tmp_path):
    # three items of the same 13 words (every gram boilerplate: nothing to index), then one
    # sharing its first 13-gram with the reference: still found
    shared = " ".join(WORDS)
    items = [_open(f"b{k}", shared) for k in range(3)]
    items.append(_open("z", " ".join(["zulu", *WORDS[1:], "november"])))
    [finding] = _run(tmp_path, "contamination.ngram", items,
                     [{"id": "r", "question": " ".join(["zulu", *WORDS[1:]])}])
    assert finding.id == "z" and finding.evidence["shared"] == 1
