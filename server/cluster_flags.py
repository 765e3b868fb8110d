"""A cluster node's flags (``--node-id``, ``--advertise-address``, ``--lease-seconds``, ``--placement``,
``--rebalance-seconds``) and
the settings of :class:`~server.cluster.Node` they make, with their defaults: what ``thousand-server`` adds
to its command line for a PostgreSQL ``--db``."""

from __future__ import annotations

import argparse
import socket
from dataclasses import dataclass
from typing import Final

from server.rebalancing import DEFAULT_REBALANCE_SECONDS

WILDCARDS: Final = ("", "0.0.0.0", "::", "[::]")
DEFAULT_LEASE_SECONDS: Final = 5.0
PLACEMENTS: Final = ("local", "least-loaded")


@dataclass(frozen=True, slots=True)
class NodeSettings:
    node_id: str
    endpoint: str
    """The gRPC address clients reach this node at (``--advertise-address``)."""
    web_endpoint: str = ""
    """The web port's address, when the node serves one."""
    lease_seconds: float = DEFAULT_LEASE_SECONDS
    placement: str = "local"
    rebalance_seconds: float = DEFAULT_REBALANCE_SECONDS
    """``--rebalance-seconds``: the pause between two tables this node gives away to spread the load (0:
    it never does)."""
    finished_kept_seconds: float = 0.0
    """``--table-idle-seconds``: a finished table older than this is not taken over (0: every one is)."""

    @property
    def heartbeat_seconds(self) -> float:
        return self.lease_seconds / 4

    @property
    def tick_seconds(self) -> float:
        """How often the node looks for dead nodes and publishes its tables' summaries."""
        return min(0.25, self.lease_seconds / 8)


def add_cluster_arguments(
    parser: argparse.ArgumentParser,
    env: dict[str, str],
    *,
    lease_seconds: float,
    placement: str,
    rebalance_seconds: float,
) -> None:
    cluster = parser.add_argument_group("cluster (with a PostgreSQL --db): docs/operations.md")
    cluster.add_argument(
        "--node-id",
        default=env.get("THOUSAND_NODE_ID", ""),
        help="this node's name, stable across restarts (default: the advertised address)",
    )
    cluster.add_argument(
        "--advertise-address",
        default=env.get("THOUSAND_ADVERTISE_ADDRESS", ""),
        help="host:port clients reach this node at (default: --host and --port)",
    )
    cluster.add_argument(
        "--lease-seconds",
        type=float,
        default=float(env.get("THOUSAND_LEASE_SECONDS", lease_seconds)),
        help="a node silent this long is declared dead and its tables taken over (one killed outright,"
        " within about 0.4 of it)",
    )
    cluster.add_argument(
        "--placement",
        choices=PLACEMENTS,
        default=env.get("THOUSAND_PLACEMENT", placement),
        help="where CreateTable puts a table: on the node asked, or on the one with the fewest unfinished",
    )
    cluster.add_argument(
        "--rebalance-seconds",
        type=float,
        default=float(env.get("THOUSAND_REBALANCE_SECONDS", rebalance_seconds)),
        help="a node two or more unfinished tables above the least loaded one gives it a table, one per this"
        " many seconds, between two actions (0: never)",
    )


def node_settings(
    node_id: str,
    advertise_address: str,
    host: str,
    port: int,
    *,
    web_port: int,
    lease_seconds: float,
    placement: str,
    finished_kept_seconds: float,
    rebalance_seconds: float = DEFAULT_REBALANCE_SECONDS,
) -> NodeSettings:
    """The node's settings once its port is bound: its endpoint is ``advertise_address``, else the host
    and port it listens on (the machine's name for a wildcard host); its id, the endpoint unless given."""
    endpoint = advertise_address or f"{socket.gethostname() if host in WILDCARDS else host}:{port}"
    # The web port, when on, is advertised on the same host (the gRPC address's) at its own port.
    web_endpoint = f"{endpoint.rpartition(':')[0]}:{web_port}" if web_port else ""
    return NodeSettings(
        node_id=node_id or endpoint,
        endpoint=endpoint,
        web_endpoint=web_endpoint,
        lease_seconds=lease_seconds,
        placement=placement,
        finished_kept_seconds=finished_kept_seconds,
        rebalance_seconds=rebalance_seconds,
    )
