"""Golds typed on the whole file (bench_kit/exchange/golds.py) and source columns kept:
each guessable inference printed with its override, each undecidable one an error."""

from __future__ import annotations

import csv
import json

import pytest
from click.testing import CliRunner

from bench_kit.cli import cli
from bench_kit.exchange.golds import options_in_prompt
from bench_kit.items import read_items


@pytest.fixture(autouse=True)
def _outside_a_project(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)   # no params.yaml: capabilities are not checked


def _import(tmp_path, fmt: str, name: str, rows, *extra: str):
    src = tmp_path / name
    if fmt == "csv":
        with src.open("w", newline="", encoding="utf-8") as f:
            writer = csv.DictWriter(f, fieldnames=list(rows[0]))
            writer.writeheader()
            writer.writerows(rows)
    else:
        src.write_text(json.dumps(rows), encoding="utf-8")
    out = tmp_path / f"{name}.items.jsonl"
    result = CliRunner().invoke(cli, ["import", fmt, str(src), "--out", str(out),
                                      "--capability", "perception.test", *extra])
    return result, (read_items(out) if result.exit_code == 0 else [])


@pytest.mark.parametrize("question, stem, options", [
    ("Which one?\nA. red\nB. blue", "Which one?", {"A": "red", "B": "blue"}),
    ("Which one?\n(A) red\n(B) blue\n(C) green", "Which one?",
     {"A": "red", "B": "blue", "C": "green"}),
    ("Which one?\nA) red\nB) blue", "Which one?", {"A": "red", "B": "blue"}),
    ("Which one? (A) red (B) blue", "Which one?", {"A": "red", "B": "blue"}),
    ("Which one?\nB. red\nC. blue", None, None),          # not lettered from A
    ("Which one?\nA. red", None, None),                   # one option is not a choice
])
def test_options_written_in_the_prompt(question, stem, options):
    found = options_in_prompt(question)
    assert (found == (stem, options)) if stem else found is None


def test_one_zero_golds_yesno_unless_counting(tmp_path):
    rows = [{"id": "a", "question": "Is the cup red?", "answer": "1"},
            {"id": "b", "question": "The cup is on the table.", "answer": "0"},
            {"id": "c", "question": "How many cups are there?", "answer": "1"}]
    result, items = _import(tmp_path, "csv", "t.csv", rows)
    assert result.exit_code == 0, result.output
    assert [(i.task, i.answers) for i in items] == [("yesno", ["yes"]), ("yesno", ["no"]),
                                                    ("numeric", ["1"])]
    assert "warning: 2 yesno: golds 1/0" in result.stderr
    assert "pass --task numeric if these are counts" in result.stderr
    assert "1 numeric: golds 1/0 but 'how many' questions" in result.stderr
    # a file with other numbers among its golds: 1/0 are counts, nothing is retyped
    rows.append({"id": "d", "question": "Is it 3?", "answer": "3"})
    result, items = _import(tmp_path, "csv", "u.csv", rows)
    assert {i.task for i in items} == {"numeric"}


def test_true_false_golds_become_yesno(tmp_path):
    rows = [{"id": "a", "question": "Is it day?", "answer": True},
            {"id": "b", "question": "Is it night?", "answer": False}]
    result, items = _import(tmp_path, "json", "t.json", rows)
    assert result.exit_code == 0, result.output
    assert [i.answers for i in items] == [["yes"], ["no"]] and items[0].task == "yesno"


def test_option_index_golds_need_the_data_or_the_flag(tmp_path):
    rows = [{"id": "a", "question": "Pick", "choices": ["x", "y", "z"], "answer": 1},
            {"id": "b", "question": "Pick", "choices": ["x", "y", "z"], "answer": 2}]
    result, _ = _import(tmp_path, "json", "t.json", rows)
    assert result.exit_code != 0
    assert "pass --gold-index 0 or --gold-index 1" in result.stderr
    assert "Traceback" not in result.output
    result, items = _import(tmp_path, "json", "t.json", rows, "--gold-index", "1")
    assert [i.answers for i in items] == [["A"], ["B"]]
    rows.append({"id": "c", "question": "Pick", "choices": ["x", "y", "z"], "answer": 3})
    result, items = _import(tmp_path, "json", "u.json", rows)          # 3 of 3: 1-based
    assert [i.answers for i in items] == [["A"], ["B"], ["C"]]
    assert "read 1-based (some gold equals its option count)" in result.stderr


def test_option_text_with_brackets_and_python_list_cells(tmp_path):
    rows = [{"id": "a", "question": "Which indexes?", "choices": "['[0, 2]', '[1, 3]']",
             "answer": "[1, 3]", "answers": ""},
            {"id": "b", "question": "Name it", "choices": "", "answer": "",
             "answers": "['cat', 'kitten']"}]
    result, items = _import(tmp_path, "csv", "t.csv", rows)
    assert result.exit_code == 0, result.output
    assert items[0].choices == {"A": "[0, 2]", "B": "[1, 3]"} and items[0].answers == ["B"]
    assert items[1].answers == ["cat", "kitten"] and items[1].task == "open"


def test_source_task_group_split_columns_used_or_kept(tmp_path):
    rows = [{"id": "a", "question": "Is it?", "answer": "yes", "task": "closed choice",
             "group": "", "split": "train", "subject": "art"},
            {"id": "b", "question": "How many?", "answer": "2", "task": "numeric",
             "group": "g1", "split": "test", "subject": "art"}]
    result, items = _import(tmp_path, "csv", "t.csv", rows)
    assert result.exit_code == 0, result.output
    a, b = items
    assert a.task == "yesno" and a.meta["source"]["task"] == "closed choice"
    assert b.task == "numeric" and b.group == "g1" and "task" not in b.meta.get("source", {})
    assert a.meta["split"] == "train" and a.meta["source"]["subject"] == "art"
    assert "kept in meta: split" in result.stderr
    assert "kept as metadata (meta.source): subject" in result.stderr


def test_hint_prepend_never_doubles(tmp_path):
    rows = [{"id": "a", "question": "Is it?", "answer": "yes", "hint": "Hint: look left"}]
    result, items = _import(tmp_path, "csv", "t.csv", rows, "--hint", "prepend")
    assert items[0].question == "Hint: look left\nIs it?"


def test_tsv_sniffed_and_headerless_columns(tmp_path):
    src = tmp_path / "count.txt"
    src.write_text("1.jpg\tIs there a cat? Please answer yes or no.\tYes\n"
                   "1.jpg\tIs there a dog? Please answer yes or no.\tNo\n", encoding="utf-8")
    from PIL import Image
    Image.new("RGB", (4, 4), (9, 9, 9)).save(tmp_path / "1.jpg")
    out = tmp_path / "items.jsonl"
    result = CliRunner().invoke(cli, ["import", "csv", str(tmp_path), "--out", str(out),
                                      "--columns", "image,question,answer",
                                      "--capability", "perception.test"])
    assert result.exit_code == 0, result.output
    assert "delimiter: tab (sniffed" in result.stderr
    assert "folder: 1 files, category = file name (count)" in result.stderr
    items = read_items(out)
    assert [(i.task, i.answers, i.meta["category"]) for i in items] == [
        ("yesno", ["yes"], "count"), ("yesno", ["no"], "count")]


def test_capabilities_missing_from_the_taxonomy_are_one_error(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "params.yaml").write_text("taxonomy:\n  perception.count: perception\n",
                                          encoding="utf-8")
    rows = [{"id": "a", "question": "Is it?", "answer": "yes", "capability": "perception.ocr"},
            {"id": "b", "question": "Is it?", "answer": "no", "capability": "perception.ocr"},
            {"id": "c", "question": "How many?", "answer": "2",
             "capability": "perception.count"}]
    result, _ = _import(tmp_path, "csv", "t.csv", rows)
    assert result.exit_code == 1 and not (tmp_path / "t.csv.items.jsonl").exists()
    [line] = result.stderr.strip().splitlines()
    assert "capabilities not in the taxonomy of params.yaml: perception.ocr (2 items)" in line
    assert "add them under `taxonomy:`" in line


def test_golds_with_units_are_numeric_and_keep_the_written_form(tmp_path):
    rows = [{"id": "a", "question": "How long is AC?", "answer": "6cm"},
            {"id": "b", "question": "What is the total volume?", "answer": "1000 g"},
            {"id": "c", "question": "How many?", "answer": "4"}]
    result, items = _import(tmp_path, "csv", "t.csv", rows)
    assert result.exit_code == 0, result.output
    assert [(i.task, i.answers) for i in items] == [("numeric", ["6"]), ("numeric", ["1000"]),
                                                    ("numeric", ["4"])]
    assert items[0].meta["source"]["answer_as_written"] == "6cm"
    assert "warning: 2 numeric: golds written with a unit" in result.stderr
    # one text gold in the file: nothing is read as a number with a unit
    rows.append({"id": "d", "question": "What colour?", "answer": "red"})
    result, items = _import(tmp_path, "csv", "u.csv", rows)
    assert items[0].task == "open" and items[0].answers == ["6cm"]


def test_a_prepended_hint_is_exported_once_and_reimported_once(tmp_path):
    rows = [{"id": "a", "question": "Is it?", "answer": "yes", "hint": "look left"}]
    result, items = _import(tmp_path, "csv", "t.csv", rows, "--hint", "prepend")
    assert items[0].question == "Hint: look left\nIs it?"
    tsv = tmp_path / "out.tsv"
    exported = CliRunner().invoke(cli, ["export", "vlmevalkit", "--items",
                                        str(tmp_path / "t.csv.items.jsonl"), "--out", str(tsv)])
    assert exported.exit_code == 0, exported.output
    with tsv.open(encoding="utf-8", newline="") as f:
        [row] = list(csv.DictReader(f, delimiter="\t"))
    assert row["question"] == "Hint: look left\nIs it?" and row["hint"] == ""
    again = tmp_path / "again.jsonl"
    back = CliRunner().invoke(cli, ["import", "vlmevalkit", str(tsv), "--out", str(again),
                                    "--hint", "prepend"])
    assert back.exit_code == 0, back.output
    assert read_items(again)[0].question == "Hint: look left\nIs it?"


def test_a_folder_problem_names_its_file_and_line(tmp_path):
    folder = tmp_path / "mme"
    folder.mkdir()
    (folder / "count.txt").write_text("1.jpg\tIs there a cat?\tYes\n", encoding="utf-8")
    (folder / "OCR.txt").write_text("2.jpg\tIs it 'stop'?\tYes\n3.jpg\tIs it 'go'?\tNo\n",
                                    encoding="utf-8")
    from PIL import Image
    Image.new("RGB", (4, 4), (1, 1, 1)).save(folder / "1.jpg")
    Image.new("RGB", (4, 4), (2, 2, 2)).save(folder / "2.jpg")
    result = CliRunner().invoke(cli, ["import", "csv", str(folder), "--out",
                                      str(tmp_path / "i.jsonl"), "--columns",
                                      "image,question,answer", "--capability", "perception.test"])
    assert result.exit_code == 1
    assert f"{folder / 'OCR.txt'}:2: field=image: image file '3.jpg' not found" in result.stderr
