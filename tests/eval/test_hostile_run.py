"""Hostile replies through `bench-kit eval run`, with both HTTP clients, against a real
server on 127.0.0.1 (tests/models/hostile_server.py): each bad reply is that row's error
(recorded, never cached as an answer), the other rows are answered, no traceback."""

from __future__ import annotations

import json
import sqlite3
import sys
from pathlib import Path

import pytest
import yaml
from click.testing import CliRunner
from conftest import make_item

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "models"))
from hostile_server import ANSWER, HostileServer  # noqa: E402

from bench_kit.cli import cli  # noqa: E402
from bench_kit.io import read_jsonl, write_jsonl  # noqa: E402

CLIENTS = ("httpx", "aiohttp")
# scenario -> the row's error
EXPECTED = {
    "deep": "malformed response body (JSON nested too deep)",
    "surrogate": "malformed response: the answer is not valid Unicode (lone surrogate at "
                 "character 0)",
    "nulltext": "response content is null (gave up after 2 attempts)",
    "waitlong": "HTTP 429: the server asked to wait 999,999,999s (Retry-After), more than "
                "max_wait_s (60s); re-run later",
}


@pytest.fixture(scope="module")
def server():
    with HostileServer() as running:
        yield running


def write_run(tmp: Path, url: str, client: str, names: list[str]) -> tuple[Path, Path]:
    """An items file with one item per scenario name (plus `ok`) and its params."""
    items = tmp / "items.jsonl"
    write_jsonl(items, [make_item(id=name, question=f"How many? [hostile:{name}]")
                        for name in names])
    params = tmp / "params.yaml"
    params.write_text(yaml.safe_dump({
        "bench": "hostile", "eval": {"cache": str(tmp / "calls.sqlite")},
        "models": {"vlm": {"adapter": "openai", "model": "m", "base_url": url,
                           "http_client": client, "max_retries": 1, "backoff_s": 0.0}}}))
    return items, params


def eval_run(items: Path, params: Path, out: Path):
    return CliRunner().invoke(cli, ["eval", "run", "--model", "vlm", "--mode", "no_image",
                                    "--items", str(items), "--params", str(params),
                                    "--out", str(out), "--allow-errors"])


@pytest.mark.parametrize("client", CLIENTS)
def test_each_bad_reply_is_one_failed_row_never_a_dead_run(server, tmp_path, client) -> None:
    names = ["ok", *EXPECTED]
    items, params = write_run(tmp_path, server.url, client, names)
    out = tmp_path / "out.jsonl"
    result = eval_run(items, params, out)
    assert result.exit_code == 0, result.output
    assert result.exception is None and "Traceback" not in result.output
    rows = {row["id"]: row for row in read_jsonl(out)}
    assert rows["ok"]["response"] == ANSWER and rows["ok"]["error"] is None
    for name, error in EXPECTED.items():
        assert (rows[name]["response"], rows[name]["error"]) == (None, error)
    with sqlite3.connect(tmp_path / "calls.sqlite") as db:  # only the good answer is cached
        assert [r[0] for r in db.execute("SELECT response FROM calls")] == [ANSWER]
    # a re-run asks the failed rows again (they are not cached) and still ends cleanly
    before = server.total_requests()
    again = eval_run(items, params, out)
    assert again.exit_code == 0, again.output
    # deep, surrogate, nulltext x2, waitlong (never retried early)
    assert server.total_requests() - before == 1 + 1 + 2 + 1


@pytest.mark.parametrize("client", CLIENTS)
def test_a_bad_reply_exits_4_with_every_row_written(server, tmp_path, client) -> None:
    items, params = write_run(tmp_path, server.url, client, ["ok", "deep"])
    out = tmp_path / "out.jsonl"
    result = CliRunner().invoke(cli, ["eval", "run", "--model", "vlm", "--mode", "no_image",
                                      "--items", str(items), "--params", str(params),
                                      "--out", str(out)])
    assert result.exit_code == 4, result.output  # too many failed rows, all rows written
    assert "Traceback" not in result.output
    assert [json.loads(line)["id"] for line in out.read_text().splitlines()] == ["ok", "deep"]
