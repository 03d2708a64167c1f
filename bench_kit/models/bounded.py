"""The bounded concurrent loop under every request to a model server: the model calls
(bench_kit.models.batch.run_calls) and the embedding batches (bench_kit.embed.remote).

A `BoundedLoop` runs one job per unit of work (a distinct call, a batch of texts):
- at most `concurrency` requests in flight (`send` holds a slot while its request runs;
  a retry's backoff gives the slot back meanwhile, bench_kit.models.retry.CALL_SLOT);
- the run's `Budget` asked before each request: `send` returns `Refused`, without a
  request, once a limit is reached, and every request started is recorded as finished
  with its cost;
- at most `2 x concurrency` jobs begun at once: `run` keeps that many workers, each taking
  the next job from `jobs` when its last one has ended, so a run of a million jobs holds
  as many tasks as a run of ten. A job's work before its request (a cache claim) runs
  while it waits for a slot, and its work after (storing the answer) runs after the slot
  is given back, so a slot goes from one reply to the next request without waiting on
  either, while the jobs holding claims stay bounded;
- results returned in the order of `jobs`; a fault in one job (an exception it did not
  turn into a result) cancels the others and waits for them to end before it is raised,
  so none fails later, unheard, while the event loop shuts down, and no job after it is
  begun.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass
from typing import Any, Awaitable, Callable, Iterable, TypeVar

from bench_kit.models.budget import Budget
from bench_kit.models.retry import CALL_SLOT

T = TypeVar("T")
R = TypeVar("R")
# Jobs begun at once per concurrency slot (see the module docstring).
AHEAD_PER_SLOT = 2


@dataclass(frozen=True)
class Refused:
    """What `BoundedLoop.send` returns when the budget allows no more requests: none was
    made. `reason` is the budget's (e.g. `budget exhausted (max_requests 5 reached)`)."""

    reason: str


class BoundedLoop:
    """One run's concurrency slots, budget and job bound (build it inside the event loop)."""

    def __init__(self, concurrency: int, budget: Budget | None = None) -> None:
        if concurrency < 1:
            raise ValueError(f"concurrency must be >= 1, got {concurrency}")
        self.concurrency = concurrency
        self.budget = budget if budget is not None else Budget()
        self.requests = 0  # requests started (each after the budget allowed it)
        self._slots = asyncio.Semaphore(concurrency)

    async def send(self, request: Callable[[], Awaitable[R]],
                   cost: Callable[[R], float] = lambda _: 0.0) -> R | Refused:
        """`await request()` in a concurrency slot, if the budget allows a start (`Refused`
        and no request when it does not). The request's `cost(result)` is recorded with
        the budget; a request that raises is recorded as costing 0."""
        async with self._slots:
            CALL_SLOT.set(self._slots)  # a retry's wait gives the slot back meanwhile
            try:
                if not self.budget.try_start():
                    return Refused(self.budget.reason)
                self.requests += 1
                spent = 0.0
                try:
                    result = await request()
                    spent = cost(result)
                finally:
                    self.budget.finish(spent)
                return result
            finally:
                CALL_SLOT.set(None)

    async def run(self, jobs: Iterable[Callable[[], Awaitable[T]]]) -> list[T]:
        """Every job's result, in the order of `jobs` (taken from the iterable as workers
        free up), with at most `2 x concurrency` jobs begun at once. A job that raises
        cancels the others; once they have ended its exception is raised."""
        pending = enumerate(jobs)  # one iterator shared by the workers
        results: list[Any] = []

        async def worker() -> None:
            for index, job in pending:
                results.append(None)  # index == its position: taken in order
                results[index] = await job()

        workers = [asyncio.ensure_future(worker())
                   for _ in range(AHEAD_PER_SLOT * self.concurrency)]
        try:
            await asyncio.gather(*workers)
        except BaseException:  # a fault (e.g. a full disk): every other job ends first
            for task in workers:
                task.cancel()
            await asyncio.gather(*workers, return_exceptions=True)
            raise
        return results
