"""1000 Blagogo's actions as ``BlagogoAction``: one case of its oneof per engine action class, and the
joker meanings and run ends that actions and melds both carry.

A client sends them, so the direction from protobuf checks the form only: every card must exist, every joker
meaning have a rank, every enum value be known, and :class:`~engine.errors.InvalidActionError` says what is
malformed. Whether a well-formed action is legal now (the meld, the meld id, the bridge position, the run's
end) is the engine's exact validator's business (B-22).
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Final, assert_never

from codec.blagogo.cards import CARD_MESSAGES, RANK, RANK_BACK, SUIT, SUIT_BACK
from codec.common import enum_problem, enum_table, oneof_names, reverse
from engine.blagogo import actions as ba
from engine.blagogo.actions import Action, End, MeldSpec, Stands
from engine.blagogo.cards import RANKS
from engine.errors import InvalidActionError
from thousand.v1 import blagogo_actions_pb2, blagogo_cards_pb2, cards_pb2

BlagogoAction = blagogo_actions_pb2.BlagogoAction

_END: Final = enum_table(End, blagogo_actions_pb2.BlagogoRunEnd.Value, "BLAGOGO_RUN_END_")
END_BACK: Final = reverse(_END)
_ACTION_KINDS: Final = oneof_names(BlagogoAction, "action")


def action_to_proto(action: Action) -> blagogo_actions_pb2.BlagogoAction:
    A = BlagogoAction  # noqa: N806 - the message class, short as the events' Ev
    match action:
        case ba.DrawFromDeck():
            return A(draw_from_deck=A.DrawFromDeck())
        case ba.TakeFromBridge(position):
            return A(take_from_bridge=A.TakeFromBridge(position=position))
        case ba.LayMelds(melds):
            specs = [
                blagogo_actions_pb2.BlagogoMeldSpec(
                    cards=CARD_MESSAGES.many(m.cards), jokers=meanings_to_proto(m.jokers)
                )
                for m in melds
            ]
            return A(lay_melds=A.LayMelds(melds=specs))
        case ba.AddToMeld(meld_id, cards, jokers, end):
            return A(
                add_to_meld=A.AddToMeld(
                    meld_id=meld_id,
                    cards=CARD_MESSAGES.many(cards),
                    jokers=meanings_to_proto(jokers),
                    run_end=end_to_proto(end),
                )
            )
        case ba.SwapJoker(meld_id, card):
            return A(swap_joker=A.SwapJoker(meld_id=meld_id, card=CARD_MESSAGES.of(card)))
        case ba.Discard(card):
            return A(discard=A.Discard(card=CARD_MESSAGES.of(card)))
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
                        CARD_MESSAGES.decode_many(m.cards, f"lay_melds.melds[{i}].cards"),
                        _meanings_from(m.jokers, f"lay_melds.melds[{i}].jokers"),
                    )
                    for i, m in enumerate(message.lay_melds.melds)
                )
            )
        case "add_to_meld":
            add = message.add_to_meld
            return ba.AddToMeld(
                add.meld_id,
                CARD_MESSAGES.decode_many(add.cards, "add_to_meld.cards"),
                _meanings_from(add.jokers, "add_to_meld.jokers"),
                _end_from_proto(add.run_end, "add_to_meld.run_end"),
            )
        case "swap_joker":
            swap = message.swap_joker
            card = CARD_MESSAGES.required(swap.HasField("card"), swap.card, "swap_joker.card")
            return ba.SwapJoker(swap.meld_id, card)
        case "discard":
            discard = message.discard
            card = CARD_MESSAGES.required(discard.HasField("card"), discard.card, "discard.card")
            return ba.DISCARDS[card.index]
        case _:
            assert_never(kind)


def stands_to_proto(stands: Stands) -> blagogo_actions_pb2.BlagogoJokerMeaning:
    """What a joker stands for: a rank, and a suit in a run (none in a set)."""
    suit = cards_pb2.SUIT_UNSPECIFIED if stands.suit is None else SUIT[stands.suit]
    return blagogo_actions_pb2.BlagogoJokerMeaning(rank=RANK[stands.rank], suit=suit)


def stands_from_proto(message: blagogo_actions_pb2.BlagogoJokerMeaning, field: str) -> Stands:
    """The engine's (interned) meaning; InvalidActionError naming ``field`` without a rank or a known suit."""
    rank = RANK_BACK.get(message.rank)
    if rank is None:
        problem = enum_problem(blagogo_cards_pb2.BlagogoRank.Name, message.rank)
        raise InvalidActionError(f"{field}.rank: {problem}")
    if message.suit == cards_pb2.SUIT_UNSPECIFIED:
        return ba.STANDS_SET[rank]
    suit = SUIT_BACK.get(message.suit)
    if suit is None:
        raise InvalidActionError(f"{field}.suit: {message.suit} is not a known value")
    return ba.STANDS_RUN[suit * RANKS + rank]


def meanings_to_proto(jokers: Iterable[Stands]) -> list[blagogo_actions_pb2.BlagogoJokerMeaning]:
    return [stands_to_proto(s) for s in jokers]


def _meanings_from(
    messages: Iterable[blagogo_actions_pb2.BlagogoJokerMeaning], field: str
) -> tuple[Stands, ...]:
    return tuple(stands_from_proto(m, field) for m in messages)


def end_to_proto(end: End | None) -> blagogo_actions_pb2.BlagogoRunEnd.ValueType:
    return blagogo_actions_pb2.BLAGOGO_RUN_END_UNSPECIFIED if end is None else _END[end]


def _end_from_proto(value: int, field: str) -> End | None:
    if value == blagogo_actions_pb2.BLAGOGO_RUN_END_UNSPECIFIED:
        return None
    end = END_BACK.get(value)
    if end is None:
        raise InvalidActionError(f"{field}: {value} is not a known value")
    return end
