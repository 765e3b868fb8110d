"""1000 Blagogo's melds on the table as ``BlagogoMeld``, which events and views both carry.

Only the server sends them (a client names a meld by its id), so the direction from protobuf is for Python
clients, bots and tests: a message the server would never send is a ``ValueError``. A meld's joker meanings
and points are sent for clients that do not run the engine; reading one back, they follow from the rest.
"""

from __future__ import annotations

from typing import Final

from codec.blagogo.actions import meanings_to_proto
from codec.blagogo.cards import CARD_MESSAGES, RANK, RANK_BACK, SUIT, SUIT_BACK
from codec.common import enum_table, known, reverse
from engine.blagogo.melds import MeldKind, TableMeld
from thousand.v1 import blagogo_events_pb2, cards_pb2

_MELD_KIND: Final = enum_table(MeldKind, blagogo_events_pb2.BlagogoMeldKind.Value, "BLAGOGO_MELD_KIND_")
_MELD_KIND_BACK: Final = reverse(_MELD_KIND)


def meld_to_proto(meld: TableMeld) -> blagogo_events_pb2.BlagogoMeld:
    return blagogo_events_pb2.BlagogoMeld(
        id=meld.id,
        owner=meld.owner,
        kind=_MELD_KIND[meld.kind],
        cards=CARD_MESSAGES.many(meld.cards),
        contributors=meld.contributors,
        rank=RANK[meld.rank],
        suit=cards_pb2.SUIT_UNSPECIFIED if meld.suit is None else SUIT[meld.suit],
        closed=meld.closed,
        jokers=meanings_to_proto(s for s in meld.stands() if s is not None),
        points=meld.points,
    )


def meld_from_proto(message: blagogo_events_pb2.BlagogoMeld, field: str = "meld") -> TableMeld:
    """The engine's meld as the server sent it (``jokers`` and ``points`` follow from the rest)."""
    m = message
    return TableMeld(
        m.id,
        m.owner,
        known(_MELD_KIND_BACK, m.kind, f"{field}.kind"),
        CARD_MESSAGES.decode_many(m.cards, f"{field}.cards"),
        tuple(m.contributors),
        known(RANK_BACK, m.rank, f"{field}.rank"),
        None if m.suit == cards_pb2.SUIT_UNSPECIFIED else known(SUIT_BACK, m.suit, f"{field}.suit"),
        m.closed,
    )
