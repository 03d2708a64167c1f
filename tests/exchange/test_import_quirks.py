"""Import quirks of real benchmark files: every problem listed, --on-error skip, --map and
column detection, multi-answer / box / non-answer golds, images wherever they are
(HF lists and structs, foreign absolute paths with --image-root), Donut pairs."""

from __future__ import annotations

import base64
import io
import json

import pytest
from click.testing import CliRunner

from bench_kit.cli import cli
from bench_kit.io import read_jsonl
from bench_kit.items import read_items
from tests.conftest import write_png


def _run(*args: str):
    return CliRunner().invoke(cli, [str(a) for a in args])


def _png(colour=(200, 10, 10)) -> bytes:
    from PIL import Image

    buf = io.BytesIO()
    Image.new("RGB", (6, 6), colour).save(buf, format="PNG")
    return buf.getvalue()


BAD_CSV = """id,image,question,A,B,C,answer
ok1,p.png,Which colour?,red,blue,,A
multi,p.png,Which are warm?,red,blue,orange,A;C
blank,p.png,,red,blue,,A
empty_opt,p.png,Which one?,red,blue,,C
nonans,p.png,What is written?,,,,unanswerable
noimg,gone.png,What is it?,,,,cat
ok1,p.png,Duplicate id?,,,,yes
box,p.png,Where is the dog?,,,,"[10, 20, 30, 40]"
"""


def test_every_problem_listed_then_skip_writes_good_rows_and_rejects(tmp_path):
    write_png(tmp_path / "p.png")
    src = tmp_path / "in.csv"
    src.write_text(BAD_CSV, encoding="utf-8")
    out = tmp_path / "out" / "items.jsonl"
    args = ("import", "csv", src, "--out", out, "--capability", "perception.colour")
    failed = _run(*args)
    assert failed.exit_code == 1 and "Traceback" not in failed.output
    assert not (tmp_path / "out").exists()
    assert failed.stderr.splitlines() == [
        f"{src}:4: id=blank field=question: must not be blank",
        f"{src}:5: id=empty_opt field=answer: gold ['C'] points at an empty option",
        f"{src}:6: id=nonans field=answer: 'unanswerable' is not an answer",
        f"{src}:7: id=noimg field=image: image file 'gone.png' not found",
        f"{src}:8: id=ok1 field=id: duplicate id 'ok1' (first at line 2; "
        "ids unique only with other columns: --map id=COL1,COL2)",
        f"error: {src}: 5 problem(s) found",
    ]
    skipped = _run(*args, "--on-error", "skip")
    assert skipped.exit_code == 0, skipped.output
    assert "imported 3 items (1 grounding, 2 mc)" in skipped.stderr
    assert f"rejected 5 rows (reasons in {tmp_path / 'out' / 'items.rejects.jsonl'})" \
        in skipped.stderr
    items = {i.id: i for i in read_items(out)}
    assert items["multi"].answers == ["A", "C"] and items["multi"].meta["multi_answer"]
    assert items["box"].task == "grounding" and items["box"].answers == ["10,20,30,40"]
    rejects = read_jsonl(tmp_path / "out" / "items.rejects.jsonl")
    assert [(r["line"], r["field"]) for r in rejects] == [
        (4, "question"), (5, "answer"), (6, "answer"), (7, "image"), (8, "id")]
    assert rejects[2]["row"]["answer"] == "unanswerable"


@pytest.mark.parametrize("gold", ['A,C', '["A","C"]', "A; C"])
def test_multi_answer_golds_export_back_in_vlmevalkit_form(tmp_path, gold):
    pd = pytest.importorskip("pandas")
    write_png(tmp_path / "p.png")
    (tmp_path / "in.jsonl").write_text(json.dumps({
        "id": "m1", "image": "p.png", "question": "Which are warm?",
        "A": "red", "B": "blue", "C": "orange", "answer": gold}) + "\n")
    out = tmp_path / "items.jsonl"
    assert _run("import", "jsonl", tmp_path / "in.jsonl", "--out", out,
                "--capability", "perception.colour").exit_code == 0
    [item] = read_items(out)
    assert item.task == "mc" and item.answers == ["A", "C"]
    assert _run("export", "vlmevalkit", "--items", out, "--out", tmp_path / "x.tsv").exit_code == 0
    row = pd.read_csv(tmp_path / "x.tsv", sep="\t").iloc[0]
    assert row["answer"] == "A,C"
    assert [c for c in "ABCDEFGHIJ" if c in row and not pd.isna(row[c])] == ["A", "B", "C"]
    # and our importer reads the export back as the same multi-answer item
    assert _run("import", "vlmevalkit", tmp_path / "x.tsv", "--out", tmp_path / "again.jsonl"
                ).exit_code == 0
    assert read_items(tmp_path / "again.jsonl")[0].answers == ["A", "C"]


def test_map_and_detected_column_names(tmp_path):
    write_png(tmp_path / "imgs" / "a.png")
    (tmp_path / "in.csv").write_text("qid,problem,gt,file_name\n7,How many?,3,imgs/a.png\n")
    out = tmp_path / "items.jsonl"
    result = _run("import", "csv", tmp_path / "in.csv", "--out", out,
                  "--capability", "perception.count")
    assert result.exit_code == 0, result.output
    [item] = read_items(out)
    assert (item.id, item.question, item.answers, item.task) == ("7", "How many?", ["3"],
                                                                 "numeric")
    assert item.image.startswith("images/")

    (tmp_path / "odd.csv").write_text("key,ask,gold_text\nk1,Is it red?,yes\n")
    missing = _run("import", "csv", tmp_path / "odd.csv", "--out", out,
                   "--capability", "perception.colour")
    assert missing.exit_code == 1
    assert missing.stderr.strip() == (
        f"error: {tmp_path / 'odd.csv'}: no question column (looked for question, problem, "
        "query, prompt, question_natural_language, text; use --map question=COLUMN)")
    mapped = _run("import", "csv", tmp_path / "odd.csv", "--out", out, "--capability",
                  "perception.colour", "--map", "question=ask", "--map", "answer=gold_text",
                  "--map", "id=key")
    assert mapped.exit_code == 0, mapped.output
    assert read_items(out)[0].id == "k1" and read_items(out)[0].task == "yesno"
    bad = _run("import", "csv", tmp_path / "odd.csv", "--out", out, "--map", "colour=ask")
    assert bad.exit_code == 2 and "unknown field 'colour'" in bad.stderr


def test_hf_parquet_image_lists_structs_and_placeholders(tmp_path):
    pa = pytest.importorskip("pyarrow")
    import pyarrow.parquet as pq

    red, blue, green = _png((200, 0, 0)), _png((0, 0, 200)), _png((0, 200, 0))
    write_png(tmp_path / "ds" / "local.png")
    table = pa.table({
        "id": ["two", "one", "path"],
        "question": ["<image 1> or <image 2>: which is red?", "Colour?", "Colour?"],
        "options": [json.dumps(["first", "second"]), None, None],
        "answer": ["A", "red", "green"],
        # plain structs (no HF Image feature metadata), a list for the multi-image row
        "images": [[{"bytes": red, "path": "r.png"}, {"bytes": blue, "path": "b.png"}],
                   [{"bytes": green, "path": "g.png"}], []],
        "image_path": [None, None, "local.png"],
    })
    pq.write_table(table, tmp_path / "ds" / "test-00000-of-00001.parquet")
    out = tmp_path / "o" / "items.jsonl"
    result = _run("import", "hf", tmp_path / "ds", "--out", out, "--capability",
                  "perception.colour")
    assert result.exit_code == 0, result.output
    items = {i.id: i for i in read_items(out)}
    two = items["two"]
    assert isinstance(two.image, list) and len(two.image) == 2
    assert (tmp_path / "o" / two.image[0]).read_bytes() == red     # order kept
    assert (tmp_path / "o" / two.image[1]).read_bytes() == blue
    assert two.question.startswith("<image 1> or <image 2>") and two.answers == ["A"]
    assert isinstance(items["one"].image, list) and len(items["one"].image) == 1
    assert (tmp_path / "o" / items["path"].image).is_file()


def test_hf_image_feature_dataset_missing_image_is_a_row_problem(tmp_path):
    datasets = pytest.importorskip("datasets")
    features = datasets.Features({"image": datasets.Image(), "question": datasets.Value("string"),
                                  "answer": datasets.Value("string")})
    import pyarrow as pa
    import pyarrow.parquet as pq

    ds = datasets.Dataset.from_dict({
        "image": [{"bytes": _png(), "path": "a.png"}, {"bytes": _png(), "path": "b.png"}],
        "question": ["Is it red?", "Is it red?"], "answer": ["yes", "no"]}, features=features)
    ds.to_parquet(str(tmp_path / "d.parquet"))
    # as a dataset prepared on another machine ships: the second image only by its path
    table = pq.read_table(tmp_path / "d.parquet")
    images = table.column("image").to_pylist()
    images[1] = {"bytes": None, "path": "/nowhere/b.png"}
    table = table.set_column(0, "image", pa.array(images, type=table.schema.field("image").type))
    pq.write_table(table, tmp_path / "d.parquet")
    out = tmp_path / "items.jsonl"
    failed = _run("import", "hf", tmp_path / "d.parquet", "--out", out, "--capability",
                  "perception.colour")
    assert failed.exit_code == 1
    assert "d.parquet:2: field=image: image file '/nowhere/b.png' not found; give " \
           "--image-root" in failed.stderr
    write_png(tmp_path / "moved" / "b.png")
    fixed = _run("import", "hf", tmp_path / "d.parquet", "--out", out, "--capability",
                 "perception.colour", "--image-root", tmp_path / "moved")
    assert fixed.exit_code == 0, fixed.output
    assert len(read_items(out)) == 2


def test_vlmevalkit_localised_tsv_absolute_paths_found_under_image_root(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)   # no params.yaml: any capability
    write_png(tmp_path / "LMUData" / "images" / "MMBench" / "0.jpg".replace(".jpg", ".png"))
    tsv = tmp_path / "MMBench_local.tsv"
    tsv.write_text("index\timage_path\tquestion\tA\tB\tanswer\n"
                   "0\t/root/LMUData/images/MMBench/0.png\tWhich?\tx\ty\tA\n", encoding="utf-8")
    out = tmp_path / "o" / "items.jsonl"
    failed = _run("import", "vlmevalkit", tsv, "--out", out, "--capability", "x.y",
                  "--layer", "perception")
    assert failed.exit_code == 1 and "field=image" in failed.stderr
    result = _run("import", "vlmevalkit", tsv, "--out", out, "--capability", "x.y",
                  "--layer", "perception", "--image-root", tmp_path / "LMUData" / "images")
    assert result.exit_code == 0, result.output
    assert (tmp_path / "o" / read_items(out)[0].image).is_file()


def test_donut_ground_truth_pairs_expand_into_items_sharing_the_image(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)   # no params.yaml: any capability
    folder = tmp_path / "docvqa" / "test"
    write_png(folder / "0007.png")
    write_png(folder / "0008.png", colour=(1, 2, 3))
    pairs = {"gt_parses": [
        {"question": "what is the model name?", "answer": "donut"},
        {"question": "what is the model name?", "answer": "document understanding transformer"},
        {"question": "what is the date?", "answer": "2022"}]}
    rows = [{"file_name": "0007.png", "ground_truth": json.dumps(pairs)},
            {"file_name": "0008.png", "ground_truth": json.dumps({"gt_parse": {"class": "memo"}})}]
    (folder / "metadata.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))
    out = tmp_path / "o" / "items.jsonl"
    forced = _run("import", "hf", tmp_path / "docvqa", "--split", "test", "--out", out,
                  "--capability", "understanding.document", "--layer", "understanding",
                  "--expand")
    assert forced.exit_code == 1
    assert "docvqa:2: field=ground_truth: holds no question/answer pairs" in forced.stderr
    result = _run("import", "hf", tmp_path / "docvqa", "--split", "test", "--out", out,
                  "--capability", "understanding.document", "--layer", "understanding",
                  "--expand", "--on-error", "skip")
    assert result.exit_code == 0, result.output
    items = read_items(out)
    assert [(i.id, i.question, i.answers) for i in items] == [
        ("1-1", "what is the model name?", ["donut", "document understanding transformer"]),
        ("1-2", "what is the date?", ["2022"])]
    assert items[0].group == items[1].group and items[0].image == items[1].image


def test_category_map_miss_names_the_value(tmp_path):
    (tmp_path / "map.yaml").write_text("attribute_recognition: perception.colour\n")
    tsv = tmp_path / "m.tsv"
    png = base64.b64encode(_png()).decode()
    tsv.write_text("index\timage\tquestion\tA\tB\tanswer\tcategory\n"
                   f"0\t{png}\tWhich?\tx\ty\tA\tocr\n", encoding="utf-8")
    result = _run("import", "vlmevalkit", tsv, "--out", tmp_path / "i.jsonl",
                  "--category-map", tmp_path / "map.yaml")
    assert result.exit_code == 1
    assert "field=capability: --category-map has no entry for category='ocr'" in result.stderr


def test_import_help_lists_the_formats():
    result = _run("import", "--help")
    for fmt in ("csv", "jsonl", "vlmevalkit", "hf", "checklist-csv"):
        assert f"  {fmt} " in result.output


def test_cli_format_list_is_the_registry():
    from bench_kit.cli.io_cmds import IMPORT_FORMATS
    from bench_kit.exchange.importers import import_formats

    assert sorted(IMPORT_FORMATS) == import_formats()
