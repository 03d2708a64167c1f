"""Ollama chat (`POST {base_url}/api/chat`, base_url e.g. http://localhost:11434), not streamed.

Images are base64 strings in the message's `images` list. A local Ollama needs no key; if
`api_key_env` is set the key goes as a bearer token (hosted Ollama). The `thinking` field
of reasoning models is kept as `<think>…</think>`; `done_reason: length` marks truncation.
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


def build_message(request: ModelRequest) -> dict[str, Any]:
    """The user message: the prompt, with images (if any) as base64 strings."""
    message: dict[str, Any] = {"role": "user", "content": request.prompt}
    if request.images:
        message["images"] = [base64.b64encode(i.data).decode("ascii") for i in request.images]
    return message


def parse_chat(content: bytes, secret: str | None = None) -> ModelResponse:
    """An /api/chat 200 body as a ModelResponse.

    Raises:
        ModelCallError: not JSON, an error, or no message.
    """
    data = load_body(content, secret)
    message = data.get("message")
    if not isinstance(message, dict):
        raise no_answer("response has no message")
    text = message.get("content")
    thinking = message.get("thinking")
    if not isinstance(text, str):
        if not (isinstance(thinking, str) and thinking):
            raise no_answer("response content is null")
        text = ""
    if isinstance(thinking, str) and thinking:
        text = f"<think>{thinking}</think>{text}"
    return ModelResponse(text=text, tokens_in=as_count(data.get("prompt_eval_count")),
                         tokens_out=as_count(data.get("eval_count")),
                         truncated=data.get("done_reason") == "length")


@ADAPTERS.register("ollama")
class OllamaAdapter(HttpAdapter):
    """Models served by Ollama."""

    wire = "ollama"
    example_url = "http://localhost:11434"

    def endpoint(self, base_url: str) -> str:
        """`{base_url}/api/chat`."""
        return f"{base_url}/api/chat"

    def build_body(self, request: ModelRequest) -> dict[str, Any]:
        """Model, one message, stream off, options (num_predict, temperature)."""
        return {"model": self.config.model, "messages": [build_message(request)],
                "stream": False, "options": {"num_predict": request.max_tokens,
                                             "temperature": request.temperature}}

    def parse(self, content: bytes) -> ModelResponse:
        """The message text."""
        return parse_chat(content, self._key)
