"""The OpenAI-compatible adapter against a real HTTP server on 127.0.0.1."""

from __future__ import annotations

import asyncio
import base64
import socket

import pytest
from openai_server import ANSWER, FakeOpenAI, complete_once, make_adapter

from bench_kit.errors import ConfigError, ModelCallError
from bench_kit.models.adapters import ImageInput, ModelRequest, build_adapter
from bench_kit.models.config import ModelConfig
from bench_kit.models.retry import RetryPolicy, parse_retry_after

KEY = "sk-test-SENTINEL-7f3a9c"
PNG = ImageInput(data=b"\x89PNG fake bytes", mime="image/png", width=4, height=3,
                 sha256="0" * 64)


@pytest.fixture
def server():
    with FakeOpenAI() as running:
        yield running


def _adapter(urls, **kwargs):
    return make_adapter("openai", urls, **kwargs)


_complete = complete_once


def test_wire_format_sends_data_url_images_and_a_bearer_key(server, monkeypatch) -> None:
    monkeypatch.setenv("BK_TEST_KEY", KEY)
    response = _complete(_adapter(server.url, key_env="BK_TEST_KEY"), images=[PNG])
    sent = server.requests[0]
    assert sent["path"] == "/v1/chat/completions"
    assert sent["headers"]["authorization"] == f"Bearer {KEY}"
    body = sent["body"]
    assert (body["model"], body["max_tokens"], body["temperature"]) == ("vlm-test", 64, 0.0)
    image_part, text_part = body["messages"][0]["content"]
    expected = "data:image/png;base64," + base64.b64encode(PNG.data).decode()
    assert image_part == {"type": "image_url", "image_url": {"url": expected}}
    assert text_part == {"type": "text", "text": "What is it?"}
    assert (response.text, response.tokens_in, response.tokens_out, response.truncated) == \
        (ANSWER, 1000, 10, False)


def test_no_key_configured_sends_no_authorization_and_plain_text(server) -> None:
    _complete(_adapter(server.url))
    sent = server.requests[0]
    assert "authorization" not in sent["headers"]
    assert sent["body"]["messages"][0]["content"] == "What is it?"


def test_429_waits_for_retry_after_then_succeeds(server) -> None:
    sleeps: list[float] = []
    response = _complete(_adapter(server.url, sleeps=sleeps), "q [scenario:429:7]")
    assert response.text == ANSWER
    assert server.count() == 2
    assert sleeps == [7.0]


def test_500_is_retried(server) -> None:
    assert _complete(_adapter(server.url), "q [scenario:500]").text == ANSWER
    assert server.count() == 2


@pytest.mark.parametrize(("scenario", "attempts", "reason"), [
    ("503", 3, "HTTP 503 (gave up after 3 attempts)"),
    ("400", 1, "HTTP 400: Incorrect API key provided: [key]"),
    ("401", 1, "HTTP 401: not authorised (check $BK_TEST_KEY)"),
    ("badjson", 1, "malformed response body (not JSON)"),
    ("nochoices", 3, "response has no choices (gave up after 3 attempts)"),
    ("error200", 1, "server returned an error: model overloaded"),
])
def test_failures_raise_a_short_error_without_the_key(server, monkeypatch, scenario, attempts,
                                                     reason) -> None:
    monkeypatch.setenv("BK_TEST_KEY", KEY)
    adapter = _adapter(server.url, key_env="BK_TEST_KEY", max_retries=2)
    with pytest.raises(ModelCallError) as caught:
        _complete(adapter, f"q [scenario:{scenario}]")
    assert str(caught.value) == reason
    assert KEY not in str(caught.value)
    assert server.count() == attempts


def test_finish_reason_length_marks_truncated(server) -> None:
    assert _complete(_adapter(server.url), "q [scenario:length]").truncated is True


def test_timeouts_and_refused_connections_are_retried() -> None:
    with socket.socket() as sock:  # a port nobody listens on
        sock.bind(("127.0.0.1", 0))
        dead = f"http://127.0.0.1:{sock.getsockname()[1]}/v1"
    sleeps: list[float] = []
    with pytest.raises(ModelCallError, match=r"connection error \(ClientConnectorError\) \(gave up "
                                             r"after 3 attempts\)"):
        _complete(_adapter(dead, sleeps=sleeps, max_retries=2))
    assert len(sleeps) == 2
    with FakeOpenAI() as slow:
        with pytest.raises(ModelCallError, match="timeout after 0.1s"):
            _complete(_adapter(slow.url, timeout_s=0.1, max_retries=1), "q [scenario:slow:0.5]")
        assert slow.count() == 2


def test_replicas_share_the_load() -> None:
    with FakeOpenAI() as one, FakeOpenAI() as two:
        adapter = _adapter([one.url, two.url])
        request = ModelRequest(prompt="p", images=[], task="open", question="p")

        async def go():
            try:
                await asyncio.gather(*(adapter.complete(request) for _ in range(6)))
            finally:
                await adapter.aclose()

        asyncio.run(go())
        assert (one.count(), two.count()) == (3, 3)


def test_reasoning_content_is_kept_in_the_raw_response() -> None:
    from bench_kit.models.adapters.openai_compat import parse_completion

    body = (b'{"choices": [{"finish_reason": "stop", "message": {"content": "B", '
            b'"reasoning_content": "think hard"}}]}')
    assert parse_completion(body).text == "<think>think hard</think>B"


@pytest.mark.parametrize(("settings", "key"), [
    ({"base_url": None}, "base_url"),
    ({"model": None}, "model"),
    ({"base_url": "localhost:8000"}, "base_url"),
    ({"adapter": "opnai"}, "adapter"),
])
def test_bad_settings_name_the_key(settings, key) -> None:
    values = {"adapter": "openai", "model": "m", "base_url": "http://x/v1", **settings}
    with pytest.raises(ConfigError, match=rf"models\.vlm\.{key}: "):
        build_adapter(ModelConfig(**values), name="vlm")


def test_backoff_grows_with_jitter_and_retry_after_wins() -> None:
    import random

    policy = RetryPolicy(max_retries=5, backoff_s=1.0, max_backoff_s=8.0)
    rng = random.Random(0)
    delays = [policy.delay(n, None, rng) for n in range(5)]
    ceilings = [1, 2, 4, 8, 8]
    assert all(c / 2 <= d <= c for d, c in zip(delays, ceilings))
    assert policy.delay(0, 12.0, rng) == 12.0
    assert parse_retry_after("Wed, 21 Oct 2015 07:28:00 GMT") == 0.0
    assert parse_retry_after(None) is None


@pytest.mark.parametrize("client", ["aiohttp", "httpx"])
def test_both_clients_go_through_the_proxy_of_the_environment(monkeypatch, client) -> None:
    assert ModelConfig(adapter="openai").http_client == "aiohttp"  # the default
    for name in ("NO_PROXY", "no_proxy", "ALL_PROXY", "all_proxy", "http_proxy"):
        monkeypatch.delenv(name, raising=False)
    with FakeOpenAI() as proxy:  # a forward proxy gets the absolute URL as its path
        monkeypatch.setenv("HTTP_PROXY", proxy.url.removesuffix(proxy.prefix))
        adapter = make_adapter("openai", "http://model.invalid/v1", http_client=client,
                               max_retries=0)
        with pytest.raises(ModelCallError, match="HTTP 404"):
            complete_once(adapter, "q")
        assert [r["path"] for r in proxy.requests] == ["http://model.invalid/v1/chat/completions"]
        with socket.socket() as sock:  # a port nobody listens on, reached directly
            sock.bind(("127.0.0.1", 0))
            dead = f"http://127.0.0.1:{sock.getsockname()[1]}/v1"
        monkeypatch.setenv("NO_PROXY", "127.0.0.1")
        with pytest.raises(ModelCallError, match="connection error"):
            complete_once(make_adapter("openai", dead, http_client=client, max_retries=0), "q")
        assert len(proxy.requests) == 1
