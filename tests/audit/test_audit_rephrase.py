"""Rephrased contamination on the planted set of real public questions (fixtures/rephrase):
the shipped thresholds catch ≥ 80% of the rephrasings at warn, on the half the weights were
not tuned on and on the whole set, and flag ≤ 3% of the clean same-topic questions of the
whole set — the guard the operating point was chosen under (benchmarks/
rephrase_operating_point.py; the thresholds are tuned on public sets, not on a half)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from conftest import make_item

from bench_kit.audit.contamination_rephrase import contrasts, text_features
from bench_kit.audit.reference import build_reference
from bench_kit.audit.stage import audit_data
from bench_kit.io import write_jsonl

FIXTURE = Path(__file__).parent / "fixtures" / "rephrase"


@pytest.fixture(scope="module")
def audited(tmp_path_factory):
    folder = tmp_path_factory.mktemp("rephrase")
    rows = [json.loads(line) for line in (FIXTURE / "items.jsonl").read_text().splitlines()]
    write_jsonl(folder / "items.jsonl", [make_item(id=r["id"], question=r["question"],
                                                   task="open", answers=["-"])
                                         for r in rows])
    build_reference([FIXTURE / "reference.jsonl"], folder / "ref.jsonl")
    (folder / "params.yaml").write_text(
        f"audit:\n  contamination:\n    cache_dir: {folder / 'cache'}\n", encoding="utf-8")
    result = audit_data(folder / "items.jsonl", folder / "out",
                        params_path=folder / "params.yaml", references=[folder / "ref.jsonl"])
    findings = [json.loads(line) for line in result.findings_path.read_text().splitlines()]
    warned = {f["id"] for f in findings if f["check"] == "contamination.embedding"
              and f["severity"] != "info"}
    return rows, warned, findings


@pytest.mark.parametrize("half", ["test", None])
def test_rephrase_recall_and_clean_bound(audited, half):
    rows, warned, _ = audited
    chosen = [r for r in rows if half is None or r["half"] == half]
    rephrased = [r["id"] for r in chosen if r["kind"] == "rephrase"]
    clean = [r["id"] for r in chosen if r["kind"] == "clean"]
    recall = sum(i in warned for i in rephrased) / len(rephrased)
    flagged = sum(i in warned for i in clean) / len(clean)
    assert recall >= 0.8, recall
    # measured: 2 of 42 on the test half (4.8%), 2 of 85 on the whole set
    assert flagged <= (0.03 if half is None else 0.05), [i for i in clean if i in warned]


def test_finding_names_the_reference_and_the_shared_evidence(audited):
    _, _, findings = audited
    [finding] = [f for f in findings if f["id"] == "reph-010"
                 and f["check"] == "contamination.embedding"]
    assert finding["evidence"]["ref_id"].endswith("chartqa-h010") or \
        "Slovenia" in finding["evidence"]["reference"]
    assert "slovenia" in finding["evidence"]["shared_rare"]
    assert finding["evidence"]["verdict"].startswith("rephrase")


def test_contrasting_template_words_are_evidence_against():
    a = text_features("Which line represents data about girls?")
    b = text_features("Which line represents data about boys?")
    assert contrasts(a, b) == ["group"]
    assert contrasts(text_features("the biggest segment"),
                     text_features("the largest segment")) == []
    assert text_features("the 4th most popular").numbers == text_features(
        "the fourth most popular").numbers
