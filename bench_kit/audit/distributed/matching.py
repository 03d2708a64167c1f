"""Distributed contamination matching: broadcast the items, filter partitions on workers.

The items are few and the reference is huge, so the items' side (text hashes, n-gram
hashes, LSH band keys and texts) is broadcast once and
every reference partition is filtered where it is read: exact and n-gram candidates by
hash lookup, MinHash candidates by band keys then verified by exact Jaccard on the worker.
Only the candidate rows come back; the reference is never shuffled.

The driver then runs the *unchanged* local checks on the candidate rows, in reference
order. Every row that can change a local check's answer passes the filter (equal text has
an equal hash; a shared n-gram a shared n-gram hash; an LSH candidate a shared band key;
verified pairs are re-verified), and a row that cannot is ignored by the check, so the
findings are byte-identical to the local engine's (tests/audit/test_distributed.py).
"""

from __future__ import annotations

import hashlib
import pickle
import resource
import time
from dataclasses import dataclass, field
from typing import Any, Iterator, Sequence

from bench_kit.audit.contamination import (
    ContaminationSettings,
    item_texts,
    ngram_size,
    shingles,
)
from bench_kit.audit.distributed.partitions import TEXT_COLUMNS, PartitionedReference
from bench_kit.audit.distributed.signatures import (
    FeatureSpec,
    band_keys,
    hash64,
    lsh_shape,
    minhash_block,
    ngram_hashes,
)
from bench_kit.errors import ConfigError

# Without stored embeddings the embedding check is skipped, never answered from a subset.
NO_EMBEDDINGS = {"contamination.embedding": "the partitioned reference holds no embeddings "
                                            "(build it with --embeddings)"}


@dataclass
class ItemSide:
    """What every worker receives once: the items' hashes, band keys and texts."""

    text_hashes: Any
    question_hashes: Any
    ngram: dict[int, Any]
    bands: int
    band_rows: int
    band_index: list[dict[int, list[int]]]  # per band: key -> item positions
    texts: list[str]
    threshold: float
    shingle: int


def item_side(texts: Sequence[str], questions: Sequence[str], settings: ContaminationSettings,
              spec: FeatureSpec) -> ItemSide:
    """The broadcast side of `texts` (normalised question + options) and `questions`."""
    import numpy as np

    from bench_kit.text.tokens import word_tokens

    ngram: dict[int, list[Any]] = {size: [] for size in spec.ngram_sizes}
    for text in texts:
        size = ngram_size(len(word_tokens(text)), settings)
        if size is not None:
            ngram[size].append(ngram_hashes(text, size))
    bands, band_rows = lsh_shape(settings.minhash_threshold, spec.perm)
    keys = band_keys(minhash_block(list(texts), spec), bands, band_rows)
    band_index: list[dict[int, list[int]]] = [{} for _ in range(bands)]
    for position, row in enumerate(keys):
        for band, key in enumerate(row.tolist()):
            band_index[band].setdefault(key, []).append(position)
    empty = np.zeros(0, dtype=np.uint64)
    return ItemSide(
        text_hashes=np.unique(hash64(texts)),
        question_hashes=np.unique(hash64(q for q in questions if q)),
        ngram={size: np.unique(np.concatenate(parts)) if parts else empty
               for size, parts in ngram.items()},
        bands=bands, band_rows=band_rows, band_index=band_index, texts=list(texts),
        threshold=settings.minhash_threshold, shingle=spec.shingle)


def _bytes_read(meta: Any, columns: Sequence[str]) -> int:
    names = [meta.schema.column(i).path.split(".")[0] for i in range(meta.num_columns)]
    total = 0
    for group in range(meta.num_row_groups):
        row_group = meta.row_group(group)
        total += sum(row_group.column(i).total_compressed_size
                     for i, name in enumerate(names) if name in columns)
    return total


def _ngram_hits(table: Any, column: str, wanted: Any) -> Any:
    import numpy as np
    import pyarrow.compute as pc

    lists = table.column(column).combine_chunks()
    flat = np.asarray(pc.list_flatten(lists))
    parents = np.asarray(pc.list_parent_indices(lists))
    return np.unique(parents[np.isin(flat, wanted)])


def _minhash_hits(sigs: Any, texts: Any, side: ItemSide) -> list[int]:
    """Rows sharing a band key with an item and verified by exact Jaccard ≥ threshold."""
    import numpy as np

    keys = band_keys(sigs, side.bands, side.band_rows)
    out = []
    mask = np.zeros(len(sigs), dtype=bool)
    for band in range(side.bands):
        wanted = np.fromiter(side.band_index[band], dtype=np.uint64)
        mask |= np.isin(keys[:, band], wanted)
    for row in np.flatnonzero(mask).tolist():
        candidates = {p for band in range(side.bands)
                      for p in side.band_index[band].get(int(keys[row, band]), ())}
        ref_set = shingles(texts[row], side.shingle)
        for position in candidates:
            mine = shingles(side.texts[position], side.shingle)
            if len(mine & ref_set) / len(mine | ref_set) >= side.threshold:
                out.append(row)
                break
    return out


@dataclass
class PartitionResult:
    """What one partition sends back: its candidate rows and what the filtering cost."""

    number: int
    rows: list[tuple[int, dict[str, Any]]]  # (row index in the partition, row)
    stats: dict[str, Any] = field(default_factory=dict)


def filter_partition(number: int, url: str, side: ItemSide) -> PartitionResult:
    """Filter one partition against the broadcast items (runs on a worker)."""
    import numpy as np
    import pyarrow.parquet as pq
    from fsspec.core import url_to_fs

    started, cpu = time.perf_counter(), time.process_time()
    fs, path = url_to_fs(url)
    with fs.open(path, "rb") as handle:
        parquet = pq.ParquetFile(handle)
        columns = ["text_hash", "question_hash", "text", "minhash",
                   *(f"ngram_{size}" for size in side.ngram if len(side.ngram[size]))]
        table = parquet.read(columns=columns)
        hits = set(np.flatnonzero(np.isin(np.asarray(table.column("text_hash")),
                                          side.text_hashes)).tolist())
        hits.update(np.flatnonzero(np.isin(np.asarray(table.column("question_hash")),
                                           side.question_hashes)).tolist())
        for size, wanted in side.ngram.items():
            if len(wanted):
                hits.update(_ngram_hits(table, f"ngram_{size}", wanted).tolist())
        sigs = np.asarray(table.column("minhash").combine_chunks().flatten()).reshape(
            table.num_rows, -1)
        hits.update(_minhash_hits(sigs, table.column("text").to_pylist(), side))
        read = _bytes_read(parquet.metadata, columns)
        rows: list[tuple[int, dict[str, Any]]] = []
        if hits:
            order = sorted(hits)
            text = parquet.read(columns=list(TEXT_COLUMNS)).take(order)
            read += _bytes_read(parquet.metadata, TEXT_COLUMNS)
            for index, row in zip(order, text.to_pylist()):
                if row["options"] is None:
                    del row["options"]
                rows.append((index, row))
    result = PartitionResult(number, rows)
    result.stats = {"partition": number, "rows": table.num_rows, "candidates": len(rows),
                    "seconds": round(time.perf_counter() - started, 4),
                    "cpu_seconds": round(time.process_time() - cpu, 4), "bytes_read": read,
                    "peak_rss_mb": round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
                                         / 1024, 1)}
    result.stats["bytes_to_driver"] = len(pickle.dumps(result))
    return result


@dataclass(frozen=True)
class CandidateReferences:
    """The candidate rows of a partitioned reference, read like a ReferenceSet by the
    local checks (same `rows()`, `size`, `content_hash`)."""

    candidate_rows: tuple[dict[str, Any], ...]
    content_hash: str
    size: int
    unsupported: dict[str, str]
    stats: tuple[dict[str, Any], ...]
    # contamination.embedding's answer (contamination_embed.Neighbour, indices into the
    # rows), computed on the engine; None when it was not asked for
    neighbours: tuple[Any, ...] | None = None

    def rows(self) -> Iterator[dict[str, Any]]:
        """The candidate rows, in reference order."""
        return iter(self.candidate_rows)


def run_filter(reference: PartitionedReference, side: ItemSide, client: Any = None
               ) -> list[PartitionResult]:
    """Filter every partition (on `client`'s workers, or here when None), in order."""
    urls = reference.partition_urls()
    if client is None:
        return [filter_partition(n, url, side) for n, url in enumerate(urls)]
    [shared] = client.scatter([side], broadcast=True)
    futures = client.map(filter_partition, range(len(urls)), urls, side=shared, pure=False)
    return sorted(client.gather(futures), key=lambda r: r.number)


def check_spec(reference: PartitionedReference, settings: ContaminationSettings,
               source: str) -> FeatureSpec:
    """The reference's spec, when it holds what the settings ask for.

    Raises:
        ConfigError: n-gram sizes, shingle or permutation count differ (rebuild).
    """
    have, want = reference.spec, FeatureSpec.from_settings(settings)
    if (have.shingle, have.perm) != (want.shingle, want.perm) or \
            not set(want.ngram_sizes) <= set(have.ngram_sizes):
        raise ConfigError(f"{source}: audit.contamination: the partitioned reference "
                          f"{reference.url} was built with {have.as_dict()}, the settings ask "
                          f"for {want.as_dict()}; rebuild it with `bench-kit audit reference "
                          "build --partitioned`")
    return have


def candidate_references(ctx: Any, reference: PartitionedReference,
                         settings: ContaminationSettings, client: Any = None,
                         embedding: bool = False) -> CandidateReferences:
    """Filter `reference` against the items of `ctx`; the candidate rows in order, and with
    `embedding` the embedding check's neighbours (bench_kit/audit/distributed/rephrase.py)."""
    spec = check_spec(reference, settings, ctx.params_source)
    texts = item_texts(ctx)
    side = item_side([t for _, t, _ in texts], [q for _, _, q in texts], settings, spec)
    results = run_filter(reference, side, client)
    keyed = {(r.number, index): row for r in results for index, row in r.rows}
    unsupported, neighbours = dict(NO_EMBEDDINGS), None
    if embedding and spec.embedder is not None:
        from bench_kit.audit.contamination_embed import Neighbour
        from bench_kit.audit.distributed.rephrase import embedding_neighbours

        found, rows = embedding_neighbours(ctx, reference.partition_urls(), spec.embedder,
                                           settings, client)
        keyed.update(rows)
        unsupported = {}
    order = sorted(keyed)
    if embedding and spec.embedder is not None:
        at = {key: index for index, key in enumerate(order)}
        neighbours = tuple(Neighbour(n.position, at[n.key], n.pair) for n in found)
    located = "".join(f"{number}:{index}\n" for number, index in order)
    digest = hashlib.sha256(f"{reference.manifest['content_hash']}\n{located}".encode())
    return CandidateReferences(tuple(keyed[key] for key in order),
                               f"candidates-{digest.hexdigest()}", len(order), unsupported,
                               tuple(r.stats for r in results), neighbours)
