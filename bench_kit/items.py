"""Loading items files into `Item` objects (fail-fast; `bench-kit validate` lists every problem)."""

from __future__ import annotations

from pathlib import Path

from pydantic import ValidationError

from bench_kit.artifacts.rows import iter_models, iter_objects, pydantic_problem
from bench_kit.errors import InputError
from bench_kit.types import Item

# The typed row reader lives in bench_kit.artifacts.rows; kept importable from here.
__all__ = ["default_root", "iter_models", "pydantic_problem", "read_items"]


def read_items(path: str | Path) -> list[Item]:
    """Read an items JSONL file; the first bad row raises InputError naming line, id and field."""
    items: list[Item] = []
    seen: dict[str, int] = {}
    for line, row in iter_objects(path):
        try:
            item = Item.model_validate(row)
        except ValidationError as exc:
            field, reason = pydantic_problem(exc)
            ident = row.get("id")
            reason = f"(id {ident}) {reason}" if isinstance(ident, str) else reason
            raise InputError(reason, path=str(path), line=line, field=field) from None
        if item.id in seen:
            raise InputError(f"duplicate id '{item.id}' (first on line {seen[item.id]})",
                             path=str(path), line=line, field="id")
        seen[item.id] = line
        items.append(item)
    return items


def default_root(items_path: str | Path) -> Path:
    """The benchmark root that image paths are relative to: the items file's folder, or its
    parent when the file sits in a `splits/` folder (split files keep their source's paths)."""
    folder = Path(items_path).resolve().parent
    return folder.parent if folder.name == "splits" else folder
