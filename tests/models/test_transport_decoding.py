"""How the transports read a compressed reply (bench_kit/models/transport.py): a body cut
short is a decoding error, the same for gzip and deflate; reading stops at the end of the
stream; repeated Content-Encoding headers are read the same by both clients; `ALL_PROXY` is
honoured by both. Real servers on 127.0.0.1; expected values worked out by hand."""

from __future__ import annotations

import gzip
import inspect
import zlib
from typing import AsyncIterator

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

from bench_kit.errors import ModelCallError
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


def test_reading_stops_at_the_end_of_the_stream():
    # what follows the stream is never asked for (so it costs neither the cap nor time)
    pulled: list[bytes] = []

    async def parts() -> AsyncIterator[bytes]:
        for part in (PACKED["gzip"], b"after the end", b"and more"):
            pulled.append(part)
            yield part
    assert _run(tr.read_decoded(parts(), "gzip", len(BODY))) == BODY
    assert pulled == [PACKED["gzip"]]


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
