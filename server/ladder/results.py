"""A set's standings and rating update, from its tables' game records (ExportTable's document).

Each table of a set is a game record (:mod:`server.export`): a seat's member is its ``player_id`` (a
registered bot), else ``bot:<strategy>`` (a reference bot); its score is its ``standings`` entry's
``score``; its timeouts are the ``turnTimedOut`` events naming its seat. A member's total is the sum of its
scores over the set's tables; ranks follow the totals, highest first, equal totals sharing the better rank
(1224), and one Plackett-Luce update (:func:`server.ratings.model.rate`) of the members' ratings before the
set gives those after. docs/protocol.md ("The ladder") tells a client to recompute it so.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from server.ratings.model import BOT_PREFIX


@dataclass(frozen=True, slots=True)
class TableOutcome:
    """One finished table of a set: each seat's member, score and timeouts, in seat order."""

    table_id: str
    members: tuple[str, ...]
    scores: tuple[int, ...]
    timeouts: tuple[int, ...]


@dataclass(frozen=True, slots=True)
class MemberResult:
    member_id: str
    total_score: int
    rank: int
    timeouts: int


def member_of(seat: Mapping[str, Any]) -> str:
    """A game record's seat's ladder member: its player, else the reference bot's strategy."""
    player = str(seat.get("player_id", ""))
    return player or BOT_PREFIX + str(seat.get("strategy", ""))


def outcome_of(record: Mapping[str, Any]) -> TableOutcome:
    """A finished table's outcome, from its game record; ValueError for a game that did not end in
    standings (stopped, or not finished)."""
    seats = record["seats"]
    standings = record.get("standings") or []
    if not record.get("finished") or len(standings) != len(seats):
        raise ValueError(f"table {record.get('table_id')} has no final standings")
    scores = [0] * len(seats)
    for entry in standings:
        scores[int(entry["seat"])] = int(entry["score"])
    timeouts = [0] * len(seats)
    for event in record["events"]:
        timed_out = event.get("turnTimedOut")
        if timed_out is not None:
            timeouts[int(timed_out.get("seat", 0))] += 1  # proto3 JSON leaves seat 0 out
    return TableOutcome(
        str(record["table_id"]), tuple(member_of(s) for s in seats), tuple(scores), tuple(timeouts)
    )


def set_results(members: Sequence[str], outcomes: Sequence[TableOutcome]) -> list[MemberResult]:
    """Each member's total, rank and timeouts over the set's tables, in the order of ``members``."""
    totals = dict.fromkeys(members, 0)
    timeouts = dict.fromkeys(members, 0)
    for outcome in outcomes:
        if sorted(outcome.members) != sorted(members):
            raise ValueError(f"table {outcome.table_id} seats {outcome.members}, the set is {members}")
        for member, score, late in zip(outcome.members, outcome.scores, outcome.timeouts, strict=True):
            totals[member] += score
            timeouts[member] += late
    ranks = {m: 1 + sum(1 for other in members if totals[other] > totals[m]) for m in members}
    return [MemberResult(m, totals[m], ranks[m], timeouts[m]) for m in members]
