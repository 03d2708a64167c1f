"""Importers (CSV, JSONL, VLMEvalKit TSV, HF on disk) and exporters, with round trips."""

from __future__ import annotations

import base64
import csv
import io
import json
from pathlib import Path

import pytest
from click.testing import CliRunner
from conftest import write_png

from bench_kit.cli import cli
from bench_kit.errors import InputError
from bench_kit.exchange.exporters import export_items
from bench_kit.exchange.hfdata import parquet_has_embedded_images
from bench_kit.exchange.importers import ImportOptions, import_items, read_import
from bench_kit.io import open_image, read_jsonl
from bench_kit.items import read_items

STAMP = "2026-02-01T00:00:00Z"


def _png_bytes(colour=(10, 200, 30), size=(32, 24)) -> bytes:
    from PIL import Image

    buf = io.BytesIO()
    Image.new("RGB", size, colour).save(buf, format="PNG")
    return buf.getvalue()


def _b64(colour=(10, 200, 30), size=(32, 24)) -> str:
    return base64.b64encode(_png_bytes(colour, size)).decode()


def _write_tsv(path: Path, rows: list[dict]) -> Path:
    columns = list(dict.fromkeys(k for r in rows for k in r))
    with path.open("w", encoding="utf-8", newline="") as fh:
        writer = csv.DictWriter(fh, fieldnames=columns, delimiter="\t", lineterminator="\n")
        writer.writeheader()
        writer.writerows(rows)
    return path


def _mmbench_rows() -> list[dict]:
    return [
        {"index": "0", "image": _b64((255, 0, 0)), "question": "What colour is the image?",
         "hint": "A flat colour.", "A": "red", "B": "green", "C": "blue", "D": "",
         "answer": "A", "category": "colour_attr", "l2-category": "attribute_reasoning"},
        {"index": "1", "image": "0", "question": "Is the image red?", "hint": "",
         "A": "", "B": "", "C": "", "D": "", "answer": "Yes", "category": "colour_attr",
         "l2-category": "attribute_reasoning"},
        {"index": "2", "image": _b64((0, 0, 255), (20, 20)), "question": "How many squares?",
         "hint": "", "A": "", "B": "", "C": "", "D": "", "answer": "1",
         "category": "counting", "l2-category": ""},
    ]


@pytest.fixture
def mmbench(tmp_path) -> tuple[Path, Path]:
    tsv = _write_tsv(tmp_path / "mmb.tsv", _mmbench_rows())
    cmap = tmp_path / "cmap.yaml"
    cmap.write_text("attribute_reasoning: perception.colour\ncounting: perception.count\n")
    return tsv, cmap


def _opts(**kw) -> ImportOptions:
    from bench_kit.exchange.importers import parse_created_at

    kw.setdefault("created_at", parse_created_at(STAMP))
    return ImportOptions(**kw)


def _pixels(root: Path, rel: str) -> bytes:
    return open_image(root / rel).tobytes()


def test_vlmevalkit_import_maps_options_answers_categories_and_images(tmp_path, mmbench):
    tsv, cmap = mmbench
    out = tmp_path / "bench" / "items.jsonl"
    result = CliRunner().invoke(cli, ["import", "vlmevalkit", str(tsv), "--out", str(out),
                                      "--category-map", str(cmap), "--created-at", STAMP])
    assert result.exit_code == 0, result.output
    items = {i.id: i for i in read_items(out)}
    mc, yn, num = items["0"], items["1"], items["2"]
    assert mc.task == "mc" and mc.choices == {"A": "red", "B": "green", "C": "blue"}
    assert mc.answers == ["A"] and mc.capability == "perception.colour"
    assert mc.layer == "perception" and mc.meta["hint"] == "A flat colour."
    assert yn.task == "yesno" and yn.answers == ["yes"] and yn.image == mc.image
    assert yn.group == mc.group  # a shared image groups its questions
    assert num.task == "numeric" and num.capability == "perception.count"
    assert all(i.source == "import:vlmevalkit" and i.created_at.isoformat().startswith(
        "2026-02-01") for i in items.values())
    assert _pixels(out.parent, mc.image)[:3] == bytes([255, 0, 0])
    assert Path(mc.image).name.startswith(Path(mc.image).stem) and mc.image.endswith(".png")


def test_vlmevalkit_round_trip_same_items_and_pixels(tmp_path, mmbench):
    tsv, _ = mmbench
    first = tmp_path / "a" / "items.jsonl"
    import_items("vlmevalkit", tsv, first, _opts(category_map={
        "attribute_reasoning": "perception.colour", "counting": "perception.count"}))
    exported = tmp_path / "export.tsv"
    export_items("vlmevalkit", first, exported)
    export_items("vlmevalkit", first, tmp_path / "again.tsv")
    assert exported.read_bytes() == (tmp_path / "again.tsv").read_bytes()  # deterministic
    rows = list(csv.DictReader(exported.open(encoding="utf-8"), delimiter="\t"))
    assert rows[1]["image"] == "0"  # a repeated image is written once, then by index
    second = tmp_path / "b" / "items.jsonl"
    import_items("vlmevalkit", exported, second, _opts())
    a, b = read_items(first), read_items(second)
    assert a == b
    for item in a:
        if item.image:
            assert _pixels(first.parent, item.image) == _pixels(second.parent, item.image)


def test_hf_round_trip_embeds_bytes_and_keeps_items(tmp_path):
    src = tmp_path / "src"
    write_png(src / "img" / "a.png", (1, 2, 3))
    write_png(src / "img" / "b.png", (9, 8, 7), (10, 12))
    rows = [
        {"id": "c1", "image": "img/a.png", "question": "Check the scene.",
         "checks": [{"question": "Is there a red ball?", "answer": "yes"},
                    {"question": "Is it night?", "answer": "no", "criteria": "sky dark"}],
         "capability": "perception.shape", "difficulty": "easy"},
        {"id": "m1", "image": ["img/a.png", "img/b.png"], "question": "Which is larger?",
         "choices": ["left", "right"], "answer": "right", "capability": "reasoning.compare"},
        {"id": "t1", "question": "Name a primary colour.", "answers": ["red", "blue"],
         "task": "open", "capability": "understanding.spatial", "tolerance": None},
    ]
    (src / "rows.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))
    first = tmp_path / "a" / "items.jsonl"
    import_items("jsonl", src / "rows.jsonl", first, _opts())
    items = {i.id: i for i in read_items(first)}
    assert items["c1"].task == "checklist"
    assert [(c.name, c.answer) for c in items["c1"].checks] == [
        ("Is there a red ball?", True), ("Is it night?", False)]
    assert items["m1"].answers == ["B"] and isinstance(items["m1"].image, list)

    export_items("hf", first, tmp_path / "hf")
    parquet = tmp_path / "hf" / "data" / "test-00000-of-00001.parquet"
    assert parquet_has_embedded_images(parquet)
    export_items("hf", first, tmp_path / "hf-again")
    assert parquet.read_bytes() == (tmp_path / "hf-again" / parquet.relative_to(
        tmp_path / "hf")).read_bytes()
    second = tmp_path / "b" / "items.jsonl"
    import_items("hf", tmp_path / "hf", second, _opts())
    back = {i.id: i for i in read_items(second)}
    for key, item in items.items():
        assert back[key].model_dump(exclude={"source", "meta"}) == \
            item.model_dump(exclude={"source", "meta"})
        assert back[key].meta == {**item.meta, "source_before_import": "import:jsonl"}
    third = tmp_path / "c" / "items.jsonl"
    export_items("hf", second, tmp_path / "hf2")
    import_items("hf", tmp_path / "hf2", third, _opts())
    assert read_items(third) == read_items(second)
    for rel in items["m1"].image:
        assert _pixels(first.parent, rel) == _pixels(third.parent, rel)


def test_hf_load_from_disk_and_imagefolder(tmp_path):
    from datasets import Dataset, DatasetDict, Features, Image, Value

    png = _png_bytes((5, 5, 5))
    features = Features({"image": Image(), "question": Value("string"),
                         "answer": Value("string")})
    ds = Dataset.from_dict({"image": [{"bytes": png, "path": "x.png"}],
                            "question": ["How many?"], "answer": ["3"]}, features=features)
    DatasetDict({"train": ds, "test": ds}).save_to_disk(str(tmp_path / "disk"))
    result = read_import("hf", tmp_path / "disk", _opts(capability="perception.count"))
    items, store = result.items, result.store
    assert items[0].task == "numeric" and items[0].image in store.files

    folder = tmp_path / "imgf"
    write_png(folder / "one.png")
    (folder / "metadata.jsonl").write_text(json.dumps(
        {"file_name": "one.png", "question": "Is it red?", "answer": "yes"}) + "\n")
    items = read_import("hf", folder, _opts(capability="perception.colour")).items
    assert items[0].task == "yesno" and items[0].id == "1"


def test_checklist_rows_with_parallel_check_and_answer_lists(tmp_path):
    write_png(tmp_path / "k.png")
    (tmp_path / "in.jsonl").write_text(json.dumps({
        "id": "k1", "image": "k.png", "checks": ["Is there a dog?", "是否有猫？"],
        "answers": ["Yes", "否"], "capability": "perception.shape"}, ensure_ascii=False) + "\n",
        encoding="utf-8")
    items = read_import("jsonl", tmp_path / "in.jsonl", _opts()).items
    assert items[0].task == "checklist" and items[0].answers == []
    assert [(c.name, c.answer) for c in items[0].checks] == [("Is there a dog?", True),
                                                             ("是否有猫？", False)]


def test_hint_can_be_prepended_to_the_question(mmbench):
    tsv, _ = mmbench
    items = read_import("vlmevalkit", tsv, _opts(hint="prepend", capability="perception.count")).items
    assert items[0].question == "Hint: A flat colour.\nWhat colour is the image?"
    assert items[1].question == "Is the image red?"


def test_csv_import_with_option_columns_and_created_at_from_source(tmp_path):
    write_png(tmp_path / "p.png")
    (tmp_path / "in.csv").write_text(
        "id,image,question,A,B,answer,capability,created_at\n"
        "k1,p.png,\"Which, of these?\",cat,dog,dog,perception.shape,2025-05-05T00:00:00Z\n",
        encoding="utf-8")
    items = read_import("csv", tmp_path / "in.csv", _opts()).items
    assert items[0].answers == ["B"] and items[0].question == "Which, of these?"
    assert items[0].created_at.year == 2025 and items[0].source == "import:csv"


BAD_ROWS = [
    ("csv", "id,question,answer\nq1,Is it?,yes\nq2,,yes\n", 3, "question"),
    ("csv", "id,question,answer,capability\nq1,Q?,maybe,x.y\n", 2, "layer"),
    ("jsonl", ('{"id": "a", "question": "Q?", "answer": "yes"}\n'
               '{"id": "a", "question": "Q?", "answer": "no"}\n'), 2, "id"),
    ("jsonl", '{"id": "a", "question": "Q", "checks": [{"question": "x", "answer": "sure"}]}\n',
     1, "checks.0.answer"),
    ("csv", "id,image,question,answer\nq1,../../etc/passwd,Q?,yes\n", 2, "image"),
    ("vlmevalkit", "index\timage\tquestion\tanswer\n0\tnot-base64!!\tQ?\tyes\n", 2, "image"),
]


@pytest.mark.parametrize("fmt,text,line,field", BAD_ROWS)
def test_bad_row_is_one_line_error_and_nothing_written(tmp_path, fmt, text, line, field):
    src = tmp_path / f"in.{'tsv' if fmt == 'vlmevalkit' else fmt}"
    src.write_text(text, encoding="utf-8")
    out = tmp_path / "out" / "items.jsonl"
    result = CliRunner().invoke(cli, ["import", fmt, str(src), "--out", str(out),
                                      "--capability", "perception.count"])
    assert result.exit_code == 1
    lines = result.output.strip().splitlines()
    assert "Traceback" not in result.output
    assert len(lines) == 2 and lines[0].startswith(f"{src}:{line}: ")
    assert f"field={field}: " in lines[0]
    assert lines[1] == f"error: {src}: 1 problem(s) found"
    assert not (tmp_path / "out").exists()


def test_invalid_utf8_names_its_line(tmp_path):
    src = tmp_path / "in.csv"
    src.write_bytes(b"id,question,answer\nq1,ok?,yes\nq2,bad \xff,yes\n")
    with pytest.raises(InputError, match=r"in.csv:3: invalid UTF-8"):
        read_import("csv", src, _opts(capability="perception.count"))


def test_giant_base64_and_decompression_bomb_are_refused(tmp_path):
    big = _write_tsv(tmp_path / "big.tsv", [{"index": "0", "image": "A" * 4000,
                                              "question": "Q?", "answer": "yes"}])
    with pytest.raises(InputError, match="larger than"):  # the CSV parser cannot go on
        read_import("vlmevalkit", big, _opts(capability="x.y", layer="perception",
                                             max_image_bytes=1000))
    from PIL import Image

    buf = io.BytesIO()
    Image.new("1", (9000, 9000)).save(buf, format="PNG")  # tiny file, 81 M pixels
    bomb = _write_tsv(tmp_path / "bomb.tsv", [{"index": "0", "image": base64.b64encode(
        buf.getvalue()).decode(), "question": "Q?", "answer": "yes"}])
    rejects = read_import("vlmevalkit", bomb, _opts(capability="perception.count")).rejects
    assert len(rejects) == 1 and "exceeds" in rejects[0].reason


def test_import_time_is_used_without_created_at(tmp_path):
    (tmp_path / "in.jsonl").write_text('{"question": "Q?", "answer": "no"}\n')
    out = tmp_path / "items.jsonl"
    import_items("jsonl", tmp_path / "in.jsonl", out, ImportOptions(capability="perception.count"))
    row = read_jsonl(out)[0]
    assert row["created_at"].endswith("Z") and row["id"] == "1"


def test_export_missing_image_names_the_item(tmp_path):
    items = tmp_path / "items.jsonl"
    from conftest import make_item

    items.write_text(json.dumps(make_item(id="q7", image="images/nope.png")) + "\n")
    result = CliRunner().invoke(cli, ["export", "vlmevalkit", "--items", str(items),
                                      "--out", str(tmp_path / "x.tsv")])
    assert result.exit_code == 1 and "q7" in result.output and "nope.png" in result.output
    assert not (tmp_path / "x.tsv").exists()
