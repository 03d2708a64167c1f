"""The text contamination checks' rules on their edges (bench_kit/audit/contamination.py,
contamination_specific.py, contamination_judge.py), on a reference of a few rows built in
a temporary folder: the n-gram size switch (13 / 8 / none), the error share (≥ 0.5), the
boilerplate count, the exact match's kinds, MinHash's inclusive threshold, the quote cut,
the hash by hand. Expected values are worked out by hand beside each case; the end-to-end
runs on planted data are in test_contamination.py."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from conftest import make_item

from bench_kit.audit import contamination as cm
from bench_kit.audit.contamination_judge import Verdict, parse_verdict
from bench_kit.audit.contamination_specific import question_share
from bench_kit.audit.reference import build_reference, open_reference
from bench_kit.audit.registry import AuditContext, spec_of
from bench_kit.audit.stage import list_checks
from bench_kit.types import Item

list_checks()  # registers the built-in checks

WORDS = "alpha bravo charlie delta echo foxtrot golf hotel india juliet kilo lima mike".split()


def _run(tmp_path: Path, name: str, items: list[dict], refs: list[dict], **settings: Any):
    source = tmp_path / "ref_src.jsonl"
    source.write_text("".join(json.dumps(r) + "\n" for r in refs), encoding="utf-8")
    build_reference([source], tmp_path / "ref.jsonl")
    ctx = AuditContext(items=[Item.model_validate(row) for row in items], root=tmp_path,
                       references=open_reference([tmp_path / "ref.jsonl"]))
    spec = spec_of(name)
    return list(spec.run(ctx, spec.params(contamination={"cache_dir": None, **settings})))


def _open(id_: str, question: str, **kw: Any) -> dict:
    return make_item(id=id_, question=question, task="open", answers=["x"], **kw)


# --- helpers ----------------------------------------------------------------------------------


@pytest.mark.parametrize("count, size", [(14, 13), (13, 13), (12, 8), (8, 8), (7, None)])
def test_ngram_size_switch(count, size):
    assert cm.ngram_size(count, cm.ContaminationSettings()) == size


def test_ngram_size_follows_the_settings():
    settings = cm.ContaminationSettings(ngram_n=5, ngram_short_n=3)
    assert [cm.ngram_size(c, settings) for c in (6, 5, 4, 3, 2)] == [5, 5, 3, 3, None]


def test_shingles():
    assert cm.shingles("abcdef", 5) == {b"abcde", b"bcdef"}
    assert cm.shingles("abcde", 5) == {b"abcde"}          # exactly the size: one shingle
    assert cm.shingles("ab", 5) == {b"ab"}                # shorter: the whole text
    assert cm.shingles("图中", 1) == {"图".encode(), "中".encode()}


def test_shingle_hashes_by_hand():
    # polynomial hash over code points, multiplier 1,000,003, modulo 2**32:
    # "ab" = 97 * 1000003 + 98; "bc" = 98 * 1000003 + 99
    assert cm.shingle_hashes("abc", 2).tolist() == [97000389, 98000393]
    # "ab" shorter than 5: one hash of the whole text
    assert cm.shingle_hashes("ab", 5).tolist() == [97000389]
    # "abc" with size 3: 97 * 1000003**2 + 98 * 1000003 + 99 = 346,735,972,082 mod 2**32
    assert cm.shingle_hashes("abc", 3).tolist() == [3138588402]
    # distinct shingles only: "abab" has "ab" twice
    assert cm.shingle_hashes("abab", 2).tolist() == [97000389, 98000391]  # "ba" = 98*R + 97


def test_reference_quote_is_cut_after_200_characters():
    row = {"ref_id": "r", "source": "s.jsonl", "original": "x" * 200}
    assert cm.ref_evidence(row) == {"ref_id": "r", "source": "s.jsonl", "reference": "x" * 200}
    row["original"] = "x" * 201
    assert cm.ref_evidence(row)["reference"] == "x" * 199 + "…"


def test_row_chunks():
    assert list(cm.row_chunks(iter([{"k": i} for i in range(5)]), 2)) == [
        [{"k": 0}, {"k": 1}], [{"k": 2}, {"k": 3}], [{"k": 4}]]
    assert [len(c) for c in cm.row_chunks(iter([{}] * 4), 2)] == [2, 2]   # no empty chunk
    assert list(cm.row_chunks(iter([]), 2)) == []
    assert [len(c) for c in cm.row_chunks(iter([{}] * 4097))] == [4096, 1]   # the default


def test_jaccard():
    assert cm._jaccard({b"a", b"b"}, {b"b", b"c"}) == pytest.approx(1 / 3)
    assert cm._jaccard(set(), set()) == 0.0


@pytest.mark.parametrize("settings, ok", [
    ({"review": 0.97, "rephrase": 0.97}, True),        # equal thresholds: no review band
    ({"review": 0.98, "rephrase": 0.97}, False),
    ({"ngram_short_n": 13, "ngram_n": 13}, True),
    ({"ngram_short_n": 14, "ngram_n": 13}, False),
])
def test_settings_order(settings, ok):
    from pydantic import ValidationError

    if ok:
        cm.ContaminationSettings(**settings)
    else:
        with pytest.raises(ValidationError):
            cm.ContaminationSettings(**settings)


def test_parse_verdict_and_evidence():
    assert parse_verdict("No. Yes.") is False            # the first word decides
    assert parse_verdict("Yesterday") is None             # a whole word only
    assert Verdict(True, "Yes").evidence("m") == {"judge": "m", "judge_verdict": "rephrase",
                                                  "judge_response": "Yes"}
    assert Verdict(False, "no").evidence("m")["judge_verdict"] == "different"
    assert Verdict(None, "r" * 300).evidence("m") == {"judge": "m", "judge_verdict": "unclear",
                                                      "judge_response": "r" * 200}
    assert Verdict(None, error="budget exhausted").evidence("m") == {
        "judge": "m", "judge_error": "budget exhausted"}


def test_question_share():
    # trigrams of "a b c d": "a b c", "b c d"; the reference holds only the first
    assert question_share("a b c d", "x a b c y") == 0.5
    assert question_share("a b", "a b") == 1.0             # short: the whole question ...
    assert question_share("a b", "a b c") == 0.0           # ... against the row's trigrams
    assert question_share("a b", "b a") == 0.0
    assert question_share("?", "anything") == 1.0         # no words: nothing to compare


# --- contamination.exact ----------------------------------------------------------------------


def test_exact_kinds(tmp_path):
    mc = {"task": "mc", "answers": ["A"], "choices": {"A": "Red", "B": "Blue"}}
    items = [make_item(id="both", question="What colour is the ball?", **mc),
             _open("plain", "How tall is the tower?"),
             make_item(id="mc_vs_plain", question="Where is the cat?", **mc),
             _open("plain_vs_mc", "Where is the dog?")]
    refs = [{"id": "r1", "question": "what colour is the BALL", "choices": ["red", "blue"]},
            {"id": "r2", "question": "How tall is the tower?"},
            {"id": "r3", "question": "Where is the cat?"},
            {"id": "r4", "question": "Where is the dog?", "choices": ["x", "y"]}]
    found = {f.id: f for f in _run(tmp_path, "contamination.exact", items, refs)}
    assert {k: f.evidence["matched"] for k, f in found.items()} == {
        "both": "question+options", "plain": "question", "mc_vs_plain": "question",
        "plain_vs_mc": "question"}
    assert found["both"].message == ("question + options equal to reference 'r1' (ref_src.jsonl) "
                                     "after normalisation")
    assert found["both"].severity == "error" and found["both"].score == 1.0
    assert found["both"].evidence["reference"] == "what colour is the BALL"


def test_exact_other_options_are_not_a_match_and_options_beat_question(tmp_path):
    mc = {"task": "mc", "answers": ["A"], "choices": {"A": "Red", "B": "Blue"}}
    items = [make_item(id="q", question="What colour is the ball?", **mc)]
    other = [{"id": "r1", "question": "What colour is the ball?", "choices": ["green", "blue"]}]
    assert _run(tmp_path, "contamination.exact", items, other) == []
    # a question-only match first, then one with the options: the options match is kept
    refs = [{"id": "r0", "question": "What colour is the ball?"},
            {"id": "r1", "question": "What colour is the ball?", "choices": ["red", "blue"]}]
    [finding] = _run(tmp_path, "contamination.exact", items, refs)
    assert finding.evidence["ref_id"] == "r1" and finding.evidence["matched"] == "question+options"


# --- contamination.ngram ----------------------------------------------------------------------


def test_ngram_error_from_half_the_grams(tmp_path):
    # 14 words: 2 distinct 13-grams; the reference holds the first: 1 / 2 = 0.5, an error
    q14 = " ".join(WORDS + ["november"])
    found = _run(tmp_path, "contamination.ngram", [_open("q", q14)],
                 [{"id": "r", "question": " ".join(["zulu", *WORDS])}])
    [finding] = found
    assert finding.severity == "error" and finding.score == 0.5
    assert finding.evidence["n"] == 13 and finding.evidence["shared"] == 1
    assert finding.evidence["total"] == 2 and finding.evidence["span"] == " ".join(WORDS)
    assert finding.message == "shares 1/2 13-grams with reference 'r' (ref_src.jsonl)"
    # 15 words: 3 grams, 1 shared: 0.3333, a warning
    q15 = " ".join(WORDS + ["november", "oscar"])
    [finding] = _run(tmp_path, "contamination.ngram", [_open("q", q15)],
                     [{"id": "r", "question": " ".join(WORDS)}])
    assert finding.severity == "warn" and finding.score == pytest.approx(0.3333, abs=1e-4)


def test_ngram_short_questions_use_8_grams_and_shorter_none(tmp_path):
    q8 = " ".join(WORDS[:8])          # 8 words: one 8-gram
    [finding] = _run(tmp_path, "contamination.ngram", [_open("q", q8)],
                     [{"id": "r", "question": q8 + " and more"}])
    assert finding.evidence["n"] == 8 and finding.score == 1.0
    q7 = " ".join(WORDS[:7])          # 7 words: no n-gram (exact, MinHash cover it)
    assert _run(tmp_path, "contamination.ngram", [_open("q", q7)],
                [{"id": "r", "question": q7}]) == []


def test_ngram_boilerplate_shared_by_three_items_is_not_counted(tmp_path):
    shared = " ".join(WORDS)
    items = [_open(f"i{k}", f"{shared} {tail}") for k, tail in enumerate(["one", "two", "three"])]
    refs = [{"id": "r", "question": shared}]
    # each item: 2 grams, the first (the shared text) in 3 items: boilerplate, not counted
    assert _run(tmp_path, "contamination.ngram", items, refs) == []
    # two items share it: below 3, counted
    assert {f.id for f in _run(tmp_path, "contamination.ngram", items[:2], refs)} == {"i0", "i1"}
    # the count is a setting
    assert len(_run(tmp_path, "contamination.ngram", items, refs,
                    ngram_boilerplate_items=4)) == 3


def test_ngram_keeps_the_reference_row_sharing_most(tmp_path):
    q15 = " ".join(WORDS + ["november", "oscar"])  # grams g1, g2, g3
    refs = [{"id": "one", "question": " ".join(WORDS)},                       # g1
            {"id": "two", "question": " ".join(WORDS + ["november"])},        # g1, g2
            {"id": "also_two", "question": " ".join(WORDS[1:] + ["november", "oscar"])}]
    [finding] = _run(tmp_path, "contamination.ngram", [_open("q", q15)], refs)
    # "two" shares 2; "also_two" shares 2 as well (g2, g3) but comes later: not more
    assert finding.evidence["ref_id"] == "two" and finding.evidence["shared"] == 2


# --- contamination.minhash --------------------------------------------------------------------


def test_minhash_threshold_is_inclusive(tmp_path):
    # 9 characters "abcdefghi": 5 shingles of 5; the reference "abcdefghij" adds one: 5 / 6
    items = [_open("q", "abcdefghi")]
    refs = [{"id": "r", "question": "abcdefghij"}]
    found = _run(tmp_path, "contamination.minhash", items, refs, minhash_threshold=5 / 6,
                 minhash_perm=256)
    # LSH proposes the pair (datasketch's permutations are seeded: the same every run),
    # then the exact Jaccard decides
    [finding] = found
    assert finding.evidence["jaccard"] == round(5 / 6, 4)
    assert finding.message.endswith("near-duplicate of reference 'r' (ref_src.jsonl): "
                                    "Jaccard 0.83 on 5-character shingles")
    # no word in common ("abcdefghi" vs "abcdefghij"): the text cannot show a copy
    assert finding.severity == "info"
    assert finding.evidence["severity_without_rule"] == "warn"
    assert _run(tmp_path, "contamination.minhash", items, refs, minhash_threshold=0.84) == []


def test_minhash_identical_text_is_found(tmp_path):
    text = "What is the boiling point of water at sea level in kelvin?"
    [finding] = _run(tmp_path, "contamination.minhash", [_open("q", text)],
                     [{"id": "r", "question": text}])
    assert finding.score == 1.0 and finding.evidence["jaccard"] == 1.0
    assert finding.severity == "warn"


def test_a_shared_passage_with_another_question_is_info(tmp_path):
    passage = ("In a group of horses some have brown coats and others have black coats "
               "and the trait is set by one gene")
    item = _open("q", "What is Bambi's genotype?", meta={"hint": passage})
    refs = [{"id": "r", "question": "Which coat colour is dominant here?", "hint": passage}]
    [finding] = _run(tmp_path, "contamination.ngram", [item], refs)
    # the question's trigrams ("what is bambi's", "is bambi's genotype") are not in the row
    assert finding.severity == "info" and finding.evidence["question_share"] == 0.0
    assert finding.evidence["text_cannot_show"] == "shared passage, different question"
    assert finding.evidence["severity_without_rule"] == "error"
    assert finding.message.startswith("shared passage, different question — shares ")
