"""Inputs that used to end in a Python traceback: each is now an import or a one-line
problem naming file, line and field."""

from __future__ import annotations

import io
import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from bench_kit.cli import cli
from bench_kit.items import read_items

REAL = Path(__file__).parent / "fixtures" / "real"


@pytest.fixture(autouse=True)
def _outside_a_project(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)   # no params.yaml: capabilities are not checked


def _png(colour: tuple[int, int, int]) -> bytes:
    from PIL import Image

    buf = io.BytesIO()
    Image.new("RGB", (4, 4), colour).save(buf, format="PNG")
    return buf.getvalue()


def _invoke(*args: str):
    result = CliRunner().invoke(cli, list(args))
    assert result.exception is None or isinstance(result.exception, SystemExit), \
        repr(result.exception)
    assert "Traceback" not in result.output
    return result


@pytest.mark.parametrize("name, struct, value", [
    # HF `Sequence(Image())` columns as parquet stores them: a list that may hold nulls
    ("nulls_in_list", True, lambda: [{"bytes": _png((1, 2, 3)), "path": "a.png"}, None]),
    ("bytes_only", False, lambda: [{"bytes": _png((4, 5, 6))}]),
    ("two_images", True, lambda: [{"bytes": _png((7, 8, 9)), "path": "b.png"},
                                  {"bytes": _png((9, 8, 7)), "path": "c.png"}]),
])
def test_parquet_images_list_of_structs(tmp_path, name, struct, value):
    pa = pytest.importorskip("pyarrow")
    import pyarrow.parquet as pq

    fields = [("bytes", pa.binary()), ("path", pa.string())] if struct else \
        [("bytes", pa.binary())]
    images = pa.array([value()], type=pa.list_(pa.struct(fields)))
    pq.write_table(pa.table({"question": ["What is shown in <image 1>?"], "answer": ["a dot"],
                             "images": images}), tmp_path / "t.parquet")
    out = tmp_path / "items.jsonl"
    result = _invoke("import", "hf", str(tmp_path / "t.parquet"), "--out", str(out),
                     "--capability", "perception.test")
    assert result.exit_code == 0, result.output
    [item] = read_items(out)
    stored = [v for v in value() if v is not None]
    paths = item.image if isinstance(item.image, list) else [item.image]
    assert [(tmp_path / p).read_bytes() for p in paths] == [v["bytes"] for v in stored]
    assert item.question == "What is shown in <image 1>?"      # placeholder kept


def test_an_image_cell_holding_an_object_is_a_row_problem(tmp_path):
    src = tmp_path / "odd.jsonl"
    src.write_text(json.dumps({"question": "q?", "answer": "a", "image": {"x": 1}}) + "\n",
                   encoding="utf-8")
    result = _invoke("import", "jsonl", str(src), "--out", str(tmp_path / "i.jsonl"),
                     "--capability", "perception.test")
    assert result.exit_code == 1
    assert f"{src}:1: field=image: expected an image path or a list of paths" in result.stderr


def test_token_file_shape_decided_on_many_lines(tmp_path):
    folder = REAL / "flickr8k_tokens"
    lines = (folder / "Flickr8k.token.txt").read_text(encoding="utf-8").splitlines()
    lines[0] = lines[0].replace("\t", " ", 1)          # as some real token files have it
    src = tmp_path / "Flickr8k.token.txt"
    src.write_text("\n".join(lines) + "\n", encoding="utf-8")
    result = _invoke("author", "from-captions", "--captions", str(src), "--image-root",
                     str(folder / "Flicker8k_Dataset"), "--out", str(tmp_path / "o" / "i.jsonl"))
    assert result.exit_code == 0, result.output
    assert "malformed JSON" not in result.output
    assert "kept 9 of 10 generated questions" in result.stderr


@pytest.mark.parametrize("text, says", [
    ("", "expected a JSON array, an object keyed by id, or JSON Lines"),
    ("[1, 2]", "expected a JSON object, got int"),
    ('[{"question": "q"', "malformed JSON record"),
    ("[" * 5000 + "]" * 5000, "malformed JSON record"),
    ('[{"conversations": [{"from": "human", "value": "q"}]}]', "conversations"),
    ('[{"question": "q", "choices": ["a", "b"], "answer": 7}]', "--gold-index 0 or"),
    ('[{"question": "q", "answer": {"x": 1}}]', "got a nested object"),
    ('[{"question": ["a"], "answer": "x"}]', "field=question: expected text, got list"),
    ('[{"question": "q", "answer": "x", "image": 5}]', "field=image"),
])
def test_malformed_json_sources_are_one_line_problems(tmp_path, text, says):
    src = tmp_path / "in.json"
    src.write_text(text, encoding="utf-8")
    result = _invoke("import", "json", str(src), "--out", str(tmp_path / "o" / "i.jsonl"),
                     "--capability", "perception.test")
    assert result.exit_code == 1 and says in result.stderr, result.stderr
    assert str(src) in result.stderr and not (tmp_path / "o").exists()
