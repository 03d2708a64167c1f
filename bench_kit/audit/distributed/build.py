"""`bench-kit audit reference build --partitioned`: the build on `audit.engine`."""

from __future__ import annotations

from typing import Any, Callable, Sequence

from bench_kit.audit.distributed.engine import EngineSettings, dask_client
from bench_kit.audit.distributed.partitions import BuildReport, build_partitioned
from bench_kit.audit.distributed.signatures import FeatureSpec
from bench_kit.audit.reference import FieldNames


def build_command(sources: Sequence[str], url: str, fields: FieldNames, *,
                  params_path: str | None = "params.yaml", rows_per_partition: int = 100_000,
                  embeddings: bool = False,
                  progress: Callable[[int, int], None] | None = None) -> BuildReport:
    """Build a partitioned reference with the features `audit.contamination` asks for (and
    the `embed:` backend's vectors when `embeddings`), on the configured engine."""
    from bench_kit.audit.contamination import ContaminationParams
    from bench_kit.audit.stage import load_audit_settings
    from bench_kit.params import load_params

    params = load_params(params_path) if params_path is not None else {}
    source = str(params_path)
    settings = load_audit_settings(params, source=source).of("contamination.exact",
                                                             ContaminationParams)
    embed_params: dict[str, Any] | None = None
    embedder_name = None
    if embeddings:
        from bench_kit import embed
        from bench_kit.audit.contamination_embed import model_tag

        embedder_name = model_tag(embed.embedder_from_params(params, source))
        embed_params = {"embed": params.get("embed")} if params.get("embed") else {}
    spec = FeatureSpec.from_settings(settings.contamination, embedder_name)
    engine = EngineSettings.from_params(params, source)
    if engine.engine == "dask":
        with dask_client(engine) as client:
            return build_partitioned(sources, url, spec, fields=fields, client=client,
                                     rows_per_partition=rows_per_partition,
                                     embed_params=embed_params, progress=progress)
    return build_partitioned(sources, url, spec, fields=fields,
                             rows_per_partition=rows_per_partition, embed_params=embed_params,
                             progress=progress)
