"""How the transports read a compressed reply (bench_kit/models/transport.py): a body cut
short is a decoding error, the same for gzip and deflate; a gzip body of several members is
read whole, bytes after the stream are a decoding error, and the body is read to its end
(so calls reuse one connection); only http(s) proxies; repeated Content-Encoding headers are read the same by both clients; `ALL_PROXY` is
honoured by both. Real servers on 127.0.0.1; expected values worked out by hand."""

from __future__ import annotations

import asyncio
import gzip
import inspect
import zlib
from typing import Any, AsyncIterator

import pytest
from test_transport_boundaries import (
    BODY,
    CLIENTS,
    Server,
    _chunks,
    _no_proxy,  # noqa: F401 (autouse: no proxy set)
    _post_once,
    _raw_deflate,
    _run,
)

from bench_kit.errors import ConfigError, ModelCallError
from bench_kit.models import transport as tr
from bench_kit.models.retry import RetryableError

PACKED = {"gzip": gzip.compress(BODY), "zlib-wrapped": zlib.compress(BODY),
          "raw": _raw_deflate(BODY)}
CUT_SHORT = r"^connection error \(DecodingError\)$"


def _encoding(kind: str) -> str:
    return "gzip" if kind == "gzip" else "deflate"


@pytest.mark.parametrize("kind", list(PACKED))
@pytest.mark.parametrize("cut", ["1", "2", "half", "all-but-1"])
def test_a_body_cut_short_is_a_decoding_error(kind, cut):
    # every prefix of a stream is short of its end: one byte, two (enough to tell deflate's
    # kind), half, all but the last byte (gzip: a byte of the length trailer; zlib: of the
    # Adler-32; raw: of the last block). The whole body reads as BODY.
    packed = PACKED[kind]
    size = {"1": 1, "2": 2, "half": len(packed) // 2, "all-but-1": len(packed) - 1}[cut]
    assert _run(tr.read_decoded(_chunks(packed), _encoding(kind), len(BODY))) == BODY
    with pytest.raises(RetryableError, match=CUT_SHORT) as raised:
        _run(tr.read_decoded(_chunks(packed[:size]), _encoding(kind), len(BODY)))
    assert str(raised.value.__cause__) == "compressed body ends before its stream does"


# two gzip members (RFC 1952: a gzip body may hold several) of 20 and 15 bytes, 40 and
# 35 bytes packed
FIRST, SECOND = b'{"answer": "part one', b' and part two"}'
MEMBERS = gzip.compress(FIRST, mtime=0) + gzip.compress(SECOND, mtime=0)


@pytest.mark.parametrize("split", [0, 10, 39, 40, 41, 60])
def test_a_gzip_body_of_several_members_is_read_whole(split):
    # split: where the network cuts the body (40: at the members' boundary)
    parts = (MEMBERS[:split], MEMBERS[split:])
    assert _run(tr.read_decoded(_chunks(*parts), "gzip", 35)) == FIRST + SECOND
    # the cap counts the members' sum: 20 + 15 = 35 bytes
    with pytest.raises(tr.ResponseTooLarge):
        _run(tr.read_decoded(_chunks(*parts), "gzip", 34))


# (encoding, body, the zlib.error kept as the cause): what follows a gzip member is read
# as the next member, so zlib itself rejects garbage and zero padding as a gzip header
ENDS = "compressed body ends before its stream does"
HEADER = "Error -3 while decompressing data: incorrect header check"
AFTER = "bytes after the end of the deflate stream"
AFTER_THE_STREAM = {
    "gzip, a second member cut": ("gzip", MEMBERS[:60], ENDS),
    "gzip, garbage": ("gzip", PACKED["gzip"] + b"garbage", HEADER),
    "gzip, zero padding": ("gzip", PACKED["gzip"] + b"\0" * 8, HEADER),
    "gzip, one byte": ("gzip", PACKED["gzip"] + b"\x1f", ENDS),
    "zlib-wrapped, a byte": ("deflate", PACKED["zlib-wrapped"] + b"x", AFTER),
    "raw, a second stream": ("deflate", PACKED["raw"] + PACKED["raw"], AFTER),
}


@pytest.mark.parametrize("case", list(AFTER_THE_STREAM))
def test_bytes_after_the_stream_are_a_decoding_error(case):
    encoding, body, reason = AFTER_THE_STREAM[case]
    with pytest.raises(RetryableError, match=CUT_SHORT) as raised:
        _run(tr.read_decoded(_chunks(body), encoding, len(BODY)))
    assert str(raised.value.__cause__) == reason


@pytest.mark.parametrize("kind", list(PACKED))
def test_the_body_is_read_to_its_end(kind):
    # the parts after the stream's end (empty ones, as a late chunked terminator gives) are
    # all asked for: only then does a client hand the connection back to its pool
    pulled: list[bytes] = []

    async def parts() -> AsyncIterator[bytes]:
        for part in (PACKED[kind], b"", b""):
            pulled.append(part)
            yield part
    assert _run(tr.read_decoded(parts(), _encoding(kind), len(BODY))) == BODY
    assert pulled == [PACKED[kind], b"", b""]


class CountingServer:
    """HTTP/1.1 on 127.0.0.1 that counts its connections and answers every request on a
    connection with `segments`, written `pause` seconds apart."""

    def __init__(self, segments: list[bytes], pause: float = 0.0) -> None:
        self.segments, self.pause, self.connections = segments, pause, 0

    async def _handle(self, reader: Any, writer: Any) -> None:
        self.connections += 1
        try:
            while True:
                head = (await reader.readuntil(b"\r\n\r\n")).decode().lower()
                await reader.readexactly(int(head.split("content-length:")[1].split()[0]))
                for index, segment in enumerate(self.segments):
                    if index:
                        await asyncio.sleep(self.pause)
                    writer.write(segment)
                    await writer.drain()
        except (asyncio.IncompleteReadError, ConnectionError):
            pass
        finally:
            writer.close()

    async def calls(self, client: str, count: int) -> list[bytes]:
        server = await asyncio.start_server(self._handle, "127.0.0.1", 0)
        url = f"http://127.0.0.1:{server.sockets[0].getsockname()[1]}/v1"
        transport = tr.TRANSPORTS[client]({}, 1, 5.0)
        try:
            return [(await transport.post(url, {"q": 1}))[2] for _ in range(count)]
        finally:
            await transport.aclose()
            server.close()


SMALL = gzip.compress(b'{"answer": "yes"}', mtime=0)
# one stored block: 10 (header) + 5 (block header) + 65,513 + 8 (trailer) = 65,536 bytes,
# so the stream ends exactly at the end of a CHUNK_BYTES read
STORED = gzip.compress(b"x" * 65_513, compresslevel=0, mtime=0)
KEEP_ALIVE = {
    # the chunked terminator comes 50 ms after the gzip stream has ended
    "gzip chunked, late terminator": (
        [b"HTTP/1.1 200 OK\r\nContent-Encoding: gzip\r\nTransfer-Encoding: chunked\r\n\r\n"
         + b"%x\r\n" % len(SMALL) + SMALL + b"\r\n", b"0\r\n\r\n"], b'{"answer": "yes"}'),
    "gzip body of 64 KiB": (
        [b"HTTP/1.1 200 OK\r\nContent-Encoding: gzip\r\nContent-Length: 65536\r\n\r\n"
         + STORED], b"x" * 65_513),
    "two gzip members": (
        [b"HTTP/1.1 200 OK\r\nContent-Encoding: gzip\r\nContent-Length: %d\r\n\r\n"
         % len(MEMBERS) + MEMBERS], FIRST + SECOND),
}


@pytest.mark.parametrize("client", CLIENTS)
@pytest.mark.parametrize("case", list(KEEP_ALIVE))
def test_calls_reuse_one_connection(client, case):
    assert len(STORED) == tr.CHUNK_BYTES
    segments, expected = KEEP_ALIVE[case]
    server = CountingServer(segments, pause=0.05)
    assert _run(server.calls(client, 4)) == [expected] * 4
    assert server.connections == 1


@pytest.mark.parametrize("client", CLIENTS)
@pytest.mark.parametrize("kind", ["gzip", "raw"])
def test_a_reply_cut_short_is_a_decoding_error_on_both_clients(client, kind):
    # the framing is whole (Content-Length is the cut body's), the stream is not
    cut = PACKED[kind][:len(PACKED[kind]) // 2]
    server = Server(headers={"Content-Encoding": _encoding(kind)}, body=cut)
    with pytest.raises(RetryableError, match=CUT_SHORT):
        _post_once(client, server, max_response_bytes=len(BODY))


@pytest.mark.parametrize("client", CLIENTS)
def test_repeated_content_encoding_headers_are_joined_on_both_clients(client):
    # two lines "gzip" mean gzip twice ('gzip, gzip'), which is not asked for: the same
    # clear error on both (aiohttp's first header alone would have read one layer)
    twice = gzip.compress(gzip.compress(b'{"ok": true}'))
    server = Server(headers={"Content-Encoding": "gzip", "content-encoding": "gzip"},
                    body=twice)
    with pytest.raises(ModelCallError) as raised:
        _post_once(client, server)
    assert not isinstance(raised.value, RetryableError)
    assert str(raised.value) == ("response Content-Encoding 'gzip, gzip' not supported "
                                 "(asked for gzip, deflate)")


@pytest.mark.parametrize("client", CLIENTS)
def test_all_proxy_is_honoured_by_both_clients(client, monkeypatch):
    # the target's name does not resolve (.invalid, RFC 6761): only a call sent through
    # the proxy on 127.0.0.1 can answer, and the proxy sees the target's Host
    for name in ("NO_PROXY", "no_proxy"):
        monkeypatch.delenv(name, raising=False)
    proxy = Server(body=b'{"via": "proxy"}')

    async def call():
        async with proxy as proxy_url:
            monkeypatch.setenv("ALL_PROXY", proxy_url.removesuffix("/v1"))
            transport = tr.TRANSPORTS[client]({}, 1, 5.0)
            try:
                return await transport.post("http://api.invalid/v1", {"q": 1})
            finally:
                await transport.aclose()
    status, _, body = _run(call())
    assert (status, body) == (200, b'{"via": "proxy"}')
    assert proxy.requests[0]["host"] == "api.invalid"


def test_a_scheme_s_own_proxy_comes_before_all_proxy(monkeypatch):
    monkeypatch.setenv("HTTP_PROXY", "http://http-proxy.example:3128")
    monkeypatch.setenv("ALL_PROXY", "http://all-proxy.example:3128")
    transport = tr.AiohttpTransport({}, 1, 5.0)
    assert transport._proxy("http://api.example/v1") == "http://http-proxy.example:3128"
    assert transport._proxy("https://api.example/v1") == "http://all-proxy.example:3128"


@pytest.mark.parametrize("client", CLIENTS)
def test_the_constructors_name_their_arguments(client):
    assert list(inspect.signature(tr.TRANSPORTS[client]).parameters) == [
        "headers", "concurrency", "timeout_s", "max_response_bytes"]


@pytest.mark.parametrize("client", CLIENTS)
@pytest.mark.parametrize("name, url", [("ALL_PROXY", "socks5://127.0.0.1:9"),
                                       ("https_proxy", "socks5h://127.0.0.1:9"),
                                       ("HTTP_PROXY", "ftp://127.0.0.1:9")])
def test_a_proxy_that_is_not_http_is_one_config_error(client, name, url, monkeypatch):
    # even when NO_PROXY bypasses it for this target: the run stops at the first call,
    # naming the variable, and nothing is sent
    monkeypatch.setenv("NO_PROXY", "127.0.0.1")
    monkeypatch.setenv(name, url)
    server = Server()
    scheme = url.split(":")[0]
    with pytest.raises(ConfigError) as raised:
        _post_once(client, server)
    assert str(raised.value) == (f"{name}={url}: proxy scheme '{scheme}' not supported "
                                 f"(only http:// and https:// proxies)")
    assert server.requests == []


def test_proxies_are_read_as_httpx_reads_them(monkeypatch):
    # no scheme: an http:// proxy; a set lower-case name wins, even empty (no proxy)
    monkeypatch.setenv("HTTP_PROXY", "proxy.example:3128")
    monkeypatch.setenv("HTTPS_PROXY", "socks5://127.0.0.1:9")
    monkeypatch.setenv("https_proxy", "")
    monkeypatch.setenv("ALL_PROXY", "HTTPS://all.example:443")
    assert tr.environment_proxies() == {"http": "http://proxy.example:3128",
                                        "all": "HTTPS://all.example:443"}
