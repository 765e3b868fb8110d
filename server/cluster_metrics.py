"""The metrics of a cluster node and of its store: what it owns, what it took over and dropped, how fresh its
lease is, and how long its commits take. Read when Prometheus scrapes (no per-table labels: counts only)."""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING

from prometheus_client.core import CounterMetricFamily, GaugeMetricFamily, Metric, SummaryMetricFamily
from prometheus_client.registry import Collector

from server.store import Store

if TYPE_CHECKING:
    from server.cluster import Node


class StoreCollector(Collector):
    """``thousand_store_*``: commits and writes (group commit shares one commit among many writes), their
    latency (sum and count: rate(sum) / rate(count) is the mean commit time), and writes waiting."""

    def __init__(self, store: Store) -> None:
        self.store = store

    def collect(self) -> Iterable[Metric]:
        store = self.store
        commits = SummaryMetricFamily(
            "thousand_store_commit_seconds", "Time the store's transactions took, from begin to commit."
        )
        commits.add_metric([], count_value=store.commits, sum_value=store.commit_seconds)
        yield commits
        yield CounterMetricFamily("thousand_store_writes", "Writes committed.", value=store.writes)
        yield CounterMetricFamily(
            "thousand_store_failures", "Transactions that failed.", value=store.failures
        )
        yield GaugeMetricFamily(
            "thousand_store_queued_writes", "Writes waiting for the writer.", value=store.queued
        )


class ClusterCollector(Collector):
    """``thousand_cluster_*``: this node's tables, takeovers, drops and lease."""

    def __init__(self, node: Node) -> None:
        self.node = node

    def collect(self) -> Iterable[Metric]:
        node = self.node
        figures = node.figures
        yield GaugeMetricFamily(
            "thousand_cluster_tables_owned",
            "Tables this node owns and serves.",
            value=len(node.store.holdings),
        )
        claims = CounterMetricFamily(
            "thousand_cluster_claims", "Tables this node claimed, by why.", labels=("reason",)
        )
        for reason, count in sorted(figures.claims.items()):
            claims.add_metric([reason], count)
        yield claims
        yield CounterMetricFamily(
            "thousand_cluster_tables_dropped",
            "Tables let go because another node owns them now.",
            figures.dropped,
        )
        yield CounterMetricFamily(
            "thousand_cluster_tables_rebalanced",
            "Tables this node gave to a less loaded node to spread the load (--rebalance-seconds).",
            figures.rebalanced,
        )
        yield GaugeMetricFamily(
            "thousand_cluster_rebalance_waiting",
            "1 while a table chosen to move waits for the person on turn there to play (its safe point).",
            value=int(node.rebalancer.waiting is not None),
        )
        yield GaugeMetricFamily(
            "thousand_cluster_rebalancing_paused",
            "1 while an operator has paused rebalancing in the whole cluster (thousand-cluster rebalancing).",
            value=int(node.rebalancer.paused),
        )
        yield CounterMetricFamily(
            "thousand_cluster_nodes_declared_dead",
            "Other nodes this node declared dead (lock gone or lease run out).",
            figures.nodes_declared_dead,
        )
        yield CounterMetricFamily(
            "thousand_cluster_replay_seconds",
            "Time spent loading and replaying claimed tables.",
            figures.replay_seconds,
        )
        yield GaugeMetricFamily(
            "thousand_cluster_lease_age_seconds",
            "Seconds since the database last accepted this node's heartbeat (alert well below the lease).",
            value=node.lease_age,
        )
        yield GaugeMetricFamily(
            "thousand_cluster_lease_seconds",
            "The node's lease (--lease-seconds).",
            value=node.settings.lease_seconds,
        )
