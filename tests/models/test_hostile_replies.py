"""Replies a model server should never send cannot hang, redirect or bloat a run — with
both HTTP clients, against a real server on 127.0.0.1 (tests/models/hostile_server.py)."""

from __future__ import annotations

import time

import pytest
from hostile_server import ANSWER, HostileServer
from openai_server import complete_once, make_adapter

from bench_kit.errors import ModelCallError

CLIENTS = ("httpx", "aiohttp")


@pytest.fixture(scope="module")
def servers():
    with HostileServer() as elsewhere, HostileServer(redirect_to=None) as hostile:
        hostile.redirect_to = elsewhere.url
        yield hostile, elsewhere


@pytest.mark.parametrize("client", CLIENTS)
def test_a_normal_reply_still_works(servers, client) -> None:
    hostile, _ = servers
    adapter = make_adapter("openai", hostile.url, http_client=client)
    assert complete_once(adapter, "q").text == ANSWER


@pytest.mark.parametrize("client", CLIENTS)
def test_a_drip_feeding_server_cannot_hold_a_call_past_the_deadline(servers, client) -> None:
    hostile, _ = servers
    adapter = make_adapter("openai", hostile.url, http_client=client, timeout_s=1.0,
                           max_retries=1)
    started = time.monotonic()
    with pytest.raises(ModelCallError, match=r"^timeout after 1s \(gave up after 2 attempts\)$"):
        complete_once(adapter, "q [hostile:drip]")
    # two attempts of at most timeout_s each, plus a small margin (no backoff in tests)
    assert time.monotonic() - started < 2 * 1.0 + 1.5


@pytest.mark.parametrize("client", CLIENTS)
def test_redirects_are_never_followed(servers, client) -> None:
    hostile, elsewhere = servers
    before = elsewhere.total_requests()
    adapter = make_adapter("openai", hostile.url, http_client=client)
    with pytest.raises(ModelCallError) as caught:
        complete_once(adapter, "q [hostile:redirect]")
    message = str(caught.value)
    assert message.startswith(f"HTTP 307: redirect to {elsewhere.url}/chat/completions not "
                              f"followed")
    assert elsewhere.total_requests() == before  # the prompt and images never went there


@pytest.mark.parametrize("client", CLIENTS)
def test_null_content_is_a_retried_error_not_an_empty_answer(servers, client) -> None:
    hostile, _ = servers
    before = hostile.requests["null"]
    adapter = make_adapter("openai", hostile.url, http_client=client, max_retries=2)
    with pytest.raises(ModelCallError,
                       match=r"^response content is null \(gave up after 3 attempts\)$"):
        complete_once(adapter, "q [hostile:null]")
    assert hostile.requests["null"] - before == 3


@pytest.mark.parametrize("client", CLIENTS)
def test_a_huge_body_is_abandoned_at_the_cap(servers, client) -> None:
    hostile, _ = servers
    adapter = make_adapter("openai", hostile.url, http_client=client, max_retries=3,
                           max_response_bytes=2 * 1024 * 1024)
    sent_before, asked_before = hostile.bytes_sent["bigbody"], hostile.requests["bigbody"]
    with pytest.raises(ModelCallError, match=r"^response body larger than max_response_bytes "
                                             r"\(2,097,152 bytes\); not read further$"):
        complete_once(adapter, "q [hostile:bigbody]")
    time.sleep(0.3)  # let the server notice the closed connection
    # not retried (the server would send it again), and the server never got to write it all
    assert hostile.requests["bigbody"] - asked_before == 1
    assert hostile.bytes_sent["bigbody"] - sent_before < hostile.big_bytes


@pytest.mark.parametrize("client", CLIENTS)
def test_an_over_long_answer_is_cut_and_marked(servers, client) -> None:
    hostile, _ = servers
    adapter = make_adapter("openai", hostile.url, http_client=client, max_answer_chars=1000)
    response = complete_once(adapter, "q [hostile:bigcontent]")
    assert response.text == "B" * 1000
    assert response.truncated is True
    assert response.meta["answer_chars"] == hostile.content_chars


def test_the_default_caps_hold_a_5mb_answer_and_a_50mb_body(servers) -> None:
    hostile, _ = servers
    adapter = make_adapter("openai", hostile.url)
    response = complete_once(adapter, "q [hostile:bigcontent]")
    assert len(response.text) == 200_000 and response.truncated
    with pytest.raises(ModelCallError, match="larger than max_response_bytes"):
        complete_once(make_adapter("openai", hostile.url), "q [hostile:bigbody]")


@pytest.mark.parametrize("client", CLIENTS)
@pytest.mark.parametrize("name", ["waitlong", "waitdate"])
def test_a_retry_after_past_max_wait_fails_at_once_never_an_early_retry(servers, client,
                                                                        name) -> None:
    hostile, _ = servers
    sleeps: list[float] = []
    before = hostile.requests[name]
    adapter = make_adapter("openai", hostile.url, http_client=client, sleeps=sleeps,
                           max_wait_s=30)
    with pytest.raises(ModelCallError, match=r"^HTTP 429: the server asked to wait [\d,]+s "
                                             r"\(Retry-After\), more than max_wait_s \(30s\); "
                                             r"re-run later$"):
        complete_once(adapter, f"q [hostile:{name}]")
    assert (sleeps, hostile.requests[name] - before) == ([], 1)


@pytest.mark.parametrize("client", CLIENTS)
@pytest.mark.parametrize("name", ["waitnan", "waitjunk"])
def test_an_unparseable_retry_after_falls_back_to_backoff(servers, client, name) -> None:
    from bench_kit.models.adapters import build_adapter
    from bench_kit.models.config import ModelConfig

    hostile, _ = servers
    sleeps: list[float] = []

    async def record(seconds: float) -> None:
        sleeps.append(seconds)

    config = ModelConfig(adapter="openai", model="m", base_url=hostile.url, backoff_s=1.0,
                         max_retries=3, http_client=client)
    with pytest.raises(ModelCallError, match=r"^HTTP 429 \(gave up after 4 attempts\)$"):
        complete_once(build_adapter(config, name="vlm", sleep=record), f"q [hostile:{name}]")
    # "equal jitter" backoff: attempt n waits between half and all of 2**n seconds
    assert len(sleeps) == 3
    assert all(2 ** n / 2 <= s <= 2 ** n for n, s in enumerate(sleeps)), sleeps


def test_the_default_max_wait_is_at_most_a_minute() -> None:
    from bench_kit.models.config import ModelConfig

    assert ModelConfig(adapter="openai").max_wait_s <= 60


def _peak_bytes(url: str, client: str, prompt: str, cap: int) -> int:
    """Peak Python memory of one call (a new adapter and client, as in a run)."""
    import tracemalloc

    adapter = make_adapter("openai", url, http_client=client, max_retries=0,
                           max_response_bytes=cap)
    tracemalloc.start()
    try:
        try:
            complete_once(adapter, prompt)
        except ModelCallError as exc:
            assert str(exc).startswith("response body larger than max_response_bytes")
        return tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


@pytest.mark.parametrize("client", CLIENTS)
def test_a_gzip_bomb_costs_no_more_memory_than_the_cap(servers, client) -> None:
    hostile, _ = servers
    hostile.bomb()  # made before measuring
    cap = 2 * 1024 * 1024
    _peak_bytes(hostile.url, client, "q", cap)  # imports and CA bundle loaded once
    normal = _peak_bytes(hostile.url, client, "q", cap)
    bomb = _peak_bytes(hostile.url, client, "q [hostile:gzipbomb]", cap)
    # the body read up to the cap plus a chunk or two, over a normal call's peak: not the
    # ~64 MB that one 64 KB compressed chunk inflates to (the bomb is 1 GB inflated)
    assert bomb - normal < 2 * cap, f"{(bomb - normal) / 2**20:.1f} MiB over a normal call"


def _encoded(coding: str, data: bytes) -> bytes:
    import gzip
    import zlib

    if coding == "gzip":
        return gzip.compress(data)
    if coding == "deflate":  # zlib-wrapped, as RFC 9110 says
        return zlib.compress(data)
    if coding == "rawdeflate":  # what some servers send as `deflate`
        packer = zlib.compressobj(6, zlib.DEFLATED, -zlib.MAX_WBITS)
        return packer.compress(data) + packer.flush()
    return data


@pytest.mark.parametrize("coding", ["gzip", "deflate", "rawdeflate", "identity", ""])
def test_each_encoding_the_client_asks_for_decodes_whole(coding) -> None:
    import asyncio

    from bench_kit.models.transport import read_decoded

    data = b'{"choices": []}' + bytes(range(256)) * 4000
    wire = _encoded(coding, data)

    async def chunks():
        for start in range(0, len(wire), 777):  # odd-sized pieces, as a network gives
            yield wire[start:start + 777]

    header = "deflate" if coding == "rawdeflate" else coding
    assert asyncio.run(read_decoded(chunks(), header, 10 * len(data))) == data


def test_an_unasked_encoding_or_corrupt_data_is_an_error_not_a_crash() -> None:
    import asyncio

    from bench_kit.models.retry import RetryableError
    from bench_kit.models.transport import read_decoded

    async def chunks(data: bytes):
        yield data

    with pytest.raises(ModelCallError, match="Content-Encoding 'br' not supported"):
        asyncio.run(read_decoded(chunks(b"xx"), "br", 1000))
    with pytest.raises(RetryableError, match="DecodingError"):
        asyncio.run(read_decoded(chunks(b"\x1f\x8b\x08\x00garbage" * 10), "gzip", 1000))
