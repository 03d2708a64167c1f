"""Peak memory and time of a long run through the bounded loop (bench_kit.models.bounded),
one figure per process (peak RSS is per process):

    nice .venv/bin/python benchmarks/loop_memory.py calls 200000   # run_calls, instant adapter
    nice .venv/bin/python benchmarks/loop_memory.py jobs 1000000   # BoundedLoop.run, trivial jobs

`calls` sends N distinct calls through `run_calls` (a fresh call cache in a temporary
folder, an in-process adapter answering at once, concurrency 8): the eval runner passes
every item of a run to one `run_calls`. `jobs` runs N jobs that each make one empty
request. Compare two versions by running each with PYTHONPATH set to its tree, in one
session (docs/BENCHMARKS.md).
"""

from __future__ import annotations

import argparse
import asyncio
import resource
import tempfile
import time
from pathlib import Path


def _peak_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


class _Instant:
    """An adapter answering every request at once."""

    per_item = False

    def identity(self) -> dict:
        return {}

    async def complete(self, request):  # noqa: ANN001, ANN201 - the adapter contract
        from bench_kit.models.adapters.contract import ModelResponse

        await asyncio.sleep(0)
        return ModelResponse(text="ok")

    async def aclose(self) -> None:
        pass


def calls(n: int) -> str:
    """N distinct calls through run_calls."""
    from bench_kit.models.adapters.contract import ModelRequest
    from bench_kit.models.batch import Call, run_calls
    from bench_kit.models.cache import CallCache
    from bench_kit.models.config import ModelConfig

    request = ModelRequest(prompt="p", images=[], task="open", question="q")
    config = ModelConfig(adapter="openai", model="m", base_url="http://127.0.0.1:9/v1",
                         concurrency=8)
    with tempfile.TemporaryDirectory() as tmp, CallCache(Path(tmp) / "c.sqlite") as cache:
        todo = [Call(f"k{k}", request) for k in range(n)]
        _, counts = run_calls(todo, adapter=_Instant(), config=config, cache=cache)
    return f"called {counts.called}"


def jobs(n: int) -> str:
    """N trivial jobs through BoundedLoop.run."""
    from bench_kit.models.bounded import BoundedLoop

    async def main() -> list:
        loop = BoundedLoop(8)

        async def job(k: int) -> int:
            await loop.send(lambda: asyncio.sleep(0))
            return k
        return await loop.run(lambda k=k: job(k) for k in range(n))
    return f"results {len(asyncio.run(main()))}"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("mode", choices=["calls", "jobs"])
    parser.add_argument("n", type=int)
    args = parser.parse_args()
    before = _peak_mb()
    started = time.perf_counter()
    done = {"calls": calls, "jobs": jobs}[args.mode](args.n)
    print(f"{args.mode} N={args.n}: {done}, {time.perf_counter() - started:.1f} s, "
          f"peak RSS {_peak_mb():.0f} MB (before the run {before:.0f} MB)")


if __name__ == "__main__":
    main()
