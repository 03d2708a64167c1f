"""The bounded loop under every model call and embedding batch (bench_kit.models.bounded):
at most `concurrency` requests in flight, at most 2 x concurrency jobs begun (for the model
calls: keys claimed in the call cache ahead of a slot), the budget asked before each
request, and a fault that cancels the rest. The model-call test runs against a real
OpenAI-compatible server on 127.0.0.1."""

from __future__ import annotations

import asyncio
import sqlite3
import threading
import time
from pathlib import Path

import pytest
from openai_server import FakeOpenAI

from bench_kit.errors import InputError
from bench_kit.models.adapters import ModelRequest, build_adapter
from bench_kit.models.batch import Call, run_calls
from bench_kit.models.bounded import BoundedLoop, Refused
from bench_kit.models.budget import Budget
from bench_kit.models.cache import CallCache, cache_key
from bench_kit.models.config import ModelConfig


class ClaimCountingCache(CallCache):
    """A call cache that counts the claims held (claimed, not yet stored or released)."""

    def __init__(self, path: Path) -> None:
        super().__init__(path)
        self._lock = threading.Lock()
        self.held = self.most_held = self.claims = 0

    def _change(self, by: int) -> None:
        with self._lock:
            self.held += by
            self.most_held = max(self.most_held, self.held)

    def claim(self, key: str) -> bool:
        claimed = super().claim(key)
        if claimed:
            self.claims += 1
            self._change(1)
        return claimed

    def put(self, key, record) -> None:  # a stored answer ends its claim
        super().put(key, record)
        self._change(-1)

    def release(self, key: str) -> None:
        super().release(key)
        self._change(-1)


@pytest.mark.parametrize("concurrency", [1, 3])
def test_claims_run_at_most_twice_concurrency_ahead_of_the_slots(tmp_path,
                                                                 concurrency) -> None:
    n = 6 * concurrency + 1
    with FakeOpenAI() as server, ClaimCountingCache(tmp_path / "calls.sqlite") as cache:
        config = ModelConfig(adapter="openai", model="m", base_url=server.url, backoff_s=0.0,
                             max_retries=0, concurrency=concurrency)
        adapter = build_adapter(config, name="llm", cache=cache)
        calls = [Call(cache_key({"q": k}), ModelRequest(prompt=f"q{k} [scenario:slow:0.15]",
                                                        images=[], task="open", question="q"))
                 for k in range(n)]
        outcomes, counts = run_calls(calls, adapter=adapter, config=config, cache=cache)
        assert [o.source for o in outcomes] == ["called"] * n
        assert server.max_in_flight == concurrency and counts.requests == n
    # every key was claimed, and never more than 2 x concurrency at once: `concurrency` in
    # flight and as many waiting for a slot (unbounded, all n would be claimed at once)
    assert cache.claims == n and cache.held == 0
    assert cache.most_held == 2 * concurrency


def _gauge() -> tuple[dict[str, int], object]:
    counts = {"now": 0, "most": 0}

    def change(by: int) -> None:
        counts["now"] += by
        counts["most"] = max(counts["most"], counts["now"])
    return counts, change


def test_jobs_begun_and_requests_in_flight_are_bounded_and_the_budget_asked() -> None:
    begun, begin = _gauge()
    flying, fly = _gauge()

    async def main() -> tuple[list, BoundedLoop]:
        loop = BoundedLoop(2, Budget(max_requests=5))

        async def request(k: int) -> int:
            fly(1)
            await asyncio.sleep(0.01)
            fly(-1)
            return k

        async def job(k: int) -> int | Refused:
            begin(1)
            try:
                return await loop.send(lambda: request(k), cost=lambda _: 0.5)
            finally:
                begin(-1)

        results = await loop.run([lambda k=k: job(k) for k in range(9)])
        return results, loop

    results, loop = asyncio.run(main())
    refused = Refused("budget exhausted (max_requests 5 reached)")
    assert results == [0, 1, 2, 3, 4] + [refused] * 4  # in order; 5 sent, 4 refused
    assert (loop.requests, loop.budget.finished, loop.budget.spent) == (5, 5, 2.5)
    assert loop.budget.reason == "budget exhausted (max_requests 5 reached)"
    assert begun["most"] == 4 and flying["most"] == 2


def test_a_fault_in_one_job_cancels_the_others_before_it_is_raised() -> None:
    ended: list[str] = []

    async def main() -> None:
        loop = BoundedLoop(2)

        async def slow() -> None:
            try:
                await loop.send(lambda: asyncio.sleep(5))
            except asyncio.CancelledError:
                ended.append("cancelled")
                raise

        async def fault() -> None:
            await asyncio.sleep(0.01)
            raise OSError("disk full")

        with pytest.raises(OSError, match="disk full"):
            await loop.run([slow, fault, slow])
        # the slow jobs ended (the one in flight and the one waiting), and the budget
        # saw the request in flight finish
        assert ended == ["cancelled", "cancelled"]
        assert loop.budget.in_flight == 0

    asyncio.run(main())


def test_a_loop_needs_a_slot() -> None:
    async def build() -> None:
        BoundedLoop(0)
    with pytest.raises(ValueError, match="concurrency must be >= 1"):
        asyncio.run(build())


def test_the_tasks_alive_stay_bounded_however_many_jobs() -> None:
    # one task per job created up front held a million tasks for a million calls; the
    # loop keeps 2 x concurrency workers, each taking the next job when its last ends
    most = {"tasks": 0}
    taken = {"jobs": 0}

    async def main() -> list[int]:
        loop = BoundedLoop(3)

        async def job(k: int) -> int:
            most["tasks"] = max(most["tasks"], len(asyncio.all_tasks()))
            await loop.send(lambda: asyncio.sleep(0))
            return k

        def jobs():  # an iterable, taken as workers free up
            for k in range(2000):
                taken["jobs"] += 1
                yield lambda k=k: job(k)

        return await loop.run(jobs())

    assert asyncio.run(main()) == list(range(2000))
    assert taken["jobs"] == 2000
    assert most["tasks"] <= 2 * 3 + 1  # the workers and the main task


def test_a_fault_begins_no_later_job() -> None:
    begun: list[int] = []

    async def main() -> None:
        loop = BoundedLoop(1)

        async def job(k: int) -> None:
            begun.append(k)
            await asyncio.sleep(0.001)
            if k == 3:
                raise OSError("disk full")

        with pytest.raises(OSError, match="disk full"):
            await loop.run(lambda k=k: job(k) for k in range(100))

    asyncio.run(main())
    # the fault and, at most, the jobs its neighbour worker took meanwhile: not the 100
    assert begun[:4] == [0, 1, 2, 3] and len(begun) <= 6


class SlowClaimCache(CallCache):
    """A call cache whose claim of `slow_key` takes `delay` seconds on the cache thread."""

    def __init__(self, path: Path, slow_key: str, delay: float) -> None:
        super().__init__(path)
        self.slow_key, self.delay = slow_key, delay
        self.claimed: list[str] = []

    def claim(self, key: str) -> bool:
        if key == self.slow_key:
            time.sleep(self.delay)
        claimed = super().claim(key)
        self.claimed.append(key)
        return claimed


def test_a_fault_leaves_no_claim_behind(tmp_path) -> None:
    # concurrency 1: call 0 is answered, its worker then claims call 2 (slow, on the cache
    # thread) while call 1's image fails to load (a fault): call 2's worker is cancelled
    # before its claim comes back, and that claim, made all the same, must still end
    keys = [cache_key({"q": k}) for k in range(4)]

    async def unreadable() -> tuple[ModelRequest, dict]:
        await asyncio.sleep(0.1)
        raise InputError("items.jsonl: field 'image': cannot be decoded")

    def request(k: int) -> ModelRequest:
        return ModelRequest(prompt=f"q{k}", images=[], task="open", question="q")

    calls = [Call(keys[0], request(0)), Call(keys[1], prepare=unreadable),
             Call(keys[2], request(2)), Call(keys[3], request(3))]
    path = tmp_path / "calls.sqlite"
    with FakeOpenAI() as server, SlowClaimCache(path, keys[2], 0.5) as cache:
        config = ModelConfig(adapter="openai", model="m", base_url=server.url, backoff_s=0.0,
                             max_retries=0, concurrency=1)
        adapter = build_adapter(config, name="llm", cache=cache)
        with pytest.raises(InputError, match="cannot be decoded"):
            run_calls(calls, adapter=adapter, config=config, cache=cache)
        assert keys[2] in cache.claimed  # the claim cut short was made
        held = sqlite3.connect(path).execute("SELECT key FROM claims").fetchall()
        assert held == []  # before the cache is closed (which would end them anyway)
        assert cache.get(keys[0]) is not None


def test_a_refusal_is_told_apart_from_a_request_answering_none() -> None:
    async def main() -> list:
        loop = BoundedLoop(1, Budget(max_requests=1))

        async def nothing() -> None:  # a request whose answer is "nothing"
            return None
        return [await loop.send(nothing), await loop.send(nothing)]

    assert asyncio.run(main()) == [None, Refused("budget exhausted (max_requests 1 reached)")]


def test_a_request_that_raises_is_recorded_as_costing_nothing() -> None:
    """A request that raises is finished with cost 0: its `cost` is never asked, the
    budget counts it finished (nothing left in flight) and the money spent stays what the
    answered requests cost. By hand: 0.25 (the answer) + 0 (the failure) = 0.25 spent over
    2 finished calls; with a cost of 0.5 charged for the failure it would be 0.75, and
    with the failure left in flight `in_flight` would be 1."""
    asked: list[object] = []

    def cost(result: object) -> float:
        asked.append(result)
        return 0.25

    async def main() -> BoundedLoop:
        loop = BoundedLoop(1, Budget(max_cost=1.0))

        async def answer() -> str:
            return "a"

        async def failure() -> str:
            raise OSError("connection reset")

        assert await loop.send(answer, cost=cost) == "a"
        with pytest.raises(OSError, match="connection reset"):
            await loop.send(failure, cost=cost)
        # the slot was given back and the budget still allows a start: 0.25 + 0 x 0.125
        # (nothing in flight) is under 1.0
        assert await loop.send(answer, cost=lambda _: 0.0) == "a"
        return loop

    loop = asyncio.run(main())
    assert asked == ["a"]
    budget = loop.budget
    assert (loop.requests, budget.started, budget.finished) == (3, 3, 3)
    assert (budget.spent, budget.in_flight, budget.refused) == (0.25, 0, 0)
