"""The `embed:` section of params.yaml: which embedding backend and how to reach it."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from bench_kit.models.transport import DEFAULT_HTTP_CLIENT


class EmbedSettings(BaseModel):
    """The `embed:` section of params.yaml (every key optional)."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    backend: str = "local"
    local_runtime: Literal["torch", "onnx"] = "torch"
    onnx_int8: bool = False
    model: str | None = None
    base_url: str | list[str] | None = None
    api_key_env: str | None = None
    batch_size: int = Field(default=64, ge=1, le=4096)
    concurrency: int = Field(default=4, ge=1, le=256)
    timeout_s: float = Field(default=60.0, gt=0.0)
    max_retries: int = Field(default=5, ge=0, le=50)
    backoff_s: float = Field(default=1.0, ge=0.0)
    max_requests: int | None = Field(default=None, ge=0)
    cache: str | None = ".bench_kit/embeddings.sqlite"
    http_client: str = DEFAULT_HTTP_CLIENT
