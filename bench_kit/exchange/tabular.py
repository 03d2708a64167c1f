"""Readers for text tables: CSV, JSONL (incl. vlmeter-style checklist rows), VLMEvalKit TSV.

Each reader yields (line, row) with images already added to the `ImageStore`; rows then go
through `bench_kit.exchange.row_item.row_to_item`.
"""

from __future__ import annotations

import contextlib
import csv
import io
import json
from pathlib import Path
from typing import Any, Iterable, Iterator

from bench_kit.errors import InputError, param
from bench_kit.exchange.cells import RowError, without_bytes
from bench_kit.exchange.conversations import chat_rows
from bench_kit.exchange.imagefiles import ImageStore, is_image_value, store_image
from bench_kit.exchange.rows import (
    IMPORTERS,
    BadRow,
    ImportOptions,
    map_columns,
    source_of,
    with_source,
)
from bench_kit.io import iter_jsonl

# VLMEvalKit columns that a bench-kit export derives from other fields: when the row also
# carries the full `meta` column (a bench-kit export), they are not copied into meta again.
DERIVED_TSV_COLUMNS = ("category", "l2-category", "hint", "split")


def read_utf8(path: Path) -> str:
    """The file's text (a UTF-8 BOM is dropped); invalid UTF-8 names its line."""
    try:
        data = path.read_bytes()
    except FileNotFoundError as exc:
        raise InputError("file not found", path=str(path)) from exc
    except OSError as exc:
        raise InputError(f"cannot read: {exc.strerror}", path=str(path)) from exc
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        line = data[:exc.start].count(b"\n") + 1
        raise InputError(f"invalid UTF-8 at byte {exc.start}", path=str(path), line=line) \
            from exc


@contextlib.contextmanager
def _field_limit(limit: int) -> Iterator[None]:
    previous = csv.field_size_limit()
    csv.field_size_limit(limit)
    try:
        yield
    finally:
        csv.field_size_limit(previous)


def sniff_delimiter(path: Path) -> str:
    """Tab when the file's first line has more tabs than commas, else comma."""
    first = read_utf8(path)[:65536].split("\n", 1)[0]
    return "\t" if first.count("\t") > first.count(",") else ","


def iter_table(path: Path, delimiter: str, max_field: int,
               columns: tuple[str, ...] = ()) -> Iterator[tuple[int, dict[str, Any] | BadRow]]:
    """Yield (line, {column: cell}) for each record of a CSV/TSV file with a header row, or
    named by `columns` when it has none (a record with the wrong number of cells comes as
    a `BadRow`)."""
    text = read_utf8(path)
    reader = csv.reader(io.StringIO(text, newline=""), delimiter=delimiter)
    with _field_limit(max_field):
        try:
            header = list(columns) if columns else next(reader, None)
            if not header:
                raise InputError("empty file (a header row is needed)", path=str(path), line=1)
            header = [h.strip() for h in header]
            dupes = sorted({h for h in header if header.count(h) > 1})
            if dupes or "" in header:
                raise InputError(f"header has blank or duplicate columns {dupes}",
                                 path=str(path), line=1)
            start = reader.line_num + 1 if not columns else 1
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
            raise InputError(reason, path=str(path), line=reader.line_num) from exc


def store_local_images(value: Any, folder: Path, store: ImageStore,
                  image_root: Path | None = None) -> str | list[str]:
    """Image(s) as stored in a row (paths relative to the source's folder, or absolute and
    found under `image_root`; `{bytes, path}` structs and data URLs as `store_image` takes
    them) -> stored relative paths."""
    if isinstance(value, str) and value.strip().startswith("["):
        try:
            value = json.loads(value)
        except ValueError as exc:
            raise RowError("image", "looks like a JSON list but does not parse") from exc
    paths = value if isinstance(value, list) else [value]
    stored = []
    for stored_path in paths:
        try:
            stored.append(store_image(stored_path, folder, store, image_root))
        except ValueError as exc:
            raise RowError("image", str(exc)) from exc
    return stored[0] if not isinstance(value, list) else stored


def prepared_rows(rows: Iterable[tuple[int, Any]], path: Path, opts: ImportOptions,
                  store: ImageStore) -> Iterator[tuple[int, Any]]:
    """Map columns (`--map`, known aliases, an image column found by its values) and store
    local images; a row that fails becomes a `BadRow` (reported with its line), never an
    exception. The columns chosen go to `opts.decisions`."""
    from bench_kit.exchange.columns import (
        chosen_columns,
        column_decisions,
        find_image_column,
        source_columns,
    )

    rows = list(rows)
    good = [row for _, row in rows if not isinstance(row, BadRow)]
    columns = source_columns(good)
    column_map = dict(opts.column_map)
    chosen = chosen_columns(columns, column_map)
    if "image" not in chosen:
        found = find_image_column(good, columns, set(chosen.values()), path, opts.image_root)
        if found:
            column_map["image"] = chosen["image"] = found
            opts.decisions.append(f"warning: image column: '{found}' (its values are image "
                                  f"files) — pass {param('column_map', 'image=COLUMN')} if "
                                  "another column is")
    opts.decisions.extend(column_decisions(columns, chosen))
    for line, row in rows:
        if isinstance(row, BadRow):
            yield line, row
            continue
        row = with_source(row)
        try:
            row = map_columns(row, column_map)
            value = row.get("image")
            if value not in (None, "", []) and (not isinstance(value, dict)
                                                or is_image_value(value)):
                row["_image_source"] = without_bytes(value)  # data: URLs named, not copied
                row["image"] = _stored_images(value, row, path.parent, store, opts)
        except RowError as exc:
            yield line, BadRow(exc.field, exc.reason, source_of(row))
            continue
        yield line, row


def _stored_images(value: Any, row: dict[str, Any], folder: Path, store: ImageStore,
                   opts: ImportOptions) -> str | list[str]:
    """Store a row's image(s); a bare file name not found is also looked for in a folder
    named by the row's id (ScienceQA keeps `<id>/image.png`) or category (MME)."""
    try:
        return store_local_images(value, folder, store, opts.image_root)
    except RowError as exc:
        folders = [str(row.get(k, "")).strip() for k in ("id", "category")]
        if not (isinstance(value, str) and "/" not in value and any(folders)):
            raise
        first = exc
    for name in (f"{folder_name}/{value.strip()}" for folder_name in folders if folder_name):
        try:
            return store_local_images(name, folder, store, opts.image_root)
        except RowError:
            continue
    raise first from None


_TABLE_SUFFIXES = (".csv", ".tsv", ".txt")


@IMPORTERS.register("csv")
def read_csv(path: Path, opts: ImportOptions, store: ImageStore):
    """CSV or TSV with a header (or `--columns`); `image` holds a path (or a JSON list of
    paths) next to the file. A folder of such files (MME: `count.txt`, `OCR.txt`, …) is
    read file by file, each row's `category` being its file's name."""
    files = sorted(f for f in path.iterdir() if f.suffix.lower() in _TABLE_SUFFIXES) \
        if path.is_dir() else [path]
    if not files:
        raise InputError("no .csv/.tsv/.txt files in the folder", path=str(path))
    delimiter = opts.delimiter or sniff_delimiter(files[0])
    opts.decisions.append(f"delimiter: {'tab' if delimiter == chr(9) else repr(delimiter)}"
                          + ("" if opts.delimiter
                             else f" (sniffed; {param('delimiter')} overrides)")
                          + (f"; header: {param('columns', ','.join(opts.columns))}"
                             if opts.columns else ""))

    def rows():
        for one in files:
            for line, row in iter_table(one, delimiter, opts.max_image_bytes, opts.columns):
                if path.is_dir():
                    target = row.row if isinstance(row, BadRow) else row
                    target["_file"] = one.name
                    if not isinstance(row, BadRow):
                        row.setdefault("category", one.stem)
                yield line, row
    if path.is_dir():
        opts.decisions.append(f"folder: {len(files)} files, category = file name "
                              f"({', '.join(f.stem for f in files[:6])}"
                              f"{', …' if len(files) > 6 else ''})")
    yield from prepared_rows(rows(), path if path.is_file() else path / "_", opts, store)


@IMPORTERS.register("jsonl")
def read_jsonl_rows(path: Path, opts: ImportOptions, store: ImageStore):
    """JSON Lines objects (chat records too); vlmeter-style rows carry `checks` (or
    `checklist`) with yes/no."""
    def rows():
        for line, row in iter_jsonl(path):
            if not isinstance(row, dict):
                raise InputError("expected a JSON object", path=str(path), line=line)
            yield line, row
    yield from prepared_rows(chat_rows(rows(), opts), path, opts, store)


def _tsv_images(value: str, row: dict[str, str], by_index: dict[str, str],
                store: ImageStore) -> str | list[str]:
    text = value.strip()
    if text.startswith("["):
        try:
            blobs = json.loads(text)
        except ValueError as exc:
            raise RowError("image", "looks like a JSON list but does not parse") from exc
        return [store.add_base64(str(b)) for b in blobs]
    # VLMEvalKit stores a repeated image once; later rows name the index that holds it
    if len(text) <= 64 and text in by_index:
        return by_index[text]
    return store.add_base64(text)


def _tsv_decisions(columns: list[str], column_map: dict[str, str]) -> list[str]:
    """The shape and columns a VLMEvalKit TSV import uses, read from its header."""
    from bench_kit.exchange.columns import chosen_columns, column_decisions

    image = ("image<-image (base64)" if "image" in columns else
             "image<-image_path (files)" if "image_path" in columns else "no image column")
    rest = [c for c in columns if c not in ("index", "image", "image_path")]
    options = [c for c in columns if len(c) == 1 and c.isupper()]
    lines = [f"shape: VLMEvalKit TSV, id<-index, {image}, "
             f"options: {', '.join(options) if options else 'none'}"]
    return lines + column_decisions(rest, chosen_columns(rest, column_map))


@IMPORTERS.register("vlmevalkit")
def read_vlmevalkit(path: Path, opts: ImportOptions, store: ImageStore):
    """VLMEvalKit TSV: `index`, base64 `image`, `question`, `hint`, A-J, `answer`, `category`.

    `image_path` (relative to the TSV, or absolute and found with `--image-root`) is used
    when `image` is absent. Images are decoded to files named by content hash. Extra
    bench-kit columns of an export (id, task, meta …) are read back as item fields.
    """
    by_index: dict[str, Any] = {}
    described = False
    for line, row in iter_table(path, "\t", (opts.max_image_bytes // 3 + 1) * 4 + 16):
        if isinstance(row, BadRow):
            yield line, row
            continue
        if not described:
            described = True
            opts.decisions.extend(_tsv_decisions(list(row), opts.column_map))
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
