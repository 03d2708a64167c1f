"""benchmarks/intent_agreement.py --family grounding: box parsing against a reader's labels."""

from __future__ import annotations

import importlib.util
import json
import re
import sys
from pathlib import Path

import pytest

BENCH = Path(__file__).resolve().parents[2] / "benchmarks"


@pytest.fixture()
def agreement(tmp_path, monkeypatch):
    monkeypatch.syspath_prepend(str(BENCH))
    spec = importlib.util.spec_from_file_location("intent_agreement_under_test",
                                                  BENCH / "intent_agreement.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    monkeypatch.setattr(module, "HERE", tmp_path)
    rows = [
        {"id": "g-1", "source": "s:a", "question": "cat",
         "response": "<|box_start|>(10,20),(30,40)<|box_end|>"},
        {"id": "g-2", "source": "s:a", "question": "dog", "response": "There is no dog here."},
        {"id": "g-3", "source": "s:b", "question": "car",
         "response": '{"bbox_2d": [30, 40, 10, 20]}'},
        {"id": "g-4", "source": "s:b", "question": "tree", "response": "Click at (5, 6)."},
    ]
    (tmp_path / "grounding_set.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))
    (tmp_path / "grounding_reference.jsonl").write_text("".join(
        json.dumps({"id": i, "parse_bbox": box}) + "\n" for i, box in
        [("g-1", [0, 0, 0, 0]), ("g-2", [0, 0, 0, 0]), ("g-3", [30, 40, 10, 20]),
         ("g-4", [0, 0, 0, 0])]))
    readers = tmp_path / "readers"
    readers.mkdir()
    return module, tmp_path, readers


def _labels(readers: Path, *labels: dict) -> None:
    (readers / "grounding_part1.labels.jsonl").write_text(
        "".join(json.dumps(label) + "\n" for label in labels))


def _run(module, monkeypatch, *argv: str) -> None:
    monkeypatch.setattr(sys, "argv", ["intent_agreement.py", "--family", "grounding", *argv])
    module.main()


def test_boxes_agree_as_written_corners_in_order(agreement, monkeypatch, capsys):
    module, folder, readers = agreement
    _labels(readers,
            {"id": "g-4", "box": None, "form": "point", "point": [5, 6], "reason": "point"},
            {"id": "g-3", "box": [30, 40, 10, 20], "form": "corners"},
            {"id": "g-2", "box": None, "form": "none", "reason": "absent"},
            {"id": "g-1", "box": [10, 20, 30, 40], "form": "points"})
    _run(module, monkeypatch, "--labels-from", str(readers), "--show", "5")
    gathered = [json.loads(x) for x in (folder / "grounding_set_labels.jsonl").read_text().splitlines()]
    assert [r["id"] for r in gathered] == ["g-1", "g-2", "g-3", "g-4"]  # set order
    out = capsys.readouterr().out
    assert "== grounding: 4 responses" in out
    all_row = next(line for line in out.splitlines() if line.startswith("all "))
    assert "4/4" in all_row  # bench_kit: box tokens, rejection, reversed corners, a point
    assert "3/4" in all_row  # parse_bbox misses the (x1,y1),(x2,y2) pair form of g-1
    # the columns in order: bench_kit, then VLMEvalKit
    assert re.findall(r"\d+/\d+ \([\d.]+%\)", all_row) == ["4/4 (100.0%)", "3/4 (75.0%)"]
    assert "bench_kit readings: box 2, rejection 1, failed 1" in out


def test_a_wrong_box_is_a_miss(agreement, monkeypatch, capsys):
    module, _, readers = agreement
    _labels(readers,
            {"id": "g-1", "box": [10, 20, 30, 41], "form": "points"},
            {"id": "g-2", "box": None, "form": "none"},
            {"id": "g-3", "box": [10, 20, 20, 10], "form": "center-size"},
            {"id": "g-4", "box": None, "form": "point"})
    _run(module, monkeypatch, "--labels-from", str(readers), "--show", "5")
    out = capsys.readouterr().out
    all_row = next(line for line in out.splitlines() if line.startswith("all "))
    assert "2/4" in all_row  # g-1 off by one; g-3's centre-size box is (0, 15, 20, 25)
    # bench_kit: g-1 reads (10,20,30,40), not 41: miss; g-2 none = none; g-3 reads
    # (10,20,30,40), not (0,15,20,25): miss; g-4 a point, no box = none. parse_bbox: g-1
    # no box against a box: miss; g-2 agrees; g-3 miss; g-4 agrees.
    assert re.findall(r"\d+/\d+ \([\d.]+%\)", all_row) == ["2/4 (50.0%)", "2/4 (50.0%)"]
    assert "g-1 (s:a): reader [10, 20, 30, 41] points" in out


def test_bad_labels_are_listed_at_once(agreement, monkeypatch, capsys):
    module, folder, readers = agreement
    _labels(readers,
            {"id": "g-1", "box": [10, 20, 30], "form": "corners"},
            {"id": "g-2", "box": None, "form": "maybe"},
            {"id": "g-3", "box": [1, 2, 3, 4], "form": "none"},
            {"id": "g-9", "box": None, "form": "none"})
    with pytest.raises(SystemExit) as stop:
        _run(module, monkeypatch, "--labels-from", str(readers))
    message = str(stop.value)
    path = folder / "grounding_set_labels.jsonl"
    assert f"{path}:1: box must be null or four numbers" in message
    assert f"{path}:2: form 'maybe' is not one of" in message
    assert f"{path}:3: form 'none' does not fit box [1, 2, 3, 4]" in message
    assert f"{path}: id g-4 has no label" in message  # g-9 is dropped when gathered
