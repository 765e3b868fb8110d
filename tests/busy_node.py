"""``python -m tests.busy_node BLOCK GAP [server flags]``: a real ``thousand-server`` whose event loop is kept
busy on purpose, for tests/test_cluster_busy.py (issue #32: nodes left SERVING under load).

From ``GAP`` seconds after the loop starts, and every ``GAP`` seconds after each burst, one callback on the
loop plays seeded random games of Thousand with the engine for ``BLOCK`` seconds without yielding: the CPU
work a loop does for tables (the engine applying actions, in Python), in one bounded, blocking run, as a long
takeover's replay or a burst of actions makes it. Nothing of the server is changed: the same ``main``, on an
event loop that also runs this callback (asyncio's policy makes the loop ``asyncio.run`` uses).
"""

from __future__ import annotations

import asyncio
import random
import sys
import time

from engine import Game, Rules, playout
from server.app import main
from tests.randomplay import random_action


def burn(seconds: float, rng: random.Random) -> int:
    """Random games played with the engine for ``seconds`` (a deal at a time); the actions applied."""
    deadline = time.monotonic() + seconds
    applied = 0
    while time.monotonic() < deadline:
        game = Game(Rules(), rng.randrange(1 << 30))
        for _ in playout.playout(
            game, random_action, rng, lambda g: not (g.is_chance_node and g.deals_dealt)
        ):
            applied += 1
            if time.monotonic() >= deadline:
                break
    return applied


class BusyPolicy(asyncio.DefaultEventLoopPolicy):
    """Every new loop gets the bursts (the server makes one, with ``asyncio.run``)."""

    def __init__(self, block: float, gap: float) -> None:
        super().__init__()
        self.block, self.gap = block, gap

    def new_event_loop(self) -> asyncio.AbstractEventLoop:
        loop = super().new_event_loop()
        rng = random.Random(32)

        def burst() -> None:
            applied = burn(self.block, rng)
            print(f"busy_node: loop blocked {self.block} s ({applied} actions)", file=sys.stderr, flush=True)
            loop.call_later(self.gap, burst)

        loop.call_later(self.gap, burst)
        return loop


if __name__ == "__main__":
    block, gap = float(sys.argv[1]), float(sys.argv[2])
    asyncio.set_event_loop_policy(BusyPolicy(block, gap))
    sys.exit(main(sys.argv[3:]))
