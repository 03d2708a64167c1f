"""Fault points kill exactly at the named hit, and do nothing when unset."""

from __future__ import annotations

import os
import signal
import subprocess
import sys

import pytest

from bench_kit import faultpoints

_SCRIPT = """
import sys
from bench_kit import faultpoints
for n in range(1, 6):
    faultpoints.hit("cache.commit")
    faultpoints.hit("eval.row")
    print(n, flush=True)
"""


def _run(value: str | None) -> subprocess.CompletedProcess:
    env = {k: v for k, v in os.environ.items() if k != faultpoints.ENV}
    if value is not None:
        env[faultpoints.ENV] = value
    return subprocess.run([sys.executable, "-c", _SCRIPT], env=env, capture_output=True,
                          text=True, timeout=60, check=False)


def test_unset_runs_through() -> None:
    done = _run(None)
    assert done.returncode == 0 and done.stdout.split() == ["1", "2", "3", "4", "5"]


@pytest.mark.parametrize(("point", "k"), [("eval.row", 3), ("cache.commit", 1),
                                          ("cache.commit", 5)])
def test_kills_at_the_kth_hit_of_the_named_point(point, k) -> None:
    done = _run(f"{point}:{k}")
    assert done.returncode == -signal.SIGKILL
    # cache.commit comes before eval.row in each round: rows printed = k - 1 either way
    assert done.stdout.split() == [str(n) for n in range(1, k)]
    assert done.stderr == f"faultpoint: SIGKILL at {point} #{k}\n"


def test_a_count_beyond_the_hits_never_kills() -> None:
    assert _run("io.rename:1").returncode == 0 and _run("eval.row:6").returncode == 0


@pytest.mark.parametrize("value", ["eval.row", "nowhere:1", "eval.row:0", "eval.row:x"])
def test_bad_values_are_refused(value) -> None:
    with pytest.raises(ValueError, match="BENCH_KIT_KILL_AT"):
        faultpoints._parse(value)
