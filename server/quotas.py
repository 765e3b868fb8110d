"""Table quotas: how many unfinished tables the server holds, in all and per client, and how many of them
are played by bots only.

Why per client: with one global bound, one client (a script, a buggy bot) could take every table slot and
every other client would get TOO_MANY_TABLES until its tables expired. Why bot-only tables apart: a table
whose every seat is a bot plays on by itself, costing CPU from one small request, so the server lets each
client start only a few of them, and only so many in all. A client is named by :func:`server.requests.
client_of` (its address), stored with the table, so that its tables still count after a restart. In a
cluster the totals are the node's (what its one process can carry), a client's shares the cluster's: the
node asked counts the client's tables on every node (:meth:`server.registry.Directory.held_elsewhere`), so
spreading tables over the nodes, or a takeover, gives nobody a larger share.

A limit of 0 is no limit. A refusal is TOO_MANY_TABLES (RESOURCE_EXHAUSTED) with ErrorInfo metadata
``limit`` (which quota: ``tables``, ``tables_per_client``, ``bot_tables``, ``bot_tables_per_client``) and
``max`` (its value), so a client can tell "the server is full" from "you hold your share".
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Final

from server.errors import ErrorReason, ServiceError

DEFAULT_MAX_TABLES: Final = 10_000
DEFAULT_MAX_TABLES_PER_CLIENT: Final = 100
DEFAULT_MAX_BOT_TABLES: Final = 64
DEFAULT_MAX_BOT_TABLES_PER_CLIENT: Final = 4
LIMITS: Final = ("tables", "tables_per_client", "bot_tables", "bot_tables_per_client")
"""The ``limit`` metadata (and metric label) values."""


@dataclass(frozen=True, slots=True)
class Holding:
    """One unfinished table (or one being created) as the quotas see it."""

    client: str
    """Who created it ("" when not known: a table stored before creators were)."""
    bots_only: bool
    """Every seat is a bot: nobody has to join for it to play."""


@dataclass(frozen=True, slots=True)
class TableQuotas:
    """The four bounds; 0: none."""

    tables: int = DEFAULT_MAX_TABLES
    tables_per_client: int = DEFAULT_MAX_TABLES_PER_CLIENT
    bot_tables: int = DEFAULT_MAX_BOT_TABLES
    bot_tables_per_client: int = DEFAULT_MAX_BOT_TABLES_PER_CLIENT

    def check(
        self, holdings: Iterable[Holding], client: str, bots_only: bool, *, elsewhere: Iterable[Holding] = ()
    ) -> None:
        """TOO_MANY_TABLES when ``client`` may not create one more table (of bots only, ``bots_only``).
        ``holdings``: the server's tables; ``elsewhere``: the client's tables on other nodes of its cluster,
        which count in the client's shares only."""
        total = mine = bots = my_bots = 0
        for held in holdings:
            total += 1
            own = bool(client) and held.client == client
            mine += own
            if held.bots_only:
                bots += 1
                my_bots += own
        for held in elsewhere:
            mine += 1
            my_bots += held.bots_only
        if 0 < self.tables <= total:
            _refuse("tables", self.tables, f"the server already holds {total} unfinished tables, its limit")
        if client and 0 < self.tables_per_client <= mine:
            _refuse(
                "tables_per_client",
                self.tables_per_client,
                f"this client already has {mine} unfinished tables on the server, its share; a table stops"
                " counting when its game ends or it is dropped as idle",
            )
        if not bots_only:
            return
        if 0 < self.bot_tables <= bots:
            _refuse("bot_tables", self.bot_tables, f"the server already runs {bots} tables of bots only")
        if client and 0 < self.bot_tables_per_client <= my_bots:
            _refuse(
                "bot_tables_per_client",
                self.bot_tables_per_client,
                f"this client already runs {my_bots} tables of bots only, its share",
            )


def _refuse(limit: str, maximum: int, message: str) -> None:
    raise ServiceError(
        ErrorReason.TOO_MANY_TABLES, f"{message}; try again later", limit=limit, max=str(maximum)
    )
