"""The one model-call loop: every model call anywhere (eval runs, the LLM judge, the LLM
paraphraser, the contamination judge) goes through `run_calls`.

For a list of `Call`s (a cache key and a request) it
- answers each key found in the call cache without a request (unless `fresh`);
- makes one request per distinct remaining key (identical requests share one call), at
  most `concurrency` in flight and each key claimed while it waits for a slot (the
  bounded loop, bench_kit.models.bounded), through the adapter (whose transport retries
  with backoff; bench_kit.models.retry);
- asks the run's `Budget` before each request: once a limit is reached the remaining
  calls are not made and come back as `budget` outcomes with the reason
  (`budget exhausted (...)`), to be asked on the next run;
- stores every successful call in the cache before it counts, so a killed run loses at
  most the calls in flight; a failed call (`ModelCallError` after the retries) is an
  `error` outcome, never stored, so the next run asks again.

Each `Outcome` says what happened to its call in THIS run: `cache` (taken from the cache),
`called` (answered by a request of this run), `error` (the request failed) or `budget`
(not asked). `latency_s` is the request's own time (from the start of its request to its
answer, without the time spent waiting for a concurrency slot; a local adapter's own
compute time), stored with the record, so a cache hit reports the latency of the request
that produced it. See docs/EVAL.md.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import json
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import Any, Awaitable, Callable, Literal, Sequence, TypeVar

from bench_kit.errors import BenchKitError, ModelCallError
from bench_kit.models.adapters.contract import Adapter, ModelRequest, ModelResponse
from bench_kit.models.bounded import BoundedLoop, Refused
from bench_kit.models.budget import Budget
from bench_kit.models.cache import CallCache, CallRecord, utc_now
from bench_kit.models.config import ModelConfig
from bench_kit.models.retry import wait_outside_slot

T = TypeVar("T")
Source = Literal["cache", "called", "error", "budget"]
# How often a run waiting for another run's answer to a claimed key looks again (seconds).
CLAIM_POLL_S = 0.2
# Built when the call is made (e.g. images read and resized off the event loop): the
# request and facts to store with the record's meta (e.g. the image transforms applied).
Prepare = Callable[[], Awaitable[tuple[ModelRequest, dict[str, Any]]]]
Progress = Callable[[int, int], None]


@dataclass(frozen=True)
class Call:
    """One model call to make or find in the cache: its key and its request (given, or
    built by `prepare` only when a request is actually sent)."""

    key: str
    request: ModelRequest | None = None
    prepare: Prepare | None = None

    async def build(self) -> tuple[ModelRequest, dict[str, Any]]:
        """The request to send and the facts to add to the record's meta."""
        if self.prepare is not None:
            return await self.prepare()
        if self.request is None:
            raise ValueError(f"call {self.key[:12]}: neither a request nor a prepare step")
        return self.request, {}


@dataclass(frozen=True)
class Outcome:
    """What happened to one call in this run (see the module docstring)."""

    source: Source
    record: CallRecord | None = None
    error: str | None = None
    latency_s: float = 0.0

    @property
    def ok(self) -> bool:
        """Whether there is an answer (from the cache or from a request of this run)."""
        return self.record is not None

    @property
    def cached(self) -> bool:
        """Whether this run took the answer from the call cache."""
        return self.source == "cache"


@dataclass
class CallCounts:
    """Counts of one `run_calls`, per call given: `from_cache` + `called` (sent in this
    run, identical calls sharing one request each counted; `errors` of them failed) +
    `budget_skipped` = all calls. `requests` is the number of requests actually started
    and `cost` the USD they cost (cache hits cost nothing)."""

    from_cache: int = 0
    called: int = 0
    errors: int = 0
    budget_skipped: int = 0
    requests: int = 0
    cost: float = 0.0
    stopped: str = ""


def _cost(outcome: Outcome) -> float:
    """What a request's outcome cost (a failed request costs 0)."""
    return outcome.record.cost if outcome.record is not None else 0.0


def _check_storable(response: ModelResponse) -> None:
    """Raise ModelCallError when the answer cannot be stored as UTF-8 (a lone surrogate
    such as a JSON `"\\ud800"`): such a reply is that call's error, never a cached answer."""
    for where, text in (("answer", response.text),
                        ("meta", json.dumps(response.meta, ensure_ascii=False, default=str))):
        try:
            text.encode("utf-8")
        except UnicodeEncodeError as exc:
            raise ModelCallError(f"malformed response: the {where} is not valid Unicode "
                                 f"(lone surrogate at character {exc.start})") from exc


class _CacheThread:
    """Runs the cache work of one run on a thread of its own. A SQLite commit usually takes
    tens of microseconds, but now and then (a WAL checkpoint's fsync, the kernel flushing
    dirty pages) it blocks for milliseconds: on the event loop that would stall every call
    in flight, while on this thread the loop keeps receiving and parsing replies meanwhile
    (their stores wait their turn). The work asked during one turn of the loop goes as one
    batch (each piece still its own transaction), so a round of answers costs one thread
    wake-up, not one per answer."""

    def __init__(self) -> None:
        self._executor = ThreadPoolExecutor(1, thread_name_prefix="call-cache")
        self._pending: list[tuple[Callable[..., Any], tuple[Any, ...], asyncio.Future]] = []

    async def run(self, work: Callable[..., T], *args: Any) -> T:
        """`work(*args)` on the thread; its result or its exception here."""
        loop = asyncio.get_running_loop()
        done = loop.create_future()
        self._pending.append((work, args, done))
        if len(self._pending) == 1:
            loop.call_soon(self._send, loop)
        return await done

    def _send(self, loop: asyncio.AbstractEventLoop) -> None:
        batch, self._pending = self._pending, []
        try:
            self._executor.submit(self._work, loop, batch)
        except RuntimeError:  # closed: the run has ended and none of this work was done
            for _, _, done in batch:
                done.cancel()

    @staticmethod
    def _work(loop: asyncio.AbstractEventLoop, batch: list) -> None:
        results: list[tuple[Any, Any, Exception | None]] = []
        for work, args, done in batch:
            try:
                results.append((done, work(*args), None))
            except Exception as exc:  # noqa: BLE001 - handed to the caller
                results.append((done, None, exc))
        loop.call_soon_threadsafe(_CacheThread._deliver, results)

    @staticmethod
    def _deliver(results: list) -> None:
        for done, value, exc in results:
            if done.cancelled():  # its caller stopped waiting (the run is ending)
                continue
            if exc is not None:
                done.set_exception(exc)
            else:
                done.set_result(value)

    def close(self) -> None:
        """Wait for the work sent, then end the thread."""
        self._executor.shutdown()


@dataclass
class _Loop:
    adapter: Adapter
    config: ModelConfig
    cache: CallCache
    budget: Budget
    progress: Progress | None
    fresh: bool = False
    counts: CallCounts = field(default_factory=CallCounts)
    done: int = 0
    total: int = 0
    writer: _CacheThread = field(default_factory=_CacheThread)
    # Keys this run holds a claim on (changed on the cache thread only): whatever a fault
    # or Ctrl-C cut short, a claim made is ended (`release_held`), never left to stall
    # another run until CLAIM_STALE_S.
    held: set[str] = field(default_factory=set)

    def tick(self, n: int) -> None:
        self.done += n
        if self.progress and n:
            self.progress(self.done, self.total)

    async def off_loop(self, work: Callable[..., T], *args: Any) -> T:
        """`work(*args)` on the cache's thread (see `_CacheThread`)."""
        return await self.writer.run(work, *args)

    def _claim_once(self, key: str) -> tuple[bool, CallRecord | None]:
        """(claimed, the record stored under `key` meanwhile); a claimed key found stored
        (by another run after this run's first look) is released at once."""
        claimed = self.cache.claim(key)
        if claimed:
            self.held.add(key)
        record = None if self.fresh else self.cache.get(key)
        if claimed and record is not None:
            self._release(key)
        return claimed, record

    def _store(self, key: str, record: CallRecord) -> None:
        """Store the answer (which ends its claim)."""
        self.cache.put(key, record)
        self.held.discard(key)

    def _release(self, key: str) -> None:
        """End the claim on `key` without an answer."""
        self.cache.release(key)
        self.held.discard(key)

    def release_held(self) -> None:
        """End every claim still held once the run is over (after the cache thread has
        ended): those of calls cut short by a fault or a cancellation, including a claim
        made on the thread after its caller had stopped waiting."""
        for key in sorted(self.held):
            with contextlib.suppress(BenchKitError):  # the fault itself is what is told
                self.cache.release(key)
        self.held.clear()

    async def claim(self, key: str) -> CallRecord | None:
        """Claim `key` for a call of this run. While another run holds it, wait (without
        the concurrency slot) for its answer: that record is returned (None = call)."""
        claimed, record = await self.off_loop(self._claim_once, key)
        while not claimed and record is None:
            await wait_outside_slot(CLAIM_POLL_S, asyncio.sleep)
            claimed, record = await self.off_loop(self._claim_once, key)
        return record

    async def called(self, call: Call, bounded: BoundedLoop) -> Outcome:
        """A claimed call: sent in a concurrency slot (if the budget allows), its answer
        stored and its claim ended after the slot is given back (a fault's claim is ended
        by `release_held`)."""
        sent = await bounded.send(lambda: self.request(call), _cost)
        outcome = Outcome("budget", error=sent.reason) if isinstance(sent, Refused) else sent
        if outcome.source == "called" and outcome.record is not None:
            self.counts.cost += outcome.record.cost
            await self.off_loop(self._store, call.key, outcome.record)  # ends the claim
        else:  # an error or a budget stop: nothing stored, the claim ends
            await self.off_loop(self._release, call.key)
        return outcome

    async def request(self, call: Call) -> Outcome:
        """Send one call (the caller holds a concurrency slot and a budget start); the
        caller stores a "called" outcome's record."""
        request, extra_meta = await call.build()
        started = time.perf_counter()
        try:
            response = await self.adapter.complete(request)
            _check_storable(response)
        except ModelCallError as exc:
            return Outcome("error", error=str(exc),
                           latency_s=round(time.perf_counter() - started, 3))
        except BenchKitError:  # a setting or an input the user must fix: stop the run
            raise
        except Exception as exc:  # one bad reply fails its row, never the whole run
            return Outcome("error", error=f"adapter failed ({type(exc).__name__}: "
                                          f"{str(exc)[:120]})",
                           latency_s=round(time.perf_counter() - started, 3))
        latency = response.latency_s if response.latency_s is not None \
            else time.perf_counter() - started
        meta = {**response.meta, **extra_meta}
        record = CallRecord(response=response.text, tokens_in=response.tokens_in,
                            tokens_out=response.tokens_out, latency_s=round(latency, 3),
                            cost=self.config.cost(response.tokens_in, response.tokens_out),
                            truncated=response.truncated,
                            # canonical key order, as a cache read returns it
                            meta=json.loads(json.dumps(meta, sort_keys=True)),
                            created_at=utc_now())
        return Outcome("called", record=record, latency_s=record.latency_s)

    async def run(self, groups: dict[str, list[int]], calls: Sequence[Call],
                  outcomes: list[Outcome | None]) -> None:
        bounded = BoundedLoop(self.config.concurrency, self.budget)

        async def one(indices: list[int]) -> None:
            call = calls[indices[0]]
            stored = await self.claim(call.key)  # claimed while waiting for a slot
            if stored is not None:
                outcome = Outcome("cache", record=stored, latency_s=stored.latency_s)
            else:
                outcome = await self.called(call, bounded)
            for index in indices:
                outcomes[index] = outcome
            if outcome.source == "budget":
                self.counts.budget_skipped += len(indices)
            elif outcome.source == "cache":
                self.counts.from_cache += len(indices)
            else:
                self.counts.called += len(indices)
                self.counts.errors += outcome.source == "error" and len(indices)
            self.tick(len(indices))

        try:
            await bounded.run(functools.partial(one, indices) for indices in groups.values())
        finally:
            self.counts.requests = bounded.requests


def run_calls(calls: Sequence[Call], *, adapter: Adapter, config: ModelConfig,
              cache: CallCache, budget: Budget | None = None, fresh: bool = False,
              progress: Progress | None = None) -> tuple[list[Outcome], CallCounts]:
    """Answer every call from the cache or by a request (see the module docstring); the
    outcomes come back in the order of `calls`. Closes the adapter at the end.

    `progress(done, total)` is called as calls are answered (cache hits at once).

    Raises:
        Whatever a call's `prepare` raises (e.g. InputError for an unreadable image);
        a failed request is an `error` outcome, never an exception.
    """
    budget = budget if budget is not None else Budget()
    loop = _Loop(adapter, config, cache, budget, progress, fresh=fresh, total=len(calls))
    outcomes: list[Outcome | None] = [None] * len(calls)
    groups: dict[str, list[int]] = {}
    for index, call in enumerate(calls):
        record = None if fresh else cache.get(call.key)
        if record is not None:
            outcomes[index] = Outcome("cache", record=record, latency_s=record.latency_s)
            loop.counts.from_cache += 1
        else:
            groups.setdefault(call.key, []).append(index)
    loop.tick(loop.counts.from_cache)

    async def go() -> None:
        try:
            await loop.run(groups, calls, outcomes)
        finally:
            try:
                await adapter.aclose()
            finally:
                loop.writer.close()
                loop.release_held()

    asyncio.run(go())
    loop.counts.cost = round(loop.counts.cost, 10)
    loop.counts.stopped = budget.reason if loop.counts.budget_skipped else ""
    answered = [o for o in outcomes if o is not None]
    assert len(answered) == len(calls), "every call gets an outcome"
    return answered, loop.counts
