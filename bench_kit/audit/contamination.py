"""Contamination against reference corpora, text side: exact, n-gram, MinHash.

Methods: docs/AUDIT_METHODS.md.

Items are few (thousands to 100k) and the reference corpus is large (up to millions of
questions), so every check indexes the *items* and streams the reference once: cost is
linear in the corpus size and nothing compares all pairs.

- `contamination.exact`: the normalised hint + question with its option set (when both sides
  have options; the question alone otherwise) equals a reference row's (audit/content.py);
- `contamination.ngram`: word n-grams (13, or 8 for questions shorter than 13 words; each
  CJK character counts as a word, i.e. character n-grams for Chinese) shared with one
  reference row, through a hash index of the items' n-grams;
- `contamination.minhash`: MinHash LSH (datasketch) on character 5-gram shingles, every
  candidate verified by exact Jaccard ≥ `minhash_threshold`. Reference signatures are
  cached on disk under the corpus content hash.

Evidence names the reference row (`ref_id`, `source`, its original text) and the score.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from typing import Any, Iterator

from pydantic import BaseModel, ConfigDict, Field, model_validator
from pydantic_core import PydanticCustomError

from bench_kit.audit.contamination_specific import demote
from bench_kit.audit.content import (
    TEMPLATE_ASK,
    as_template,
    content_key,
    item_hint,
    item_options,
    joined_questions,
)
from bench_kit.audit.feature_cache import (
    DEFAULT_CACHE_DIR,
    array_sink,
    feature_key,
    load_array,
)
from bench_kit.audit.reference import ReferenceSet, reference_text
from bench_kit.audit.registry import AuditContext, CheckParams, CheckSpec, check
from bench_kit.errors import ConfigError
from bench_kit.text.tokens import word_tokens
from bench_kit.types import Finding

# Reference rows whose MinHash signatures are computed in one datasketch bulk call.
_CHUNK = 4096
_QUOTE_CHARS = 200


class ContaminationSettings(BaseModel):
    """`audit.contamination`: thresholds of the contamination checks (docs/AUDIT_METHODS.md)."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    ngram_n: int = Field(13, ge=2)
    ngram_short_n: int = Field(8, ge=2)
    # an n-gram shared by this many items of the audited file is boilerplate (not counted)
    ngram_boilerplate_items: int = Field(3, ge=2)
    minhash_threshold: float = Field(0.8, gt=0.0, le=1.0)
    # a text match is info when it shares no specific token: a name, a quoted word or a token
    # in at most this share of the file's items (or in no other item); or when it has a passage
    # and less than `same_question_share` of its question's word trigrams are in the
    # reference row (audit/contamination_specific.py)
    specific_df: float = Field(0.03, ge=0.0, le=1.0)
    same_question_share: float = Field(0.5, ge=0.0, le=1.0)
    minhash_shingle: int = Field(5, ge=1)
    minhash_perm: int = Field(128, ge=16, le=1024)
    # embedding cosine: a rephrase whatever the other evidence (near-verbatim); `review` =
    # `rephrase` means no cosine-only review band
    rephrase: float = Field(0.97, gt=0.0, le=1.0)
    review: float = Field(0.97, gt=0.0, le=1.0)
    # combined score (cosine + rare-token/entity/number overlap − contrasts, see
    # contamination_rephrase.py): warn from `rephrase_combined`, review (info, or the judge)
    # from `review_combined`; both chosen on public labelled sets and checked on a held-out
    # one (benchmarks/rephrase_operating_point.py, docs/AUDITS.md#rephrase-detection)
    rephrase_combined: float = Field(0.85, gt=0.0, le=2.0)
    review_combined: float = Field(0.77, gt=0.0, le=2.0)
    judge: str | None = None
    cache_dir: str | None = DEFAULT_CACHE_DIR
    # nearest-neighbour search: exact below this many reference vectors, faiss above
    index_exact_below: int = Field(200_000, ge=1)
    index_nprobe: int = Field(32, ge=1)

    @model_validator(mode="after")
    def _ordered(self) -> "ContaminationSettings":
        if self.review > self.rephrase:
            raise PydanticCustomError("threshold_order", "review ({review}) must be <= "
                                      "rephrase ({rephrase})",
                                      {"review": self.review, "rephrase": self.rephrase})
        if self.ngram_short_n > self.ngram_n:
            raise PydanticCustomError("threshold_order", "ngram_short_n must be <= ngram_n", {})
        return self


class ContaminationParams(CheckParams):
    """The nested `audit.contamination` mapping."""

    contamination: ContaminationSettings = ContaminationSettings()


def ngrams(words: list[str], n: int) -> list[str]:
    """The distinct word n-grams (joined by spaces), in text order — so the n-gram quoted as
    evidence is the first shared one, the same in every run (a set's order is not)."""
    return list(dict.fromkeys(" ".join(words[i:i + n]) for i in range(len(words) - n + 1)))


def shingles(text: str, size: int) -> set[bytes]:
    """Character `size`-gram shingles of a text (the whole text when it is shorter)."""
    data = text.encode("utf-8") if len(text) <= size else None
    if data is not None:
        return {data}
    return {text[i:i + size].encode("utf-8") for i in range(len(text) - size + 1)}


_ROLL = 1_000_003  # multiplier of the polynomial shingle hash


def shingle_hashes(text: str, size: int) -> Any:
    """32-bit hashes of the distinct character `size`-gram shingles (numpy uint64 array).

    A polynomial rolling hash over the code points, vectorised with numpy: deterministic
    across processes (the on-disk signature cache relies on it) and about 4x cheaper than
    hashing each shingle with sha1. Exact Jaccard verification uses the shingles themselves.
    """
    import numpy as np

    codes = np.frombuffer(text.encode("utf-32-le"), dtype=np.uint32).astype(np.uint64)
    width = min(size, len(codes))
    count = len(codes) - width + 1
    hashes = np.zeros(max(count, 1), dtype=np.uint64)
    for offset in range(width):
        hashes += codes[offset:offset + count] * np.uint64(pow(_ROLL, width - 1 - offset, 2**32))
    return np.unique(hashes & np.uint64(0xFFFFFFFF))


def signatures(texts: list[str], size: int, perm: int) -> list[Any]:
    """datasketch MinHash signatures of the texts' shingle hashes (seed 1)."""
    from datasketch import MinHash

    return MinHash.bulk([shingle_hashes(t, size).tolist() for t in texts], num_perm=perm,
                        hashfunc=int)


def item_texts(ctx: AuditContext) -> list[tuple[str, str, str]]:
    """(id, normalised hint + question + options, normalised hint + question) per item,
    computed once (the hint joined as on the reference side, see audit/content.py)."""

    def compute() -> list[tuple[str, str, str]]:
        rows = []
        for item in ctx.items:
            hint, question = item_hint(item)
            joined = f"{hint} {question}" if hint else question
            text = reference_text(joined, item_options(item))
            if text:
                rows.append((item.id, text, joined_questions(question, hint)[0]))
        return rows

    return ctx.memo("contamination_texts", compute)


def ref_evidence(row: dict[str, Any]) -> dict[str, Any]:
    """Evidence naming a reference row: id, source and (shortened) original text."""
    original = row["original"]
    if len(original) > _QUOTE_CHARS:
        original = original[:_QUOTE_CHARS - 1] + "…"
    return {"ref_id": row["ref_id"], "source": row["source"], "reference": original}


def _reference(ctx: AuditContext) -> ReferenceSet:
    return ctx.references


def _progress(ctx: AuditContext, stage: str, done: int, total: int) -> None:
    if ctx.progress and (done % 100_000 == 0 or done == total):
        ctx.progress(stage, done, total)


@check("contamination.exact", severity="error", params=ContaminationParams,
       requires=("references",))
def exact_match(ctx: AuditContext, params: ContaminationParams, spec: CheckSpec) -> Iterator[Finding]:
    """Normalised hint + question (+ options when both sides have them) equal to a reference.

    Text shared by items with other images (a template) is listed at info: the image decides."""
    by_key: dict[str, list[str]] = defaultdict(list)  # question + option set (items with options)
    by_question: dict[str, list[str]] = defaultdict(list)  # joined question, every item
    no_options: dict[str, list[str]] = defaultdict(list)  # joined question, items without
    for item in ctx.items:
        hint, question = item_hint(item)
        options = item_options(item)
        for joined in joined_questions(question, hint):
            if not joined:
                continue
            by_question[joined].append(item.id)
            if options:
                by_key[content_key(joined, options)].append(item.id)
            else:
                no_options[joined].append(item.id)
    found: dict[str, tuple[str, dict[str, Any]]] = {}
    reference = _reference(ctx)
    for done, row in enumerate(reference.rows(), start=1):
        if row.get("options"):
            hits = [(i, "question+options")
                    for i in by_key.get(content_key(row["question"], row["options"]), ())]
            hits += [(i, "question") for i in no_options.get(row["question"], ())]
        else:
            hits = [(i, "question") for i in by_question.get(row["question"], ())]
        for ident, kind in hits:
            if ident not in found or (found[ident][0] == "question" and kind != "question"):
                found[ident] = (kind, row)
        _progress(ctx, "contamination.exact", done, reference.size)
    for ident in sorted(found):
        kind, row = found[ident]
        severity, template = as_template(ctx, ident, "error")
        yield spec.finding(ident, f"{kind.replace('+', ' + ')} equal to reference "
                           f"'{row['ref_id']}' ({row['source']}) after normalisation"
                           + (TEMPLATE_ASK if template else ""),
                           {**ref_evidence(row), "matched": kind, "score": 1.0, **template},
                           severity=severity, score=1.0)


def ngram_size(count: int, settings: ContaminationSettings) -> int | None:
    if count >= settings.ngram_n:
        return settings.ngram_n
    if count >= settings.ngram_short_n:
        return settings.ngram_short_n
    return None  # shorter questions: exact, MinHash and embeddings cover them


@check("contamination.ngram", severity="warn", params=ContaminationParams,
       requires=("references",))
def ngram_overlap(ctx: AuditContext, params: ContaminationParams, spec: CheckSpec) -> Iterator[Finding]:
    """Word n-grams (13; 8 for short questions; CJK by character) shared with a reference row.

    N-grams that `ngram_boilerplate_items` or more items of the file share (a benchmark's
    own instructions: "The passage below describes an experiment. Read the passage …") say
    nothing about which item was copied and are not counted."""
    settings = params.contamination
    index: dict[int, dict[str, list[int]]] = defaultdict(lambda: defaultdict(list))
    items: list[tuple[str, int, int]] = []  # (id, n, number of distinct n-grams)
    grams_of: list[tuple[str, int, list[str]]] = []
    for ident, text, _ in item_texts(ctx):
        words = word_tokens(text)
        size = ngram_size(len(words), settings)
        if size is not None:
            grams_of.append((ident, size, ngrams(words, size)))
    users = Counter(gram for _, _, grams in grams_of for gram in grams)
    for ident, size, grams in grams_of:
        own = [gram for gram in grams if users[gram] < settings.ngram_boilerplate_items]
        if not own:
            continue
        for gram in own:
            index[size][gram].append(len(items))
        items.append((ident, size, len(own)))
    best: dict[int, tuple[int, dict[str, Any], str]] = {}
    reference = _reference(ctx)
    sizes = sorted(index)
    for done, row in enumerate(reference.rows(), start=1):
        words = word_tokens(row["text"])
        shared: Counter[int] = Counter()
        example: dict[int, str] = {}
        for size in sizes:
            table = index[size]
            for gram in ngrams(words, size):
                for position in table.get(gram, ()):
                    shared[position] += 1
                    example.setdefault(position, gram)
        for position, count in shared.items():
            if position not in best or count > best[position][0]:
                best[position] = (count, row, example[position])
        _progress(ctx, "contamination.ngram", done, reference.size)
    for position in sorted(best, key=lambda p: items[p][0]):
        count, row, gram = best[position]
        ident, size, total = items[position]
        share = count / total
        severity, template = as_template(ctx, ident, "error" if share >= 0.5 else "warn")
        evidence = {**ref_evidence(row), "span": gram, "n": size, "shared": count,
                    "total": total, "score": round(share, 4), **template}
        severity, message = demote(ctx, ident, row, settings, severity,
                                   f"shares {count}/{total} {size}-grams with reference "
                                   f"'{row['ref_id']}' ({row['source']})"
                                   + (TEMPLATE_ASK if template else ""), evidence)
        yield spec.finding(ident, message, evidence, severity=severity, score=share)


def _jaccard(a: set[bytes], b: set[bytes]) -> float:
    return len(a & b) / len(a | b) if a or b else 0.0


def _signature_chunks(ctx: AuditContext, settings: ContaminationSettings
                      ) -> Iterator[tuple[list[dict[str, Any]], Any]]:
    """(rows, uint32 signatures) of the reference in chunks, from the cache when present."""
    import numpy as np
    reference = _reference(ctx)
    key = feature_key("minhash", corpus=reference.content_hash, perm=settings.minhash_perm,
                      shingle=settings.minhash_shingle,
                      scheme="rolling-utf32+datasketch-affine32-seed1")
    cached = load_array(settings.cache_dir, key)
    if cached is not None and cached.shape != (reference.size, settings.minhash_perm):
        cached = None
    if cached is not None:
        start = 0
        for rows in row_chunks(reference.rows()):
            yield rows, cached[start:start + len(rows)]
            start += len(rows)
            _progress(ctx, "contamination.minhash", start, reference.size)
        return
    # Computed chunk by chunk and streamed into the cache file (never whole in memory).
    with array_sink(settings.cache_dir, key, (reference.size, settings.minhash_perm),
                    "uint32") as sink:
        start = 0
        for rows in row_chunks(reference.rows()):
            block = np.array([sig.hashvalues for sig in signatures(
                [row["text"] for row in rows], settings.minhash_shingle,
                settings.minhash_perm)], dtype=np.uint32).reshape(len(rows), -1)
            if sink is not None:
                sink[start:start + len(rows)] = block
            yield rows, block
            start += len(rows)
            _progress(ctx, "contamination.minhash", start, reference.size)


def row_chunks(rows: Iterator[dict[str, Any]], size: int = _CHUNK
               ) -> Iterator[list[dict[str, Any]]]:
    """Consecutive lists of `size` rows (the last one shorter), reading `rows` once."""
    chunk: list[dict[str, Any]] = []
    for row in rows:
        chunk.append(row)
        if len(chunk) == size:
            yield chunk
            chunk = []
    if chunk:
        yield chunk


@check("contamination.minhash", severity="warn", params=ContaminationParams,
       requires=("references",))
def minhash_near_duplicate(ctx: AuditContext, params: ContaminationParams, spec: CheckSpec) -> Iterator[Finding]:
    """MinHash LSH on character 5-gram shingles; candidates verified by exact Jaccard ≥ 0.8."""
    from datasketch import LeanMinHash, MinHashLSH

    settings = params.contamination
    texts = item_texts(ctx)
    item_sets: dict[int, set[bytes]] = {}  # only the LSH candidates' shingles, on demand
    try:
        lsh = MinHashLSH(threshold=settings.minhash_threshold, num_perm=settings.minhash_perm)
    except ValueError as exc:  # datasketch: too few bands for this threshold and perm count
        raise ConfigError(f"{ctx.params_source}: audit.contamination.minhash_threshold: "
                          f"{settings.minhash_threshold} with minhash_perm "
                          f"{settings.minhash_perm}: {exc}; lower the threshold or raise "
                          "minhash_perm") from exc
    item_sigs = signatures([text for _, text, _ in texts], settings.minhash_shingle,
                           settings.minhash_perm)
    with lsh.insertion_session() as session:
        for position, signature in enumerate(item_sigs):
            session.insert(position, signature)
    scheme = item_sigs[0].scheme if item_sigs else None
    best: dict[int, tuple[float, dict[str, Any]]] = {}
    for rows, sigs in _signature_chunks(ctx, settings):
        if scheme is None:
            continue
        for row, sig in zip(rows, sigs):
            candidates = lsh.query(LeanMinHash(seed=1, hashvalues=sig, scheme=scheme))
            if not candidates:
                continue
            ref_set = shingles(row["text"], settings.minhash_shingle)
            for position in candidates:
                if position not in item_sets:
                    item_sets[position] = shingles(texts[position][1], settings.minhash_shingle)
                score = _jaccard(item_sets[position], ref_set)
                if score >= settings.minhash_threshold and (
                        position not in best or score > best[position][0]):
                    best[position] = (score, row)
    for position in sorted(best, key=lambda p: texts[p][0]):
        score, row = best[position]
        ident = texts[position][0]
        severity, template = as_template(ctx, ident, "warn")
        evidence = {**ref_evidence(row), "jaccard": round(score, 4), "score": round(score, 4),
                    **template}
        severity, message = demote(ctx, ident, row, settings, severity,
                                   f"near-duplicate of reference '{row['ref_id']}' "
                                   f"({row['source']}): Jaccard {score:.2f} on "
                                   f"{settings.minhash_shingle}-character shingles"
                                   + (TEMPLATE_ASK if template else ""), evidence)
        yield spec.finding(ident, message, evidence, severity=severity, score=score)
