"""Pathological but valid text through the CLI: long runs of combining marks cost seconds,
not minutes (NFKC on the stream-safe form, bench_kit.text.streamsafe), and an item over
the `validate` size limits is refused by `eval run` before any call."""

from __future__ import annotations

import subprocess
import time
from datetime import datetime, timezone
from pathlib import Path

import yaml
from conftest import make_item
from hostile_server import MARKS
from test_hostile_inputs import BENCH_KIT, REPO, assert_clean_failure, run_cli

from bench_kit.io import write_jsonl
from bench_kit.types import Prediction

BOUND_S = 30.0  # before: audit data 100k marks ~23-59 s, eval score 3 x 200k ~77-124 s


def _timed(args: list[str], cwd: Path) -> tuple[subprocess.CompletedProcess, float]:
    started = time.monotonic()
    proc = subprocess.run(BENCH_KIT + args, cwd=cwd, capture_output=True, text=True,
                          timeout=4 * BOUND_S)
    return proc, time.monotonic() - started


def _params(tmp: Path) -> Path:
    params = yaml.safe_load((REPO / "params.yaml").read_text())
    path = tmp / "params.yaml"
    path.write_text(yaml.safe_dump({"bench": "marks", "taxonomy": params["taxonomy"],
                                    "audit": params["audit"]}))
    return path


def test_audit_data_on_200k_combining_marks_takes_seconds(tmp_path) -> None:
    items = tmp_path / "items.jsonl"
    write_jsonl(items, [make_item(id="marks", question="How many? " + MARKS),
                        make_item(id="plain")])
    proc, seconds = _timed(["audit", "data", "--items", str(items), "--params",
                            str(_params(tmp_path)), "--out", str(tmp_path / "audit")], tmp_path)
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert seconds < BOUND_S, seconds


def test_eval_score_on_three_answers_of_200k_marks_takes_seconds(tmp_path) -> None:
    items = tmp_path / "items.jsonl"
    write_jsonl(items, [make_item(id="n"), make_item(id="o", task="open", answers=["red"]),
                        make_item(id="y", task="yesno", answers=["yes"])])
    write_jsonl(tmp_path / "results" / "m" / "image.jsonl", [
        Prediction(id=ident, model="m", mode="image", prompt_sha="p", response=MARKS,
                   created_at=datetime(2026, 1, 1, tzinfo=timezone.utc))
        for ident in ("n", "o", "y")])
    proc, seconds = _timed(["eval", "score", "--items", str(items), "--model", "m",
                            "--results", str(tmp_path / "results" / "m"), "--out",
                            str(tmp_path / "scores"), "--metrics", str(tmp_path / "m.json"),
                            "--params", str(_params(tmp_path))], tmp_path)
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert seconds < BOUND_S, seconds


def test_eval_run_refuses_an_item_over_the_size_limits_before_any_call(tmp_path) -> None:
    items = tmp_path / "items.jsonl"
    write_jsonl(items, [make_item(id="ok"), make_item(id="big", question="x" * 20_001)])
    params = tmp_path / "params.yaml"
    params.write_text(yaml.safe_dump({"models": {"chance": {"adapter": "random"}}}))
    out = tmp_path / "out.jsonl"
    proc = run_cli(["eval", "run", "--model", "chance", "--mode", "no_image", "--items",
                    str(items), "--params", str(params), "--out", str(out)], tmp_path)
    assert_clean_failure(proc, f"{items}:2: field 'question': (id big) 20,001 characters, "
                               f"more than validate.max_question_chars (20,000)")
    assert not out.exists()
