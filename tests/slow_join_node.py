"""``python -m tests.slow_join_node SECONDS [server flags]``: a real ``thousand-server`` that takes
``SECONDS`` longer to join its cluster, for tests/test_cluster.py (issue 17: least-loaded placement).

A node binds its gRPC port, which then accepts connections (the kernel queues them), before it joins the
cluster (:meth:`server.membership.Membership.join`, in ``Server.start``). On a loaded machine that gap once
lasted long enough for a test to place two tables while the second node was not yet in the membership. This
node makes the gap certain, so that a harness which took a listening port for a joined node fails every
time. Nothing else of the server is changed: the same ``main``, with ``join`` delayed.
"""

from __future__ import annotations

import sys
import time

from server.app import main
from server.membership import Membership


def slowed(seconds: float) -> None:
    """Every ``Membership.join`` of this process waits ``seconds`` first (it runs in a thread of its own)."""
    join = Membership.join

    def slow_join(self: Membership) -> None:
        time.sleep(seconds)
        join(self)

    Membership.join = slow_join  # type: ignore[method-assign]


if __name__ == "__main__":
    slowed(float(sys.argv[1]))
    sys.exit(main(sys.argv[2:]))
