"""A seat's side of fair deals (docs/protocol.md, "Verifiable deals"): the seed it adds, the commitment it
reads before taking its seat, its check of every deal, and how a client names a table's kind of deals.

The check itself is :mod:`engine.verify`; this module only ties it to what a client holds (the ``Table``
message, its own seed, the stream's events), for the library (:class:`~clients.session.TableSession`), the
bot SDK and the terminal client. A stream that starts from a snapshot never saw the deal in progress begin:
the snapshot carries the events of it the check reads (``Snapshot.deal``), and :func:`catch_up` feeds them to
the check, so that the deal's reveal is checked exactly as if the client had seen the deal start.
"""

from __future__ import annotations

import re
import secrets
from typing import Final

from clients.games import THOUSAND, game_of
from clients.i18n import current, t
from clients.messages import DealInProgress, SeatTaken
from engine.verify import DealChecker, Witness
from thousand.v1 import table_service_pb2 as pb


def new_client_seed() -> str:
    """A seat's own seed: 32 bytes from the operating system's generator, base64url (43 characters)."""
    return secrets.token_urlsafe(32)


def witness_for(
    table: pb.Table, seat: int | None, client_seed: str, joined_at: int | None = None
) -> Witness | None:
    """What a seat checks a fair table's deals against: ``table`` as read *before* the seed was sent (its
    commitment), the seat, its seed and ``joined_at`` (the table's sequence in JoinTable's reply); None for a
    seeded table (its seed gives every deal)."""
    if not table.HasField("fairness") or not table.fairness.commitment:
        return None
    if seat is None:
        return Witness(table.fairness.commitment)
    return Witness(table.fairness.commitment, seat, client_seed, joined_at)


def checker_for(table: pb.Table | None, witness: Witness | None) -> DealChecker:
    """A checker of ``table``'s game (Thousand's before there is a table), for a seat (or a spectator) with
    this witness."""
    return DealChecker(witness, THOUSAND.deals if table is None else game_of(table).deals)


_VERIFIED: Final = re.compile(r"^(deal|round) (\d+) verified against its commitment$")
_VERIFIED_FAIR: Final = re.compile(
    r"^(deal|round) (\d+) verified: committed before it was dealt, and its secret with the (\d+) seats' seeds"
    r"( \(yours included\))? gives the cards dealt$"
)
_SECRET: Final = re.compile(
    r"^the table's secret matches its commitment \((.+)\): the (\d+) (deal|round)s checked were fixed before"
    r" any seat was taken$"
)
_FAILED: Final = re.compile(r"^FAILED verification: (.*)$")


def verdict_words(line: str) -> str:
    """A verdict of :class:`engine.verify.DealChecker` in the player's language. The engine (pure, no
    catalogues) says it in English, in these fixed forms; their numbers are read back and said again from
    the catalogue (``fairness.*``). A failure's own reason stays as the engine says it."""
    if current().lang == "en":
        return line
    if m := _VERIFIED.match(line):
        return t("fairness.verified", unit=m[1], number=int(m[2]))
    if m := _VERIFIED_FAIR.match(line):
        return t("fairness.verified_fair", unit=m[1], number=int(m[2]), seats=int(m[3]),
                 yours="yes" if m[4] else "no")  # fmt: skip
    if m := _SECRET.match(line):
        return t("fairness.secret_matches", scheme=m[1], count=int(m[2]), unit=m[3])
    if m := _FAILED.match(line):
        return t("fairness.failed", trouble=m[1])
    return line


def feed(checker: DealChecker, event: object, sequence: int) -> str | None:
    """One event of the stream to the check: a seat taken (from then on the seat's deals hold its seed), or
    the game's; returns the line to show when a deal (or the table's secret) was just checked."""
    if isinstance(event, SeatTaken):
        checker.seat_taken(event.seat, sequence)
        return None
    verdict = checker.see(event, sequence)
    return None if verdict is None else verdict_words(verdict)


def catch_up(checker: DealChecker, deal: DealInProgress | None) -> list[str]:
    """A snapshot's deal in progress to the check, its events as if they had come on the stream; returns the
    lines to show (none from a deal's first events, unless a game's check says otherwise)."""
    if deal is None:
        return []
    lines = (feed(checker, item.event, item.sequence) for item in deal.events)
    return [line for line in lines if line is not None]


def deals_label(table: pb.Table) -> str:
    """How to show a table's deals: seeded (whoever knows the seed knows every card) or fair."""
    if table.seeded:
        return t("fairness.seeded")
    if table.HasField("fairness"):
        return t("fairness.fair", scheme=table.fairness.scheme, commitment=table.fairness.commitment[:16])
    return t("fairness.server_seed")


class SeatDeals:
    """A session's side of its table's deals: the tables it read before joining (the commitment a join is
    checked against), the seed its seat added, and the checker of every deal its stream reveals."""

    def __init__(self) -> None:
        self.client_seed: str | None = None
        self.checker: DealChecker = checker_for(None, None)
        self._commitments: dict[str, pb.Table] = {}
        self._news: list[str] = []

    def seen(self, table: pb.Table) -> pb.Table:
        """Remember a table read before joining it (its commitment must not change when the seed is sent)."""
        self._commitments[table.table_id] = table
        return table

    def read_before(self, table_id: str) -> pb.Table | None:
        return self._commitments.get(table_id)

    def joined(self, before: pb.Table, after: pb.Table, seat: int, seed: str, since: int) -> None:
        """The seat was taken with ``seed`` (JoinTable's reply: ``after``); its deals hold the seed from
        ``since`` on."""
        self.client_seed = seed
        self.checker = checker_for(before, witness_for(before, seat, seed, since))
        if after.fairness.commitment != before.fairness.commitment:
            self.checker.problems.append(t("fairness.commitment_changed"))

    def watching(self, table: pb.Table) -> None:
        self.checker = checker_for(table, witness_for(table, None, ""))

    def see(self, event: object, sequence: int) -> None:
        """One event of the stream (:func:`feed`); the line of a check it made is kept for :meth:`news`."""
        line = feed(self.checker, event, sequence)
        if line is not None:
            self._news.append(line)

    def caught_up(self, deal: DealInProgress | None) -> None:
        """The stream started from a snapshot: its deal in progress (:func:`catch_up`)."""
        self._news += catch_up(self.checker, deal)

    def news(self) -> list[str]:
        """The lines of the checks made since the last call ("deal 3 verified: …", "FAILED verification:
        …"), to show."""
        news, self._news = self._news, []
        return news
