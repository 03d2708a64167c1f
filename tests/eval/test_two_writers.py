"""Two `bench-kit eval run` (or `eval judge`) processes on one call cache, against a server
on 127.0.0.1 whose every answer is different (`[scenario:numbered]` names its request
number): no prompt is asked twice, both outputs hold the cached answers, and two runs
writing the same output file do not both write it (the second stops with a message naming
the file)."""

from __future__ import annotations

import sqlite3
import subprocess
import sys
import time
from collections import Counter
from pathlib import Path

import pytest
import yaml
from click.testing import CliRunner
from conftest import make_item
from openai_server import FakeOpenAI

from bench_kit.cli import cli
from bench_kit.io import read_jsonl, write_jsonl

N_ITEMS = 40


def _setup(tmp: Path, url: str, delay_s: float = 0.05) -> tuple[Path, Path]:
    items = tmp / "items.jsonl"
    write_jsonl(items, [make_item(id=f"q{n:02d}",
                                  question=f"How many, case {n}? [scenario:numbered:{delay_s}]")
                        for n in range(N_ITEMS)])
    params = tmp / "params.yaml"
    params.write_text(yaml.safe_dump({"bench": "two", "eval": {
        "cache": str(tmp / "cache" / "calls.sqlite")}, "models": {"vlm": {
            "adapter": "openai", "model": "m", "base_url": url, "concurrency": 4,
            "max_retries": 0}}}))
    return items, params


def _args(items: Path, params: Path, out: Path) -> list[str]:
    return ["eval", "run", "--model", "vlm", "--mode", "no_image", "--items", str(items),
            "--params", str(params), "--out", str(out)]


def _judge_setup(tmp: Path, url: str, delay_s: float = 0.05) -> tuple[Path, Path]:
    """`_setup`'s items with a rubric each, a predictions file of `vlm`, and `vlm` as the
    judge (`judge.model`)."""
    items, params = _setup(tmp, url, delay_s)
    write_jsonl(items, [{**row, "task": "open", "rubric": "- accuracy: counts right"}
                        for row in read_jsonl(items)])
    write_jsonl(tmp / "results" / "no_image.jsonl", [
        {"id": row["id"], "model": "vlm", "mode": "no_image", "prompt_sha": "s",
         "response": f"{n} circles", "created_at": "2026-01-01T00:00:00Z"}
        for n, row in enumerate(read_jsonl(items))])
    settings = yaml.safe_load(params.read_text())
    params.write_text(yaml.safe_dump({**settings, "judge": {"model": "vlm"}}))
    return items, params


def _judge_args(items: Path, params: Path, out: Path) -> list[str]:
    return ["eval", "judge", "--items", str(items), "--params", str(params), "--model", "vlm",
            "--results", str(items.parent / "results"), "--out", str(out)]


# command -> (its setup, its arguments, the output column holding the model's answer)
COMMANDS = {"run": (_setup, _args, "response"), "judge": (_judge_setup, _judge_args, "reply")}


def _asked(server: FakeOpenAI) -> Counter[str]:
    """How often the server was asked each prompt."""
    with server._lock:
        return Counter(server.prompt_of(r["body"]) for r in server.requests)


def _start(args: list[str], cwd: Path) -> subprocess.Popen:
    return subprocess.Popen([sys.executable, "-m", "bench_kit", *args], cwd=cwd,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)




@pytest.mark.parametrize("command", list(COMMANDS))
def test_two_runs_on_one_cache_never_call_twice_and_match_the_cache(tmp_path,
                                                                    command) -> None:
    setup, args, answer = COMMANDS[command]
    with FakeOpenAI() as server:
        items, params = setup(tmp_path, server.url)
        runs = [_start(args(items, params, tmp_path / f"out{n}.jsonl"), tmp_path)
                for n in (1, 2)]
        for run in runs:
            _, err = run.communicate(timeout=120)
            assert run.returncode == 0, err[-2000:]
            assert "Traceback" not in err
    asked = _asked(server)
    assert len(asked) == N_ITEMS
    assert set(asked.values()) == {1}, asked  # no prompt asked twice
    first, second = (read_jsonl(tmp_path / f"out{n}.jsonl") for n in (1, 2))
    assert [(r["id"], r[answer]) for r in first] == [(r["id"], r[answer]) for r in second]
    with sqlite3.connect(tmp_path / "cache" / "calls.sqlite") as db:
        cached = sorted(r[0] for r in db.execute("SELECT response FROM calls"))
        claims = db.execute("SELECT COUNT(*) FROM claims").fetchone()[0]
    assert sorted(r[answer] for r in first) == cached
    assert claims == 0  # every claim ended with its answer
    # each answer is a request's own
    assert all(r[answer].startswith("The answer is B. (request ") for r in first)


@pytest.mark.parametrize("command", list(COMMANDS))
def test_a_second_run_writing_the_same_output_stops_with_a_clear_message(tmp_path,
                                                                         command) -> None:
    setup, args, _ = COMMANDS[command]
    with FakeOpenAI() as server:
        items, params = setup(tmp_path, server.url, delay_s=0.3)
        out = tmp_path / "out.jsonl"
        first = _start(args(items, params, out), tmp_path)
        locks = tmp_path / "cache" / "calls.sqlite.locks"
        deadline = time.monotonic() + 60
        while not server.count() and time.monotonic() < deadline:
            time.sleep(0.05)  # the first run is calling: it holds the output's lock
        second = CliRunner().invoke(cli, args(items, params, out))
        _, err = first.communicate(timeout=120)
    assert first.returncode == 0, err[-2000:]
    assert second.exit_code == 1, second.output
    lines = second.output.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith(f"error: {out}: another run is writing "
                                                   f"this file (pid {first.pid}, since ")
    assert lines[0].endswith("wait for it to finish, or write elsewhere with --out")
    assert len(read_jsonl(out)) == N_ITEMS and any(locks.iterdir())
    assert set(_asked(server).values()) == {1}
