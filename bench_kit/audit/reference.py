"""Reference corpora for contamination checks: build a normalised JSONL file, read it back.

`build_reference` reads questions from JSONL, CSV, TSV and parquet files or HF datasets
saved with `save_to_disk` and writes one row per question:

    {"ref_id": ..., "source": ..., "text": normalised question + options,
     "question": normalised question alone, "original": the question as written,
     "options": [option texts] (only when there are some)}

`ReferenceSet` streams those rows (a million-question corpus is never held as Python
objects) and carries a content hash of the files, the key of every on-disk feature cache.
"""

from __future__ import annotations

import csv
import hashlib
import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Iterator, Sequence

from bench_kit.audit.content import split_hint
from bench_kit.errors import InputError, param
from bench_kit.io import file_sha256, iter_jsonl, write_jsonl
from bench_kit.text.normalize import normalize_for_audit

TEXT_SUFFIXES = (".jsonl", ".json", ".csv", ".tsv", ".parquet")
REFERENCE_FIELDS = ("ref_id", "source", "text", "question", "original")


@dataclass(frozen=True)
class FieldNames:
    """Which source columns hold the question, the id and (optionally) the options."""

    text: str = "question"
    id: str | None = "id"
    options: str | None = "choices"
    hint: str | None = "hint"


def options_of(value: Any) -> list[str]:
    """Option texts from a {letter: text} mapping (letter order), a list, or nothing.

    >>> options_of({"B": "blue", "A": "red"}), options_of(["x", "y"]), options_of(None)
    (['red', 'blue'], ['x', 'y'], [])
    """
    if isinstance(value, str):
        try:
            value = json.loads(value)  # CSV/TSV cells hold options as JSON text
        except ValueError:
            return [value] if value.strip() else []
    if isinstance(value, dict):
        return [str(value[key]) for key in sorted(value) if value[key] is not None]
    if isinstance(value, (list, tuple)):
        return [str(v) for v in value if v is not None]
    return []


def reference_text(question: str, options: Sequence[str]) -> str:
    """The normalised text matched against: question followed by its options."""
    return normalize_for_audit(" ".join([question, *options]))


def _rows_jsonl(path: Path) -> Iterator[tuple[int, dict[str, Any]]]:
    for line, row in iter_jsonl(path):
        if not isinstance(row, dict):
            raise InputError("expected a JSON object", path=str(path), line=line)
        yield line, row


def _rows_delimited(path: Path, delimiter: str) -> Iterator[tuple[int, dict[str, Any]]]:
    with path.open(encoding="utf-8", newline="") as handle:
        reader = csv.DictReader(handle, delimiter=delimiter)
        for row in reader:
            yield reader.line_num, row


def _rows_parquet(path: Path) -> Iterator[tuple[int, dict[str, Any]]]:
    import pyarrow.parquet as pq

    number = 0
    for batch in pq.ParquetFile(path).iter_batches(batch_size=10_000):
        for row in batch.to_pylist():
            number += 1
            yield number, row


def _rows_hf(path: Path) -> Iterator[tuple[int, dict[str, Any]]]:
    try:
        import datasets
    except ImportError as exc:
        raise InputError("reading a saved HF dataset needs 'datasets': pip install -e .",
                         path=str(path)) from exc
    try:
        loaded = datasets.load_from_disk(str(path))
    except (FileNotFoundError, ValueError) as exc:
        raise InputError(f"not a dataset saved with save_to_disk ({exc})", path=str(path)) from exc
    parts = [loaded[name] for name in sorted(loaded)] if isinstance(loaded, dict) else [loaded]
    number = 0
    for part in parts:
        for row in part:
            number += 1
            yield number, row


def source_rows(path: str | Path) -> Iterator[tuple[int, dict[str, Any]]]:
    """(line or row number, row) of a JSONL/CSV/TSV/parquet file or a saved HF dataset folder."""
    path = Path(path)
    if path.is_dir():
        return _rows_hf(path)
    if not path.exists():
        raise InputError("reference source not found", path=str(path))
    suffix = path.suffix.lower()
    if suffix in (".jsonl", ".json"):
        return _rows_jsonl(path)
    if suffix in (".csv", ".tsv"):
        return _rows_delimited(path, "\t" if suffix == ".tsv" else ",")
    if suffix == ".parquet":
        return _rows_parquet(path)
    raise InputError(f"unknown reference format '{suffix}' (use one of "
                     f"{', '.join(TEXT_SUFFIXES)} or a folder saved by datasets.save_to_disk)",
                     path=str(path))


def normalised_row(source: str | Path, number: int, row: dict[str, Any],
                   fields: FieldNames = FieldNames()) -> dict[str, Any] | None:
    """The reference row of source row `number` (None when it has no text).

    Raises:
        InputError: the row lacks the text field (naming the file, row and field).
    """
    name = Path(source).name
    if fields.text not in row:
        raise InputError(f"no '{fields.text}' column (choose one with {param('text_field')}; "
                         f"columns: {', '.join(map(str, row))})", path=str(source),
                         line=number, field=fields.text)
    question = row[fields.text]
    if question is None or not str(question).strip():
        return None
    question = str(question)
    raw_id = row.get(fields.id) if fields.id else None
    ref_id = str(raw_id) if raw_id not in (None, "") else f"{name}:{number}"
    options = options_of(row.get(fields.options)) if fields.options else []
    # the hint/passage joined to the question as on the item side (audit/content.py)
    hint, asked = split_hint(question, row.get(fields.hint) if fields.hint else None)
    joined = f"{hint} {asked}" if hint else asked
    out: dict[str, Any] = {"ref_id": ref_id, "source": name,
                           "text": reference_text(joined, options),
                           "question": normalize_for_audit(joined), "original": question}
    if options:
        out["options"] = options
    return out if out["text"] else None


def reference_rows(sources: Sequence[str | Path], fields: FieldNames = FieldNames()
                   ) -> Iterator[dict[str, Any]]:
    """Normalised reference rows from every source, in order; rows with no text are skipped.

    Raises:
        InputError: a source lacks the text field (naming the file, row and field).
    """
    for source in sources:
        for number, row in source_rows(source):
            out = normalised_row(source, number, row, fields)
            if out is not None:
                yield out


def build_reference(sources: Sequence[str | Path], out: str | Path,
                    fields: FieldNames = FieldNames()) -> int:
    """Write the normalised reference JSONL built from `sources`; return the row count."""
    if not sources:
        raise InputError("give at least one reference source")
    return write_jsonl(out, reference_rows(sources, fields))


@dataclass(frozen=True)
class ReferenceSet:
    """One or more built reference files, read as one corpus.

    Attributes:
        paths: the reference files, in the order given.
        content_hash: sha256 over the files' contents (the key of the feature caches).
        size: number of rows.
    """

    paths: tuple[Path, ...]
    content_hash: str
    size: int

    def rows(self) -> Iterator[dict[str, Any]]:
        """Every row, in file order (plain json: the files were written by this module)."""
        for path in self.paths:
            with path.open(encoding="utf-8") as handle:
                for raw in handle:
                    if raw.strip():
                        yield json.loads(raw)


def open_reference(paths: Sequence[str | Path]) -> ReferenceSet:
    """Check the reference files (first row of each) and hash their contents.

    Raises:
        InputError: a missing file, or one that was not built by `bench-kit audit reference
            build` (with that command as the hint).
    """
    digest = hashlib.sha256()
    size = 0
    resolved = []
    for given in paths:
        path = Path(given)
        if path.is_dir() or path.suffix.lower() != ".jsonl":
            raise InputError("a reference must be a JSONL file built by `bench-kit audit "
                             "reference build --out FILE SOURCES...`", path=str(path))
        for line, row in iter_jsonl(path):
            missing = [k for k in REFERENCE_FIELDS if not isinstance(row, dict) or k not in row]
            if missing:
                raise InputError(f"not a built reference file (missing {', '.join(missing)}); "
                                 "build one with `bench-kit audit reference build --out FILE "
                                 "SOURCES...`", path=str(path), line=line)
            break
        with path.open("rb") as handle:
            size += sum(1 for raw in handle if raw.strip())
        digest.update(file_sha256(path).encode())
        resolved.append(path)
    return ReferenceSet(paths=tuple(resolved), content_hash=digest.hexdigest(), size=size)
