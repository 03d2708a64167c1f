"""A real OpenAI-compatible `/v1/embeddings` server on 127.0.0.1 for the remote backend.

It answers with the bundled local model's vectors (so findings can be compared with the
local backend's), in reversed order with `index` fields (clients must sort by index).
`fail_after=N` turns it into a replica that dies after N answered requests: every later
connection is reset, as a crashed text-embeddings-inference pod would. A batch with a
text containing `[http-500]` is answered HTTP 500 (`server.failed` counts them).
"""

from __future__ import annotations

import json
import socket
import struct
from http.server import BaseHTTPRequestHandler
from typing import Any

from loopback import LoopbackServer


class FakeEmbeddings(LoopbackServer):
    """`with FakeEmbeddings() as server:`; `server.url` ends in /v1."""

    def __init__(self, *, fail_after: int | None = None, model: str = "fake-minilm") -> None:
        self.fail_after, self.model = fail_after, model
        self.answered = 0
        self.refused = 0
        self.failed = 0
        self.inputs: list[str] = []
        self.auth: list[str | None] = []
        super().__init__()

    def vectors_of(self, texts: list[str]) -> Any:
        """The vectors answered for `texts` (a row per text): the local model's."""
        from bench_kit.embed import encode

        return encode(texts)

    def _handler(self) -> type[BaseHTTPRequestHandler]:
        server = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args: Any) -> None:
                pass

            def do_POST(self) -> None:
                body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
                with server._lock:
                    dead = server.fail_after is not None and server.answered >= server.fail_after
                    if dead:
                        server.refused += 1
                if dead:  # reset the connection: no HTTP answer at all
                    self.connection.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER,
                                               struct.pack("ii", 1, 0))
                    self.connection.close()
                    return
                if self.path != "/v1/embeddings" or body.get("model") != server.model:
                    self._send(404, {"error": {"message": f"no model {body.get('model')}"}})
                    return
                if any("[http-500]" in text for text in body["input"]):
                    with server._lock:
                        server.failed += 1
                    self._send(500, {"error": {"message": "internal error"}})
                    return
                texts = body["input"]
                with server._lock:  # one encoder, one thread at a time
                    vectors = server.vectors_of(texts)
                    server.answered += 1
                    server.inputs.extend(texts)
                    server.auth.append(self.headers.get("Authorization"))
                data = [{"object": "embedding", "index": i, "embedding": vectors[i].tolist()}
                        for i in reversed(range(len(texts)))]
                self._send(200, {"object": "list", "data": data, "model": server.model})

            def _send(self, status: int, payload: dict) -> None:
                raw = json.dumps(payload).encode()
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(raw)))
                self.end_headers()
                self.wfile.write(raw)

        return Handler
