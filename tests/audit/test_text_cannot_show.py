"""A text match that cannot show a copy is info (bench_kit/audit/contamination_specific.py),
on real excerpts: ChartQA human test questions and ScienceQA problems against MathVista."""

from __future__ import annotations

import json
from typing import Any

import pytest

from bench_kit.audit.contamination_specific import GENERIC, PASSAGE, question_share
from tests.audit.test_audit_real import real_items


@pytest.fixture(scope="module")
def audited(tmp_path_factory) -> dict[str, dict[tuple[str, str], dict[str, Any]]]:
    """Findings by (item, check) of the ChartQA and ScienceQA excerpts vs MathVista."""
    from bench_kit.audit.reference import build_reference
    from bench_kit.audit.stage import audit_data

    root = tmp_path_factory.mktemp("real")
    source = real_items.mathvista_reference_source(root / "ref")
    reference = root / "ref" / "mathvista.ref.jsonl"
    build_reference([source], reference)
    out = {}
    for name in ("chartqa", "scienceqa"):
        items = real_items.BUILDERS[name](root / name)
        result = audit_data(items, root / name / "audit", params_path=None,
                            references=[reference])
        rows = [json.loads(line) for line in
                result.findings_path.read_text(encoding="utf-8").split("\n") if line]
        out[name] = {(f["id"], f["check"]): f for f in rows
                     if f["check"].startswith("contamination.")}
    return out


@pytest.mark.parametrize("ident", ["chartqa-h004", "chartqa-h070", "chartqa-h074"])
def test_a_generic_chart_template_is_info(audited, ident):
    # "What's the value of the lowest bar?" vs MathVista's "What is the value of the smallest
    # bar?" (another chart): the words match, only the image could show a copy.
    finding = audited["chartqa"][(ident, "contamination.embedding")]
    assert finding["severity"] == "info"
    assert finding["message"].startswith(GENERIC)
    assert finding["evidence"]["severity_without_rule"] == "warn"


def test_a_generic_ngram_match_is_info(audited):
    # "…between the highest and the lowest green bar" vs "… lowest time required to import"
    finding = audited["chartqa"][("chartqa-h005", "contamination.ngram")]
    assert finding["severity"] == "info" and finding["message"].startswith(GENERIC)


def test_a_specific_chart_rephrase_stays_warn(audited):
    # "average of the smallest gray bar and largest light blue bar" vs "average of longest
    # light blue bar and shortest gray bar": "gray" is rare, the rephrase is reported.
    assert audited["chartqa"][("chartqa-h073", "contamination.embedding")]["severity"] == "warn"


@pytest.mark.parametrize("pid", ["1304", "1526", "234", "667"])
def test_copied_scienceqa_problems_stay_warn_or_error(audited, pid):
    for check in ("contamination.ngram", "contamination.minhash", "contamination.embedding"):
        assert audited["scienceqa"][(f"sqa-{pid}", check)]["severity"] in ("warn", "error")


@pytest.mark.parametrize("pid", ["565", "70"])
def test_a_shared_genetics_passage_with_another_question_is_info(audited, pid):
    finding = audited["scienceqa"][(f"sqa-{pid}", "contamination.ngram")]
    assert finding["severity"] == "info"
    assert finding["message"].startswith(PASSAGE)
    assert finding["evidence"]["question_share"] < 0.5


def test_question_share_counts_the_questions_own_trigrams():
    ref = "in a group of horses some have a black coat which month is the hottest in rome"
    assert question_share("Which month is the hottest in Rome?", ref) == 1.0
    assert question_share("What is Bambi's genotype for the coat color gene?", ref) == 0.0
