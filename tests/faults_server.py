"""A fault-injecting OpenAI-compatible chat-completions server on 127.0.0.1 (real HTTP).

Which requests fail is a pure function of (seed, prompt text): a share `rate` of the
prompts gets one fault kind, for its first `fails` attempts, so a test knows in advance
what the server will do and the same seed gives the same run.

Fault kinds (`FAULTS`):
    429, 429_retry_after   HTTP 429 without / with `Retry-After: 0`
    500, 502, 503          server errors
    timeout                the reply comes after `hang_s` (longer than the client timeout)
    reset                  headers and half the body, then a TCP reset (SO_LINGER 0)
    badjson, nochoices, error200
                           a 200 whose body is not JSON / has `choices: []` / is an error
    slow                   a correct answer after `slow_s` (shorter than the client timeout)

Retryable faults last `fails` attempts, chosen from (1, 2, `persistent`); with
`persistent` above the client's attempts the first run gives up on that prompt and a later
run (whose attempts continue the count) gets the answer. A 200 without choices carries no
answer and is retried like a transport failure; the other 200-with-a-bad-body faults and
`slow` happen on the first attempt only.

Replicas: `fail_after=N` makes the server fail every request after the N-th, either with a
503 (`fail_mode="503"`) or by closing its listening socket and resetting open connections
(`fail_mode="close"`), as a crashed vLLM replica would.

Every request is logged (`server.log`): prompt, attempt number, fault (None = answered),
HTTP status (None for a reset).
"""

from __future__ import annotations

import hashlib
import json
import random
import socket
import struct
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

FAULTS = ("429", "429_retry_after", "500", "502", "503", "timeout", "reset", "badjson",
          "nochoices", "error200", "slow")
RETRYABLE = frozenset({"429", "429_retry_after", "500", "502", "503", "timeout", "reset",
                       "nochoices"})
ANSWERS = ("The answer is A.", "B", "yes", "No, it is not.", "I think the answer is C.", "3")


def answer_for(prompt: str) -> str:
    """The server's (fault-free) answer to `prompt`: fixed per prompt text."""
    digest = hashlib.sha256(prompt.encode("utf-8")).digest()
    return ANSWERS[digest[0] % len(ANSWERS)]


class _Server(ThreadingHTTPServer):
    request_queue_size = 1024  # a large listen backlog: hundreds of concurrent connects
    daemon_threads = True
    allow_reuse_address = True

    def handle_error(self, request: Any, client_address: Any) -> None:
        pass  # resets and clients that gave up are the point here, not noise


class FaultServer:
    """`with FaultServer(seed=1, rate=0.2) as server:`; `server.url` is the base URL (…/v1)."""

    def __init__(self, seed: int = 0, rate: float = 0.0, *, persistent: int = 3,
                 faults: tuple[str, ...] = FAULTS, hang_s: float = 1.0, slow_s: float = 0.2,
                 delay_s: float = 0.0, fail_after: int | None = None,
                 fail_mode: str = "503") -> None:
        if fail_mode not in ("503", "close"):
            raise ValueError("fail_mode must be '503' or 'close'")
        self.seed, self.rate, self.persistent, self.faults = seed, rate, persistent, faults
        self.hang_s, self.slow_s, self.delay_s = hang_s, slow_s, delay_s
        self.fail_after, self.fail_mode = fail_after, fail_mode
        self.log: list[dict[str, Any]] = []
        self.dead = False
        self._attempts: dict[str, int] = {}
        self._served = 0
        self._lock = threading.Lock()
        self._httpd = _Server(("127.0.0.1", 0), self._handler_class())
        self._port = self._httpd.server_address[1]
        self._thread = threading.Thread(target=self._httpd.serve_forever, args=(0.02,),
                                        daemon=True)
        self._closed = False

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self._port}/v1"

    def __enter__(self) -> "FaultServer":
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:
        """Stop listening (idempotent): new connections are refused from now on."""
        with self._lock:
            if self._closed:
                return
            self._closed = True
        if self._thread.is_alive():  # shutdown() waits for serve_forever, if it ever ran
            self._httpd.shutdown()
        self._httpd.server_close()

    def plan(self, prompt: str) -> tuple[str | None, int]:
        """(fault kind or None, attempts it lasts) for `prompt` under this seed."""
        rng = random.Random(f"{self.seed}\x00{prompt}")
        if rng.random() >= self.rate:
            return None, 0
        kind = rng.choice(self.faults)
        fails = rng.choice((1, 2, self.persistent)) if kind in RETRYABLE else 1
        return kind, fails

    def answered(self) -> dict[str, int]:
        """Prompt -> number of requests that got the answer (a 200 with choices)."""
        counts: dict[str, int] = {}
        with self._lock:
            for entry in self.log:
                if entry["fault"] in (None, "slow"):
                    counts[entry["prompt"]] = counts.get(entry["prompt"], 0) + 1
        return counts

    def _decide(self, prompt: str) -> tuple[str | None, int]:
        with self._lock:
            attempt = self._attempts.get(prompt, 0) + 1
            self._attempts[prompt] = attempt
            self._served += 1
            over = self.fail_after is not None and self._served > self.fail_after
        if over or self.dead:
            return ("down", attempt)
        kind, fails = self.plan(prompt)
        return (kind if kind is not None and attempt <= fails else None), attempt

    def _record(self, prompt: str, attempt: int, fault: str | None, status: int | None) -> None:
        with self._lock:
            self.log.append({"prompt": prompt, "attempt": attempt, "fault": fault,
                             "status": status})

    def _go_down(self) -> None:
        self.dead = True
        threading.Thread(target=self.close, daemon=True).start()

    def _handler_class(self) -> type[BaseHTTPRequestHandler]:
        server = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *args: Any) -> None:
                pass

            def finish(self) -> None:
                try:
                    super().finish()
                except OSError:
                    pass

            def _reset(self) -> None:
                self.close_connection = True
                try:
                    self.wfile.flush()
                    self.connection.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER,
                                               struct.pack("ii", 1, 0))
                    self.connection.close()
                except OSError:
                    pass

            def _send(self, status: int, payload: bytes, headers: dict[str, str]) -> None:
                try:
                    self.send_response(status)
                    self.send_header("Content-Type", "application/json")
                    self.send_header("Content-Length", str(len(payload)))
                    for key, value in headers.items():
                        self.send_header(key, value)
                    self.end_headers()
                    self.wfile.write(payload)
                except OSError:
                    self.close_connection = True

            def do_POST(self) -> None:
                length = int(self.headers.get("Content-Length", 0))
                body = json.loads(self.rfile.read(length))
                content = body["messages"][0]["content"]
                prompt = content if isinstance(content, str) else " ".join(
                    p.get("text", "") for p in content if p.get("type") == "text")
                fault, attempt = server._decide(prompt)
                if fault == "down":
                    server._record(prompt, attempt, "down", None if server.fail_mode ==
                                   "close" else 503)
                    if server.fail_mode == "close":
                        server._go_down()
                        self._reset()
                    else:
                        self._send(503, b'{"error": {"message": "replica unavailable"}}', {})
                    return
                if server.delay_s:
                    time.sleep(server.delay_s)
                status, headers, payload = server._reply(body, prompt, fault)
                server._record(prompt, attempt, fault, None if fault == "reset" else status)
                if fault == "timeout":
                    time.sleep(server.hang_s)
                elif fault == "slow":
                    time.sleep(server.slow_s)
                if fault == "reset":
                    try:
                        self.send_response(200)
                        self.send_header("Content-Type", "application/json")
                        self.send_header("Content-Length", str(len(payload)))
                        self.end_headers()
                        self.wfile.write(payload[:len(payload) // 2])
                    except OSError:
                        pass
                    self._reset()
                    return
                self._send(status, payload, headers)

        return Handler

    @staticmethod
    def _reply(body: dict[str, Any], prompt: str,
               fault: str | None) -> tuple[int, dict[str, str], bytes]:
        if fault == "429":
            return 429, {}, b'{"error": {"message": "rate limited"}}'
        if fault == "429_retry_after":
            return 429, {"Retry-After": "0"}, b'{"error": {"message": "rate limited"}}'
        if fault in ("500", "502", "503"):
            return int(fault), {}, b"upstream failure"
        if fault == "badjson":
            return 200, {}, b'{"choices": [{"message": {"content": "tr'
        if fault == "nochoices":
            return 200, {}, b'{"id": "x", "choices": []}'
        if fault == "error200":
            return 200, {}, b'{"error": {"message": "model overloaded", "type": "server"}}'
        reply = {"id": "x", "object": "chat.completion", "model": body.get("model"),
                 "choices": [{"index": 0, "finish_reason": "stop",
                              "message": {"role": "assistant", "content": answer_for(prompt)}}],
                 "usage": {"prompt_tokens": 100, "completion_tokens": 5}}
        return 200, {}, json.dumps(reply).encode()
