"""`bench-kit validate`: every defect reported by line, id and field; never a traceback."""

from __future__ import annotations

import json
import os
import re
import sys
import types
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner
from PIL import Image

import bench_kit.validate as validate_module
from bench_kit.cli import cli
from bench_kit.registry import Registry
from bench_kit.validate import validate_items_file

TAXONOMY = {"perception.shape": "perception", "perception.count": "perception",
            "reasoning.compare": "reasoning"}
PRINTED = re.compile(r"^(?P<path>.+?):(?P<line>\d+): id=(?P<id>.*?) field=(?P<field>\S+): "
                     r"(?P<reason>.*)$")


def _item(**changes: Any) -> dict[str, Any]:
    row = {"id": "good1", "image": "imgs/red.png", "question": "What shape is shown?",
           "task": "mc", "choices": {"A": "circle", "B": "square"}, "answers": ["A"],
           "capability": "perception.shape", "layer": "perception", "difficulty": "easy",
           "created_at": "2026-01-31T00:00:00Z"}
    row.update(changes)
    return {key: value for key, value in row.items() if value is not ...}


GOOD = [
    _item(),
    _item(id="good2", image=["imgs/red.png", "imgs/blue.png"], task="yesno", choices=None,
          answers=["yes"], capability="reasoning.compare", layer="reasoning", metric="exact"),
    _item(id="good1.v1", variant="v1", variant_of="good1", variant_kind="synonym"),
]

# (label, the line: a row dict or raw bytes, expected problems as (id, field, reason part))
DEFECTS: list[tuple[str, dict[str, Any] | bytes, list[tuple[str | None, str | None, str]]]] = [
    ("malformed JSON", b'{"id": "broken", "task": ', [(None, None, "malformed JSON")]),
    ("invalid UTF-8", b'{"id": "caf\xe9"}', [(None, None, "invalid UTF-8 at byte 11")]),
    ("not an object", b"[1, 2]", [(None, None, "expected a JSON object, got list")]),
    ("NaN", b'{"id": "nan", "tolerance": NaN}', [(None, None, "NaN is not valid JSON")]),
    ("duplicate key", b'{"id": "a", "id": "b"}', [(None, None, "duplicate key 'id'")]),
    ("missing field and bad task", _item(id="miss", question=..., task="mcq"),
     [("miss", "question", "missing required field"),
      ("miss", "task", "must be one of mc, yesno, open, numeric, grounding, checklist "
                       "(got 'mcq')")]),
    ("wrong type", _item(id="wrongtype", question=5, tolerance="0.5"),
     [("wrongtype", "question", "expected a string, got int"),
      ("wrongtype", "tolerance", "expected a number, got string")]),
    ("wrong type in a list", _item(id="listtype", image=["imgs/red.png", 7]),
     [("listtype", "image[1]", "expected a string, got int")]),
    ("wrong type for a union", _item(id="imgtype", image=5),
     [("imgtype", "image", "expected a string, a list of strings or null, got int")]),
    ("wrong type inside a check", _item(id="checktype", task="checklist", choices=None,
                                        answers=[], checks=[{"name": "red", "answer": "yes"}]),
     [("checktype", "checks[0].answer", "expected true or false, got string")]),
    ("duplicate id", _item(id="good2"), [("good2", "id", "duplicate id (first on line 2)")]),
    ("image missing", _item(id="nofile", image="imgs/absent.png"),
     [("nofile", "image", "image file 'imgs/absent.png' not found")]),
    ("image corrupt", _item(id="corrupt", image="imgs/corrupt.png"),
     [("corrupt", "image", "image 'corrupt.png' cannot be decoded")]),
    ("absolute image path", _item(id="abs", image="/etc/hosts"),
     [("abs", "image", "is absolute")]),
    ("image path with ..", _item(id="dotdot", image="../outside.png"),
     [("dotdot", "image", "escapes the benchmark folder")]),
    ("symlink out", _item(id="symlink", image="imgs/link.png"),
     [("symlink", "image", "resolves outside the benchmark folder")]),
    ("mc gold not among choices", _item(id="gold", answers=["C"]),
     [("gold", "answers", "gold ['C'] not among the choices ['A', 'B']")]),
    ("empty answers", _item(id="empty", answers=[]), [("empty", "answers", "must not be empty")]),
    ("unknown capability", _item(id="cap", capability="perception.shap"),
     [("cap", "capability", "unknown capability 'perception.shap' (not in the params "
                            "taxonomy); did you mean 'perception.shape'?")]),
    ("layer mismatch", _item(id="layer", layer="reasoning"),
     [("layer", "layer", "'reasoning' does not match capability 'perception.shape'")]),
    ("unknown difficulty", _item(id="diff", difficulty="extreme"),
     [("diff", "difficulty", "must be one of easy, medium, hard (got 'extreme')")]),
    ("unknown task", _item(id="task", task="essay"),
     [("task", "task", "must be one of mc, yesno, open")]),
    ("bad created_at", _item(id="date", created_at="last tuesday"),
     [("date", "created_at", "unparseable date-time 'last tuesday'")]),
    ("naive created_at", _item(id="naive", created_at="2026-01-31T00:00:00"),
     [("naive", "created_at", "must carry a timezone")]),
    ("bad id pattern", _item(id="bad id!"),
     [("bad id!", "id", "does not match the pattern ^[A-Za-z0-9]")]),
    ("id with a newline", _item(id="two\nlines"), [("two\nlines", "id", "does not match")]),
    ("variant_of unknown", _item(id="orphan", variant="v1", variant_of="nowhere"),
     [("orphan", "variant_of", "names id 'nowhere', which is not in this file")]),
    ("unknown metric", _item(id="metric", metric="exactt"),
     [("metric", "metric", "unknown metric 'exactt'; did you mean 'exact'?")]),
]


@pytest.fixture
def fake_metrics(monkeypatch: pytest.MonkeyPatch) -> None:
    """A metric registry standing in for bench_kit.scoring.item.METRICS."""
    metrics: Registry = Registry("metric")
    for name in ("exact", "accuracy", "iou"):
        metrics.register(name)(lambda *args: 1.0)
    module = types.ModuleType("bench_kit.scoring.item")
    module.METRICS = metrics  # type: ignore[attr-defined]
    monkeypatch.setitem(sys.modules, "bench_kit.scoring.item", module)


def _bench(tmp_path: Path, lines: list[dict[str, Any] | bytes]) -> tuple[Path, Path]:
    """A benchmark folder with images, params.yaml and items.jsonl; returns (items, params)."""
    root = tmp_path / "bench"
    (root / "imgs").mkdir(parents=True)
    Image.new("RGB", (16, 12), "red").save(root / "imgs" / "red.png")
    Image.new("RGB", (16, 12), "blue").save(root / "imgs" / "blue.png")
    (root / "imgs" / "corrupt.png").write_bytes(b"\x89PNG\r\n\x1a\nnot really")
    Image.new("RGB", (4, 4), "green").save(tmp_path / "outside.png")
    os.symlink(tmp_path / "outside.png", root / "imgs" / "link.png")
    params = tmp_path / "params.yaml"
    params.write_text("taxonomy:\n" + "".join(f"  {k}: {v}\n" for k, v in TAXONOMY.items()))
    items = root / "items.jsonl"
    items.write_bytes(b"".join((line if isinstance(line, bytes) else
                                json.dumps(line).encode()) + b"\n" for line in lines))
    return items, params


def _run(*args: str):
    return CliRunner().invoke(cli, ["validate", *args])


def _printed(stderr: str) -> list[tuple[int, str, str, str]]:
    return [(int(m["line"]), m["id"], m["field"], m["reason"])
            for m in map(PRINTED.match, stderr.splitlines()) if m]


def test_every_defect_is_reported_on_its_line(tmp_path: Path, fake_metrics: None) -> None:
    items, params = _bench(tmp_path, [*GOOD, *(line for _, line, _ in DEFECTS)])
    report_path = tmp_path / "reports" / "validate.json"
    result = _run(str(items), "--params", str(params), "--report", str(report_path))

    assert result.exit_code == 1, result.output
    assert "Traceback" not in result.output
    report = json.loads(report_path.read_text())
    assert report["valid"] is False and report["items"] == len(GOOD) + len(DEFECTS)
    expected = {(len(GOOD) + n, ident, field)
                for n, (_, _, problems) in enumerate(DEFECTS, start=1)
                for ident, field, _ in problems}
    assert {(p["line"], p["id"], p["field"]) for p in report["problems"]} == expected
    for n, (label, _, problems) in enumerate(DEFECTS, start=1):
        reasons = [p["reason"] for p in report["problems"] if p["line"] == len(GOOD) + n]
        for _, _, part in problems:
            assert any(part in reason for reason in reasons), (label, part, reasons)

    printed = _printed(result.stderr)
    assert [(line, field, reason) for line, _, field, reason in printed] == [
        (p["line"], p["field"] or "-", p["reason"]) for p in report["problems"]]
    assert [ident for _, ident, _, _ in printed] == [
        (p["id"] or "-").replace("\n", "\\n") for p in report["problems"]]
    stderr_lines = result.stderr.splitlines()
    assert len(stderr_lines) == len(report["problems"]) + 1
    assert stderr_lines[-1] == f"error: {items}: {len(report['problems'])} problem(s) found"


def test_clean_file_passes_and_writes_the_report(tmp_path: Path, fake_metrics: None) -> None:
    items, params = _bench(tmp_path, [GOOD[0], b"", b"  ", *GOOD[1:]])
    report_path = tmp_path / "validate.json"
    result = _run(str(items), "--params", str(params), "--report", str(report_path))

    assert result.exit_code == 0, result.output
    assert result.stdout == f"OK: {len(GOOD)} items in {items}\n"
    first = report_path.read_bytes()
    assert json.loads(first) == {"path": str(items), "items": len(GOOD), "valid": True,
                                 "problems": [], "warnings": []}
    _run(str(items), "--params", str(params), "--report", str(report_path))
    assert report_path.read_bytes() == first


def test_line_numbers_count_blank_lines(tmp_path: Path) -> None:
    items, params = _bench(tmp_path, [GOOD[0], b"", _item(id="late", answers=[])])
    report = validate_items_file(items, params_path=params)
    assert [(p.line, p.id, p.field) for p in report.problems] == [(3, "late", "answers")]


def test_missing_default_params_skips_taxonomy_with_a_warning(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    items, _ = _bench(tmp_path, [_item(capability="made.up", layer="alignment")])
    monkeypatch.chdir(tmp_path / "bench")
    result = _run(str(items))
    assert result.exit_code == 0, result.output
    assert result.stderr.splitlines() == [
        "warning: params.yaml not found; capability/layer checks against the taxonomy skipped"]


def test_explicit_missing_params_is_an_error(tmp_path: Path) -> None:
    items, _ = _bench(tmp_path, GOOD[:1])
    result = _run(str(items), "--params", str(tmp_path / "nope.yaml"))
    assert result.exit_code == 1
    assert result.stderr == f"error: {tmp_path / 'nope.yaml'}: file not found\n"


def test_malformed_taxonomy_is_a_config_error(tmp_path: Path) -> None:
    items, params = _bench(tmp_path, GOOD[:1])
    params.write_text("taxonomy:\n  perception.shape: vision\n")
    result = _run(str(items), "--params", str(params))
    assert result.exit_code == 1
    assert result.stderr.startswith(f"error: {params}: taxonomy.perception.shape: ")


def test_metric_check_is_skipped_without_a_registry(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "bench_kit.scoring.item", None)
    items, params = _bench(tmp_path, [_item(metric="anything")])
    assert validate_items_file(items, params_path=params).valid


def test_each_distinct_image_is_decoded_once(tmp_path: Path,
                                             monkeypatch: pytest.MonkeyPatch) -> None:
    rows = [_item(id=f"q{i}", image=["imgs/red.png", "imgs/blue.png"][i % 2]) for i in range(40)]
    items, params = _bench(tmp_path, rows)
    decoded: list[Path] = []
    real_open = validate_module.open_image

    def counting_open(path: Path):
        decoded.append(path)
        return real_open(path)

    monkeypatch.setattr(validate_module, "open_image", counting_open)
    assert validate_items_file(items, params_path=params).valid
    assert sorted(p.name for p in decoded) == ["blue.png", "red.png"]


def test_root_option_moves_the_image_folder(tmp_path: Path) -> None:
    items, params = _bench(tmp_path, GOOD[:1])
    moved = tmp_path / "elsewhere" / "items.jsonl"
    moved.parent.mkdir()
    moved.write_bytes(items.read_bytes())
    assert _run(str(moved), "--params", str(params)).exit_code == 1
    result = _run(str(moved), "--params", str(params), "--root", str(items.parent))
    assert result.exit_code == 0, result.output


@pytest.mark.parametrize(("content", "reason"), [
    (None, "file not found"),
    (b"", "no items: the file is empty"),
])
def test_missing_or_empty_file(tmp_path: Path, content: bytes | None, reason: str) -> None:
    path = tmp_path / "items.jsonl"
    if content is not None:
        path.write_bytes(content)
    result = _run(str(path), "--params", str(_bench(tmp_path, [])[1]))
    assert result.exit_code == 1
    assert reason in result.stderr and "Traceback" not in result.output


def test_help_has_an_example() -> None:
    result = _run("--help")
    assert result.exit_code == 0
    assert "bench-kit validate datasets/demo/items.jsonl" in result.output


def test_pandera_table_checks_are_reported_by_line(tmp_path: Path) -> None:
    rows = [_item(id="orig", group="g1"),
            _item(id="orig.v1", variant="v1", variant_of="orig", variant_kind="synonym",
                  group="g1"),
            _item(id="dangling", variant="v1", variant_of="gone", variant_kind="synonym"),
            _item(id="second", variant="v2", variant_of="orig.v1", variant_kind="synonym"),
            _item(id="other", image="imgs/blue.png", group="g1"),
            _item(id="orig", question="Which shape?")]
    items, params = _bench(tmp_path, rows)
    report = validate_items_file(items, params_path=params)
    assert [(p.line, p.id, p.field, p.reason) for p in report.problems] == [
        (3, "dangling", "variant_of", "names id 'gone', which is not in this file"),
        (4, "second", "variant_of",
         "names id 'orig.v1', which is variant 'v1', not an original (v0)"),
        (6, "orig", "id", "duplicate id (first on line 1)"),
    ]
    # A group with several image sets is a warning: groups may span a document's images.
    assert [w for w in report.warnings if "group" in w] == [
        f"{items}:5: id=other field=image: group 'g1' uses several image sets: this item "
        "differs from the group's first item (line 1); allowed (a group is the unit splits "
        "keep whole), check that the group is meant to span images"]


def test_a_marked_copy_of_the_groups_image_shares_its_image_set(tmp_path: Path) -> None:
    base = _item(id="orig", group="g1")
    marked = _item(id="orig.v1", variant="v1", variant_of="orig", variant_kind="deixis",
                   group="g1", image="imgs/blue.png",
                   meta={"visual_prompt": {"kind": "box", "bbox": [1, 1, 5, 5],
                                           "source_image": base["image"]}})
    stray = _item(id="stray", group="g1", image="imgs/blue.png",
                  meta={"visual_prompt": {"kind": "box", "bbox": [1, 1, 5, 5],
                                          "source_image": "imgs/other.png"}})
    items, params = _bench(tmp_path, [base, marked, stray])
    report = validate_items_file(items, params_path=params)
    assert report.problems == []
    assert [w.split(": ", 2)[1] for w in report.warnings] == ["id=stray field=image"]


def test_the_table_checks_are_the_pandera_schema() -> None:
    import pandas as pd

    from bench_kit.schemas import ItemsFileSchema, validate_table

    frame = pd.DataFrame([{**_item(id="a", group="g", split="train"), "variant": "v0",
                           "variant_of": None},
                          {**_item(id="b", group="g", split="test"), "variant": "v1",
                           "variant_of": "nowhere"}])
    problems = validate_table(frame, ItemsFileSchema, path="items.jsonl", lines=[4, 7])
    assert [str(p) for p in problems] == [
        "items.jsonl:7: id=b field=split: group 'g' must share one split: this item differs "
        "from the group's first item (line 4)",
        "items.jsonl:7: id=b field=variant_of: names id 'nowhere', which is not in this file",
    ]
    checks = {c.name for c in ItemsFileSchema.to_schema().checks}
    assert checks == {"unique_id", "variant_of_exists", "variant_of_original", "group_split"}


def test_validate_takes_metric_names_from_its_caller(tmp_path: Path) -> None:
    items, params = _bench(tmp_path, [_item(metric="iou"), _item(id="q2", metric="exactt")])
    report = validate_items_file(items, params_path=params, metrics={"exact", "iou"})
    assert [(p.line, p.field) for p in report.problems] == [(2, "metric")]
    source = Path(validate_module.__file__).read_text()
    assert "importlib" not in source and "bench_kit.scoring" not in source
