"""`audit data --reference <partitioned reference>`: the candidate rows, on the engine."""

from __future__ import annotations

import hashlib
from typing import Any, Sequence

from bench_kit.audit.distributed.engine import EngineSettings, dask_client
from bench_kit.audit.distributed.matching import CandidateReferences, candidate_references
from bench_kit.audit.distributed.partitions import is_partitioned, open_partitioned
from bench_kit.errors import InputError

MANY_REFERENCES = {"contamination.embedding": "runs on one partitioned reference at a time "
                                              "(build one from every source)"}


def partitioned_paths(references: Sequence[Any]) -> bool:
    """True when the references are partitioned ones (all of them), False when none is.

    Raises:
        InputError: a mix of partitioned and JSONL references.
    """
    flags = [is_partitioned(str(path)) for path in references]
    if any(flags) and not all(flags):
        raise InputError("give either built JSONL references or partitioned ones, not both",
                         path=str(references[flags.index(False)]))
    return bool(flags) and all(flags)


def partitioned_references(ctx: Any, references: Sequence[Any],
                           settings: Any) -> CandidateReferences:
    """The candidate rows of every partitioned reference for the items of `ctx` (and the
    embedding check's neighbours, for one reference built with embeddings), filtered on
    `audit.engine` (dask: `audit.cluster` or a LocalCluster; local: this process).

    Args:
        settings: the audit's `AuditSettings` (thresholds; which checks are switched off).
    """
    engine = EngineSettings.from_params(ctx.params, ctx.params_source)
    contamination = settings.params["contamination.exact"].contamination
    opened = [open_partitioned(str(path)) for path in references]
    embedding = len(opened) == 1 and "contamination.embedding" not in settings.disabled
    if engine.engine == "dask":
        with dask_client(engine) as client:
            parts = [candidate_references(ctx, ref, contamination, client, embedding)
                     for ref in opened]
    else:
        parts = [candidate_references(ctx, ref, contamination, None, embedding)
                 for ref in opened]
    if len(parts) == 1:
        return parts[0]
    digest = hashlib.sha256("".join(p.content_hash for p in parts).encode())
    return CandidateReferences(tuple(r for p in parts for r in p.candidate_rows),
                               f"candidates-{digest.hexdigest()}", sum(p.size for p in parts),
                               MANY_REFERENCES, tuple(s for p in parts for s in p.stats))
