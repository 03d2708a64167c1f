"""The text-table readers' rules (bench_kit/exchange/tabular.py) on their edges: the UTF-8
BOM and the line of an invalid byte, the delimiter sniff on a tie, header rules, line
numbers across blank and multi-line records, the field-size cap and the cell count; every
expected value is worked out by hand in the comment beside it."""

from __future__ import annotations

import hashlib
from pathlib import Path

import pytest

from bench_kit.errors import InputError
from bench_kit.exchange.rows import BadRow
from bench_kit.exchange.tabular import iter_table, read_utf8, sniff_delimiter


def _file(tmp_path: Path, data: bytes | str, name: str = "t.csv") -> Path:
    path = tmp_path / name
    path.write_bytes(data.encode("utf-8") if isinstance(data, str) else data)
    return path


def _rows(path: Path, delimiter: str = ",", max_field: int = 1000, columns=()):
    return list(iter_table(path, delimiter, max_field, tuple(columns)))


# --- reading the text ---------------------------------------------------------------------


def test_a_bom_is_dropped(tmp_path):
    assert read_utf8(_file(tmp_path, "\ufeffid,q\n1,x\n")) == "id,q\n1,x\n"
    assert _rows(_file(tmp_path, "\ufeffid,q\n1,x\n")) == [(2, {"id": "1", "q": "x"})]


def test_an_invalid_byte_names_its_offset_and_line(tmp_path):
    # b"a,b\nc,\xff": the bad byte is at offset 6, after one newline: line 2
    with pytest.raises(InputError) as raised:
        read_utf8(_file(tmp_path, b"a,b\nc,\xff\n"))
    assert raised.value.line == 2 and raised.value.reason == "invalid UTF-8 at byte 6"
    # on the first line: line 1
    with pytest.raises(InputError) as raised:
        read_utf8(_file(tmp_path, b"\xffa,b\n"))
    assert raised.value.line == 1 and raised.value.reason == "invalid UTF-8 at byte 0"


def test_missing_and_unreadable_files(tmp_path):
    with pytest.raises(InputError) as raised:
        read_utf8(tmp_path / "gone.csv")
    assert raised.value.reason == "file not found"
    assert raised.value.path == str(tmp_path / "gone.csv")
    with pytest.raises(InputError) as raised:
        read_utf8(tmp_path)     # a folder
    assert raised.value.reason == "cannot read: Is a directory"
    assert raised.value.path == str(tmp_path)


@pytest.mark.parametrize("first_line, delimiter", [
    ("a\tb,c", ","),          # one tab, one comma: a tie is a comma
    ("a\tb\tc,d", "\t"),      # two tabs, one comma
    ("a,b,c", ","),
    ("a\tb\nc,d,e,f", "\t"),  # only the first line counts
])
def test_sniff_delimiter(tmp_path, first_line, delimiter):
    assert sniff_delimiter(_file(tmp_path, first_line + "\n")) == delimiter


# --- header and records -------------------------------------------------------------------


@pytest.mark.parametrize("text, reason", [
    ("", "empty file (a header row is needed)"),
    ("a,b,a\n1,2,3\n", "header has blank or duplicate columns ['a']"),
    ("b,a,b,a\n", "header has blank or duplicate columns ['a', 'b']"),   # sorted
    ("a,,b\n1,2,3\n", "header has blank or duplicate columns []"),
    ("a, a\n", "header has blank or duplicate columns ['a']"),          # after stripping
])
def test_header_rules(tmp_path, text, reason):
    with pytest.raises(InputError) as raised:
        _rows(_file(tmp_path, text))
    assert raised.value.reason == reason and raised.value.line == 1


def test_line_numbers_across_blank_and_multi_line_records(tmp_path):
    text = ('id , q\n'            # line 1: the header, names stripped
            '1,"two\nlines"\n'    # lines 2-3: one record, reported at its first line
            ',\n'                 # line 4: blank cells only, skipped
            '\n'                  # line 5: empty, skipped
            '  , \t\n'            # line 6: whitespace only, skipped
            '2,x\n')              # line 7
    assert _rows(_file(tmp_path, text)) == [(2, {"id": "1", "q": "two\nlines"}),
                                            (7, {"id": "2", "q": "x"})]


def test_a_record_with_the_wrong_cell_count_is_a_bad_row(tmp_path):
    rows = _rows(_file(tmp_path, "a,b\n1,2,3\n4\n5,6\n"))
    assert rows == [(2, BadRow("row", "3 cells but the header has 2", {"cells": ["1", "2", "3"]})),
                    (3, BadRow("row", "1 cells but the header has 2", {"cells": ["4"]})),
                    (4, {"a": "5", "b": "6"})]


def test_named_columns_make_the_first_line_a_record(tmp_path):
    rows = _rows(_file(tmp_path, "1,x\n\n2,y\n"), columns=("id", "q"))
    assert rows == [(1, {"id": "1", "q": "x"}), (3, {"id": "2", "q": "y"})]


def test_the_field_cap_is_inclusive_and_names_the_line(tmp_path):
    # csv's limit: a field of exactly the limit is read, one more character is not
    path = _file(tmp_path, "a,b\n1,2\n3," + "x" * 10 + "\n")
    assert _rows(path, max_field=10)[-1] == (3, {"a": "3", "b": "x" * 10})
    with pytest.raises(InputError) as raised:
        _rows(path, max_field=9)
    assert raised.value.reason == "a field is larger than 9 characters"
    assert raised.value.line == 3


def test_the_field_cap_is_restored_afterwards(tmp_path):
    import csv

    before = csv.field_size_limit()
    _rows(_file(tmp_path, "a\n1\n"), max_field=5)
    with pytest.raises(InputError):
        _rows(_file(tmp_path, "a\n123456\n"), max_field=5)
    assert csv.field_size_limit() == before


def test_tab_delimited(tmp_path):
    assert _rows(_file(tmp_path, "a\tb\n1,2\t3\n"), "\t") == [(2, {"a": "1,2", "b": "3"})]


# --- the readers ----------------------------------------------------------------------------


def _read(reader, path: Path, **opts):
    from bench_kit.exchange.imagefiles import ImageStore
    from bench_kit.exchange.rows import ImportOptions

    options = ImportOptions(**opts)
    rows = list(reader(path, options, ImageStore()))
    return rows, options.decisions


def test_csv_decisions_name_the_delimiter_and_the_header(tmp_path):
    from bench_kit.exchange.tabular import read_csv

    path = _file(tmp_path, "id,question\n1,Why?\n")
    _, decisions = _read(read_csv, path)
    assert decisions[0] == "delimiter: ',' (sniffed; `delimiter` overrides)"
    _, decisions = _read(read_csv, _file(tmp_path, "1\tWhy?\n"), delimiter="\t",
                         columns=("id", "question"))
    assert decisions[0] == "delimiter: tab; header: `columns=id,question`"


def test_a_csv_folder_is_read_file_by_file_with_the_file_name_as_category(tmp_path):
    from bench_kit.exchange.tabular import read_csv

    folder = tmp_path / "mme"
    folder.mkdir()
    _file(folder, "id,question\nb1,Is it?\n", "count.txt")
    _file(folder, "id,question,category\na1,What?,own\na2\n", "OCR.CSV")   # any case
    _file(folder, '{"id": "x"}\n', "notes.json")                            # not a table
    rows, decisions = _read(read_csv, folder)
    # files sorted by name: "OCR.CSV" before "count.txt" (capitals sort first)
    assert [(line, row if isinstance(row, BadRow) else
             {k: row[k] for k in ("id", "category", "_file")}) for line, row in rows] == [
        (2, {"id": "a1", "category": "own", "_file": "OCR.CSV"}),     # its own category kept
        (3, BadRow("row", "1 cells but the header has 3", {"cells": ["a2"],
                                                            "_file": "OCR.CSV"})),
        (2, {"id": "b1", "category": "count", "_file": "count.txt"})]
    assert "folder: 2 files, category = file name (OCR, count)" in decisions


def test_a_folder_lists_six_file_names_then_an_ellipsis(tmp_path):
    from bench_kit.exchange.tabular import read_csv

    for name in "abcdefg":
        _file(tmp_path, "id,question\n1,Q?\n", f"{name}.csv")
    _, decisions = _read(read_csv, tmp_path)
    assert "folder: 7 files, category = file name (a, b, c, d, e, f, …)" in decisions
    (tmp_path / "g.csv").unlink()
    _, decisions = _read(read_csv, tmp_path)
    assert "folder: 6 files, category = file name (a, b, c, d, e, f)" in decisions


def test_a_folder_without_tables_is_an_error(tmp_path):
    from bench_kit.exchange.tabular import read_csv

    _file(tmp_path, "{}", "x.json")
    with pytest.raises(InputError) as raised:
        _read(read_csv, tmp_path)
    assert raised.value.reason == "no .csv/.tsv/.txt files in the folder"


def test_jsonl_rows_must_be_objects(tmp_path):
    from bench_kit.exchange.tabular import read_jsonl_rows

    path = _file(tmp_path, '{"id": "1", "question": "Q?"}\n[1, 2]\n', "t.jsonl")
    with pytest.raises(InputError) as raised:
        _read(read_jsonl_rows, path)
    assert raised.value.reason == "expected a JSON object" and raised.value.line == 2


def _b64_png(colour=(200, 30, 30)) -> str:
    import base64
    import io

    from PIL import Image

    buffer = io.BytesIO()
    Image.new("RGB", (8, 8), colour).save(buffer, format="PNG")
    return base64.b64encode(buffer.getvalue()).decode("ascii")


def test_vlmevalkit_ids_repeated_images_and_derived_columns(tmp_path):
    from bench_kit.exchange.tabular import read_vlmevalkit

    red = _b64_png()
    text = ("index\timage\tquestion\tA\tB\tanswer\tcategory\tmeta\tid\n"
            f"7\t{red}\tWhich?\tx\ty\tA\tcolour\t\t\n"              # id <- index
            "8\t7\tWhich?\tx\ty\tB\tcolour\t{\"k\": 1}\tmine\n"      # image of index 7
            f"\t{red}\tWhich?\tx\ty\tA\tcolour\t\t\n")               # no index: the line
    rows, decisions = _read(read_vlmevalkit, _file(tmp_path, text, "t.tsv"))
    (l1, r1), (l2, r2), (l3, r3) = rows
    assert (l1, r1["id"]) == (2, "7") and (l2, r2["id"]) == (3, "mine") and (l3, r3["id"]) == (4, "4")
    assert r2["image"] == r1["image"] == r3["image"]      # one stored file, by content
    # the row with a full `meta` (a bench-kit export) does not keep the derived category
    assert "category" in r1 and "category" not in r2
    assert decisions[0] == "shape: VLMEvalKit TSV, id<-index, image<-image (base64), options: A, B"


def test_vlmevalkit_bad_image_is_a_bad_row_keeping_the_index(tmp_path):
    from bench_kit.exchange.tabular import read_vlmevalkit

    text = "index\timage\tquestion\tanswer\n5\t[not json\tQ?\tx\n"
    rows, decisions = _read(read_vlmevalkit, _file(tmp_path, text, "t.tsv"))
    [(line, bad)] = rows
    assert line == 2 and bad.field == "image"
    assert bad.reason == "looks like a JSON list but does not parse"
    assert bad.row == {"index": "5", "question": "Q?", "answer": "x", "image": None}
    assert decisions[0] == "shape: VLMEvalKit TSV, id<-index, image<-image (base64), options: none"


def test_vlmevalkit_image_path_column(tmp_path):
    from bench_kit.exchange.tabular import read_vlmevalkit
    from tests.conftest import write_png

    write_png(tmp_path / "pics" / "a.png")
    text = "index\timage_path\tquestion\tanswer\n1\tpics/a.png\tQ?\tx\n2\tpics/gone.png\tQ?\tx\n"
    rows, decisions = _read(read_vlmevalkit, _file(tmp_path, text, "t.tsv"))
    (_, good), (line, bad) = rows
    # stored by content: images/ + the first 20 hex digits of the file's SHA-256
    digest = hashlib.sha256((tmp_path / "pics" / "a.png").read_bytes()).hexdigest()[:20]
    assert good["image"] == f"images/{digest}.png" and "image_path" not in good
    assert line == 3 and bad.field == "image" and "not found" in bad.reason
    assert decisions[0].startswith("shape: VLMEvalKit TSV, id<-index, image<-image_path (files)")


def test_errors_name_the_file(tmp_path):
    from bench_kit.exchange.tabular import read_csv, read_jsonl_rows

    for text in ("", "a,a\n"):
        path = _file(tmp_path, text)
        with pytest.raises(InputError) as raised:
            _rows(path)
        assert raised.value.path == str(path)
    path = _file(tmp_path, "a\n" + "x" * 20 + "\n")
    with pytest.raises(InputError) as raised:
        _rows(path, max_field=5)
    assert raised.value.path == str(path)
    (tmp_path / "empty").mkdir()
    with pytest.raises(InputError) as raised:
        _read(read_csv, tmp_path / "empty")
    assert raised.value.path == str(tmp_path / "empty")
    path = _file(tmp_path, "[1]\n", "t.jsonl")
    with pytest.raises(InputError) as raised:
        _read(read_jsonl_rows, path)
    assert raised.value.path == str(path)


def test_vlmevalkit_describes_its_shape_once(tmp_path):
    from bench_kit.exchange.tabular import read_vlmevalkit

    text = "index\tquestion\tanswer\n1\tQ?\tx\n2\tR?\ty\n"
    _, decisions = _read(read_vlmevalkit, _file(tmp_path, text, "t.tsv"))
    shapes = [d for d in decisions if d.startswith("shape:")]
    assert shapes == ["shape: VLMEvalKit TSV, id<-index, no image column, options: none"]
