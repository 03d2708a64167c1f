"""Freshness: the share of items newer than `audit.fresh_after`, and items exposed to a
model's training cutoff (`audit.cutoffs`) in findings and the summary."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner
from conftest import make_item
from test_audit_images import write_items

from bench_kit.audit.freshness import FreshnessParams, as_utc, freshness_summary
from bench_kit.cli import cli
from bench_kit.types import Item

DATES = {"old": "2023-03-01T00:00:00Z", "mid": "2024-06-15T12:00:00Z",
         "new": "2025-02-01T00:00:00Z", "newer": "2026-01-10T08:00:00Z",
         "edge": "2024-01-01T00:00:00Z"}


def audit(tmp_path: Path, audit_yaml: str) -> tuple[list[dict], dict]:
    write_items(tmp_path / "bench" / "items.jsonl",
                [make_item(id=k, created_at=v, question="How many circles are there?")
                 for k, v in DATES.items()])
    (tmp_path / "params.yaml").write_text("audit:\n" + audit_yaml, encoding="utf-8")
    result = CliRunner().invoke(cli, ["audit", "data", "--items",
                                      str(tmp_path / "bench" / "items.jsonl"), "--params",
                                      str(tmp_path / "params.yaml"), "--out",
                                      str(tmp_path / "out")])
    assert result.exit_code == 0, result.output
    findings = [json.loads(line) for line in
                (tmp_path / "out" / "findings.jsonl").read_text(encoding="utf-8").splitlines()]
    return findings, json.loads((tmp_path / "out" / "summary.json").read_text(encoding="utf-8"))


def test_exposed_items_per_model_and_fresh_share(tmp_path):
    findings, summary = audit(tmp_path, "  fresh_after: 2024-12-31\n  fresh_quota: 0.5\n"
                                        "  cutoffs:\n    model-a: 2024-01-01\n"
                                        "    model-b: 2025-06-30T00:00:00Z\n")
    exposed = {f["id"]: f for f in findings if f["check"] == "contamination.exposed"}
    assert set(exposed) == {"old", "mid", "new", "edge"}
    assert exposed["edge"]["evidence"]["models"] == ["model-b"]  # not *before* model-a's
    assert exposed["old"]["evidence"]["models"] == ["model-a", "model-b"]
    assert exposed["old"]["score"] == 1.0 and exposed["mid"]["score"] == 0.5
    assert exposed["new"]["evidence"] == {"created_at": "2025-02-01T00:00:00Z",
                                          "models": ["model-b"],
                                          "cutoffs": {"model-b": "2025-06-30T00:00:00Z"}}
    assert all(f["severity"] == "info" for f in exposed.values())
    assert summary["freshness"] == {
        "items": 5, "fresh_after": "2024-12-31T00:00:00Z", "fresh_items": 2, "fresh_share": 0.4,
        "fresh_quota": 0.5, "meets_quota": False,
        "exposed": {"model-a": {"cutoff": "2024-01-01T00:00:00Z", "exposed_items": 1,
                                "exposed_share": 0.2},
                    "model-b": {"cutoff": "2025-06-30T00:00:00Z", "exposed_items": 4,
                                "exposed_share": 0.8}}}
    assert summary["by_check"]["contamination.exposed"]["info"] == 4
    assert summary["by_capability"]["perception.count"]["by_check"] == {
        "contamination.exposed": 4}
    assert summary["flagged_items"] == 0  # exposure is information, not a defect


def test_without_dates_nothing_is_reported(tmp_path):
    findings, summary = audit(tmp_path, "  disabled: []\n")
    assert not [f for f in findings if f["check"] == "contamination.exposed"]
    assert "freshness" not in summary
    assert {"check": "contamination.exposed", "reason": "no audit.cutoffs in params"} in \
        summary["checks_skipped"]


def test_fresh_share_alone_meets_the_default_quota(tmp_path):
    _, summary = audit(tmp_path, "  fresh_after: 2025-12-31T23:59:59Z\n")
    assert summary["freshness"]["fresh_share"] == 0.2
    assert summary["freshness"]["fresh_quota"] == 0.2 and summary["freshness"]["meets_quota"]
    assert "exposed" not in summary["freshness"]


@pytest.mark.parametrize("value, message", [
    ("  cutoffs:\n    m: not-a-date\n", "audit.cutoffs.m"),
    ("  fresh_quota: 1.5\n", "audit.fresh_quota"),
])
def test_bad_dates_name_the_key(tmp_path, value, message):
    write_items(tmp_path / "items.jsonl", [make_item()])
    (tmp_path / "params.yaml").write_text("audit:\n" + value, encoding="utf-8")
    result = CliRunner().invoke(cli, ["audit", "data", "--items", str(tmp_path / "items.jsonl"),
                                      "--params", str(tmp_path / "params.yaml"), "--out",
                                      str(tmp_path / "out")])
    assert result.exit_code == 1 and message in result.output, result.output


def test_summary_helper_with_naive_datetimes():
    items = [Item.model_validate(make_item(id=k, created_at=v)) for k, v in DATES.items()]
    params = FreshnessParams(fresh_after="2024-06-15T12:00:00")
    assert freshness_summary(items, params)["fresh_items"] == 2  # strictly after
    assert as_utc(params.fresh_after).isoformat() == "2024-06-15T12:00:00+00:00"
    assert freshness_summary(items, FreshnessParams()) is None
