"""A hostile OpenAI-compatible server on 127.0.0.1: replies a model server should never
send, chosen by a `[hostile:NAME]` marker in the prompt.

    drip        headers at once, then one byte every `drip_s` (bounded: at most `drip_for_s`)
    redirect    307 to `redirect_to` (another local server) with the same body expected
    null        a 200 whose message content is null
    bigbody     a 200 of `big_bytes` bytes (a JSON string padded with spaces), written in chunks
    bigcontent  a valid 200 whose answer is `content_chars` characters long
    deep        a 200 whose JSON is nested 100,000 arrays deep (RecursionError in a parser)
    surrogate   a valid JSON 200 whose answer is a lone surrogate, `"\\ud800"`
    nulltext    a 200 whose content parts are `[{"type": "text", "text": null}]`
    waitlong, waitdate, waitnan, waitjunk
                a 429 every time, with `Retry-After` 999999999 s / a year-9999 date /
                `nan` / `soon` (`RETRY_AFTER`)
    gzipbomb    a 200 with `Content-Encoding: gzip` whose body inflates to `bomb_bytes`
                (about a thousandth of that on the wire)
    marks       a valid 200 whose answer is `MARKS` (200,000 combining marks)
    (none)      a normal answer, "The answer is B."

`bytes_sent[name]` counts what the server managed to write for each scenario.
"""

from __future__ import annotations

import json
import re
import time
import zlib
from collections import Counter
from http.server import BaseHTTPRequestHandler
from typing import Any

from loopback import LoopbackServer

ANSWER = "The answer is B."
MARKS = "a" + "\u0301\u0316" * 100_000  # 200,000 combining marks of two classes
_MARKER = re.compile(r"\[hostile:([a-z]+)\]")
RETRY_AFTER = {"waitlong": "999999999", "waitdate": "Fri, 31 Dec 9999 23:59:59 GMT",
               "waitnan": "nan", "waitjunk": "soon"}



class HostileServer(LoopbackServer):
    """`with HostileServer() as server:`; `server.url` is the base URL (…/v1)."""

    def __init__(self, *, drip_s: float = 0.5, drip_for_s: float = 20.0,
                 big_bytes: int = 50 * 1024 * 1024, content_chars: int = 5_000_000,
                 redirect_to: str | None = None, bomb_bytes: int = 1 << 30) -> None:
        self.drip_s, self.drip_for_s = drip_s, drip_for_s
        self.big_bytes, self.content_chars = big_bytes, content_chars
        self.redirect_to = redirect_to
        self.bomb_bytes = bomb_bytes
        self._bomb: bytes | None = None
        self.requests: Counter[str] = Counter()
        self.bytes_sent: Counter[str] = Counter()
        super().__init__()

    def bomb(self) -> bytes:
        """The gzip body of `gzipbomb` (made once: zeros compress about 1000:1)."""
        if self._bomb is None:
            packer, block = zlib.compressobj(6, zlib.DEFLATED, 16 + zlib.MAX_WBITS), \
                b"\0" * (1 << 24)
            parts = [packer.compress(block) for _ in range(self.bomb_bytes >> 24)]
            self._bomb = b"".join(parts) + packer.flush()
        return self._bomb

    def total_requests(self) -> int:
        with self._lock:
            return sum(self.requests.values())

    @staticmethod
    def reply(content: Any) -> bytes:
        return json.dumps({"id": "x", "object": "chat.completion", "choices": [
            {"index": 0, "finish_reason": "stop",
             "message": {"role": "assistant", "content": content}}],
            "usage": {"prompt_tokens": 10, "completion_tokens": 3}}).encode()

    def _handler(self) -> type[BaseHTTPRequestHandler]:
        server = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *args: Any) -> None:
                pass

            def _write(self, name: str, data: bytes) -> None:
                self.wfile.write(data)
                self.wfile.flush()
                with server._lock:
                    server.bytes_sent[name] += len(data)

            def _head(self, status: int, length: int, extra: dict[str, str] | None = None):
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(length))
                for key, value in (extra or {}).items():
                    self.send_header(key, value)
                self.end_headers()

            def do_POST(self) -> None:
                body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
                text = json.dumps(body.get("messages"))
                found = _MARKER.search(text)
                name = found.group(1) if found else "ok"
                with server._lock:
                    server.requests[name] += 1
                try:
                    self._serve(name)
                except OSError:  # the client hung up: what a bounded client does
                    pass

            def _serve(self, name: str) -> None:
                if name == "drip":
                    payload = server.reply(ANSWER)
                    self._head(200, len(payload))
                    end = time.monotonic() + server.drip_for_s
                    for byte in payload:
                        if time.monotonic() > end:
                            return
                        self._write(name, bytes([byte]))
                        time.sleep(server.drip_s)
                elif name in RETRY_AFTER:
                    payload = b'{"error": {"message": "slow down"}}'
                    self._head(429, len(payload), {"Retry-After": RETRY_AFTER[name]})
                    self._write(name, payload)
                elif name == "gzipbomb":
                    payload = server.bomb()
                    self._head(200, len(payload), {"Content-Encoding": "gzip"})
                    self._write(name, payload)
                elif name == "redirect":
                    self._head(307, 0, {"Location": f"{server.redirect_to}/chat/completions"})
                elif name == "null":
                    payload = server.reply(None)
                    self._head(200, len(payload))
                    self._write(name, payload)
                elif name == "bigbody":
                    head = b'{"choices": [{"message": {"content": "B"}}], "pad": "'
                    tail = b'"}'
                    pad = server.big_bytes - len(head) - len(tail)
                    self._head(200, server.big_bytes)
                    self._write(name, head)
                    chunk = b" " * (1024 * 1024)
                    while pad > 0:
                        self._write(name, chunk[:pad])
                        pad -= len(chunk)
                    self._write(name, tail)
                elif name in ("bigcontent", "deep", "surrogate", "nulltext", "marks"):
                    payload = {"bigcontent": lambda: server.reply("B" * server.content_chars),
                               "marks": lambda: server.reply(MARKS),
                               "deep": lambda: (b'{"choices": ' + b"[" * 100_000
                                                + b"]" * 100_000 + b"}"),
                               "surrogate": lambda: server.reply("\ud800"),  # ASCII \\ud800
                               "nulltext": lambda: server.reply([{"type": "text",
                                                                   "text": None}])}[name]()
                    self._head(200, len(payload))
                    self._write(name, payload)
                else:
                    payload = server.reply(ANSWER)
                    self._head(200, len(payload))
                    self._write(name, payload)

        return Handler
