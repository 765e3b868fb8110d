"""The ladder's metrics (``thousand_ladder_*``), on the server's registry when it serves metrics."""

from __future__ import annotations

from prometheus_client import CollectorRegistry, Counter, Gauge, Histogram

SET_BUCKETS = (10.0, 30.0, 60.0, 120.0, 300.0, 600.0, 1200.0, 1800.0, 3600.0)


class LadderMetrics:
    """What this node's part of the ladder did: its connected bots, the sets it started and rated, the
    seconds its scheduling rounds took (the scheduler's CPU per game is ``bench/ladder.py``'s)."""

    def __init__(self, registry: CollectorRegistry) -> None:
        self.bots_connected = Gauge(
            "thousand_ladder_bots_connected",
            "Ladder bots whose JoinLadder stream this node holds",
            registry=registry,
        )
        self.sets_started = Counter(
            "thousand_ladder_sets_started", "Ladder sets this node placed", ["pool"], registry=registry
        )
        self.sets_rated = Counter(
            "thousand_ladder_sets_rated",
            "Ladder sets this node rated, by whether a member disconnected during the set",
            ["pool", "disconnected"],
            registry=registry,
        )
        self.timeouts = Counter(
            "thousand_ladder_timeouts",
            "Decisions of rated ladder sets that the turn clock gave to the reference bot",
            ["pool"],
            registry=registry,
        )
        self.set_seconds = Histogram(
            "thousand_ladder_set_duration_seconds",
            "Seconds from a ladder set's start to its rating",
            buckets=SET_BUCKETS,
            registry=registry,
        )
        self.round_seconds = Histogram(
            "thousand_ladder_round_duration_seconds",
            "Seconds of one scheduling round (the database transaction and the pairing)",
            registry=registry,
        )
