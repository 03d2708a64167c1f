"""The split's documented rules at their edges: the seed matters everywhere, the threshold
is strict, ranked rounding, a group's stratum, exclusions' messages and manifest fields
(each test kills mutants that test_split.py let survive; see docs/TESTING.md)."""

from __future__ import annotations

import json
import math

import pytest
from conftest import make_item

from bench_kit.errors import InputError
from bench_kit.io import read_jsonl, write_jsonl
from bench_kit.split.assign import (
    SplitParams,
    assign,
    group_key,
    group_strata,
    manifest,
    split_items,
    unit_hash,
    write_splits,
)
from bench_kit.split.exclusions import ExclusionList, apply_exclusions, read_exclusions
from bench_kit.types import Item


def _item(**fields) -> Item:
    return Item.model_validate(make_item(**fields))


def _ids(splits) -> dict[str, list[str]]:
    return {name: [i.id for i in rows] for name, rows in splits.items()}


def test_unit_hash_is_big_endian_sha256_of_seed_and_key() -> None:
    import hashlib

    digest = hashlib.sha256(b"3:g1").digest()
    assert unit_hash("g1", 3) == int.from_bytes(digest[:8], "big") / 2**64
    assert unit_hash("g1", 3) != unit_hash("g1", 4)


def test_threshold_is_strict_and_uses_the_seed() -> None:
    u = unit_hash("g", 7)
    assert assign("g", 7, u) == "test"  # u < dev_share, not <=
    assert assign("g", 7, math.nextafter(u, 1)) == "dev"
    other = unit_hash("g", 8)  # the seed is part of the hash
    assert assign("g", 8, other) == "test" and assign("g", 8, math.nextafter(other, 1)) == "dev"


@pytest.mark.parametrize("method", ["threshold", "ranked"])
def test_the_seed_changes_the_split(method) -> None:
    items = [_item(id=f"q{n}", group=f"g{n}") for n in range(40)]
    splits = {seed: _ids(split_items(items, SplitParams(seed=seed, method=method)))
              for seed in (0, 1, 2)}
    assert len({json.dumps(s) for s in splits.values()}) == 3
    assert _ids(split_items(items, SplitParams(seed=1, method=method))) == splits[1]


def test_ranked_rounds_half_up_per_stratum() -> None:
    # 5 groups at dev_share 0.3 -> floor(1.5 + 0.5) = 2 dev groups; 7 x 0.5 = 3.5 -> 4
    five = [_item(id=f"a{n}", group=f"a{n}") for n in range(5)]
    seven = [_item(id=f"b{n}", group=f"b{n}", capability="reading.text") for n in range(7)]
    out = split_items(five, SplitParams(method="ranked", dev_share=0.3))
    assert len(out["dev"]) == 2
    out = split_items(seven, SplitParams(method="ranked", dev_share=0.5))
    assert len(out["dev"]) == 4
    # the dev groups are those with the smallest u
    ranked = sorted(f"b{n}" for n in range(7))
    ranked.sort(key=lambda k: (unit_hash(k, 0), k))
    assert sorted(i.group for i in out["dev"]) == sorted(ranked[:4])


def test_a_group_takes_its_most_common_v0_stratum() -> None:
    items = [_item(id="x1", group="g", capability="reading.text"),
             _item(id="x2", group="g", capability="perception.count"),
             _item(id="x3", group="g", capability="perception.count"),
             # two variants of x1 do not outvote the v0 items
             _item(id="v1", variant_of="x1", capability="reading.text"),
             _item(id="v2", variant_of="x1", capability="reading.text"),
             _item(id="solo", capability="reading.text")]
    by_id = {i.id: i for i in items}
    strata = group_strata(items, by_id)
    assert strata == {"g": "perception.count|easy", "solo": "reading.text|easy"}
    # ties are alphabetical; an orphan variant (its v0 absent) is its own v0
    tie = [_item(id="t1", group="t", capability="b.x"), _item(id="t2", group="t",
                                                               capability="a.x")]
    assert group_strata(tie, {i.id: i for i in tie}) == {"t": "a.x|easy"}
    orphan = [_item(id="o1", variant_of="gone", capability="c.x")]
    assert group_strata(orphan, {"o1": orphan[0]}) == {"o1": "c.x|easy"}


def test_variants_follow_their_v0_group() -> None:
    v0 = _item(id="x1", group="scene-1")
    variant = _item(id="x1-v", variant_of="x1")
    by_id = {"x1": v0, "x1-v": variant}
    assert group_key(variant, by_id) == "scene-1"
    assert group_key(_item(id="alone"), by_id) == "alone"
    # a variant whose v0 is not in the file is its own unit
    assert group_key(_item(id="y-v", variant_of="y"), by_id) == "y-v"


def test_manifest_counts_groups_strata_and_shares() -> None:
    dev = [_item(id="d1", group="g1"), _item(id="d2", group="g1"),
           _item(id="d3", capability="reading.text")]
    test = [_item(id="t1", group="g2")]
    result = manifest({"dev": dev, "test": test})
    assert result["counts"] == {"dev": 3, "test": 1}
    assert result["groups"] == {"dev": 2, "test": 1}
    assert result["strata"]["dev"] == {"perception.count|easy": 2, "reading.text|easy": 1}
    assert result["by_stratum"]["reading.text|easy"] == {"dev": 1, "test": 0,
                                                         "dev_share": 1.0}
    assert result["by_stratum"]["perception.count|easy"]["dev_share"] == 0.6667
    empty = manifest({"dev": [], "test": test})
    assert empty["by_stratum"]["perception.count|easy"] == {"dev": 0, "test": 1,
                                                            "dev_share": 0.0}


def test_write_splits_records_params_and_json_rows(tmp_path) -> None:
    items = tmp_path / "items.jsonl"
    write_jsonl(items, [make_item(id=f"q{n}", group=f"g{n}") for n in range(6)])
    summary = write_splits(items, tmp_path / "out", SplitParams(seed=5, dev_share=0.5))
    assert summary["params"] == {"method": "threshold", "seed": 5, "dev_share": 0.5}
    manifest_file = json.loads((tmp_path / "out" / "manifest.json").read_text())
    assert manifest_file["params"] == summary["params"]
    rows = read_jsonl(tmp_path / "out" / "dev.jsonl") + read_jsonl(tmp_path / "out" /
                                                                   "test.jsonl")
    assert sorted(r["id"] for r in rows) == [f"q{n}" for n in range(6)]
    assert all(r["created_at"] == "2026-11-01T00:00:00Z" for r in rows)  # JSON mode


def test_exclusion_jsonl_rows_and_messages(tmp_path) -> None:
    path = tmp_path / "drop.jsonl"
    write_jsonl(path, [{"id": "a", "reason": "leak"}, {"id": "b"}, {"id": "a",
                                                                   "reason": "again"}])
    listed = read_exclusions(path)
    assert listed == ExclusionList(str(path), True, {"a": "leak", "b": "listed"})
    for bad, field, reason in (({"id": 3}, "id", "expected an object with a string id"),
                               (["a"], None, "expected a JSON object, got list")):
        write_jsonl(path, [{"id": "ok"}, bad])
        with pytest.raises(InputError) as caught:
            read_exclusions(path)
        err = caught.value
        assert (err.path, err.line, err.field, err.reason) == (str(path), 2, field, reason)


def test_exclusion_text_files(tmp_path) -> None:
    path = tmp_path / "drop.txt"
    path.write_text("# comment\nq1\tambiguity.deixis\tvague\nq2 bad gold\nq1 again\n\n")
    listed = read_exclusions(path)
    assert listed.found is True and listed.path == str(path)
    assert listed.reasons == {"q1": "ambiguity.deixis; vague | again", "q2": "bad gold"}
    path.write_bytes(b"\xff\xfe bad")
    with pytest.raises(InputError) as caught:
        read_exclusions(path)
    assert (caught.value.path, caught.value.reason) == (str(path), "not UTF-8 text")
    missing = read_exclusions(tmp_path / "nowhere.txt")
    assert (missing.found, missing.reasons) == (False, {})


def test_apply_exclusions_names_the_file_and_reason() -> None:
    items = [_item(id="a"), _item(id="a-v", variant_of="a"), _item(id="b")]
    lists = [ExclusionList("first.txt", True, {"a": "leak"}),
             ExclusionList("second.txt", True, {"a": "other", "b": "dup"})]
    kept, dropped = apply_exclusions(items, lists)
    assert [i.id for i in kept] == []
    assert dropped == [{"id": "a", "file": "first.txt", "reason": "leak"},
                       {"id": "a-v", "file": "first.txt", "reason": "variant of a: leak"},
                       {"id": "b", "file": "second.txt", "reason": "dup"}]


def test_a_group_stratum_is_a_count_not_a_first_come() -> None:
    # the majority is alphabetically last: neither a tie-break nor min() of names decides
    items = [_item(id="x1", group="g", capability="a.less"),
             _item(id="x2", group="g", capability="z.more"),
             _item(id="x3", group="g", capability="z.more")]
    assert group_strata(items, {i.id: i for i in items}) == {"g": "z.more|easy"}


def test_ranked_split_keeps_variants_with_their_v0() -> None:
    items = [_item(id=f"q{n}", group=f"g{n}") for n in range(6)]
    items += [_item(id=f"q{n}-v", variant_of=f"q{n}") for n in range(6)]
    out = split_items(items, SplitParams(method="ranked", dev_share=0.5))
    for rows in out.values():
        ids = {i.id for i in rows}
        assert all((f"{i}-v" in ids) for i in ids if not i.endswith("-v"))
    assert len(out["dev"]) == 6
