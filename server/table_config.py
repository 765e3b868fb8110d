"""What a table was created with, as the stores keep it (:mod:`server.store`): its settings in JSON, enough
with its records to rebuild it."""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Final

from server.identity.values import Privacy
from server.time_control import TimeControl

DEFAULT_GAME: Final = "thousand"
"""The game of a table stored without one (before 1000 Blagogo)."""


@dataclass(frozen=True, slots=True)
class TableConfig:
    """What a table was created with; enough, with its records, to rebuild it."""

    rules: bytes
    """The game's rules message bytes (``thousand.v1.ThousandRules``, ``BlagogoRules``), every field set."""
    seats: list[tuple[bool, str]]
    """(is a bot, strategy) per seat."""
    seed: int
    first_dealer: int | None
    game: str = DEFAULT_GAME
    """The game's name (``server.games``): "thousand" or "blagogo"."""
    time_control: TimeControl | None = None
    """The turn clock; None (and absent from the JSON) for a table without one."""
    request_id: str = ""
    """The CreateTable request_id that made it ("" and absent from the JSON: none), so that a retry of the
    request after a restart finds this table instead of creating another."""
    request_digest: str = ""
    """A digest of that CreateTable request's content ("" and absent: not known), so that the request_id
    reused for a different request after a restart is still refused (REQUEST_ID_REUSED)."""
    seeded: bool = False
    """Whether the creator chose ``seed`` (a practice table): its deals follow from it. Absent: False."""
    secret: bytes = b""
    """A fair table's secret (engine.seeds.FairDeals), drawn at creation and stored with it, so that a
    restarted server, or another that takes the table over, deals the same cards. Empty (absent from the
    JSON) for a seeded table, and for a table stored before fair deals (its deals follow ``seed``)."""
    creator: str = ""
    """Who created it (:func:`server.requests.client_of`; "" and absent: not known), so that the table still
    counts in its creator's quotas after a restart, or on the node that took it over."""
    privacy: Privacy | None = None
    """A private table's settings (unlisted, the invite code's hash, reserved seats, the creating player),
    stored with the table itself, so that it is private from its first moment, on every node and after a
    restart. None (absent from the JSON): a public table, or one made before they were stored here (its
    settings are in the players' store alone)."""
    rated: bool = False
    """Its end changes its players' ratings (CreateTableRequest.rated). Absent: False."""

    def to_json(self) -> str:
        raw: dict[str, object] = {
            "game": self.game,
            "rules": self.rules.hex(),
            "seats": [[bot, strategy] for bot, strategy in self.seats],
            "seed": str(self.seed),
            "first_dealer": self.first_dealer,
        }
        if self.time_control is not None:
            raw["time_control"] = self.time_control.to_json()
        if self.request_id:
            raw["request_id"] = self.request_id
        if self.request_digest:
            raw["request_digest"] = self.request_digest
        if self.seeded:
            raw["seeded"] = True
        if self.secret:
            raw["secret"] = self.secret.hex()
        if self.creator:
            raw["creator"] = self.creator
        if self.privacy is not None:
            raw["privacy"] = {
                "unlisted": self.privacy.unlisted,
                "invite_hash": self.privacy.invite_hash.hex(),
                "reservations": {str(seat): p for seat, p in sorted(self.privacy.reservations.items())},
                "creator": self.privacy.creator,
            }
        if self.rated:
            raw["rated"] = True
        return json.dumps(raw)

    @staticmethod
    def from_json(text: str) -> TableConfig:
        raw = json.loads(text)
        return TableConfig(
            rules=bytes.fromhex(raw["rules"]),
            seats=[(bool(bot), str(strategy)) for bot, strategy in raw["seats"]],
            seed=int(raw["seed"]),
            first_dealer=raw["first_dealer"],
            game=str(raw.get("game", DEFAULT_GAME)),
            time_control=TimeControl.from_json(raw.get("time_control")),
            request_id=str(raw.get("request_id", "")),
            request_digest=str(raw.get("request_digest", "")),
            seeded=bool(raw.get("seeded", False)),
            secret=bytes.fromhex(raw.get("secret", "")),
            creator=str(raw.get("creator", "")),
            privacy=_privacy(raw.get("privacy")),
            rated=bool(raw.get("rated", False)),
        )


def _privacy(raw: dict[str, object] | None) -> Privacy | None:
    if raw is None:
        return None
    reservations = raw.get("reservations", {})
    assert isinstance(reservations, dict)
    return Privacy(
        "",
        unlisted=bool(raw.get("unlisted", False)),
        invite_hash=bytes.fromhex(str(raw.get("invite_hash", ""))),
        reservations={int(seat): str(player) for seat, player in reservations.items()},
        creator=str(raw.get("creator", "")),
    )
