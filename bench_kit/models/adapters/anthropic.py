"""Anthropic messages API (`POST {base_url}/messages`, base_url e.g. https://api.anthropic.com/v1).

Images are base64 `image` blocks before the text; the key travels in `x-api-key`.
`thinking` blocks are kept in the raw response as `<think>…</think>`; `stop_reason:
max_tokens` marks truncation.
"""

from __future__ import annotations

import base64
from typing import Any

from bench_kit.models.adapters.contract import ModelRequest, ModelResponse
from bench_kit.models.adapters.http_common import (
    HttpAdapter,
    as_count,
    load_body,
    no_answer,
)
from bench_kit.models.adapters.registry import ADAPTERS

API_VERSION = "2023-06-01"


def build_content(request: ModelRequest) -> list[dict[str, Any]]:
    """The user turn's content blocks: images first, then the prompt text."""
    blocks: list[dict[str, Any]] = [
        {"type": "image", "source": {"type": "base64", "media_type": image.mime,
                                     "data": base64.b64encode(image.data).decode("ascii")}}
        for image in request.images]
    blocks.append({"type": "text", "text": request.prompt})
    return blocks


def parse_message(content: bytes, secret: str | None = None) -> ModelResponse:
    """A messages-API 200 body as a ModelResponse.

    Raises:
        ModelCallError: not JSON, an error object, or no content blocks.
    """
    data = load_body(content, secret)
    blocks = data.get("content")
    if not isinstance(blocks, list) or not blocks:
        raise no_answer("response has no content blocks")
    pieces = []
    for block in blocks:
        if not isinstance(block, dict):
            continue
        if block.get("type") == "text" and isinstance(block.get("text"), str):
            pieces.append(block["text"])
        elif block.get("type") == "thinking" and isinstance(block.get("thinking"), str):
            pieces.append(f"<think>{block['thinking']}</think>")
    usage = data.get("usage")
    usage = usage if isinstance(usage, dict) else {}
    return ModelResponse(text="".join(pieces), tokens_in=as_count(usage.get("input_tokens")),
                         tokens_out=as_count(usage.get("output_tokens")),
                         truncated=data.get("stop_reason") == "max_tokens")


@ADAPTERS.register("anthropic")
class AnthropicAdapter(HttpAdapter):
    """Claude models through the messages API."""

    wire = "anthropic"
    example_url = "https://api.anthropic.com/v1"

    def endpoint(self, base_url: str) -> str:
        """`{base_url}/messages`."""
        return f"{base_url}/messages"

    def auth_headers(self, key: str | None) -> dict[str, str]:
        """`x-api-key` and the API version header the service requires."""
        headers = {"anthropic-version": API_VERSION}
        if key:
            headers["x-api-key"] = key
        return headers

    def build_body(self, request: ModelRequest) -> dict[str, Any]:
        """Model, one user message, max_tokens (required by the API), temperature."""
        return {"model": self.config.model, "max_tokens": request.max_tokens,
                "temperature": request.temperature,
                "messages": [{"role": "user", "content": build_content(request)}]}

    def parse(self, content: bytes) -> ModelResponse:
        """Text (and thinking) blocks in order."""
        return parse_message(content, self._key)
