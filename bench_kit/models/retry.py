"""Retries with exponential backoff and jitter, honouring a server's `Retry-After`.

A `Retry-After` is honoured up to `max_wait_s` (the model's setting, default 60 s): a
server that asks for longer fails the call at once with a reason saying so (never an early
retry; the row is an error and a re-run asks again). A value that is not a finite number
of seconds or an HTTP date (`nan`, `inf`, `-3`, garbage) is ignored: the normal backoff
applies. A call waiting to retry gives its concurrency slot back (`CALL_SLOT`), so calls
that are not throttled keep running while it waits.
"""

from __future__ import annotations

import asyncio
import logging
import math
import random
from contextvars import ContextVar
from dataclasses import dataclass
from datetime import datetime, timezone
from email.utils import parsedate_to_datetime
from typing import Awaitable, Callable, TypeVar

from bench_kit.errors import ModelCallError

log = logging.getLogger(__name__)

T = TypeVar("T")
DEFAULT_MAX_WAIT_S = 60.0
# The concurrency slot the current call holds, set by the model-call loop
# (bench_kit.models.batch): released while a retry waits, taken again before it resends.
CALL_SLOT: ContextVar[asyncio.Semaphore | None] = ContextVar("call_slot", default=None)


class RetryableError(Exception):
    """One attempt failed in a way worth retrying (429, 5xx, timeout, connection error)."""

    def __init__(self, reason: str, retry_after: float | None = None) -> None:
        super().__init__(reason)
        self.reason = reason
        self.retry_after = retry_after


@dataclass(frozen=True)
class RetryPolicy:
    """How often and how long to wait: attempt n (0-based) waits about backoff_s * 2**n."""

    max_retries: int = 5
    backoff_s: float = 1.0
    max_backoff_s: float = 60.0
    max_wait_s: float = DEFAULT_MAX_WAIT_S

    def delay(self, attempt: int, retry_after: float | None, rng: random.Random) -> float:
        """Seconds to wait before the next attempt; a server's Retry-After wins (the caller
        checks it against `max_wait_s` first)."""
        if retry_after is not None:
            return min(max(retry_after, 0.0), self.max_wait_s)
        ceiling = min(self.max_backoff_s, self.backoff_s * 2 ** attempt)
        # "Equal jitter": half fixed, half random, so replicas' retries do not align.
        return ceiling / 2 + rng.uniform(0.0, ceiling / 2)


def parse_retry_after(value: str | None, now: datetime | None = None) -> float | None:
    """`Retry-After` as seconds: a number of seconds or an HTTP date; None if absent or bad.

    >>> parse_retry_after("7")
    7.0
    >>> parse_retry_after("soon") is None
    True
    >>> parse_retry_after("nan") is None
    True
    """
    if value is None:
        return None
    value = value.strip()
    try:
        seconds = float(value)
    except ValueError:
        pass
    else:
        return seconds if math.isfinite(seconds) and seconds >= 0 else None
    try:
        when = parsedate_to_datetime(value)
    except (TypeError, ValueError, IndexError, OverflowError):
        return None
    if when.tzinfo is None:
        when = when.replace(tzinfo=timezone.utc)
    return max((when - (now or datetime.now(timezone.utc))).total_seconds(), 0.0)


async def call_with_retries(attempt: Callable[[], Awaitable[T]], policy: RetryPolicy, *,
                            sleep: Callable[[float], Awaitable[None]] | None = None,
                            rng: random.Random | None = None) -> T:
    """Run `attempt` until it succeeds, retrying on RetryableError.

    Raises:
        ModelCallError: after `policy.max_retries` retries, with the last reason; at once
            when the server asks to wait longer than `policy.max_wait_s`; other exceptions
            (including ModelCallError for non-retryable failures) pass through.
    """
    sleep = sleep or asyncio.sleep
    rng = rng or random.Random()
    attempts = policy.max_retries + 1
    for number in range(attempts):
        try:
            return await attempt()
        except RetryableError as exc:
            last = exc
            if exc.retry_after is not None and exc.retry_after > policy.max_wait_s:
                raise ModelCallError(
                    f"{exc.reason}: the server asked to wait {exc.retry_after:,.0f}s "
                    f"(Retry-After), more than max_wait_s ({policy.max_wait_s:g}s); "
                    f"re-run later") from exc
            if number + 1 < attempts:
                delay = policy.delay(number, exc.retry_after, rng)
                log.info("retry %d/%d in %.1fs: %s", number + 1, policy.max_retries, delay,
                         exc.reason)
                await wait_outside_slot(delay, sleep)
    raise ModelCallError(f"{last.reason} (gave up after {attempts} attempts)") from last


async def wait_outside_slot(seconds: float,
                             sleep: Callable[[float], Awaitable[None]]) -> None:
    """Sleep without holding the call's concurrency slot (when it holds one)."""
    slot = CALL_SLOT.get()
    if slot is None or seconds <= 0:
        await sleep(seconds)
        return
    slot.release()
    try:
        await sleep(seconds)
    finally:
        await slot.acquire()
