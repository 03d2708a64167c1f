"""Importing existing items (CSV, JSONL, VLMEvalKit TSV, Hugging Face datasets) as `Item`s.

A format reader yields (line, row) pairs of plain values with images already stored in an
`ImageStore`; `row_to_item` turns one row into a validated Item. `import_items` reads every
row first and writes the images and the items file only when all rows passed, so a bad row
leaves no partial output.
"""

from __future__ import annotations

from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from bench_kit.errors import InputError
from bench_kit.exchange.imagefiles import ImageStore
from bench_kit.exchange.rows import (
    IMPORTERS,
    ImportOptions,
    ImportSummary,
    Reader,
    RowError,
    row_to_item,
)
from bench_kit.io import write_jsonl
from bench_kit.types import Item


def _reader(fmt: str) -> Reader:
    # the format modules register their readers when imported
    from bench_kit.exchange import hfdata, tabular  # noqa: F401

    return IMPORTERS.get(fmt)


def read_import(fmt: str, src: str | Path, opts: ImportOptions,
                now: datetime | None = None) -> tuple[list[Item], ImageStore]:
    """Read and validate every row of `src`; nothing is written.

    Raises:
        InputError: the first bad row, naming the file, line and field.
        UnknownNameError: an unknown format.
    """
    reader = _reader(fmt)
    src = Path(src)
    now = now or datetime.now(timezone.utc).replace(microsecond=0)
    store = ImageStore(opts.max_image_bytes)
    items: list[Item] = []
    seen: dict[str, int] = {}
    for number, row in reader(src, opts, store):
        try:
            item = row_to_item(row, fmt, opts, now, number)
        except RowError as exc:
            raise InputError(exc.reason, path=str(src), line=number, field=exc.field) from None
        if item.id in seen:
            raise InputError(f"duplicate id '{item.id}' (first at {seen[item.id]})",
                             path=str(src), line=number, field="id")
        seen[item.id] = number
        items.append(item)
    if not items:
        raise InputError("no rows to import", path=str(src))
    return items, store


def import_items(fmt: str, src: str | Path, out_path: str | Path,
                 opts: ImportOptions | None = None) -> ImportSummary:
    """Import `src` in format `fmt` into an items JSONL file; images go to `<out dir>/images/`.

    All rows are read and validated first; the files are written only when every row passed.
    """
    opts = opts or ImportOptions()
    items, store = read_import(fmt, src, opts)
    out_path = Path(out_path)
    n_images = store.write(out_path.parent)
    write_jsonl(out_path, items)
    by_task: dict[str, int] = {}
    for item in items:
        by_task[item.task] = by_task.get(item.task, 0) + 1
    unknown = sorted({i.capability for i in items} - set(opts.taxonomy)) if opts.taxonomy else []
    return ImportSummary(out_path, len(items), n_images, dict(sorted(by_task.items())), unknown)


def load_category_map(path: str | Path) -> dict[str, str]:
    """A YAML/JSON mapping {source category: capability} (e.g. MMBench `l2-category`)."""
    from bench_kit.errors import ConfigError
    from bench_kit.params import load_yaml

    data = load_yaml(path) or {}
    if not isinstance(data, dict) or not all(isinstance(v, str) for v in data.values()):
        raise ConfigError(f"{path}: expected a mapping of category -> capability name")
    return {str(k): v for k, v in data.items()}


def parse_created_at(text: str) -> datetime:
    """An ISO-8601 timestamp with a timezone (`2026-01-31T00:00:00Z`)."""
    from bench_kit.errors import UsageError

    try:
        value = datetime.fromisoformat(text.strip())
    except ValueError:
        raise UsageError(f"--created-at '{text}' is not an ISO-8601 timestamp") from None
    if value.tzinfo is None:
        raise UsageError(f"--created-at '{text}' needs a timezone, e.g. 2026-01-31T00:00:00Z")
    return value


def run_import(fmt: str, src: str | Path, out_path: str | Path, *,
               params_path: str | Path | None = None, category_map: str | Path | None = None,
               created_at: str | None = None, **options: Any) -> ImportSummary:
    """`bench-kit import`: build the options (taxonomy from params, category map) and import."""
    from bench_kit.validate import load_taxonomy

    taxonomy, _ = load_taxonomy(params_path)
    opts = ImportOptions(
        taxonomy=taxonomy or {},
        category_map=load_category_map(category_map) if category_map else {},
        created_at=parse_created_at(created_at) if created_at else None,
        **{k: v for k, v in options.items() if v is not None})
    return import_items(fmt, src, out_path, opts)
