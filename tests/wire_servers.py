"""Real servers on 127.0.0.1 speaking the Anthropic messages, Gemini generateContent and
Ollama chat wire formats, with the scenarios of `openai_server.FakeOpenAI`.

Each checks what its API requires (path, headers) and answers 4xx as the real API would
when it is missing, so an adapter that sends the wrong shape fails its test.
"""

from __future__ import annotations

from typing import Any

from openai_server import FakeOpenAI

THOUGHT = "Let me look."


class FakeAnthropic(FakeOpenAI):
    """`POST /v1/messages` with `x-api-key` and `anthropic-version` headers."""

    def token_of(self, headers: dict[str, str]) -> str:
        return headers.get("x-api-key", "")

    def wrong_request(self, path: str, headers: dict[str, str],
                      body: dict[str, Any]) -> str | None:
        if path != "/v1/messages":
            return f"no route {path}"
        if "anthropic-version" not in headers:
            return "anthropic-version header is required"
        return None if "max_tokens" in body else "max_tokens: field required"

    def prompt_of(self, body: dict[str, Any]) -> str:
        content = body["messages"][0]["content"]
        return content if isinstance(content, str) else " ".join(
            p.get("text", "") for p in content if p.get("type") == "text")

    def empty_reply(self) -> dict[str, Any]:
        return {"type": "message", "content": [], "stop_reason": "end_turn"}

    def ok_reply(self, body: dict[str, Any], scenario: str, text: str) -> dict[str, Any]:
        content = [{"type": "text", "text": text}]
        if scenario == "think":
            content.insert(0, {"type": "thinking", "thinking": THOUGHT, "signature": "s"})
        return {"id": "msg_1", "type": "message", "role": "assistant", "model": body["model"],
                "content": content,
                "stop_reason": "max_tokens" if scenario == "length" else "end_turn",
                "usage": {"input_tokens": 1000, "output_tokens": 10}}

    def images(self, index: int) -> list[tuple[str, str]]:
        """(media_type, base64 data) of each image block of request `index`."""
        content = self.requests[index]["body"]["messages"][0]["content"]
        return [(p["source"]["media_type"], p["source"]["data"])
                for p in content if p.get("type") == "image"]


class FakeGemini(FakeOpenAI):
    """`POST /v1beta/models/{model}:generateContent` with an `x-goog-api-key` header."""

    prefix = "/v1beta"

    def token_of(self, headers: dict[str, str]) -> str:
        return headers.get("x-goog-api-key", "")

    def wrong_request(self, path: str, headers: dict[str, str],
                      body: dict[str, Any]) -> str | None:
        if "?" in path:
            return "query parameters are not expected (the key goes in a header)"
        return None if path.startswith("/v1beta/models/") and \
            path.endswith(":generateContent") else f"no route {path}"

    def prompt_of(self, body: dict[str, Any]) -> str:
        return " ".join(p["text"] for p in body["contents"][0]["parts"] if "text" in p)

    def empty_reply(self) -> dict[str, Any]:
        return {"promptFeedback": {"blockReason": "SAFETY"},
                "usageMetadata": {"promptTokenCount": 1000}}

    def ok_reply(self, body: dict[str, Any], scenario: str, text: str) -> dict[str, Any]:
        parts: list[dict[str, Any]] = [{"text": text}]
        if scenario == "think":
            parts.insert(0, {"text": THOUGHT, "thought": True})
        return {"candidates": [{"content": {"role": "model", "parts": parts},
                                "finishReason": "MAX_TOKENS" if scenario == "length"
                                else "STOP", "index": 0}],
                "usageMetadata": {"promptTokenCount": 1000, "candidatesTokenCount": 8,
                                  "thoughtsTokenCount": 2, "totalTokenCount": 1010}}

    def images(self, index: int) -> list[tuple[str, str]]:
        parts = self.requests[index]["body"]["contents"][0]["parts"]
        return [(p["inline_data"]["mime_type"], p["inline_data"]["data"])
                for p in parts if "inline_data" in p]


class FakeOllama(FakeOpenAI):
    """`POST /api/chat` (non-streaming); images as base64 strings in the message."""

    prefix = ""

    def wrong_request(self, path: str, headers: dict[str, str],
                      body: dict[str, Any]) -> str | None:
        if path != "/api/chat":
            return f"no route {path}"
        return None if body.get("stream") is False else "expected stream: false"

    def prompt_of(self, body: dict[str, Any]) -> str:
        return body["messages"][0]["content"]

    def empty_reply(self) -> dict[str, Any]:
        return {"model": "m", "done": True}

    def ok_reply(self, body: dict[str, Any], scenario: str, text: str) -> dict[str, Any]:
        message = {"role": "assistant", "content": text}
        if scenario == "think":
            message["thinking"] = THOUGHT
        return {"model": body["model"], "created_at": "2026-01-01T00:00:00Z",
                "message": message, "done": True,
                "done_reason": "length" if scenario == "length" else "stop",
                "prompt_eval_count": 1000, "eval_count": 10}

    def images(self, index: int) -> list[tuple[str, str]]:
        return [("", data) for data in self.requests[index]["body"]["messages"][0]
                .get("images", [])]
