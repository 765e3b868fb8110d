"""codec/thousand/: the engine <-> protobuf mapping of Thousand, what a client sends (cards, rules,
actions); events and views are in tests/test_codec_events_views.py.

Every conversion is checked as a round trip through the wire format (``SerializeToString`` and back), so a
field the codec forgets, or a value the contract cannot carry, shows up as an inequality. What comes from a
client is checked too: a malformed rule or action is refused with an error naming what is wrong.
"""

from __future__ import annotations

import dataclasses
import typing
from enum import Enum
from functools import cache
from typing import Any

import pytest
from google.protobuf.descriptor import EnumDescriptor
from hypothesis import given
from hypothesis import strategies as st

from codec import thousand as codec
from engine import (
    Action,
    Bid,
    BidCap,
    ChooseTalon,
    Concede,
    DeclareDark,
    DeclineDark,
    DemandRedeal,
    DiscardCard,
    GiveCard,
    InvalidActionError,
    NameContract,
    OpeningBid,
    Pass,
    Phase,
    PlayCard,
    Rank,
    RedealReason,
    Rules,
    RulesError,
    SitterScores,
    Suit,
    TwoPlayerDeal,
    WeakTalon,
)
from engine import actions as ea
from engine import events as ee
from engine.cards import CARDS
from engine.rules import LOWEST_BARREL_WITHOUT_OBLIGATORY, SAMOSVAL
from tests.codec_helpers import assert_enum_matches, wire
from thousand.v1 import (
    cards_pb2,
    thousand_actions_pb2,
    thousand_events_pb2,
    thousand_rules_pb2,
    thousand_views_pb2,
)

ThousandAction = thousand_actions_pb2.ThousandAction
ThousandRules = thousand_rules_pb2.ThousandRules


# ---------------------------------------------------------------------------------------------------- enums


@pytest.mark.parametrize(
    ("engine_enum", "descriptor", "prefix"),
    [
        (Suit, cards_pb2.DESCRIPTOR.enum_types_by_name["Suit"], "SUIT_"),
        (Rank, cards_pb2.DESCRIPTOR.enum_types_by_name["Rank"], "RANK_"),
        (
            TwoPlayerDeal,
            thousand_rules_pb2.DESCRIPTOR.enum_types_by_name["TwoPlayerDeal"],
            "TWO_PLAYER_DEAL_",
        ),
        (SitterScores, thousand_rules_pb2.DESCRIPTOR.enum_types_by_name["SitterScores"], "SITTER_SCORES_"),
        (OpeningBid, thousand_rules_pb2.DESCRIPTOR.enum_types_by_name["OpeningBid"], "OPENING_BID_"),
        (BidCap, thousand_rules_pb2.DESCRIPTOR.enum_types_by_name["BidCap"], "BID_CAP_"),
        (WeakTalon, thousand_rules_pb2.DESCRIPTOR.enum_types_by_name["WeakTalon"], "WEAK_TALON_"),
        (RedealReason, thousand_actions_pb2.DESCRIPTOR.enum_types_by_name["RedealReason"], "REDEAL_REASON_"),
        (ee.DealKind, thousand_events_pb2.DESCRIPTOR.enum_types_by_name["DealKind"], "DEAL_KIND_"),
        (ee.Outcome, thousand_events_pb2.DESCRIPTOR.enum_types_by_name["Outcome"], "OUTCOME_"),
        (ee.Mark, thousand_events_pb2.DESCRIPTOR.enum_types_by_name["Mark"], "MARK_"),
        (Phase, thousand_views_pb2.DESCRIPTOR.enum_types_by_name["DealPhase"], "DEAL_PHASE_"),
    ],
)
def test_every_engine_enum_matches_its_proto_enum_one_to_one(
    engine_enum: type[Enum], descriptor: EnumDescriptor, prefix: str
) -> None:
    assert_enum_matches(engine_enum, descriptor, prefix)


# ---------------------------------------------------------------------------------------------------- cards


def test_every_card_round_trips() -> None:
    for card in CARDS:
        message = wire(codec.card_to_proto(card))
        assert codec.card_from_proto(message) is card
    assert codec.card_to_proto(CARDS[0]) == cards_pb2.Card(
        suit=cards_pb2.SUIT_SPADES, rank=cards_pb2.RANK_NINE
    )


# ---------------------------------------------------------------------------------------------------- rules


def test_thousand_rules_has_exactly_the_engines_rule_fields() -> None:
    proto = [f.name for f in ThousandRules.DESCRIPTOR.fields]
    assert proto == [f.name for f in dataclasses.fields(Rules)]


def test_unset_rules_are_the_specifications_defaults() -> None:
    assert codec.rules_from_proto(ThousandRules()) == Rules()
    assert codec.rules_from_proto(ThousandRules(players=4)) == Rules(players=4)


def test_rules_sent_have_every_field_set_explicitly() -> None:
    for rules in (Rules(), Rules(players=2, barrel_at=0, bank=0, dark=False, must_beat=False)):
        message = wire(codec.rules_to_proto(rules))
        assert [f.name for f, _ in message.ListFields()] == _field_order()  # enums non-zero, scalars present


_RULE_VALUES: dict[str, st.SearchStrategy[Any]] = {
    "players": st.sampled_from([2, 3, 4]),
    "two_player_deal": st.sampled_from(TwoPlayerDeal),
    "sitter_scores": st.sampled_from(SitterScores),
    "opening_bid": st.sampled_from(OpeningBid),
    "bid_step": st.integers(1, 10).map(lambda n: 5 * n),
    "bid_cap": st.sampled_from(BidCap),
    "weak_talon": st.sampled_from(WeakTalon),
    "weak_talon_below_points": st.integers(0, 32),
    "weak_hand_max_points": st.integers(0, 60),
    "barrel_at": st.one_of(st.just(0), st.integers(25, 199).map(lambda n: 5 * n)),
    "bank": st.integers(0, 10_000),
}
"""Valid values of every non-boolean rule; the booleans take both values."""


@st.composite
def rule_overrides(draw: st.DrawFn) -> dict[str, Any]:
    """A random subset of the rules' fields with valid values (dark never with two players)."""
    chosen: dict[str, Any] = {}
    for field in dataclasses.fields(Rules):
        if draw(st.booleans()):
            chosen[field.name] = draw(_RULE_VALUES.get(field.name, st.booleans()))
    if chosen.get("dark") and chosen.get("players", 3) == 2:
        chosen["dark"] = False
    barrel_at = chosen.get("barrel_at", 880)
    if 0 < barrel_at < LOWEST_BARREL_WITHOUT_OBLIGATORY and "obligatory_game" in chosen:
        chosen["obligatory_game"] = True  # T-27: nobody could leave a lower barrel without it
    if barrel_at == SAMOSVAL:
        chosen["samosval"] = False  # T-29: a barrel at 555 would reset every climber
    return chosen


def _partial_proto(overrides: dict[str, Any]) -> thousand_rules_pb2.ThousandRules:
    message = ThousandRules()
    full = codec.rules_to_proto(Rules(**overrides))
    for name in overrides:
        setattr(message, name, getattr(full, name))
    return message


@given(rule_overrides())
def test_rules_round_trip(overrides: dict[str, Any]) -> None:
    rules = Rules(**overrides)
    assert codec.rules_from_proto(wire(codec.rules_to_proto(rules))) == rules


@given(rule_overrides())
def test_rules_with_only_some_fields_set_take_the_defaults_for_the_rest(overrides: dict[str, Any]) -> None:
    message = wire(_partial_proto(overrides))
    assert [f.name for f, _ in message.ListFields()] == [n for n in _field_order() if n in overrides]
    assert codec.rules_from_proto(message) == Rules(**overrides)


@cache
def _field_order() -> list[str]:
    return [f.name for f in ThousandRules.DESCRIPTOR.fields]


@pytest.mark.parametrize(
    ("message", "field"),
    [
        (ThousandRules(players=5), "players"),
        (ThousandRules(players=0), "players"),
        (ThousandRules(bid_step=7), "bid_step"),
        (ThousandRules(bid_step=0), "bid_step"),
        (ThousandRules(players=2, dark=True), "dark"),
        (ThousandRules(weak_talon_below_points=33), "weak_talon_below_points"),
        (ThousandRules(weak_hand_max_points=-1), "weak_hand_max_points"),
        (ThousandRules(barrel_at=1000), "barrel_at"),
        (ThousandRules(barrel_at=881), "barrel_at"),
        (ThousandRules(bank=-5), "bank"),
    ],
)
def test_invalid_rules_raise_rules_error_naming_the_field(
    message: thousand_rules_pb2.ThousandRules, field: str
) -> None:
    with pytest.raises(RulesError) as raised:
        codec.rules_from_proto(wire(message))
    assert raised.value.field == field


@pytest.mark.parametrize(
    "field", [f.name for f in ThousandRules.DESCRIPTOR.fields if f.enum_type is not None]
)
def test_an_unknown_enum_rule_raises_rules_error_naming_the_field(field: str) -> None:
    message = ThousandRules()
    setattr(message, field, 42)  # proto3 enums are open: a newer client may send a value this server lacks
    with pytest.raises(RulesError, match="42") as raised:
        codec.rules_from_proto(wire(message))
    assert raised.value.field == field


# ---------------------------------------------------------------------------------------------------- actions

ALL_ACTIONS: list[Action] = [
    Bid(100),
    Bid(0),
    Bid(395),
    Pass(),
    DeclareDark(),
    DeclineDark(),
    *(DemandRedeal(reason) for reason in RedealReason),
    ChooseTalon(0),
    ChooseTalon(1),
    *(GiveCard(card, to) for card in CARDS for to in range(4)),
    *(DiscardCard(card) for card in CARDS),
    NameContract(120),
    NameContract(400),
    Concede(),
    *(PlayCard(card, marriage) for card in CARDS for marriage in (False, True)),
]


def test_the_action_samples_cover_every_action_class_and_every_oneof_case() -> None:
    assert {type(a) for a in ALL_ACTIONS} == set(typing.get_args(Action))
    cases = {codec.action_to_proto(a).WhichOneof("action") for a in ALL_ACTIONS}
    assert cases == {f.name for f in ThousandAction.DESCRIPTOR.oneofs_by_name["action"].fields}


@pytest.mark.parametrize("action", ALL_ACTIONS, ids=[ea.describe(a) for a in ALL_ACTIONS])
def test_every_action_round_trips(action: Action) -> None:
    assert codec.action_from_proto(wire(codec.action_to_proto(action))) == action


def test_decoded_actions_are_the_engines_interned_values() -> None:
    interned: list[Action] = [
        ea.PASS,
        ea.CONCEDE,
        ea.DECLARE_DARK,
        ea.DECLINE_DARK,
        *ea.PLAY,
        *ea.PLAY_MARRIAGE,
    ]
    interned += ea.REDEAL.values()
    for action in interned:
        assert codec.action_from_proto(codec.action_to_proto(action)) is action


def test_pass_is_reachable_despite_the_python_keyword() -> None:
    message = ThousandAction()
    message.pass_bid.SetInParent()
    assert message.WhichOneof("action") == "pass_bid"
    assert codec.action_from_proto(message) == Pass()
    assert codec.action_to_proto(Pass()) == message


def _card(suit: int, rank: int) -> cards_pb2.Card:
    return cards_pb2.Card(suit=suit, rank=rank)  # type: ignore[arg-type]  # deliberately out of range


_ACE_OF_HEARTS = cards_pb2.Card(suit=cards_pb2.SUIT_HEARTS, rank=cards_pb2.RANK_ACE)


@pytest.mark.parametrize(
    ("message", "expected"),
    [
        (ThousandAction(), r"the action is empty: set exactly one of bid, pass_bid, .*play_card"),
        (ThousandAction.FromString(b"\x90\x03\x01"), "the action is empty"),  # field 50: a newer client's
        (ThousandAction(demand_redeal=ThousandAction.DemandRedeal()), r"demand_redeal\.reason: is unset"),
        (
            ThousandAction(demand_redeal=ThousandAction.DemandRedeal(reason=9)),  # type: ignore[arg-type]
            r"demand_redeal\.reason: 9 is not a known value",
        ),
        (ThousandAction(give_card=ThousandAction.GiveCard(to_seat=1)), r"give_card\.card is missing"),
        (ThousandAction(discard_card=ThousandAction.DiscardCard()), r"discard_card\.card is missing"),
        (ThousandAction(play_card=ThousandAction.PlayCard(marriage=True)), r"play_card\.card is missing"),
        (
            ThousandAction(play_card=ThousandAction.PlayCard(card=cards_pb2.Card(rank=cards_pb2.RANK_ACE))),
            r"play_card\.card\.suit: is unset \(SUIT_UNSPECIFIED\)",
        ),
        (
            ThousandAction(
                play_card=ThousandAction.PlayCard(card=cards_pb2.Card(suit=cards_pb2.SUIT_HEARTS))
            ),
            r"play_card\.card\.rank: is unset \(RANK_UNSPECIFIED\)",
        ),
        (
            ThousandAction(give_card=ThousandAction.GiveCard(card=_card(5, 1), to_seat=1)),
            r"give_card\.card\.suit: 5 is not a known value",
        ),
        (
            ThousandAction(discard_card=ThousandAction.DiscardCard(card=_card(1, 7))),
            r"discard_card\.card\.rank: 7 is not a known value",
        ),
        (
            ThousandAction(discard_card=ThousandAction.DiscardCard(card=_card(-1, 1))),
            r"discard_card\.card\.suit: -1 is not a known value",
        ),
    ],
)
def test_malformed_actions_raise_invalid_action_error(
    message: thousand_actions_pb2.ThousandAction, expected: str
) -> None:
    with pytest.raises(InvalidActionError, match=expected):
        codec.action_from_proto(wire(message))


def test_well_formed_actions_out_of_range_are_left_to_the_engine() -> None:
    """Seats, bids and talons out of range are the engine's to refuse, with a rule's reason."""
    assert codec.action_from_proto(ThousandAction(bid=ThousandAction.Bid(value=-5))) == Bid(-5)
    give = ThousandAction(give_card=ThousandAction.GiveCard(card=_ACE_OF_HEARTS, to_seat=9))
    assert codec.action_from_proto(give) == GiveCard(CARDS[-1], 9)
    assert codec.action_from_proto(ThousandAction(choose_talon=ThousandAction.ChooseTalon(index=7))) == (
        ChooseTalon(7)
    )
