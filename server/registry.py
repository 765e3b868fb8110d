"""All tables of a server: creating, finding and listing them (newest first, paginated)."""

from __future__ import annotations

import base64
import binascii
import secrets
from dataclasses import dataclass
from typing import Final

from engine import Rules
from server.errors import ErrorReason, ServiceError
from server.strategies import STRATEGIES
from server.table import SeatState, Table

DEFAULT_PAGE_SIZE: Final = 20
MAX_PAGE_SIZE: Final = 100


@dataclass(frozen=True, slots=True)
class SeatSpec:
    bot: bool
    strategy: str = ""


class Registry:
    def __init__(self) -> None:
        self._tables: dict[str, Table] = {}
        self._serial = 0

    def __len__(self) -> int:
        return len(self._tables)

    def all(self) -> list[Table]:
        return list(self._tables.values())

    def create(
        self, rules: Rules, seats: list[SeatSpec], seed: int | None, first_dealer: int | None
    ) -> Table:
        if len(seats) != rules.players:
            raise ServiceError(
                ErrorReason.INVALID_ARGUMENT,
                f"{len(seats)} seats given for {rules.players} players",
                field="seats",
            )
        strategies = {}
        for seat, spec in enumerate(seats):
            if spec.bot:
                strategy = STRATEGIES.get(spec.strategy)
                if strategy is None:
                    known = ", ".join(sorted(STRATEGIES))
                    raise ServiceError(
                        ErrorReason.UNKNOWN_STRATEGY,
                        f"seat {seat}: no bot strategy {spec.strategy!r} (known: {known})",
                        field="seats",
                    )
                strategies[seat] = strategy
        if first_dealer is not None and not 0 <= first_dealer < rules.players:
            raise ServiceError(
                ErrorReason.INVALID_ARGUMENT,
                f"first_dealer {first_dealer} is not a seat of {rules.players}",
                field="first_dealer",
            )
        self._serial += 1
        table_id = secrets.token_hex(6)
        states = [SeatState(bot=s.bot, strategy=s.strategy) for s in seats]
        table = Table(
            table_id,
            serial=self._serial,
            rules=rules,
            seats=states,
            seed=seed if seed is not None else secrets.randbits(63),
            first_dealer=first_dealer,
            strategies=strategies,
        )
        self._tables[table_id] = table
        return table

    def get(self, table_id: str) -> Table:
        table = self._tables.get(table_id)
        if table is None:
            raise ServiceError(ErrorReason.TABLE_NOT_FOUND, f"no table {table_id!r}")
        return table

    def page(self, only_open: bool, page_size: int, page_token: str) -> tuple[list[Table], str]:
        if page_size < 0 or page_size > MAX_PAGE_SIZE:
            raise ServiceError(
                ErrorReason.INVALID_ARGUMENT,
                f"page_size must be 0 to {MAX_PAGE_SIZE}, got {page_size}",
                field="page_size",
            )
        size = page_size or DEFAULT_PAGE_SIZE
        before = _decode_token(page_token) if page_token else None
        tables = sorted(self._tables.values(), key=lambda t: -t.serial)
        chosen: list[Table] = []
        for table in tables:
            if before is not None and table.serial >= before:
                continue
            if only_open and (table.open_seats() == 0 or table.finished):
                continue
            if len(chosen) == size:
                return chosen, _encode_token(chosen[-1].serial)
            chosen.append(table)
        return chosen, ""


def _encode_token(serial: int) -> str:
    return base64.urlsafe_b64encode(f"v1:{serial}".encode()).decode()


def _decode_token(token: str) -> int:
    try:
        text = base64.urlsafe_b64decode(token.encode()).decode()
        version, serial = text.split(":")
        if version != "v1":
            raise ValueError(version)
        return int(serial)
    except (ValueError, binascii.Error, UnicodeDecodeError):
        raise ServiceError(
            ErrorReason.INVALID_ARGUMENT, "page_token is not one this server issued", field="page_token"
        ) from None
