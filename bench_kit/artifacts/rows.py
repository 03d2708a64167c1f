"""The one typed reader of JSON Lines rows: every stage reads its inputs through here.

Each row must be a JSON object; with a `kind` its `format_version` is checked (and taken
out of the row) before the row is validated as a pydantic model. Problems raise InputError
naming the file, line and field.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Iterable, Iterator, TypeVar

from pydantic import BaseModel, ValidationError

from bench_kit.artifacts.versions import KEY, check_version
from bench_kit.errors import InputError
from bench_kit.io import iter_jsonl, parse_jsonl

M = TypeVar("M", bound=BaseModel)


def pydantic_problem(exc: ValidationError) -> tuple[str, str]:
    """First problem of a pydantic error as (field, reason)."""
    first = exc.errors()[0]
    field = ".".join(str(p) for p in first["loc"]) or "(row)"
    reason = first["msg"].removeprefix("Value error, ")
    if ": " in reason and field == "(row)":
        field, reason = reason.split(": ", 1)
    return field, reason


def iter_objects(path: str | Path, *, kind: str | None = None,
                 source: Iterable[bytes] | None = None) -> Iterator[tuple[int, dict[str, Any]]]:
    """Yield (line, row) for each JSON object row of a JSONL file.

    Args:
        path: the file (or, with `source`, the name used in errors).
        kind: a versioned kind (`bench_kit.artifacts.versions.CURRENT`): each row's
            `format_version` is checked and removed from the row.
        source: byte lines to read instead of opening `path` (e.g. a file at a git revision).
    """
    numbered = iter_jsonl(path) if source is None else parse_jsonl(source, path)
    for line, row in numbered:
        if not isinstance(row, dict):
            raise InputError(f"expected a JSON object, got {type(row).__name__}",
                             path=str(path), line=line)
        if kind is not None:
            row = dict(row)
            check_version(row.pop(KEY, None), kind, path, line)
        yield line, row


def validate_row(model: type[M], row: dict[str, Any], *, path: str | Path, line: int,
                 known_only: bool = False) -> M:
    """`row` validated as `model`; with `known_only`, undeclared columns are dropped first."""
    if known_only:
        row = {k: v for k, v in row.items() if k in model.model_fields}
    try:
        return model.model_validate(row)
    except ValidationError as exc:
        field, reason = pydantic_problem(exc)
        raise InputError(reason, path=str(path), line=line, field=field) from exc


def iter_models(path: str | Path, model: type[M], *, kind: str | None = None,
                known_only: bool = False,
                source: Iterable[bytes] | None = None) -> Iterator[tuple[int, M]]:
    """Yield (line, row) for each row of a JSONL file validated as `model`.

    A bad row raises InputError naming the file, line and field. With `known_only`, columns
    the model does not declare are dropped before validation (writers may add their own).
    `kind` and `source` are as in `iter_objects`.
    """
    for line, row in iter_objects(path, kind=kind, source=source):
        yield line, validate_row(model, row, path=path, line=line, known_only=known_only)
