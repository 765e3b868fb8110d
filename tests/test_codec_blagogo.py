"""codec/blagogo/: the engine <-> protobuf mapping of 1000 Blagogo, what a client sends (cards, rules,
actions); events, melds and views are in tests/test_codec_blagogo_events_views.py.

As in tests/test_codec.py, every conversion is checked as a round trip through the wire format, so a field
the codec forgets, or a value the contract cannot carry, shows up as an inequality, and a card, rule or action
that does not exist is refused naming the field.
"""

from __future__ import annotations

import dataclasses
import typing
from enum import Enum
from typing import Any

import pytest
from google.protobuf.descriptor import EnumDescriptor
from hypothesis import given
from hypothesis import strategies as st

from codec import blagogo as codec
from engine.blagogo import (
    CARDS,
    Action,
    AddToMeld,
    BlagogoRules,
    CompletedSetKeeper,
    Discard,
    DrawFromDeck,
    End,
    LayMelds,
    LayoffScores,
    MeldKind,
    MeldSpec,
    Phase,
    Rank,
    Stands,
    Suit,
    SwapJoker,
    TakeFromBridge,
)
from engine.blagogo import actions as ba
from engine.blagogo.cards import Card
from engine.blagogo.rules import MAX_ONE_MELD, MAX_OPENING
from engine.errors import InvalidActionError, RulesError
from tests.codec_helpers import assert_enum_matches, wire
from thousand.v1 import (
    blagogo_actions_pb2,
    blagogo_cards_pb2,
    blagogo_events_pb2,
    blagogo_rules_pb2,
    blagogo_views_pb2,
    cards_pb2,
)

BlagogoAction = blagogo_actions_pb2.BlagogoAction
BlagogoRulesMessage = blagogo_rules_pb2.BlagogoRules
BlagogoCard = blagogo_cards_pb2.BlagogoCard


def card(text: str) -> Card:
    return Card.parse(text)


# ---------------------------------------------------------------------------------------------------- enums


@pytest.mark.parametrize(
    ("engine_enum", "descriptor", "prefix"),
    [
        (Suit, cards_pb2.DESCRIPTOR.enum_types_by_name["Suit"], "SUIT_"),
        (Rank, blagogo_cards_pb2.DESCRIPTOR.enum_types_by_name["BlagogoRank"], "BLAGOGO_RANK_"),
        (
            LayoffScores,
            blagogo_rules_pb2.DESCRIPTOR.enum_types_by_name["BlagogoLayoffScores"],
            "BLAGOGO_LAYOFF_SCORES_",
        ),
        (
            CompletedSetKeeper,
            blagogo_rules_pb2.DESCRIPTOR.enum_types_by_name["BlagogoCompletedSetKeeper"],
            "BLAGOGO_COMPLETED_SET_KEEPER_",
        ),
        (End, blagogo_actions_pb2.DESCRIPTOR.enum_types_by_name["BlagogoRunEnd"], "BLAGOGO_RUN_END_"),
        (MeldKind, blagogo_events_pb2.DESCRIPTOR.enum_types_by_name["BlagogoMeldKind"], "BLAGOGO_MELD_KIND_"),
        (Phase, blagogo_views_pb2.DESCRIPTOR.enum_types_by_name["BlagogoPhase"], "BLAGOGO_PHASE_"),
    ],
)
def test_every_engine_enum_matches_its_proto_enum_one_to_one(
    engine_enum: type[Enum], descriptor: EnumDescriptor, prefix: str
) -> None:
    assert_enum_matches(engine_enum, descriptor, prefix)


# ---------------------------------------------------------------------------------------------------- cards


def test_every_one_of_the_108_cards_round_trips_and_each_copy_is_its_own_message() -> None:
    messages = set()
    for c in CARDS:
        message = wire(codec.card_to_proto(c))
        assert codec.card_from_proto(message) is c
        messages.add(message.SerializeToString())
    assert len(messages) == 108
    assert codec.card_to_proto(card("A♠'")) == BlagogoCard(
        rank=blagogo_cards_pb2.BLAGOGO_RANK_ACE, suit=cards_pb2.SUIT_SPADES, copy=1
    )
    assert codec.card_to_proto(card("★3")) == BlagogoCard(joker=True, copy=2)
    assert codec.card_to_proto(card("2♣")) == BlagogoCard(
        rank=blagogo_cards_pb2.BLAGOGO_RANK_TWO, suit=cards_pb2.SUIT_CLUBS, copy=0
    )


def test_card_to_proto_hands_out_a_fresh_message() -> None:
    first = codec.card_to_proto(CARDS[0])
    first.copy = 1
    assert codec.card_to_proto(CARDS[0]).copy == 0


@pytest.mark.parametrize(
    ("message", "expected"),
    [
        (BlagogoCard(), r"card\.suit: is unset"),
        (BlagogoCard(suit=cards_pb2.SUIT_HEARTS), r"card\.rank: is unset \(BLAGOGO_RANK_UNSPECIFIED\)"),
        (BlagogoCard(suit=cards_pb2.SUIT_HEARTS, rank=14), r"card\.rank: 14 is not a known value"),  # type: ignore[arg-type]
        (BlagogoCard(suit=9, rank=1), r"card\.suit: 9 is not a known value"),  # type: ignore[arg-type]
        (
            BlagogoCard(suit=cards_pb2.SUIT_HEARTS, rank=blagogo_cards_pb2.BLAGOGO_RANK_TWO, copy=2),
            r"card\.copy: .* 0 or 1, not 2",
        ),
        (BlagogoCard(joker=True, copy=4), r"card\.copy: a joker's copy is 0 to 3, not 4"),
        (BlagogoCard(joker=True, copy=-1), r"card\.copy: a joker's copy is 0 to 3, not -1"),
        (
            BlagogoCard(joker=True, rank=blagogo_cards_pb2.BLAGOGO_RANK_TWO),
            r"card: a joker has neither rank nor suit",
        ),
    ],
)
def test_cards_that_do_not_exist_raise_invalid_action_error(message: BlagogoCard, expected: str) -> None:
    with pytest.raises(InvalidActionError, match=expected):
        codec.card_from_proto(wire(message))


# ---------------------------------------------------------------------------------------------------- rules


def test_blagogo_rules_has_exactly_the_engines_rule_fields() -> None:
    proto = [f.name for f in BlagogoRulesMessage.DESCRIPTOR.fields]
    assert proto == [f.name for f in dataclasses.fields(BlagogoRules)]


def test_unset_rules_are_the_specifications_defaults() -> None:
    assert codec.rules_from_proto(BlagogoRulesMessage()) == BlagogoRules()
    assert codec.rules_from_proto(BlagogoRulesMessage(players=7)) == BlagogoRules(players=7)


def test_rules_sent_have_every_field_set_explicitly() -> None:
    order = [f.name for f in BlagogoRulesMessage.DESCRIPTOR.fields]
    for rules in (BlagogoRules(), BlagogoRules(players=2, ace_in_hand=0, opening_min_points=0, target=1)):
        message = wire(codec.rules_to_proto(rules))
        assert [f.name for f, _ in message.ListFields()] == order


_RULE_VALUES: dict[str, st.SearchStrategy[Any]] = {
    "players": st.integers(2, 8),
    "ace_in_hand": st.integers(0, 100),
    "opening_min_points": st.integers(0, MAX_OPENING),
    "layoff_scores_for": st.sampled_from(LayoffScores),
    "target": st.integers(1, 10_000),
    "turnover_limit": st.integers(0, 20),
    "completed_set_keeper": st.sampled_from(CompletedSetKeeper),
    "max_jokers_per_meld": st.integers(0, 4),
}
"""Valid values of every non-boolean rule; the booleans take both values."""


@st.composite
def rule_overrides(draw: st.DrawFn) -> dict[str, Any]:
    chosen: dict[str, Any] = {}
    for field in dataclasses.fields(BlagogoRules):
        if draw(st.booleans()):
            chosen[field.name] = draw(_RULE_VALUES.get(field.name, st.booleans()))
    if chosen.get("opening_one_meld") and chosen.get("opening_min_points", 0) > MAX_ONE_MELD:
        chosen["opening_min_points"] = MAX_ONE_MELD  # B-11: no single meld is worth more
    return chosen


@given(rule_overrides())
def test_rules_round_trip(overrides: dict[str, Any]) -> None:
    rules = BlagogoRules(**overrides)
    assert codec.rules_from_proto(wire(codec.rules_to_proto(rules))) == rules


@given(rule_overrides())
def test_rules_with_only_some_fields_set_take_the_defaults_for_the_rest(overrides: dict[str, Any]) -> None:
    full = codec.rules_to_proto(BlagogoRules(**overrides))
    message = BlagogoRulesMessage()
    for name in overrides:
        setattr(message, name, getattr(full, name))
    assert codec.rules_from_proto(wire(message)) == BlagogoRules(**overrides)


@pytest.mark.parametrize(
    ("message", "field"),
    [
        (BlagogoRulesMessage(players=1), "players"),
        (BlagogoRulesMessage(players=9), "players"),
        (BlagogoRulesMessage(ace_in_hand=-1), "ace_in_hand"),
        (BlagogoRulesMessage(opening_min_points=301), "opening_min_points"),
        (BlagogoRulesMessage(opening_min_points=101, opening_one_meld=True), "opening_min_points"),
        (BlagogoRulesMessage(target=0), "target"),
        (BlagogoRulesMessage(target=10_001), "target"),
        (BlagogoRulesMessage(max_jokers_per_meld=5), "max_jokers_per_meld"),
        (BlagogoRulesMessage(completed_set_keeper=9), "completed_set_keeper"),  # type: ignore[arg-type]
        (BlagogoRulesMessage(turnover_limit=-1), "turnover_limit"),
        (BlagogoRulesMessage(layoff_scores_for=7), "layoff_scores_for"),  # type: ignore[arg-type]
    ],
)
def test_invalid_rules_raise_rules_error_naming_the_field(message: BlagogoRulesMessage, field: str) -> None:
    with pytest.raises(RulesError) as raised:
        codec.rules_from_proto(wire(message))
    assert raised.value.field == field


# ---------------------------------------------------------------------------------------------------- actions

ALL_ACTIONS: list[Action] = [
    DrawFromDeck(),
    TakeFromBridge(0),
    TakeFromBridge(57),
    LayMelds((MeldSpec((card("Q♠"), card("K♠"), card("A♠'"))),)),
    LayMelds(
        (
            MeldSpec((card("Q♠"), card("★1"), card("★2")), (Stands(Rank.QUEEN), Stands(Rank.QUEEN))),
            MeldSpec((card("5♥"), card("★4"), card("7♥")), (Stands(Rank.SIX, Suit.HEARTS),)),
            MeldSpec((card("9♣"), card("9♦"), card("9♥'"), card("9♠"))),
        )
    ),
    AddToMeld(3, (card("8♥"),), (), End.HIGH),
    AddToMeld(0, (card("★3"), card("4♥")), (Stands(Rank.THREE, Suit.HEARTS),), End.LOW),
    AddToMeld(1, (card("Q♦'"),)),
    AddToMeld(1, (card("★2"),), (Stands(Rank.QUEEN),)),
    SwapJoker(2, card("6♥'")),
    *(Discard(c) for c in CARDS),
]


def test_the_action_samples_cover_every_action_class_and_every_oneof_case() -> None:
    assert {type(a) for a in ALL_ACTIONS} == set(typing.get_args(Action))
    cases = {codec.action_to_proto(a).WhichOneof("action") for a in ALL_ACTIONS}
    assert cases == {f.name for f in BlagogoAction.DESCRIPTOR.oneofs_by_name["action"].fields}


@pytest.mark.parametrize("action", ALL_ACTIONS, ids=[ba.describe(a) for a in ALL_ACTIONS])
def test_every_action_round_trips(action: Action) -> None:
    assert codec.action_from_proto(wire(codec.action_to_proto(action))) == action


def test_decoded_actions_are_the_engines_interned_values() -> None:
    interned: list[Action] = [ba.DRAW, *ba.DISCARDS, *(ba.take(p) for p in range(108))]
    for action in interned:
        assert codec.action_from_proto(codec.action_to_proto(action)) is action


def test_joker_meanings_say_set_or_run_by_their_suit() -> None:
    in_set = codec.stands_to_proto(Stands(Rank.KING))
    assert in_set.suit == cards_pb2.SUIT_UNSPECIFIED and in_set.rank == blagogo_cards_pb2.BLAGOGO_RANK_KING
    in_run = codec.stands_to_proto(Stands(Rank.KING, Suit.DIAMONDS))
    assert in_run.suit == cards_pb2.SUIT_DIAMONDS
    assert codec.stands_from_proto(in_set, "j") is ba.STANDS_SET[Rank.KING]
    assert codec.stands_from_proto(in_run, "j") is ba.STANDS_RUN[Suit.DIAMONDS * 13 + Rank.KING]


_TEN_OF_HEARTS = BlagogoCard(rank=blagogo_cards_pb2.BLAGOGO_RANK_TEN, suit=cards_pb2.SUIT_HEARTS)
_A = BlagogoAction


@pytest.mark.parametrize(
    ("message", "expected"),
    [
        (_A(), r"the action is empty: set exactly one of draw_from_deck, .*discard"),
        (_A.FromString(b"\x90\x03\x01"), "the action is empty"),  # field 50: a newer client's
        (_A(discard=_A.Discard()), r"discard\.card is missing"),
        (_A(swap_joker=_A.SwapJoker(meld_id=1)), r"swap_joker\.card is missing"),
        (_A(discard=_A.Discard(card=BlagogoCard(rank=3))), r"discard\.card\.suit: is unset"),  # type: ignore[arg-type]
        (
            _A(
                lay_melds=_A.LayMelds(
                    melds=[
                        blagogo_actions_pb2.BlagogoMeldSpec(cards=[_TEN_OF_HEARTS]),
                        blagogo_actions_pb2.BlagogoMeldSpec(cards=[BlagogoCard(joker=True, copy=9)]),
                    ]
                )
            ),
            r"lay_melds\.melds\[1\]\.cards\.copy",
        ),
        (
            _A(
                lay_melds=_A.LayMelds(
                    melds=[
                        blagogo_actions_pb2.BlagogoMeldSpec(
                            cards=[_TEN_OF_HEARTS], jokers=[blagogo_actions_pb2.BlagogoJokerMeaning()]
                        )
                    ]
                )
            ),
            r"lay_melds\.melds\[0\]\.jokers\.rank: is unset",
        ),
        (
            _A(
                add_to_meld=_A.AddToMeld(
                    cards=[_TEN_OF_HEARTS],
                    jokers=[blagogo_actions_pb2.BlagogoJokerMeaning(rank=2, suit=8)],  # type: ignore[arg-type]
                )
            ),
            r"add_to_meld\.jokers\.suit: 8 is not a known value",
        ),
        (
            _A(add_to_meld=_A.AddToMeld(cards=[_TEN_OF_HEARTS], run_end=5)),  # type: ignore[arg-type]
            r"add_to_meld\.run_end: 5 is not a known value",
        ),
    ],
)
def test_malformed_actions_raise_invalid_action_error(message: BlagogoAction, expected: str) -> None:
    with pytest.raises(InvalidActionError, match=expected):
        codec.action_from_proto(wire(message))


def test_well_formed_actions_out_of_range_are_left_to_the_engine() -> None:
    """Positions, meld ids, empty melds and short melds are the engine's to refuse with a rule's reason."""
    assert codec.action_from_proto(_A(take_from_bridge=_A.TakeFromBridge(position=-3))) == TakeFromBridge(-3)
    assert codec.action_from_proto(_A(take_from_bridge=_A.TakeFromBridge(position=10**9))) == (
        TakeFromBridge(10**9)
    )
    assert codec.action_from_proto(_A(lay_melds=_A.LayMelds())) == LayMelds(())
    add = _A(add_to_meld=_A.AddToMeld(meld_id=99, cards=[_TEN_OF_HEARTS]))
    assert codec.action_from_proto(add) == AddToMeld(99, (card("10♥"),))
