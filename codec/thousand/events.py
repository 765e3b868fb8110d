"""Thousand's events as ``ThousandEvent``: one case of its oneof per engine event class.

An event reaches here as its receiver may see it: the engine's observer (``event_for``) has already blanked
what is hidden from that seat (T-33), and a blanked field (``None``) becomes an absent field or an explicit
``cards_hidden`` flag, never an empty list a client could take for "no cards". The other direction is for
Python clients, bots and tests reading what the server sent: a message the server would never send is a
``ValueError``.
"""

from __future__ import annotations

from typing import Final, assert_never

from codec.common import enum_table, known, optional, reverse
from codec.thousand.actions import REDEAL_REASON, REDEAL_REASON_BACK
from codec.thousand.cards import CARD_MESSAGES, SUIT, SUIT_BACK, card_from_proto
from codec.thousand.rules import rules_from_proto, rules_to_proto
from engine import Event
from engine import events as ee
from thousand.v1 import thousand_events_pb2

DEAL_KIND: Final = enum_table(ee.DealKind, thousand_events_pb2.DealKind.Value, "DEAL_KIND_")
DEAL_KIND_BACK: Final = reverse(DEAL_KIND)
_OUTCOME: Final = enum_table(ee.Outcome, thousand_events_pb2.Outcome.Value, "OUTCOME_")
_OUTCOME_BACK: Final = reverse(_OUTCOME)
_MARK: Final = enum_table(ee.Mark, thousand_events_pb2.Mark.Value, "MARK_")
_MARK_BACK: Final = reverse(_MARK)

E = thousand_events_pb2.ThousandEvent


def event_to_proto(event: Event) -> thousand_events_pb2.ThousandEvent:
    """One event as already filtered for its receiver (``engine.event_for``): hidden cards stay absent."""
    match event:
        case ee.GameStarted(rules, first_dealer):
            return E(game_started=E.GameStarted(rules=rules_to_proto(rules), first_dealer=first_dealer))
        case ee.DealStarted(number, dealer, kind, active, declarer):
            return E(
                deal_started=E.DealStarted(
                    number=number, dealer=dealer, kind=DEAL_KIND[kind], active=active, declarer=declarer
                )
            )
        case ee.DeckShuffled(number, commitment):
            return E(deck_shuffled=E.DeckShuffled(number=number, commitment=commitment))
        case ee.HandDealt(seat, count, cards):
            return E(
                hand_dealt=E.HandDealt(
                    seat=seat, count=count, cards=CARD_MESSAGES.many(cards or ()), cards_hidden=cards is None
                )
            )
        case ee.DarkDeclared(seat):
            return E(dark_declared=E.DarkDeclared(seat=seat))
        case ee.DarkDeclined(seat):
            return E(dark_declined=E.DarkDeclined(seat=seat))
        case ee.BidMade(seat, value, forced):
            return E(bid_made=E.BidMade(seat=seat, value=value, forced=forced))
        case ee.Passed(seat):
            return E(passed=E.Passed(seat=seat))
        case ee.AuctionWon(seat, bid):
            return E(auction_won=E.AuctionWon(seat=seat, bid=bid))
        case ee.RedealDemanded(seat, reason):
            return E(redeal_demanded=E.RedealDemanded(seat=seat, reason=REDEAL_REASON[reason]))
        case ee.TalonChosen(seat, index):
            return E(talon_chosen=E.TalonChosen(seat=seat, index=index))
        case ee.TalonTaken(seat, face_up, cards):
            return E(
                talon_taken=E.TalonTaken(
                    seat=seat,
                    face_up=face_up,
                    cards=CARD_MESSAGES.many(cards or ()),
                    cards_hidden=cards is None,
                )
            )
        case ee.CardGiven(seat, to, card):
            shown = CARD_MESSAGES.optional(card)
            return E(card_given=E.CardGiven(seat=seat, to_seat=to, card=shown))
        case ee.ContractNamed(seat, value):
            return E(contract_named=E.ContractNamed(seat=seat, value=value))
        case ee.Conceded(seat, contract):
            return E(conceded=E.Conceded(seat=seat, contract=contract))
        case ee.MarriageDeclared(seat, suit, points):
            return E(marriage_declared=E.MarriageDeclared(seat=seat, suit=SUIT[suit], points=points))
        case ee.CardPlayed(seat, card):
            return E(card_played=E.CardPlayed(seat=seat, card=CARD_MESSAGES.of(card)))
        case ee.TrickTaken(seat, number, cards, points):
            return E(
                trick_taken=E.TrickTaken(
                    seat=seat, number=number, cards=CARD_MESSAGES.many(cards), points=points
                )
            )
        case ee.LastTalonTaken(seat, cards, points):
            return E(
                last_talon_taken=E.LastTalonTaken(seat=seat, cards=CARD_MESSAGES.many(cards), points=points)
            )
        case ee.DealRevealed(number, order, hands, talons, salt, deal_seed, client_seeds):
            revealed = E.DealRevealed(
                number=number,
                order=CARD_MESSAGES.many(order),
                hands=CARD_MESSAGES.lists(hands),
                talons=CARD_MESSAGES.lists(talons),
                salt=salt,
                client_seeds=client_seeds,
            )
            if deal_seed is not None:
                revealed.deal_seed = deal_seed
            return E(deal_revealed=revealed)
        case ee.DealScored(number, kind, declarer, contract, outcome, doubled, deal_points, deltas, totals):
            return E(
                deal_scored=E.DealScored(
                    number=number,
                    kind=DEAL_KIND[kind],
                    declarer=declarer,
                    contract=contract,
                    outcome=_OUTCOME[outcome],
                    doubled=doubled,
                    deal_points=deal_points,
                    deltas=deltas,
                    totals=totals,
                )
            )
        case ee.SheetMarked(seat, mark, points):
            return E(sheet_marked=E.SheetMarked(seat=seat, mark=_MARK[mark], points=points))
        case ee.GameOver(winner, standings, table_secret):
            standing = [standing_to_proto(s) for s in standings]
            return E(game_over=E.GameOver(winner=winner, standings=standing, table_secret=table_secret))
        case _:
            assert_never(event)


def event_from_proto(message: thousand_events_pb2.ThousandEvent) -> Event:
    """The engine's event, as the receiver saw it; ValueError on a message the server never sends."""
    kind = message.WhichOneof("event")
    match kind:
        case None:
            raise ValueError("the event is empty")
        case "game_started":
            m0 = message.game_started
            return ee.GameStarted(rules_from_proto(m0.rules), m0.first_dealer)
        case "deal_started":
            m1 = message.deal_started
            return ee.DealStarted(
                m1.number,
                m1.dealer,
                known(DEAL_KIND_BACK, m1.kind, "deal_started.kind"),
                tuple(m1.active),
                optional(m1.HasField("declarer"), m1.declarer),
            )
        case "deck_shuffled":
            return ee.DeckShuffled(message.deck_shuffled.number, message.deck_shuffled.commitment)
        case "hand_dealt":
            m2 = message.hand_dealt
            hand = None if m2.cards_hidden else CARD_MESSAGES.decode_many(m2.cards, "hand_dealt.cards")
            return ee.HandDealt(m2.seat, m2.count, hand)
        case "dark_declared":
            return ee.DarkDeclared(message.dark_declared.seat)
        case "dark_declined":
            return ee.DarkDeclined(message.dark_declined.seat)
        case "bid_made":
            m3 = message.bid_made
            return ee.BidMade(m3.seat, m3.value, m3.forced)
        case "passed":
            return ee.Passed(message.passed.seat)
        case "auction_won":
            return ee.AuctionWon(message.auction_won.seat, message.auction_won.bid)
        case "redeal_demanded":
            m4 = message.redeal_demanded
            return ee.RedealDemanded(m4.seat, known(REDEAL_REASON_BACK, m4.reason, "redeal_demanded.reason"))
        case "talon_chosen":
            return ee.TalonChosen(message.talon_chosen.seat, message.talon_chosen.index)
        case "talon_taken":
            m5 = message.talon_taken
            talon = None if m5.cards_hidden else CARD_MESSAGES.decode_many(m5.cards, "talon_taken.cards")
            return ee.TalonTaken(m5.seat, m5.face_up, talon)
        case "card_given":
            m6 = message.card_given
            given = card_from_proto(m6.card, "card_given.card") if m6.HasField("card") else None
            return ee.CardGiven(m6.seat, optional(m6.HasField("to_seat"), m6.to_seat), given)
        case "contract_named":
            return ee.ContractNamed(message.contract_named.seat, message.contract_named.value)
        case "conceded":
            return ee.Conceded(message.conceded.seat, message.conceded.contract)
        case "marriage_declared":
            m7 = message.marriage_declared
            return ee.MarriageDeclared(
                m7.seat, known(SUIT_BACK, m7.suit, "marriage_declared.suit"), m7.points
            )
        case "card_played":
            m8 = message.card_played
            return ee.CardPlayed(m8.seat, card_from_proto(m8.card, "card_played.card"))
        case "trick_taken":
            m9 = message.trick_taken
            return ee.TrickTaken(
                m9.seat, m9.number, CARD_MESSAGES.decode_many(m9.cards, "trick_taken.cards"), m9.points
            )
        case "last_talon_taken":
            m10 = message.last_talon_taken
            return ee.LastTalonTaken(
                m10.seat, CARD_MESSAGES.decode_many(m10.cards, "last_talon_taken.cards"), m10.points
            )
        case "deal_revealed":
            m11 = message.deal_revealed
            return ee.DealRevealed(
                m11.number,
                CARD_MESSAGES.decode_many(m11.order, "deal_revealed.order"),
                CARD_MESSAGES.decode_lists(m11.hands, "deal_revealed.hands"),
                CARD_MESSAGES.decode_lists(m11.talons, "deal_revealed.talons"),
                m11.salt,
                m11.deal_seed if m11.HasField("deal_seed") else None,
                tuple(m11.client_seeds),
            )
        case "deal_scored":
            m12 = message.deal_scored
            return ee.DealScored(
                m12.number,
                known(DEAL_KIND_BACK, m12.kind, "deal_scored.kind"),
                m12.declarer,
                m12.contract,
                known(_OUTCOME_BACK, m12.outcome, "deal_scored.outcome"),
                m12.doubled,
                tuple(m12.deal_points),
                tuple(m12.deltas),
                tuple(m12.totals),
            )
        case "sheet_marked":
            m13 = message.sheet_marked
            return ee.SheetMarked(m13.seat, known(_MARK_BACK, m13.mark, "sheet_marked.mark"), m13.points)
        case "game_over":
            m14 = message.game_over
            return ee.GameOver(
                m14.winner, tuple(standing_from_proto(s) for s in m14.standings), m14.table_secret
            )
        case _:
            assert_never(kind)


def standing_to_proto(standing: ee.Standing) -> thousand_events_pb2.Standing:
    return thousand_events_pb2.Standing(
        seat=standing.seat, place=standing.place, score=standing.score, payout=standing.payout
    )


def standing_from_proto(message: thousand_events_pb2.Standing) -> ee.Standing:
    return ee.Standing(message.seat, message.place, message.score, message.payout)
