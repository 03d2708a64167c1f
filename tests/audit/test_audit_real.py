"""The data audit on real public benchmark excerpts (tests/audit/fixtures/real)."""

from __future__ import annotations

import importlib.util
import json
import sys
from pathlib import Path
from typing import Any

import pytest

from bench_kit.audit.stage import audit_data

REPO = Path(__file__).resolve().parents[2]


def _real_items() -> Any:
    spec = importlib.util.spec_from_file_location("real_items",
                                                  REPO / "benchmarks" / "real_items.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules.setdefault("real_items", module)
    spec.loader.exec_module(module)
    return module


real_items = _real_items()


def _findings(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]


def _write_items(root: Path, items: list[dict[str, Any]]) -> Path:
    path = root / "items.jsonl"
    path.write_text("".join(json.dumps(i, ensure_ascii=False) + "\n" for i in items),
                    encoding="utf-8")
    return path


def _sqa(root: Path, *pids: str, **changes: Any) -> list[dict[str, Any]]:
    rows = real_items.scienceqa_rows()
    return [{**real_items.scienceqa_item(pid, rows[pid], root), **changes} for pid in pids]


def test_a_topical_group_is_a_warning_and_every_item_still_gets_content_checks(
        tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    # ScienceQA "Designing experiments" problems, grouped by their category as a benchmark
    # owner would: several images in one group.
    items = _sqa(tmp_path, "81", "156", "667", group="designing-experiments")
    # one item also asks a deictic question so a content check has something to find
    items[2]["question"] = "Which one of these is that one?"
    result = audit_data(_write_items(tmp_path, items), tmp_path / "out", params_path=None)
    found = {(f["id"], f["check"]): f for f in _findings(result.findings_path)}
    assert found[("sqa-156", "schema.group_images")]["severity"] == "warn"
    assert found[("sqa-667", "schema.group_images")]["severity"] == "warn"
    assert ("sqa-81", "schema.group_images") not in found  # the group's first item
    assert ("sqa-667", "ambiguity.vague_deixis") in found
    assert result.summary["invalid_lines"] == 0
