"""Faults of the machine, not of the data: a full disk under the call cache, a damaged cache
page, a decompression-bomb image in `eval run`. Each is one `error:` line naming the file
and the fix, with the documented exit code (5 for storage faults, 1 for a bad input), and
never a traceback. The disk fills for real: the child process runs under a file-size
limit (RLIMIT_FSIZE), so SQLite's writes fail as they would on a full disk."""

from __future__ import annotations

import os
import resource
import signal
import sqlite3
import subprocess
from pathlib import Path

import pytest
import yaml
from conftest import make_item, write_png
from test_hostile_inputs import BENCH_KIT, TIMEOUT, png_claiming, run_cli

from bench_kit.io import write_jsonl
from bench_kit.models.cache import CallCache, CallRecord


def _setup(tmp: Path, n: int = 400, image: str | None = None) -> tuple[Path, Path]:
    items = tmp / "bench" / "items.jsonl"
    write_jsonl(items, [make_item(id=f"q{i}", question=f"How many, case {i}? " + "x" * 300,
                                  image=image) for i in range(n)])
    params = tmp / "params.yaml"
    params.write_text(yaml.safe_dump({"bench": "faults", "eval": {
        "cache": str(tmp / "cache" / "calls.sqlite")},
        "models": {"chance": {"adapter": "random"}}}))
    return items, params


def _eval_args(items: Path, params: Path, out: Path, mode: str = "no_image") -> list[str]:
    return ["eval", "run", "--model", "chance", "--mode", mode, "--items", str(items),
            "--params", str(params), "--out", str(out)]


def assert_one_line(proc: subprocess.CompletedProcess, code: int, *needles: str) -> str:
    """Exit `code`, no traceback, and exactly one `error:` line holding every needle."""
    assert proc.returncode == code, (proc.returncode, proc.stderr[-3000:])
    assert "Traceback" not in proc.stderr + proc.stdout, proc.stderr[-3000:]
    errors = [line for line in proc.stderr.splitlines() if line.startswith("error: ")]
    assert len(errors) == 1 and len(errors[0]) < 400, proc.stderr[-3000:]
    for needle in needles:
        assert needle in errors[0], (needle, errors[0])
    return errors[0]


def _limit_file_size(limit: int):
    def apply() -> None:
        signal.signal(signal.SIGXFSZ, signal.SIG_IGN)  # a failed write, not a killed process
        resource.setrlimit(resource.RLIMIT_FSIZE, (limit, limit))
    return apply


def test_a_full_disk_under_the_cache_is_one_line_and_keeps_the_stored_calls(tmp_path) -> None:
    items, params = _setup(tmp_path)
    out = tmp_path / "out.jsonl"
    proc = subprocess.run(BENCH_KIT + _eval_args(items, params, out), cwd=tmp_path,
                          capture_output=True, text=True, timeout=TIMEOUT,
                          preexec_fn=_limit_file_size(150_001), env=os.environ.copy())
    cache = tmp_path / "cache" / "calls.sqlite"
    line = assert_one_line(proc, 5, f"{cache}: call cache: ", "free disk space")
    # the write that met the full disk: an answer, or a claim (made on the cache's thread
    # while answers are stored)
    assert any(f"call cache: {doing} failed (" in line
               for doing in ("storing an answer", "claiming")), line
    assert not out.exists()
    with CallCache(cache) as kept:  # what was committed before the disk filled is intact
        stored = len(kept)
    assert 0 < stored < 400
    again = run_cli(_eval_args(items, params, out), tmp_path)  # space back: the run finishes
    assert again.returncode == 0, again.stderr[-2000:]
    assert f"{stored} from cache" in again.stderr


def damaged_cache(cache: Path) -> None:
    """Fill a call cache at `cache` with 3,000 answers, then scramble its index's root page."""
    with CallCache(cache) as filled:
        for n in range(3000):
            filled.put(f"{n:064x}", CallRecord(response="answer " * 20))
    with sqlite3.connect(cache) as db:
        db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        page_size = db.execute("PRAGMA page_size").fetchone()[0]
        root = db.execute("SELECT rootpage FROM sqlite_master WHERE type = 'index'").fetchone()[0]
    with open(cache, "r+b") as handle:
        handle.seek((root - 1) * page_size)
        handle.write(b"\xa5" * page_size)


def test_a_damaged_cache_page_is_one_line_naming_the_file_and_the_fix(tmp_path) -> None:
    items, params = _setup(tmp_path, n=20)
    cache = tmp_path / "cache" / "calls.sqlite"
    damaged_cache(cache)
    for _ in range(2):  # every re-run says the same, not a traceback
        proc = run_cli(_eval_args(items, params, tmp_path / "out.jsonl"), tmp_path)
        assert_one_line(proc, 5, f"{cache}: call cache: ", "the file is damaged: move it away")


@pytest.mark.parametrize(("name", "data", "reason"), [
    ("bomb.png", png_claiming(30_000, 30_000), "exceeds"),
    ("corrupt.jpg", b"\xff\xd8\xff\xe0" + b"\x13" * 600, "cannot be decoded"),
])
def test_eval_run_names_the_item_and_image_it_cannot_read(tmp_path, name, data,
                                                          reason) -> None:
    items, params = _setup(tmp_path, n=2, image="img/ok.png")
    write_png(tmp_path / "bench" / "img" / "ok.png")
    (tmp_path / "bench" / "img" / name).write_bytes(data)
    write_jsonl(items, [make_item(id="good", image="img/ok.png"),
                        make_item(id="bad", image=f"img/{name}")])
    proc = subprocess.run(BENCH_KIT + _eval_args(items, params, tmp_path / "o.jsonl", "image"),
                          cwd=tmp_path, capture_output=True, text=True, timeout=TIMEOUT)
    assert_one_line(proc, 1, f"{items}: field 'image': item bad: image '{name}' {reason}")
