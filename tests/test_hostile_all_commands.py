"""Every hostile case of issue 31 through the commands a user runs, via the CLI: `eval run`
(with both HTTP clients, against a real server on 127.0.0.1: tests/models/hostile_server.py),
`eval score`, `report`, `validate` and `audit data`.

Each case ends as documented (docs/RELIABILITY.md, "Faults of the machine and of model
replies"; docs/EVAL.md, "Exit codes of `bench-kit eval run`"), never with a traceback:
- a bad reply is that row's error, recorded and never cached (exit 0 with --allow-errors,
  else 4), asked again by the next run, and the rest of the pipeline runs on;
- a bad item is one line naming the file, the line (or the item) and the field: exit 1
  from `validate` and `eval run` (before any call), a finding from `audit data` (exit 0);
- a bad image in the report is a placeholder and the item is listed (exit 0);
- a damaged cache page is one line naming the file and the fix (exit 5);
- 200,000 combining marks in a question and in an answer cost seconds in every command.

The full disk is simulated for real (a child process under RLIMIT_FSIZE) by
tests/test_machine_faults.py::test_a_full_disk_under_the_cache_is_one_line_and_keeps_the_stored_calls,
not repeated here: it needs a process of its own.
"""

from __future__ import annotations

import json
import re
import sqlite3
import subprocess
import time
from pathlib import Path
from typing import Any

import pytest
import yaml
from conftest import make_item, write_png
from hostile_server import ANSWER, MARKS, HostileServer
from test_hostile_inputs import REPO, assert_clean_failure, png_claiming, run_cli
from test_machine_faults import assert_one_line, damaged_cache

from bench_kit.io import read_jsonl, write_jsonl

CLIENTS = ("httpx", "aiohttp")
BOUND_S = 20.0  # any command over 200k combining marks (before: 58-124 s)
# server scenario -> the row's error (a year-9999 date's wait depends on today)
REPLY_ERRORS = {
    "deep": re.escape("malformed response body (JSON nested too deep)"),
    "surrogate": re.escape("malformed response: the answer is not valid Unicode (lone "
                           "surrogate at character 0)"),
    "nulltext": re.escape("response content is null (gave up after 2 attempts)"),
    "gzipbomb": re.escape("response body larger than max_response_bytes (8,388,608 bytes); "
                          "not read further"),
    "waitlong": re.escape("HTTP 429: the server asked to wait 999,999,999s (Retry-After), "
                          "more than max_wait_s (60s); re-run later"),
    "waitdate": r"HTTP 429: the server asked to wait [\d,]{13,}s \(Retry-After\), more than "
                r"max_wait_s \(60s\); re-run later",
    "waitnan": re.escape("HTTP 429 (gave up after 2 attempts)"),  # backoff, as if no header
}
# requests a re-run makes per failed row: a retried reply twice (max_retries 1), the rest once
ASKED_PER_RUN = {"nulltext": 2, "waitnan": 2}
# case -> (fields of item `bad`, field named, reason); `huge_question` stands for the
# issue's 50 MB question: just over validate.max_question_chars is the same refusal
ITEM_CASES: dict[str, tuple[dict[str, Any], str, str]] = {
    "marks_question": ({"question": "How many? " + MARKS}, "question",
                       "200,011 characters, more than validate.max_question_chars (20,000)"),
    "marks_answer": ({"task": "open", "answers": [MARKS]}, "answers[0]",
                     "200,001 characters, more than validate.max_answer_chars (2,000)"),
    "huge_question": ({"question": "x" * 20_001}, "question",
                      "20,001 characters, more than validate.max_question_chars (20,000)"),
    "bomb_image": ({"image": "img/bomb.png"}, "image", "image 'bomb.png' exceeds 64000000 "
                                                        "pixels"),
    "corrupt_jpeg": ({"image": "img/corrupt.jpg"}, "image", "image 'corrupt.jpg' cannot be "
                                                             "decoded"),
}
BOMB_PNG = png_claiming(30_000, 30_000)
CORRUPT_JPEG = b"\xff\xd8\xff\xe0\x00\x10JFIF" + b"\x13" * 600


@pytest.fixture(scope="module")
def server():
    with HostileServer(bomb_bytes=64 << 20) as running:  # 8 times the default reply cap
        yield running


def project(root: Path, url: str, client: str = "httpx", **limits: int) -> Path:
    """params.yaml (model `vlm` at `url`, the repo's taxonomy and audit settings, `limits`
    as the `validate` section) and images under bench/img: ok, a bomb, a corrupt JPEG."""
    write_png(root / "bench" / "img" / "ok.png")
    (root / "bench" / "img" / "bomb.png").write_bytes(BOMB_PNG)
    (root / "bench" / "img" / "corrupt.jpg").write_bytes(CORRUPT_JPEG)
    repo = yaml.safe_load((REPO / "params.yaml").read_text())
    params = root / "params.yaml"
    params.write_text(yaml.safe_dump({
        "bench": "hostile", "taxonomy": repo["taxonomy"], "audit": repo["audit"],
        "eval": {"cache": str(root / "cache" / "calls.sqlite")}, "validate": limits,
        "models": {"vlm": {"adapter": "openai", "model": "m", "base_url": url,
                           "http_client": client, "max_retries": 1, "backoff_s": 0.0}}}))
    return params


def eval_run(root: Path, items: Path, *extra: str, mode: str = "no_image",
             out: str = "results/vlm") -> subprocess.CompletedProcess:
    return run_cli(["eval", "run", "--model", "vlm", "--mode", mode, "--items", str(items),
                    "--params", "params.yaml", "--out", f"{out}/{mode}.jsonl", *extra], root)


def timed(args: list[str], root: Path) -> subprocess.CompletedProcess:
    """Run a command that must end in a few seconds, exit 0 and print no traceback."""
    started = time.monotonic()
    proc = run_cli(args, root)
    seconds = time.monotonic() - started
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert "Traceback" not in proc.stderr + proc.stdout
    assert all(len(line) < 400 for line in proc.stderr.splitlines()), proc.stderr[-2000:]
    assert seconds < BOUND_S, (args[:2], seconds)
    return proc


def score_and_report(root: Path, items: Path) -> subprocess.CompletedProcess:
    """`eval score` then `report` over results/vlm; the report's run."""
    timed(["eval", "score", "--items", str(items), "--model", "vlm", "--results",
           "results/vlm", "--out", "scores/vlm", "--metrics", "metrics/vlm.json", "--params",
           "params.yaml"], root)
    return timed(["report", "--items", str(items), "--scores", "scores", "--metrics",
                  "metrics", "--results", "results", "--out", "reports", "--params",
                  "params.yaml"], root)


def cached_answers(root: Path) -> list[str]:
    with sqlite3.connect(root / "cache" / "calls.sqlite") as db:
        return sorted(row[0] for row in db.execute("SELECT response FROM calls"))


@pytest.mark.parametrize("client", CLIENTS)
def test_each_bad_reply_is_one_failed_row_through_run_score_and_report(server, tmp_path,
                                                                       client) -> None:
    project(tmp_path, server.url, client)
    names = ["ok", "marks", *REPLY_ERRORS]
    items = tmp_path / "bench" / "items.jsonl"
    write_jsonl(items, [make_item(id=name, question=f"How many? [hostile:{name}]")
                        for name in names])
    first = eval_run(tmp_path, items, "--allow-errors")
    assert first.returncode == 0 and "Traceback" not in first.stderr, first.stderr[-2000:]
    rows = {row["id"]: row for row in read_jsonl(tmp_path / "results/vlm/no_image.jsonl")}
    assert (rows["ok"]["response"], rows["ok"]["error"]) == (ANSWER, None)
    assert rows["marks"]["response"].startswith("a\u0301\u0316") and not rows["marks"]["error"]
    for name, error in REPLY_ERRORS.items():
        assert rows[name]["response"] is None and re.fullmatch(error, rows[name]["error"]), \
            (name, rows[name]["error"])
    # only the two answers are cached; a re-run asks every failed row again (the waits
    # past max_wait_s once: never an early retry), and without --allow-errors exits 4
    assert cached_answers(tmp_path) == sorted([ANSWER, rows["marks"]["response"]])
    before = server.total_requests()
    again = eval_run(tmp_path, items)
    assert_one_line(again, 4)
    assert server.total_requests() - before == sum(ASKED_PER_RUN.get(name, 1)
                                                   for name in REPLY_ERRORS)
    assert [row["id"] for row in read_jsonl(tmp_path / "results/vlm/no_image.jsonl")] == names
    assert len(cached_answers(tmp_path)) == 2
    score_and_report(tmp_path, items)  # the failed rows are counted, the marks scored
    metrics = json.loads((tmp_path / "metrics" / "vlm.json").read_text())
    assert metrics["no_image"]["errors"] == len(REPLY_ERRORS)


@pytest.mark.parametrize("case", list(ITEM_CASES))
def test_a_bad_item_is_named_by_validate_audit_and_eval_run(server, tmp_path, case) -> None:
    project(tmp_path, server.url)
    fields, field, reason = ITEM_CASES[case]
    items = tmp_path / "bench" / f"{case}.jsonl"
    write_jsonl(items, [make_item(id="good", image="img/ok.png"),
                        make_item(id="bad", **fields)])
    proc = run_cli(["validate", str(items), "--params", "params.yaml"], tmp_path)
    assert_clean_failure(proc, f"{items}:2: id=bad field={field}: {reason}")

    proc = run_cli(["audit", "data", "--items", str(items), "--params", "params.yaml",
                    "--out", "audit"], tmp_path)
    assert proc.returncode == 0 and "Traceback" not in proc.stderr, proc.stderr[-2000:]
    findings = read_jsonl(tmp_path / "audit" / "findings.jsonl")
    named = [f for f in findings if f["id"] == "bad" and f["severity"] == "error"
             and (f["evidence"].get("field") == field or reason in f["message"])]
    assert named, findings
    assert not any(f["id"] == "good" and f["severity"] == "error" for f in findings)

    before = server.total_requests()
    proc = eval_run(tmp_path, items, mode="image")
    line = assert_one_line(proc, 1, str(items), f"field '{field}'", reason)
    assert ":2:" in line or "item bad" in line, line
    assert server.total_requests() == before  # refused before any call
    assert not (tmp_path / "results").exists()


def test_combining_marks_in_a_question_and_an_answer_take_seconds_everywhere(server,
                                                                             tmp_path) -> None:
    # limits raised so the marks are valid items: every command reads them whole
    project(tmp_path, server.url, max_question_chars=300_000, max_answer_chars=300_000)
    write_png(tmp_path / "bench" / "img" / "b.png", colour=(20, 20, 200))
    items = tmp_path / "bench" / "items.jsonl"
    write_jsonl(items, [
        make_item(id="question", question="How many? " + MARKS, image="img/ok.png"),
        make_item(id="answer", task="open", answers=[MARKS], image="img/b.png"),
        make_item(id="reply", question="What is it? [hostile:marks]", task="open",
                  answers=["red"])])
    timed(["validate", str(items), "--params", "params.yaml"], tmp_path)
    timed(["audit", "data", "--items", str(items), "--params", "params.yaml", "--out",
           "audit"], tmp_path)
    proc = eval_run(tmp_path, items)
    assert proc.returncode == 0 and "Traceback" not in proc.stderr, proc.stderr[-2000:]
    score_and_report(tmp_path, items)
    # then both images go bad: the report shows placeholders and lists the items
    (tmp_path / "bench" / "img" / "ok.png").write_bytes(BOMB_PNG)
    (tmp_path / "bench" / "img" / "b.png").write_bytes(CORRUPT_JPEG)
    with pytest.warns(Warning, match=r"2 image\(s\) could not be read"):
        score_and_report(tmp_path, items)
    html = (tmp_path / "reports" / "report.html").read_text(encoding="utf-8")
    section = html[html.index('id="unreadable-images"'):]
    assert "<code>question</code>" in section and "<code>answer</code>" in section
    assert "cannot be decoded" in section


def test_a_damaged_cache_page_stops_eval_run_in_one_line(server, tmp_path) -> None:
    project(tmp_path, server.url)
    items = tmp_path / "bench" / "items.jsonl"
    write_jsonl(items, [make_item(id="q1")])
    cache = tmp_path / "cache" / "calls.sqlite"
    damaged_cache(cache)
    before = server.total_requests()
    for _ in range(2):  # every re-run says the same
        assert_one_line(eval_run(tmp_path, items), 5, f"{cache}: call cache: ",
                        "the file is damaged: move it away")
    assert server.total_requests() == before
