"""Per-client rate limits: a token bucket per client key, refusing with RATE_LIMITED and a retry delay.

A bucket holds at most ``burst`` tokens and refills at ``rate`` tokens a second; each limited call takes one.
The key is the caller's: the SHA-256 of the seat token for calls that carry one (so players behind one
address never share a bucket), else the peer's host. Buckets that have refilled completely are forgotten
when the table of buckets grows, so memory stays bounded by the clients active in the last ``burst / rate``
seconds.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Final

from server.errors import ErrorReason, ServiceError

MAX_BUCKETS: Final = 100_000
"""Buckets kept before the full (idle) ones are swept."""


class RateLimiter:
    """Token buckets by key; ``rate`` 0 disables every limit."""

    def __init__(
        self,
        rate: float,
        burst: float,
        *,
        clock: Callable[[], float] = time.monotonic,
        max_buckets: int = MAX_BUCKETS,
    ) -> None:
        self.rate = rate
        self.burst = max(1.0, burst)
        self._clock = clock
        self._max_buckets = max_buckets
        self._buckets: dict[str, tuple[float, float]] = {}
        """key -> (tokens, when they were counted)."""

    @property
    def enabled(self) -> bool:
        return self.rate > 0

    def delay(self, key: str, cost: float = 1.0) -> float:
        """Take ``cost`` tokens for ``key`` (at most a full bucket's): 0.0 when allowed, else the seconds
        until they are available."""
        if self.rate <= 0:
            return 0.0
        cost = min(cost, self.burst)
        now = self._clock()
        tokens, then = self._buckets.get(key, (self.burst, now))
        tokens = min(self.burst, tokens + (now - then) * self.rate)
        if tokens >= cost:
            self._buckets[key] = (tokens - cost, now)
            if len(self._buckets) > self._max_buckets:
                self._sweep(now)
            return 0.0
        self._buckets[key] = (tokens, now)
        return (cost - tokens) / self.rate

    def check(self, key: str, what: str, cost: float = 1.0) -> None:
        """RATE_LIMITED (with RetryInfo) when ``key`` has not ``cost`` tokens left."""
        wait = self.delay(key, cost)
        if wait > 0:
            raise ServiceError(
                ErrorReason.RATE_LIMITED,
                f"too many {what} requests from this client; retry in {wait:.3f} s",
                retry_delay=wait,
            )

    def _sweep(self, now: float) -> None:
        """Forget the buckets that have refilled (a forgotten bucket starts full: the same thing)."""
        self._buckets = {
            key: (tokens, then)
            for key, (tokens, then) in self._buckets.items()
            if tokens + (now - then) * self.rate < self.burst
        }
