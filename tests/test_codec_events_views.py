"""codec/thousand/: the engine <-> protobuf mapping of Thousand, what the server sends (events, views), over
whole games played for every seat and the spectator; cards, rules and actions are in tests/test_codec.py.

Every conversion is checked as a round trip through the wire format, so a field the codec forgets shows up as
an inequality. Hidden information (T-33) must stay hidden: a blanked engine field becomes an absent field,
never an empty-but-present one that a client could mistake for "no cards".
"""

from __future__ import annotations

import random
import typing
from collections.abc import Iterator
from functools import cache

from codec import thousand as codec
from engine import (
    SPECTATOR,
    Action,
    Bid,
    BidCap,
    Concede,
    DemandRedeal,
    Event,
    Game,
    NameContract,
    OpeningBid,
    Rules,
    SitterScores,
    TwoPlayerDeal,
    WeakTalon,
    events_for,
    view,
)
from engine import actions as ea
from engine import events as ee
from engine.cards import CARDS
from tests.codec_helpers import wire
from tests.randomplay import action_key, states
from thousand.v1 import (
    thousand_events_pb2,
    thousand_views_pb2,
)

ThousandEvent = thousand_events_pb2.ThousandEvent


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
