"""The issue's acceptance fixture: one audit of a benchmark with planted defects of every
kind (ambiguity, label, duplicate images, cross-split leakage, contamination of text and
images, exposure to a training cutoff) finds each one; the clean demo items stay unflagged."""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path

import pytest
from click.testing import CliRunner
from conftest import make_item
from test_audit_images import blob, planted_rows, write_items, write_planted_images
from test_cli_audit import (
    IMAGE_DEFECTS,
    PARAMS,
    TEXT_DEFECTS,
    clean_rows,
    text_rows,
    write_clean_images,
)
from test_contamination import PLANTED, REFERENCE

from bench_kit.cli import cli

REPO = Path(__file__).resolve().parents[2]
CUTOFF = "2026-06-01"


@pytest.fixture
def bench(tmp_path) -> Path:
    write_planted_images(tmp_path)
    write_clean_images(tmp_path)
    blob(200).save(tmp_path / "img" / "public.png")
    (tmp_path / "refimg").mkdir()
    blob(200).save(tmp_path / "refimg" / "from_the_web.jpg", quality=95)
    contaminated = [make_item(id=ident, **fields) for ident, (fields, _) in PLANTED.items()]
    rows = (planted_rows() + text_rows() + clean_rows() + contaminated
            + [make_item(id="public_img", image="img/public.png"),
               make_item(id="old", question="Which shape has four equal sides?", task="open",
                         answers=["square"], created_at="2025-01-01T00:00:00Z")])
    write_items(tmp_path / "items.jsonl", rows)
    write_items(tmp_path / "public.jsonl", REFERENCE)
    CliRunner().invoke(cli, ["audit", "reference", "build", "--out", str(tmp_path / "ref.jsonl"),
                             str(tmp_path / "public.jsonl")])
    (tmp_path / "params.yaml").write_text(
        PARAMS.format(disabled="[]") + f"  cutoffs:\n    some-model: {CUTOFF}\n"
        f"  contamination:\n    cache_dir: {tmp_path / 'cache'}\n", encoding="utf-8")
    splits = tmp_path / "splits"
    write_items(splits / "dev.jsonl", [make_item(id=i) for i in ("base_q1", "text_q1")])
    write_items(splits / "test.jsonl", [make_item(id=i) for i in ("copy_q", "text_q2")])
    return tmp_path


def test_every_planted_defect_kind_is_found(bench):
    result = CliRunner().invoke(cli, [
        "audit", "data", "--items", str(bench / "items.jsonl"), "--params",
        str(bench / "params.yaml"), "--out", str(bench / "out"), "--splits",
        str(bench / "splits"), "--reference", str(bench / "ref.jsonl"), "--reference-images",
        str(bench / "refimg")])
    assert result.exit_code == 0, result.output
    findings = [json.loads(line) for line in
                (bench / "out" / "findings.jsonl").read_text(encoding="utf-8").splitlines()]
    pairs = {(f["id"], f["check"]) for f in findings}
    planted = ({(i, c) for i, (c, _) in TEXT_DEFECTS.items()} | set(IMAGE_DEFECTS.items())
               | {(i, c) for i, (_, checks) in PLANTED.items() for c in checks}
               | {("base_q1", "leakage.cross_split"), ("text_q1", "leakage.cross_split"),
                  ("public_img", "contamination.image"), ("old", "contamination.exposed")})
    assert planted <= pairs, sorted(planted - pairs)
    summary = json.loads((bench / "out" / "summary.json").read_text(encoding="utf-8"))
    assert summary["checks_skipped"] == []
    assert set(summary["by_check"]) == {check for _, check in planted} | {
        "ambiguity.multi_attribute_count", "label.gold_not_in_choices", "label.empty_answers",
        "schema.image", "schema.invalid_item", "schema.group_images",
        "label.contradictory_answers", "ambiguity.missing_image",
        "redundancy.repeated_question"}
    kinds = {check for _, check in planted}
    assert {k.split(".")[0] for k in kinds} == {"ambiguity", "label", "redundancy", "leakage",
                                                "contamination"}
    # Clean items: no warn/error from any check (contamination included).
    clean = {row["id"] for row in clean_rows()}
    assert not [f for f in findings if f["id"] in clean and f["severity"] != "info"]


def _false_positive_module():
    spec = importlib.util.spec_from_file_location(
        "audit_false_positives", REPO / "benchmarks" / "audit_false_positives.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.mark.slow
def test_false_positive_rate_on_clean_demo_items(tmp_path):
    report = _false_positive_module().measure(tmp_path, scale=0.25)
    assert report["items"] > 100 and report["reference_images"] > 10
    assert {s["check"] for s in report["checks_skipped"]} <= {"leakage.cross_split",
                                                              "contamination.exposed"}
    assert {"contamination.exact", "contamination.image"} <= set(report["checks_run"])
    assert report["false_positive_rate"] <= 0.05, report["flags_by_check"]
