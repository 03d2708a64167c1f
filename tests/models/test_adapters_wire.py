"""Anthropic, Gemini and Ollama adapters against real servers on 127.0.0.1 speaking each
API's wire format (tests/wire_servers.py)."""

from __future__ import annotations

import asyncio
import base64

import pytest
from openai_server import ANSWER, complete_once, make_adapter
from wire_servers import THOUGHT, FakeAnthropic, FakeGemini, FakeOllama

from bench_kit.errors import ConfigError, ModelCallError
from bench_kit.models.adapters import ImageInput, ModelRequest, build_adapter
from bench_kit.models.config import ModelConfig

KEY = "sk-wire-SENTINEL-93be11"
PNG = ImageInput(data=b"\x89PNG fake bytes", mime="image/png", width=4, height=3,
                 sha256="0" * 64)
JPEG = ImageInput(data=b"\xff\xd8 fake jpeg", mime="image/jpeg", width=4, height=3,
                  sha256="1" * 64)
WIRES = {"anthropic": FakeAnthropic, "gemini": FakeGemini, "ollama": FakeOllama}
# Where each API carries the key (Ollama: a bearer token, for hosted Ollama).
KEY_HEADER = {"anthropic": ("x-api-key", KEY), "gemini": ("x-goog-api-key", KEY),
              "ollama": ("authorization", f"Bearer {KEY}")}
PATH = {"anthropic": "/v1/messages", "gemini": "/v1beta/models/vlm-test:generateContent",
        "ollama": "/api/chat"}
# Gemini counts thought tokens apart; they are billed as output.
TOKENS = {"anthropic": (1000, 10), "gemini": (1000, 10), "ollama": (1000, 10)}


@pytest.fixture(params=sorted(WIRES))
def wire(request):
    with WIRES[request.param]() as server:
        yield request.param, server


_adapter = make_adapter


_complete = complete_once


def test_wire_format_images_key_header_and_usage(wire, monkeypatch) -> None:
    kind, server = wire
    monkeypatch.setenv("BK_WIRE_KEY", KEY)
    response = _complete(_adapter(kind, server.url, key_env="BK_WIRE_KEY"), images=[PNG, JPEG])
    sent = server.requests[0]
    assert sent["path"] == PATH[kind]
    assert KEY not in sent["path"]
    header, value = KEY_HEADER[kind]
    assert sent["headers"][header] == value
    images = server.images(0)
    assert [base64.b64decode(data) for _, data in images] == [PNG.data, JPEG.data]
    if kind != "ollama":  # Ollama's wire format has no MIME type per image
        assert [mime for mime, _ in images] == ["image/png", "image/jpeg"]
    assert server.prompt_of(sent["body"]) == "What is it?"
    assert (response.text, response.truncated) == (ANSWER, False)
    assert (response.tokens_in, response.tokens_out) == TOKENS[kind]


@pytest.mark.parametrize(("kind", "limits"), [
    ("anthropic", {"max_tokens": 64, "temperature": 0.0}),
    ("gemini", {"generationConfig": {"maxOutputTokens": 64, "temperature": 0.0}}),
    ("ollama", {"options": {"num_predict": 64, "temperature": 0.0}, "stream": False}),
])
def test_token_limit_and_temperature_are_sent_in_each_apis_fields(kind, limits) -> None:
    with WIRES[kind]() as server:
        _complete(_adapter(kind, server.url))
        body = server.requests[0]["body"]
    assert {k: body[k] for k in limits} == limits


def test_no_key_sends_no_key_header(wire) -> None:
    kind, server = wire
    _complete(_adapter(kind, server.url))
    header, _ = KEY_HEADER[kind]
    assert header not in server.requests[0]["headers"]


def test_cut_by_the_token_limit_is_truncated(wire) -> None:
    kind, server = wire
    assert _complete(_adapter(kind, server.url), "q [scenario:length]").truncated is True


def test_reasoning_stays_in_the_raw_response(wire) -> None:
    kind, server = wire
    assert _complete(_adapter(kind, server.url), "q [scenario:think]").text == \
        f"<think>{THOUGHT}</think>{ANSWER}"


def test_429_honours_retry_after_and_500_is_retried(wire) -> None:
    kind, server = wire
    sleeps: list[float] = []
    assert _complete(_adapter(kind, server.url, sleeps=sleeps), "q [scenario:429:3]").text \
        == ANSWER
    assert _complete(_adapter(kind, server.url, sleeps=sleeps), "q [scenario:500]").text \
        == ANSWER
    assert server.count() == 4 and sleeps[0] == 3.0


@pytest.mark.parametrize(("scenario", "reasons"), [
    ("400", {"*": "HTTP 400: Incorrect API key provided: [key]"}),
    ("401", {"*": "HTTP 401: not authorised (check $BK_WIRE_KEY)"}),
    ("badjson", {"*": "malformed response body (not JSON)"}),
    ("error200", {"*": "server returned an error: model overloaded"}),
    ("nochoices", {"anthropic": "response has no content blocks (gave up after 2 attempts)",
                   "gemini": "prompt blocked (SAFETY)",
                   "ollama": "response has no message (gave up after 2 attempts)"}),
    ("503", {"*": "HTTP 503 (gave up after 2 attempts)"}),
])
def test_failures_are_short_errors_without_the_key(wire, monkeypatch, scenario,
                                                   reasons) -> None:
    kind, server = wire
    monkeypatch.setenv("BK_WIRE_KEY", KEY)
    adapter = _adapter(kind, server.url, key_env="BK_WIRE_KEY", max_retries=1)
    with pytest.raises(ModelCallError) as caught:
        _complete(adapter, f"q [scenario:{scenario}]")
    assert str(caught.value) == reasons.get(kind, reasons.get("*"))
    assert KEY not in str(caught.value)


def test_replicas_share_the_load() -> None:
    with FakeOllama() as one, FakeOllama() as two:
        adapter = _adapter("ollama", [one.url, two.url])
        request = ModelRequest(prompt="p", images=[], task="open", question="p")

        async def go():
            try:
                await asyncio.gather(*(adapter.complete(request) for _ in range(4)))
            finally:
                await adapter.aclose()

        asyncio.run(go())
        assert (one.count(), two.count()) == (2, 2)


@pytest.mark.parametrize("kind", sorted(WIRES))
@pytest.mark.parametrize(("settings", "key"), [
    ({"base_url": None}, "base_url"), ({"model": None}, "model"),
    ({"base_url": "localhost:1"}, "base_url")])
def test_bad_settings_name_the_key(kind, settings, key) -> None:
    values = {"adapter": kind, "model": "m", "base_url": "http://x", **settings}
    with pytest.raises(ConfigError, match=rf"models\.vlm\.{key}: "):
        build_adapter(ModelConfig(**values), name="vlm")


def test_gemini_model_name_may_carry_the_models_prefix() -> None:
    with FakeGemini() as server:
        config = ModelConfig(adapter="gemini", model="models/gemini-2.0-flash",
                             base_url=server.url)
        _complete(build_adapter(config, name="g"))
        assert server.requests[0]["path"] == "/v1beta/models/gemini-2.0-flash:generateContent"


@pytest.mark.parametrize("kind", sorted(WIRES))
def test_the_runner_drives_each_adapter_and_keeps_reasoning_raw(kind, tmp_path) -> None:
    from test_runner import _mc, make_bench

    from bench_kit.eval.runner import RunSpec, run_eval
    from bench_kit.io import read_jsonl

    with WIRES[kind]() as server:
        rows = [_mc("q1", "Which? [scenario:think]"), _mc("q2", "Which? [scenario:length]")]
        items, params = make_bench(tmp_path, rows, server.url, adapter=kind)
        out = tmp_path / "out.jsonl"
        summary = run_eval(RunSpec(model="vlm", items=items, params=params, out=out))
        assert (summary.called, summary.errors) == (2, 0)
        first, second = read_jsonl(out)
        assert first["response"] == f"<think>{THOUGHT}</think>{ANSWER}"
        assert (first["truncated"], second["truncated"]) == (False, True)
        assert (first["tokens_in"], first["tokens_out"]) == TOKENS[kind]
        assert len(server.images(0)) == 1


@pytest.mark.parametrize("kind", ["openai", *sorted(WIRES)])
def test_the_aiohttp_client_behaves_like_httpx(kind, monkeypatch) -> None:
    from openai_server import FakeOpenAI

    monkeypatch.setenv("BK_WIRE_KEY", KEY)
    with (WIRES.get(kind) or FakeOpenAI)() as server:
        def adapter(**settings):
            return _adapter(kind, server.url, key_env="BK_WIRE_KEY", http_client="aiohttp",
                            sleeps=sleeps, **settings)

        sleeps: list[float] = []
        response = _complete(adapter(), images=[PNG])
        assert (response.text, response.tokens_in) == (ANSWER, 1000)
        header, value = KEY_HEADER.get(kind, ("authorization", f"Bearer {KEY}"))
        assert server.requests[0]["headers"][header] == value
        assert _complete(adapter(), "q [scenario:429:2]").text == ANSWER and sleeps == [2.0]
        with pytest.raises(ModelCallError, match=r"^HTTP 400: Incorrect API key provided: "
                                                 r"\[key\]$"):
            _complete(adapter(), "q [scenario:400]")
        with pytest.raises(ModelCallError, match="timeout after 0.1s"):
            _complete(adapter(timeout_s=0.1, max_retries=0), "q [scenario:slow:0.5]")


def test_aiohttp_connection_refused_is_retried() -> None:
    import socket

    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        dead = f"http://127.0.0.1:{sock.getsockname()[1]}"
    sleeps: list[float] = []
    with pytest.raises(ModelCallError, match=r"connection error \(ClientConnectorError\) "
                                             r"\(gave up after 2 attempts\)"):
        _complete(_adapter("ollama", dead, http_client="aiohttp", max_retries=1,
                           sleeps=sleeps))
    assert len(sleeps) == 1


def test_an_unknown_http_client_names_the_key() -> None:
    with pytest.raises(ConfigError, match=r"models\.vlm\.http_client: unknown client "
                                          r"'requests' \(known: httpx, aiohttp\)"):
        _adapter("ollama", "http://x", http_client="requests")
