"""Thousand's actions as ``ThousandAction``: one case of its oneof per engine action class.

A client sends them, so the direction from protobuf checks the form only: a card must have a suit and a rank,
a redeal a reason, and :class:`~engine.InvalidActionError` says what is malformed. Whether a well-formed
action is legal right now (a seat, bid or contract out of range included) is the engine's business, which
refuses it with a rule's reason. The server encodes the same few actions over and over (every view's and
Turn's legal actions), so :func:`action_message` caches them.
"""

from __future__ import annotations

from typing import Final, assert_never

from codec.common import enum_problem, enum_table, oneof_names, reverse
from codec.thousand.cards import CARD_MESSAGES
from engine import Action, InvalidActionError
from engine import actions as ea
from engine.cards import Card
from thousand.v1 import thousand_actions_pb2

ThousandAction = thousand_actions_pb2.ThousandAction

REDEAL_REASON: Final = enum_table(ea.RedealReason, thousand_actions_pb2.RedealReason.Value, "REDEAL_REASON_")
REDEAL_REASON_BACK: Final = reverse(REDEAL_REASON)

_ACTION_KINDS: Final = oneof_names(ThousandAction, "action")


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
            return ThousandAction(demand_redeal=ThousandAction.DemandRedeal(reason=REDEAL_REASON[reason]))
        case ea.ChooseTalon(index):
            return ThousandAction(choose_talon=ThousandAction.ChooseTalon(index=index))
        case ea.GiveCard(card, to):
            return ThousandAction(give_card=ThousandAction.GiveCard(card=CARD_MESSAGES.of(card), to_seat=to))
        case ea.DiscardCard(card):
            return ThousandAction(discard_card=ThousandAction.DiscardCard(card=CARD_MESSAGES.of(card)))
        case ea.NameContract(value):
            return ThousandAction(name_contract=ThousandAction.NameContract(value=value))
        case ea.Concede():
            return ThousandAction(concede=ThousandAction.Concede())
        case ea.PlayCard(card, marriage):
            return ThousandAction(
                play_card=ThousandAction.PlayCard(card=CARD_MESSAGES.of(card), marriage=marriage)
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
            reason = REDEAL_REASON_BACK.get(value)
            if reason is None:
                problem = enum_problem(thousand_actions_pb2.RedealReason.Name, value)
                raise InvalidActionError(f"demand_redeal.reason: {problem}")
            return ea.REDEAL[reason]
        case "choose_talon":
            return ea.ChooseTalon(message.choose_talon.index)
        case "give_card":
            give = message.give_card
            return ea.GiveCard(_card(give, "give_card.card"), give.to_seat)
        case "discard_card":
            return ea.DiscardCard(_card(message.discard_card, "discard_card.card"))
        case "name_contract":
            return ea.NameContract(message.name_contract.value)
        case "concede":
            return ea.CONCEDE
        case "play_card":
            play = message.play_card
            card = _card(play, "play_card.card")
            return (ea.PLAY_MARRIAGE if play.marriage else ea.PLAY)[card.index]
        case _:
            assert_never(kind)


def _card(
    parent: ThousandAction.GiveCard | ThousandAction.DiscardCard | ThousandAction.PlayCard, field: str
) -> Card:
    return CARD_MESSAGES.required(parent.HasField("card"), parent.card, field)
