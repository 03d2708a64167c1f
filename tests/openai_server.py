"""A real OpenAI-compatible chat-completions server on 127.0.0.1 for adapter and runner tests.

Responses are scripted by a marker in the prompt text, `[scenario:NAME]` or
`[scenario:NAME:ARG]`; every request (headers and JSON body) is recorded.

Scenarios: ok (default), 429 (first attempt 429 with Retry-After ARG), 500 (first attempt
500), 503 (always 503), badjson, nochoices, error200, length (finish_reason=length), 400 and
401 (their error message echoes the bearer token, as some servers do), slow (sleeps ARG s),
numbered (sleeps ARG s, then answers with the number of requests so far: no two alike).
Setting `server.down = True` makes every request a 503 until it is set back.
"""

from __future__ import annotations

import base64
import io
import json
import re
import threading
import time
from collections import Counter
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

ANSWER = "The answer is B."
_MARKER = re.compile(r"\[scenario:([a-z0-9]+)(?::([0-9.]+))?\]")


class _Server(ThreadingHTTPServer):
    request_queue_size = 256
    daemon_threads = True

    def handle_error(self, request: Any, client_address: Any) -> None:
        import sys

        # A client that timed out has closed its end: not a server fault worth printing.
        if not isinstance(sys.exc_info()[1], (BrokenPipeError, ConnectionResetError)):
            super().handle_error(request, client_address)


class FakeOpenAI:
    """Start with `with FakeOpenAI() as server:`; `server.url` is the base URL (…/v1)."""

    prefix = "/v1"

    def __init__(self) -> None:
        self.requests: list[dict[str, Any]] = []
        self.verdicts: list[str] = []
        self.down = False
        self.max_in_flight = 0
        self._in_flight = 0
        self._attempts: Counter[str] = Counter()
        self._lock = threading.Lock()
        self._httpd = _Server(("127.0.0.1", 0), self._handler_class())
        self._thread = threading.Thread(target=self._httpd.serve_forever, args=(0.02,),
                                        daemon=True)

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self._httpd.server_address[1]}{self.prefix}"

    def __enter__(self) -> "FakeOpenAI":
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._httpd.shutdown()
        self._httpd.server_close()

    def count(self) -> int:
        with self._lock:
            return len(self.requests)

    def images(self, index: int) -> list[Any]:
        """The images of recorded request `index`, decoded with Pillow."""
        from PIL import Image

        content = self.requests[index]["body"]["messages"][0]["content"]
        found = []
        for part in content if isinstance(content, list) else []:
            if part.get("type") == "image_url":
                header, data = part["image_url"]["url"].split(",", 1)
                found.append((header, Image.open(io.BytesIO(base64.b64decode(data)))))
        return found

    def prompt_of(self, body: dict[str, Any]) -> str:
        """The prompt text of a request body (where the scenario marker is)."""
        content = body["messages"][0]["content"]
        return content if isinstance(content, str) else " ".join(
            p.get("text", "") for p in content if p.get("type") == "text")

    def token_of(self, headers: dict[str, str]) -> str:
        """The API key the request carried."""
        return headers.get("authorization", "").removeprefix("Bearer ")

    def empty_reply(self) -> dict[str, Any]:
        """A 200 reply without an answer (`nochoices`)."""
        return {"choices": []}

    def ok_reply(self, body: dict[str, Any], scenario: str, text: str) -> dict[str, Any]:
        """A successful reply in this API's wire format (`length`: cut by the token limit;
        `think`: with a reasoning block)."""
        finish = "length" if scenario == "length" else "stop"
        message = {"role": "assistant", "content": text}
        if scenario == "think":
            message["reasoning_content"] = "Let me look."
        return {"id": "x", "object": "chat.completion", "model": body.get("model"),
                "choices": [{"index": 0, "finish_reason": finish, "message": message}],
                "usage": {"prompt_tokens": 1000, "completion_tokens": 10}}

    def wrong_request(self, path: str, headers: dict[str, str],
                      body: dict[str, Any]) -> str | None:
        """Why the real API would reject this request (wrong path, missing header), or None."""
        return None if path == f"{self.prefix}/chat/completions" else f"no route {path}"

    def _respond(self, body: dict[str, Any], headers: dict[str, str],
                 path: str = "") -> tuple[int, dict, bytes]:
        wrong = self.wrong_request(path, headers, body)
        if wrong:
            return 404, {}, json.dumps({"error": {"message": wrong}}).encode()
        prompt = self.prompt_of(body)
        match = _MARKER.search(prompt)
        scenario, arg = (match.group(1), match.group(2)) if match else ("ok", None)
        with self._lock:
            self._attempts[prompt] += 1
            attempt = self._attempts[prompt]
        token = self.token_of(headers)
        if self.down or scenario == "503":
            return 503, {}, b'{"error": {"message": "unavailable"}}'
        if scenario == "429" and attempt == 1:
            return 429, {"Retry-After": arg or "0"}, b'{"error": {"message": "slow down"}}'
        if scenario == "500" and attempt == 1:
            return 500, {}, b"internal error"
        if scenario in ("400", "401"):
            message = f"Incorrect API key provided: {token}"
            return int(scenario), {}, json.dumps({"error": {"message": message}}).encode()
        if scenario == "badjson":
            return 200, {}, b"{not json"
        if scenario == "nochoices":
            return 200, {}, json.dumps(self.empty_reply()).encode()
        if scenario == "error200":
            return 200, {}, b'{"error": {"message": "model overloaded"}}'
        if scenario in ("slow", "numbered"):
            time.sleep(float(arg or 1))
        if scenario == "numbered":  # every answer differs: a second call shows
            with self._lock:
                text = f"{ANSWER} (request {len(self.requests)})"
            return 200, {}, json.dumps(self.ok_reply(body, "ok", text)).encode()
        if scenario == "verdict":  # a judge reply scripted by the test (see `verdicts`)
            with self._lock:
                text = self.verdicts.pop(0) if self.verdicts else ANSWER
            return 200, {}, json.dumps(self.ok_reply(body, "ok", text)).encode()
        return 200, {}, json.dumps(self.ok_reply(body, scenario, ANSWER)).encode()

    def _handler_class(self) -> type[BaseHTTPRequestHandler]:
        server = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *args: Any) -> None:
                pass

            def do_POST(self) -> None:
                length = int(self.headers.get("Content-Length", 0))
                body = json.loads(self.rfile.read(length))
                headers = {k.lower(): v for k, v in self.headers.items()}
                with server._lock:
                    server.requests.append({"path": self.path, "headers": headers,
                                            "body": body, "at": time.monotonic()})
                    server._in_flight += 1
                    server.max_in_flight = max(server.max_in_flight, server._in_flight)
                try:
                    status, extra, payload = server._respond(body, headers, self.path)
                finally:
                    with server._lock:
                        server._in_flight -= 1
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(payload)))
                for key, value in extra.items():
                    self.send_header(key, value)
                self.end_headers()
                self.wfile.write(payload)

        return Handler


def make_adapter(kind: str, urls, *, key_env: str | None = None, sleeps: list | None = None,
                 **settings):
    """An adapter of `kind` for `urls` with instant backoff; sleeps are recorded, not slept."""
    from bench_kit.models.adapters import build_adapter
    from bench_kit.models.config import ModelConfig

    config = ModelConfig(adapter=kind, model="vlm-test", base_url=urls, api_key_env=key_env,
                         backoff_s=0.0, **settings)

    async def record_sleep(seconds: float) -> None:
        if sleeps is not None:
            sleeps.append(seconds)

    return build_adapter(config, name="vlm", sleep=record_sleep)


def complete_once(adapter, prompt: str = "What is it?", images=()):
    """Run one mc request through `adapter` and close it."""
    import asyncio

    from bench_kit.models.adapters import ModelRequest

    request = ModelRequest(prompt=prompt, images=list(images), task="mc", question=prompt,
                           max_tokens=64, temperature=0.0)

    async def go():
        try:
            return await adapter.complete(request)
        finally:
            await adapter.aclose()

    return asyncio.run(go())
