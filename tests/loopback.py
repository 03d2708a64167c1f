"""A threaded HTTP server on 127.0.0.1 for test doubles: start with `with Sub() as s:`,
`s.url` is its base URL (…/v1). Subclasses give `_handler()` (a BaseHTTPRequestHandler
class); client hang-ups are the point of many tests, not errors worth printing."""

from __future__ import annotations

import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any


class _Server(ThreadingHTTPServer):
    request_queue_size = 128
    daemon_threads = True

    def handle_error(self, request: Any, client_address: Any) -> None:
        pass


class LoopbackServer:
    """Base of a local test server: the listening socket, its thread and its URL."""

    prefix = "/v1"

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._httpd = _Server(("127.0.0.1", 0), self._handler())
        self._thread = threading.Thread(target=self._httpd.serve_forever, args=(0.02,),
                                        daemon=True)

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self._httpd.server_address[1]}{self.prefix}"

    def __enter__(self):
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._httpd.shutdown()
        self._httpd.server_close()

    def _handler(self) -> type[BaseHTTPRequestHandler]:
        raise NotImplementedError  # abstract: every server says how it answers
