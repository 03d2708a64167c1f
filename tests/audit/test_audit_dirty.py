"""`audit data` on a dirty file: every validation problem becomes a finding with its line,
every valid item is still audited, and no params.yaml is needed."""

from __future__ import annotations

import json
from pathlib import Path

from click.testing import CliRunner
from conftest import make_item, write_png

from bench_kit.audit.stage import audit_data
from bench_kit.cli import cli

MC = {"task": "mc", "capability": "perception.colour"}


def _dirty_file(tmp_path: Path) -> Path:
    rows = [
        json.dumps(make_item(id="clean", question="How many circles are there?")),
        json.dumps(make_item(id="bad_gold", question="Which colour is the circle?",
                             choices={"A": "red", "B": "blue"}, answers=["C"], **MC)),
        json.dumps(make_item(id="no_gold", answers=[])),
        "{not json",
        json.dumps(make_item(id="clean", question="A second row with the same id?")),
        json.dumps(make_item(id="wrong_type", question=5)),
        json.dumps(make_item(id="missing_image", image="images/nope.png")),
        json.dumps(make_item(id="deixis", question="What colour is that one?", task="open",
                             answers=["red"])),
        json.dumps(make_item(id="corrupt_image", image="images/broken.png")),
        json.dumps(make_item(id="good_image", image="images/good.png")),
    ]
    (tmp_path / "images").mkdir()
    (tmp_path / "images" / "broken.png").write_bytes(b"not a png")
    write_png(tmp_path / "images" / "good.png")
    path = tmp_path / "items.jsonl"
    path.write_text("\n".join(rows) + "\n", encoding="utf-8")
    return path


def test_dirty_file_is_audited_with_every_problem_reported(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)  # no params.yaml here: defaults
    result = audit_data(_dirty_file(tmp_path), tmp_path / "out")
    findings = [json.loads(line) for line in result.findings_path.read_text().splitlines()]
    by_check = {(f["id"], f["check"]): f for f in findings}
    assert by_check[("bad_gold", "label.gold_not_in_choices")]["evidence"]["line"] == 2
    assert by_check[("bad_gold", "label.gold_not_in_choices")]["severity"] == "error"
    assert by_check[("no_gold", "label.empty_answers")]["evidence"]["line"] == 3
    assert by_check[("line:4", "schema.invalid_item")]["evidence"]["line"] == 4
    assert "duplicate id" in by_check[("clean@line:5", "schema.invalid_item")]["message"]
    assert by_check[("wrong_type", "schema.invalid_item")]["evidence"]["field"] == "question"
    assert by_check[("missing_image", "schema.image")]["evidence"]["line"] == 7
    broken = by_check[("corrupt_image", "schema.image")]
    assert broken["evidence"]["line"] == 9 and "cannot be decoded" in broken["message"]
    # The valid rows are audited by the ordinary checks.
    assert ("deixis", "ambiguity.vague_deixis") in by_check
    summary = result.summary
    assert summary["invalid_lines"] == 6
    assert summary["flagged_items"] == 8
    assert "clean" not in {f["id"] for f in findings}


def test_cli_audits_a_dirty_file_without_params(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    path = _dirty_file(tmp_path)
    run = CliRunner().invoke(cli, ["audit", "data", "--items", str(path), "--out", "out"])
    assert run.exit_code == 0, run.output
    assert "6 invalid lines" in run.output
    assert "flagged (warn or error): 8 items" in run.output


def test_unreadable_file_stops_the_audit(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    run = CliRunner().invoke(cli, ["audit", "data", "--items", "missing.jsonl", "--out", "o"])
    assert run.exit_code != 0
    assert "missing.jsonl" in run.output and "Traceback" not in run.output
