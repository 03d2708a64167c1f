"""Splits: grouped, stable under additions, variants follow their v0 item."""

from __future__ import annotations

import json

from click.testing import CliRunner

from bench_kit.authoring.split import SplitParams, split_items
from bench_kit.cli import cli
from bench_kit.io import read_jsonl, write_jsonl
from bench_kit.types import Item
from conftest import make_item


def _items(n: int, per_group: int = 3) -> list[Item]:
    return [Item.model_validate(make_item(id=f"q{i}", group=f"g{i // per_group}"))
            for i in range(n)]


def _where(splits):
    return {item.id: name for name, rows in splits.items() for item in rows}


def test_groups_are_never_cut_and_shares_are_roughly_right():
    splits = split_items(_items(600), SplitParams(seed=1, dev_share=0.3))
    where = _where(splits)
    for g in range(200):
        assert len({where[f"q{i}"] for i in range(g * 3, g * 3 + 3)}) == 1
    assert 0.2 < len(splits["dev"]) / 600 < 0.4


def test_adding_items_never_moves_existing_ones():
    params = SplitParams(seed=5, dev_share=0.3)
    before = _where(split_items(_items(300), params))
    after = _where(split_items(_items(900), params))
    assert all(after[i] == s for i, s in before.items())


def test_variants_follow_their_v0_item():
    items = _items(60)
    variants = [Item.model_validate(make_item(id=f"q{i}.v1", variant="v1", variant_of=f"q{i}",
                                              variant_kind="synonym")) for i in range(60)]
    where = _where(split_items(items + variants, SplitParams(seed=2, dev_share=0.5)))
    assert all(where[f"q{i}.v1"] == where[f"q{i}"] for i in range(60))


def test_split_cli_writes_files_and_manifest(tmp_path):
    items = tmp_path / "items.jsonl"
    write_jsonl(items, [make_item(id=f"q{i}", group=f"g{i}") for i in range(40)])
    (tmp_path / "params.yaml").write_text("split:\n  seed: 1\n  dev_share: 0.25\n")
    out = tmp_path / "splits"
    result = CliRunner().invoke(cli, ["split", "--items", str(items), "--out", str(out),
                                      "--params", str(tmp_path / "params.yaml")])
    assert result.exit_code == 0, result.output
    dev, test = read_jsonl(out / "dev.jsonl"), read_jsonl(out / "test.jsonl")
    assert len(dev) + len(test) == 40 and dev and test
    counts = json.loads((out / "manifest.json").read_text())["counts"]
    assert counts == {"dev": len(dev), "test": len(test)}


def test_split_cli_bad_items_is_one_line_error(tmp_path):
    items = tmp_path / "items.jsonl"
    items.write_text(json.dumps(make_item(id="q1")) + "\n" + '{"id": "q2"\n')
    (tmp_path / "params.yaml").write_text("split:\n  seed: 1\n")
    result = CliRunner().invoke(cli, ["split", "--items", str(items), "--out",
                                      str(tmp_path / "s"), "--params", str(tmp_path / "params.yaml")])
    assert result.exit_code == 1
    assert f"{items}:2: malformed JSON" in result.output
    assert "Traceback" not in result.output
    assert not (tmp_path / "s").exists()
