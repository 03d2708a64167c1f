"""Readers for text tables: CSV, JSONL (incl. vlmeter-style checklist rows), VLMEvalKit TSV.

Each reader yields (line, row) with images already added to the `ImageStore`; rows then go
through `bench_kit.exchange.importers.row_to_item`.
"""

from __future__ import annotations

import contextlib
import csv
import io
import json
from pathlib import Path
from typing import Any, Iterator

from bench_kit.errors import InputError
from bench_kit.exchange.imagefiles import ImageStore, locate_image
from bench_kit.exchange.rows import (
    IMPORTERS,
    BadRow,
    ImportOptions,
    RowError,
    map_columns,
)
from bench_kit.io import iter_jsonl

# VLMEvalKit columns that a bench-kit export derives from other fields: when the row also
# carries the full `meta` column (a bench-kit export), they are not copied into meta again.
DERIVED_TSV_COLUMNS = ("category", "l2-category", "hint", "split")


def read_utf8(path: Path) -> str:
    """The file's text (a UTF-8 BOM is dropped); invalid UTF-8 names its line."""
    try:
        data = path.read_bytes()
    except FileNotFoundError:
        raise InputError("file not found", path=str(path)) from None
    except OSError as exc:
        raise InputError(f"cannot read: {exc.strerror}", path=str(path)) from None
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        line = data[:exc.start].count(b"\n") + 1
        raise InputError(f"invalid UTF-8 at byte {exc.start}", path=str(path), line=line) \
            from None


@contextlib.contextmanager
def _field_limit(limit: int) -> Iterator[None]:
    previous = csv.field_size_limit()
    csv.field_size_limit(limit)
    try:
        yield
    finally:
        csv.field_size_limit(previous)


def iter_table(path: Path, delimiter: str,
               max_field: int) -> Iterator[tuple[int, dict[str, str] | BadRow]]:
    """Yield (line, {column: cell}) for each record of a CSV/TSV file with a header row
    (a record with the wrong number of cells comes as a `BadRow`)."""
    text = read_utf8(path)
    reader = csv.reader(io.StringIO(text, newline=""), delimiter=delimiter)
    with _field_limit(max_field):
        try:
            header = next(reader, None)
            if not header:
                raise InputError("empty file (a header row is needed)", path=str(path), line=1)
            header = [h.strip() for h in header]
            dupes = sorted({h for h in header if header.count(h) > 1})
            if dupes or "" in header:
                raise InputError(f"header has blank or duplicate columns {dupes}",
                                 path=str(path), line=1)
            start = reader.line_num + 1
            for cells in reader:
                if any(c.strip() for c in cells):
                    if len(cells) != len(header):
                        yield start, BadRow("row", f"{len(cells)} cells but the header has "
                                                   f"{len(header)}", {"cells": cells})
                    else:
                        yield start, dict(zip(header, cells))
                start = reader.line_num + 1
        except csv.Error as exc:
            reason = str(exc)
            if "field larger" in reason:
                reason = f"a field is larger than {max_field} characters"
            raise InputError(reason, path=str(path), line=reader.line_num) from None


def store_local_images(value: Any, folder: Path, store: ImageStore,
                  image_root: Path | None = None) -> str | list[str]:
    """Image path(s) as stored in a row (relative to the source's folder, or absolute and
    found under `image_root`) -> stored relative paths."""
    if isinstance(value, str) and value.strip().startswith("["):
        try:
            value = json.loads(value)
        except ValueError:
            raise RowError("image", "looks like a JSON list but does not parse") from None
    paths = value if isinstance(value, list) else [value]
    stored = []
    for stored_path in paths:
        try:
            stored.append(store.add_file(locate_image(folder, str(stored_path), image_root)))
        except ValueError as exc:
            raise RowError("image", str(exc)) from None
    return stored[0] if isinstance(value, str) else stored


def prepared_rows(rows: Iterator[tuple[int, Any]], path: Path, opts: ImportOptions,
                  store: ImageStore) -> Iterator[tuple[int, Any]]:
    """Map columns (`--map`, known aliases) and store local images; a row that fails
    becomes a `BadRow` (reported with its line), never an exception."""
    for line, row in rows:
        if isinstance(row, BadRow):
            yield line, row
            continue
        try:
            row = map_columns(row, opts.column_map)
            if row.get("image") not in (None, "", []) and not isinstance(row["image"], dict):
                row["image"] = store_local_images(row["image"], path.parent, store, opts.image_root)
        except RowError as exc:
            yield line, BadRow(exc.field, exc.reason, row)
            continue
        yield line, row


@IMPORTERS.register("csv")
def read_csv(path: Path, opts: ImportOptions, store: ImageStore):
    """CSV with a header; `image` holds a path (or a JSON list of paths) next to the file."""
    yield from prepared_rows(iter_table(path, ",", opts.max_image_bytes), path, opts, store)


@IMPORTERS.register("jsonl")
def read_jsonl_rows(path: Path, opts: ImportOptions, store: ImageStore):
    """JSON Lines objects; vlmeter-style rows carry `checks` (or `checklist`) with yes/no."""
    def rows():
        for line, row in iter_jsonl(path):
            if not isinstance(row, dict):
                raise InputError("expected a JSON object", path=str(path), line=line)
            yield line, row
    yield from prepared_rows(rows(), path, opts, store)


def _tsv_images(value: str, row: dict[str, str], by_index: dict[str, str],
                store: ImageStore) -> str | list[str]:
    text = value.strip()
    if text.startswith("["):
        try:
            blobs = json.loads(text)
        except ValueError:
            raise RowError("image", "looks like a JSON list but does not parse") from None
        return [store.add_base64(str(b)) for b in blobs]
    # VLMEvalKit stores a repeated image once; later rows name the index that holds it
    if len(text) <= 64 and text in by_index:
        return by_index[text]
    return store.add_base64(text)


@IMPORTERS.register("vlmevalkit")
def read_vlmevalkit(path: Path, opts: ImportOptions, store: ImageStore):
    """VLMEvalKit TSV: `index`, base64 `image`, `question`, `hint`, A-J, `answer`, `category`.

    `image_path` (relative to the TSV, or absolute and found with `--image-root`) is used
    when `image` is absent. Images are decoded to files named by content hash. Extra
    bench-kit columns of an export (id, task, meta …) are read back as item fields.
    """
    by_index: dict[str, Any] = {}
    for line, row in iter_table(path, "\t", (opts.max_image_bytes // 3 + 1) * 4 + 16):
        if isinstance(row, BadRow):
            yield line, row
            continue
        index = row.pop("index", "").strip()
        try:
            if row.get("image", "").strip():
                row["image"] = _tsv_images(row["image"], row, by_index, store)
            elif row.get("image_path", "").strip():
                row["image"] = store_local_images(row.pop("image_path"), path.parent, store,
                                             opts.image_root)
            row = map_columns(row, opts.column_map)
        except (RowError, ValueError) as exc:
            reason = exc.reason if isinstance(exc, RowError) else str(exc)
            field = exc.field if isinstance(exc, RowError) else "image"
            yield line, BadRow(field, reason, {"index": index, **row, "image": None})
            continue
        if index and row.get("image"):
            by_index[index] = row["image"]
        if not str(row.get("id", "")).strip():
            row["id"] = index or str(line)
        if row.get("meta", "").strip():
            for name in DERIVED_TSV_COLUMNS:
                row.pop(name, None)
        yield line, row
