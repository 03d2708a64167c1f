"""Split the reference sources into partitions that the workers read themselves.

The driver never streams source rows. It plans partitions of `rows_per_partition` source
rows over the sources taken in order, from sizes alone:

- parquet (a local path or any fsspec URL): row counts from each file's footer; a worker
  reads only the row groups its rows lie in;
- JSONL (uncompressed, local or fsspec): the file is cut into byte blocks whose line
  starts are counted by tasks on the workers; a worker seeks to the block its first line
  lies in, so line numbers (and the `file:line` ids of rows without an id) stay exact;
- CSV/TSV (quoted newlines forbid byte cuts) and saved HF datasets: a task
  counts each file's rows; a worker reads its file from the start up to its last row
  (convert a large one to parquet or JSONL to avoid that).

Every row is normalised on the worker by the same function as the JSONL build
(`reference.normalised_row`), so a partition holds what the streamed build put there.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Iterator, Sequence

from bench_kit.audit.reference import FieldNames, normalised_row, source_rows
from bench_kit.errors import InputError

BLOCK_BYTES = 64 << 20  # JSONL bytes per counting task


@dataclass(frozen=True)
class Piece:
    """Source rows [start, stop) (0-based; lines for JSONL) of one source file; for JSONL
    the byte offset of the block the rows start in and the index of its first line."""

    source: str
    kind: str  # parquet | jsonl | records
    start: int
    stop: int
    block_offset: int = 0
    block_first: int = 0


def _kind(source: str) -> str:
    lowered = source.lower()
    if lowered.endswith(".parquet"):
        return "parquet"
    if lowered.endswith((".jsonl", ".json")):
        return "jsonl"
    return "records"


def _open(source: str) -> Any:
    from fsspec.core import url_to_fs

    fs, path = url_to_fs(source)
    try:
        return fs.open(path, "rb")
    except FileNotFoundError:
        raise InputError("reference source not found", path=source) from None


def count_line_starts(source: str, start: int, stop: int) -> int:
    """How many lines of `source` start at a byte in [start, stop) (a task on a worker)."""
    with _open(source) as handle:
        handle.seek(max(start - 1, 0))
        data = handle.read(stop - max(start - 1, 0) - 1) if stop > 0 else b""
    return data.count(b"\n") + (1 if start == 0 and stop > 0 else 0)


def count_records(source: str) -> int:
    """Rows of a CSV/TSV file or saved HF dataset (a task on a worker)."""
    return sum(1 for _ in source_rows(source))


def _parquet_rows(source: str) -> int:
    import pyarrow.parquet as pq

    with _open(source) as handle:
        return pq.ParquetFile(handle).metadata.num_rows


def _units(sources: Sequence[str], client: Any) -> list[tuple[str, str, list[tuple[int, int]]]]:
    """Per source: its kind and its blocks as (byte offset, units starting in it)."""
    from fsspec.core import url_to_fs

    tasks: list[tuple[int, Any, tuple[Any, ...]]] = []
    plans: list[tuple[str, str, list[tuple[int, int]]]] = []
    for number, source in enumerate(sources):
        kind = _kind(source)
        plans.append((source, kind, []))
        if kind == "parquet":
            tasks.append((number, _parquet_rows, (source,)))
        elif kind == "jsonl":
            fs, path = url_to_fs(source)
            try:
                size = fs.size(path)
            except FileNotFoundError:
                raise InputError("reference source not found", path=source) from None
            for offset in range(0, size, BLOCK_BYTES):
                tasks.append((number, count_line_starts,
                              (source, offset, min(offset + BLOCK_BYTES, size))))
        else:
            if not Path(source).exists():
                raise InputError("reference source not found", path=source)
            tasks.append((number, count_records, (source,)))
    if client is None:
        counts = [task(*args) for _, task, args in tasks]
    else:
        counts = client.gather([client.submit(task, *args, pure=False)
                                for _, task, args in tasks])
    for (number, _, args), count in zip(tasks, counts):
        offset = args[1] if plans[number][1] == "jsonl" else 0
        plans[number][2].append((offset, count))
    return plans


def plan_partitions(sources: Sequence[str], rows_per_partition: int, client: Any = None
                    ) -> list[list[Piece]]:
    """The pieces of every partition, in order (counting runs on `client`'s workers)."""
    partitions: list[list[Piece]] = [[]]
    room = rows_per_partition
    for source, kind, blocks in _units([str(s) for s in sources], client):
        first = 0
        for offset, count in blocks:
            position = first
            while position < first + count:
                if room == 0:
                    partitions.append([])
                    room = rows_per_partition
                take = min(room, first + count - position)
                partitions[-1].append(Piece(source, kind, position, position + take,
                                            offset, first))
                position += take
                room -= take
            first += count
    return [_merged(p) for p in partitions if p]


def _merged(pieces: list[Piece]) -> list[Piece]:
    """Adjacent pieces of one file as one (a JSONL partition spans blocks)."""
    out: list[Piece] = []
    for piece in pieces:
        last = out[-1] if out else None
        if last is not None and last.source == piece.source and last.stop == piece.start:
            out[-1] = Piece(last.source, last.kind, last.start, piece.stop,
                            last.block_offset, last.block_first)
        else:
            out.append(piece)
    return out


def _jsonl_lines(piece: Piece, read: list[int]) -> Iterator[tuple[int, Any]]:
    from bench_kit.io import parse_jsonl

    with _open(piece.source) as handle:
        if piece.block_offset:
            handle.seek(piece.block_offset - 1)
            handle.readline()  # the end of the line before the block
        for _ in range(piece.start - piece.block_first):
            handle.readline()
        lines = (handle.readline() for _ in range(piece.stop - piece.start))
        yield from parse_jsonl(lines, piece.source, first=piece.start + 1)
        read[0] += handle.tell() - max(piece.block_offset - 1, 0)


def _parquet_rows_of(piece: Piece, read: list[int]) -> Iterator[tuple[int, Any]]:
    import pyarrow.parquet as pq

    with _open(piece.source) as handle:
        parquet = pq.ParquetFile(handle)
        groups: list[int] = []
        first, row = 0, 0
        for group in range(parquet.metadata.num_row_groups):
            meta = parquet.metadata.row_group(group)
            if row < piece.stop and row + meta.num_rows > piece.start:
                first = row if not groups else first
                groups.append(group)
                read[0] += sum(meta.column(c).total_compressed_size
                               for c in range(meta.num_columns))
            row += meta.num_rows
        if not groups:
            return
        table = parquet.read_row_groups(groups).slice(piece.start - first,
                                                      piece.stop - piece.start)
    for offset, row_dict in enumerate(table.to_pylist()):
        yield piece.start + offset + 1, row_dict


def piece_rows(piece: Piece, read: list[int]) -> Iterator[tuple[int, Any]]:
    """(row or line number, source row) of one piece, read where this runs; adds the
    source bytes read to `read[0]` (for CSV/TSV/HF: the file's size)."""
    if piece.kind == "parquet":
        return _parquet_rows_of(piece, read)
    if piece.kind == "jsonl":
        return _jsonl_lines(piece, read)
    read[0] += sum(f.stat().st_size for f in Path(piece.source).rglob("*") if f.is_file()) \
        if Path(piece.source).is_dir() else Path(piece.source).stat().st_size
    return itertools.islice(source_rows(piece.source), piece.start, piece.stop)


def partition_rows(pieces: Sequence[Piece], fields: FieldNames,
                   read: list[int] | None = None) -> list[dict[str, Any]]:
    """The normalised reference rows of one partition (rows without text left out); the
    source bytes read are added to `read[0]`."""
    read = [0] if read is None else read
    out = []
    for piece in pieces:
        for number, row in piece_rows(piece, read):
            if not isinstance(row, dict):
                raise InputError("expected a JSON object", path=piece.source, line=number)
            normalised = normalised_row(piece.source, number, row, fields)
            if normalised is not None:
                out.append(normalised)
    return out
