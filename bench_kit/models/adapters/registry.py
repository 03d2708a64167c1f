"""The adapter registry: `ADAPTERS` by name (params: `models.<name>.adapter`) and `build_adapter`."""

from __future__ import annotations

from typing import TYPE_CHECKING

from bench_kit.errors import ConfigError, UnknownNameError
from bench_kit.models.adapters.contract import (
    Adapter,
    AdapterContext,
    AdapterFactory,
    Sleep,
)
from bench_kit.registry import Registry

if TYPE_CHECKING:
    from bench_kit.models.cache import CallCache
    from bench_kit.models.config import ModelConfig

ADAPTERS: Registry[AdapterFactory] = Registry("adapter")


def build_adapter(config: "ModelConfig", *, name: str, cache: "CallCache | None" = None,
                  source: str = "params.yaml", sleep: Sleep | None = None) -> Adapter:
    """Create the adapter named by `config.adapter` for the model called `name`.

    Raises:
        ConfigError: unknown adapter (with a suggestion) or settings the adapter rejects,
            naming the key `models.<name>.<key>`.
    """
    try:
        factory = ADAPTERS.get(config.adapter)
    except UnknownNameError as exc:
        raise ConfigError(f"{source}: models.{name}.adapter: {exc}") from exc
    context = AdapterContext(name=name, source=source, cache=cache, sleep=sleep)
    return factory(config, context)
