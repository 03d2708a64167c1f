"""Embeddings from OpenAI-compatible `/v1/embeddings` servers (`embed.backend: openai`).

Texts are de-duplicated, looked up in the on-disk vector cache (model name + text), and
the rest are sent in batches of `batch_size`, `concurrency` batches at a time (the bounded
loop of the model calls, bench_kit.models.bounded: budget, slots given back during a
retry's backoff), through the same HTTP machinery as the chat adapters (bench_kit/models/adapters/http_common.py):
several `base_url`s load-balanced, a failing replica rested while the others take its
batches, retries with backoff, the key from `api_key_env` in a header only. Each batch is
cached as it arrives, so a run stopped by a budget or an outage keeps every vector it got;
a batch that cannot be cached (a full disk) stops the run at once with that error.
"""

from __future__ import annotations

import asyncio
import functools
from typing import Any, Sequence

from bench_kit.embed.settings import EmbedSettings
from bench_kit.embed.vector_cache import VectorCache
from bench_kit.errors import ConfigError, ModelCallError
from bench_kit.models.adapters.contract import AdapterContext
from bench_kit.models.adapters.http_common import HttpClient, load_body, no_answer
from bench_kit.models.bounded import BoundedLoop, Refused
from bench_kit.models.budget import Budget
from bench_kit.models.config import ModelConfig


class EmbeddingsClient(HttpClient):
    """POST `{base_url}/embeddings` with `{"model", "input": [texts]}`."""

    wire = "openai-embeddings"
    example_url = "http://localhost:8080/v1"

    def endpoint(self, base_url: str) -> str:
        """`{base_url}/embeddings`."""
        return f"{base_url}/embeddings"


def parse_embeddings(content: bytes, count: int, secret: str | None = None) -> list[list[float]]:
    """The vectors of an embeddings reply, in input order (by each entry's `index`).

    Raises:
        RetryableError: a reply without (all) the vectors.
        ModelCallError: not JSON, an error object, or vectors of different lengths.
    """
    data = load_body(content, secret)
    entries = data.get("data")
    if not isinstance(entries, list) or len(entries) != count:
        raise no_answer(f"embeddings reply has {len(entries) if isinstance(entries, list) else 0}"
                        f" vectors for {count} inputs")
    vectors: list[Any] = [None] * count
    for position, entry in enumerate(entries):
        index = entry.get("index", position) if isinstance(entry, dict) else None
        vector = entry.get("embedding") if isinstance(entry, dict) else None
        if not isinstance(index, int) or not 0 <= index < count or not isinstance(vector, list):
            raise no_answer("embeddings reply has a malformed entry")
        vectors[index] = vector
    if any(v is None for v in vectors) or len({len(v) for v in vectors}) != 1:
        raise ModelCallError("embeddings reply: missing or ragged vectors")
    return vectors


class OpenAIEmbedder:
    """An `Embedder` backed by one or more embedding servers."""

    def __init__(self, settings: EmbedSettings, source: str = "params.yaml") -> None:
        if not settings.model:
            raise ConfigError(f"{source}: embed.model: required for backend 'openai' "
                              f"(the served embedding model name)")
        if not settings.base_url:
            raise ConfigError(f"{source}: embed.base_url: required for backend 'openai', "
                              f"e.g. {EmbeddingsClient.example_url}")
        self.settings = settings
        self.name = f"openai:{settings.model}"
        self._config = ModelConfig(
            adapter="openai", model=settings.model, base_url=settings.base_url,
            api_key_env=settings.api_key_env, concurrency=settings.concurrency,
            timeout_s=settings.timeout_s, max_retries=settings.max_retries,
            backoff_s=settings.backoff_s, http_client=settings.http_client)
        self.cache = VectorCache(settings.cache)
        self.budget = Budget(max_requests=settings.max_requests)
        self.requests = 0

    def encode(self, texts: Sequence[str]) -> Any:
        """Unit-normalised float32 vectors of `texts` (cached ones are not re-sent).

        Raises:
            ModelCallError: a batch failed after its retries, or the request budget ran
                out (the vectors received so far are cached: a re-run continues).
            StorageError: the vector cache could not store a batch (a full disk): the run
                stops at once, no more batches requested.
        """
        import numpy as np

        unique = list(dict.fromkeys(texts))
        known = self.cache.get_many(self.name, unique)
        missing = [t for t in unique if t not in known]
        if missing:
            known.update(asyncio.run(self._fetch(missing)))
        if not texts:
            return np.zeros((0, 0), dtype="float32")
        matrix = np.stack([np.asarray(known[t], dtype="float32") for t in texts])
        norms = np.linalg.norm(matrix, axis=1, keepdims=True)
        return (matrix / np.where(norms == 0, 1.0, norms)).astype("float32")

    async def _fetch(self, texts: list[str]) -> dict[str, Any]:
        size = self.settings.batch_size
        batches = (texts[i:i + size] for i in range(0, len(texts), size))
        client = EmbeddingsClient(self._config, AdapterContext(name="embed", source="embed"))
        bounded = BoundedLoop(self.settings.concurrency, self.budget)
        found: dict[str, Any] = {}
        try:
            results = await bounded.run(functools.partial(self._batch, batch, client,
                                                          bounded, found)
                                        for batch in batches)
        finally:
            self.requests += bounded.requests
            await client.aclose()
        errors = [r for r in results if r is not None]
        if errors:
            raise ModelCallError(f"embeddings: {len(errors)} of {len(results)} batches "
                                 f"failed; first: {errors[0]}") from errors[0]
        return found

    async def _batch(self, batch: list[str], client: EmbeddingsClient, bounded: BoundedLoop,
                     found: dict[str, Any]) -> ModelCallError | None:
        """Fetch and cache the vectors of one batch into `found`. The batch's own failure
        (its request failed after the retries, a budget stop) is returned, so the other
        batches still run; anything else (the vector cache cannot store: a full disk)
        stops the run at once, the other batches cancelled, and is raised."""
        import numpy as np

        body = {"model": self.settings.model, "input": batch}
        try:
            vectors = await bounded.send(lambda: client.call(
                body, lambda content: parse_embeddings(content, len(batch),
                                                       self._config.api_key())))
        except ModelCallError as exc:
            return exc
        if isinstance(vectors, Refused):
            return ModelCallError(f"embeddings: {vectors.reason}; "
                                  f"{len(found)} vectors received and cached")
        array = np.asarray(vectors, dtype="float32")
        self.cache.put_many(self.name, batch, array)
        found.update(zip(batch, array))
        return None
