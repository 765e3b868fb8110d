"""How long to wait before trying again: exponential backoff with jitter, with a time after which to give up.

A person is waiting, so the first retry comes quickly; many clients losing the same server at once must not
come back in step, so every delay is jittered.
"""

from __future__ import annotations

import random
from collections.abc import Iterator
from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class Backoff:
    """Exponential backoff with jitter for reconnecting streams and retrying safe calls."""

    initial: float = 0.1
    """The first delay, in seconds."""
    maximum: float = 5.0
    """No delay is longer than this."""
    factor: float = 2.0
    jitter: float = 0.2
    """Each delay is scaled by a random factor in [1 - jitter, 1 + jitter]."""
    give_up_after: float | None = 300.0
    """Seconds of failing in a row after which the operation fails; None retries forever."""

    def delays(self, rng: random.Random | None = None) -> Iterator[float]:
        rng = rng or random.Random()
        delay = self.initial
        while True:
            yield min(self.maximum, delay) * rng.uniform(1 - self.jitter, 1 + self.jitter)
            delay *= self.factor
