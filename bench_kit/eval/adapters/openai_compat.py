"""OpenAI-compatible chat completions (OpenAI, vLLM, sglang, LM Studio, DeepSeek, Qwen-VL …).

Images travel as base64 data-URL `image_url` content parts. Several `base_url`s are
load-balanced: each attempt goes to the replica with the fewest requests in flight (ties in
round-robin order), and a retry may land on another replica.
"""

from __future__ import annotations

import base64
import json
import random
from typing import TYPE_CHECKING, Any

from bench_kit.errors import ModelCallError
from bench_kit.eval.adapters import ADAPTERS
from bench_kit.eval.adapters.base import AdapterContext, ModelRequest, ModelResponse
from bench_kit.eval.retry import RetryableError, RetryPolicy, call_with_retries, \
    parse_retry_after

if TYPE_CHECKING:
    import httpx

    from bench_kit.eval.modelcfg import ModelConfig

RETRYABLE_STATUS = frozenset({408, 429, 500, 502, 503, 504})
MAX_REASON = 160
# httpcore's pool scans every connection on each request (cost grows with pool size), so
# high concurrency is spread over several small clients instead of one large pool.
CONNECTIONS_PER_CLIENT = 8


def _short(text: str, secret: str | None) -> str:
    """One line, bounded, with the API key (if any) cut out."""
    text = " ".join(str(text).split())
    if secret:
        text = text.replace(secret, "[key]")
    return text if len(text) <= MAX_REASON else text[:MAX_REASON - 3] + "..."


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


def _error_message(data: Any) -> str:
    error = data.get("error") if isinstance(data, dict) else None
    if isinstance(error, dict):
        return str(error.get("message") or error.get("type") or "error")
    return str(error or "")


def _as_int(value: Any) -> int:
    return value if isinstance(value, int) and value >= 0 else 0


def parse_completion(content: bytes, secret: str | None = None) -> ModelResponse:
    """Turn a 200 response body into a ModelResponse.

    Raises:
        ModelCallError: not JSON, an `error` object, no choices or no message.
    """
    try:
        data = json.loads(content)
    except (ValueError, UnicodeDecodeError):
        raise ModelCallError("malformed response body (not JSON)") from None
    if not isinstance(data, dict):
        raise ModelCallError("malformed response body (not a JSON object)")
    if data.get("error"):
        raise ModelCallError(f"server returned an error: {_short(_error_message(data), secret)}")
    choices = data.get("choices")
    if not isinstance(choices, list) or not choices or not isinstance(choices[0], dict):
        raise ModelCallError("response has no choices")
    message = choices[0].get("message")
    if not isinstance(message, dict):
        raise ModelCallError("response choice has no message")
    text = message.get("content")
    if isinstance(text, list):  # some servers return content parts
        text = "".join(p.get("text", "") for p in text if isinstance(p, dict))
    text = text if isinstance(text, str) else ""
    reasoning = message.get("reasoning_content") or message.get("reasoning")
    if isinstance(reasoning, str) and reasoning:
        # Raw output is never lost: a server-side reasoning parser's text goes back in front.
        text = f"<think>{reasoning}</think>{text}"
    usage = data.get("usage") if isinstance(data.get("usage"), dict) else {}
    return ModelResponse(text=text, tokens_in=_as_int(usage.get("prompt_tokens")),
                         tokens_out=_as_int(usage.get("completion_tokens")),
                         truncated=choices[0].get("finish_reason") == "length")


@ADAPTERS.register("openai")
class OpenAIAdapter:
    """Chat completions over httpx.AsyncClient with retries and replica load balancing."""

    per_item = False

    def __init__(self, config: "ModelConfig", context: AdapterContext) -> None:
        if not config.model:
            raise context.config_error("model", "required for adapter 'openai' "
                                                "(the served model name)")
        if not config.base_urls:
            raise context.config_error("base_url", "required for adapter 'openai', "
                                                   "e.g. http://localhost:8000/v1")
        bad = [u for u in config.base_urls if not u.startswith(("http://", "https://"))]
        if bad:
            raise context.config_error("base_url", f"'{bad[0]}' must start with http(s)://")
        self.config = config
        self._urls = config.base_urls
        self._in_flight = [0] * len(self._urls)
        self._turn = 0
        self._key = config.api_key()
        self._policy = RetryPolicy(max_retries=config.max_retries, backoff_s=config.backoff_s)
        self._sleep = context.sleep
        self._jitter = random.Random()
        self._clients: "list[httpx.AsyncClient]" = []
        self._client_load: list[int] = []

    def identity(self) -> dict[str, Any]:
        """The served model name; URLs, key and concurrency do not change answers."""
        return {"model": self.config.model}

    def _open_clients(self) -> None:
        import httpx

        headers = {"Authorization": f"Bearer {self._key}"} if self._key else {}
        size = CONNECTIONS_PER_CLIENT
        count = -(-self.config.concurrency // size)
        limits = httpx.Limits(max_connections=size, max_keepalive_connections=size)
        tls = httpx.create_ssl_context()  # one CA bundle load, shared by every client
        self._clients = [httpx.AsyncClient(headers=headers, limits=limits, verify=tls,
                                           timeout=httpx.Timeout(self.config.timeout_s))
                         for _ in range(count)]
        self._client_load = [0] * count

    def _pick_client(self) -> int:
        # The least busy client never has a full pool while calls stay within concurrency.
        if not self._clients:
            self._open_clients()
        return min(range(len(self._clients)), key=self._client_load.__getitem__)

    def _pick_replica(self) -> int:
        count = len(self._urls)
        order = [(self._turn + i) % count for i in range(count)]
        chosen = min(order, key=lambda i: self._in_flight[i])
        self._turn = (chosen + 1) % count
        return chosen

    async def complete(self, request: ModelRequest) -> ModelResponse:
        """One chat completion, retried on 429/5xx/timeouts; raises ModelCallError."""
        body = {"model": self.config.model, "messages": build_messages(request),
                "max_tokens": request.max_tokens, "temperature": request.temperature}
        return await call_with_retries(lambda: self._attempt(body), self._policy,
                                       sleep=self._sleep, rng=self._jitter)

    async def _attempt(self, body: dict[str, Any]) -> ModelResponse:
        import httpx

        index, client = self._pick_replica(), self._pick_client()
        self._in_flight[index] += 1
        self._client_load[client] += 1
        try:
            reply = await self._clients[client].post(f"{self._urls[index]}/chat/completions",
                                                     json=body)
        except httpx.TimeoutException:
            raise RetryableError(f"timeout after {self.config.timeout_s:g}s") from None
        except httpx.RequestError as exc:  # connection, protocol, decoding errors
            raise RetryableError(f"connection error ({type(exc).__name__})") from None
        finally:
            self._in_flight[index] -= 1
            self._client_load[client] -= 1
        status = reply.status_code
        if status in RETRYABLE_STATUS:
            raise RetryableError(f"HTTP {status}",
                                 parse_retry_after(reply.headers.get("retry-after")))
        if status in (401, 403):
            hint = f" (check ${self.config.api_key_env})" if self.config.api_key_env else ""
            raise ModelCallError(f"HTTP {status}: not authorised{hint}")
        if status != 200:
            try:
                detail = _error_message(reply.json())
            except ValueError:
                detail = ""
            detail = _short(detail, self._key)
            raise ModelCallError(f"HTTP {status}" + (f": {detail}" if detail else ""))
        return parse_completion(reply.content, self._key)

    async def aclose(self) -> None:
        """Close the HTTP connection pools."""
        clients, self._clients, self._client_load = self._clients, [], []
        for client in clients:
            await client.aclose()
