"""Stable, grouped dev/test splits.

Each group (an image/scene; items without a group stand alone; variants follow their v0
item) is assigned by a hash of (seed, group), so adding items never moves an existing item
to another split, and a group is never cut.
"""

from __future__ import annotations

import hashlib
from collections import Counter
from pathlib import Path
from typing import Iterable

from pydantic import BaseModel, ConfigDict, Field

from bench_kit.io import write_json, write_jsonl
from bench_kit.items import read_items
from bench_kit.types import Item


class SplitParams(BaseModel):
    """The `split:` section of params.yaml."""

    model_config = ConfigDict(extra="forbid")
    seed: int = 0
    dev_share: float = Field(default=0.3, ge=0.0, le=1.0)


def group_key(item: Item, by_id: dict[str, Item]) -> str:
    """The unit of assignment: the v0 item's group, else the v0 item's id."""
    root = by_id.get(item.variant_of, item) if item.variant_of else item
    return root.group or root.id


def assign(key: str, seed: int, dev_share: float) -> str:
    """'dev' or 'test' for a group key, from a uniform hash in [0, 1)."""
    digest = hashlib.sha256(f"{seed}:{key}".encode()).digest()
    u = int.from_bytes(digest[:8], "big") / 2**64
    return "dev" if u < dev_share else "test"


def split_items(items: Iterable[Item], params: SplitParams) -> dict[str, list[Item]]:
    """Assign items to splits, keeping input order within each split."""
    items = list(items)
    by_id = {item.id: item for item in items}
    out: dict[str, list[Item]] = {"dev": [], "test": []}
    for item in items:
        out[assign(group_key(item, by_id), params.seed, params.dev_share)].append(item)
    return out


def manifest(splits: dict[str, list[Item]]) -> dict:
    """Counts per split, and per capability x difficulty stratum."""
    result: dict = {"counts": {name: len(rows) for name, rows in splits.items()}, "strata": {}}
    for name, rows in splits.items():
        strata = Counter(f"{i.capability}|{i.difficulty}" for i in rows)
        result["strata"][name] = dict(sorted(strata.items()))
        result.setdefault("groups", {})[name] = len({i.group or i.id for i in rows})
    return result


def write_splits(items_path: str | Path, out_dir: str | Path, params: SplitParams) -> dict:
    """Read items, split them, write `<out>/<split>.jsonl` and `<out>/manifest.json`."""
    splits = split_items(read_items(items_path), params)
    out_dir = Path(out_dir)
    for name, rows in splits.items():
        write_jsonl(out_dir / f"{name}.jsonl",
                    (item.model_dump(mode="json") for item in rows))
    summary = manifest(splits)
    write_json(out_dir / "manifest.json", summary)
    return summary
