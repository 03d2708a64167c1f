"""The HTTP transports' documented rules (bench_kit/models/transport.py), each on its
boundary: the body cap (exactly at the limit vs one byte over), the encodings asked for,
the least-busy httpx pool, redirects, the deadline, proxies read once per URL, and the CA
bundle. A real asyncio HTTP server on 127.0.0.1 answers; expected values are worked out
by hand beside each case."""

from __future__ import annotations

import asyncio
import gzip
import ssl
import zlib
from typing import Any, AsyncIterator

import pytest

from bench_kit.errors import ModelCallError
from bench_kit.models import transport as tr
from bench_kit.models.retry import RetryableError


async def _chunks(*parts: bytes) -> AsyncIterator[bytes]:
    for part in parts:
        yield part


def _run(coro: Any) -> Any:
    return asyncio.run(coro)


# --- the body cap and the encodings ---------------------------------------------------------


def test_the_cap_allows_exactly_the_limit_and_stops_one_byte_over():
    assert _run(tr.read_capped(_chunks(b"ab", b"cd"), 4)) == b"abcd"
    with pytest.raises(tr.ResponseTooLarge) as raised:
        _run(tr.read_capped(_chunks(b"ab", b"cde"), 4))
    assert str(raised.value) == ("response body larger than max_response_bytes (4 bytes); "
                                 "not read further")
    with pytest.raises(tr.ResponseTooLarge, match=r"\(1,000 bytes\)"):
        _run(tr.read_capped(_chunks(b"x" * 1001), 1000))


def test_the_cap_stops_before_reading_the_rest():
    read: list[bytes] = []

    async def endless() -> AsyncIterator[bytes]:
        for _ in range(100):
            read.append(b"x" * 10)
            yield b"x" * 10
    with pytest.raises(tr.ResponseTooLarge):
        _run(tr.read_capped(endless(), 25))
    assert len(read) == 3   # 10, 20, 30 > 25: the third chunk is the last one read


BODY = b'{"answer": "' + b"a" * 200_000 + b'"}'   # 200,014 bytes, compresses well


def _raw_deflate(data: bytes) -> bytes:
    packer = zlib.compressobj(wbits=-zlib.MAX_WBITS)   # no zlib header, as some servers send
    return packer.compress(data) + packer.flush()


@pytest.mark.parametrize("encoding, data", [
    ("", BODY),
    ("identity", BODY),
    ("gzip", gzip.compress(BODY)),
    ("GZIP", gzip.compress(BODY)),
    ("x-gzip", gzip.compress(BODY)),
    ("identity, gzip", gzip.compress(BODY)),
    ("deflate", zlib.compress(BODY)),       # zlib-wrapped, as the standard says
    ("deflate", _raw_deflate(BODY)),        # raw
])
def test_read_decoded_inflates_what_was_asked_for(encoding, data):
    # the header test reads the first chunk: two bytes, exactly what it needs
    parts = [data[:2], data[2:]]
    assert _run(tr.read_decoded(_chunks(*parts), encoding, len(BODY))) == BODY


def test_the_cap_counts_inflated_bytes():
    packed = gzip.compress(BODY)
    assert len(packed) < 1000
    with pytest.raises(tr.ResponseTooLarge):
        _run(tr.read_decoded(_chunks(packed), "gzip", len(BODY) - 1))


@pytest.mark.parametrize("encoding", ["br", "gzip, br", "gzip, deflate", "compress"])
def test_encodings_not_asked_for_are_errors(encoding):
    with pytest.raises(ModelCallError) as raised:
        _run(tr.read_decoded(_chunks(b"x"), encoding, 100))
    assert not isinstance(raised.value, RetryableError)
    assert str(raised.value) == (f"response Content-Encoding '{encoding}' not supported "
                                 "(asked for gzip, deflate)")


def test_corrupt_compressed_data_is_a_retryable_connection_error():
    with pytest.raises(RetryableError, match=r"^connection error \(DecodingError\)$"):
        _run(tr.read_decoded(_chunks(b"this is not gzip"), "gzip", 100))


def test_zlib_header_rule():
    # RFC 1950: CMF 0x78 (method 8, 32 KiB window) with FLG 0x9c: 0x789c = 30876 = 31 * 996
    assert tr._zlib_header(b"\x78\x9c") and tr._zlib_header(zlib.compress(b"x"))
    assert not tr._zlib_header(b"\x78\x9d")      # check bits wrong: 30877 % 31 = 1
    assert not tr._zlib_header(b"\x79\x9c")      # method 9
    # 0x88 0x1c: method 8, 0x881c = 34844 = 31 * 1124, but CINFO 8 (a 64 KiB window, which
    # RFC 1950 forbids): not a header, so read as raw deflate
    assert not tr._zlib_header(b"\x88\x1c")
    # 0x08 0x1d: method 8 and 0x081d = 2077 = 31 * 67: a header
    assert tr._zlib_header(b"\x08\x1d")


def test_inflation_is_bounded_per_step():
    packed = zlib.compress(b"\0" * (5 * tr.CHUNK_BYTES))

    async def pieces() -> list[int]:
        return [len(p) async for p in tr._inflate(_chunks(packed), gzip=False)]
    sizes = _run(pieces())
    assert max(sizes) == tr.CHUNK_BYTES and sum(sizes) == 5 * tr.CHUNK_BYTES


@pytest.mark.parametrize("packed", [zlib.compress(BODY), _raw_deflate(BODY)],
                         ids=["zlib-wrapped", "raw"])
@pytest.mark.parametrize("first", [[1], [1, 1], [1, 2]], ids=["1", "1-1", "1-2"])
def test_deflate_is_told_zlib_or_raw_on_its_first_two_bytes_however_chunked(packed, first):
    # the kind is read on the first two bytes of the body, not of its first chunk: a server
    # that sends one byte first (or one and one) is read the same as one that sends all
    cuts = [sum(first[:k + 1]) for k in range(len(first))]
    parts = [packed[a:b] for a, b in zip([0, *cuts], [*cuts, len(packed)])]
    assert b"".join(parts) == packed and len(parts[0]) == 1
    assert _run(tr.read_decoded(_chunks(*parts), "deflate", len(BODY))) == BODY


def test_deflate_bodies_of_two_bytes_or_fewer():
    # raw deflate of nothing is exactly two bytes: 0x03 0x00 (a final fixed-Huffman block
    # holding only its end code, RFC 1951 3.2.6); its two bytes suffice to tell its kind
    assert _raw_deflate(b"") == b"\x03\x00"
    assert _run(tr.read_decoded(_chunks(b"\x03\x00"), "deflate", 10)) == b""
    assert _run(tr.read_decoded(_chunks(b"\x03", b"\x00"), "deflate", 10)) == b""
    # an empty body (a 204, a HEAD) inflates to nothing, gzip or deflate
    assert _run(tr.read_decoded(_chunks(), "deflate", 10)) == b""
    assert _run(tr.read_decoded(_chunks(), "gzip", 10)) == b""
    # one byte is no deflate stream (the shortest, raw, is two): cut short, and the cause
    # kept in the chain (what --debug prints) says so
    with pytest.raises(RetryableError, match=r"^connection error \(DecodingError\)$") as raised:
        _run(tr.read_decoded(_chunks(b"\x78"), "deflate", 10))
    assert str(raised.value.__cause__) == "compressed body ends before its stream does"


def test_gzip_means_the_gzip_wrapper():
    # a body sent as gzip that is zlib-wrapped is corrupt (what httpx's own decoder says:
    # a gzip member starts with 0x1f 0x8b, RFC 1952 2.3.1), not guessed at
    with pytest.raises(RetryableError, match=r"^connection error \(DecodingError\)$"):
        _run(tr.read_decoded(_chunks(zlib.compress(BODY)), "gzip", len(BODY)))


# --- a real server --------------------------------------------------------------------------


class Server:
    """HTTP/1.1 on 127.0.0.1: records each request's headers; `gate` holds replies."""

    def __init__(self, status: int = 200, headers: dict[str, str] | None = None,
                 body: bytes = b"{}", delay: float = 0.0, drip: float = 0.0,
                 tls: ssl.SSLContext | None = None) -> None:
        self.status, self.reply_headers, self.body, self.delay = status, headers or {}, body, delay
        self.drip = drip   # seconds between the body's bytes (0: all at once)
        self.tls = tls     # HTTPS with this server context, else plain HTTP
        self.requests: list[dict[str, str]] = []
        self.header_lines: list[list[str]] = []   # each request's header lines as sent
        self.gate = asyncio.Event()
        self.gate.set()
        self.arrived = 0

    async def _handle(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            while True:
                head = await reader.readuntil(b"\r\n\r\n")
                lines = head.decode().split("\r\n")
                headers = {k.lower(): v.strip() for k, v in
                           (line.split(":", 1) for line in lines[1:] if ":" in line)}
                await reader.readexactly(int(headers.get("content-length", "0")))
                self.requests.append(headers)
                self.header_lines.append(lines[1:])
                self.arrived += 1
                await self.gate.wait()
                if self.delay:
                    await asyncio.sleep(self.delay)
                extra = "".join(f"{k}: {v}\r\n" for k, v in self.reply_headers.items())
                writer.write(f"HTTP/1.1 {self.status} X\r\nContent-Length: {len(self.body)}\r\n"
                             f"{extra}\r\n".encode() + (b"" if self.drip else self.body))
                await writer.drain()
                for k in range(len(self.body)) if self.drip else ():
                    await asyncio.sleep(self.drip)
                    writer.write(self.body[k:k + 1])
                    await writer.drain()
        except (asyncio.IncompleteReadError, ConnectionError):
            pass
        finally:
            writer.close()

    async def __aenter__(self) -> str:
        self._server = await asyncio.start_server(self._handle, "127.0.0.1", 0, ssl=self.tls)
        port = self._server.sockets[0].getsockname()[1]
        return f"{'https' if self.tls else 'http'}://127.0.0.1:{port}/v1"

    async def __aexit__(self, *exc: object) -> None:
        self._server.close()


CLIENTS = ["httpx", "aiohttp"]


@pytest.fixture(autouse=True)
def _no_proxy(monkeypatch):
    for name in ("HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY", "http_proxy", "https_proxy",
                 "all_proxy"):
        monkeypatch.delenv(name, raising=False)


def _post_once(client: str, server: Server, headers: dict[str, str] | None = None,
               timeout_s: float = 5.0, **kw: Any) -> tuple[int, Any, bytes]:
    """One POST through a fresh transport of `client` to `server`, closed afterwards."""
    async def call():
        async with server as url:
            transport = tr.TRANSPORTS[client](headers or {}, 4, timeout_s, **kw)
            try:
                return await transport.post(url, {"q": 1})
            finally:
                await transport.aclose()
    return _run(call())


@pytest.mark.parametrize("client", CLIENTS)
def test_a_post_sends_the_headers_and_asks_for_gzip_and_deflate(client):
    server = Server(headers={"Content-Encoding": "gzip", "X-Test": "1"},
                    body=gzip.compress(b'{"ok": true}'))
    status, headers, body = _post_once(client, server, {"Authorization": "Bearer k"})
    assert status == 200 and body == b'{"ok": true}' and headers["x-test"] == "1"
    [request] = server.requests
    assert request["accept-encoding"] == "gzip, deflate"
    assert request["authorization"] == "Bearer k"


@pytest.mark.parametrize("client", CLIENTS)
def test_a_redirect_is_returned_not_followed(client):
    server = Server(status=302, headers={"Location": "/elsewhere"}, body=b"")
    status, headers, _ = _post_once(client, server)
    assert status == 302 and headers["location"] == "/elsewhere"
    assert len(server.requests) == 1


@pytest.mark.parametrize("client", CLIENTS)
def test_the_deadline_covers_the_whole_attempt(client):
    with pytest.raises(RetryableError, match=r"^timeout after 0.25s$"):
        _post_once(client, Server(delay=2.0), timeout_s=0.25)


@pytest.mark.parametrize("client", CLIENTS)
def test_a_dripping_body_cannot_outlast_the_deadline(client):
    # a byte every 0.1 s for 1.2 s: no read waits 0.4 s, the whole attempt does
    with pytest.raises(RetryableError, match=r"^timeout after 0.4s$"):
        _post_once(client, Server(body=b"x" * 12, drip=0.1), timeout_s=0.4)


@pytest.fixture
def _quick_library_timeouts(monkeypatch):
    """The clients' own default timeouts cut to 0.2 s (httpx: 5 s per read; aiohttp: 300 s
    in all, 30 s to connect), so that a test can see whether they apply in a second."""
    import aiohttp
    import aiohttp.client
    import httpx

    monkeypatch.setitem(httpx.AsyncClient.__init__.__kwdefaults__, "timeout",
                        httpx.Timeout(0.2))
    monkeypatch.setattr(aiohttp.client, "DEFAULT_TIMEOUT", aiohttp.ClientTimeout(total=0.2))


@pytest.mark.parametrize("client", CLIENTS)
def test_timeout_s_is_the_one_deadline(client, _quick_library_timeouts):
    # a reply after 0.6 s is read under a 5 s deadline, though the library's own timeout
    # (0.2 s here) would have cut it: the clients' timeouts are off, not left at defaults
    assert _post_once(client, Server(delay=0.6), timeout_s=5.0)[0] == 200


@pytest.mark.parametrize("client", CLIENTS)
def test_only_gzip_and_deflate_are_asked_for_whatever_the_library_decodes(client, monkeypatch):
    # httpx asks for br and zstd when brotli / zstandard are installed, aiohttp too: with
    # those defaults in place, the request still asks for what read_decoded inflates, once
    import aiohttp
    import httpx._client
    from aiohttp import hdrs

    more = "gzip, deflate, br, zstd"
    monkeypatch.setattr(httpx._client, "ACCEPT_ENCODING", more)
    monkeypatch.setitem(aiohttp.ClientRequest.DEFAULT_HEADERS, hdrs.ACCEPT_ENCODING, more)
    server = Server()
    _post_once(client, server)
    [lines] = server.header_lines
    asked = [line.split(":", 1)[1].strip() for line in lines
             if line.split(":", 1)[0].strip().lower() == "accept-encoding"]
    assert asked == ["gzip, deflate"]


def test_aclose_closes_the_aiohttp_session():
    async def call():
        async with Server() as url:
            transport = tr.AiohttpTransport({}, 4, 5.0)
            await transport.post(url, {})
            session = transport._session
            await transport.aclose()
            return session.closed, transport._session
    assert _run(call()) == (True, None)


@pytest.mark.parametrize("client", CLIENTS)
def test_the_body_cap_applies_to_a_reply(client):
    assert _post_once(client, Server(body=b"x" * 101), max_response_bytes=101)[2] == b"x" * 101
    with pytest.raises(tr.ResponseTooLarge):
        _post_once(client, Server(body=b"x" * 101), max_response_bytes=100)


@pytest.mark.parametrize("concurrency, pools", [(8, 1), (9, 2), (16, 2), (17, 3)])
def test_httpx_opens_one_pool_per_8_connections(concurrency, pools):
    async def call():
        async with Server() as url:
            transport = tr.HttpxTransport({}, concurrency, 5.0)
            await transport.post(url, {})
            count = len(transport._clients)
            await transport.aclose()
            return count, transport._clients
    assert _run(call()) == (pools, [])


def test_httpx_sends_each_call_to_the_least_busy_pool():
    """Concurrency 24: three pools. Calls held by the server fill the pools one each, in
    index order (ties go to the first); a fourth joins pool 0; when calls end, the load
    falls back to 0 everywhere."""
    server = Server()
    server.gate.clear()

    async def call():
        async with server as url:
            transport = tr.HttpxTransport({}, 24, 10.0)
            loads = []
            tasks = []
            for expected in (1, 2, 3, 4):
                tasks.append(asyncio.create_task(transport.post(url, {})))
                while server.arrived < expected:
                    await asyncio.sleep(0.01)
                loads.append(list(transport._load))
            server.gate.set()
            await asyncio.gather(*tasks)
            loads.append(list(transport._load))
            await transport.aclose()
            return loads
    assert _run(call()) == [[1, 0, 0], [1, 1, 0], [1, 1, 1], [2, 1, 1], [0, 0, 0]]


@pytest.mark.parametrize("client", CLIENTS)
def test_connections_are_capped_at_the_concurrency(client):
    """Concurrency 8 (one httpx pool of 8; an aiohttp connector of 8): of 10 calls at once,
    8 reach the server and 2 wait for a free connection; all 10 end once it answers."""
    server = Server()
    server.gate.clear()

    async def call():
        async with server as url:
            transport = tr.TRANSPORTS[client]({}, 8, 10.0)
            tasks = [asyncio.create_task(transport.post(url, {})) for _ in range(10)]
            while server.arrived < 8:
                await asyncio.sleep(0.01)
            await asyncio.sleep(0.3)   # time for a ninth call to arrive, if it could
            held = server.arrived
            server.gate.set()
            replies = await asyncio.gather(*tasks)
            await transport.aclose()
            return held, [status for status, _, _ in replies]
    assert _run(call()) == (8, [200] * 10)


def test_httpx_frees_a_pool_slot_when_a_call_fails():
    async def call():
        async with Server(delay=2.0) as url:
            transport = tr.HttpxTransport({}, 16, 0.2)
            with pytest.raises(RetryableError):
                await transport.post(url, {})
            load = list(transport._load)
            await transport.aclose()
            return load
    assert _run(call()) == [0, 0]


# --- proxies and certificates ---------------------------------------------------------------


def test_aiohttp_reads_the_proxy_once_per_url(monkeypatch):
    monkeypatch.setenv("HTTP_PROXY", "http://proxy.example:3128")
    monkeypatch.setenv("NO_PROXY", "internal.example")
    transport = tr.AiohttpTransport({}, 4, 5.0)
    assert transport._proxy("http://api.example/v1") == "http://proxy.example:3128"
    assert transport._proxy("http://internal.example/v1") is None      # bypassed
    assert transport._proxy("https://api.example/v1") is None          # no HTTPS_PROXY
    monkeypatch.setenv("HTTP_PROXY", "http://other.example:8080")
    assert transport._proxy("http://api.example/v1") == "http://proxy.example:3128"  # cached
    assert tr.AiohttpTransport({}, 4, 5.0)._proxy("http://api.example/v1") == \
        "http://other.example:8080"


def test_aiohttp_trusts_ssl_cert_file_else_certifi(monkeypatch, tmp_path):
    from test_connection_failures import _self_signed

    cert, _ = _self_signed(tmp_path)
    make = tr.tls_context.__wrapped__
    monkeypatch.setenv("SSL_CERT_FILE", str(cert))
    (tmp_path / "unused").mkdir()  # an empty folder (one that is missing is a ConfigError)
    monkeypatch.setenv("SSL_CERT_DIR", str(tmp_path / "unused"))
    # the file's one certificate, and nothing from the directory or certifi
    assert make().cert_store_stats()["x509"] == 1
    monkeypatch.delenv("SSL_CERT_FILE")
    # a directory is read lazily (a certificate is loaded when a handshake needs it):
    # nothing in the store yet, so not certifi's bundle either
    assert make().cert_store_stats()["x509"] == 0
    monkeypatch.delenv("SSL_CERT_DIR")
    assert make().cert_store_stats()["x509_ca"] > 50     # certifi's bundle
