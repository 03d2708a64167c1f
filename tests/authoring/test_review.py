"""Review sampling round trip: sample -> fill verdicts -> apply -> batches accepted/rejected."""

from __future__ import annotations

import csv
import io
from pathlib import Path

import pytest
import yaml
from click.testing import CliRunner

from bench_kit.authoring.review import (
    ReviewParams,
    apply_review,
    draw_sample,
    read_sheet,
)
from bench_kit.cli import cli
from bench_kit.errors import InputError
from bench_kit.io import read_jsonl, write_jsonl
from bench_kit.items import read_items
from bench_kit.types import Item
from tests.conftest import make_item, write_png


def _bench(tmp_path: Path) -> Path:
    """Items in three batches: template:a (40), template:b (20, with a variant), human (3)."""
    write_png(tmp_path / "bench/images/x.png")
    rows = [make_item(id=f"a{k}", source="template:a", image="images/x.png") for k in range(40)]
    rows += [make_item(id=f"b{k}", source="template:b", question="<b>bold</b> & more?")
             for k in range(20)]
    rows += [make_item(id="b0.v1", source="template:b", variant="v1", variant_of="b0",
                       variant_kind="synonym")]
    rows += [make_item(id=f"h{k}", source="human") for k in range(3)]
    write_jsonl(tmp_path / "bench/items.jsonl", rows)
    params = {"review": {"seed": 1, "rate": 0.1, "min_per_batch": 1, "max_failure_rate": 0.2,
                         "thumbnail_px": 32}}
    (tmp_path / "params.yaml").write_text(yaml.safe_dump(params), encoding="utf-8")
    return tmp_path


def test_sample_is_stratified_stable_and_at_least_one_per_batch():
    items = [Item.model_validate(make_item(id=f"i{k}", source=f"template:t{k % 3}"))
             for k in range(90)]
    sample = draw_sample(items, rate=0.05, seed=0)
    assert {b: len(v) for b, v in sample.items()} == {"template:t0": 2, "template:t1": 2,
                                                      "template:t2": 2}
    more = items + [Item.model_validate(make_item(id="new", source="template:t9"))]
    again = draw_sample(more, rate=0.05, seed=0)
    assert again["template:t0"] == sample["template:t0"] and len(again["template:t9"]) == 1


def _fill(sheet: Path, verdicts: dict[str, tuple[str, str, str]]) -> None:
    rows = list(csv.DictReader(io.StringIO(sheet.read_text(encoding="utf-8"))))
    for row in rows:
        if row["id"] in verdicts:
            row["fluency"], row["difficulty_ok"], row["answer_ok"] = verdicts[row["id"]]
    buffer = io.StringIO()
    writer = csv.DictWriter(buffer, fieldnames=list(rows[0]), lineterminator="\n")
    writer.writeheader()
    writer.writerows(rows)
    sheet.write_text(buffer.getvalue(), encoding="utf-8")


def _run(project: Path, *args: str):
    return CliRunner().invoke(cli, ["author", "review", *args[:1], "--params",
                                    str(project / "params.yaml"), *args[1:]])


def test_review_round_trip(tmp_path):
    project = _bench(tmp_path)
    items = project / "bench/items.jsonl"
    result = _run(project, "sample", "--items", str(items), "--out", str(project / "rev"))
    assert result.exit_code == 0, result.stderr
    sheet, html = project / "rev/review_sheet.csv", project / "rev/review_sheet.html"
    rows = list(csv.DictReader(io.StringIO(sheet.read_text(encoding="utf-8"))))
    batches = {r["batch"] for r in rows}
    assert batches == {"template:a", "template:b", "human"}
    assert sum(r["batch"] == "template:a" for r in rows) == 4  # ceil(0.1 * 40)
    page = html.read_text(encoding="utf-8")
    assert "data:image/png;base64," in page and "&lt;b&gt;bold&lt;/b&gt; &amp; more?" in page
    assert "<b>bold</b>" not in page and "http" not in page

    a_ids = [r["id"] for r in rows if r["batch"] == "template:a"]
    b_ids = [r["id"] for r in rows if r["batch"] == "template:b"]
    verdicts = {i: ("yes", "yes", "yes") for i in a_ids}
    verdicts[a_ids[0]] = ("yes", "no", "yes")          # 1 of 4 = 25% > 20%: reject a
    verdicts.update({i: ("y", "y", "y") for i in b_ids})  # b passes; human left unreviewed
    _fill(sheet, verdicts)
    result = _run(project, "apply", str(sheet), "--items", str(items))
    assert result.exit_code == 0, result.stderr
    assert "template:a: rejected (1/4 failed, 25% vs max 20%)" in result.stderr
    assert "template:b: accepted" in result.stderr and "human" not in result.stderr
    rejected = [line for line in (project / "bench/review_rejected.txt")
                .read_text(encoding="utf-8").splitlines() if not line.startswith("#")]
    assert sorted(line.split("\t")[0] for line in rejected) == sorted(f"a{k}" for k in range(40))
    assert all("review batch template:a rejected" in line for line in rejected)
    history = read_jsonl(project / "bench/review_history.jsonl")
    assert sum(r["kind"] == "verdict" for r in history) == len(a_ids) + len(b_ids)
    assert {r["batch"]: r["decision"] for r in history if r["kind"] == "batch"} == {
        "template:a": "rejected", "template:b": "accepted"}

    # the same sheet again is recorded once; a new sheet that passes batch a accepts it
    again = _run(project, "apply", str(sheet), "--items", str(items))
    assert "already recorded" in again.stderr
    assert len(read_jsonl(project / "bench/review_history.jsonl")) == len(history)
    _fill(sheet, {a_ids[0]: ("yes", "yes", "yes")})
    assert _run(project, "apply", str(sheet), "--items", str(items)).exit_code == 0
    assert (project / "bench/review_rejected.txt").read_text(encoding="utf-8") \
        == "# format_version: 1\n"


def test_rejected_list_is_read_by_the_split_exclusions(tmp_path):
    from bench_kit.split.exclusions import apply_exclusions, read_exclusions

    project = _bench(tmp_path)
    items_path = project / "bench/items.jsonl"
    sheet = project / "sheet.csv"
    sheet.write_text("batch,id,fluency,difficulty_ok,answer_ok\nx,b3,no,yes,yes\n",
                     encoding="utf-8")
    apply_review(sheet, items_path, ReviewParams(max_failure_rate=0.2))
    kept, dropped = apply_exclusions(read_items(items_path),
                                     [read_exclusions(project / "bench/review_rejected.txt")])
    assert {d["id"] for d in dropped} == {f"b{k}" for k in range(20)} | {"b0.v1"}
    assert all(i.source != "template:b" for i in kept)


@pytest.mark.parametrize("content, message", [
    ("batch,id,fluency,difficulty_ok,answer_ok\nx,a1,maybe,yes,yes\n",
     "sheet.csv:2: field 'fluency': 'maybe' is not a verdict"),
    ("batch,id,fluency,difficulty_ok,answer_ok\nx,a1,yes,,yes\n",
     "field 'difficulty_ok': verdict(s) ['difficulty_ok'] left empty"),
    ("batch,id,fluency\nx,a1,yes\n", "missing column(s) ['difficulty_ok', 'answer_ok']"),
    ("batch,id,fluency,difficulty_ok,answer_ok\nx,zz,yes,yes,yes\n", "item 'zz' is not in"),
])
def test_bad_sheets_are_one_line_errors(tmp_path, content, message):
    project = _bench(tmp_path)
    sheet = project / "sheet.csv"
    sheet.write_text(content, encoding="utf-8")
    result = _run(project, "apply", str(sheet), "--items", str(project / "bench/items.jsonl"))
    assert result.exit_code == 1 and message in result.stderr
    assert result.stderr.count("\n") == 1
    assert not (project / "bench/review_history.jsonl").exists()


def test_read_sheet_skips_unreviewed_rows(tmp_path):
    sheet = tmp_path / "s.csv"
    sheet.write_text("batch,id,fluency,difficulty_ok,answer_ok,comment\nx,a,,,,\n"
                     "x,b,1,0,1, off by one \n", encoding="utf-8")
    assert read_sheet(sheet) == [{"id": "b", "batch": "x", "fluency": True,
                                  "difficulty_ok": False, "answer_ok": True,
                                  "comment": "off by one"}]
    with pytest.raises(InputError, match="file not found"):
        read_sheet(tmp_path / "none.csv")


@pytest.mark.parametrize("command", ["sample", "apply"])
def test_review_help_has_an_example(command):
    result = CliRunner().invoke(cli, ["author", "review", command, "--help"])
    assert result.exit_code == 0 and "Example:" in result.output
    assert f"bench-kit author review {command}" in result.output
