"""What every HTTP model adapter shares: connection pools, replica load balancing, retries,
status handling and error messages that never carry the API key.

A subclass says only what differs between wire formats: the URL of a call, the auth
headers, the request body and how a 200 body becomes a `ModelResponse`. Several
`base_url`s are load-balanced: each attempt goes to the replica with the fewest requests
in flight (ties in round-robin order), and a retry may land on another replica. A replica
that fails (connection error, timeout, 5xx) rests for a cool-down that doubles per failure
and then gets one probe, so a dead replica's items move to the live ones.

A server's `Retry-After` (429, 503, ...) also closes a gate for the whole model: until it
passes, no new call of this model is sent (the calls already waiting to retry wait anyway),
so a rate limit slows the model's calls instead of being answered by more requests.
"""

from __future__ import annotations

import abc
import asyncio
import dataclasses
import json
import random
import time
from typing import TYPE_CHECKING, Any, Callable, TypeVar

from bench_kit.errors import ModelCallError
from bench_kit.models.adapters.contract import (
    AdapterContext,
    ModelRequest,
    ModelResponse,
)
from bench_kit.models.retry import (
    RetryableError,
    RetryPolicy,
    call_with_retries,
    parse_retry_after,
    wait_outside_slot,
)
from bench_kit.models.transport import TRANSPORTS, Transport

if TYPE_CHECKING:
    from bench_kit.models.config import ModelConfig

T = TypeVar("T")
RETRYABLE_STATUS = frozenset({408, 429, 500, 502, 503, 504, 529})
MAX_REASON = 160
# A failing replica's first rest (seconds); doubled per consecutive failure, capped.
REPLICA_COOLDOWN_S = 1.0
REPLICA_MAX_COOLDOWN_S = 30.0


def short_reason(text: str, secret: str | None) -> str:
    """One line, bounded, with the API key (if any) cut out."""
    text = " ".join(str(text).split())
    if secret:
        text = text.replace(secret, "[key]")
    return text if len(text) <= MAX_REASON else text[:MAX_REASON - 3] + "..."


def error_message(data: Any) -> str:
    """The message of an `{"error": ...}` body (OpenAI, Anthropic, Gemini and Ollama shapes)."""
    error = data.get("error") if isinstance(data, dict) else None
    if isinstance(error, dict):
        return str(error.get("message") or error.get("type") or error.get("status") or "error")
    return str(error or "")


def as_count(value: Any) -> int:
    """A token count from a usage field (0 when absent or malformed)."""
    return value if isinstance(value, int) and value >= 0 else 0


def load_body(content: bytes, secret: str | None) -> dict[str, Any]:
    """A 200 body as a JSON object.

    Raises:
        ModelCallError: not JSON, not an object, or an `error` object.
    """
    try:
        data = json.loads(content)
    except (ValueError, UnicodeDecodeError) as exc:
        raise ModelCallError("malformed response body (not JSON)") from exc
    except RecursionError as exc:  # JSON nested deeper than the parser's stack
        raise ModelCallError("malformed response body (JSON nested too deep)") from exc
    if not isinstance(data, dict):
        raise ModelCallError("malformed response body (not a JSON object)")
    if data.get("error"):
        raise ModelCallError(f"server returned an error: "
                             f"{short_reason(error_message(data), secret)}")
    return data


def no_answer(reason: str) -> RetryableError:
    """A 200 that carries no answer (null or missing content, no choices): retried like a
    transport failure, and never cached or scored as an empty answer."""
    return RetryableError(reason)


def cap_answer(response: ModelResponse, max_chars: int) -> ModelResponse:
    """`response` with its text cut to `max_chars` (`truncated`, full length in
    `meta.answer_chars`); unchanged when it fits."""
    if len(response.text) <= max_chars:
        return response
    meta = {**response.meta, "answer_chars": len(response.text)}
    return dataclasses.replace(response, text=response.text[:max_chars], truncated=True,
                               meta=meta)


class HttpClient(abc.ABC):
    """POSTs JSON bodies to one or more replicas, with retries and replica balancing; the
    base of the chat adapters and of the embeddings client (bench_kit/embed/remote.py)."""

    per_item = False
    wire = "http"
    example_url = "http://localhost:8000"
    needs_model = True

    def __init__(self, config: "ModelConfig", context: AdapterContext) -> None:
        if self.needs_model and not config.model:
            raise context.config_error("model", f"required for adapter '{config.adapter}' "
                                                f"(the served model name)")
        if not config.base_urls:
            raise context.config_error("base_url", f"required for adapter '{config.adapter}', "
                                                   f"e.g. {self.example_url}")
        bad = [u for u in config.base_urls if not u.startswith(("http://", "https://"))]
        if bad:
            raise context.config_error("base_url", f"'{bad[0]}' must start with http(s)://")
        self.config = config
        self._urls = config.base_urls
        self._in_flight = [0] * len(self._urls)
        self._failures = [0] * len(self._urls)
        self._down_until = [0.0] * len(self._urls)
        self._turn = 0
        self._gate_until = 0.0  # monotonic time before which no new call is sent
        self._key = config.api_key()
        self._policy = RetryPolicy(max_retries=config.max_retries, backoff_s=config.backoff_s,
                                   max_wait_s=config.max_wait_s)
        self._sleep = context.sleep
        self._jitter = random.Random()
        if config.http_client not in TRANSPORTS:
            raise context.config_error("http_client", f"unknown client '{config.http_client}' "
                                                      f"(known: {', '.join(TRANSPORTS)})")
        self._transport: Transport = TRANSPORTS[config.http_client](
            self.auth_headers(self._key), config.concurrency, config.timeout_s,
            config.max_response_bytes)

    def identity(self) -> dict[str, Any]:
        """The served model name; URLs, key and concurrency do not change answers."""
        return {"model": self.config.model}

    @abc.abstractmethod
    def endpoint(self, base_url: str) -> str:
        """The URL one call is POSTed to."""

    def auth_headers(self, key: str | None) -> dict[str, str]:
        """Headers that carry the API key (never the URL, so it cannot reach a log)."""
        return {"Authorization": f"Bearer {key}"} if key else {}

    def _pick_replica(self) -> int:
        count = len(self._urls)
        order = [(self._turn + i) % count for i in range(count)]
        now = time.monotonic()
        healthy = [i for i in order if self._down_until[i] <= now]
        if healthy:
            chosen = min(healthy, key=lambda i: self._in_flight[i])
        else:  # every replica is resting: try the one back soonest
            chosen = min(order, key=lambda i: self._down_until[i])
        if self._failures[chosen]:  # a recovering replica gets one probe at a time
            self._down_until[chosen] = now + self._cooldown(chosen)
        self._turn = (chosen + 1) % count
        return chosen

    def _cooldown(self, index: int) -> float:
        return min(REPLICA_MAX_COOLDOWN_S, REPLICA_COOLDOWN_S * 2 ** (self._failures[index] - 1))

    def _replica_failed(self, index: int) -> None:
        self._failures[index] = min(self._failures[index] + 1, 16)
        self._down_until[index] = time.monotonic() + self._cooldown(index)

    async def call(self, body: dict[str, Any], parse: Callable[[bytes], T]) -> T:
        """POST `body` to a replica with retries and failover; `parse` turns a 200 body into
        the result (it may raise RetryableError for a reply without an answer)."""
        gate = self._gate_until - time.monotonic()
        if gate > 0:  # the server asked this model to wait: a new call waits too
            await wait_outside_slot(gate, self._sleep or asyncio.sleep)
        return await call_with_retries(lambda: self._attempt(body, parse), self._policy,
                                       sleep=self._sleep, rng=self._jitter)

    async def _attempt(self, body: dict[str, Any], parse: Callable[[bytes], T]) -> T:
        index = self._pick_replica()
        self._in_flight[index] += 1
        try:
            status, headers, content = await self._transport.post(
                self.endpoint(self._urls[index]), body)
        except RetryableError:  # timeout or connection-level failure
            self._replica_failed(index)
            raise
        finally:
            self._in_flight[index] -= 1
        if status >= 500:
            self._replica_failed(index)
        else:
            self._failures[index], self._down_until[index] = 0, 0.0
        if status in RETRYABLE_STATUS:
            wait = parse_retry_after(headers.get("retry-after"))
            if wait is not None and wait <= self._policy.max_wait_s:
                self._gate_until = max(self._gate_until, time.monotonic() + wait)
            raise RetryableError(f"HTTP {status}", wait)
        if 300 <= status < 400:
            location = short_reason(headers.get("location") or "?", self._key)
            raise ModelCallError(f"HTTP {status}: redirect to {location} not followed (model "
                                 f"calls never follow redirects: set base_url to the final URL)")
        if status in (401, 403):
            hint = f" (check ${self.config.api_key_env})" if self.config.api_key_env else ""
            raise ModelCallError(f"HTTP {status}: not authorised{hint}")
        if status != 200:
            try:
                detail = error_message(json.loads(content))
            except (ValueError, UnicodeDecodeError):
                detail = ""
            detail = short_reason(detail, self._key)
            raise ModelCallError(f"HTTP {status}" + (f": {detail}" if detail else ""))
        return parse(content)

    async def aclose(self) -> None:
        """Close the HTTP connections."""
        await self._transport.aclose()


class HttpAdapter(HttpClient):
    """A chat adapter: one request body per item, one `ModelResponse` per 200 reply."""

    @abc.abstractmethod
    def build_body(self, request: ModelRequest) -> dict[str, Any]:
        """The JSON body of one call."""

    @abc.abstractmethod
    def parse(self, content: bytes) -> ModelResponse:
        """A 200 response body as a ModelResponse; raises ModelCallError if malformed."""

    async def complete(self, request: ModelRequest) -> ModelResponse:
        """One call, retried on 408/429/5xx/timeouts/connection errors; raises ModelCallError."""
        return await self.call(self.build_body(request), self._parse_answer)

    def _parse_answer(self, content: bytes) -> ModelResponse:
        try:
            response = self.parse(content)
        except (ModelCallError, RetryableError):
            raise
        except Exception as exc:  # any other surprise in one reply fails that call only
            raise ModelCallError(f"malformed response body ({type(exc).__name__} while "
                                 f"reading it)") from exc
        return cap_answer(response, self.config.max_answer_chars)
