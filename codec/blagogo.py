"""The one place where 1000 Blagogo's engine values become protobuf messages of ``thousand.v1``, and back.

The Blagogo counterpart of :mod:`codec.thousand` (Thousand), written the same way: cards, rules, actions,
events and views, each mapping once; enumerations mapped by name (engine ``Rank.ACE`` is
``BLAGOGO_RANK_ACE``), so a member missing on either side fails at import time.

The direction from protobuf is the one clients control, so it validates: :func:`rules_from_proto` raises
:class:`~engine.errors.RulesError` naming the field, :func:`action_from_proto` raises
:class:`~engine.errors.InvalidActionError` saying what is malformed (a card without a suit, a joker meaning
without a rank, an unknown enum value, an empty action). Whether a well-formed action is legal now (the
meld, the meld id, the bridge position, the run's end) is the engine's exact validator's business (B-22).
:func:`event_from_proto` and :func:`view_from_proto` decode what the server sent (for Python clients, bots
and tests) and raise ``ValueError`` on a message the server would never send.

Hidden information (B-21) is already blanked by the engine's observer (``event_for``, ``view``) before it
gets here: a hidden hand becomes an empty list with ``cards_hidden``, a hidden drawn card an absent field.

Cards: a natural card is its rank, suit and ``copy`` (the deck it comes from, 0 or 1: the engine's index is
``2 * (suit * 13 + rank) + copy``); a joker is ``joker=True`` and ``copy`` 0 to 3 (engine index 104 + copy).
"""

from __future__ import annotations

from collections.abc import Iterable
from enum import Enum
from typing import Final, TypeVar, assert_never

from codec.common import enum_problem, enum_table, known, optional, reverse, rule_enum
from engine.blagogo import actions as ba
from engine.blagogo import events as be
from engine.blagogo.actions import Action, End, MeldSpec, Stands
from engine.blagogo.cards import CARDS, FIRST_JOKER, RANKS, Card, Rank, Suit
from engine.blagogo.events import Event
from engine.blagogo.melds import MeldKind, TableMeld
from engine.blagogo.observer import View
from engine.blagogo.round import Phase
from engine.blagogo.rules import BlagogoRules, CompletedSetKeeper, LayoffScores
from engine.errors import InvalidActionError
from thousand.v1 import (
    blagogo_actions_pb2,
    blagogo_cards_pb2,
    blagogo_events_pb2,
    blagogo_rules_pb2,
    blagogo_views_pb2,
    cards_pb2,
)

BlagogoCard = blagogo_cards_pb2.BlagogoCard
BlagogoRulesMessage = blagogo_rules_pb2.BlagogoRules
BlagogoAction = blagogo_actions_pb2.BlagogoAction
BlagogoEvent = blagogo_events_pb2.BlagogoEvent
BlagogoView = blagogo_views_pb2.BlagogoView

_E = TypeVar("_E", bound=Enum)
_V = TypeVar("_V", bound=int)

JOKERS: Final = 4
DECKS: Final = 2


# ---------------------------------------------------------------------------------------------------- cards

_SUIT: Final = enum_table(Suit, cards_pb2.Suit.Value, "SUIT_")
_SUIT_BACK: Final = reverse(_SUIT)
_RANK: Final = enum_table(Rank, blagogo_cards_pb2.BlagogoRank.Value, "BLAGOGO_RANK_")
_RANK_BACK: Final = reverse(_RANK)

_CARD_PROTOS: Final[tuple[blagogo_cards_pb2.BlagogoCard, ...]] = tuple(
    BlagogoCard(joker=True, copy=c.index - FIRST_JOKER)
    if c.is_joker
    else BlagogoCard(rank=_RANK[Rank(c.face % RANKS)], suit=_SUIT[Suit(c.face // RANKS)], copy=c.index & 1)
    for c in CARDS
)
"""Each card's message, built once. Never handed out: protobuf copies it into whatever field it is set in."""


def card_to_proto(card: Card) -> blagogo_cards_pb2.BlagogoCard:
    message = BlagogoCard()
    message.CopyFrom(_CARD_PROTOS[card.index])
    return message


def card_from_proto(message: blagogo_cards_pb2.BlagogoCard, field: str = "card") -> Card:
    """The engine's (interned) card; InvalidActionError naming ``field`` for a card that does not exist."""
    if message.joker:
        if message.rank or message.suit:
            raise InvalidActionError(f"{field}: a joker has neither rank nor suit")
        if not 0 <= message.copy < JOKERS:
            raise InvalidActionError(f"{field}.copy: a joker's copy is 0 to 3, not {message.copy}")
        return CARDS[FIRST_JOKER + message.copy]
    suit = _SUIT_BACK.get(message.suit)
    if suit is None:
        raise InvalidActionError(f"{field}.suit: {enum_problem(cards_pb2.Suit.Name, message.suit)}")
    rank = _RANK_BACK.get(message.rank)
    if rank is None:
        problem = enum_problem(blagogo_cards_pb2.BlagogoRank.Name, message.rank)
        raise InvalidActionError(f"{field}.rank: {problem}")
    if not 0 <= message.copy < DECKS:
        raise InvalidActionError(f"{field}.copy: a natural card's copy is 0 or 1, not {message.copy}")
    return CARDS[2 * (suit * RANKS + rank) + message.copy]


def _cards(cards: Iterable[Card]) -> list[blagogo_cards_pb2.BlagogoCard]:
    """For a repeated field (which copies them): the shared messages themselves."""
    return [_CARD_PROTOS[c.index] for c in cards]


def _cards_from(messages: Iterable[blagogo_cards_pb2.BlagogoCard], field: str) -> tuple[Card, ...]:
    return tuple(card_from_proto(m, field) for m in messages)


def _card_lists(lists: Iterable[Iterable[Card]]) -> list[blagogo_cards_pb2.BlagogoCardList]:
    return [blagogo_cards_pb2.BlagogoCardList(cards=_cards(cards)) for cards in lists]


def _card_lists_from(
    messages: Iterable[blagogo_cards_pb2.BlagogoCardList], field: str
) -> tuple[tuple[Card, ...], ...]:
    return tuple(_cards_from(m.cards, field) for m in messages)


def _optional_card(card: Card | None) -> blagogo_cards_pb2.BlagogoCard | None:
    """For a message field (which copies it): the shared message, or None to leave the field absent."""
    return None if card is None else _CARD_PROTOS[card.index]


# ---------------------------------------------------------------------------------------------------- rules

_LAYOFF: Final = enum_table(
    LayoffScores, blagogo_rules_pb2.BlagogoLayoffScores.Value, "BLAGOGO_LAYOFF_SCORES_"
)
_KEEPER: Final = enum_table(
    CompletedSetKeeper,
    blagogo_rules_pb2.BlagogoCompletedSetKeeper.Value,
    "BLAGOGO_COMPLETED_SET_KEEPER_",
)
_DEFAULT_RULES: Final = BlagogoRules()


def rules_to_proto(rules: BlagogoRules) -> blagogo_rules_pb2.BlagogoRules:
    """Every field set explicitly, so a client never has to know the defaults."""
    return BlagogoRulesMessage(
        players=rules.players,
        ace_in_hand=rules.ace_in_hand,
        bridge_take_must_meld=rules.bridge_take_must_meld,
        opening_min_points=rules.opening_min_points,
        layoff_scores_for=_LAYOFF[rules.layoff_scores_for],
        kantrame_first_turn_only=rules.kantrame_first_turn_only,
        target=rules.target,
        turnover_limit=rules.turnover_limit,
        opening_one_meld=rules.opening_one_meld,
        completed_set_keeper=_KEEPER[rules.completed_set_keeper],
        play_on_own_melds=rules.play_on_own_melds,
        max_jokers_per_meld=rules.max_jokers_per_meld,
    )


def rules_from_proto(message: blagogo_rules_pb2.BlagogoRules) -> BlagogoRules:
    """The engine's rules: unset fields take the defaults; RulesError names the first invalid field."""
    m, d = message, _DEFAULT_RULES
    layoff = rule_enum(m.layoff_scores_for, _LAYOFF, "layoff_scores_for", d.layoff_scores_for)
    keeper = rule_enum(m.completed_set_keeper, _KEEPER, "completed_set_keeper", d.completed_set_keeper)
    return BlagogoRules(
        players=m.players if m.HasField("players") else d.players,
        ace_in_hand=m.ace_in_hand if m.HasField("ace_in_hand") else d.ace_in_hand,
        bridge_take_must_meld=(
            m.bridge_take_must_meld if m.HasField("bridge_take_must_meld") else d.bridge_take_must_meld
        ),
        opening_min_points=m.opening_min_points if m.HasField("opening_min_points") else d.opening_min_points,
        layoff_scores_for=layoff,
        kantrame_first_turn_only=(
            m.kantrame_first_turn_only
            if m.HasField("kantrame_first_turn_only")
            else d.kantrame_first_turn_only
        ),
        target=m.target if m.HasField("target") else d.target,
        turnover_limit=m.turnover_limit if m.HasField("turnover_limit") else d.turnover_limit,
        opening_one_meld=m.opening_one_meld if m.HasField("opening_one_meld") else d.opening_one_meld,
        completed_set_keeper=keeper,
        play_on_own_melds=m.play_on_own_melds if m.HasField("play_on_own_melds") else d.play_on_own_melds,
        max_jokers_per_meld=(
            m.max_jokers_per_meld if m.HasField("max_jokers_per_meld") else d.max_jokers_per_meld
        ),
    )


# ---------------------------------------------------------------------------------------------------- actions

_END: Final = enum_table(End, blagogo_actions_pb2.BlagogoRunEnd.Value, "BLAGOGO_RUN_END_")
_END_BACK: Final = reverse(_END)
_ACTION_KINDS: Final = ", ".join(f.name for f in BlagogoAction.DESCRIPTOR.oneofs_by_name["action"].fields)


def stands_to_proto(stands: Stands) -> blagogo_actions_pb2.BlagogoJokerMeaning:
    suit = cards_pb2.SUIT_UNSPECIFIED if stands.suit is None else _SUIT[stands.suit]
    return blagogo_actions_pb2.BlagogoJokerMeaning(rank=_RANK[stands.rank], suit=suit)


def stands_from_proto(message: blagogo_actions_pb2.BlagogoJokerMeaning, field: str) -> Stands:
    rank = _RANK_BACK.get(message.rank)
    if rank is None:
        problem = enum_problem(blagogo_cards_pb2.BlagogoRank.Name, message.rank)
        raise InvalidActionError(f"{field}.rank: {problem}")
    if message.suit == cards_pb2.SUIT_UNSPECIFIED:
        return ba.STANDS_SET[rank]
    suit = _SUIT_BACK.get(message.suit)
    if suit is None:
        raise InvalidActionError(f"{field}.suit: {message.suit} is not a known value")
    return ba.STANDS_RUN[suit * RANKS + rank]


def _meanings(jokers: Iterable[Stands]) -> list[blagogo_actions_pb2.BlagogoJokerMeaning]:
    return [stands_to_proto(s) for s in jokers]


def _meanings_from(
    messages: Iterable[blagogo_actions_pb2.BlagogoJokerMeaning], field: str
) -> tuple[Stands, ...]:
    return tuple(stands_from_proto(m, field) for m in messages)


def _end_to_proto(end: End | None) -> blagogo_actions_pb2.BlagogoRunEnd.ValueType:
    return blagogo_actions_pb2.BLAGOGO_RUN_END_UNSPECIFIED if end is None else _END[end]


def _end_from_proto(value: int, field: str) -> End | None:
    if value == blagogo_actions_pb2.BLAGOGO_RUN_END_UNSPECIFIED:
        return None
    end = _END_BACK.get(value)
    if end is None:
        raise InvalidActionError(f"{field}: {value} is not a known value")
    return end


def action_to_proto(action: Action) -> blagogo_actions_pb2.BlagogoAction:
    A = BlagogoAction  # noqa: N806 - the message class, short as in codec.thousand's E and V
    match action:
        case ba.DrawFromDeck():
            return A(draw_from_deck=A.DrawFromDeck())
        case ba.TakeFromBridge(position):
            return A(take_from_bridge=A.TakeFromBridge(position=position))
        case ba.LayMelds(melds):
            specs = [
                blagogo_actions_pb2.BlagogoMeldSpec(cards=_cards(m.cards), jokers=_meanings(m.jokers))
                for m in melds
            ]
            return A(lay_melds=A.LayMelds(melds=specs))
        case ba.AddToMeld(meld_id, cards, jokers, end):
            return A(
                add_to_meld=A.AddToMeld(
                    meld_id=meld_id, cards=_cards(cards), jokers=_meanings(jokers), run_end=_end_to_proto(end)
                )
            )
        case ba.SwapJoker(meld_id, card):
            return A(swap_joker=A.SwapJoker(meld_id=meld_id, card=_CARD_PROTOS[card.index]))
        case ba.Discard(card):
            return A(discard=A.Discard(card=_CARD_PROTOS[card.index]))
        case _:
            assert_never(action)


def action_from_proto(message: blagogo_actions_pb2.BlagogoAction) -> Action:
    """The engine's action (interned where the engine interns it); InvalidActionError saying what is wrong.

    Only the form is checked here: every card must exist, every joker meaning have a rank, every enum value be
    known. Whether the melds are melds, the meld id exists or the position is on the bridge is left to the
    engine, which refuses with a rule's reason (B-22).
    """
    kind = message.WhichOneof("action")
    match kind:
        case None:
            raise InvalidActionError(f"the action is empty: set exactly one of {_ACTION_KINDS}")
        case "draw_from_deck":
            return ba.DRAW
        case "take_from_bridge":
            position = message.take_from_bridge.position
            return ba.take(position)  # interned for real positions; the round rejects any other
        case "lay_melds":
            return ba.LayMelds(
                tuple(
                    MeldSpec(
                        _cards_from(m.cards, f"lay_melds.melds[{i}].cards"),
                        _meanings_from(m.jokers, f"lay_melds.melds[{i}].jokers"),
                    )
                    for i, m in enumerate(message.lay_melds.melds)
                )
            )
        case "add_to_meld":
            add = message.add_to_meld
            return ba.AddToMeld(
                add.meld_id,
                _cards_from(add.cards, "add_to_meld.cards"),
                _meanings_from(add.jokers, "add_to_meld.jokers"),
                _end_from_proto(add.run_end, "add_to_meld.run_end"),
            )
        case "swap_joker":
            swap = message.swap_joker
            if not swap.HasField("card"):
                raise InvalidActionError("swap_joker.card is missing")
            return ba.SwapJoker(swap.meld_id, card_from_proto(swap.card, "swap_joker.card"))
        case "discard":
            if not message.discard.HasField("card"):
                raise InvalidActionError("discard.card is missing")
            return ba.DISCARDS[card_from_proto(message.discard.card, "discard.card").index]
        case _:
            assert_never(kind)


# ---------------------------------------------------------------------------------------------------- melds

_MELD_KIND: Final = enum_table(MeldKind, blagogo_events_pb2.BlagogoMeldKind.Value, "BLAGOGO_MELD_KIND_")
_MELD_KIND_BACK: Final = reverse(_MELD_KIND)


def meld_to_proto(meld: TableMeld) -> blagogo_events_pb2.BlagogoMeld:
    return blagogo_events_pb2.BlagogoMeld(
        id=meld.id,
        owner=meld.owner,
        kind=_MELD_KIND[meld.kind],
        cards=_cards(meld.cards),
        contributors=meld.contributors,
        rank=_RANK[meld.rank],
        suit=cards_pb2.SUIT_UNSPECIFIED if meld.suit is None else _SUIT[meld.suit],
        closed=meld.closed,
        jokers=_meanings(s for s in meld.stands() if s is not None),
        points=meld.points,
    )


def meld_from_proto(message: blagogo_events_pb2.BlagogoMeld, field: str = "meld") -> TableMeld:
    """The engine's meld as the server sent it (``jokers`` and ``points`` follow from the rest)."""
    m = message
    return TableMeld(
        m.id,
        m.owner,
        known(_MELD_KIND_BACK, m.kind, f"{field}.kind"),
        _cards_from(m.cards, f"{field}.cards"),
        tuple(m.contributors),
        known(_RANK_BACK, m.rank, f"{field}.rank"),
        None if m.suit == cards_pb2.SUIT_UNSPECIFIED else known(_SUIT_BACK, m.suit, f"{field}.suit"),
        m.closed,
    )


# ---------------------------------------------------------------------------------------------------- events

Ev = BlagogoEvent


def _standing(standing: be.Standing) -> blagogo_events_pb2.BlagogoStanding:
    return blagogo_events_pb2.BlagogoStanding(seat=standing.seat, place=standing.place, score=standing.score)


def _standing_from(message: blagogo_events_pb2.BlagogoStanding) -> be.Standing:
    return be.Standing(message.seat, message.place, message.score)


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
                    seat=seat, count=count, cards=_cards(cards or ()), cards_hidden=cards is None
                )
            )
        case be.BridgeStarted(card, deck_count):
            return Ev(bridge_started=Ev.BridgeStarted(card=_CARD_PROTOS[card.index], deck_count=deck_count))
        case be.BridgeTurnedOver(count):
            return Ev(bridge_turned_over=Ev.BridgeTurnedOver(count=count))
        case be.DeckExhausted(turnovers):
            return Ev(deck_exhausted=Ev.DeckExhausted(turnovers=turnovers))
        case be.CardDrawn(seat, card):
            return Ev(card_drawn=Ev.CardDrawn(seat=seat, card=_optional_card(card)))
        case be.BridgeTaken(seat, position, cards):
            return Ev(bridge_taken=Ev.BridgeTaken(seat=seat, position=position, cards=_cards(cards)))
        case be.MeldsLaid(seat, melds, points, opening):
            return Ev(
                melds_laid=Ev.MeldsLaid(
                    seat=seat, melds=[meld_to_proto(m) for m in melds], points=points, opening=opening
                )
            )
        case be.MeldExtended(seat, meld, cards, end):
            return Ev(
                meld_extended=Ev.MeldExtended(
                    seat=seat, meld=meld_to_proto(meld), cards=_cards(cards), run_end=_end_to_proto(end)
                )
            )
        case be.JokerSwapped(seat, meld, card, joker):
            return Ev(
                joker_swapped=Ev.JokerSwapped(
                    seat=seat,
                    meld=meld_to_proto(meld),
                    card=_CARD_PROTOS[card.index],
                    joker=_CARD_PROTOS[joker.index],
                )
            )
        case be.MeldClosed(meld_id, owner):
            return Ev(meld_closed=Ev.MeldClosed(meld_id=meld_id, owner=owner))
        case be.Discarded(seat, card):
            return Ev(discarded=Ev.Discarded(seat=seat, card=_CARD_PROTOS[card.index]))
        case be.WentOut(seat, kantrame):
            return Ev(went_out=Ev.WentOut(seat=seat, kantrame=kantrame))
        case be.RoundRevealed(number, order, hands, final_hands, salt, client_seeds):
            return Ev(
                round_revealed=Ev.RoundRevealed(
                    number=number,
                    order=_cards(order),
                    hands=_card_lists(hands),
                    final_hands=_card_lists(final_hands),
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
            standing = [_standing(s) for s in standings]
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
            hand = None if m2.cards_hidden else _cards_from(m2.cards, "hand_dealt.cards")
            return be.HandDealt(m2.seat, m2.count, hand)
        case "bridge_started":
            m3 = message.bridge_started
            return be.BridgeStarted(card_from_proto(m3.card, "bridge_started.card"), m3.deck_count)
        case "bridge_turned_over":
            return be.BridgeTurnedOver(message.bridge_turned_over.count)
        case "deck_exhausted":
            return be.DeckExhausted(message.deck_exhausted.turnovers)
        case "card_drawn":
            m4 = message.card_drawn
            drawn = card_from_proto(m4.card, "card_drawn.card") if m4.HasField("card") else None
            return be.CardDrawn(m4.seat, drawn)
        case "bridge_taken":
            m5 = message.bridge_taken
            return be.BridgeTaken(m5.seat, m5.position, _cards_from(m5.cards, "bridge_taken.cards"))
        case "melds_laid":
            m6 = message.melds_laid
            melds = tuple(meld_from_proto(m, "melds_laid.melds") for m in m6.melds)
            return be.MeldsLaid(m6.seat, melds, m6.points, m6.opening)
        case "meld_extended":
            m7 = message.meld_extended
            return be.MeldExtended(
                m7.seat,
                meld_from_proto(m7.meld, "meld_extended.meld"),
                _cards_from(m7.cards, "meld_extended.cards"),
                None if m7.run_end == 0 else known(_END_BACK, m7.run_end, "meld_extended.run_end"),
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
                _cards_from(m10.order, "round_revealed.order"),
                _card_lists_from(m10.hands, "round_revealed.hands"),
                _card_lists_from(m10.final_hands, "round_revealed.final_hands"),
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
            return be.GameOver(m12.winner, tuple(_standing_from(s) for s in m12.standings), m12.table_secret)
        case _:
            assert_never(kind)


# ---------------------------------------------------------------------------------------------------- views

_PHASE: Final = enum_table(Phase, blagogo_views_pb2.BlagogoPhase.Value, "BLAGOGO_PHASE_")
_PHASE_BACK: Final = reverse(_PHASE)


def view_to_proto(view: View) -> blagogo_views_pb2.BlagogoView:
    """A seat's (or a spectator's) view, as the engine's observer built it."""
    return BlagogoView(
        viewer=view.viewer,
        rules=rules_to_proto(view.rules),
        round_number=view.round_number,
        dealer=view.dealer,
        phase=blagogo_views_pb2.BLAGOGO_PHASE_UNSPECIFIED if view.phase is None else _PHASE[view.phase],
        to_act=view.to_act,
        hand=_cards(view.hand),
        card_counts=view.card_counts,
        known_cards=_card_lists(view.known_cards),
        deck_count=view.deck_count,
        bridge=_cards(view.bridge),
        melds=[meld_to_proto(m) for m in view.melds],
        opened=view.opened,
        must_meld=_optional_card(view.must_meld),
        scores=view.scores,
        legal_actions=[action_to_proto(a) for a in view.legal_actions],
        revealed_hands=_card_lists(view.revealed_hands or ()),
        final_hands=_card_lists(view.final_hands or ()),
        round_winner=view.round_winner,
        kantrame=view.kantrame,
        winner=view.winner,
        standings=[_standing(s) for s in view.standings],
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
        hand=_cards_from(m.hand, "hand"),
        card_counts=tuple(m.card_counts),
        known_cards=_card_lists_from(m.known_cards, "known_cards"),
        deck_count=m.deck_count,
        bridge=_cards_from(m.bridge, "bridge"),
        melds=tuple(meld_from_proto(x, "melds") for x in m.melds),
        opened=tuple(m.opened),
        must_meld=card_from_proto(m.must_meld, "must_meld") if m.HasField("must_meld") else None,
        scores=tuple(m.scores),
        legal_actions=tuple(action_from_proto(a) for a in m.legal_actions),
        revealed_hands=_card_lists_from(m.revealed_hands, "revealed_hands") or None,
        final_hands=_card_lists_from(m.final_hands, "final_hands") or None,
        round_winner=optional(m.HasField("round_winner"), m.round_winner),
        kantrame=m.kantrame,
        winner=optional(m.HasField("winner"), m.winner),
        standings=tuple(_standing_from(s) for s in m.standings),
    )
