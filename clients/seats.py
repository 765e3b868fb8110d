"""The seats a user holds, kept on their machine: a closed or crashed client comes back to its seat.

A seat token is the only proof of a seat, and the server never shows it again. :class:`SeatKeeper` writes
each one the user's clients take (the terminal client's, a bot's) to a file of the user's own, by server and
table, so that ``thousand join TABLE`` (or a restarted bot) resumes the seat instead of finding the table
full. The file is ``$XDG_STATE_HOME/thousand/seats.json`` (``~/.local/state/thousand/seats.json`` without
it): the directory 0700, the file 0600, written whole and renamed into place under a lock, so two clients
of the same user never lose each other's seats. Seats older than :data:`KEEP_DAYS` are dropped.
"""

from __future__ import annotations

import contextlib
import fcntl
import json
import os
import time
from collections.abc import Iterator, Mapping
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any, Final

KEEP_DAYS: Final = 30
MAX_SEATS: Final = 500
"""The file keeps at most this many seats, the most recent."""
FORMAT: Final = "thousand.seats/1"


def state_dir(env: Mapping[str, str] | None = None) -> Path:
    """Where the clients keep what is the user's own (XDG base directories: state)."""
    env = os.environ if env is None else env
    base = env.get("XDG_STATE_HOME") or str(Path.home() / ".local" / "state")
    return Path(base) / "thousand"


@dataclass(frozen=True, slots=True)
class KeptSeat:
    """One seat the user holds: where, which, its token, the name they sat down with."""

    server: str
    table_id: str
    seat: int
    token: str
    name: str = ""
    saved: float = 0.0
    """time.time() when it was kept."""
    client_seed: str = ""
    """The seed this seat added to the table's deals, if any (to check them after a resume)."""
    joined_at: int | None = None
    """The table's sequence when the seat was taken: its deals hold the seed from then on."""


class SeatKeeper:
    """The user's kept seats, in one file (see the module's docstring)."""

    def __init__(self, path: Path | None = None) -> None:
        self.path = path if path is not None else state_dir() / "seats.json"

    def find(self, server: str, table_id: str, seat: int | None = None) -> KeptSeat | None:
        """The seat kept at ``table_id`` on ``server`` (``seat`` if given), the most recent first."""
        found = [
            s
            for s in self._read()
            if s.server == server and s.table_id == table_id and (seat is None or s.seat == seat)
        ]
        return max(found, key=lambda s: s.saved, default=None)

    def held(self, server: str) -> list[KeptSeat]:
        """Every seat kept on ``server``, oldest first (``thousand claim`` makes them a player's)."""
        return sorted((s for s in self._read() if s.server == server), key=lambda s: s.saved)

    def last_name(self, server: str | None = None) -> str | None:
        """The name the user last sat down with (on ``server``, if given), kept after the seat is given up: a
        join without a name uses it."""
        names = self._names()
        if server is not None:
            return names.get(server)
        return names.get("")

    def keep(self, seat: KeptSeat) -> None:
        with self._locked():
            seats = [s for s in self._read() if (s.server, s.table_id, s.seat) != _key(seat)]
            seats.append(seat if seat.saved else _saved_now(seat))
            names = self._names()
            if seat.name:
                names[seat.server] = names[""] = seat.name
            self._write(seats, names)

    def forget(self, server: str, table_id: str, seat: int) -> None:
        with self._locked():
            seats = self._read()
            kept = [s for s in seats if (s.server, s.table_id, s.seat) != (server, table_id, seat)]
            if len(kept) != len(seats):
                self._write(kept, self._names())

    # ------------------------------------------------------------------ the file

    def _raw(self) -> dict[str, Any]:
        try:
            raw = json.loads(self.path.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return {}  # none kept yet, or a file from elsewhere: nothing to resume
        return raw if isinstance(raw, dict) else {}

    def _read(self) -> list[KeptSeat]:
        seats: list[KeptSeat] = []
        entries = self._raw().get("seats")
        for entry in entries if isinstance(entries, list) else []:
            seat = _seat(entry)
            if seat is not None:
                seats.append(seat)
        return seats

    def _names(self) -> dict[str, str]:
        """The name last used on each server (and, under "", anywhere)."""
        names = self._raw().get("names", {})
        return {str(k): str(v) for k, v in names.items()} if isinstance(names, dict) else {}

    def _write(self, seats: list[KeptSeat], names: dict[str, str]) -> None:
        oldest = time.time() - KEEP_DAYS * 86_400
        recent = sorted((s for s in seats if s.saved >= oldest), key=lambda s: s.saved)[-MAX_SEATS:]
        document = {"format": FORMAT, "seats": [asdict(s) for s in recent], "names": names}
        write_private(self.path, json.dumps(document, indent=1))

    def _locked(self) -> contextlib.AbstractContextManager[None]:
        return locked(self.path)


def write_private(path: Path, text: str) -> None:
    """The user's own file, mode 0600, written whole and renamed into place (a crash leaves the old one)."""
    temporary = path.with_name(path.name + ".tmp")
    descriptor = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(descriptor, "w", encoding="utf-8") as out:
        out.write(text + "\n")
        out.flush()
        os.fsync(out.fileno())
    os.chmod(temporary, 0o600)  # an older file of another mode is replaced by this one
    os.replace(temporary, path)


@contextlib.contextmanager
def locked(path: Path) -> Iterator[None]:
    """The file's lock, held across a read and the write after it (another client of the user waits); its
    directory made 0700 first."""
    path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
    descriptor = os.open(path.with_name(path.name + ".lock"), os.O_RDWR | os.O_CREAT, 0o600)
    try:
        fcntl.flock(descriptor, fcntl.LOCK_EX)
        yield
    finally:
        os.close(descriptor)


def _key(seat: KeptSeat) -> tuple[str, str, int]:
    return seat.server, seat.table_id, seat.seat


def _saved_now(seat: KeptSeat) -> KeptSeat:
    return KeptSeat(
        seat.server, seat.table_id, seat.seat, seat.token, seat.name, time.time(), seat.client_seed
    )


def _seat(entry: Any) -> KeptSeat | None:
    """One entry of the file, or None for one this version cannot read."""
    if not isinstance(entry, dict):
        return None
    try:
        return KeptSeat(
            server=str(entry["server"]),
            table_id=str(entry["table_id"]),
            seat=int(entry["seat"]),
            token=str(entry["token"]),
            name=str(entry.get("name", "")),
            saved=float(entry.get("saved", 0.0)),
            client_seed=str(entry.get("client_seed", "")),
            joined_at=int(entry["joined_at"]) if entry.get("joined_at") is not None else None,
        )
    except (KeyError, TypeError, ValueError):
        return None
