"""Snapshots of a table's state, so that rebuilding it (a takeover, a restart) replays a bounded tail of its
records instead of all of them (issue #32: "large takeovers trickle").

A table is event-sourced: its state is a pure function of its creation settings and its records. Replaying a
Thousand game of 1,600 records with remembering bots takes a fifth of a second on a loaded core; loading the
state it ends in takes a few milliseconds. So every ``--snapshot-records`` records (:data:`EVERY`), the owner
stores what a replay of the records so far rebuilds, in the same transaction as the next change's records and
only before a change that holds an action:

- the state of the table's core (:class:`server.table_core.TableCore`: the engine game, the event log, the
  seats, the memory of recent requests, a fair table's deals; :data:`STATE_SLOTS`), and the players of the
  seats server-run bots play (their strategies' memories, :class:`server.bots.Bots`), pickled together;
- the number of records it covers (the store's own count in that transaction: PostgreSQL's fenced
  ``next_number``, SQLite's count), so the snapshot is the state after exactly those records;
- the :func:`fingerprint` of the code that made it, and a SHA-256 of the bytes.

Rebuilding, the store reads the snapshot with the records after it (the tail) when the fingerprint is this
code's, the checksum holds, the bytes load, and the tail holds an action (so that the turn clock, which a
replay starts from the stored time of the record that began the running decision, is rebuilt from the tail
exactly as from all the records: :func:`server.turn_clock.clock_parts`); otherwise it reads every record and
the table is replayed whole, as without snapshots. A table rebuilt either way is the same
(tests/test_snapshots.py). The records stay: exports, audits and a full replay read them as before; only the
latest snapshot of a table is kept.

**Why pickle, and why it is safe enough here.** The state is the engine's and the bots' own objects; a codec
of its own for each would have to follow every change of theirs exactly, where pickle follows them by
construction, and the fingerprint refuses a snapshot of any other code. The bytes come from the same
database as everything else a node trusts, yet a writer of that database must not get to run code: the
loader only makes classes defined in the engine, the bots, the games and the table's state modules
(:class:`_Loader`), never a function or anything of the standard library but an ordered dictionary.
"""

from __future__ import annotations

import hashlib
import importlib
import io
import pickle
import sys
from collections.abc import Sequence
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import TYPE_CHECKING, Any, Final

from server.logs import get_logger

if TYPE_CHECKING:
    from server.bots import Bots
    from server.table_core import TableCore

EVERY: Final = 256
"""Records between two snapshots of a table, by default (``--snapshot-records``): a replay reads at most about
this many records past the snapshot (a few hundredths of a second)."""
FORMAT: Final = 1
"""The layout of a snapshot's pickled value; part of the fingerprint."""
STATE_SLOTS: Final = (
    "_engine_cursor",
    "_requests",
    "decisions",
    "fair",
    "game",
    "log",
    "rating_done",
    "seats",
    "started",
    "stopped",
)
"""The slots of a table's core its records change: what a snapshot holds."""
SETTINGS_SLOTS: Final = (
    "adapter",
    "commitment",
    "create_time",
    "endpoints",
    "opening",
    "rated",
    "rules",
    "seed",
    "seeded",
    "serial",
    "table_id",
    "time_control",
)
"""The slots a table's creation settings (or the node serving it) set, the same with or without a snapshot;
every slot is one or the other (a test fails on a new slot in neither)."""
_PACKAGES: Final = ("engine", "bots", "games")
_MODULES: Final = (
    "server.table_core",
    "server.table_state",
    "server.table_changes",
    "server.bots",
    "server.snapshots",
)
_ALLOWED_MODULES: Final = ("server.table_state", "server.table_changes")
"""Where a class a snapshot makes may come from: these modules, and :data:`_PACKAGES`' modules."""
log = get_logger("thousand.store")


@cache
def fingerprint() -> str:
    """A digest of the code whose objects a snapshot holds: the files of the engine, the bots and the games
    (sources or compiled modules, whichever are there), the table's core and state modules, this module's
    :data:`FORMAT` and the Python version. A snapshot from any other code is not read (a full replay)."""
    digest = hashlib.sha256(f"{FORMAT}:{sys.version_info[:2]}".encode())
    files: list[Path] = []
    for package in _PACKAGES:
        for root in importlib.import_module(package).__path__:
            files += sorted(p for p in Path(root).rglob("*") if p.suffix in (".py", ".so", ".pyd"))
    for name in _MODULES:
        module_file = importlib.import_module(name).__file__
        if module_file is not None:
            files.append(Path(module_file))
    for path in files:
        digest.update(path.name.encode())
        digest.update(path.read_bytes())
    return digest.hexdigest()[:32]


@dataclass(frozen=True, slots=True)
class Snapshot:
    """A table's state to store with its next change's records (:meth:`server.store.Store.append`)."""

    data: bytes
    fingerprint: str

    @property
    def checksum(self) -> bytes:
        return hashlib.sha256(self.data).digest()


@dataclass(frozen=True, slots=True)
class TableState:
    """A snapshot read back: the core's slots and the bot players' strategies, and the records it covers."""

    core: dict[str, Any]
    players: dict[int, tuple[str, Any]]
    """seat -> (strategy name, the strategy object with its memory)."""
    records: int


def take(core: TableCore, bots: Bots) -> Snapshot:
    """A table's state now (every record it stored applied): its core and its bots' players."""
    state = {
        "core": {slot: getattr(core, slot) for slot in STATE_SLOTS},
        "players": {seat: (p.strategy, p.player) for seat, p in bots.players().items()},
    }
    return Snapshot(pickle.dumps(state, protocol=pickle.HIGHEST_PROTOCOL), fingerprint())


def load(data: bytes, checksum: bytes, made_by: str, records: int) -> TableState | None:
    """A stored snapshot read back, or None when it is not this code's, its bytes are not what was stored or
    they do not load (the caller then reads every record)."""
    if made_by != fingerprint():
        return None
    if hashlib.sha256(data).digest() != checksum:
        log.warning("snapshot damaged: replaying every record", records=records)
        return None
    try:
        state = _Loader(io.BytesIO(data)).load()
        core, players = state["core"], state["players"]
        if set(core) != set(STATE_SLOTS) or not isinstance(players, dict):
            raise ValueError("not a table's state")
    except Exception as error:  # anything a damaged or foreign value raises: replay every record instead
        log.warning("snapshot unreadable: replaying every record", records=records, error=str(error))
        return None
    return TableState(core, players, records)


def rebuilds_clock(tail: Sequence[Any]) -> bool:
    """Whether a snapshot's tail (its records after it) holds an action: a turn clock rebuilt from the tail
    is then the one a replay of every record rebuilds (:func:`server.turn_clock.clock_parts`)."""
    return any(record.kind == "action" for record in tail)


def restore(core: TableCore, bots: Bots, state: TableState) -> None:
    """Put a snapshot's state into a table's core and bots just made from its creation settings (before its
    tail's replay)."""
    for slot, value in state.core.items():
        setattr(core, slot, value)
    bots.restore(state.players)


class _Loader(pickle.Unpickler):
    """An unpickler that makes only the classes a table's state is made of."""

    def find_class(self, module: str, name: str) -> Any:
        if (module, name) == ("collections", "OrderedDict"):
            return super().find_class(module, name)
        if _allowed(module):
            found = super().find_class(module, name)
            if isinstance(found, type) and _allowed(found.__module__):
                return found
        raise pickle.UnpicklingError(f"a snapshot may not make {module}.{name}")


def _allowed(module: str) -> bool:
    return module in _ALLOWED_MODULES or module.partition(".")[0] in _PACKAGES
