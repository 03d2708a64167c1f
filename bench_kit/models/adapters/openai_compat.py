"""OpenAI-compatible chat completions (OpenAI, vLLM, sglang, LM Studio, DeepSeek, Qwen-VL …).

Images travel as base64 data-URL `image_url` content parts; the key as a bearer token.
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


def build_messages(request: ModelRequest) -> list[dict[str, Any]]:
    """The chat `messages` for one request: images first, then the prompt text."""
    if not request.images:
        return [{"role": "user", "content": request.prompt}]
    parts: list[dict[str, Any]] = []
    for image in request.images:
        encoded = base64.b64encode(image.data).decode("ascii")
        parts.append({"type": "image_url",
                      "image_url": {"url": f"data:{image.mime};base64,{encoded}"}})
    parts.append({"type": "text", "text": request.prompt})
    return [{"role": "user", "content": parts}]


def parse_completion(content: bytes, secret: str | None = None) -> ModelResponse:
    """Turn a 200 response body into a ModelResponse.

    Raises:
        ModelCallError: not JSON, an `error` object, no choices or no message.
    """
    data = load_body(content, secret)
    choices = data.get("choices")
    if not isinstance(choices, list) or not choices or not isinstance(choices[0], dict):
        raise no_answer("response has no choices")
    message = choices[0].get("message")
    if not isinstance(message, dict):
        raise no_answer("response choice has no message")
    text = message.get("content")
    if isinstance(text, list):  # some servers return content parts
        parts = [p["text"] for p in text if isinstance(p, dict) and isinstance(p.get("text"), str)]
        text = "".join(parts) if parts else None  # no text part: as null content
    reasoning = message.get("reasoning_content") or message.get("reasoning")
    if not isinstance(text, str):
        if not (isinstance(reasoning, str) and reasoning):
            raise no_answer("response content is null")
        text = ""  # a reasoning model cut off before its answer: the reasoning is kept
    if isinstance(reasoning, str) and reasoning:
        # Raw output is never lost: a server-side reasoning parser's text goes back in front.
        text = f"<think>{reasoning}</think>{text}"
    usage = data.get("usage")
    usage = usage if isinstance(usage, dict) else {}
    return ModelResponse(text=text, tokens_in=as_count(usage.get("prompt_tokens")),
                         tokens_out=as_count(usage.get("completion_tokens")),
                         truncated=choices[0].get("finish_reason") == "length")


@ADAPTERS.register("openai")
class OpenAIAdapter(HttpAdapter):
    """Chat completions (`POST {base_url}/chat/completions`)."""

    wire = "openai"
    example_url = "http://localhost:8000/v1"

    def endpoint(self, base_url: str) -> str:
        """`{base_url}/chat/completions`."""
        return f"{base_url}/chat/completions"

    def build_body(self, request: ModelRequest) -> dict[str, Any]:
        """Model, messages, max_tokens, temperature."""
        return {"model": self.config.model, "messages": build_messages(request),
                "max_tokens": request.max_tokens, "temperature": request.temperature}

    def parse(self, content: bytes) -> ModelResponse:
        """Choice 0's message; `finish_reason: length` marks truncation."""
        return parse_completion(content, self._key)
