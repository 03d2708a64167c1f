"""Splits: grouped, stable under additions, variants follow their v0 item."""

from __future__ import annotations

import json
from pathlib import Path

from click.testing import CliRunner
from conftest import make_item

from bench_kit.cli import cli
from bench_kit.io import read_jsonl, write_jsonl
from bench_kit.split.assign import SplitParams, split_items
from bench_kit.types import Item


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


def _strat_items(n_groups: int, start: int = 0) -> list[Item]:
    """Groups of two items; strata cycle over 3 capabilities x 3 difficulties."""
    caps = ["perception.count", "perception.colour", "reasoning.compare"]
    diffs = ["easy", "medium", "hard"]
    rows = []
    for g in range(start, start + n_groups):
        cap, diff = caps[g % 3], diffs[(g // 3) % 3]
        layer = cap.split(".")[0]
        for k in range(2):
            rows.append(Item.model_validate(make_item(
                id=f"g{g}.{k}", group=f"g{g}", capability=cap, layer=layer, difficulty=diff)))
    return rows


def test_threshold_method_is_stable_when_items_are_added_to_new_and_old_groups():
    params = SplitParams(seed=9, dev_share=0.3)
    base = _strat_items(200)
    before = _where(split_items(base, params))
    grown = base + _strat_items(300, start=200) + [
        Item.model_validate(make_item(id=f"g{g}.extra", group=f"g{g}", difficulty="hard"))
        for g in range(0, 200, 7)]
    after = _where(split_items(grown, params))
    assert all(after[i] == s for i, s in before.items())
    assert all(after[f"g{g}.extra"] == after[f"g{g}.0"] for g in range(0, 200, 7))


def test_ranked_method_gives_exact_stratum_shares_and_moves_few_on_additions():
    params = SplitParams(seed=4, dev_share=0.3, method="ranked")
    base = _strat_items(180)  # 9 strata x 20 groups
    splits = split_items(base, params)
    from bench_kit.split.assign import manifest

    for label, counts in manifest(splits)["by_stratum"].items():
        assert counts["dev"] == 2 * 6, label  # round(20 x 0.3) groups of 2 items
    before = _where(splits)
    added = _strat_items(18, start=180)  # two new groups per stratum
    after = _where(split_items(base + added, params))
    moved = [i for i, s in before.items() if after[i] != s]
    assert len(moved) <= 2 * len(added)  # at most one boundary group per added group
    groups = {i.split(".")[0] for i in moved}
    assert all(after[f"{g}.0"] == after[f"{g}.1"] for g in groups)


def test_threshold_dev_share_per_stratum_is_close_on_large_strata():
    from bench_kit.split.assign import manifest

    table = manifest(split_items(_strat_items(2700), SplitParams(seed=1, dev_share=0.3)))
    shares = [c["dev_share"] for c in table["by_stratum"].values()]
    assert len(shares) == 9 and all(0.22 < s < 0.38 for s in shares)


def test_exclusions_drop_listed_ids_and_their_variants_and_create_missing_lists(tmp_path):
    items = tmp_path / "items.jsonl"
    rows = [make_item(id=f"q{i}", group=f"g{i}") for i in range(10)]
    rows += [make_item(id="q1.v1", variant="v1", variant_of="q1", variant_kind="synonym")]
    write_jsonl(items, rows)
    quarantine = tmp_path / "quarantine.txt"
    quarantine.write_text("# audit quarantine\nq1\tambiguity.two_answers\tgold #2 differs\nq2\n"
                          "not_an_item  x\nq2\tlabel.bad_gold\tcheck it\n")
    rejected = tmp_path / "rejected.jsonl"
    rejected.write_text('{"id": "q3", "reason": "review batch b7 failed"}\n')
    (tmp_path / "params.yaml").write_text(
        "split:\n  seed: 1\n  apply_exclusions: true\n  exclude_files:\n"
        f"    - {quarantine}\n    - {rejected}\n    - {tmp_path / 'missing.txt'}\n")
    out = tmp_path / "splits"
    result = CliRunner().invoke(cli, ["split", "--items", str(items), "--out", str(out),
                                      "--params", str(tmp_path / "params.yaml")])
    assert result.exit_code == 0, result.output
    assert "missing.txt: not found, created empty" in result.output
    kept = {r["id"] for name in ("dev", "test") for r in read_jsonl(out / f"{name}.jsonl")}
    assert kept == {f"q{i}" for i in range(10)} - {"q1", "q2", "q3"}
    man = json.loads((out / "manifest.json").read_text())
    reasons = {row["id"]: row["reason"] for row in man["excluded"]["items"]}
    assert reasons == {"q1": "ambiguity.two_answers; gold #2 differs", "q2": "listed | label.bad_gold; check it",
                       "q3": "review batch b7 failed",
                       "q1.v1": "variant of q1: ambiguity.two_answers; gold #2 differs"}
    files = {Path(f["path"]).name: f for f in man["excluded"]["files"]}
    assert files["quarantine.txt"]["unknown_ids"] == 1 and not files["quarantine.txt"]["created"]
    # created empty (version-stamped) so the DVC stage can depend on it
    assert files["missing.txt"] == {"path": str(tmp_path / "missing.txt"), "found": True,
                                    "created": True, "ids": 0, "unknown_ids": 0}
    assert (tmp_path / "missing.txt").read_text() == "# format_version: 1\n"
    assert man["excluded"]["created"] == [str(tmp_path / "missing.txt")]
    again = CliRunner().invoke(cli, ["split", "--items", str(items), "--out", str(out),
                                     "--params", str(tmp_path / "params.yaml")])
    assert again.exit_code == 0 and "created empty" not in again.output


def test_exclusions_are_ignored_when_the_switch_is_off(tmp_path):
    items = tmp_path / "items.jsonl"
    write_jsonl(items, [make_item(id=f"q{i}") for i in range(5)])
    (tmp_path / "q.txt").write_text("q1\n")
    (tmp_path / "params.yaml").write_text(
        f"split:\n  apply_exclusions: false\n  exclude_files: [{tmp_path / 'q.txt'}]\n")
    out = tmp_path / "splits"
    result = CliRunner().invoke(cli, ["split", "--items", str(items), "--out", str(out),
                                      "--params", str(tmp_path / "params.yaml")])
    assert result.exit_code == 0, result.output
    man = json.loads((out / "manifest.json").read_text())
    assert sum(man["counts"].values()) == 5 and man["excluded"]["count"] == 0


def test_a_missing_list_is_created_even_when_exclusions_are_off(tmp_path):
    items = tmp_path / "items.jsonl"
    write_jsonl(items, [make_item(id=f"q{i}") for i in range(3)])
    missing = tmp_path / "audits" / "quarantine.txt"
    (tmp_path / "params.yaml").write_text(
        f"split:\n  apply_exclusions: false\n  exclude_files: [{missing}]\n")
    result = CliRunner().invoke(cli, ["split", "--items", str(items), "--out",
                                      str(tmp_path / "splits"), "--params",
                                      str(tmp_path / "params.yaml")])
    assert result.exit_code == 0, result.output
    assert missing.is_file() and "created empty" in result.output
