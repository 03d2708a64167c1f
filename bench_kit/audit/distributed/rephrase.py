"""`contamination.embedding` on a partitioned reference: the same neighbours as the local
engine's exact search, computed partition by partition.

The local check needs two corpus-wide things: the IDF of every token (from
`text_features` of each reference question) and, per item, the best reference by
embedding cosine and by rare-token overlap. Pass 1 counts document frequencies per
partition from its stored `tokens` column (summed on the driver); pass 2 broadcasts the
items' vectors, features and the IDF, and each worker returns, per item, its partition's
top-1 by an exact matrix product and its best rare-token match (first row of highest
overlap, as locally), found through the partition's token index (rare_tokens.py), with
those rows. The driver merges them in partition order and scores the pairs with the local
check's own `score_pair`, so only 2 rows per item per partition ever leave a worker.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from typing import Any, Sequence

from bench_kit.audit.contamination_rephrase import Idf, TextFeatures, text_features
from bench_kit.audit.distributed.partitions import TEXT_COLUMNS
from bench_kit.audit.distributed.rare_tokens import (
    document_counts,
    indexed_lexical_candidates,
    row_features,
)


def _read(url: str, columns: Sequence[str]) -> Any:
    import pyarrow.parquet as pq
    from fsspec.core import url_to_fs

    fs, path = url_to_fs(url)
    with fs.open(path, "rb") as handle:
        return pq.ParquetFile(handle).read(columns=list(columns))


def document_frequencies(url: str) -> tuple[int, Counter]:
    """(documents, token -> documents holding it) of one partition (pass 1, on a worker)."""
    documents, counts = document_counts(_read(url, ("tokens",)))
    return documents, Counter(counts)


@dataclass
class EmbedSide:
    """Broadcast to every worker for pass 2."""

    vectors: Any  # (items, dim) float32 unit vectors
    features: list[TextFeatures]
    idf: Idf
    boost: float


@dataclass
class PartitionNeighbours:
    """Per item: top-1 (score, row) by cosine and best (row, overlap, cosine) by tokens."""

    number: int
    top_score: Any
    top_row: Any
    lexical: list[tuple[int, float]]
    lexical_cosine: list[float]
    rows: dict[int, dict[str, Any]]


def partition_neighbours(number: int, url: str, side: EmbedSide) -> PartitionNeighbours:
    """Pass 2 on one partition (on a worker)."""
    import numpy as np

    from bench_kit.audit.vector_index import top1_exact

    table = _read(url, (*TEXT_COLUMNS, "tokens", "entities", "embedding"))
    vectors = np.asarray(table.column("embedding").combine_chunks().flatten(),
                         dtype=np.float32).reshape(table.num_rows, -1)
    top_score, top_row = top1_exact(side.vectors, vectors)
    lexical = indexed_lexical_candidates(side.features, table, side.idf, side.boost)
    cosine = [float(side.vectors[p] @ vectors[i]) if i >= 0 else 0.0
              for p, (i, _) in enumerate(lexical)]
    wanted = sorted(set(top_row.tolist()) | {i for i, _ in lexical if i >= 0})
    rows = {}
    for index, row in zip(wanted, table.select(list(TEXT_COLUMNS)).take(wanted).to_pylist()):
        if row["options"] is None:
            del row["options"]
        rows[index] = row
    return PartitionNeighbours(number, top_score, top_row, lexical, cosine, rows)


def corpus_idf(urls: Sequence[str], client: Any = None) -> Idf:
    """The IDF of the whole partitioned corpus (pass 1)."""
    if client is None:
        parts = [document_frequencies(url) for url in urls]
    else:
        parts = client.gather(client.map(document_frequencies, urls, pure=False))
    return Idf.merged(parts)


def neighbour_passes(urls: Sequence[str], side: EmbedSide, client: Any = None
                     ) -> list[PartitionNeighbours]:
    """Pass 2 over every partition, in partition order."""
    if client is None:
        return [partition_neighbours(n, url, side) for n, url in enumerate(urls)]
    [shared] = client.scatter([side], broadcast=True)
    futures = client.map(partition_neighbours, range(len(urls)), urls, side=shared, pure=False)
    return sorted(client.gather(futures), key=lambda r: r.number)


@dataclass(frozen=True)
class FoundNeighbour:
    """An item's best pair on the partitioned reference: row key (partition, row), score."""

    position: int
    key: tuple[int, int]
    pair: Any  # contamination_rephrase.PairScore


def embedding_neighbours(ctx: Any, urls: Sequence[str], embedder_tag: str | None,
                         settings: Any, client: Any = None
                         ) -> tuple[list[FoundNeighbour], dict[tuple[int, int], dict[str, Any]]]:
    """Every item's best (embedding top-1 or rarest-token) reference pair, scored exactly as
    the local check scores it; with the rows those pairs name.

    Raises:
        ConfigError: the reference holds no embeddings, or another embedder's.
    """
    from bench_kit import embed
    from bench_kit.audit.contamination import item_texts
    from bench_kit.audit.contamination_embed import encode_all, model_tag
    from bench_kit.audit.contamination_rephrase import RephraseWeights, score_pair
    from bench_kit.audit.feature_cache import cached_array, feature_key, text_digest
    from bench_kit.errors import ConfigError

    embedder = embed.embedder_from_params(ctx.params, ctx.params_source)
    tag = model_tag(embedder)
    if embedder_tag != tag:
        raise ConfigError(f"{ctx.params_source}: embed: the partitioned reference holds "
                          f"embeddings of {embedder_tag or 'no embedder'}, the audit uses "
                          f"{tag}; rebuild it with `bench-kit audit reference build "
                          "--partitioned OUT --embeddings` (or disable contamination.embedding)")
    texts = item_texts(ctx)
    strings = [text for _, text, _ in texts]
    vectors = cached_array(settings.cache_dir,
                           feature_key("emb-items", texts=text_digest(strings), model=tag),
                           lambda: encode_all(strings, ctx, "embedding items", embedder))
    weights = RephraseWeights()
    features = [text_features(ctx.by_id[ident].question) for ident, _, _ in texts]
    idf = corpus_idf(urls, client)
    results = neighbour_passes(urls, EmbedSide(vectors, features, idf, weights.entity_boost),
                               client)
    ctx.notes["contamination.embedding"] = {"embedder": embedder.name, "method": "exact",
                                            "corpus": idf.documents, "engine": "partitioned"}
    found, rows = [], {}
    for position in range(len(texts)):
        top: tuple[float, tuple[int, int] | None] = (float("-inf"), None)
        lexical: tuple[tuple[int, int] | None, float, float] = (None, 0.0, 0.0)
        for part in results:  # partition order + strict improvement = the local tie rule
            score = float(part.top_score[position])
            if score > top[0]:
                top = (score, (part.number, int(part.top_row[position])))
            index, value = part.lexical[position]
            if index >= 0 and value > lexical[1]:
                lexical = ((part.number, index), value, part.lexical_cosine[position])
        if top[1] is None:
            continue
        candidates = {top[1]: top[0]}
        if lexical[0] is not None and lexical[0] not in candidates:
            candidates[lexical[0]] = lexical[2]
        by_number = {part.number: part for part in results}
        pairs = []
        for key, cosine in candidates.items():
            row = by_number[key[0]].rows[key[1]]
            rows[key] = row
            pairs.append((key, score_pair(cosine, features[position],
                                          row_features(row.get("original"), row["question"]),
                                          idf, weights)))
        key, pair = max(pairs, key=lambda p: (p[1].combined, p[1].cosine))
        found.append(FoundNeighbour(position, key, pair))
    return found, rows
