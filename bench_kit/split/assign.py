"""Stable, grouped, stratified dev/test splits with optional exclusion lists.

The unit of assignment is a group (an image/scene; an item without a group stands alone;
variants follow their v0 item). Each group gets a uniform number u = hash(seed, group) and
belongs to one stratum (capability x difficulty, the most common among its v0 items).

- `threshold` (default): a group goes to dev when u < dev_share. Adding items never moves
  an existing item; per-stratum shares match dev_share in expectation only.
- `ranked`: within each stratum the groups are ordered by u and the first
  round(n x dev_share) go to dev: exact per-stratum shares, but an added group can push
  the group at its stratum's boundary into the other split.
- `field`: the benchmark's own split, read from an item field (`split.field`, e.g.
  `meta.split` as imports keep it); values map to dev/test by `split.field_map` (default:
  dev, val, valid, validation -> dev; test, testmini -> test). A group whose items name
  different splits goes where most of them say (test on a tie) and is reported.

docs/IMPORT_EXPORT.md (Splits) discusses the trade-off.
"""

from __future__ import annotations

import hashlib
import math
from collections import Counter, defaultdict
from pathlib import Path
from typing import Iterable, Literal

from pydantic import BaseModel, ConfigDict, Field, model_validator

from bench_kit.artifacts.exclusions import ensure_exclusion_list
from bench_kit.artifacts.paths import SPLIT_MANIFEST
from bench_kit.io import write_json, write_jsonl
from bench_kit.items import read_items
from bench_kit.split.exclusions import apply_exclusions, read_exclusions
from bench_kit.types import Item

SPLITS = ("dev", "test")
FIELD_MAP: dict[str, Literal["dev", "test"]] = {"dev": "dev", "val": "dev", "valid": "dev", "validation": "dev", "test": "test",
             "testmini": "test"}


class SplitParams(BaseModel):
    """The `split:` section of params.yaml."""

    model_config = ConfigDict(extra="forbid")
    seed: int = 0
    dev_share: float = Field(default=0.3, ge=0.0, le=1.0)
    method: Literal["threshold", "ranked", "field"] = "threshold"
    field: str | None = None
    field_map: dict[str, Literal["dev", "test"]] = Field(default_factory=lambda: dict(
        FIELD_MAP))
    exclude_files: list[str] = Field(default_factory=list)
    apply_exclusions: bool = False

    @model_validator(mode="after")
    def _field_named(self) -> "SplitParams":
        if self.method == "field" and not self.field:
            raise ValueError("method: field needs split.field (e.g. meta.split)")
        return self


def group_key(item: Item, by_id: dict[str, Item]) -> str:
    """The unit of assignment: the v0 item's group, else the v0 item's id."""
    root = by_id.get(item.variant_of, item) if item.variant_of else item
    return root.group or root.id


def stratum(item: Item) -> str:
    """The stratum label of an item: `capability|difficulty`."""
    return f"{item.capability}|{item.difficulty}"


def unit_hash(key: str, seed: int) -> float:
    """A uniform number in [0, 1) from (seed, key)."""
    digest = hashlib.sha256(f"{seed}:{key}".encode()).digest()
    return int.from_bytes(digest[:8], "big") / 2**64


def assign(key: str, seed: int, dev_share: float) -> str:
    """'dev' or 'test' for a group key under the threshold rule."""
    return "dev" if unit_hash(key, seed) < dev_share else "test"


def group_strata(items: list[Item], by_id: dict[str, Item]) -> dict[str, str]:
    """Each group's stratum: the most common among its v0 items (ties: alphabetical)."""
    counts: dict[str, Counter] = defaultdict(Counter)
    for item in items:
        if not item.variant_of or item.variant_of not in by_id:
            counts[group_key(item, by_id)][stratum(item)] += 1
    for item in items:  # a group made only of orphan variants still needs a stratum
        counts.setdefault(group_key(item, by_id), Counter({stratum(item): 1}))
    return {key: min(c, key=lambda s: (-c[s], s)) for key, c in counts.items()}


def _ranked(strata: dict[str, str], params: SplitParams) -> dict[str, str]:
    members: dict[str, list[str]] = defaultdict(list)
    for key, label in strata.items():
        members[label].append(key)
    where: dict[str, str] = {}
    for keys in members.values():
        keys.sort(key=lambda k: (unit_hash(k, params.seed), k))
        n_dev = math.floor(len(keys) * params.dev_share + 0.5)
        where.update({k: "dev" if rank < n_dev else "test" for rank, k in enumerate(keys)})
    return where


def field_value(item: Item, path: str) -> object:
    """The value at a dotted path of an item (`meta.split`, `meta.source.split`), or None."""
    value: object = item.model_dump(mode="json")
    for part in path.split("."):
        value = value.get(part) if isinstance(value, dict) else None
    return value


def _by_field(items: list[Item], by_id: dict[str, Item], params: SplitParams
              ) -> tuple[dict[str, str], list[dict]]:
    """Each group's split from the items' own split field; conflicts listed.

    Raises InputError listing every value that names no split (and how many items)."""
    from bench_kit.errors import InputError

    votes: dict[str, Counter] = defaultdict(Counter)
    unknown: Counter = Counter()
    for item in items:
        raw = field_value(item, params.field or "")
        name = params.field_map.get(str(raw).strip().lower()) if raw is not None else None
        if name is None:
            unknown[str(raw)] += 1
            continue
        votes[group_key(item, by_id)][name] += 1
    if unknown:
        listed = ", ".join(f"'{v}' ({n} items)" for v, n in unknown.most_common())
        raise InputError(f"split.field {params.field}: values that name no split: {listed}; "
                         f"map them in split.field_map (now {params.field_map})")
    where: dict[str, str] = {}
    conflicts = []
    for key, counts in votes.items():
        where[key] = "dev" if counts["dev"] > counts["test"] else "test"
        if len(counts) > 1:
            conflicts.append({"group": key, "counts": dict(counts), "placed": where[key]})
    return where, conflicts


def split_items(items: Iterable[Item], params: SplitParams,
                conflicts: list[dict] | None = None) -> dict[str, list[Item]]:
    """Assign items to splits, keeping input order within each split (with
    `method: field`, groups whose items disagree are appended to `conflicts`)."""
    items = list(items)
    by_id = {item.id: item for item in items}
    if params.method == "ranked":
        where = _ranked(group_strata(items, by_id), params)
    elif params.method == "field":
        where, found = _by_field(items, by_id, params)
        if conflicts is not None:
            conflicts.extend(found)
    else:
        where = {}
    out: dict[str, list[Item]] = {name: [] for name in SPLITS}
    for item in items:
        key = group_key(item, by_id)
        out[where.get(key) or assign(key, params.seed, params.dev_share)].append(item)
    return out


def manifest(splits: dict[str, list[Item]]) -> dict:
    """Counts per split, per split x stratum, and per stratum with its dev share."""
    result: dict = {"counts": {name: len(rows) for name, rows in splits.items()},
                    "strata": {}, "groups": {}}
    table: dict[str, dict] = defaultdict(lambda: {name: 0 for name in SPLITS})
    for name, rows in splits.items():
        strata = Counter(stratum(i) for i in rows)
        result["strata"][name] = dict(sorted(strata.items()))
        result["groups"][name] = len({i.group or i.id for i in rows})
        for label, n in strata.items():
            table[label][name] = n
    for counts in table.values():
        total = sum(counts.values())
        counts["dev_share"] = round(counts["dev"] / total, 4) if total else 0.0
    result["by_stratum"] = dict(sorted(table.items()))
    return result


def write_splits(items_path: str | Path, out_dir: str | Path, params: SplitParams) -> dict:
    """Read items, apply the exclusion lists (when switched on), split, and write
    `<out>/<split>.jsonl` and `<out>/manifest.json`; return the manifest.

    A missing exclusion list is created empty, so the `split` stage can depend on it in
    dvc.yaml (the manifest says which were `created`)."""
    items = read_items(items_path)
    created = {p for p in params.exclude_files if ensure_exclusion_list(p)}
    lists = [read_exclusions(p) for p in params.exclude_files] if params.apply_exclusions \
        else []
    kept, dropped = apply_exclusions(items, lists)
    conflicts: list[dict] = []
    splits = split_items(kept, params, conflicts)
    out_dir = Path(out_dir)
    for name, rows in splits.items():
        write_jsonl(out_dir / f"{name}.jsonl",
                    (item.model_dump(mode="json") for item in rows))
    summary = manifest(splits)
    summary["params"] = {"method": params.method, "seed": params.seed,
                         "dev_share": params.dev_share}
    if params.method == "field":
        summary["params"]["field"] = params.field
        summary["conflicts"] = conflicts
    ids = {item.id for item in items}
    summary["excluded"] = {
        "applied": params.apply_exclusions,
        "files": [{"path": e.path, "found": e.found, "created": e.path in created,
                   "ids": len(e.reasons), "unknown_ids": len(set(e.reasons) - ids)}
                  for e in lists],
        "created": sorted(created),
        "count": len(dropped),
        "items": dropped,
    }
    write_json(out_dir / SPLIT_MANIFEST, summary)
    return summary
