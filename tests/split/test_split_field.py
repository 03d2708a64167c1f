"""`split.method: field`: a benchmark's own split, groups kept whole, conflicts reported."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml
from click.testing import CliRunner
from conftest import make_item

from bench_kit.cli import cli
from bench_kit.errors import InputError
from bench_kit.io import read_json
from bench_kit.items import read_items
from bench_kit.split.assign import SplitParams, split_items
from bench_kit.types import Item

SQA = Path(__file__).parents[1] / "exchange" / "fixtures" / "real" / "scienceqa_problems"


def _item(item_id: str, group: str, split: str) -> Item:
    return Item.model_validate(make_item(id=item_id, group=group, meta={"split": split}))


def test_groups_follow_their_items_split_and_conflicts_are_listed():
    items = [_item("a", "g1", "val"), _item("b", "g1", "val"), _item("c", "g2", "test"),
             _item("d", "g3", "test"), _item("e", "g3", "validation"),
             _item("f", "g3", "test")]
    conflicts: list[dict] = []
    splits = split_items(items, SplitParams(method="field", field="meta.split"), conflicts)
    assert [i.id for i in splits["dev"]] == ["a", "b"]
    assert [i.id for i in splits["test"]] == ["c", "d", "e", "f"]       # g3 kept whole
    assert conflicts == [{"group": "g3", "counts": {"test": 2, "dev": 1}, "placed": "test"}]


def test_values_naming_no_split_are_one_error():
    items = [_item("a", "g1", "train"), _item("b", "g2", "train"), _item("c", "g3", "test")]
    with pytest.raises(InputError, match=r"'train' \(2 items\); map them in split.field_map"):
        split_items(items, SplitParams(method="field", field="meta.split"))


def test_method_field_needs_a_field():
    with pytest.raises(ValueError, match="split.field"):
        SplitParams(method="field")


def test_scienceqa_own_split_through_the_cli(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    runner = CliRunner()
    imported = runner.invoke(cli, ["import", "json", str(SQA / "problems.json"), "--out",
                                   "items.jsonl", "--capability", "reasoning.science",
                                   "--image-root", str(SQA / "images")])
    assert imported.exit_code == 0, imported.output
    params = {"split": {"method": "field", "field": "meta.split",
                        "field_map": {"train": "dev", "val": "dev", "test": "test"}}}
    (tmp_path / "params.yaml").write_text(yaml.safe_dump(params), encoding="utf-8")
    result = runner.invoke(cli, ["split", "--items", "items.jsonl", "--out", "splits"])
    assert result.exit_code == 0, result.output
    # problems.json: 1-3 train, 4-5 test, 6-8 val (written from the file)
    assert [i.id for i in read_items(tmp_path / "splits" / "dev.jsonl")] == \
        ["1", "2", "3", "6", "7", "8"]
    assert [i.id for i in read_items(tmp_path / "splits" / "test.jsonl")] == ["4", "5"]
    manifest = read_json(tmp_path / "splits" / "manifest.json")
    assert manifest["params"]["field"] == "meta.split" and manifest["conflicts"] == []
