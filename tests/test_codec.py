"""codec/thousand.py: the engine <-> protobuf mapping of thousand.v1 (rules, actions, events, views).

Every conversion is checked as a round trip through the wire format (``SerializeToString`` and back), so a
field the codec forgets, or a value the contract cannot carry, shows up as an inequality. Hidden information
(T-33) must stay hidden: a blanked engine field becomes an absent field, never an empty-but-present one that a
client could mistake for "no cards".
"""

from __future__ import annotations

import dataclasses
import random
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

from codec import thousand as codec
from engine import (
    SPECTATOR,
    Action,
    Bid,
    BidCap,
    ChooseTalon,
    Concede,
    DeclareDark,
    DeclineDark,
    DemandRedeal,
    DiscardCard,
    Event,
    Game,
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
    events_for,
    view,
)
from engine import actions as ea
from engine import events as ee
from engine.cards import CARDS
from engine.rules import LOWEST_BARREL_WITHOUT_OBLIGATORY, SAMOSVAL
from tests.randomplay import action_key, states
from thousand.v1 import (
    cards_pb2,
    thousand_actions_pb2,
    thousand_events_pb2,
    thousand_rules_pb2,
    thousand_views_pb2,
)

ThousandAction = thousand_actions_pb2.ThousandAction
ThousandEvent = thousand_events_pb2.ThousandEvent
ThousandRules = thousand_rules_pb2.ThousandRules

_M = typing.TypeVar("_M", bound=Message)


def wire(message: _M) -> _M:
    """The message after a trip over the wire."""
    return type(message).FromString(message.SerializeToString())


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
    proto_names = {v.name for v in descriptor.values} - {prefix + "UNSPECIFIED"}
    assert proto_names == {prefix + m.name for m in engine_enum}
    assert descriptor.values_by_number[0].name == prefix + "UNSPECIFIED"


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


# ---------------------------------------------------------------------------------------------------- games

RULE_SETS: list[Rules] = [
    Rules(players=2),
    Rules(players=2, two_player_deal=TwoPlayerDeal.TEN_AND_TWO_TALONS_OF_2, must_beat=True),
    Rules(players=3),
    Rules(players=3, dark=True, weak_talon=WeakTalon.BELOW_POINTS, opening_bid=OpeningBid.AT_LEAST_100),
    Rules(players=3, bid_cap=BidCap.NONE, marriage_on_first_trick=True, barrel_at=300),
    Rules(players=4, golden_deals=True, sitter_scores=SitterScores.TALON_ACES_AND_MARRIAGE, bank=100),
    Rules(players=4, dark=True, barrel_at=200, closed_talon_on_uncontested_100=False),
]


def _cautious_action(game: Game, rng: random.Random) -> Action:
    """Pass whenever possible, bid and contract the least, never concede or redeal: a game that ends."""
    legal = sorted(game.legal_actions(), key=action_key)
    if ea.PASS in legal:
        return ea.PASS
    calm = [a for a in legal if not isinstance(a, Concede | DemandRedeal)] or legal
    amounts = [a for a in calm if isinstance(a, Bid | NameContract)]
    if amounts:
        return min(amounts, key=lambda a: a.value)
    return rng.choice(calm)


@cache
def finished_game() -> Game:
    """A whole game to its GameOver (random players never finish one): two players, no barrel, a bank."""
    game = Game(Rules(players=2, barrel_at=0, bank=50), 2)
    rng = random.Random(2)
    while not game.is_over:
        assert game.deals_dealt < 500, "the cautious game should end"
        if game.is_chance_node:
            game.apply_chance()
        else:
            seat = game.to_act
            assert seat is not None
            game.apply(seat, _cautious_action(game, rng))
    return game


@cache
def played_games() -> tuple[Game, ...]:
    games = [finished_game()]
    for number, rules in enumerate(RULE_SETS):
        for seed in range(2):
            game = None
            for game in states(rules, 100 * number + seed, max_deals=40):  # noqa: B007 - the last state
                pass
            assert game is not None
            games.append(game)
    return tuple(games)


def viewers(game: Game) -> list[int | None]:
    return [SPECTATOR, *range(game.rules.players)]


def test_the_games_show_every_event_class() -> None:
    seen = {type(e) for game in played_games() for e in game.events}
    assert seen == set(typing.get_args(Event))


def test_every_event_round_trips_for_every_viewer() -> None:
    for game in played_games():
        for event in game.events:  # unfiltered: every hidden card present
            assert codec.event_from_proto(wire(codec.event_to_proto(event))) == event
        for viewer in viewers(game):
            for event in events_for(game, viewer):
                assert codec.event_from_proto(wire(codec.event_to_proto(event))) == event


def _hidden_cards(event: Event, message: thousand_events_pb2.ThousandEvent) -> Iterator[bool]:
    """For each card-carrying hidden field: whether the message left it out."""
    match event:
        case ee.HandDealt(cards=cards):
            yield message.hand_dealt.cards_hidden is (cards is None)
            yield len(message.hand_dealt.cards) == len(cards or ())
        case ee.TalonTaken(cards=cards):
            yield message.talon_taken.cards_hidden is (cards is None)
            yield len(message.talon_taken.cards) == len(cards or ())
        case ee.CardGiven(card=card):
            yield message.card_given.HasField("card") is (card is not None)


def test_seat_filtered_events_keep_hidden_cards_absent() -> None:
    hidden = shown = 0
    for game in played_games():
        for viewer in viewers(game):
            for event in events_for(game, viewer):
                message = codec.event_to_proto(event)
                assert all(_hidden_cards(event, message)), (viewer, event)
                match event:
                    case ee.HandDealt(seat=seat, cards=cards):
                        assert (cards is None) is (seat != viewer)
                        hidden += cards is None
                        shown += cards is not None
                    case ee.CardGiven(seat=seat, to=to, card=card):
                        assert (card is None) is (viewer is None or viewer not in (seat, to))
    assert hidden and shown


def test_hidden_cards_leave_no_trace_in_the_bytes() -> None:
    """A spectator's HandDealt carries the seat and the count only: the bytes hold no card at all."""
    event = ee.HandDealt(seat=1, count=7, cards=None)
    message = codec.event_to_proto(event)
    assert message == ThousandEvent(hand_dealt=ThousandEvent.HandDealt(seat=1, count=7, cards_hidden=True))
    given_card = codec.event_to_proto(ee.CardGiven(seat=0, to=2, card=None))
    assert not given_card.card_given.HasField("card")
    assert given_card.card_given.to_seat == 2
    into_talon = codec.event_to_proto(ee.CardGiven(seat=0, to=None, card=CARDS[3]))
    assert not into_talon.card_given.HasField("to_seat")


def test_game_started_carries_the_rules_explicitly() -> None:
    rules = Rules(players=4, dark=True, bank=30)
    message = codec.event_to_proto(ee.GameStarted(rules, 2))
    assert message.game_started.rules == codec.rules_to_proto(rules)
    assert message.game_started.first_dealer == 2


# ---------------------------------------------------------------------------------------------------- views


def _sampled_states() -> Iterator[Game]:
    """States of a few short random games, every few steps, plus the finished game."""
    for number, rules in enumerate(RULE_SETS):
        for step, game in enumerate(states(rules, 7 + number, max_deals=6)):
            if step % 2 == 0 or game.is_over:
                yield game
    yield finished_game()


def test_views_round_trip_for_every_seat_and_the_spectator() -> None:
    checked = with_legal_actions = 0
    for game in _sampled_states():
        for viewer in viewers(game):
            seen = view(game, viewer)
            message = wire(codec.view_to_proto(seen))
            assert codec.view_from_proto(message) == seen
            assert message.HasField("viewer") is (viewer is not None)
            if viewer is None:
                assert not message.hand and not message.legal_actions
            with_legal_actions += bool(message.legal_actions)
            checked += 1
    assert checked > 1000 and with_legal_actions > 200


def test_the_view_before_the_first_deal() -> None:
    game = Game(Rules(players=3), 5)
    message = codec.view_to_proto(view(game, 1))
    assert message.deal_number == 0
    assert message.kind == thousand_events_pb2.DEAL_KIND_UNSPECIFIED
    assert message.phase == thousand_views_pb2.DEAL_PHASE_UNSPECIFIED
    assert not message.HasField("to_act") and not message.HasField("trump")
    assert codec.view_from_proto(message) == view(game, 1)


def test_a_finished_games_view_has_winner_standings_and_revealed_hands() -> None:
    game = finished_game()
    message = codec.view_to_proto(view(game, SPECTATOR))
    assert message.HasField("winner") and message.winner == game.winner
    assert [s.place for s in message.standings] == [1, 2]
    assert sorted(s.payout for s in message.standings) == [-50, 50]
    assert len(message.revealed_hands) == 2
