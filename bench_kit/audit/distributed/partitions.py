"""The partitioned reference: parquet partitions with their features, and a hashed manifest.

Layout of a partitioned reference (a local folder or an fsspec URL of its own):

    OUT/part-00000.parquet   ref_id, source, text, question, original, options,
                             text_hash, question_hash, ngram_<n>..., minhash,
                             tokens, entities (rare_tokens.py)[, embedding]
    OUT/part-00000.json      rows, sha256 of the parquet, sha256 of the input rows, spec
    OUT/manifest.json        format, spec, rows, [{file, rows, sha256, bytes}], content_hash

Each partition is read from the sources, computed and written by one task on the engine
(a Dask worker, or this process for `audit.engine: local`), atomically with its sidecar;
a build that stops is run again and skips every partition whose sidecar names the same
input rows, format, spec and file hash.
`manifest.json` is written last: it is what a DVC stage lists as its dependency.
"""

from __future__ import annotations

import hashlib
import json
import pickle
import resource
import time
import uuid
from dataclasses import dataclass, field
from typing import Any, Callable, Sequence

from bench_kit.audit.distributed.dvc_store import refuse_dvc_store
from bench_kit.audit.distributed.rare_tokens import token_columns
from bench_kit.audit.distributed.signatures import (
    FeatureSpec,
    hash64,
    minhash_block,
    ngram_hashes,
)
from bench_kit.audit.distributed.source_split import (
    Piece,
    partition_rows,
    plan_partitions,
)
from bench_kit.audit.reference import FieldNames
from bench_kit.errors import InputError

FORMAT = "bench_kit.reference.partitioned/2"  # /2: tokens, entities
MANIFEST = "manifest.json"
PARTITION_ROWS = 100_000
TEXT_COLUMNS = ("ref_id", "source", "text", "question", "original", "options")


def _fs(url: str) -> tuple[Any, str]:
    from fsspec.core import url_to_fs

    fs, root = url_to_fs(url)
    return fs, root.rstrip("/")


def _put_atomic(fs: Any, path: str, data: bytes) -> None:
    fs.makedirs(path.rsplit("/", 1)[0], exist_ok=True)
    tmp = f"{path}.{uuid.uuid4().hex}.tmp"
    with fs.open(tmp, "wb") as handle:
        handle.write(data)
    fs.mv(tmp, path)


def rows_digest(rows: Sequence[dict[str, Any]]) -> str:
    """sha256 of a partition's input rows (canonical JSON): the resume key."""
    digest = hashlib.sha256()
    for row in rows:
        digest.update(json.dumps(row, sort_keys=True, ensure_ascii=False).encode())
        digest.update(b"\n")
    return digest.hexdigest()


def partition_table(rows: Sequence[dict[str, Any]], spec: FeatureSpec,
                    embedder: Any = None) -> Any:
    """The arrow table of one partition: the rows plus every feature `spec` names."""
    import numpy as np
    import pyarrow as pa

    texts = [row["text"] for row in rows]
    columns: dict[str, Any] = {name: [row.get(name) for row in rows] for name in TEXT_COLUMNS}
    columns["text_hash"] = pa.array(hash64(texts), pa.uint64())
    columns["question_hash"] = pa.array(hash64(row["question"] for row in rows), pa.uint64())
    for size in spec.ngram_sizes:
        columns[f"ngram_{size}"] = pa.array([ngram_hashes(t, size) for t in texts],
                                            pa.list_(pa.uint64()))
    sigs = minhash_block(texts, spec)
    columns["minhash"] = pa.FixedSizeListArray.from_arrays(pa.array(sigs.ravel()), spec.perm)
    for name, values in token_columns(rows).items():
        columns[name] = pa.array(values, pa.list_(pa.string()))
    if embedder is not None:
        from bench_kit.audit.contamination_embed import encode_all

        vectors = np.ascontiguousarray(encode_all(texts, embedder=embedder), dtype=np.float32)
        columns["embedding"] = pa.FixedSizeListArray.from_arrays(
            pa.array(vectors.ravel()), vectors.shape[1])
    columns["options"] = pa.array(columns["options"], pa.list_(pa.string()))
    return pa.table(columns)


def write_partition(url: str, number: int, rows: list[dict[str, Any]], spec: FeatureSpec,
                    input_sha: str, embed_params: dict[str, Any] | None = None) -> dict[str, Any]:
    """Compute and write partition `number` (a task on a worker); return its manifest entry."""
    import io

    import pyarrow.parquet as pq

    embedder = None
    if embed_params is not None:
        from bench_kit import embed

        embedder = embed.embedder_from_params(embed_params)
    buffer = io.BytesIO()
    pq.write_table(partition_table(rows, spec, embedder), buffer, compression="zstd")
    data = buffer.getvalue()
    fs, root = _fs(url)
    name = f"part-{number:05d}.parquet"
    entry = {"file": name, "rows": len(rows), "sha256": hashlib.sha256(data).hexdigest(),
             "bytes": len(data)}
    _put_atomic(fs, f"{root}/{name}", data)
    sidecar = {**entry, "format": FORMAT, "input_sha256": input_sha, "spec": spec.as_dict()}
    _put_atomic(fs, f"{root}/part-{number:05d}.json", json.dumps(sidecar).encode())
    return entry


def finished_entry(url: str, number: int, spec: FeatureSpec, input_sha: str
                   ) -> dict[str, Any] | None:
    """The manifest entry of a partition already written from the same input and spec (its
    file hash checked), else None."""
    fs, root = _fs(url)
    try:
        with fs.open(f"{root}/part-{number:05d}.json", "rb") as handle:
            sidecar = json.loads(handle.read())
        if (sidecar.get("format"), sidecar.get("input_sha256"), sidecar.get("spec")) != \
                (FORMAT, input_sha, spec.as_dict()):
            return None
        digest = hashlib.sha256()
        with fs.open(f"{root}/{sidecar['file']}", "rb") as handle:
            for block in iter(lambda: handle.read(1 << 20), b""):
                digest.update(block)
    except (OSError, ValueError, KeyError):
        return None
    if digest.hexdigest() != sidecar["sha256"]:
        return None
    return {key: sidecar[key] for key in ("file", "rows", "sha256", "bytes")}


@dataclass
class BuildReport:
    """What a partitioned build did."""

    manifest: dict[str, Any]
    written: int
    skipped: int
    stats: list[dict[str, Any]] = field(default_factory=list)  # per partition: seconds, ...


def build_partition(url: str, number: int, pieces: Sequence[Piece], spec: FeatureSpec,
                    fields: FieldNames, embed_params: dict[str, Any] | None = None
                    ) -> tuple[dict[str, Any], dict[str, Any]]:
    """Read, normalise and write partition `number` unless it is already built from the same
    rows (a task on a worker): its manifest entry, and what the task did and cost."""
    started, cpu = time.perf_counter(), time.process_time()
    read = [0]
    rows = partition_rows(pieces, fields, read)
    input_sha = rows_digest(rows)
    entry = finished_entry(url, number, spec, input_sha)
    written = entry is None
    if entry is None:
        entry = write_partition(url, number, rows, spec, input_sha, embed_params)
    stats = {"partition": number, "written": written,
             "seconds": round(time.perf_counter() - started, 3),
             "cpu_seconds": round(time.process_time() - cpu, 3), "source_bytes": read[0],
             "peak_rss_mb": round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 1)}
    stats["bytes_to_driver"] = len(pickle.dumps((entry, stats)))
    return entry, stats


def build_partitioned(sources: Sequence[str], url: str, spec: FeatureSpec, *,
                      fields: FieldNames = FieldNames(), client: Any = None,
                      rows_per_partition: int = PARTITION_ROWS,
                      embed_params: dict[str, Any] | None = None,
                      progress: Callable[[int, int], None] | None = None) -> BuildReport:
    """Write the partitioned reference of `sources` under `url`; resume a stopped build.

    The driver plans partitions from the sources' sizes (source_split.py); each partition's
    rows are read, normalised, hashed and written by one task (`client` = a Dask client;
    None = run here), which skips a partition already built from the same rows.
    """
    if not sources:
        raise InputError("give at least one reference source")
    refuse_dvc_store(url)
    plan = plan_partitions([str(s) for s in sources], rows_per_partition, client)
    entries: dict[int, dict[str, Any]] = {}
    stats: list[dict[str, Any]] = []

    def done(number: int, result: tuple[dict[str, Any], dict[str, Any]]) -> None:
        entries[number] = result[0]
        stats.append(result[1])
        if progress:
            progress(len(entries), sum(e["rows"] for e in entries.values()))

    if client is None:
        for number, pieces in enumerate(plan):
            done(number, build_partition(url, number, pieces, spec, fields, embed_params))
    else:
        from distributed import as_completed

        futures = {client.submit(build_partition, url, number, pieces, spec, fields,
                                 embed_params, pure=False): number
                   for number, pieces in enumerate(plan)}
        for future in as_completed(futures):
            done(futures[future], future.result())
    parts = [entries[n] for n in sorted(entries)]
    content = hashlib.sha256("".join(f"{p['file']}:{p['sha256']}\n" for p in parts).encode())
    manifest = {"format": FORMAT, "spec": spec.as_dict(), "rows": sum(p["rows"] for p in parts),
                "partitions": parts, "content_hash": content.hexdigest()}
    fs, root = _fs(url)
    _put_atomic(fs, f"{root}/{MANIFEST}", json.dumps(manifest, indent=1).encode() + b"\n")
    written = sum(s["written"] for s in stats)
    return BuildReport(manifest, written, len(parts) - written,
                       sorted(stats, key=lambda s: s["partition"]))


def is_partitioned(path: str) -> bool:
    """True for a partitioned reference: its folder/URL or its manifest.json."""
    if path.endswith(MANIFEST):
        return True
    fs, root = _fs(path)
    return fs.exists(f"{root}/{MANIFEST}")


@dataclass(frozen=True)
class PartitionedReference:
    """An opened partitioned reference: its location and manifest."""

    url: str
    manifest: dict[str, Any]

    @property
    def spec(self) -> FeatureSpec:
        """The features its partitions hold."""
        raw = self.manifest["spec"]
        return FeatureSpec(tuple(raw["ngram_sizes"]), raw["shingle"], raw["perm"],
                           raw.get("embedder"))

    def partition_urls(self) -> list[str]:
        """Each partition's path, in manifest order."""
        return [f"{self.url}/{p['file']}" for p in self.manifest["partitions"]]


def open_partitioned(path: str) -> PartitionedReference:
    """Read a partitioned reference's manifest.

    Raises:
        InputError: no manifest, or one this version cannot read.
    """
    url = path[: -len(MANIFEST)].rstrip("/") if path.endswith(MANIFEST) else path.rstrip("/")
    fs, root = _fs(url)
    try:
        with fs.open(f"{root}/{MANIFEST}", "rb") as handle:
            manifest = json.loads(handle.read())
    except (OSError, ValueError) as exc:
        raise InputError(f"not a partitioned reference ({exc}); build one with `bench-kit "
                         "audit reference build --partitioned OUT SOURCES...`",
                         path=path) from exc
    found = manifest.get("format") if isinstance(manifest, dict) else None
    if found != FORMAT:
        raise InputError(f"{MANIFEST}: format is {found!r}, not {FORMAT}; "
                         "rebuild it with `bench-kit audit reference build --partitioned`",
                         path=path)
    return PartitionedReference(url, manifest)
