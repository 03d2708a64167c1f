"""Loading items files into `Item` objects (fail-fast; `bench-kit validate` lists every problem)."""

from __future__ import annotations

from pathlib import Path
from typing import Iterator, TypeVar

from pydantic import BaseModel, ValidationError

from bench_kit.errors import InputError
from bench_kit.io import iter_jsonl
from bench_kit.types import Item


def pydantic_problem(exc: ValidationError) -> tuple[str, str]:
    """First problem of a pydantic error as (field, reason)."""
    first = exc.errors()[0]
    field = ".".join(str(p) for p in first["loc"]) or "(row)"
    reason = first["msg"].removeprefix("Value error, ")
    if ": " in reason and field == "(row)":
        field, reason = reason.split(": ", 1)
    return field, reason


M = TypeVar("M", bound=BaseModel)


def iter_models(path: str | Path, model: type[M], *,
                known_only: bool = False) -> Iterator[tuple[int, M]]:
    """Yield (line, row) for each row of a JSONL file validated as `model`.

    A bad row raises InputError naming the file, line and field. With `known_only`, columns
    the model does not declare are dropped before validation (writers may add their own).
    """
    for line, row in iter_jsonl(path):
        if not isinstance(row, dict):
            raise InputError("expected a JSON object", path=str(path), line=line)
        if known_only:
            row = {k: v for k, v in row.items() if k in model.model_fields}
        try:
            yield line, model.model_validate(row)
        except ValidationError as exc:
            field, reason = pydantic_problem(exc)
            raise InputError(reason, path=str(path), line=line, field=field) from None


def read_items(path: str | Path) -> list[Item]:
    """Read an items JSONL file; the first bad row raises InputError naming line, id and field."""
    items: list[Item] = []
    seen: dict[str, int] = {}
    for line, row in iter_jsonl(path):
        if not isinstance(row, dict):
            raise InputError("expected a JSON object", path=str(path), line=line)
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
