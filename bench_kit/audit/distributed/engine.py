"""`audit.engine` (local | dask) and `audit.cluster`: where the reference work runs.

Dask is imported only when the engine is `dask` (or a partitioned reference is built or
matched), so `bench-kit --help` and local audits never pay for it.
"""

from __future__ import annotations

import contextlib
from dataclasses import dataclass
from typing import Any, Iterator

from bench_kit.errors import ConfigError

ENGINES = ("local", "dask")


@dataclass(frozen=True)
class EngineSettings:
    """`audit.engine` and `audit.cluster` (a scheduler address; empty = a LocalCluster)."""

    engine: str = "local"
    cluster: str | None = None
    workers: int = 2  # LocalCluster only

    @classmethod
    def from_params(cls, params: dict[str, Any], source: str = "params.yaml") -> "EngineSettings":
        """Read and check the two keys of the `audit:` section.

        Raises:
            ConfigError: an unknown engine or a cluster address that is not a string.
        """
        node = params.get("audit") or {}
        engine = node.get("engine", "local") or "local"
        if engine not in ENGINES:
            raise ConfigError(f"{source}: audit.engine: '{engine}' is not one of "
                              f"{', '.join(ENGINES)}")
        cluster = node.get("cluster") or None
        if cluster is not None and not isinstance(cluster, str):
            raise ConfigError(f"{source}: audit.cluster: expected a scheduler address such as "
                              "tcp://10.0.0.5:8786 (or empty for a local cluster)")
        return cls(engine=engine, cluster=cluster)


def _import_distributed() -> Any:
    try:
        import distributed
    except ImportError as exc:
        raise ConfigError("audit.engine: dask needs 'dask[distributed]': "
                          "pip install 'dask[distributed]'") from exc
    return distributed


@contextlib.contextmanager
def dask_client(settings: EngineSettings) -> Iterator[Any]:
    """A Dask client on `settings.cluster`, or on a LocalCluster started (and stopped) here."""
    distributed = _import_distributed()
    if settings.cluster:
        try:
            client = distributed.Client(settings.cluster, timeout="30s")
        except (OSError, TimeoutError) as exc:
            raise ConfigError(f"audit.cluster: cannot reach the scheduler at "
                              f"{settings.cluster} ({exc})") from exc
        with client:
            yield client
        return
    with distributed.LocalCluster(n_workers=settings.workers, threads_per_worker=1,
                                  processes=True, dashboard_address=None,
                                  silence_logs=40) as cluster, \
            distributed.Client(cluster) as client:
        yield client
