"""Sentence embeddings for the audits, the variant gate and the text metrics.

One interface, several backends (`embed.backend` in params.yaml):
- `local` (default): the bundled all-MiniLM-L6-v2 on this machine's CPU, run by torch or,
  with `embed.local_runtime: onnx`, by ONNX Runtime (bench_kit/embed/local_onnx.py);
- `openai`: any OpenAI-compatible `/v1/embeddings` endpoint (text-embeddings-inference,
  vLLM, Infinity, OpenAI) through the model-call machinery of the runner: several
  `base_url`s load-balanced with failover, batching, retries, a request budget, the key
  from an environment variable, and an on-disk cache keyed by model name + text.

`encode(texts)` keeps its old meaning (the local model); stages that read params get their
backend with `embedder_from_params(params)`. Every backend's `name` (model + runtime) is
part of every embedding cache key and of every finding that quotes a cosine.
"""

from __future__ import annotations

import functools
from typing import Any, Protocol, Sequence

from bench_kit.embed.settings import EmbedSettings
from bench_kit.registry import Registry

LOCAL_MODEL = "all-MiniLM-L6-v2"


class Embedder(Protocol):
    """What the callers need: a stable name (cache keys, evidence) and unit vectors."""

    name: str

    def encode(self, texts: Sequence[str]) -> Any:
        """Unit-normalised float32 vectors, shape (len(texts), dim)."""


EMBEDDERS: Registry[Any] = Registry("embedding backend")


@EMBEDDERS.register("local")
def _local(settings: EmbedSettings) -> Embedder:
    if settings.local_runtime == "onnx":
        from bench_kit.embed.local_onnx import OnnxEmbedder

        return OnnxEmbedder(int8=settings.onnx_int8, batch_size=settings.batch_size)
    return TorchEmbedder(batch_size=settings.batch_size)


@EMBEDDERS.register("openai")
def _openai(settings: EmbedSettings) -> Embedder:
    from bench_kit.embed.remote import OpenAIEmbedder

    return OpenAIEmbedder(settings)


class TorchEmbedder:
    """The bundled model through sentence-transformers (torch, CPU)."""

    def __init__(self, batch_size: int = 64) -> None:
        self.batch_size = batch_size
        self.name = f"{LOCAL_MODEL}:torch"

    def encode(self, texts: Sequence[str]) -> Any:
        """Unit vectors, float32 (n, 384)."""
        from bench_kit.embed.local_torch import encode as torch_encode

        return torch_encode(texts, batch_size=self.batch_size)


def get_embedder(settings: EmbedSettings | None = None) -> Embedder:
    """The embedder `settings` describe (default: local torch), built once per process.

    Raises:
        UnknownNameError: an unknown backend name (with the known ones).
        ConfigError: settings the backend cannot use.
    """
    return _embedder((settings or EmbedSettings()).model_dump_json())


@functools.lru_cache(maxsize=8)
def _embedder(settings_json: str) -> Embedder:
    settings = EmbedSettings.model_validate_json(settings_json)
    return EMBEDDERS.get(settings.backend)(settings)


def embedder_from_params(params: dict[str, Any], source: str = "params.yaml") -> Embedder:
    """The embedder of a params dict's `embed:` section (the local model when absent)."""
    from bench_kit.params import section

    if not params.get("embed"):
        return get_embedder()
    return get_embedder(section(params, "embed", EmbedSettings, source=source))


def encode(texts: Sequence[str], batch_size: int = 64) -> Any:
    """Unit-normalised embeddings of the bundled local model, float32 (len(texts), 384)."""
    from bench_kit.embed.local_torch import encode as torch_encode

    return torch_encode(texts, batch_size=batch_size)


def load_encoder() -> Any:
    """The bundled SentenceTransformer (CPU), loaded once per process."""
    from bench_kit.embed.local_torch import load_encoder as load

    return load()


__all__ = ["EMBEDDERS", "EmbedSettings", "Embedder", "LOCAL_MODEL", "embedder_from_params",
           "encode", "get_embedder", "load_encoder"]
