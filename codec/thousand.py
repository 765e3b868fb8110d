"""The one place where the engine's values become protobuf messages of ``thousand.v1``, and back.

Everything the server sends about a game passes through here, so the mapping of each engine type is written
once: cards, rules, actions, events and views. Enumerations are mapped by name (engine ``Suit.SPADES`` is
``SUIT_SPADES``); a proto enum value the engine does not know, or an engine member the contract lacks, fails
loudly at import time or with a specific error, never silently.

The direction from protobuf is the one clients control, so it validates: :func:`rules_from_proto` raises
:class:`~engine.RulesError` naming the field, :func:`action_from_proto` raises
:class:`~engine.InvalidActionError` with a message saying what is malformed. Whether a well-formed action is
legal right now is the engine's business, not the codec's. :func:`event_from_proto` and
:func:`view_from_proto` decode what the server sent (for Python clients, bots and tests) and raise
``ValueError`` on a message the server would never send.

Hidden information (T-33) is already blanked by the engine's observer (``events_for``, ``view``) before it
gets here; a blanked field (``None``) becomes an absent field or an explicit ``cards_hidden`` flag.
"""

from __future__ import annotations

import functools
from collections.abc import Iterable
from enum import Enum
from typing import Final, TypeVar, assert_never

from codec.common import enum_problem, enum_table, known, optional, reverse, rule_enum
from engine import Action, Event, InvalidActionError, Phase, Rules, View
from engine import actions as ea
from engine import events as ee
from engine import rules as er
from engine.cards import CARDS, Card, Rank, Suit
from engine.observer import Exchange, SeatScore, TakenTrick
from thousand.v1 import (
    cards_pb2,
    thousand_actions_pb2,
    thousand_events_pb2,
    thousand_rules_pb2,
    thousand_views_pb2,
)

ThousandRules = thousand_rules_pb2.ThousandRules
ThousandAction = thousand_actions_pb2.ThousandAction
ThousandEvent = thousand_events_pb2.ThousandEvent
ThousandView = thousand_views_pb2.ThousandView

_E = TypeVar("_E", bound=Enum)
_V = TypeVar("_V", bound=int)


# ---------------------------------------------------------------------------------------------------- cards

_SUIT: Final = enum_table(Suit, cards_pb2.Suit.Value, "SUIT_")
_SUIT_BACK: Final = reverse(_SUIT)
_RANK: Final = enum_table(Rank, cards_pb2.Rank.Value, "RANK_")
_RANK_BACK: Final = reverse(_RANK)


def card_to_proto(card: Card) -> cards_pb2.Card:
    return cards_pb2.Card(suit=_SUIT[card.suit], rank=_RANK[card.rank])


_CARD_MESSAGES: Final = tuple(card_to_proto(c) for c in CARDS)
"""Every card's message, by :attr:`Card.index`, built once: the encoders below pass them to constructors,
which copy them (they are shared and never changed)."""


def card_from_proto(message: cards_pb2.Card, field: str = "card") -> Card:
    """The engine's (interned) card; InvalidActionError naming ``field`` for an unset or unknown suit/rank."""
    suit = _SUIT_BACK.get(message.suit)
    if suit is None:
        raise InvalidActionError(f"{field}.suit: {enum_problem(cards_pb2.Suit.Name, message.suit)}")
    rank = _RANK_BACK.get(message.rank)
    if rank is None:
        raise InvalidActionError(f"{field}.rank: {enum_problem(cards_pb2.Rank.Name, message.rank)}")
    return CARDS[suit * 6 + rank]


def _cards(cards: Iterable[Card]) -> list[cards_pb2.Card]:
    return [_CARD_MESSAGES[c.index] for c in cards]


def _cards_from(messages: Iterable[cards_pb2.Card], field: str) -> tuple[Card, ...]:
    return tuple(card_from_proto(m, field) for m in messages)


def _card_lists(lists: Iterable[Iterable[Card]]) -> list[cards_pb2.CardList]:
    return [cards_pb2.CardList(cards=_cards(cards)) for cards in lists]


def _card_lists_from(messages: Iterable[cards_pb2.CardList], field: str) -> tuple[tuple[Card, ...], ...]:
    return tuple(_cards_from(m.cards, field) for m in messages)


# ---------------------------------------------------------------------------------------------------- rules

_TWO_PLAYER_DEAL: Final = enum_table(
    er.TwoPlayerDeal, thousand_rules_pb2.TwoPlayerDeal.Value, "TWO_PLAYER_DEAL_"
)
_SITTER_SCORES: Final = enum_table(er.SitterScores, thousand_rules_pb2.SitterScores.Value, "SITTER_SCORES_")
_OPENING_BID: Final = enum_table(er.OpeningBid, thousand_rules_pb2.OpeningBid.Value, "OPENING_BID_")
_BID_CAP: Final = enum_table(er.BidCap, thousand_rules_pb2.BidCap.Value, "BID_CAP_")
_WEAK_TALON: Final = enum_table(er.WeakTalon, thousand_rules_pb2.WeakTalon.Value, "WEAK_TALON_")


def rules_to_proto(rules: Rules) -> thousand_rules_pb2.ThousandRules:
    """Every field set explicitly, so a client never has to know the defaults."""
    return ThousandRules(
        players=rules.players,
        two_player_deal=_TWO_PLAYER_DEAL[rules.two_player_deal],
        sitter_scores=_SITTER_SCORES[rules.sitter_scores],
        opening_bid=_OPENING_BID[rules.opening_bid],
        bid_step=rules.bid_step,
        bid_cap=_BID_CAP[rules.bid_cap],
        closed_talon_on_uncontested_100=rules.closed_talon_on_uncontested_100,
        redeal_four_nines=rules.redeal_four_nines,
        weak_talon=_WEAK_TALON[rules.weak_talon],
        weak_talon_below_points=rules.weak_talon_below_points,
        weak_hand_max_points=rules.weak_hand_max_points,
        must_beat=rules.must_beat,
        marriage_on_first_trick=rules.marriage_on_first_trick,
        round_defenders=rules.round_defenders,
        barrel_at=rules.barrel_at,
        barrel_bumped_by_newcomer=rules.barrel_bumped_by_newcomer,
        barrel_simultaneous_both_fall=rules.barrel_simultaneous_both_fall,
        obligatory_game=rules.obligatory_game,
        samosval=rules.samosval,
        golden_deals=rules.golden_deals,
        dark=rules.dark,
        bank=rules.bank,
    )


@functools.lru_cache(maxsize=64)
def _rules_message(rules: Rules) -> thousand_rules_pb2.ThousandRules:
    """:func:`rules_to_proto`, cached for views (each carries its table's rules): shared, never changed."""
    return rules_to_proto(rules)


def rules_from_proto(message: thousand_rules_pb2.ThousandRules) -> Rules:
    """The engine's rules: unset fields take the defaults; RulesError names the first invalid field."""
    m, d = message, _DEFAULT_RULES
    return Rules(
        players=m.players if m.HasField("players") else d.players,
        two_player_deal=rule_enum(m.two_player_deal, _TWO_PLAYER_DEAL, "two_player_deal", d.two_player_deal),
        sitter_scores=rule_enum(m.sitter_scores, _SITTER_SCORES, "sitter_scores", d.sitter_scores),
        opening_bid=rule_enum(m.opening_bid, _OPENING_BID, "opening_bid", d.opening_bid),
        bid_step=m.bid_step if m.HasField("bid_step") else d.bid_step,
        bid_cap=rule_enum(m.bid_cap, _BID_CAP, "bid_cap", d.bid_cap),
        closed_talon_on_uncontested_100=(
            m.closed_talon_on_uncontested_100
            if m.HasField("closed_talon_on_uncontested_100")
            else d.closed_talon_on_uncontested_100
        ),
        redeal_four_nines=m.redeal_four_nines if m.HasField("redeal_four_nines") else d.redeal_four_nines,
        weak_talon=rule_enum(m.weak_talon, _WEAK_TALON, "weak_talon", d.weak_talon),
        weak_talon_below_points=(
            m.weak_talon_below_points if m.HasField("weak_talon_below_points") else d.weak_talon_below_points
        ),
        weak_hand_max_points=(
            m.weak_hand_max_points if m.HasField("weak_hand_max_points") else d.weak_hand_max_points
        ),
        must_beat=m.must_beat if m.HasField("must_beat") else d.must_beat,
        marriage_on_first_trick=(
            m.marriage_on_first_trick if m.HasField("marriage_on_first_trick") else d.marriage_on_first_trick
        ),
        round_defenders=m.round_defenders if m.HasField("round_defenders") else d.round_defenders,
        barrel_at=m.barrel_at if m.HasField("barrel_at") else d.barrel_at,
        barrel_bumped_by_newcomer=(
            m.barrel_bumped_by_newcomer
            if m.HasField("barrel_bumped_by_newcomer")
            else d.barrel_bumped_by_newcomer
        ),
        barrel_simultaneous_both_fall=(
            m.barrel_simultaneous_both_fall
            if m.HasField("barrel_simultaneous_both_fall")
            else d.barrel_simultaneous_both_fall
        ),
        obligatory_game=m.obligatory_game if m.HasField("obligatory_game") else d.obligatory_game,
        samosval=m.samosval if m.HasField("samosval") else d.samosval,
        golden_deals=m.golden_deals if m.HasField("golden_deals") else d.golden_deals,
        dark=m.dark if m.HasField("dark") else d.dark,
        bank=m.bank if m.HasField("bank") else d.bank,
    )


_DEFAULT_RULES: Final = Rules()

# ---------------------------------------------------------------------------------------------------- actions

_REDEAL_REASON: Final = enum_table(ea.RedealReason, thousand_actions_pb2.RedealReason.Value, "REDEAL_REASON_")
_REDEAL_REASON_BACK: Final = reverse(_REDEAL_REASON)

_ACTION_KINDS: Final = ", ".join(f.name for f in ThousandAction.DESCRIPTOR.oneofs_by_name["action"].fields)


def action_to_proto(action: Action) -> thousand_actions_pb2.ThousandAction:
    match action:
        case ea.Bid(value):
            return ThousandAction(bid=ThousandAction.Bid(value=value))
        case ea.Pass():
            message = ThousandAction()
            message.pass_bid.SetInParent()
            return message
        case ea.DeclareDark():
            return ThousandAction(declare_dark=ThousandAction.DeclareDark())
        case ea.DeclineDark():
            return ThousandAction(decline_dark=ThousandAction.DeclineDark())
        case ea.DemandRedeal(reason):
            return ThousandAction(demand_redeal=ThousandAction.DemandRedeal(reason=_REDEAL_REASON[reason]))
        case ea.ChooseTalon(index):
            return ThousandAction(choose_talon=ThousandAction.ChooseTalon(index=index))
        case ea.GiveCard(card, to):
            return ThousandAction(
                give_card=ThousandAction.GiveCard(card=_CARD_MESSAGES[card.index], to_seat=to)
            )
        case ea.DiscardCard(card):
            return ThousandAction(discard_card=ThousandAction.DiscardCard(card=_CARD_MESSAGES[card.index]))
        case ea.NameContract(value):
            return ThousandAction(name_contract=ThousandAction.NameContract(value=value))
        case ea.Concede():
            return ThousandAction(concede=ThousandAction.Concede())
        case ea.PlayCard(card, marriage):
            return ThousandAction(
                play_card=ThousandAction.PlayCard(card=_CARD_MESSAGES[card.index], marriage=marriage)
            )
        case _:
            assert_never(action)


_ACTION_MESSAGES: dict[Action, thousand_actions_pb2.ThousandAction] = {}
_MAX_CACHED_ACTIONS: Final = 4096


def action_message(action: Action) -> thousand_actions_pb2.ThousandAction:
    """:func:`action_to_proto`, cached, for the server's own encoding (a view's and a Turn's legal actions
    are encoded for every action): the message returned is shared and must not be changed."""
    message = _ACTION_MESSAGES.get(action)
    if message is None:
        if len(_ACTION_MESSAGES) >= _MAX_CACHED_ACTIONS:
            _ACTION_MESSAGES.clear()
        message = _ACTION_MESSAGES[action] = action_to_proto(action)
    return message


def _required_card(
    parent: ThousandAction.GiveCard | ThousandAction.DiscardCard | ThousandAction.PlayCard, field: str
) -> Card:
    if not parent.HasField("card"):
        raise InvalidActionError(f"{field} is missing")
    return card_from_proto(parent.card, field)


def action_from_proto(message: thousand_actions_pb2.ThousandAction) -> Action:
    """The engine's action (interned where the engine interns it); InvalidActionError saying what is wrong.

    Only the form is checked here: a card must have a suit and a rank, a redeal a reason. Seats, bids and
    contracts out of range are well-formed and left to the engine, which refuses them with a rule's reason.
    """
    kind = message.WhichOneof("action")
    match kind:
        case None:
            raise InvalidActionError(f"the action is empty: set exactly one of {_ACTION_KINDS}")
        case "bid":
            return ea.Bid(message.bid.value)
        case "pass_bid":
            return ea.PASS
        case "declare_dark":
            return ea.DECLARE_DARK
        case "decline_dark":
            return ea.DECLINE_DARK
        case "demand_redeal":
            value = message.demand_redeal.reason
            reason = _REDEAL_REASON_BACK.get(value)
            if reason is None:
                problem = enum_problem(thousand_actions_pb2.RedealReason.Name, value)
                raise InvalidActionError(f"demand_redeal.reason: {problem}")
            return ea.REDEAL[reason]
        case "choose_talon":
            return ea.ChooseTalon(message.choose_talon.index)
        case "give_card":
            give = message.give_card
            return ea.GiveCard(_required_card(give, "give_card.card"), give.to_seat)
        case "discard_card":
            return ea.DiscardCard(_required_card(message.discard_card, "discard_card.card"))
        case "name_contract":
            return ea.NameContract(message.name_contract.value)
        case "concede":
            return ea.CONCEDE
        case "play_card":
            play = message.play_card
            card = _required_card(play, "play_card.card")
            return (ea.PLAY_MARRIAGE if play.marriage else ea.PLAY)[card.index]
        case _:
            assert_never(kind)


# ---------------------------------------------------------------------------------------------------- events

_DEAL_KIND: Final = enum_table(ee.DealKind, thousand_events_pb2.DealKind.Value, "DEAL_KIND_")
_DEAL_KIND_BACK: Final = reverse(_DEAL_KIND)
_OUTCOME: Final = enum_table(ee.Outcome, thousand_events_pb2.Outcome.Value, "OUTCOME_")
_OUTCOME_BACK: Final = reverse(_OUTCOME)
_MARK: Final = enum_table(ee.Mark, thousand_events_pb2.Mark.Value, "MARK_")
_MARK_BACK: Final = reverse(_MARK)

E = ThousandEvent


def _standing(standing: ee.Standing) -> thousand_events_pb2.Standing:
    return thousand_events_pb2.Standing(
        seat=standing.seat, place=standing.place, score=standing.score, payout=standing.payout
    )


def event_to_proto(event: Event) -> thousand_events_pb2.ThousandEvent:
    """One event as already filtered for its receiver (``engine.event_for``): hidden cards stay absent."""
    match event:
        case ee.GameStarted(rules, first_dealer):
            return E(game_started=E.GameStarted(rules=rules_to_proto(rules), first_dealer=first_dealer))
        case ee.DealStarted(number, dealer, kind, active, declarer):
            return E(
                deal_started=E.DealStarted(
                    number=number, dealer=dealer, kind=_DEAL_KIND[kind], active=active, declarer=declarer
                )
            )
        case ee.DeckShuffled(number, commitment):
            return E(deck_shuffled=E.DeckShuffled(number=number, commitment=commitment))
        case ee.HandDealt(seat, count, cards):
            return E(
                hand_dealt=E.HandDealt(
                    seat=seat, count=count, cards=_cards(cards or ()), cards_hidden=cards is None
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
            return E(redeal_demanded=E.RedealDemanded(seat=seat, reason=_REDEAL_REASON[reason]))
        case ee.TalonChosen(seat, index):
            return E(talon_chosen=E.TalonChosen(seat=seat, index=index))
        case ee.TalonTaken(seat, face_up, cards):
            return E(
                talon_taken=E.TalonTaken(
                    seat=seat, face_up=face_up, cards=_cards(cards or ()), cards_hidden=cards is None
                )
            )
        case ee.CardGiven(seat, to, card):
            shown = None if card is None else _CARD_MESSAGES[card.index]
            return E(card_given=E.CardGiven(seat=seat, to_seat=to, card=shown))
        case ee.ContractNamed(seat, value):
            return E(contract_named=E.ContractNamed(seat=seat, value=value))
        case ee.Conceded(seat, contract):
            return E(conceded=E.Conceded(seat=seat, contract=contract))
        case ee.MarriageDeclared(seat, suit, points):
            return E(marriage_declared=E.MarriageDeclared(seat=seat, suit=_SUIT[suit], points=points))
        case ee.CardPlayed(seat, card):
            return E(card_played=E.CardPlayed(seat=seat, card=_CARD_MESSAGES[card.index]))
        case ee.TrickTaken(seat, number, cards, points):
            return E(trick_taken=E.TrickTaken(seat=seat, number=number, cards=_cards(cards), points=points))
        case ee.LastTalonTaken(seat, cards, points):
            return E(last_talon_taken=E.LastTalonTaken(seat=seat, cards=_cards(cards), points=points))
        case ee.DealRevealed(number, order, hands, talons, salt, deal_seed, client_seeds):
            revealed = E.DealRevealed(
                number=number,
                order=_cards(order),
                hands=_card_lists(hands),
                talons=_card_lists(talons),
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
                    kind=_DEAL_KIND[kind],
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
            standing = [_standing(s) for s in standings]
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
                known(_DEAL_KIND_BACK, m1.kind, "deal_started.kind"),
                tuple(m1.active),
                optional(m1.HasField("declarer"), m1.declarer),
            )
        case "deck_shuffled":
            return ee.DeckShuffled(message.deck_shuffled.number, message.deck_shuffled.commitment)
        case "hand_dealt":
            m2 = message.hand_dealt
            hand = None if m2.cards_hidden else _cards_from(m2.cards, "hand_dealt.cards")
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
            return ee.RedealDemanded(m4.seat, known(_REDEAL_REASON_BACK, m4.reason, "redeal_demanded.reason"))
        case "talon_chosen":
            return ee.TalonChosen(message.talon_chosen.seat, message.talon_chosen.index)
        case "talon_taken":
            m5 = message.talon_taken
            talon = None if m5.cards_hidden else _cards_from(m5.cards, "talon_taken.cards")
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
                m7.seat, known(_SUIT_BACK, m7.suit, "marriage_declared.suit"), m7.points
            )
        case "card_played":
            m8 = message.card_played
            return ee.CardPlayed(m8.seat, card_from_proto(m8.card, "card_played.card"))
        case "trick_taken":
            m9 = message.trick_taken
            return ee.TrickTaken(m9.seat, m9.number, _cards_from(m9.cards, "trick_taken.cards"), m9.points)
        case "last_talon_taken":
            m10 = message.last_talon_taken
            return ee.LastTalonTaken(m10.seat, _cards_from(m10.cards, "last_talon_taken.cards"), m10.points)
        case "deal_revealed":
            m11 = message.deal_revealed
            return ee.DealRevealed(
                m11.number,
                _cards_from(m11.order, "deal_revealed.order"),
                _card_lists_from(m11.hands, "deal_revealed.hands"),
                _card_lists_from(m11.talons, "deal_revealed.talons"),
                m11.salt,
                m11.deal_seed if m11.HasField("deal_seed") else None,
                tuple(m11.client_seeds),
            )
        case "deal_scored":
            m12 = message.deal_scored
            return ee.DealScored(
                m12.number,
                known(_DEAL_KIND_BACK, m12.kind, "deal_scored.kind"),
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
            return ee.GameOver(m14.winner, tuple(_standing_from(s) for s in m14.standings), m14.table_secret)
        case _:
            assert_never(kind)


def _standing_from(message: thousand_events_pb2.Standing) -> ee.Standing:
    return ee.Standing(message.seat, message.place, message.score, message.payout)


# ---------------------------------------------------------------------------------------------------- views

_PHASE: Final = enum_table(Phase, thousand_views_pb2.DealPhase.Value, "DEAL_PHASE_")
_PHASE_BACK: Final = reverse(_PHASE)
V = ThousandView


def view_to_proto(view: View) -> thousand_views_pb2.ThousandView:
    """A seat's (or a spectator's) view, as the engine's observer built it."""
    return V(
        viewer=view.viewer,
        rules=_rules_message(view.rules),  # copied in
        deal_number=view.deal_number,
        dealer=view.dealer,
        kind=thousand_events_pb2.DEAL_KIND_UNSPECIFIED if view.kind is None else _DEAL_KIND[view.kind],
        phase=thousand_views_pb2.DEAL_PHASE_UNSPECIFIED if view.phase is None else _PHASE[view.phase],
        active=view.active,
        sitter=view.sitter,
        hand=_cards(view.hand),
        card_counts=view.card_counts,
        auction=[V.AuctionEntry(seat=seat, bid=bid) for seat, bid in view.auction],
        high_bid=view.high_bid,
        high_bidder=view.high_bidder,
        dark_seat=view.dark_seat,
        declarer=view.declarer,
        bid=view.bid,
        contract=view.contract,
        doubled=view.doubled,
        talon=_cards(view.talon or ()),
        talon_counts=view.talon_counts,
        exchange=[
            V.Exchange(
                giver=x.giver, to_seat=x.to, card=None if x.card is None else _CARD_MESSAGES[x.card.index]
            )
            for x in view.exchange
        ],
        trick=[V.TrickCard(seat=seat, card=_CARD_MESSAGES[card.index]) for seat, card in view.trick],
        tricks=[
            V.TakenTrick(
                winner=t.winner,
                plays=[V.TrickCard(seat=seat, card=_CARD_MESSAGES[card.index]) for seat, card in t.plays],
                points=t.points,
            )
            for t in view.tricks
        ],
        trump=None if view.trump is None else _SUIT[view.trump],
        marriages=[V.DeclaredMarriage(seat=seat, suit=_SUIT[suit]) for seat, suit in view.marriages],
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
        revealed_hands=_card_lists(view.revealed_hands or ()),
        winner=view.winner,
        standings=[_standing(s) for s in view.standings],
    )


def _trick_cards_from(plays: Iterable[V.TrickCard]) -> tuple[tuple[int, Card], ...]:
    return tuple((p.seat, card_from_proto(p.card, "tricks.plays.card")) for p in plays)


def view_from_proto(message: thousand_views_pb2.ThousandView) -> View:
    """The engine's view back from the server's message; ValueError on a message the server never sends."""
    m = message
    return View(
        viewer=optional(m.HasField("viewer"), m.viewer),
        rules=rules_from_proto(m.rules),
        deal_number=m.deal_number,
        dealer=m.dealer,
        kind=None if m.kind == 0 else known(_DEAL_KIND_BACK, m.kind, "kind"),
        phase=None if m.phase == 0 else known(_PHASE_BACK, m.phase, "phase"),
        active=tuple(m.active),
        sitter=optional(m.HasField("sitter"), m.sitter),
        hand=_cards_from(m.hand, "hand"),
        card_counts=tuple(m.card_counts),
        auction=tuple((e.seat, e.bid if e.HasField("bid") else None) for e in m.auction),
        high_bid=optional(m.HasField("high_bid"), m.high_bid),
        high_bidder=optional(m.HasField("high_bidder"), m.high_bidder),
        dark_seat=optional(m.HasField("dark_seat"), m.dark_seat),
        declarer=optional(m.HasField("declarer"), m.declarer),
        bid=optional(m.HasField("bid"), m.bid),
        contract=optional(m.HasField("contract"), m.contract),
        doubled=m.doubled,
        talon=_cards_from(m.talon, "talon") or None,
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
        trump=known(_SUIT_BACK, m.trump, "trump") if m.HasField("trump") else None,
        marriages=tuple((d.seat, known(_SUIT_BACK, d.suit, "marriages.suit")) for d in m.marriages),
        tricks_won=tuple(m.tricks_won),
        trick_points=tuple(m.trick_points),
        scores=tuple(
            SeatScore(s.seat, s.score, s.bolts, s.on_barrel, s.barrel_deals, s.barrel_visits, s.falls)
            for s in m.scores
        ),
        to_act=optional(m.HasField("to_act"), m.to_act),
        legal_actions=tuple(action_from_proto(a) for a in m.legal_actions),
        revealed_hands=_card_lists_from(m.revealed_hands, "revealed_hands") or None,
        winner=optional(m.HasField("winner"), m.winner),
        standings=tuple(_standing_from(s) for s in m.standings),
    )
