"""What the server benchmark's processes agree on, and what one client process's callers share.

The controller, the echo process and the client processes (bench/server.py) all play tables of
:data:`PLAYERS` seats and measure the same :data:`SIDES`. Inside a client process every game table and every
floor caller counts into one :class:`ClientShared`: whether its side runs now, how many of its actions are in
flight, and the :class:`Window` of the slice being measured.
"""

from __future__ import annotations

import argparse
import asyncio
import time
from collections import Counter
from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from typing import Final

from grpc import aio

PLAYERS: Final = 3
SIDES: Final = ("game", "echo", "fanout")
DRAIN_SECONDS: Final = 10.0
"""How long a client waits, after a slice, for its actions (calls) in flight to complete."""
MAX_ACTIONS_PER_TABLE: Final = 10_000_000
"""A bound on every actor's loop (the run's time limit ends it long before)."""


@dataclass(slots=True)
class Window:
    """What a client measured in one slice of one side."""

    start: float = 0.0
    end: float = 0.0
    latencies: list[float] = field(default_factory=list)
    """Seconds, of every action (call) that completed inside the window."""
    errors: Counter[str] = field(default_factory=Counter)
    messages: int = 0
    """Stream messages received while the game side ran."""

    def record(self, began: float, ended: float) -> None:
        if self.start <= ended < self.end:
            self.latencies.append(ended - began)


class ClientShared:
    """State every table and echo caller of one client process shares."""

    def __init__(self, args: argparse.Namespace) -> None:
        self.args = args
        self.deadline = time.monotonic() + args.lifetime
        self.running = {side: asyncio.Event() for side in SIDES}
        self.window = Window()
        self.in_flight = {side: 0 for side in SIDES}
        self.replaced = 0
        self._channels: list[aio.Channel] = []
        self._shared: dict[str, aio.Channel] = {}

    async def turns(self, side: str) -> AsyncIterator[int]:
        """A floor caller's loop: yields a running count whenever ``side`` runs, until the process's deadline
        (the count goes on while the side waits, so a caller may take turns by it)."""
        running = self.running[side]
        for count in range(MAX_ACTIONS_PER_TABLE):
            if time.monotonic() >= self.deadline:
                return
            try:
                await asyncio.wait_for(running.wait(), timeout=1.0)
            except TimeoutError:
                continue
            yield count

    def channel(self, target: str) -> aio.Channel:
        """A channel of its own per caller (``--connections seat``) or one per target (``shared``)."""
        if self.args.connections == "shared" and target in self._shared:
            return self._shared[target]
        # A local subchannel pool: otherwise gRPC would share one connection between equal channels.
        channel = aio.insecure_channel(target, options=[("grpc.use_local_subchannel_pool", 1)])
        self._channels.append(channel)
        self._shared.setdefault(target, channel)
        return channel

    async def close(self) -> None:
        await asyncio.gather(*(c.close() for c in self._channels), return_exceptions=True)
