"""What an operator needs of the process beyond the game: the memory it may use, and whether Prometheus has
scraped it since a moment (a draining server waits for one last scrape before it exits).

``thousand_memory_limit_bytes`` is the limit of the process's control group (a container's or pod's memory
limit: cgroup v2 ``memory.max``, or v1 ``memory.limit_in_bytes``), so an alert can compare
``process_resident_memory_bytes`` with it; without a limit the series is absent.
"""

from __future__ import annotations

import threading
from collections.abc import Iterable
from pathlib import Path
from typing import Final

from prometheus_client.core import GaugeMetricFamily, Metric
from prometheus_client.registry import Collector

CGROUP_ROOT: Final = Path("/sys/fs/cgroup")
UNLIMITED_V1: Final = 1 << 60
"""cgroup v1 writes "no limit" as a page-rounded 2**63 - 1; anything this large is no limit."""


def memory_limit(root: Path = CGROUP_ROOT) -> int | None:
    """The process's control group memory limit in bytes; None when there is none (or no cgroup)."""
    for path in (root / "memory.max", root / "memory" / "memory.limit_in_bytes"):
        try:
            text = path.read_text().strip()
        except OSError:
            continue
        if text == "max":
            return None
        try:
            value = int(text)
        except ValueError:
            return None
        return None if value >= UNLIMITED_V1 else value
    return None


class MemoryLimitCollector(Collector):
    """``thousand_memory_limit_bytes``, read at each scrape (a limit can change under a running pod)."""

    def __init__(self, root: Path = CGROUP_ROOT) -> None:
        self.root = root

    def collect(self) -> Iterable[Metric]:
        limit = memory_limit(self.root)
        if limit is not None:
            yield GaugeMetricFamily(
                "thousand_memory_limit_bytes",
                "The memory the process may use: its control group's limit (a container's or pod's).",
                value=limit,
            )


class ScrapeWatch(Collector):
    """Notes each scrape (it exposes nothing), so that a draining server can wait for the next one."""

    def __init__(self) -> None:
        self._scraped = threading.Event()

    def collect(self) -> Iterable[Metric]:
        self._scraped.set()
        return []

    def forget(self) -> None:
        """From now on, only a later scrape counts."""
        self._scraped.clear()

    def wait(self, timeout: float) -> bool:
        """Whether a scrape came (since :meth:`forget`) within ``timeout`` seconds."""
        return self._scraped.wait(timeout)
