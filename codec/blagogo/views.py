"""1000 Blagogo's views as ``BlagogoView``: what one seat (or a spectator) may see of the table, as the
engine's observer (``engine.blagogo.view``) built it, hidden cards already left out (B-21).

The other direction is for Python clients, bots and tests: a message the server would never send is a
``ValueError``.
"""

from __future__ import annotations

from typing import Final

from codec.blagogo.actions import action_from_proto, action_to_proto
from codec.blagogo.cards import CARD_MESSAGES, card_from_proto
from codec.blagogo.events import standing_from_proto, standing_to_proto
from codec.blagogo.melds import meld_from_proto, meld_to_proto
from codec.blagogo.rules import rules_from_proto, rules_to_proto
from codec.common import enum_table, known, optional, reverse
from engine.blagogo.observer import View
from engine.blagogo.round import Phase
from thousand.v1 import blagogo_views_pb2

_PHASE: Final = enum_table(Phase, blagogo_views_pb2.BlagogoPhase.Value, "BLAGOGO_PHASE_")
_PHASE_BACK: Final = reverse(_PHASE)


def view_to_proto(view: View) -> blagogo_views_pb2.BlagogoView:
    """A seat's (or a spectator's) view, as the engine's observer built it."""
    return blagogo_views_pb2.BlagogoView(
        viewer=view.viewer,
        rules=rules_to_proto(view.rules),
        round_number=view.round_number,
        dealer=view.dealer,
        phase=blagogo_views_pb2.BLAGOGO_PHASE_UNSPECIFIED if view.phase is None else _PHASE[view.phase],
        to_act=view.to_act,
        hand=CARD_MESSAGES.many(view.hand),
        card_counts=view.card_counts,
        known_cards=CARD_MESSAGES.lists(view.known_cards),
        deck_count=view.deck_count,
        bridge=CARD_MESSAGES.many(view.bridge),
        melds=[meld_to_proto(m) for m in view.melds],
        opened=view.opened,
        must_meld=CARD_MESSAGES.optional(view.must_meld),
        scores=view.scores,
        legal_actions=[action_to_proto(a) for a in view.legal_actions],
        revealed_hands=CARD_MESSAGES.lists(view.revealed_hands or ()),
        final_hands=CARD_MESSAGES.lists(view.final_hands or ()),
        round_winner=view.round_winner,
        kantrame=view.kantrame,
        winner=view.winner,
        standings=[standing_to_proto(s) for s in view.standings],
    )


def view_from_proto(message: blagogo_views_pb2.BlagogoView) -> View:
    """The engine's view back from the server's message; ValueError on a message the server never sends."""
    m = message
    return View(
        viewer=optional(m.HasField("viewer"), m.viewer),
        rules=rules_from_proto(m.rules),
        round_number=m.round_number,
        dealer=m.dealer,
        phase=None if m.phase == 0 else known(_PHASE_BACK, m.phase, "phase"),
        to_act=optional(m.HasField("to_act"), m.to_act),
        hand=CARD_MESSAGES.decode_many(m.hand, "hand"),
        card_counts=tuple(m.card_counts),
        known_cards=CARD_MESSAGES.decode_lists(m.known_cards, "known_cards"),
        deck_count=m.deck_count,
        bridge=CARD_MESSAGES.decode_many(m.bridge, "bridge"),
        melds=tuple(meld_from_proto(x, "melds") for x in m.melds),
        opened=tuple(m.opened),
        must_meld=card_from_proto(m.must_meld, "must_meld") if m.HasField("must_meld") else None,
        scores=tuple(m.scores),
        legal_actions=tuple(action_from_proto(a) for a in m.legal_actions),
        revealed_hands=CARD_MESSAGES.decode_lists(m.revealed_hands, "revealed_hands") or None,
        final_hands=CARD_MESSAGES.decode_lists(m.final_hands, "final_hands") or None,
        round_winner=optional(m.HasField("round_winner"), m.round_winner),
        kantrame=m.kantrame,
        winner=optional(m.HasField("winner"), m.winner),
        standings=tuple(standing_from_proto(s) for s in m.standings),
    )
