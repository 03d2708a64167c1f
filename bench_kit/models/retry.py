"""Retries with exponential backoff and jitter, honouring a server's `Retry-After`."""

from __future__ import annotations

import asyncio
import random
from dataclasses import dataclass
from datetime import datetime, timezone
from email.utils import parsedate_to_datetime
from typing import Awaitable, Callable, TypeVar

from bench_kit.errors import ModelCallError

T = TypeVar("T")


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
    max_retry_after_s: float = 600.0

    def delay(self, attempt: int, retry_after: float | None, rng: random.Random) -> float:
        """Seconds to wait before the next attempt; a server's Retry-After wins (capped)."""
        if retry_after is not None:
            return min(max(retry_after, 0.0), self.max_retry_after_s)
        ceiling = min(self.max_backoff_s, self.backoff_s * 2 ** attempt)
        # "Equal jitter": half fixed, half random, so replicas' retries do not align.
        return ceiling / 2 + rng.uniform(0.0, ceiling / 2)


def parse_retry_after(value: str | None, now: datetime | None = None) -> float | None:
    """`Retry-After` as seconds: a number of seconds or an HTTP date; None if absent or bad.

    >>> parse_retry_after("7")
    7.0
    >>> parse_retry_after("soon") is None
    True
    """
    if value is None:
        return None
    value = value.strip()
    try:
        return max(float(value), 0.0)
    except ValueError:
        pass
    try:
        when = parsedate_to_datetime(value)
    except (TypeError, ValueError, IndexError):
        return None
    if when.tzinfo is None:
        when = when.replace(tzinfo=timezone.utc)
    return max((when - (now or datetime.now(timezone.utc))).total_seconds(), 0.0)


async def call_with_retries(attempt: Callable[[], Awaitable[T]], policy: RetryPolicy, *,
                            sleep: Callable[[float], Awaitable[None]] | None = None,
                            rng: random.Random | None = None) -> T:
    """Run `attempt` until it succeeds, retrying on RetryableError.

    Raises:
        ModelCallError: after `policy.max_retries` retries, with the last reason; other
            exceptions (including ModelCallError for non-retryable failures) pass through.
    """
    sleep = sleep or asyncio.sleep
    rng = rng or random.Random()
    attempts = policy.max_retries + 1
    for number in range(attempts):
        try:
            return await attempt()
        except RetryableError as exc:
            last = exc
            if number + 1 < attempts:
                await sleep(policy.delay(number, exc.retry_after, rng))
    raise ModelCallError(f"{last.reason} (gave up after {attempts} attempts)")
