"""Hugging Face datasets on local disk: import (save_to_disk, parquet, imagefolder) and export.

The export writes `<out>/data/<split>-00000-of-00001.parquet` with the image bytes embedded
(an `Image` feature holding {bytes, path}), so the folder can be loaded or pushed as is:
`datasets.load_dataset("parquet", data_files="<out>/data/*.parquet")`.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Iterable, Iterator

from bench_kit.errors import InputError
from bench_kit.exchange.cells import RowError, blank
from bench_kit.exchange.chatimages import described
from bench_kit.exchange.conversations import chat_rows
from bench_kit.exchange.imagefiles import ImageStore, is_image_value, store_image
from bench_kit.exchange.rows import (
    IMPORTERS,
    BadRow,
    ImportOptions,
    map_columns,
    source_of,
)
from bench_kit.exchange.tabular import store_local_images
from bench_kit.io import atomic_path, resolve_image
from bench_kit.types import Item

_DISK_MARKERS = ("dataset_info.json", "state.json", "dataset_dict.json")
_METADATA = ("metadata.jsonl", "metadata.csv")
STRING_COLUMNS = ("id", "question", "task", "metric", "capability", "layer", "difficulty",
                  "variant", "variant_of", "variant_kind", "source", "group", "rubric", "note")


def _rows_with_images(rows: Iterable[dict[str, Any]], folder: Path, opts: ImportOptions,
                      store: ImageStore) -> Iterator[tuple[int, dict[str, Any] | BadRow]]:
    """Replace every image-valued column ({bytes, path} structs, lists of them, or path
    strings in the image column) by stored paths; several images -> a list, in order. Chat
    records (`messages`, `conversations`) become question/answer rows.

    A row whose image cannot be found or decoded, or whose chat record is malformed, comes
    as a `BadRow`. The columns used go to `opts.decisions`.
    """
    from bench_kit.exchange.columns import chosen_columns, column_decisions, source_columns

    read = list(chat_rows(enumerate(rows, start=1), opts))
    good = [r for _, r in read if not isinstance(r, BadRow)]
    image_columns = source_columns([{k: v for k, v in r.items() if is_image_value(v)}
                                    for r in good])
    mapped = opts.column_map.get("image")
    column_map = dict(opts.column_map)
    if mapped in image_columns:  # --map image=COLUMN names one column of image structs
        image_columns = [mapped]
        column_map.pop("image")
    plain = source_columns([{k: v for k, v in r.items() if not is_image_value(v)}
                            for r in good])
    if image_columns:
        opts.decisions.append(f"image columns: {', '.join(image_columns)} (image structs; "
                              "several per row kept in order)")
    opts.decisions.extend(column_decisions(plain, chosen_columns(plain, opts.column_map)))
    for number, row in read:
        if isinstance(row, BadRow):  # a malformed chat: the whole source row is kept
            yield number, row
            continue
        original = source_of(row)
        columns = [k for k, v in row.items() if k in image_columns and is_image_value(v)]
        for key in (k for k, v in row.items() if k not in image_columns and is_image_value(v)):
            row[key] = described(row[key])  # not the image: kept, its bytes named
        stored: list[str] = []
        as_list = len(columns) > 1
        try:
            for key in columns:
                value = row.pop(key)
                as_list = as_list or isinstance(value, list)
                for one in value if isinstance(value, list) else [value]:
                    if one is not None:
                        stored.append(store_image(one, folder, store, opts.image_root))
            if row.get("images") == []:
                del row["images"]
            row = map_columns(row, column_map)
            paths = row.get("image")
            if stored:
                row["image"] = stored if as_list else stored[0]
            elif not blank(paths):  # paths, or a chat's images (paths, structs, data URLs)
                row["image"] = store_local_images(paths, folder, store, opts.image_root)
        except (ValueError, RowError) as exc:
            reason = exc.reason if isinstance(exc, RowError) else str(exc)
            field = exc.field if isinstance(exc, RowError) else (columns[0] if columns
                                                                  else "image")
            yield number, BadRow(field, reason, original)
            continue
        yield number, row


def _parquet_files(src: Path, split: str | None) -> list[Path]:
    files = [src] if src.is_file() else sorted(src.rglob("*.parquet"))
    if split:
        files = [f for f in files if f.name.startswith(f"{split}-") or f.parent.name == split
                 or f.stem == split]
    return files


def _parquet_rows(files: list[Path]) -> Iterator[dict[str, Any]]:
    import pyarrow.parquet as pq

    for path in files:
        try:
            table = pq.read_table(path)
        except Exception as exc:  # pyarrow raises several types for corrupt files
            raise InputError(f"cannot read parquet ({type(exc).__name__})", path=str(path)) \
                from exc
        yield from table.to_pylist()


def _disk_rows(src: Path, split: str | None) -> Iterator[dict[str, Any]]:
    from datasets import DatasetDict, load_from_disk

    try:
        ds = load_from_disk(str(src))
    except Exception as exc:  # datasets raises FileNotFoundError, ValueError, ...
        raise InputError(f"cannot load with datasets.load_from_disk ({exc})", path=str(src)) \
            from exc
    if isinstance(ds, DatasetDict):
        name = split or ("test" if "test" in ds else min(ds))
        if name not in ds:
            raise InputError(f"no split '{name}' (has {sorted(ds)})", path=str(src))
        ds = ds[name]
    # arrow format returns image columns undecoded ({bytes, path}), honouring any indices
    yield from ds.with_format("arrow")[:].to_pylist()


def _imagefolder_rows(folder: Path) -> Iterator[dict[str, Any]]:
    from bench_kit.exchange.tabular import iter_table
    from bench_kit.io import iter_jsonl

    meta = next(folder / m for m in _METADATA if (folder / m).is_file())
    rows = (row for _, row in (iter_jsonl(meta) if meta.suffix == ".jsonl"
                               else iter_table(meta, ",", 1 << 20)))
    for row in rows:
        if not isinstance(row, dict) or not row.get("file_name"):
            raise InputError("every metadata row needs a file_name", path=str(meta))
        yield row


@IMPORTERS.register("hf")
def read_hf(src: Path, opts: ImportOptions, store: ImageStore):
    """A `datasets` folder (save_to_disk), parquet file(s), or an imagefolder with metadata."""
    if not src.exists():
        raise InputError("not found", path=str(src))
    if src.is_dir() and any((src / m).is_file() for m in _DISK_MARKERS):
        yield from _rows_with_images(_disk_rows(src, opts.split), src, opts, store)
        return
    folder = src / opts.split if src.is_dir() and opts.split else src
    if folder.is_dir() and any((folder / m).is_file() for m in _METADATA):
        yield from _rows_with_images(_imagefolder_rows(folder), folder, opts, store)
        return
    files = _parquet_files(src, opts.split)
    if not files:
        raise InputError("no dataset found: expected a save_to_disk folder, parquet files, or "
                         "an imagefolder with metadata.jsonl/metadata.csv", path=str(src))
    yield from _rows_with_images(_parquet_rows(files), src if src.is_dir() else src.parent,
                                 opts, store)


def _json_or_none(value: Any) -> str | None:
    return None if value is None else json.dumps(value, ensure_ascii=False, sort_keys=True)


def export_hf(items: list[Item], root: Path, out_dir: str | Path, split: str = "test") -> Path:
    """Write items as a parquet dataset with embedded image bytes; return the parquet path."""
    from datasets.utils import logging as hf_logging

    from datasets import Dataset, Features, Image, Value

    try:
        from datasets import List as ListFeature
    except ImportError:  # datasets < 4
        from datasets import Sequence as ListFeature

    def image_value(rel: str) -> dict[str, Any]:
        try:
            full = resolve_image(root, rel)
        except ValueError as exc:
            raise InputError(str(exc), field="image") from exc
        if not full.is_file():
            raise InputError(f"image file '{rel}' not found under {root}", field="image")
        return {"bytes": full.read_bytes(), "path": Path(rel).name}

    # single-image items fill `image`; items with a list of images fill `images`
    columns: dict[str, list] = {name: [] for name in (*STRING_COLUMNS, "image", "images",
                                                      "choices", "answers", "checks",
                                                      "tolerance", "created_at", "meta")}
    for item in items:
        data = item.model_dump(mode="json")
        for name in STRING_COLUMNS:
            columns[name].append(data[name])
        images = [image_value(rel) for rel in item.images]
        as_list = isinstance(item.image, list)
        columns["image"].append(None if as_list or not images else images[0])
        columns["images"].append(images if as_list else [])
        columns["choices"].append(_json_or_none(data["choices"]))
        columns["answers"].append(data["answers"])
        columns["checks"].append(_json_or_none(data["checks"]))
        columns["tolerance"].append(data["tolerance"])
        columns["created_at"].append(data["created_at"])
        columns["meta"].append(_json_or_none({**data["meta"], **(item.model_extra or {})}))
    features = Features({
        **{name: Value("string") for name in columns},
        "image": Image(), "images": ListFeature(Image()),
        "answers": ListFeature(Value("string")),
        "tolerance": Value("float64"),
    })
    ds = Dataset.from_dict(columns, features=features)
    target = Path(out_dir) / "data" / f"{split}-00000-of-00001.parquet"
    bars = hf_logging.is_progress_bar_enabled()
    hf_logging.disable_progress_bar()
    try:
        with atomic_path(target) as tmp:
            ds.to_parquet(str(tmp))
    finally:
        if bars:
            hf_logging.enable_progress_bar()
    return target


def parquet_has_embedded_images(path: str | Path) -> bool:
    """True when every non-null image in the parquet file carries its bytes."""
    import pyarrow.parquet as pq

    table = pq.read_table(path)
    for row in table.select([c for c in ("image", "images") if c in table.column_names]) \
            .to_pylist():
        values = [row.get("image"), *(row.get("images") or [])]
        if any(v is not None and not v.get("bytes") for v in values):
            return False
    return True

