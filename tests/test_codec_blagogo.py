"""codec/blagogo.py: the engine <-> protobuf mapping of 1000 Blagogo (cards, rules, actions, events,
views).

As in tests/test_codec.py, every conversion is checked as a round trip through the wire format, so a field
the codec forgets, or a value the contract cannot carry, shows up as an inequality. Hidden information (B-21)
stays hidden: a blanked hand is an empty list with ``cards_hidden``, a blanked drawn card an absent field.
"""

from __future__ import annotations

import dataclasses
import typing
from collections.abc import Iterator
from enum import Enum
from functools import cache
from typing import Any

import pytest
from google.protobuf.descriptor import EnumDescriptor
from google.protobuf.message import Message
from hypothesis import given
from hypothesis import strategies as st

from codec import blagogo as codec
from engine.blagogo import (
    CARDS,
    SPECTATOR,
    Action,
    AddToMeld,
    BlagogoRules,
    CompletedSetKeeper,
    Discard,
    DrawFromDeck,
    End,
    Game,
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
    events_for,
    view,
)
from engine.blagogo import actions as ba
from engine.blagogo import events as be
from engine.blagogo.cards import Card
from engine.blagogo.randomplay import states
from engine.blagogo.rules import MAX_ONE_MELD, MAX_OPENING
from engine.errors import InvalidActionError, RulesError
from thousand.v1 import (
    blagogo_actions_pb2,
    blagogo_cards_pb2,
    blagogo_events_pb2,
    blagogo_rules_pb2,
    blagogo_views_pb2,
    cards_pb2,
)

BlagogoAction = blagogo_actions_pb2.BlagogoAction
BlagogoEvent = blagogo_events_pb2.BlagogoEvent
BlagogoRulesMessage = blagogo_rules_pb2.BlagogoRules
BlagogoCard = blagogo_cards_pb2.BlagogoCard

_M = typing.TypeVar("_M", bound=Message)


def wire(message: _M) -> _M:
    """The message after a trip over the wire."""
    return type(message).FromString(message.SerializeToString())


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
    proto_names = {v.name for v in descriptor.values} - {prefix + "UNSPECIFIED"}
    assert proto_names == {prefix + m.name for m in engine_enum}
    assert descriptor.values_by_number[0].name == prefix + "UNSPECIFIED"


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


# ---------------------------------------------------------------------------------------------------- games

RULE_SETS: list[BlagogoRules] = [
    BlagogoRules(players=2, target=150, turnover_limit=1),
    BlagogoRules(
        players=3,
        bridge_take_must_meld=True,
        target=200,
        turnover_limit=2,
        layoff_scores_for=LayoffScores.CONTRIBUTOR,
    ),
    BlagogoRules(
        players=5, opening_min_points=0, kantrame_first_turn_only=True, target=150, turnover_limit=1
    ),
    BlagogoRules(players=8, ace_in_hand=25, target=100, turnover_limit=1),
    BlagogoRules(
        players=4,
        target=150,
        turnover_limit=1,
        opening_one_meld=True,
        completed_set_keeper=CompletedSetKeeper.COMPLETER,
        play_on_own_melds=False,
        max_jokers_per_meld=2,
    ),
]
"""Small targets and a turnover limit: random players finish these games in a few rounds."""


@cache
def played_games() -> tuple[Game, ...]:
    games = []
    for number, rules in enumerate(RULE_SETS):
        for seed in range(2):
            game = None
            for game in states(rules, 10 * number + seed, max_rounds=8):  # noqa: B007 - the last state
                pass
            assert game is not None and game.is_over
            games.append(game)
    return tuple(games)


def viewers(game: Game) -> list[int | None]:
    return [SPECTATOR, *range(game.rules.players)]


def test_the_games_show_every_event_class() -> None:
    seen = {type(e) for game in played_games() for e in game.events}
    assert seen == set(typing.get_args(be.Event))


def test_every_event_round_trips_for_every_viewer() -> None:
    for game in played_games():
        for event in game.events:  # unfiltered: every hidden card present
            assert codec.event_from_proto(wire(codec.event_to_proto(event))) == event
        for viewer in viewers(game):
            for event in events_for(game, viewer):
                assert codec.event_from_proto(wire(codec.event_to_proto(event))) == event


def test_seat_filtered_events_keep_hidden_cards_absent() -> None:
    """B-21: only a dealt hand and a drawn card are hidden, from everyone but their seat."""
    hidden = shown = 0
    for game in played_games():
        for viewer in viewers(game):
            for event in events_for(game, viewer):
                message = codec.event_to_proto(event)
                match event:
                    case be.HandDealt(seat=seat, cards=cards):
                        assert (cards is None) is (seat != viewer)
                        assert message.hand_dealt.cards_hidden is (cards is None)
                        assert len(message.hand_dealt.cards) == len(cards or ())
                        assert message.hand_dealt.count == event.count
                    case be.CardDrawn(seat=seat, card=drawn):
                        assert (drawn is None) is (seat != viewer)
                        assert message.card_drawn.HasField("card") is (drawn is not None)
                        hidden += drawn is None
                        shown += drawn is not None
    assert hidden and shown


def test_hidden_cards_leave_no_trace_in_the_bytes() -> None:
    message = codec.event_to_proto(be.HandDealt(seat=1, count=12, cards=None))
    assert message == BlagogoEvent(hand_dealt=BlagogoEvent.HandDealt(seat=1, count=12, cards_hidden=True))
    drawn = codec.event_to_proto(be.CardDrawn(seat=2, card=None))
    assert drawn == BlagogoEvent(card_drawn=BlagogoEvent.CardDrawn(seat=2))


def test_melds_carry_their_jokers_meanings_and_points() -> None:
    melds = [
        m
        for game in played_games()
        for e in game.events
        if isinstance(e, be.MeldsLaid)
        for m in e.melds
        if m.jokers
    ]
    assert melds, "the sample games lay melds with jokers"
    for meld in melds:
        message = codec.meld_to_proto(meld)
        assert message.points == meld.points
        assert [codec.stands_from_proto(j, "j") for j in message.jokers] == [
            s for s in meld.stands() if s is not None
        ]
        assert codec.meld_from_proto(wire(message)) == meld


def test_a_round_without_a_winner_has_no_winner_field() -> None:
    message = codec.event_to_proto(be.RoundScored(2, None, False, (5, 0), (10, 20), (-5, -20), (40, 60)))
    assert not message.round_scored.HasField("winner")
    assert codec.event_from_proto(wire(message)) == be.RoundScored(
        2, None, False, (5, 0), (10, 20), (-5, -20), (40, 60)
    )
    kantrame = be.RoundScored(3, 0, True, (60, 0), (0, 40), (90, -40), (130, 20))
    assert codec.event_from_proto(wire(codec.event_to_proto(kantrame))) == kantrame


# ---------------------------------------------------------------------------------------------------- views


def _sampled_states() -> Iterator[Game]:
    """States of short random games, every few steps (one mutable game per run: view it when yielded)."""
    for number, rules in enumerate(RULE_SETS):
        for step, game in enumerate(states(rules, 5 + number, max_rounds=3)):
            if step % 5 == 0 or game.is_over:
                yield game


def test_views_round_trip_for_every_seat_and_the_spectator() -> None:
    checked = with_legal_actions = with_melds = over = 0
    for game in _sampled_states():
        for viewer in viewers(game):
            seen = view(game, viewer)
            message = wire(codec.view_to_proto(seen))
            assert codec.view_from_proto(message) == seen
            assert message.HasField("viewer") is (viewer is not None)
            if viewer is None:
                assert not message.hand and not message.legal_actions
            with_legal_actions += bool(message.legal_actions)
            with_melds += bool(message.melds)
            over += message.phase == blagogo_views_pb2.BLAGOGO_PHASE_OVER
            checked += 1
    assert checked > 300 and with_legal_actions > 30 and with_melds > 100 and over > 0


def test_the_view_before_the_first_round() -> None:
    game = Game(BlagogoRules(players=3), 5)
    message = codec.view_to_proto(view(game, 1))
    assert message.round_number == 0
    assert message.phase == blagogo_views_pb2.BLAGOGO_PHASE_UNSPECIFIED
    assert not message.HasField("to_act") and not message.HasField("must_meld")
    assert len(message.known_cards) == 3 and not message.revealed_hands
    assert codec.view_from_proto(message) == view(game, 1)


def test_a_finished_games_view_has_winner_standings_and_revealed_hands() -> None:
    game = played_games()[0]
    message = codec.view_to_proto(view(game, SPECTATOR))
    assert message.HasField("winner") and message.winner == game.winner
    assert [s.place for s in message.standings] == [1, 2]
    assert len(message.revealed_hands) == 2 and len(message.final_hands) == 2
    assert sum(len(h.cards) for h in message.revealed_hands) == 25  # 13 + 12 (B-5)


def test_must_meld_is_sent_while_a_bridge_card_waits_to_be_melded() -> None:
    """B-9 ``bridge_take_must_meld``: the pending card is public and reaches every viewer."""
    for game in states(RULE_SETS[1], 11, max_rounds=4):
        round_ = game.round
        if round_ is not None and round_.must_meld is not None:
            for viewer in viewers(game):
                message = wire(codec.view_to_proto(view(game, viewer)))
                assert codec.card_from_proto(message.must_meld) is CARDS[round_.must_meld]
            return
    pytest.fail("no bridge take under bridge_take_must_meld in the sample game")
