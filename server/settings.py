"""The server's settings: what an operator can set, by flag or environment variable, with its default.

Why a module of its own: the settings are read by the server, the tests and the benchmarks, and their flags
(with each default and ``THOUSAND_`` variable in ``--help``) are most of what an operator reads; the server
process itself (``server.app``) only runs with them.
"""

from __future__ import annotations

import argparse
import os
import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Final

from server.cluster_flags import DEFAULT_LEASE_SECONDS, add_cluster_arguments
from server.identity.flags import IdentitySettings, add_identity_arguments, identity_settings
from server.ladder.flags import LADDER_REFERENCES, add_ladder_arguments, check_ladder_arguments
from server.logs import LOG_FORMATS, LOG_LEVELS
from server.pacing import DEFAULT_MAX_MOVES
from server.quotas import (
    DEFAULT_MAX_BOT_TABLES,
    DEFAULT_MAX_BOT_TABLES_PER_CLIENT,
    DEFAULT_MAX_TABLES,
    DEFAULT_MAX_TABLES_PER_CLIENT,
    TableQuotas,
)
from server.rebalancing import DEFAULT_REBALANCE_SECONDS
from server.snapshots import EVERY as SNAPSHOT_RECORDS
from server.time_control import MAX_BOT_PACE
from server.web import valid_origin

DEFAULT_PORT: Final = 50051
DEFAULT_DB: Final = "thousand.db"
SHUTDOWN_GRACE_SECONDS: Final = 5.0
TABLE_IDLE_SECONDS: Final = 86_400.0
WAITING_TABLE_IDLE_SECONDS: Final = 600.0
MAX_SWEEP_SECONDS: Final = 60.0
KEEPALIVE_SECONDS: Final = 120.0
KEEPALIVE_TIMEOUT_SECONDS: Final = 20.0
CLIENT_PING_SECONDS: Final = 10.0
"""The shortest interval between a client's keepalive pings that the server accepts."""
BOT_PACE_SECONDS: Final = 1.0
"""The ``thousand-server`` command's bot pace where people play (a person's quick move); a Settings' is 0."""
DEFAULT_WEB_ROOT: Final = str(Path(__file__).resolve().parent.parent / "clients" / "web" / "dist")
"""The web client's build output in a checkout (``make web``); an installed server is given its own."""
GC_THRESHOLD: Final = 50_000
"""Net allocations between two young garbage collections (Python's default: 700): server.app.tune_gc."""


@dataclass(frozen=True, slots=True)
class Settings:
    host: str = "127.0.0.1"
    port: int = DEFAULT_PORT
    db: str = ":memory:"
    """The store; the ``thousand-server`` command defaults to DEFAULT_DB, a file."""
    metrics_port: int = 0
    """The Prometheus exposition port (``/metrics``, on ``host``); 0: no metrics."""
    web_port: int = 0
    """The web port (on ``host``): the TableService over Connect and gRPC-Web, and the web client; 0: off."""
    web_root: str = DEFAULT_WEB_ROOT
    """The built web client's directory, served at ``/`` of the web port."""
    web_allowed_origins: tuple[str, ...] = ()
    """Origins (``https://host[:port]``, or ``*``) whose pages may call the web port's API (CORS); the
    web client served by the port itself needs none."""
    log_format: str = "auto"
    """``json``, ``console`` or ``auto`` (console on a terminal, JSON lines otherwise)."""
    log_level: str = "info"
    shutdown_grace: float = SHUTDOWN_GRACE_SECONDS
    """Seconds in-flight calls get to finish on SIGTERM (a pod's terminationGracePeriodSeconds exceeds it)."""
    final_scrape_seconds: float = 0.0
    otlp_endpoint: str = ""
    """OpenTelemetry: the OTLP/gRPC collector spans are exported to (``http://collector:4317``); "": off."""
    """With metrics: after the drain, seconds to wait for one more scrape of the final counts (0: none)."""
    max_tables: int = DEFAULT_MAX_TABLES
    """Unfinished tables the server holds at most; CreateTable beyond it is refused with TOO_MANY_TABLES."""
    max_tables_per_client: int = DEFAULT_MAX_TABLES_PER_CLIENT
    """Unfinished tables one client (its address) may have created (server.quotas); 0: no such limit."""
    max_bot_tables: int = DEFAULT_MAX_BOT_TABLES
    """Unfinished tables of bots only the server holds at most; 0: no such limit."""
    max_bot_tables_per_client: int = DEFAULT_MAX_BOT_TABLES_PER_CLIENT
    """Unfinished tables of bots only one client may have created; 0: no such limit."""
    bot_move_delay: float = 0.0
    """Seconds between two moves at a table of bots only (server.pacing); 0: as fast as their turns come."""
    bot_table_max_moves: int = DEFAULT_MAX_MOVES
    """Moves a table played by bots only makes before the server stops it (TableStopped); 0: no limit."""
    rating_min_games: int = 5
    """Rated games a player needs to appear on a rating pool's leaderboard (RatingService)."""
    ladder: bool = False
    """Run the bots' ladder (LadderService.JoinLadder; ``server.ladder``): scheduling, placing and rating."""
    ladder_per_move: float = 2.0
    """Seconds every ladder decision has (the turn clock's; the reference bots decide within it too)."""
    ladder_reference_sets: int = 1
    """Sets of reference bots only each ladder pool plays at once (0: only with registered bots)."""
    ladder_max_same: int = 100
    """Sets the same ladder pairing may start within a day."""
    ladder_references: str = LADDER_REFERENCES
    """Each ladder game's reference bots (``game=strategy,...`` joined by spaces): the games offered."""
    ladder_seed: int | None = None
    """Seeds the ladder's pairing draws (tests); None: the system's generator."""
    tls_cert: str = ""
    """PEM certificate chain file; with ``tls_key``, the server speaks TLS only."""
    tls_key: str = ""
    """PEM private key file of ``tls_cert``."""
    max_message_bytes: int = 64 * 1024
    """The largest request accepted; the biggest legitimate one (CreateTable) is well under 1 KiB."""
    rate_limit: float = 300.0
    """Requests a second one client may make of SubmitAction (per seat token), CreateTable and JoinTable
    (per peer host), sustained; 0: no limit. Beyond it: RATE_LIMITED with a RetryInfo delay."""
    rate_burst: float = 3000.0
    """Requests one client may make at once before ``rate_limit`` applies (a whole game's actions fit)."""
    table_idle_seconds: float = TABLE_IDLE_SECONDS
    """A table with no open stream and no event for this long is dropped from memory, finished or not (its
    stored records stay, for ``thousand-export``); 0: never."""
    waiting_table_idle_seconds: float = WAITING_TABLE_IDLE_SECONDS
    """The same for a table still waiting for players, much sooner: such a table costs memory and a slot of
    the quotas while nobody plays; 0: as ``table_idle_seconds``."""
    keepalive_seconds: float = KEEPALIVE_SECONDS
    """The server pings every connection this often and closes one whose peer does not answer within
    ``keepalive_timeout_seconds``: a player whose machine vanished (no FIN ever comes) loses its stream, which
    frees it, instead of holding it until TCP gives up hours later. 0: no pings."""
    keepalive_timeout_seconds: float = KEEPALIVE_TIMEOUT_SECONDS
    """How long a keepalive ping may go unanswered before its connection is closed (not a flag: tests
    shorten it)."""
    gc_threshold: int = GC_THRESHOLD
    """Net allocations between young garbage collections (:func:`tune_gc`); 0: Python's defaults."""
    snapshot_records: int = SNAPSHOT_RECORDS
    """Records between two snapshots of a table (:mod:`server.snapshots`); 0: none taken."""
    node_id: str = ""
    """With a PostgreSQL ``db``: this node's name in the cluster ("": the advertised address)."""
    advertise_address: str = ""
    """host:port clients reach this node at ("": ``host`` and the port, or the host name when ``host`` is a
    wildcard)."""
    lease_seconds: float = DEFAULT_LEASE_SECONDS
    """How long a node that stopped heartbeating keeps its tables before the others take them over."""
    placement: str = "local"
    """Where CreateTable puts a table: ``local`` (the node asked) or ``least-loaded``."""
    rebalance_seconds: float = DEFAULT_REBALANCE_SECONDS
    """The pause between two tables a node gives away to spread the load (0: never)."""
    bot_pace: float = 0.0
    """Seconds a server-run bot takes at least over a move at a table with an open seat, for the tables that
    do not choose (TimeControl.bot_pace); the ``thousand-server`` command defaults to BOT_PACE_SECONDS."""
    identity: IdentitySettings = field(default_factory=IdentitySettings)
    """Players and operators: OIDC issuers, the operator credential, guests (server.identity.flags)."""

    @property
    def grpc_options(self) -> list[tuple[str, int]]:
        """The gRPC server's channel arguments: the message size limit and the keepalive policy."""
        options = [
            ("grpc.max_receive_message_length", self.max_message_bytes),
            # Clients may ping (to notice a dead server on a quiet stream) every CLIENT_PING_SECONDS, with or
            # without calls in flight: gRPC's default answers pings more frequent than 5 minutes with GOAWAY.
            ("grpc.http2.min_ping_interval_without_data_ms", int(CLIENT_PING_SECONDS * 1000)),
            ("grpc.keepalive_permit_without_calls", 1),
            ("grpc.http2.max_pings_without_data", 0),
            # gRPC sets SO_REUSEPORT by default, so a second server on a taken port bound it too, logged
            # "serving", and clients reached either at random: without it, a taken port fails the start.
            ("grpc.so_reuseport", 0),
        ]
        if self.keepalive_seconds > 0:
            options += [
                ("grpc.keepalive_time_ms", int(self.keepalive_seconds * 1000)),
                ("grpc.keepalive_timeout_ms", int(self.keepalive_timeout_seconds * 1000)),
                # gRPC waits for a keepalive ping's answer for its ping timeout, not only keepalive_timeout:
                # with both set, a silent peer is let go after ``keepalive_timeout_seconds`` (measured in
                # tests/test_retries_and_export.py; with keepalive_timeout alone it was not, within 15 s).
                ("grpc.http2.ping_timeout_ms", int(self.keepalive_timeout_seconds * 1000)),
            ]
        return options

    @property
    def quotas(self) -> TableQuotas:
        return TableQuotas(
            self.max_tables, self.max_tables_per_client, self.max_bot_tables, self.max_bot_tables_per_client
        )

    @property
    def sweep_seconds(self) -> float:
        """How often idle tables are looked for: a quarter of the shortest idle time, at most a minute."""
        idle = [s for s in (self.table_idle_seconds, self.waiting_table_idle_seconds) if s > 0]
        return min(MAX_SWEEP_SECONDS, min(idle, default=0.0) / 4)


class SettingsHelpFormatter(argparse.HelpFormatter):
    """``--help`` shows each setting's default and environment variable (``THOUSAND_`` and the flag's name):
    an operator reads what runs when nothing is set, and how to set it in a container, without the guide."""

    def _get_help_string(self, action: argparse.Action) -> str:
        text = action.help or ""
        if not action.option_strings or action.default is argparse.SUPPRESS:
            return text
        default = action.default
        shown = f"{default:g}" if isinstance(default, float) else default
        if default in ("", None, []):
            shown = "(none)"
        named = re.search(r"\b(THOUSAND_[A-Z_]+)", text)  # a variable of its own name (a list, plural)
        variable = named.group(1) if named else f"THOUSAND_{action.dest.upper()}"
        return f"{text} [default: {shown}; env {variable}]".lstrip()


def parse_settings(argv: Sequence[str] | None = None, env: dict[str, str] | None = None) -> Settings:
    """Flags override the environment (THOUSAND_HOST, THOUSAND_PORT, THOUSAND_DB, THOUSAND_METRICS_PORT,
    THOUSAND_LOG_FORMAT, THOUSAND_LOG_LEVEL, THOUSAND_SHUTDOWN_GRACE, THOUSAND_TABLE_IDLE_SECONDS, ...)."""
    env = dict(os.environ) if env is None else env
    defaults = Settings()
    parser = argparse.ArgumentParser(
        prog="thousand-server",
        description="The gRPC game server of the 1000 family (Thousand, 1000 Blagogo). Every flag can be "
        "set by the environment variable shown beside it instead; a flag given wins. See docs/operations.md.",
        formatter_class=SettingsHelpFormatter,
    )
    parser.add_argument(
        "--host",
        default=env.get("THOUSAND_HOST", defaults.host),
        help="the address to listen on (0.0.0.0: every interface, as in containers)",
    )
    parser.add_argument(
        "--port",
        type=int,
        default=int(env.get("THOUSAND_PORT", defaults.port)),
        help="the gRPC port (0: any free port, named in the `serving` log line); a taken one fails the start",
    )
    parser.add_argument(
        "--db",
        default=env.get("THOUSAND_DB", DEFAULT_DB),
        help="where tables are event-sourced: a SQLite file (':memory:' keeps nothing) or a PostgreSQL URL,"
        " postgresql://user@host:port/database, shared by the nodes of a cluster",
    )
    parser.add_argument(
        "--metrics-port",
        type=int,
        default=int(env.get("THOUSAND_METRICS_PORT", defaults.metrics_port)),
        help="Prometheus metrics port, served over HTTP on --host at /metrics (0: off)",
    )
    parser.add_argument(
        "--web-port",
        type=int,
        default=int(env.get("THOUSAND_WEB_PORT", defaults.web_port)),
        help="serve the TableService over Connect and gRPC-Web, and the web client at /, over HTTP on --host"
        " (HTTPS with --tls-cert) on this port (0: off)",
    )
    parser.add_argument(
        "--web-root",
        default=env.get("THOUSAND_WEB_ROOT", defaults.web_root),
        help="the built web client served at / of the web port (default: clients/web/dist of the checkout)",
    )
    parser.add_argument(
        "--web-allowed-origin",
        action="append",
        metavar="ORIGIN",
        help="let pages from ORIGIN (https://host[:port], or *) call the web port's API (CORS); repeatable;"
        " THOUSAND_WEB_ALLOWED_ORIGINS: a comma-separated list. Default: none (the web client needs none)",
    )
    parser.add_argument(
        "--log-format",
        choices=LOG_FORMATS,
        default=env.get("THOUSAND_LOG_FORMAT", defaults.log_format),
        help="json lines, a readable console format, or auto: console on a terminal, else json",
    )
    parser.add_argument(
        "--log-level",
        choices=LOG_LEVELS,
        default=env.get("THOUSAND_LOG_LEVEL", defaults.log_level),
        help="the least severe log lines written",
    )
    parser.add_argument(
        "--shutdown-grace",
        type=float,
        default=float(env.get("THOUSAND_SHUTDOWN_GRACE", defaults.shutdown_grace)),
        help="seconds in-flight calls get to finish on SIGTERM",
    )
    parser.add_argument(
        "--otlp-endpoint",
        default=env.get("THOUSAND_OTLP_ENDPOINT", defaults.otlp_endpoint),
        help="export OpenTelemetry traces by OTLP/gRPC to this collector (http://host:4317 plaintext, "
        "https:// TLS); unset: no traces",
    )
    parser.add_argument(
        "--final-scrape-seconds",
        type=float,
        default=float(env.get("THOUSAND_FINAL_SCRAPE_SECONDS", defaults.final_scrape_seconds)),
        help="with --metrics-port: after the drain, wait this long at most for Prometheus to scrape the "
        "final counts (more than its scrape interval); 0: exit at once",
    )
    parser.add_argument(
        "--max-tables",
        type=int,
        default=int(env.get("THOUSAND_MAX_TABLES", defaults.max_tables)),
        help="unfinished tables held at most; 0: no limit",
    )
    parser.add_argument(
        "--max-tables-per-client",
        type=int,
        default=int(env.get("THOUSAND_MAX_TABLES_PER_CLIENT", defaults.max_tables_per_client)),
        help="unfinished tables one client (peer address; IPv6: its /64) may have created; 0: no limit",
    )
    parser.add_argument(
        "--max-bot-tables",
        type=int,
        default=int(env.get("THOUSAND_MAX_BOT_TABLES", defaults.max_bot_tables)),
        help="unfinished tables whose every seat is a bot, held at most; 0: no limit",
    )
    parser.add_argument(
        "--max-bot-tables-per-client",
        type=int,
        default=int(env.get("THOUSAND_MAX_BOT_TABLES_PER_CLIENT", defaults.max_bot_tables_per_client)),
        help="unfinished tables of bots only one client may have created; 0: no limit",
    )
    parser.add_argument(
        "--bot-move-delay",
        type=float,
        default=float(env.get("THOUSAND_BOT_MOVE_DELAY", defaults.bot_move_delay)),
        help="seconds between two moves at a table of bots only; 0: as fast as their fair share allows",
    )
    parser.add_argument(
        "--bot-table-max-moves",
        type=int,
        default=int(env.get("THOUSAND_BOT_TABLE_MAX_MOVES", defaults.bot_table_max_moves)),
        help="moves a table played by bots only makes before the server stops it; 0: no limit",
    )
    parser.add_argument(
        "--rating-min-games",
        type=int,
        default=int(env.get("THOUSAND_RATING_MIN_GAMES", defaults.rating_min_games)),
        help="rated games a player needs to appear on a leaderboard",
    )
    add_ladder_arguments(
        parser,
        env,
        per_move=defaults.ladder_per_move,
        reference_sets=defaults.ladder_reference_sets,
        max_same=defaults.ladder_max_same,
        references=defaults.ladder_references,
    )
    parser.add_argument(
        "--max-message-bytes",
        type=int,
        default=int(env.get("THOUSAND_MAX_MESSAGE_BYTES", defaults.max_message_bytes)),
        help="the largest request accepted",
    )
    parser.add_argument(
        "--rate-limit",
        type=float,
        default=float(env.get("THOUSAND_RATE_LIMIT", defaults.rate_limit)),
        help="requests per second per client (SubmitAction per seat, CreateTable/JoinTable per host); 0: off",
    )
    parser.add_argument(
        "--rate-burst",
        type=float,
        default=float(env.get("THOUSAND_RATE_BURST", defaults.rate_burst)),
        help="requests a client may make at once before --rate-limit applies",
    )
    parser.add_argument(
        "--table-idle-seconds",
        type=float,
        default=float(env.get("THOUSAND_TABLE_IDLE_SECONDS", defaults.table_idle_seconds)),
        help="drop a table from memory after this long with no open stream and no action (its records stay);"
        " 0: never",
    )
    parser.add_argument(
        "--waiting-table-idle-seconds",
        type=float,
        default=float(env.get("THOUSAND_WAITING_TABLE_IDLE_SECONDS", defaults.waiting_table_idle_seconds)),
        help="the same, sooner, for a table still waiting for players; 0: as --table-idle-seconds",
    )
    parser.add_argument(
        "--keepalive-seconds",
        type=float,
        default=float(env.get("THOUSAND_KEEPALIVE_SECONDS", defaults.keepalive_seconds)),
        help="ping every connection this often; one that does not answer within "
        f"{KEEPALIVE_TIMEOUT_SECONDS:g} s is closed, ending its streams; 0: no pings",
    )
    parser.add_argument(
        "--gc-threshold",
        type=int,
        default=int(env.get("THOUSAND_GC_THRESHOLD", defaults.gc_threshold)),
        help="net allocations between young garbage collections (fewer, cheaper collections and no long"
        " pauses of the event loop: docs/operations.md); 0: Python's defaults",
    )
    parser.add_argument(
        "--snapshot-records",
        type=int,
        default=int(env.get("THOUSAND_SNAPSHOT_RECORDS", defaults.snapshot_records)),
        help="store a table's state every this many records, so that a restart or a takeover replays only "
        "the records after it (docs/operations.md); 0: never (every record is replayed)",
    )
    parser.add_argument(
        "--bot-pace",
        type=float,
        default=float(env.get("THOUSAND_BOT_PACE", BOT_PACE_SECONDS)),
        help="seconds a server-run bot takes at least over each move at a table where people play (so they "
        "can follow; a table may choose its own, TimeControl.bot_pace); 0: as fast as it can",
    )
    parser.add_argument(
        "--tls-cert",
        default=env.get("THOUSAND_TLS_CERT", ""),
        help="PEM certificate chain; with --tls-key the server accepts TLS connections only",
    )
    parser.add_argument("--tls-key", default=env.get("THOUSAND_TLS_KEY", ""), help="PEM private key")
    add_cluster_arguments(
        parser,
        env,
        lease_seconds=defaults.lease_seconds,
        placement=defaults.placement,
        rebalance_seconds=defaults.rebalance_seconds,
    )
    add_identity_arguments(parser, env)
    args = parser.parse_args(argv)
    if bool(args.tls_cert) != bool(args.tls_key):
        parser.error("--tls-cert and --tls-key go together")
    if args.table_idle_seconds < 0 or args.waiting_table_idle_seconds < 0:
        parser.error("--table-idle-seconds and --waiting-table-idle-seconds must be 0 or positive")
    if not 0 <= args.bot_move_delay <= 3600:
        parser.error("--bot-move-delay must be 0 to 3600 seconds")
    limits = ("max_tables", "max_tables_per_client", "max_bot_tables", "max_bot_tables_per_client")
    check_ladder_arguments(parser, args)
    for name in (*limits, "bot_table_max_moves", "rating_min_games", "ladder_reference_sets"):
        if getattr(args, name) < 0:
            parser.error(f"--{name.replace('_', '-')} must be 0 (no limit) or positive")
    if args.keepalive_seconds != 0 and not 10 <= args.keepalive_seconds <= 86_400:
        parser.error("--keepalive-seconds must be 0 (no pings) or 10 to 86400")
    if not 0.5 <= args.lease_seconds <= 600:
        parser.error("--lease-seconds must be 0.5 to 600")
    if args.rebalance_seconds != 0 and not 0.1 <= args.rebalance_seconds <= 3600:
        parser.error("--rebalance-seconds must be 0 (never) or 0.1 to 3600")
    if not 0 <= args.bot_pace <= MAX_BOT_PACE:
        parser.error(f"--bot-pace must be 0 to {MAX_BOT_PACE:g} seconds")
    if args.otlp_endpoint and not args.otlp_endpoint.startswith(("http://", "https://")):
        parser.error("--otlp-endpoint is a URL: http://host:4317 (plaintext) or https://host:4317 (TLS)")
    if args.final_scrape_seconds < 0:
        parser.error("--final-scrape-seconds must be 0 or more")
    if args.snapshot_records < 0:
        parser.error("--snapshot-records must be 0 (never) or more")
    if args.gc_threshold != 0 and not 700 <= args.gc_threshold <= 10_000_000:
        parser.error("--gc-threshold must be 0 (Python's defaults) or 700 to 10000000")
    origins = args.web_allowed_origin
    if origins is None:
        origins = [o.strip() for o in env.get("THOUSAND_WEB_ALLOWED_ORIGINS", "").split(",") if o.strip()]
    for origin in origins:
        if not valid_origin(origin):
            parser.error(f"--web-allowed-origin {origin!r} is not an origin: scheme://host[:port], or *")
    if args.web_port and args.web_port == args.port:
        parser.error("--web-port must differ from --port")
    return Settings(
        host=args.host,
        port=args.port,
        db=args.db,
        metrics_port=args.metrics_port,
        web_port=args.web_port,
        web_root=args.web_root,
        web_allowed_origins=tuple(origins),
        log_format=args.log_format,
        log_level=args.log_level,
        shutdown_grace=args.shutdown_grace,
        final_scrape_seconds=args.final_scrape_seconds,
        otlp_endpoint=args.otlp_endpoint,
        max_tables=args.max_tables,
        max_tables_per_client=args.max_tables_per_client,
        max_bot_tables=args.max_bot_tables,
        max_bot_tables_per_client=args.max_bot_tables_per_client,
        bot_move_delay=args.bot_move_delay,
        bot_table_max_moves=args.bot_table_max_moves,
        rating_min_games=args.rating_min_games,
        ladder=args.ladder,
        ladder_per_move=args.ladder_per_move,
        ladder_reference_sets=args.ladder_reference_sets,
        ladder_max_same=args.ladder_max_same,
        ladder_references=args.ladder_references,
        ladder_seed=args.ladder_seed,
        max_message_bytes=args.max_message_bytes,
        tls_cert=args.tls_cert,
        tls_key=args.tls_key,
        rate_limit=args.rate_limit,
        rate_burst=args.rate_burst,
        table_idle_seconds=args.table_idle_seconds,
        waiting_table_idle_seconds=args.waiting_table_idle_seconds,
        keepalive_seconds=args.keepalive_seconds,
        gc_threshold=args.gc_threshold,
        snapshot_records=args.snapshot_records,
        node_id=args.node_id,
        advertise_address=args.advertise_address,
        lease_seconds=args.lease_seconds,
        placement=args.placement,
        rebalance_seconds=args.rebalance_seconds,
        bot_pace=args.bot_pace,
        identity=identity_settings(args, parser, env),
    )
