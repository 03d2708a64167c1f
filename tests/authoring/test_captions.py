"""Caption rewriting: statement -> question rules (English, Chinese) and `author from-captions`."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import yaml
from click.testing import CliRunner

from bench_kit.authoring.captions import caption_questions
from bench_kit.cli import cli
from bench_kit.items import read_items
from tests.conftest import write_png

ROOT = Path(__file__).resolve().parents[2]

# caption -> [(rule, question, answers)]
CASES = [
    ("There are three red apples on the table.",
     [("count", "How many red apples are there on the table?", ["3"])]),
    ("Two dogs are sitting on a bench.",
     [("count", "How many dogs are sitting on a bench?", ["2"])]),
    ("4 birds sit on the wire.", [("count", "How many birds sit on the wire?", ["4"])]),
    ("One cat sleeps.", []),  # a count of one is not asked
    ("The car is red.", [("attribute", "What colour is the car?", ["red"])]),
    ("A gray cat is sleeping on the sofa.",
     [("attribute", "What colour is the cat?", ["grey", "gray"]),
      ("relation", "What is sleeping on the sofa?", ["gray cat", "cat"])]),
    ("A lamp stands next to a chair.", [("relation", "What stands next to the chair?", ["lamp"])]),
    ("A photo of a dog.", [("object", "What is shown in the image?", ["dog"])]),
    ("A bus. It is late!", []),
    ("桌子上有三个苹果。", [("count", "桌子上有几个苹果？", ["3"])]),
    ("草地上有两只狗", [("count", "草地上有几只狗？", ["2"])]),
    ("一辆红色的汽车停在路边。", [("attribute", "汽车是什么颜色的？", ["红色"])]),
    ("汽车是蓝色的", [("attribute", "汽车是什么颜色的？", ["蓝色"])]),
    ("猫在沙发上睡觉。", [("relation", "什么在沙发上睡觉？", ["猫"])]),
    ("这是一张狗的照片", [("object", "图中是什么？", ["狗"])]),
]


@pytest.mark.parametrize("caption, expected", CASES, ids=[c for c, _ in CASES])
def test_caption_rules(caption, expected):
    got = [(q.rule, q.question, q.answers) for q in caption_questions(caption)]
    assert got == expected


def test_rules_can_be_switched_off():
    assert caption_questions("A gray cat is sleeping on the sofa.", ["relation"])[0].rule == "relation"


def _project(tmp_path: Path, **captions) -> Path:
    params = yaml.safe_load((ROOT / "params.yaml").read_text(encoding="utf-8"))
    params["captions"].update(created_at="2026-11-05T00:00:00Z", **captions)
    (tmp_path / "params.yaml").write_text(yaml.safe_dump(params, allow_unicode=True),
                                          encoding="utf-8")
    for name in ("a", "b", "c"):
        write_png(tmp_path / "bench/images" / f"{name}.png")
    return tmp_path


def _run(project: Path, captions: Path, out: Path | None = None):
    return CliRunner().invoke(cli, ["author", "from-captions", "--params",
                                    str(project / "params.yaml"), "--captions", str(captions),
                                    "--out", str(out or project / "bench/items.captions.jsonl")])


def test_from_jsonl_captions(tmp_path):
    project = _project(tmp_path)
    rows = [{"id": "a", "image": "images/a.png", "caption": "Two dogs sit on a bench. The bench is brown."},
            {"image": "images/b.png", "caption": "桌子上有三个苹果。"},
            {"image": "images/c.png", "text": "Nothing to see."}]
    path = project / "bench/captions.jsonl"
    path.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows), encoding="utf-8")
    result = _run(project, path)
    assert result.exit_code == 0, result.stderr
    assert "wrote 3 items (count 2, attribute 1, relation 0, object 0) from 3 captions" in result.stderr
    assert "1 captions gave no well-formed question" in result.stderr
    items = {i.id: i for i in read_items(project / "bench/items.captions.jsonl")}
    dogs = items["cap.a.count1"]
    assert dogs.question == "How many dogs sit on a bench?" and dogs.answers == ["2"]
    assert dogs.source == "rewrite:count" and dogs.image == "images/a.png"
    assert dogs.capability == "perception.count" and dogs.layer == "perception"
    assert dogs.created_at.isoformat().startswith("2026-11-05")
    assert items["cap.a.attribute2"].answers == ["brown"]
    assert items["cap.b.count1"].meta["lang"] == "zh"
    validate = CliRunner().invoke(cli, ["validate", str(project / "bench/items.captions.jsonl"),
                                        "--params", str(project / "params.yaml")])
    assert validate.exit_code == 0, validate.output


def test_from_csv_captions(tmp_path):
    project = _project(tmp_path)
    path = project / "bench/captions.csv"
    path.write_text("image,caption\nimages/a.png,A photo of a cat.\nimages/b.png,猫在沙发上睡觉。\n",
                    encoding="utf-8")
    result = _run(project, path)
    assert result.exit_code == 0, result.stderr
    items = read_items(project / "bench/items.captions.jsonl")
    assert [(i.source, i.answers) for i in items] == [("rewrite:object", ["cat"]),
                                                      ("rewrite:relation", ["猫"])]


def test_from_hf_dataset_on_disk(tmp_path):
    datasets = pytest.importorskip("datasets")
    from PIL import Image

    project = _project(tmp_path)
    data = datasets.Dataset.from_dict(
        {"image": [Image.new("RGB", (8, 6), (255, 0, 0))], "caption": ["Three cups are on a tray."]},
        features=datasets.Features({"image": datasets.Image(), "caption": datasets.Value("string")}))
    data.save_to_disk(str(project / "hf"))
    result = _run(project, project / "hf")
    assert result.exit_code == 0, result.stderr
    (item,) = read_items(project / "bench/items.captions.jsonl")
    assert item.answers == ["3"] and item.image == "images/r00000.png"
    with Image.open(project / "bench/images/r00000.png") as img:
        assert img.size == (8, 6) and img.getpixel((0, 0)) == (255, 0, 0)


@pytest.mark.parametrize("rows, params, message", [
    ('{"image": "images/a.png"}\n', {}, "captions.jsonl:1: field=caption: no caption"),
    ('{"image": "../outside.png", "caption": "The car is red."}\n', {},
     "captions.jsonl:1: field=image: image path '../outside.png' escapes the source folder"),
    ('{"image": "images/a.png", "caption": "The car is red."}\n',
     {"capabilities": {"count": "perception.smell"}},
     "captions.capabilities.count: 'perception.smell' is not in the params taxonomy"),
])
def test_bad_input_is_one_line_per_problem(tmp_path, rows, params, message):
    project = _project(tmp_path, **params)
    path = project / "bench/captions.jsonl"
    path.write_text(rows, encoding="utf-8")
    result = _run(project, path)
    assert result.exit_code == 1 and message in result.stderr.splitlines()[0]
    # a row problem is listed, then counted; a config problem is one line
    assert result.stderr.count("\n") == (2 if "field=" in message else 1)
    assert not (project / "bench/items.captions.jsonl").exists()


def test_help_has_an_example():
    result = CliRunner().invoke(cli, ["author", "from-captions", "--help"])
    assert result.exit_code == 0 and "bench-kit author from-captions" in result.output
