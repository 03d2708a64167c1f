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
from bench_kit.exchange.imagefiles import ImageStore
from bench_kit.exchange.rows import IMPORTERS, ImportOptions, RowError
from bench_kit.io import iter_jsonl, resolve_image

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


def iter_table(path: Path, delimiter: str, max_field: int) -> Iterator[tuple[int, dict[str, str]]]:
    """Yield (line, {column: cell}) for each record of a CSV/TSV file with a header row."""
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
                        raise InputError(f"{len(cells)} cells but the header has {len(header)}",
                                         path=str(path), line=start)
                    yield start, dict(zip(header, cells))
                start = reader.line_num + 1
        except csv.Error as exc:
            reason = str(exc)
            if "field larger" in reason:
                reason = f"a field is larger than {max_field} characters"
            raise InputError(reason, path=str(path), line=reader.line_num) from None


def _local_images(value: Any, folder: Path, store: ImageStore) -> str | list[str]:
    """Image path(s) relative to the source file's folder -> stored relative paths."""
    if isinstance(value, str) and value.strip().startswith("["):
        try:
            value = json.loads(value)
        except ValueError:
            raise RowError("image", "looks like a JSON list but does not parse") from None
    paths = value if isinstance(value, list) else [value]
    stored = []
    for rel in paths:
        try:
            stored.append(store.add_file(resolve_image(folder, str(rel).strip())))
        except ValueError as exc:
            raise RowError("image", str(exc)) from None
    return stored[0] if isinstance(value, str) else stored


def _with_images(rows: Iterator[tuple[int, dict[str, Any]]], path: Path,
                 store: ImageStore) -> Iterator[tuple[int, dict[str, Any]]]:
    for line, row in rows:
        if row.get("image") not in (None, "", []):
            try:
                row["image"] = _local_images(row["image"], path.parent, store)
            except RowError as exc:
                raise InputError(exc.reason, path=str(path), line=line, field=exc.field) \
                    from None
        yield line, row


@IMPORTERS.register("csv")
def read_csv(path: Path, opts: ImportOptions, store: ImageStore):
    """CSV with a header; `image` holds a path (or a JSON list of paths) next to the file."""
    yield from _with_images(iter_table(path, ",", opts.max_image_bytes), path, store)


@IMPORTERS.register("jsonl")
def read_jsonl_rows(path: Path, opts: ImportOptions, store: ImageStore):
    """JSON Lines objects; vlmeter-style rows carry `checks` (or `checklist`) with yes/no."""
    def rows():
        for line, row in iter_jsonl(path):
            if not isinstance(row, dict):
                raise InputError("expected a JSON object", path=str(path), line=line)
            yield line, row
    yield from _with_images(rows(), path, store)


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

    `image_path` (relative to the TSV) is used when `image` is absent. Images are decoded
    to files named by content hash. Extra bench-kit columns of an export (id, task, meta …)
    are read back as item fields.
    """
    by_index: dict[str, Any] = {}
    for line, row in iter_table(path, "\t", (opts.max_image_bytes // 3 + 1) * 4 + 16):
        try:
            if row.get("image", "").strip():
                row["image"] = _tsv_images(row["image"], row, by_index, store)
            elif row.get("image_path", "").strip():
                row["image"] = _local_images(row.pop("image_path"), path.parent, store)
        except (RowError, ValueError) as exc:
            reason = exc.reason if isinstance(exc, RowError) else str(exc)
            raise InputError(reason, path=str(path), line=line, field="image") from None
        index = row.pop("index", "").strip()
        if index and row.get("image"):
            by_index[index] = row["image"]
        if not row.get("id", "").strip():
            row["id"] = index or str(line)
        if row.get("meta", "").strip():
            for name in DERIVED_TSV_COLUMNS:
                row.pop(name, None)
        yield line, row
