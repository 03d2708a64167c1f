"""The adapter contract: one async call turns a `ModelRequest` into a `ModelResponse`."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Awaitable, Callable, Protocol, runtime_checkable

from bench_kit.errors import ConfigError

if TYPE_CHECKING:
    from bench_kit.models.cache import CallCache
    from bench_kit.models.config import ModelConfig


@dataclass(frozen=True)
class ImageInput:
    """One image as sent to a model: encoded bytes, their MIME type, pixel size, content hash."""

    data: bytes = field(repr=False)
    mime: str
    width: int
    height: int
    sha256: str


@dataclass(frozen=True)
class ModelRequest:
    """Everything a model may use to answer one item.

    `prompt` is the rendered text (what HTTP models see); `question`, `choices` and `checks`
    are the raw parts that local models work from. `image_size` is the item's first image
    size even when no image is sent (grounding answers are in its pixels).
    """

    prompt: str
    images: list[ImageInput]
    task: str
    question: str
    choices: dict[str, str] | None = None
    checks: list[str] | None = None
    max_tokens: int = 512
    temperature: float = 0.0
    image_size: tuple[int, int] | None = None
    item_id: str = ""
    rotation: int = 0


@dataclass(frozen=True)
class ModelResponse:
    """A model's raw answer. `meta` carries input-protocol facts (e.g. the OCR text read);
    `latency_s`, when set, is the adapter's own timing (local models exclude queueing)."""

    text: str
    tokens_in: int = 0
    tokens_out: int = 0
    truncated: bool = False
    meta: dict[str, Any] = field(default_factory=dict)
    latency_s: float | None = None


@runtime_checkable
class Adapter(Protocol):
    """What the runner needs from a model adapter.

    `identity()` returns the settings that change outputs (they enter the cache key; never
    the API key, URLs or concurrency). `per_item` adapters (seeded chance) answer differently
    for two items with the same prompt, so the item id joins their cache key.
    """

    per_item: bool

    def identity(self) -> dict[str, Any]: ...

    async def complete(self, request: ModelRequest) -> ModelResponse: ...

    async def aclose(self) -> None: ...


Sleep = Callable[[float], Awaitable[None]]


@dataclass
class AdapterContext:
    """What an adapter factory gets besides its config: its name, the cache, a sleep hook."""

    name: str
    source: str = "params.yaml"
    cache: "CallCache | None" = None
    sleep: Sleep | None = None

    def config_error(self, key: str, reason: str) -> ConfigError:
        """A ConfigError naming `models.<name>.<key>`."""
        return ConfigError(f"{self.source}: models.{self.name}.{key}: {reason}")


class AdapterFactory(Protocol):
    """A registered adapter: built from its config and context."""

    def __call__(self, config: "ModelConfig", context: AdapterContext) -> Adapter: ...
