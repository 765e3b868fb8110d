"""codec/blagogo/: the engine <-> protobuf mapping of 1000 Blagogo, what the server sends (events, melds,
views), over whole games played for every seat and the spectator; cards, rules and actions are in
tests/test_codec_blagogo.py.

As in tests/test_codec_events_views.py, every conversion is checked as a round trip through the wire format.
Hidden information (B-21) stays hidden: a blanked hand is an empty list with ``cards_hidden``, a blanked
drawn card an absent field.
"""

from __future__ import annotations

import typing
from collections.abc import Iterator
from functools import cache

import pytest

from codec import blagogo as codec
from engine.blagogo import (
    CARDS,
    SPECTATOR,
    BlagogoRules,
    CompletedSetKeeper,
    Game,
    LayoffScores,
    events_for,
    view,
)
from engine.blagogo import events as be
from engine.blagogo.randomplay import states
from tests.codec_helpers import wire
from thousand.v1 import (
    blagogo_events_pb2,
    blagogo_views_pb2,
)

BlagogoEvent = blagogo_events_pb2.BlagogoEvent


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
