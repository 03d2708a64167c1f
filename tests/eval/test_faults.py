"""Fault injection: an eval over 500 items against a server that fails ~20% of the prompts.

Every item ends answered or recorded as an error with its reason; nothing is lost or
duplicated (the server's request log against the predictions and the call cache); scores
keep errors out of the denominators and count them; a second run fills in the errors and
then matches a fault-free run.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest
import yaml
from click.testing import CliRunner
from conftest import make_item
from faults_server import FAULTS, RETRYABLE, FaultServer, answer_for

from bench_kit.cli import cli
from bench_kit.eval.runner import RunSpec, run_eval
from bench_kit.io import read_json, read_jsonl, write_jsonl
from bench_kit.models.cache import CallCache

N_ITEMS = 500
MAX_RETRIES = 2  # 3 attempts: a fault lasting 3 attempts ("persistent") exhausts them
ID_IN_PROMPT = re.compile(r"\[item (q\d+)\]")
EXPECTED_REASON = {
    "429": r"^HTTP 429 \(gave up after 3 attempts\)$",
    "429_retry_after": r"^HTTP 429 \(gave up after 3 attempts\)$",
    "500": r"^HTTP 500 \(gave up after 3 attempts\)$",
    "502": r"^HTTP 502 \(gave up after 3 attempts\)$",
    "503": r"^HTTP 503 \(gave up after 3 attempts\)$",
    "timeout": r"^timeout after 1\.5s \(gave up after 3 attempts\)$",
    "reset": r"^connection error \(\w+\) \(gave up after 3 attempts\)$",
    "badjson": r"^malformed response body \(not JSON\)$",
    "nochoices": r"^response has no choices \(gave up after 3 attempts\)$",
    "error200": r"^server returned an error: model overloaded$",
}


def _items(path: Path) -> list[dict[str, Any]]:
    rows = []
    for n in range(N_ITEMS):
        ident = f"q{n:03d}"
        if n % 2:
            rows.append(make_item(id=ident, question=f"Is shape {n} red? [item {ident}]",
                                  task="yesno", answers=["yes" if n % 3 else "no"]))
        else:
            rows.append(make_item(id=ident, question=f"Which colour is shape {n}? [item {ident}]",
                                  task="mc", choices={"A": "red", "B": "blue", "C": "green"},
                                  answers=["ABC"[n % 3]]))
    write_jsonl(path, rows)
    return rows


def _params(path: Path, url: str, cache: Path) -> Path:
    model = {"adapter": "openai", "model": "vlm-faulty", "base_url": url, "concurrency": 16,
             "timeout_s": 1.5, "max_retries": MAX_RETRIES, "backoff_s": 0.01}
    path.write_text(yaml.safe_dump({"bench": "faults", "eval": {
        "cache": str(cache), "models": {"vlm": model}}}))
    return path


def _run(tmp: Path, name: str, items: Path, url: str, cache: Path) -> tuple[Any, Path]:
    params = _params(tmp / f"{name}.params.yaml", url, cache)
    out = tmp / name / "vlm" / "image.jsonl"
    summary = run_eval(RunSpec(model="vlm", items=items, params=params, out=out))
    return summary, out


def _expected_errors(server: FaultServer, rows: list[dict[str, Any]],
                     prompts: dict[str, str]) -> dict[str, str]:
    """Item id -> fault kind for the prompts whose faults outlast the client's attempts."""
    expected = {}
    for row in rows:
        kind, fails = server.plan(prompts[row["id"]])
        if kind is None or kind == "slow":
            continue
        if kind not in RETRYABLE or fails > MAX_RETRIES:
            expected[row["id"]] = kind
    return expected


@pytest.fixture(scope="module")
def faulty_run(tmp_path_factory):
    """One faulty run, the same server for the second run, and a fault-free run."""
    tmp = tmp_path_factory.mktemp("faults")
    items = tmp / "items.jsonl"
    rows = _items(items)
    cache = tmp / "cache" / "calls.sqlite"
    with FaultServer(seed=20261130, rate=0.2, persistent=MAX_RETRIES + 1, hang_s=2.5,
                     slow_s=0.1) as server:
        first, first_out = _run(tmp, "first", items, server.url, cache)
        first_preds = read_jsonl(first_out)
        first_log = list(server.log)
        answered_first = server.answered()
        with CallCache(cache) as opened:
            rows_after_first = len(opened)
        second, second_out = _run(tmp, "second", items, server.url, cache)
        second_log = server.log[len(first_log):]
    with FaultServer(seed=20261130, rate=0.0) as clean:
        _, clean_out = _run(tmp, "clean", items, clean.url, tmp / "cache" / "clean.sqlite")
    prompts = {ID_IN_PROMPT.search(e["prompt"]).group(1): e["prompt"] for e in first_log}
    return {"tmp": tmp, "items": items, "rows": rows, "server": server, "first": first,
            "first_preds": first_preds, "first_out": first_out, "first_log": first_log,
            "answered_first": answered_first, "rows_after_first": rows_after_first,
            "second": second, "second_preds": read_jsonl(second_out), "second_log": second_log,
            "clean_preds": read_jsonl(clean_out), "prompts": prompts}


def test_the_server_injects_every_fault_kind_at_about_a_fifth(faulty_run) -> None:
    server, prompts = faulty_run["server"], faulty_run["prompts"]
    assert len(prompts) == N_ITEMS  # every item reached the server at least once
    kinds = [server.plan(p)[0] for p in prompts.values()]
    faulted = [k for k in kinds if k is not None]
    assert 0.15 * N_ITEMS <= len(faulted) <= 0.25 * N_ITEMS
    assert set(faulted) == set(FAULTS)
    seen = {e["fault"] for e in faulty_run["first_log"]}
    assert set(FAULTS) <= seen


def test_every_item_is_answered_or_an_error_with_its_reason(faulty_run) -> None:
    preds, rows = faulty_run["first_preds"], faulty_run["rows"]
    assert [p["id"] for p in preds] == [r["id"] for r in rows]  # one each, in item order
    expected = _expected_errors(faulty_run["server"], rows, faulty_run["prompts"])
    assert 10 <= len(expected) < 0.2 * N_ITEMS
    for pred in preds:
        if pred["id"] in expected:
            assert pred["response"] is None and pred["cached"] is False
            assert re.match(EXPECTED_REASON[expected[pred["id"]]], pred["error"]), pred
        else:
            assert pred["error"] is None
            assert pred["response"] == answer_for(faulty_run["prompts"][pred["id"]])
    assert faulty_run["first"].errors == len(expected)


def test_no_answer_is_lost_or_duplicated(faulty_run) -> None:
    answered, prompts = faulty_run["answered_first"], faulty_run["prompts"]
    ok_ids = {p["id"] for p in faulty_run["first_preds"] if p["error"] is None}
    assert all(count == 1 for count in answered.values())  # no item asked again once answered
    assert {ID_IN_PROMPT.search(p).group(1) for p in answered} == ok_ids
    assert faulty_run["rows_after_first"] == len(ok_ids)  # one cache row per answer
    assert len(prompts) == N_ITEMS


def test_scores_leave_errors_out_of_the_denominators(faulty_run) -> None:
    tmp, preds = faulty_run["tmp"], faulty_run["first_preds"]
    errors = sum(p["error"] is not None for p in preds)
    result = CliRunner().invoke(cli, [
        "eval", "score", "--items", str(faulty_run["items"]), "--model", "vlm",
        "--results", str(faulty_run["first_out"].parent), "--out", str(tmp / "scores"),
        "--metrics", str(tmp / "metrics.json"), "--params", str(tmp / "first.params.yaml")])
    assert result.exit_code == 0, result.output
    block = read_json(tmp / "metrics.json")["image"]
    assert (block["n"], block["errors"]) == (N_ITEMS - errors, errors)
    assert block["accuracy"] == pytest.approx(block["hits"] / block["n"], abs=1e-6)
    scores = read_jsonl(tmp / "scores" / "image.jsonl")
    assert sum(s["error"] is not None for s in scores) == errors
    assert all(s["score"] == 0 and not s["hit"] for s in scores if s["error"] is not None)


def test_a_second_run_fills_in_the_errors_and_matches_a_fault_free_run(faulty_run) -> None:
    first_errors = {p["id"] for p in faulty_run["first_preds"] if p["error"] is not None}
    second = faulty_run["second"]
    assert (second.errors, second.called, second.from_cache) == (
        0, len(first_errors), N_ITEMS - len(first_errors))
    asked_again = {ID_IN_PROMPT.search(e["prompt"]).group(1) for e in faulty_run["second_log"]}
    assert asked_again == first_errors  # answered items were not asked again

    def view(preds: list[dict]) -> list[tuple]:
        return [(p["id"], p["response"], p["error"], p["prompt_sha"]) for p in preds]

    assert view(faulty_run["second_preds"]) == view(faulty_run["clean_preds"])
    kept = {p["id"]: p for p in faulty_run["first_preds"] if p["error"] is None}
    for pred in faulty_run["second_preds"]:
        if pred["id"] in kept:  # answers from the first run are reused as they were
            assert pred["cached"] and not kept[pred["id"]]["cached"]
            assert json.dumps({**pred, "cached": False}) == json.dumps(kept[pred["id"]])
        else:  # asked in the second run
            assert pred["cached"] is False


def test_the_fault_plan_is_deterministic_by_seed() -> None:
    prompts = [f"prompt {n}" for n in range(200)]
    one, two = FaultServer(seed=5, rate=0.3), FaultServer(seed=5, rate=0.3)
    other = FaultServer(seed=6, rate=0.3)
    try:
        assert [one.plan(p) for p in prompts] == [two.plan(p) for p in prompts]
        assert [one.plan(p) for p in prompts] != [other.plan(p) for p in prompts]
    finally:
        for server in (one, two, other):
            server.close()
