"""1000 Blagogo's events as ``BlagogoEvent``: one case of its oneof per engine event class.

An event reaches here as its receiver may see it: the engine's observer (``event_for``) has already blanked
what is hidden from that seat (B-21), and a hidden hand becomes an empty list with ``cards_hidden``, a hidden
drawn card an absent field. The other direction is for Python clients, bots and tests reading what the server
sent: a message the server would never send is a ``ValueError``.
"""

from __future__ import annotations

from typing import Final, assert_never

from codec.blagogo.actions import END_BACK, end_to_proto
from codec.blagogo.cards import CARD_MESSAGES, card_from_proto
from codec.blagogo.melds import meld_from_proto, meld_to_proto
from codec.blagogo.rules import rules_from_proto, rules_to_proto
from codec.common import enum_table, known, optional, reverse
from engine.blagogo import events as be
from engine.blagogo.events import Event
from thousand.v1 import blagogo_events_pb2

Ev = blagogo_events_pb2.BlagogoEvent
_EXHAUSTION: Final = enum_table(
    be.Exhaustion, blagogo_events_pb2.BlagogoExhaustion.Value, "BLAGOGO_EXHAUSTION_"
)
_EXHAUSTION_BACK: Final = reverse(_EXHAUSTION)
"""Unset (an event sent before the reason existed) reads as NOTHING_TO_DRAW, the engine's old only reason."""


def event_to_proto(event: Event) -> blagogo_events_pb2.BlagogoEvent:
    """One event as already filtered for its receiver (``event_for``): hidden cards stay absent (B-21)."""
    match event:
        case be.GameStarted(rules, first_dealer):
            return Ev(game_started=Ev.GameStarted(rules=rules_to_proto(rules), first_dealer=first_dealer))
        case be.RoundStarted(number, dealer, first):
            return Ev(round_started=Ev.RoundStarted(number=number, dealer=dealer, first=first))
        case be.DeckShuffled(number, commitment):
            return Ev(deck_shuffled=Ev.DeckShuffled(number=number, commitment=commitment))
        case be.HandDealt(seat, count, cards):
            return Ev(
                hand_dealt=Ev.HandDealt(
                    seat=seat, count=count, cards=CARD_MESSAGES.many(cards or ()), cards_hidden=cards is None
                )
            )
        case be.BridgeStarted(card, deck_count):
            return Ev(bridge_started=Ev.BridgeStarted(card=CARD_MESSAGES.of(card), deck_count=deck_count))
        case be.BridgeTurnedOver(count):
            return Ev(bridge_turned_over=Ev.BridgeTurnedOver(count=count))
        case be.DeckExhausted(turnovers, reason):
            return Ev(deck_exhausted=Ev.DeckExhausted(turnovers=turnovers, reason=_EXHAUSTION[reason]))
        case be.CardDrawn(seat, card):
            return Ev(card_drawn=Ev.CardDrawn(seat=seat, card=CARD_MESSAGES.optional(card)))
        case be.BridgeTaken(seat, position, cards):
            return Ev(
                bridge_taken=Ev.BridgeTaken(seat=seat, position=position, cards=CARD_MESSAGES.many(cards))
            )
        case be.MeldsLaid(seat, melds, points, opening):
            return Ev(
                melds_laid=Ev.MeldsLaid(
                    seat=seat, melds=[meld_to_proto(m) for m in melds], points=points, opening=opening
                )
            )
        case be.MeldExtended(seat, meld, cards, end):
            return Ev(
                meld_extended=Ev.MeldExtended(
                    seat=seat,
                    meld=meld_to_proto(meld),
                    cards=CARD_MESSAGES.many(cards),
                    run_end=end_to_proto(end),
                )
            )
        case be.JokerSwapped(seat, meld, card, joker):
            return Ev(
                joker_swapped=Ev.JokerSwapped(
                    seat=seat,
                    meld=meld_to_proto(meld),
                    card=CARD_MESSAGES.of(card),
                    joker=CARD_MESSAGES.of(joker),
                )
            )
        case be.MeldClosed(meld_id, owner):
            return Ev(meld_closed=Ev.MeldClosed(meld_id=meld_id, owner=owner))
        case be.Discarded(seat, card):
            return Ev(discarded=Ev.Discarded(seat=seat, card=CARD_MESSAGES.of(card)))
        case be.WentOut(seat, kantrame):
            return Ev(went_out=Ev.WentOut(seat=seat, kantrame=kantrame))
        case be.RoundRevealed(number, order, hands, final_hands, salt, client_seeds):
            return Ev(
                round_revealed=Ev.RoundRevealed(
                    number=number,
                    order=CARD_MESSAGES.many(order),
                    hands=CARD_MESSAGES.lists(hands),
                    final_hands=CARD_MESSAGES.lists(final_hands),
                    salt=salt,
                    client_seeds=client_seeds,
                )
            )
        case be.RoundScored(number, winner, kantrame, meld_points, hand_penalties, deltas, totals):
            return Ev(
                round_scored=Ev.RoundScored(
                    number=number,
                    winner=winner,
                    kantrame=kantrame,
                    meld_points=meld_points,
                    hand_penalties=hand_penalties,
                    deltas=deltas,
                    totals=totals,
                )
            )
        case be.GameOver(winner, standings, table_secret):
            standing = [standing_to_proto(s) for s in standings]
            return Ev(game_over=Ev.GameOver(winner=winner, standings=standing, table_secret=table_secret))
        case _:
            assert_never(event)


def event_from_proto(message: blagogo_events_pb2.BlagogoEvent) -> Event:
    """The engine's event, as the receiver saw it; ValueError on a message the server never sends."""
    kind = message.WhichOneof("event")
    match kind:
        case None:
            raise ValueError("the event is empty")
        case "game_started":
            m0 = message.game_started
            return be.GameStarted(rules_from_proto(m0.rules), m0.first_dealer)
        case "round_started":
            m1 = message.round_started
            return be.RoundStarted(m1.number, m1.dealer, m1.first)
        case "deck_shuffled":
            return be.DeckShuffled(message.deck_shuffled.number, message.deck_shuffled.commitment)
        case "hand_dealt":
            m2 = message.hand_dealt
            hand = None if m2.cards_hidden else CARD_MESSAGES.decode_many(m2.cards, "hand_dealt.cards")
            return be.HandDealt(m2.seat, m2.count, hand)
        case "bridge_started":
            m3 = message.bridge_started
            return be.BridgeStarted(card_from_proto(m3.card, "bridge_started.card"), m3.deck_count)
        case "bridge_turned_over":
            return be.BridgeTurnedOver(message.bridge_turned_over.count)
        case "deck_exhausted":
            m_ex = message.deck_exhausted
            reason = _EXHAUSTION_BACK.get(m_ex.reason, be.Exhaustion.NOTHING_TO_DRAW)
            return be.DeckExhausted(m_ex.turnovers, reason)
        case "card_drawn":
            m4 = message.card_drawn
            drawn = card_from_proto(m4.card, "card_drawn.card") if m4.HasField("card") else None
            return be.CardDrawn(m4.seat, drawn)
        case "bridge_taken":
            m5 = message.bridge_taken
            return be.BridgeTaken(
                m5.seat, m5.position, CARD_MESSAGES.decode_many(m5.cards, "bridge_taken.cards")
            )
        case "melds_laid":
            m6 = message.melds_laid
            melds = tuple(meld_from_proto(m, "melds_laid.melds") for m in m6.melds)
            return be.MeldsLaid(m6.seat, melds, m6.points, m6.opening)
        case "meld_extended":
            m7 = message.meld_extended
            return be.MeldExtended(
                m7.seat,
                meld_from_proto(m7.meld, "meld_extended.meld"),
                CARD_MESSAGES.decode_many(m7.cards, "meld_extended.cards"),
                None if m7.run_end == 0 else known(END_BACK, m7.run_end, "meld_extended.run_end"),
            )
        case "joker_swapped":
            m8 = message.joker_swapped
            return be.JokerSwapped(
                m8.seat,
                meld_from_proto(m8.meld, "joker_swapped.meld"),
                card_from_proto(m8.card, "joker_swapped.card"),
                card_from_proto(m8.joker, "joker_swapped.joker"),
            )
        case "meld_closed":
            return be.MeldClosed(message.meld_closed.meld_id, message.meld_closed.owner)
        case "discarded":
            m9 = message.discarded
            return be.Discarded(m9.seat, card_from_proto(m9.card, "discarded.card"))
        case "went_out":
            return be.WentOut(message.went_out.seat, message.went_out.kantrame)
        case "round_revealed":
            m10 = message.round_revealed
            return be.RoundRevealed(
                m10.number,
                CARD_MESSAGES.decode_many(m10.order, "round_revealed.order"),
                CARD_MESSAGES.decode_lists(m10.hands, "round_revealed.hands"),
                CARD_MESSAGES.decode_lists(m10.final_hands, "round_revealed.final_hands"),
                m10.salt,
                tuple(m10.client_seeds),
            )
        case "round_scored":
            m11 = message.round_scored
            return be.RoundScored(
                m11.number,
                optional(m11.HasField("winner"), m11.winner),
                m11.kantrame,
                tuple(m11.meld_points),
                tuple(m11.hand_penalties),
                tuple(m11.deltas),
                tuple(m11.totals),
            )
        case "game_over":
            m12 = message.game_over
            return be.GameOver(
                m12.winner, tuple(standing_from_proto(s) for s in m12.standings), m12.table_secret
            )
        case _:
            assert_never(kind)


def standing_to_proto(standing: be.Standing) -> blagogo_events_pb2.BlagogoStanding:
    return blagogo_events_pb2.BlagogoStanding(seat=standing.seat, place=standing.place, score=standing.score)


def standing_from_proto(message: blagogo_events_pb2.BlagogoStanding) -> be.Standing:
    return be.Standing(message.seat, message.place, message.score)
