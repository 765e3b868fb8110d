"""Thousand's views as ``ThousandView``: what one seat (or a spectator) may see of the table, as the
engine's observer (``engine.view``) built it, hidden cards already left out (T-33).

A view carries the table's rules and its legal actions, which are the same few messages over and over, so it
is built from the cached :func:`~codec.thousand.rules.rules_message` and
:func:`~codec.thousand.actions.action_message`. The other direction is for Python clients, bots and tests:
a message the server would never send is a ``ValueError``.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Final

from codec.common import enum_table, known, optional, reverse
from codec.thousand.actions import action_from_proto, action_message
from codec.thousand.cards import CARD_MESSAGES, SUIT, SUIT_BACK, card_from_proto
from codec.thousand.events import DEAL_KIND, DEAL_KIND_BACK, standing_from_proto, standing_to_proto
from codec.thousand.rules import rules_from_proto, rules_message
from engine import Phase, View
from engine.cards import Card
from engine.observer import Exchange, SeatScore, TakenTrick
from thousand.v1 import thousand_events_pb2, thousand_views_pb2

_PHASE: Final = enum_table(Phase, thousand_views_pb2.DealPhase.Value, "DEAL_PHASE_")
_PHASE_BACK: Final = reverse(_PHASE)
V = thousand_views_pb2.ThousandView


def view_to_proto(view: View) -> thousand_views_pb2.ThousandView:
    """A seat's (or a spectator's) view, as the engine's observer built it."""
    return V(
        viewer=view.viewer,
        rules=rules_message(view.rules),  # copied in
        deal_number=view.deal_number,
        dealer=view.dealer,
        kind=thousand_events_pb2.DEAL_KIND_UNSPECIFIED if view.kind is None else DEAL_KIND[view.kind],
        phase=thousand_views_pb2.DEAL_PHASE_UNSPECIFIED if view.phase is None else _PHASE[view.phase],
        active=view.active,
        sitter=view.sitter,
        hand=CARD_MESSAGES.many(view.hand),
        card_counts=view.card_counts,
        auction=[V.AuctionEntry(seat=seat, bid=bid) for seat, bid in view.auction],
        high_bid=view.high_bid,
        high_bidder=view.high_bidder,
        dark_seat=view.dark_seat,
        declarer=view.declarer,
        bid=view.bid,
        contract=view.contract,
        doubled=view.doubled,
        talon=CARD_MESSAGES.many(view.talon or ()),
        talon_counts=view.talon_counts,
        exchange=[
            V.Exchange(giver=x.giver, to_seat=x.to, card=CARD_MESSAGES.optional(x.card))
            for x in view.exchange
        ],
        trick=[V.TrickCard(seat=seat, card=CARD_MESSAGES.of(card)) for seat, card in view.trick],
        tricks=[
            V.TakenTrick(
                winner=t.winner,
                plays=[V.TrickCard(seat=seat, card=CARD_MESSAGES.of(card)) for seat, card in t.plays],
                points=t.points,
            )
            for t in view.tricks
        ],
        trump=None if view.trump is None else SUIT[view.trump],
        marriages=[V.DeclaredMarriage(seat=seat, suit=SUIT[suit]) for seat, suit in view.marriages],
        tricks_won=view.tricks_won,
        trick_points=view.trick_points,
        scores=[
            thousand_views_pb2.SeatScore(
                seat=s.seat,
                score=s.score,
                bolts=s.bolts,
                on_barrel=s.on_barrel,
                barrel_deals=s.barrel_deals,
                barrel_visits=s.barrel_visits,
                falls=s.falls,
            )
            for s in view.scores
        ],
        to_act=view.to_act,
        legal_actions=[action_message(a) for a in view.legal_actions],  # copied in
        revealed_hands=CARD_MESSAGES.lists(view.revealed_hands or ()),
        winner=view.winner,
        standings=[standing_to_proto(s) for s in view.standings],
    )


def view_from_proto(message: thousand_views_pb2.ThousandView) -> View:
    """The engine's view back from the server's message; ValueError on a message the server never sends."""
    m = message
    return View(
        viewer=optional(m.HasField("viewer"), m.viewer),
        rules=rules_from_proto(m.rules),
        deal_number=m.deal_number,
        dealer=m.dealer,
        kind=None if m.kind == 0 else known(DEAL_KIND_BACK, m.kind, "kind"),
        phase=None if m.phase == 0 else known(_PHASE_BACK, m.phase, "phase"),
        active=tuple(m.active),
        sitter=optional(m.HasField("sitter"), m.sitter),
        hand=CARD_MESSAGES.decode_many(m.hand, "hand"),
        card_counts=tuple(m.card_counts),
        auction=tuple((e.seat, e.bid if e.HasField("bid") else None) for e in m.auction),
        high_bid=optional(m.HasField("high_bid"), m.high_bid),
        high_bidder=optional(m.HasField("high_bidder"), m.high_bidder),
        dark_seat=optional(m.HasField("dark_seat"), m.dark_seat),
        declarer=optional(m.HasField("declarer"), m.declarer),
        bid=optional(m.HasField("bid"), m.bid),
        contract=optional(m.HasField("contract"), m.contract),
        doubled=m.doubled,
        talon=CARD_MESSAGES.decode_many(m.talon, "talon") or None,
        talon_counts=tuple(m.talon_counts),
        exchange=tuple(
            Exchange(
                x.giver,
                x.to_seat if x.HasField("to_seat") else None,
                card_from_proto(x.card, "exchange.card") if x.HasField("card") else None,
            )
            for x in m.exchange
        ),
        trick=tuple((t.seat, card_from_proto(t.card, "trick.card")) for t in m.trick),
        tricks=tuple(TakenTrick(t.winner, _trick_cards_from(t.plays), t.points) for t in m.tricks),
        trump=known(SUIT_BACK, m.trump, "trump") if m.HasField("trump") else None,
        marriages=tuple((d.seat, known(SUIT_BACK, d.suit, "marriages.suit")) for d in m.marriages),
        tricks_won=tuple(m.tricks_won),
        trick_points=tuple(m.trick_points),
        scores=tuple(
            SeatScore(s.seat, s.score, s.bolts, s.on_barrel, s.barrel_deals, s.barrel_visits, s.falls)
            for s in m.scores
        ),
        to_act=optional(m.HasField("to_act"), m.to_act),
        legal_actions=tuple(action_from_proto(a) for a in m.legal_actions),
        revealed_hands=CARD_MESSAGES.decode_lists(m.revealed_hands, "revealed_hands") or None,
        winner=optional(m.HasField("winner"), m.winner),
        standings=tuple(standing_from_proto(s) for s in m.standings),
    )


def _trick_cards_from(plays: Iterable[V.TrickCard]) -> tuple[tuple[int, Card], ...]:
    return tuple((p.seat, card_from_proto(p.card, "tricks.plays.card")) for p in plays)
