"""Quick play's metrics (``thousand_quickplay_*``), on the server's registry when it serves metrics."""

from __future__ import annotations

from prometheus_client import CollectorRegistry, Counter, Gauge, Histogram

WAIT_BUCKETS = (1.0, 2.0, 5.0, 10.0, 20.0, 30.0, 45.0, 60.0, 90.0, 120.0, 300.0, 600.0)


class QuickPlayMetrics:
    """The queue as this node last read it, and what this node did: waits of the players it seated,
    matches and bot fills it placed."""

    def __init__(self, registry: CollectorRegistry) -> None:
        self.waiting = Gauge(
            "thousand_quickplay_players_waiting",
            "Players waiting in the cluster's quick-play queue, as this node last read it",
            registry=registry,
        )
        self.wait_seconds = Histogram(
            "thousand_quickplay_wait_seconds",
            "Seconds from joining the queue to the seat, of the players whose stream this node ended",
            buckets=WAIT_BUCKETS,
            registry=registry,
        )
        self.matches = Counter(
            "thousand_quickplay_matches",
            "Quick-play tables this node placed (matchmaking rounds it ran)",
            registry=registry,
        )
        self.bot_fills = Counter(
            "thousand_quickplay_bot_fills",
            "Quick-play tables this node placed with bots filling seats after the accepted wait",
            registry=registry,
        )
