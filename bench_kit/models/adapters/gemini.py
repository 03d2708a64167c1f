"""Gemini generateContent (`POST {base_url}/models/{model}:generateContent`, base_url e.g.
https://generativelanguage.googleapis.com/v1beta).

Images are `inline_data` parts before the text. The key travels in the `x-goog-api-key`
header, never as `?key=` in the URL, so it cannot reach a log line. Thought parts are kept
as `<think>…</think>`; `finishReason: MAX_TOKENS` marks truncation; a prompt blocked by
the safety filter is a failed call (it names the block reason), not an empty answer.
"""

from __future__ import annotations

import base64
from typing import Any
from urllib.parse import quote

from bench_kit.errors import ModelCallError
from bench_kit.models.adapters.contract import ModelRequest, ModelResponse
from bench_kit.models.adapters.http_common import (
    HttpAdapter,
    as_count,
    load_body,
    no_answer,
)
from bench_kit.models.adapters.registry import ADAPTERS

# finishReason values of an answer withheld on purpose (deterministic: not retried)
BLOCKED_FINISH = frozenset({"SAFETY", "RECITATION", "BLOCKLIST", "PROHIBITED_CONTENT", "SPII"})


def build_contents(request: ModelRequest) -> list[dict[str, Any]]:
    """One user turn: image parts first, then the prompt text."""
    parts: list[dict[str, Any]] = [
        {"inline_data": {"mime_type": image.mime,
                         "data": base64.b64encode(image.data).decode("ascii")}}
        for image in request.images]
    parts.append({"text": request.prompt})
    return [{"role": "user", "parts": parts}]


def parse_generation(content: bytes, secret: str | None = None) -> ModelResponse:
    """A generateContent 200 body as a ModelResponse (thought tokens count as output).

    Raises:
        ModelCallError: not JSON, an error object, a blocked prompt, or no candidate.
    """
    data = load_body(content, secret)
    candidates = data.get("candidates")
    if not isinstance(candidates, list) or not candidates or \
            not isinstance(candidates[0], dict):
        feedback = data.get("promptFeedback")
        reason = feedback.get("blockReason") if isinstance(feedback, dict) else None
        if reason:
            raise ModelCallError(f"prompt blocked ({reason})")
        raise no_answer("response has no candidates")
    candidate = candidates[0]
    content_node = candidate.get("content")
    content_node = content_node if isinstance(content_node, dict) else {}
    parts = content_node.get("parts")
    parts = parts if isinstance(parts, list) else []
    pieces = []
    for part in parts:
        if isinstance(part, dict) and isinstance(part.get("text"), str):
            pieces.append(f"<think>{part['text']}</think>" if part.get("thought")
                          else part["text"])
    if not pieces:
        finish = candidate.get("finishReason")
        if finish in BLOCKED_FINISH:
            raise ModelCallError(f"answer blocked ({finish})")
        raise no_answer("response candidate has no text")
    usage = data.get("usageMetadata")
    usage = usage if isinstance(usage, dict) else {}
    out = as_count(usage.get("candidatesTokenCount")) + as_count(usage.get("thoughtsTokenCount"))
    return ModelResponse(text="".join(pieces), tokens_in=as_count(usage.get("promptTokenCount")),
                         tokens_out=out, truncated=candidate.get("finishReason") == "MAX_TOKENS")


@ADAPTERS.register("gemini")
class GeminiAdapter(HttpAdapter):
    """Gemini models through the Generative Language API."""

    wire = "gemini"
    example_url = "https://generativelanguage.googleapis.com/v1beta"

    def endpoint(self, base_url: str) -> str:
        """`{base_url}/models/{model}:generateContent`."""
        model = str(self.config.model).removeprefix("models/")
        return f"{base_url}/models/{quote(model, safe='-._~')}:generateContent"

    def auth_headers(self, key: str | None) -> dict[str, str]:
        """`x-goog-api-key`."""
        return {"x-goog-api-key": key} if key else {}

    def build_body(self, request: ModelRequest) -> dict[str, Any]:
        """Contents and generationConfig (maxOutputTokens, temperature)."""
        return {"contents": build_contents(request),
                "generationConfig": {"maxOutputTokens": request.max_tokens,
                                     "temperature": request.temperature}}

    def parse(self, content: bytes) -> ModelResponse:
        """Candidate 0's text parts in order."""
        return parse_generation(content, self._key)
