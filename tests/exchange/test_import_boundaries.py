"""Edges of a CSV import: blank trailing rows, every row rejected under --on-error skip,
the first of a repeated id (issue 29)."""

from __future__ import annotations

import hashlib

import pytest
from click.testing import CliRunner

from bench_kit.cli import cli
from bench_kit.io import read_jsonl
from bench_kit.items import read_items
from tests.conftest import write_png

HEADER = "id,image,question,A,B,answer\n"


def _import(tmp_path, text: str, *extra: str):
    write_png(tmp_path / "p.png")
    src = tmp_path / "in.csv"
    src.write_text(text, encoding="utf-8")
    out = tmp_path / "out" / "items.jsonl"
    result = CliRunner().invoke(cli, ["import", "csv", str(src), "--out", str(out),
                                      "--capability", "perception.colour", *extra])
    return result, src, out


def test_trailing_empty_rows_do_not_fail_the_file(tmp_path):
    # spreadsheets save blank rows as bare separators
    result, _, out = _import(tmp_path, HEADER + "q1,p.png,Which?,red,blue,A\n"
                             "q2,p.png,What?,,,cat\n,,,,,\n,,,,,\n\n")
    assert result.exit_code == 0, result.output
    assert [i.id for i in read_items(out)] == ["q1", "q2"]
    assert "imported 2 items" in result.stderr


def test_an_empty_row_between_rows_is_skipped_and_line_numbers_stay_true(tmp_path):
    result, src, _ = _import(tmp_path, HEADER + "q1,p.png,Which?,red,blue,A\n,,,,,\n"
                             "q3,p.png,,red,blue,A\n")
    assert result.exit_code == 1
    assert result.stderr.splitlines()[0] == f"{src}:4: id=q3 field=question: must not be blank"


def test_skip_with_every_row_rejected_is_an_error_and_writes_nothing(tmp_path):
    result, src, _ = _import(tmp_path, HEADER + "q1,p.png,,red,blue,A\nq2,gone.png,What?,,,cat\n",
                             "--on-error", "skip")
    assert result.exit_code == 1 and "Traceback" not in result.output
    assert result.stderr.splitlines() == [
        f"{src}:2: id=q1 field=question: must not be blank",
        f"{src}:3: id=q2 field=image: image file 'gone.png' not found",
        f"error: {src}: 2 problem(s) found; every row was rejected, nothing to import"]
    assert not (tmp_path / "out").exists()


def test_skip_with_one_good_row_writes_it(tmp_path):
    result, _, out = _import(tmp_path, HEADER + "q1,p.png,,red,blue,A\nq2,p.png,What?,,,cat\n",
                             "--on-error", "skip")
    assert result.exit_code == 0, result.output
    assert [i.id for i in read_items(out)] == ["q2"]
    assert (tmp_path / "out" / "items.rejects.jsonl").exists()


def test_a_repeated_id_rejects_the_second_row_not_the_first(tmp_path):
    result, src, out = _import(tmp_path, HEADER + "q1,p.png,Which?,red,blue,A\n"
                               "q1,p.png,Again?,red,blue,B\n", "--on-error", "skip")
    assert result.exit_code == 0, result.output
    [item] = read_items(out)
    assert item.question == "Which?"
    [reject] = read_jsonl(tmp_path / "out" / "items.rejects.jsonl")
    assert {k: reject[k] for k in ("source", "line", "id", "field")} == {
        "source": str(src), "line": 3, "id": "q1", "field": "id"}
    assert reject["reason"].startswith("duplicate id 'q1' (first at line 2")
    row = {k: v for k, v in reject["row"].items() if k != "image"}  # image: its stored copy
    assert row == {"id": "q1", "question": "Again?", "A": "red", "B": "blue", "answer": "B"}


def test_reject_messages_name_the_file_within_a_source_folder(tmp_path):
    from bench_kit.exchange.importers import Reject, write_rejects

    inner = Reject(line=3, field="answer", reason="empty", id="q1", row={"a": 1},
                   file="colour.csv")
    plain = Reject(line=2, field="image", reason="not found")
    assert inner.message("src") == "src/colour.csv:3: id=q1 field=answer: empty"
    assert plain.message("src") == "src:2: field=image: not found"
    write_rejects(tmp_path / "r.jsonl", "src", [inner, plain])
    assert read_jsonl(tmp_path / "r.jsonl") == [
        {"source": "src/colour.csv", "line": 3, "id": "q1", "field": "answer",
         "reason": "empty", "row": {"a": 1}},
        {"source": "src", "line": 2, "id": None, "field": "image", "reason": "not found",
         "row": {}}]


def test_import_failed_says_every_row_only_when_asked():
    from bench_kit.exchange.importers import ImportFailed

    assert str(ImportFailed(["a", "b"], path="f.csv")) == "f.csv: 2 problem(s) found"
    assert str(ImportFailed(["a"], path="f.csv", every_row=True)) \
        == "f.csv: 1 problem(s) found; every row was rejected, nothing to import"


def test_category_map_is_a_mapping_of_names(tmp_path):
    from bench_kit.errors import ConfigError
    from bench_kit.exchange.importers import load_category_map

    good = tmp_path / "map.yaml"
    good.write_text("1: perception.count\nocr: text.read\n", encoding="utf-8")
    assert load_category_map(good) == {"1": "perception.count", "ocr": "text.read"}
    empty = tmp_path / "empty.yaml"
    empty.write_text("", encoding="utf-8")
    assert load_category_map(empty) == {}
    for text in ("- a\n- b\n", "ocr: 3\n"):
        bad = tmp_path / "bad.yaml"
        bad.write_text(text, encoding="utf-8")
        with pytest.raises(ConfigError, match="bad.yaml: expected a mapping of category"):
            load_category_map(bad)


def test_a_rejected_row_is_stored_as_json_can_hold_it():
    from bench_kit.exchange.importers import _safe_row

    row = {"_file": "a.csv", "nan": float("nan"), "set": {1}, 7: "seven",
           "long": "x" * 501, "edge": "y" * 500, "raw": b"z" * 300}
    assert _safe_row(row) == {
        "nan": "nan", "set": "{1}", "7": "seven",
        "long": "x" * 200 + "… (501 characters)",   # over 500: cut to 200 with its length
        "edge": "y" * 500,                          # exactly 500: kept whole
        # bytes: named by size and the sha256 prefix an import names its images by
        "raw": f"<300 bytes, sha256 {hashlib.sha256(b'z' * 300).hexdigest()[:20]}>"}


@pytest.mark.parametrize("row, expected", [
    ({"id": " q1 "}, "q1"), ({"index": 7}, "7"), ({"id": 0}, "0"), ({"id": "  "}, None),
    ({"id": "", "index": 3}, None), ({"id": None, "index": 3}, None), ({}, None),
])
def test_the_id_of_a_rejected_row(row, expected):
    from bench_kit.exchange.importers import _row_id

    assert _row_id(row) == expected


def test_column_map_pairs():
    from bench_kit.errors import UsageError
    from bench_kit.exchange.importers import parse_column_map

    assert parse_column_map([" question = prompt ", "answer=gt"]) == {
        "question": "prompt", "answer": "gt"}
    for bad in ("question", "=prompt", "question=", " = "):
        # the library names its parameter; the CLI shows it as --map (tests/test_cli_flags.py)
        with pytest.raises(UsageError, match=f"`column_map` '{bad}': expected FIELD=COLUMN"):
            parse_column_map([bad])
    with pytest.raises(UsageError, match="unknown field 'bogus' \\(one of .*question"):
        parse_column_map(["bogus=x"])


def test_run_import_reads_the_taxonomy_of_the_given_params(tmp_path):
    from bench_kit.errors import ConfigError, InputError
    from bench_kit.exchange.importers import run_import

    write_png(tmp_path / "p.png")
    src = tmp_path / "in.csv"
    src.write_text(HEADER + "q1,p.png,Which?,red,blue,A\n", encoding="utf-8")
    params = tmp_path / "params.yaml"
    params.write_text("taxonomy:\n  perception.shape: perception\n", encoding="utf-8")
    with pytest.raises(InputError, match=r"perception.colour \(1 items\)"):
        run_import("csv", src, tmp_path / "out" / "items.jsonl", params_path=params,
                   capability="perception.colour")
    with pytest.raises(ConfigError, match="file not found"):
        run_import("csv", src, tmp_path / "out" / "items.jsonl",
                   params_path=tmp_path / "none.yaml", capability="perception.colour")


def test_created_at_needs_iso_8601_with_a_timezone():
    from datetime import datetime, timezone

    from bench_kit.errors import UsageError
    from bench_kit.exchange.importers import parse_created_at

    assert parse_created_at(" 2026-01-31T00:00:00Z ") == datetime(2026, 1, 31, tzinfo=timezone.utc)
    with pytest.raises(UsageError, match="needs a timezone"):
        parse_created_at("2026-01-31T00:00:00")
    with pytest.raises(UsageError, match="'31/01/2026' is not an ISO-8601 timestamp"):
        parse_created_at("31/01/2026")


def test_rejects_of_a_folder_source_name_their_file_id_and_row(tmp_path):
    from bench_kit.exchange.importers import ImportOptions, read_import

    src = tmp_path / "src"
    src.mkdir()
    write_png(src / "p.png")
    (src / "a.csv").write_text("id,image,question,answer\nq1,p.png,What?,cat\n"
                               "q2,gone.png,What?,dog\nq9,p.png,Too,many,cells\n")
    (src / "b.csv").write_text("id,image,question,answer\nq3,p.png,,cat\nq1,p.png,Again?,cow\n")
    result = read_import("csv", src, ImportOptions(capability="perception.count"))
    assert [i.id for i in result.items] == ["q1"]
    got = [(r.file, r.line, r.field, r.id, {k: v for k, v in r.row.items() if k != "image"})
           for r in result.rejects]
    assert got == [  # file by file, each by line
        ("a.csv", 3, "image", "q2", {"id": "q2", "question": "What?", "answer": "dog",
                                     "category": "a"}),
        ("a.csv", 4, "row", None, {"cells": ["q9", "p.png", "Too", "many", "cells"]}),
        ("b.csv", 2, "question", "q3", {"id": "q3", "question": "", "answer": "cat",
                                        "category": "b"}),
        ("b.csv", 3, "id", "q1", {"id": "q1", "question": "Again?", "answer": "cow",
                                  "category": "b"}),
    ]
    assert result.rejects[0].row["image"] == "gone.png"  # the cell as written
    assert result.rejects[0].message(src) == f"{src}/a.csv:3: id=q2 field=image: " \
        "image file 'gone.png' not found"


def test_import_items_summary_and_only_the_kept_rows_images(tmp_path):
    from bench_kit.exchange.importers import ImportOptions, import_items

    write_png(tmp_path / "p.png")
    write_png(tmp_path / "r.png", colour=(10, 200, 10))
    src = tmp_path / "in.csv"
    src.write_text(HEADER + "q1,p.png,Which?,red,blue,A\nq2,r.png,,red,blue,B\n"
                   "q3,p.png,What?,,,cat\n", encoding="utf-8")
    out = tmp_path / "out" / "items.jsonl"
    summary = import_items("csv", src, out, ImportOptions(capability="perception.colour"),
                           on_error="skip")
    assert (summary.out_path, summary.items, summary.images) == (out, 2, 1)
    assert summary.by_task == {"mc": 1, "open": 1}
    assert (summary.rejected, summary.rejects_path) == (1, tmp_path / "out" / "items.rejects.jsonl")
    assert any(line.startswith("delimiter:") for line in summary.decisions)
    # the rejected row's image r.png is not copied
    assert len(list((tmp_path / "out" / "images").iterdir())) == 1
    good = tmp_path / "ok.csv"
    good.write_text(HEADER + "q1,p.png,Which?,red,blue,A\n", encoding="utf-8")
    clean = import_items("csv", good, tmp_path / "ok" / "items.jsonl",
                         ImportOptions(capability="perception.colour"))
    assert (clean.rejected, clean.rejects_path) == (0, None)


def test_capabilities_outside_the_taxonomy_are_counted_and_name_the_file(tmp_path):
    from bench_kit.errors import InputError
    from bench_kit.exchange.importers import ImportOptions, import_items

    write_png(tmp_path / "p.png")
    src = tmp_path / "in.csv"
    src.write_text("id,image,question,answer\nq1,p.png,What?,cat\nq2,p.png,What?,dog\n")
    opts = ImportOptions(capability="x.a", layer="perception",
                         taxonomy={"perception.count": "perception"})
    with pytest.raises(InputError) as caught:
        import_items("csv", src, tmp_path / "out" / "items.jsonl", opts)
    assert str(caught.value).startswith(f"{src}: capabilities not in the taxonomy of "
                                        "params.yaml: x.a (2 items); add them")
    assert not (tmp_path / "out").exists()



def _read(tmp_path, text: str, **options):
    """(items, rejects, decisions) of reading `text` as in.csv."""
    from bench_kit.exchange.importers import ImportOptions, read_import

    write_png(tmp_path / "p.png")
    src = tmp_path / "in.csv"
    src.write_text(text, encoding="utf-8")
    options.setdefault("capability", "perception.count")
    opts = ImportOptions(**options)
    result = read_import("csv", src, opts)
    return result.items, result.rejects, opts.decisions


def test_task_rules_are_counted_per_task(tmp_path):
    text = "id,image,question,answer\nq1,p.png,What?,cat\nq2,p.png,What?,dog\n" \
           "q3,p.png,How many?,3\n"
    items, _, decisions = _read(tmp_path, text)
    assert "2 open: golds are text" in decisions and "1 numeric: golds are numbers" in decisions
    _, _, forced = _read(tmp_path, text, task="open")
    assert "task: open for every row (`task`)" in forced and "3 open: `task`" in forced
    with_column = "id,image,question,answer,task\nq1,p.png,What?,cat,open\n"
    _, _, from_column = _read(tmp_path, with_column)
    assert "1 open: the source's task column" in from_column


def test_expand_without_pairs_rejects_the_row_with_its_id_and_file(tmp_path):
    src = tmp_path / "src"
    src.mkdir()
    write_png(src / "p.png")
    (src / "a.csv").write_text("id,image,question,answer\nq1,p.png,What?,cat\n")
    from bench_kit.exchange.importers import ImportOptions, read_import

    result = read_import("csv", src, ImportOptions(capability="perception.count",
                                                   expand=True))
    [reject] = result.rejects
    assert (reject.file, reject.line, reject.id) == ("a.csv", 2, "q1")
    assert reject.row["question"] == "What?"


def test_a_header_without_rows_is_an_error_naming_the_file(tmp_path):
    from bench_kit.errors import InputError

    with pytest.raises(InputError) as caught:
        _read(tmp_path, "id,image,question,answer\n,,,\n")
    assert str(caught.value) == f"{tmp_path / 'in.csv'}: no rows to import"


def test_items_get_whole_seconds_and_map_values_may_hold_equals(tmp_path):
    from bench_kit.exchange.importers import parse_column_map

    items, _, _ = _read(tmp_path, "id,image,question,answer\nq1,p.png,What?,cat\n")
    assert items[0].created_at.microsecond == 0
    assert parse_column_map(["question=a=b"]) == {"question": "a=b"}


def test_image_root_never_lets_a_stored_path_climb_out_of_it(tmp_path):
    """`../../secret.png` under --image-root is refused as it is without it (the file next
    to the root is never read); a path whose trailing parts stay inside the root is found."""
    write_png(tmp_path / "secret.png")
    (tmp_path / "root").mkdir()
    (tmp_path / "sub").mkdir()
    src = tmp_path / "sub" / "t.jsonl"
    src.write_text('{"id": "1", "question": "What?", "answer": "x", '
                   '"image": "../../secret.png"}\n', encoding="utf-8")
    out = tmp_path / "out" / "items.jsonl"
    for extra in ([], ["--image-root", str(tmp_path / "root")]):
        result = CliRunner().invoke(cli, ["import", "jsonl", str(src), "--out", str(out),
                                          "--capability", "perception.colour", *extra])
        assert result.exit_code == 1, result.output
        assert f"{src}:1: id=1 field=image: " in result.stderr.splitlines()[0]
        assert not out.exists()
    write_png(tmp_path / "root" / "secret.png")   # inside the root: found by its last part
    result = CliRunner().invoke(cli, ["import", "jsonl", str(src), "--out", str(out),
                                      "--capability", "perception.colour",
                                      "--image-root", str(tmp_path / "root")])
    assert result.exit_code == 0, result.output
