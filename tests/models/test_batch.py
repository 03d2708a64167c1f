"""The one model-call loop (bench_kit.models.batch) and every caller of it, against a real
OpenAI-compatible server on 127.0.0.1: requests are counted on the server."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import yaml
from click.testing import CliRunner
from conftest import make_item
from openai_server import FakeOpenAI

from bench_kit.audit.contamination_judge import judge_pairs
from bench_kit.authoring.counterfactual import Skip
from bench_kit.authoring.paraphrase import llm_paraphraser
from bench_kit.cli import cli
from bench_kit.eval.judge import judge_responses
from bench_kit.eval.runner import RunSpec, run_eval
from bench_kit.io import read_jsonl, write_jsonl
from bench_kit.items import read_items
from bench_kit.models.adapters import ModelRequest, build_adapter
from bench_kit.models.batch import Call, run_calls
from bench_kit.models.budget import Budget
from bench_kit.models.cache import CallCache, cache_key
from bench_kit.models.config import ModelConfig
from bench_kit.types import Item

EXHAUSTED_2 = "budget exhausted (max_requests 2 reached)"


@pytest.fixture
def server():
    with FakeOpenAI() as running:
        yield running


def _params(tmp_path: Path, url: str, budget: int | None = None, **extra: Any) -> dict:
    model = {"adapter": "openai", "model": "m", "base_url": url, "concurrency": 1,
             "backoff_s": 0.0, "max_retries": 0, "price_input": 1.0}
    params: dict[str, Any] = {"eval": {"cache": str(tmp_path / "calls.sqlite"),
                                       "models": {"llm": model}}, **extra}
    if budget is not None:
        params["eval"]["budget"] = {"max_requests": budget}
    return params


def _write(tmp_path: Path, params: dict) -> Path:
    path = tmp_path / "params.yaml"
    path.write_text(yaml.safe_dump(params))
    return path


# --- the loop itself ------------------------------------------------------------------

def _loop(tmp_path: Path, url: str, prompts: list[str], budget: Budget | None = None,
          concurrency: int = 2, fresh: bool = False):
    config = ModelConfig(adapter="openai", model="m", base_url=url, backoff_s=0.0,
                         max_retries=0, concurrency=concurrency)
    with CallCache(tmp_path / "loop.sqlite") as cache:
        adapter = build_adapter(config, name="llm", cache=cache)
        calls = [Call(cache_key({"t": p}), ModelRequest(prompt=p, images=[], task="open",
                                                        question=p)) for p in prompts]
        return run_calls(calls, adapter=adapter, config=config, cache=cache, budget=budget,
                         fresh=fresh)


def test_loop_shares_identical_calls_caches_answers_and_never_failures(server,
                                                                        tmp_path) -> None:
    prompts = ["a [scenario:slow:0.05]", "a [scenario:slow:0.05]", "b [scenario:slow:0.05]",
               "c [scenario:503]", "d [scenario:slow:0.05]"]
    outcomes, counts = _loop(tmp_path, server.url, prompts)
    assert [o.source for o in outcomes] == ["called", "called", "called", "error", "called"]
    assert outcomes[0].record == outcomes[1].record and "HTTP 503" in outcomes[3].error
    assert (counts.from_cache, counts.called, counts.errors, counts.requests) == (0, 5, 1, 4)
    assert server.count() == 4 and server.max_in_flight <= 2
    outcomes, counts = _loop(tmp_path, server.url, prompts)
    assert [o.source for o in outcomes] == ["cache", "cache", "cache", "error", "cache"]
    assert all(o.cached == (o.source == "cache") for o in outcomes)
    assert (counts.from_cache, counts.requests, server.count()) == (4, 1, 5)
    _, counts = _loop(tmp_path, server.url, prompts[:1], fresh=True)
    assert (counts.from_cache, counts.requests) == (0, 1)


def test_loop_budget_leaves_the_rest_unasked(server, tmp_path) -> None:
    outcomes, counts = _loop(tmp_path, server.url, [f"q{n}" for n in range(5)],
                             budget=Budget(max_requests=2), concurrency=1)
    assert [o.source for o in outcomes] == ["called", "called", "budget", "budget", "budget"]
    assert {o.error for o in outcomes[2:]} == {EXHAUSTED_2} and outcomes[2].record is None
    assert (counts.called, counts.budget_skipped, counts.stopped) == (2, 3, EXHAUSTED_2)
    assert server.count() == 2


def test_loop_latency_is_each_requests_own(server, tmp_path) -> None:
    delays = [0.05, 0.6, 0.05, 0.6]  # all four in flight at once
    outcomes, _ = _loop(tmp_path, server.url, [f"q{n} [scenario:slow:{d}]"
                                               for n, d in enumerate(delays)], concurrency=4)
    assert _own_latencies([o.latency_s for o in outcomes], delays)
    assert all(o.record.latency_s == o.latency_s for o in outcomes)


def test_loop_writes_the_cache_off_the_event_loop_in_batches(server, tmp_path,
                                                             monkeypatch) -> None:
    import threading

    from bench_kit.models.batch import _CacheThread

    writers, batches = [], []
    put, send = CallCache.put, _CacheThread._send

    def recorded_put(self, key, record) -> None:
        writers.append(threading.get_ident())
        put(self, key, record)

    def recorded_send(self, loop) -> None:
        batches.append(len(self._pending))
        send(self, loop)

    monkeypatch.setattr(CallCache, "put", recorded_put)
    monkeypatch.setattr(_CacheThread, "_send", recorded_send)
    outcomes, _ = _loop(tmp_path, server.url, [f"q{n}" for n in range(16)], concurrency=16)
    assert [o.source for o in outcomes] == ["called"] * 16
    # every answer stored, none on the event loop's thread (a slow commit stalls no call)
    assert len(writers) == 16 and threading.get_ident() not in writers
    # 16 claims (asked in one turn of the loop) and 16 answers: fewer wake-ups than pieces
    assert sum(batches) == 32 and len(batches) <= 17, batches


def _own_latencies(latencies: list[float], delays: list[float]) -> bool:
    """Each at least its request's server time, and every short request's below every long
    one's (a batch's time copied to every row would fail this)."""
    short = [t for t, d in zip(latencies, delays) if d < 0.1]
    long = [t for t, d in zip(latencies, delays) if d >= 0.1]
    return all(t >= d for t, d in zip(latencies, delays)) and max(short) < min(long) - 0.2


# --- eval run: `cached` and `latency_s` on a run with half the items cached -------------

def test_predictions_say_what_this_run_did_with_half_the_items_cached(server,
                                                                      tmp_path) -> None:
    params = _write(tmp_path, _params(tmp_path, server.url, **{"bench": "t"}))
    params_data = yaml.safe_load(params.read_text())
    params_data["eval"]["models"]["llm"]["concurrency"] = 4
    params.write_text(yaml.safe_dump(params_data))
    delays = [0.05, 0.6, 0.05, 0.6, 0.6, 0.05, 0.6, 0.05]
    rows = [make_item(id=f"q{n}", task="open", question=f"Item {n}? [scenario:slow:{d}]",
                      answers=["x"]) | {"image": None} for n, d in enumerate(delays)]
    items = tmp_path / "items.jsonl"
    out = tmp_path / "image.jsonl"
    write_jsonl(items, rows[:4])
    spec = RunSpec(model="llm", items=items, params=params, out=out, mode="no_image")
    run_eval(spec)
    first = {p["id"]: p for p in read_jsonl(out)}
    assert all(p["cached"] is False for p in first.values())
    write_jsonl(items, rows)  # half the items are now in the cache
    summary = run_eval(spec)
    assert (summary.from_cache, summary.called, server.count()) == (4, 4, 8)
    preds = read_jsonl(out)
    assert [p["cached"] for p in preds] == [True] * 4 + [False] * 4
    assert _own_latencies([p["latency_s"] for p in preds[4:]], delays[4:])
    for pred in preds[:4]:  # a cached row keeps the latency of the request that answered it
        assert pred["latency_s"] == first[pred["id"]]["latency_s"]
    assert _own_latencies([p["latency_s"] for p in preds[:4]], delays[:4])


# --- the LLM judge ----------------------------------------------------------------------

def _judge_setup(tmp_path: Path, url: str, budget: int | None = None) -> tuple[Path, Path]:
    rows = [make_item(id=f"q{n}", task="open", question=f"Colour {n}?", answers=["red"],
                      rubric="- accuracy: names red") for n in range(5)]
    items = tmp_path / "items.jsonl"
    write_jsonl(items, rows)
    write_jsonl(tmp_path / "results" / "image.jsonl",
                [{"id": f"q{n}", "response": f"Red {n}."} for n in range(5)])
    return items, _write(tmp_path, _params(tmp_path, url, budget, judge={"model": "llm"}))


def test_judge_is_cached_and_budgeted(server, tmp_path) -> None:
    items, params = _judge_setup(tmp_path, server.url, budget=2)
    preds = read_jsonl(tmp_path / "results" / "image.jsonl")
    run = judge_responses(read_items(items), preds, judge="llm", model="vlm", params=params)
    assert server.count() == 2 and (run.called, run.budget_skipped) == (2, 3)
    assert [v.error for v in run.verdicts] == [None, None] + [EXHAUSTED_2] * 3
    assert all(v.parse is None for v in run.verdicts[2:])
    assert run.metrics()["budget_skipped"] == 3
    # The next run (no budget) asks only the three left; then a run asks nothing.
    unlimited = Budget()
    run = judge_responses(read_items(items), preds, judge="llm", model="vlm", params=params,
                          budget=unlimited)
    assert (run.from_cache, run.called, server.count()) == (2, 3, 5)
    run = judge_responses(read_items(items), preds, judge="llm", model="vlm", params=params,
                          budget=Budget())
    assert (run.from_cache, run.called, server.count()) == (5, 0, 5)


def test_judge_cli_exits_3_when_the_budget_stops_it(server, tmp_path) -> None:
    items, params = _judge_setup(tmp_path, server.url)
    out = tmp_path / "judge.jsonl"
    args = ["eval", "judge", "--items", str(items), "--results", str(tmp_path / "results"),
            "--model", "vlm", "--out", str(out), "--params", str(params)]
    result = CliRunner().invoke(cli, [*args, "--max-requests", "2"])
    assert result.exit_code == 3, result.output
    assert "(3 not asked: budget exhausted (max_requests 2 reached))" in result.stderr
    assert [r["error"] for r in read_jsonl(out)] == [None, None] + [EXHAUSTED_2] * 3
    result = CliRunner().invoke(cli, args)
    assert result.exit_code == 0 and "2 from cache, 3 called" in result.stderr
    assert server.count() == 5


# --- the LLM paraphraser ----------------------------------------------------------------

def _items(n: int) -> list[Item]:
    return [Item.model_validate(make_item(id=f"p{k}", task="open", answers=["3"],
                                          question=f"How many circles are in picture {k}?"))
            for k in range(n)]


def test_paraphraser_is_cached_and_budgeted(server, tmp_path) -> None:
    paraphrase = llm_paraphraser(_params(tmp_path, server.url, budget=2), "llm")
    found = paraphrase(_items(5))
    assert server.count() == 2
    assert all(isinstance(found[f"p{k}"], Skip) for k in range(5))  # ANSWER is no rewrite
    assert [found[f"p{k}"].reason for k in range(2, 5)] == \
        [f"paraphraser not asked: {EXHAUSTED_2}"] * 3
    paraphrase = llm_paraphraser(_params(tmp_path, server.url), "llm")
    paraphrase(_items(5))
    assert server.count() == 5  # the two answered are cached; the three left are asked
    again = paraphrase(_items(5))
    assert server.count() == 5  # a second run makes no request
    assert {k: v.reason for k, v in again.items()} == \
        {k: v.reason for k, v in paraphrase(_items(5)).items()}


def test_paraphraser_records_a_failed_call_and_caches_nothing(server, tmp_path) -> None:
    server.down = True
    found = llm_paraphraser(_params(tmp_path, server.url), "llm")(_items(1))
    assert found["p0"].reason.startswith("paraphraser call failed: HTTP 503")
    with CallCache(tmp_path / "calls.sqlite") as cache:
        assert len(cache) == 0


# --- the contamination judge ------------------------------------------------------------

def test_contamination_judge_is_cached_and_budgeted(server, tmp_path) -> None:
    pairs = [(f"Which planet {n}? [scenario:verdict]", f"What planet {n}?") for n in range(5)]
    server.verdicts = ["Yes.", "No."]
    verdicts = judge_pairs(_params(tmp_path, server.url, budget=2), "llm", pairs)
    assert server.count() == 2
    assert [v.rephrase for v in verdicts[:2]] == [True, False]
    assert [v.error for v in verdicts[2:]] == [EXHAUSTED_2] * 3
    assert verdicts[2].evidence("llm") == {"judge": "llm", "judge_error": EXHAUSTED_2}
    server.verdicts = ["Yes."] * 3
    verdicts = judge_pairs(_params(tmp_path, server.url), "llm", pairs)
    assert server.count() == 5 and [v.rephrase for v in verdicts] == [True, False] + [True] * 3
    again = judge_pairs(_params(tmp_path, server.url), "llm", pairs)
    assert server.count() == 5 and again == verdicts



def _two_calls(tmp_path, server, prompts: list[str], **settings):
    config = ModelConfig(adapter="openai", model="m", base_url=server.url, max_retries=1,
                         concurrency=1, **settings)
    adapter = build_adapter(config, name="llm")  # real sleeps
    calls = [Call(key=cache_key({"p": p}), request=ModelRequest(prompt=p, images=[],
                                                                 task="open", question=p))
             for p in prompts]
    with CallCache(tmp_path / "c.sqlite") as cache:
        outcomes, _ = run_calls(calls, adapter=adapter, config=config, cache=cache)
    assert all(o.ok for o in outcomes)
    return [(server.prompt_of(r["body"]), r["at"]) for r in server.requests]


def test_a_call_waiting_to_retry_gives_its_concurrency_slot_back(tmp_path, server) -> None:
    prompts = ["a [scenario:500]", "b"]  # "a" backs off 0.3-0.6 s after its 500
    sent = _two_calls(tmp_path, server, prompts, backoff_s=0.6)
    # with one slot, "b" is sent while "a" waits to retry, not after it
    assert [prompt for prompt, _ in sent] == [prompts[0], prompts[1], prompts[0]]


def test_a_retry_after_holds_back_the_models_other_calls_too(tmp_path, server) -> None:
    prompts = ["a [scenario:429:0.6]", "b"]
    sent = _two_calls(tmp_path, server, prompts, backoff_s=0.0)
    first_429 = sent[0][1]
    later = [at for prompt, at in sent[1:]]
    # neither "a"'s retry nor the new call "b" reaches the server inside the 0.6 s asked for
    assert len(later) == 2 and min(later) - first_429 >= 0.55, sent
