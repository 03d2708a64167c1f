"""The eval runner against a real OpenAI-compatible server on 127.0.0.1."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
import yaml
from conftest import make_item, write_png
from openai_server import ANSWER, FakeOpenAI

from bench_kit.errors import ConfigError, InputError
from bench_kit.eval.runner import RunSpec, run_eval
from bench_kit.io import read_jsonl, write_jsonl

KEY = "sk-runner-SENTINEL-51d0e2"


@pytest.fixture
def server():
    with FakeOpenAI() as running:
        yield running


def make_bench(tmp_path: Path, rows: list[dict[str, Any]], url: str,
               **model: Any) -> tuple[Path, Path]:
    """A benchmark folder (items + 64x48 image) and a params.yaml with model `vlm`."""
    write_png(tmp_path / "bench" / "img" / "a.png", size=(64, 48))
    items = tmp_path / "bench" / "items.jsonl"
    write_jsonl(items, rows)
    settings = {"adapter": "openai", "model": "vlm-test", "base_url": url, "backoff_s": 0.0,
                "max_retries": 2, "price_input": 0.5, "price_output": 2.0, **model}
    params = tmp_path / "params.yaml"
    params.write_text(yaml.safe_dump({"bench": "t", "eval": {
        "cache": str(tmp_path / "cache" / "calls.sqlite"), "models": {"vlm": settings}}}))
    return items, params


def _mc(id: str, question: str = "Which colour is the patch?", **extra: Any) -> dict:
    return make_item(id=id, image="img/a.png", question=question, task="mc",
                     choices={"A": "red", "B": "blue", "C": "green"}, answers=["A"], **extra)


def _run(items: Path, params: Path, tmp_path: Path, **spec: Any):
    out = tmp_path / "out" / f"{spec.get('mode', 'image')}.jsonl"
    summary = run_eval(RunSpec(model="vlm", items=items, params=params, out=out, **spec))
    return summary, out


def test_predictions_keep_item_order_and_record_failures_as_errors(server, tmp_path) -> None:
    rows = [_mc("q1"), make_item(id="q2", question="Is it red?", task="yesno", answers=["no"]),
            _mc("q3", "Which? [scenario:429:0]"), _mc("q4", "Which? [scenario:500]"),
            _mc("q5", "Which? [scenario:503]"), _mc("q6", "Which? [scenario:length]"),
            _mc("q7", "Which? [scenario:badjson]")]
    items, params = make_bench(tmp_path, rows, server.url)
    summary, out = _run(items, params, tmp_path)
    preds = {p["id"]: p for p in read_jsonl(out)}
    assert list(preds) == ["q1", "q2", "q3", "q4", "q5", "q6", "q7"]
    assert (summary.total, summary.from_cache, summary.called, summary.errors) == (7, 0, 7, 2)
    assert summary.log_line() == (f"eval vlm/image: 7 items: 0 from cache, 7 called, 2 errors, "
                                  f"0 unsupported -> {out}")
    for ident in ("q1", "q2", "q3", "q4", "q6"):
        assert preds[ident]["response"] == ANSWER and preds[ident]["error"] is None
        assert preds[ident]["cost"] == pytest.approx((1000 * 0.5 + 10 * 2.0) / 1e6)
        assert (preds[ident]["tokens_in"], preds[ident]["tokens_out"]) == (1000, 10)
    assert preds["q5"]["response"] is None and "HTTP 503" in preds["q5"]["error"]
    assert preds["q7"]["response"] is None and "not JSON" in preds["q7"]["error"]
    assert (preds["q5"]["cached"], preds["q1"]["cached"]) == (False, False)  # none from cache
    assert preds["q6"]["truncated"] is True and preds["q1"]["truncated"] is False
    image = preds["q1"]["protocol"]["images"][0]
    assert (image["width"], image["height"], image["mime"]) == (64, 48, "image/png")
    assert preds["q2"]["protocol"]["images"] == []
    assert preds["q1"]["mode"] == "image" and preds["q1"]["rotation"] == 0


def _without_cached(data: bytes) -> list[dict]:
    return [{k: v for k, v in row.items() if k != "cached"}
            for row in map(json.loads, data.decode().splitlines())]


def test_rerun_is_answered_from_the_cache_byte_for_byte(server, tmp_path) -> None:
    rows = [_mc(f"q{n}", f"Which colour, case {n}?") for n in range(5)]
    items, params = make_bench(tmp_path, rows, server.url)
    _, out = _run(items, params, tmp_path)
    first, calls = out.read_bytes(), server.count()
    assert calls == 5
    summary, out = _run(items, params, tmp_path)
    assert server.count() == calls
    # Only `cached` differs: this run took every answer from the cache.
    second = out.read_bytes()
    assert _without_cached(second) == _without_cached(first)
    assert [r["cached"] for r in map(json.loads, second.splitlines())] == [True] * 5
    assert (summary.from_cache, summary.called) == (5, 0)
    assert _run(items, params, tmp_path)[1].read_bytes() == second
    summary, _ = _run(items, params, tmp_path, fresh=True)
    assert server.count() == calls + 5 and summary.called == 5


def test_an_edited_item_is_the_only_one_called_again(server, tmp_path) -> None:
    items, params = make_bench(tmp_path, [_mc("q1"), _mc("q2", "Which one?")], server.url)
    _run(items, params, tmp_path)
    write_jsonl(items, [_mc("q1"), _mc("q2", "Which one now?")])
    summary, _ = _run(items, params, tmp_path)
    assert (summary.from_cache, summary.called, server.count()) == (1, 1, 3)


def test_failed_calls_are_retried_on_the_next_run(server, tmp_path) -> None:
    items, params = make_bench(tmp_path, [_mc("q1"), _mc("q2", "Which one?")], server.url)
    server.down = True
    summary, out = _run(items, params, tmp_path)
    assert summary.errors == 2 and all(p["error"] for p in read_jsonl(out))
    server.down = False
    summary, out = _run(items, params, tmp_path)
    assert (summary.called, summary.errors) == (2, 0)
    assert [p["response"] for p in read_jsonl(out)] == [ANSWER, ANSWER]


def test_blank_and_no_image_modes(server, tmp_path) -> None:
    items, params = make_bench(tmp_path, [_mc("q1")], server.url)
    _run(items, params, tmp_path, mode="image")
    _run(items, params, tmp_path, mode="blank_image")
    _run(items, params, tmp_path, mode="no_image")
    assert server.count() == 3  # each mode is its own cache entry
    (header, original), = server.images(0)
    (_, blank), = server.images(1)
    assert header == "data:image/png;base64"
    assert original.getpixel((5, 5)) == (200, 30, 30)
    assert blank.size == (64, 48) and blank.getcolors() == [(64 * 48, (128, 128, 128))]
    assert server.images(2) == []
    assert isinstance(server.requests[2]["body"]["messages"][0]["content"], str)


def test_concurrency_is_bounded_per_model(server, tmp_path) -> None:
    rows = [_mc(f"q{n}", f"Which {n}? [scenario:slow:0.05]") for n in range(8)]
    items, params = make_bench(tmp_path, rows, server.url, concurrency=2)
    summary, _ = _run(items, params, tmp_path)
    assert summary.errors == 0
    assert 1 <= server.max_in_flight <= 2


def test_the_api_key_is_never_written(server, tmp_path, monkeypatch) -> None:
    monkeypatch.setenv("BK_RUNNER_KEY", KEY)
    rows = [_mc("q1"), _mc("q2", "Which? [scenario:400]")]
    items, params = make_bench(tmp_path, rows, server.url, api_key_env="BK_RUNNER_KEY")
    summary, out = _run(items, params, tmp_path)
    assert server.requests[0]["headers"]["authorization"] == f"Bearer {KEY}"
    assert summary.errors == 1
    written = [out, *(p for p in (tmp_path / "cache").rglob("*") if p.is_file())]
    assert len(written) >= 2
    for path in written:
        assert KEY.encode() not in path.read_bytes(), path


def test_a_missing_image_stops_the_run_before_any_call(server, tmp_path) -> None:
    rows = [_mc("q1"), _mc("q2") | {"image": "img/missing.png"}]
    items, params = make_bench(tmp_path, rows, server.url)
    with pytest.raises(InputError, match=r"field 'image': item q2: image file .*missing\.png"):
        _run(items, params, tmp_path)
    assert server.count() == 0


@pytest.mark.parametrize(("settings", "env", "message"), [
    ({"enabled": False}, {}, r"eval\.models\.vlm: model 'vlm' is disabled"),
    ({"api_key_env": "BK_ABSENT_KEY"}, {}, r"eval\.models\.vlm\.api_key_env: environment "
                                           r"variable BK_ABSENT_KEY is not set"),
    ({"colour": "red"}, {}, r"eval\.models\.vlm\.colour: unknown key"),
    ({"concurrency": 0}, {}, r"eval\.models\.vlm\.concurrency: Input should be greater"),
])
def test_config_problems_stop_before_any_call(server, tmp_path, monkeypatch, settings, env,
                                              message) -> None:
    monkeypatch.delenv("BK_ABSENT_KEY", raising=False)
    items, params = make_bench(tmp_path, [_mc("q1")], server.url, **settings)
    with pytest.raises(ConfigError, match=message):
        _run(items, params, tmp_path)
    assert server.count() == 0


def test_circular_eval_asks_each_rotation_once(server, tmp_path) -> None:
    items, params = make_bench(tmp_path, [_mc("q1")], server.url)
    summary, out = _run(items, params, tmp_path, circular=True)
    preds = read_jsonl(out)
    assert [(p["id"], p["rotation"]) for p in preds] == [("q1", 0), ("q1", 1), ("q1", 2)]
    assert len({p["prompt_sha"] for p in preds}) == 3
    shown = {r["body"]["messages"][0]["content"][-1]["text"].split("\n")[1]
             for r in server.requests}
    assert shown == {"A. red", "A. blue", "A. green"}
    assert summary.called == 3


def test_a_killed_run_resumes_without_repeating_completed_calls(server, tmp_path) -> None:
    import signal
    import subprocess
    import sys
    import time

    rows = [_mc(f"q{n}", f"Which {n}? [scenario:slow:0.1]") for n in range(10)]
    items, params = make_bench(tmp_path, rows, server.url, concurrency=1)
    out = tmp_path / "out" / "image.jsonl"
    child = subprocess.Popen([sys.executable, "-m", "bench_kit", "eval", "run", "--items",
                              str(items), "--model", "vlm", "--params", str(params), "--out",
                              str(out)], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        while server.count() < 4 and child.poll() is None:
            time.sleep(0.02)
    finally:
        child.send_signal(signal.SIGKILL)
        child.wait()
    received = server.count()
    assert 4 <= received < 10 and not out.exists()
    summary, _ = _run(items, params, tmp_path)
    # Everything answered before the kill comes from the cache; only the call in flight
    # at the kill may be asked again.
    assert summary.from_cache >= received - 1
    assert summary.from_cache + summary.called == 10 and summary.errors == 0
    assert server.count() == received + summary.called


def test_identical_requests_share_one_call(server, tmp_path) -> None:
    items, params = make_bench(tmp_path, [_mc("q1"), _mc("q2"), _mc("q3", "Other?")], server.url)
    summary, out = _run(items, params, tmp_path)
    assert (summary.total, summary.called, server.count()) == (3, 3, 2)
    first = read_jsonl(out)
    assert first[0]["created_at"] == first[1]["created_at"]
    assert [p["id"] for p in first] == ["q1", "q2", "q3"]
    assert [p["cached"] for p in first] == [False] * 3  # q2 shares q1's call of this run
    before = out.read_bytes()
    assert _without_cached(_run(items, params, tmp_path)[1].read_bytes()) == \
        _without_cached(before)
