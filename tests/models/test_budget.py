"""The per-run budget: stops cleanly, keeps completed calls, writes the rest as errors."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml
from click.testing import CliRunner
from openai_server import ANSWER, FakeOpenAI
from test_runner import _mc, make_bench

from bench_kit.cli import cli
from bench_kit.errors import ConfigError
from bench_kit.eval.runner import RunSpec, run_eval
from bench_kit.io import read_jsonl
from bench_kit.models.budget import Budget

# FakeOpenAI bills 1000 input + 10 output tokens; at these prices a call costs 0.001 USD.
PRICES = {"price_input": 1.0, "price_output": 0.0}


@pytest.fixture
def server():
    with FakeOpenAI() as running:
        yield running


def _run(items: Path, params: Path, tmp_path: Path, **spec):
    out = tmp_path / "out.jsonl"
    return run_eval(RunSpec(model="vlm", items=items, params=params, out=out, **spec)), out


def test_max_requests_keeps_answers_and_writes_the_rest_as_errors(server, tmp_path) -> None:
    rows = [_mc(f"q{n}", f"Which {n}?") for n in range(5)]
    items, params = make_bench(tmp_path, rows, server.url, concurrency=1)
    summary, out = _run(items, params, tmp_path, max_requests=2)
    preds = read_jsonl(out)
    assert server.count() == 2
    assert [p["response"] for p in preds] == [ANSWER, ANSWER, None, None, None]
    assert {p["error"] for p in preds[2:]} == {"budget exhausted (max_requests 2 reached)"}
    assert (summary.called, summary.errors, summary.budget_skipped) == (2, 3, 3)
    assert "(3 not asked: budget exhausted (max_requests 2 reached))" in summary.log_line()
    # The next run continues: completed calls come from the cache, the rest are asked.
    summary, out = _run(items, params, tmp_path)
    assert (summary.from_cache, summary.called, summary.errors) == (2, 3, 0)
    assert server.count() == 5


def test_max_cost_stops_once_spent(server, tmp_path) -> None:
    rows = [_mc(f"q{n}", f"Which {n}?") for n in range(6)]
    items, params = make_bench(tmp_path, rows, server.url, concurrency=1, **PRICES)
    summary, out = _run(items, params, tmp_path, max_cost=0.0025)
    assert server.count() == 3  # 0.001 + 0.001 < 0.0025 <= 0.003
    assert summary.cost == pytest.approx(0.003)
    assert summary.stopped == "budget exhausted (max_cost 0.0025 USD reached)"


def test_cached_answers_cost_nothing_against_the_budget(server, tmp_path) -> None:
    rows = [_mc(f"q{n}", f"Which {n}?") for n in range(3)]
    items, params = make_bench(tmp_path, rows, server.url, concurrency=1)
    _run(items, params, tmp_path)
    summary, _ = _run(items, params, tmp_path, max_requests=0)
    assert (summary.from_cache, summary.budget_skipped, server.count()) == (3, 0, 3)


def test_params_budget_applies_and_the_cli_overrides_it(server, tmp_path) -> None:
    rows = [_mc(f"q{n}", f"Which {n}?") for n in range(4)]
    items, params = make_bench(tmp_path, rows, server.url, concurrency=1)
    data = yaml.safe_load(params.read_text())
    data["eval"]["budget"] = {"max_requests": 1}
    params.write_text(yaml.safe_dump(data))
    summary, _ = _run(items, params, tmp_path)
    assert summary.called == 1
    summary, _ = _run(items, params, tmp_path, max_requests=2)
    assert (summary.from_cache, summary.called) == (1, 2)


def test_a_bad_budget_in_params_names_the_key(server, tmp_path) -> None:
    items, params = make_bench(tmp_path, [_mc("q1")], server.url)
    data = yaml.safe_load(params.read_text())
    data["eval"]["budget"] = {"max_dollars": 3}
    params.write_text(yaml.safe_dump(data))
    with pytest.raises(ConfigError, match=r"eval\.budget\.max_dollars: unknown key"):
        _run(items, params, tmp_path)


def test_cli_exits_3_after_writing_predictions(server, tmp_path) -> None:
    rows = [_mc(f"q{n}", f"Which {n}?") for n in range(3)]
    items, params = make_bench(tmp_path, rows, server.url, concurrency=1)
    out = tmp_path / "cli.jsonl"
    result = CliRunner().invoke(cli, ["eval", "run", "--items", str(items), "--model", "vlm",
                                      "--params", str(params), "--out", str(out),
                                      "--max-requests", "1"])
    assert result.exit_code == 3, result.output
    assert result.stderr.splitlines()[-1] == ("error: budget exhausted (max_requests 1 "
                                              "reached); 2 predictions written as errors "
                                              "(re-run with a larger budget to continue)")
    assert [p["error"] is None for p in read_jsonl(out)] == [True, False, False]


def test_cli_circular_writes_one_row_per_rotation(server, tmp_path) -> None:
    items, params = make_bench(tmp_path, [_mc("q1")], server.url)
    out = tmp_path / "circ.jsonl"
    result = CliRunner().invoke(cli, ["eval", "run", "--items", str(items), "--model", "vlm",
                                      "--params", str(params), "--out", str(out),
                                      "--circular"])
    assert result.exit_code == 0, result.output
    assert [(p["id"], p["rotation"]) for p in read_jsonl(out)] == \
        [("q1", 0), ("q1", 1), ("q1", 2)]


@pytest.mark.parametrize(("budget", "starts", "expected"), [
    (Budget(), 5, [True] * 5),
    (Budget(max_requests=0), 2, [False, False]),
    (Budget(max_cost=0.0), 1, [False]),
])
def test_budget_table(budget, starts, expected) -> None:
    assert [budget.try_start() for _ in range(starts)] == expected


def test_cost_budget_reserves_for_calls_in_flight() -> None:
    budget = Budget(max_cost=1.0)
    assert budget.try_start()
    budget.finish(0.4)  # mean 0.4 per call
    assert budget.try_start()  # 0.4 spent + 0 in flight
    assert budget.try_start()  # 0.4 + 1 in flight x 0.4 = 0.8 < 1.0
    assert not budget.try_start()  # 0.4 + 2 in flight x 0.4 = 1.2 >= 1.0
    assert budget.refused == 1 and budget.reason.startswith("budget exhausted (max_cost 1 ")
