"""Model adapters, registered by name in `ADAPTERS` (params: `eval.models.<name>.adapter`).

Importing this package is cheap: httpx, torch and the OCR engine load on first use.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from bench_kit.errors import ConfigError, UnknownNameError
from bench_kit.eval.adapters.base import (Adapter, AdapterContext, AdapterFactory, ImageInput,
                                          ModelRequest, ModelResponse, Sleep)
from bench_kit.registry import Registry

if TYPE_CHECKING:
    from bench_kit.eval.cache import CallCache
    from bench_kit.eval.modelcfg import ModelConfig

ADAPTERS: Registry[AdapterFactory] = Registry("adapter")


def build_adapter(config: "ModelConfig", *, name: str, cache: "CallCache | None" = None,
                  source: str = "params.yaml", sleep: Sleep | None = None) -> Adapter:
    """Create the adapter named by `config.adapter` for the model called `name`.

    Raises:
        ConfigError: unknown adapter (with a suggestion) or settings the adapter rejects,
            naming the key `eval.models.<name>.<key>`.
    """
    try:
        factory = ADAPTERS.get(config.adapter)
    except UnknownNameError as exc:
        raise ConfigError(f"{source}: eval.models.{name}.adapter: {exc}") from None
    context = AdapterContext(name=name, source=source, cache=cache, sleep=sleep)
    return factory(config, context)


# Registration happens on import; these modules import their heavy libraries lazily.
from bench_kit.eval.adapters import (anthropic, chance, gemini, ocr, ollama,  # noqa: E402
                                     openai_compat, text_only)

__all__ = ["ADAPTERS", "Adapter", "AdapterContext", "ImageInput", "ModelRequest",
           "ModelResponse", "anthropic", "build_adapter", "chance", "gemini", "ocr", "ollama",
           "openai_compat", "text_only"]
