"""server/thousand_view_bytes.py writes a ThousandView byte for byte as protobuf serializes
``codec.view_to_proto``.

Every seat's and the spectator's view is compared at every step of seeded games: a thousand steps (several
deals) under each of many rule sets, and whole games to the end (winner, standings with negative payouts,
every hand revealed) under three. Play is mostly greedy, so that games end, with random decisions mixed in,
so that declarers fail and scores go below zero. Hand-made views then reach what games rarely do: large and
negative numbers, and cards and actions that are not the engine's interned instances (the encoder's caches
are keyed by identity and must fall back to encoding them); and caches small enough to be emptied mid-game.
The events whose bytes the adapter keeps (a card played, a bid, ...) are compared the same way."""

from __future__ import annotations

import dataclasses
import random
from collections import Counter
from typing import Final

import pytest

from bots.strategy import greedy_player
from codec import thousand as codec
from engine import (
    SPECTATOR,
    Bid,
    BidCap,
    Game,
    GiveCard,
    OpeningBid,
    Phase,
    PlayCard,
    Rules,
    SitterScores,
    TwoPlayerDeal,
    View,
    WeakTalon,
    view,
)
from engine.cards import CARDS, Card
from engine.events import DealKind, Standing
from engine.observer import Exchange, SeatScore, TakenTrick
from server import protobuf_wire as wire
from server import thousand_view_bytes as view_wire
from server.games import THOUSAND
from server.games import thousand as thousand_adapter
from thousand.v1 import table_service_pb2 as pb
from thousand.v1 import thousand_events_pb2, thousand_views_pb2

RULE_SETS: tuple[Rules, ...] = (
    Rules(players=2),
    Rules(players=2, two_player_deal=TwoPlayerDeal.TEN_AND_TWO_TALONS_OF_2, bank=50),
    Rules(players=3),
    Rules(players=3, golden_deals=True, dark=True, bank=30),
    Rules(players=3, must_beat=True, marriage_on_first_trick=True, bid_cap=BidCap.NONE),
    Rules(players=3, opening_bid=OpeningBid.AT_LEAST_100, bid_step=10, round_defenders=False),
    Rules(
        players=3, barrel_at=0, samosval=False, weak_talon=WeakTalon.BELOW_POINTS, weak_talon_below_points=20
    ),
    Rules(players=3, barrel_at=500, barrel_bumped_by_newcomer=False, barrel_simultaneous_both_fall=False),
    Rules(players=3, closed_talon_on_uncontested_100=False, redeal_four_nines=False, weak_hand_max_points=0),
    Rules(players=3, weak_talon=WeakTalon.OFF, weak_hand_max_points=25, bank=100),
    Rules(players=4),
    Rules(players=4, golden_deals=True, samosval=False, obligatory_game=False),
    Rules(players=4, sitter_scores=SitterScores.TALON_ACES_AND_MARRIAGE, dark=True, barrel_at=300, bank=20),
)
STEPS: Final = 1000
"""Steps (decisions and chance) played under each rule set: several deals, every view of each checked."""
WHOLE_GAMES: Final = (
    Rules(players=2, two_player_deal=TwoPlayerDeal.TEN_AND_TWO_TALONS_OF_2, bank=50),
    Rules(players=3, golden_deals=True, dark=True, bank=30),
    Rules(players=4, sitter_scores=SitterScores.TALON_ACES_AND_MARRIAGE, bank=40),
)
"""Rule sets of the games played to the end, with a bank so that the standings carry negative payouts."""
WHOLE_GAME_SEED: Final = 3
"""A seed whose games under :data:`WHOLE_GAMES` end within a few hundred deals' steps (any seed's end, but
some take ten times longer): the test stays quick, and a game that no longer ends in time fails by name."""
MAX_STEPS: Final = 20_000
RANDOM_SHARE: Final = 0.05
"""The share of random decisions among greedy ones: enough for failed contracts (negative scores), redeal
demands and concessions, few enough for a game to reach 1000 in a few thousand steps."""


def reference(seen: View) -> bytes:
    return codec.view_to_proto(seen).SerializeToString()


def check(seen: View, found: Counter[str]) -> None:
    assert view_wire.view_bytes(seen) == reference(seen), seen
    found["views"] += 1
    found["negative scores"] += any(s.score < 0 for s in seen.scores)
    found["negative payouts"] += any(s.payout < 0 for s in seen.standings)
    found["revealed hands"] += seen.revealed_hands is not None
    found["legal actions"] += bool(seen.legal_actions)
    found["taken tricks"] += bool(seen.tricks)
    found["exchange"] += bool(seen.exchange)
    found["marriages"] += bool(seen.marriages)
    found["on the barrel"] += any(s.on_barrel for s in seen.scores)
    found["winner"] += seen.winner is not None
    if seen.phase is not None:
        found[f"phase {seen.phase.name}"] += 1
    if seen.kind is not None:
        found[f"kind {seen.kind.name}"] += 1


def play(rules: Rules, seed: int, steps: int, found: Counter[str]) -> Game:
    """Up to ``steps`` steps of a seeded game (fewer if it ends), checking every audience's view at each."""
    rng = random.Random(seed)
    game = Game(rules, seed)
    audiences = [*range(rules.players), SPECTATOR]
    for audience in audiences:
        check(view(game, audience), found)  # before the first deal
    for _ in range(steps):
        if game.winner is not None:
            break
        if game.is_chance_node:
            game.apply_chance()
        else:
            seat = game.to_act
            assert seat is not None
            own = view(game, seat)
            randomly = rng.random() < RANDOM_SHARE
            game.apply(seat, rng.choice(own.legal_actions) if randomly else greedy_player(own, rng))
        for audience in audiences:
            check(view(game, audience), found)
    return game


@pytest.mark.parametrize("number", range(len(RULE_SETS)))
def test_every_view_under_each_rule_set_is_byte_identical(number: int) -> None:
    rules = RULE_SETS[number]
    found: Counter[str] = Counter()
    play(rules, 10 + number, STEPS, found)
    for what in ("revealed hands", "legal actions", "taken tricks", "exchange", "marriages"):
        assert found[what], what
    for phase in (Phase.AUCTION, Phase.EXCHANGE, Phase.CONTRACT, Phase.PLAY, Phase.OVER):
        assert found[f"phase {phase.name}"], phase
    if rules.players == 2:
        assert found["phase TALON_CHOICE"]
    if rules.dark:
        assert found["phase DARK"]
    if rules.golden_deals:
        assert found["kind GOLDEN"]


@pytest.mark.parametrize("rules", WHOLE_GAMES, ids=lambda r: f"{r.players} players")
def test_every_view_of_whole_games_is_byte_identical(rules: Rules) -> None:
    found: Counter[str] = Counter()
    game = play(rules, WHOLE_GAME_SEED, MAX_STEPS, found)
    assert game.winner is not None, f"seed {WHOLE_GAME_SEED} did not end in {MAX_STEPS} steps: take another"
    for what in ("winner", "negative scores", "negative payouts", "on the barrel", "revealed hands"):
        assert found[what], what


def a_view() -> View:
    """A view in the middle of a deal's play, with a trick taken, from a seeded greedy game."""
    rng = random.Random(3)
    game = Game(Rules(players=4), 3)
    while game.deal is None or game.deal.phase is not Phase.PLAY or not view(game, SPECTATOR).tricks:
        if game.is_chance_node:
            game.apply_chance()
        else:
            seat = game.to_act
            assert seat is not None
            game.apply(seat, greedy_player(view(game, seat), rng))
    seat = game.to_act
    assert seat is not None
    return view(game, seat)


def fresh(card: Card) -> Card:
    """An equal card that is not the engine's interned instance."""
    other = Card(card.suit, card.rank)
    assert other == card and other is not card
    return other


def test_hand_made_views_with_extreme_numbers_and_fresh_objects() -> None:
    base = a_view()
    variants = [
        dataclasses.replace(
            base,
            scores=(
                SeatScore(0, -120, 2, True, 2, 3, 2),
                SeatScore(1, -2_147_483_648, 0, False, 0, 0, 0),
                SeatScore(2, 2_147_483_647, 1, False, 0, 1, 0),
                SeatScore(3, 0, 0, False, 0, 0, 0),
            ),
            standings=(Standing(3, 1, 1005, 150), Standing(0, 2, -5, -50), Standing(1, 3, 0, 0)),
            winner=3,
            to_act=0,
            viewer=0,
            sitter=0,
            dealer=0,
            deal_number=300,
            high_bid=400,
            high_bidder=0,
            dark_seat=0,
            declarer=0,
            bid=120,
            contract=0,
            doubled=True,
            kind=DealKind.OBLIGATORY,
            auction=((0, 100), (1, None), (0, None), (2, 1000), (3, -5)),
            exchange=(Exchange(0, 1, CARDS[5]), Exchange(0, None, None), Exchange(1, 0, fresh(CARDS[0]))),
            talon=(fresh(CARDS[3]), CARDS[23]),
            hand=(fresh(CARDS[7]), CARDS[8]),
            trick=((0, fresh(CARDS[1])), (5, CARDS[2]), (3, CARDS[4])),
            tricks=(
                TakenTrick(0, ((0, CARDS[9]), (1, fresh(CARDS[10])), (7, CARDS[11])), 0),
                TakenTrick(200, ((3, CARDS[12]),), 200),
            ),
            card_counts=(0, 200, 5, 70000),
            trick_points=(-1, 0, 128, 1),
            legal_actions=(
                Bid(150),
                Bid(1000),
                GiveCard(fresh(CARDS[6]), 2),
                PlayCard(fresh(CARDS[13]), True),
            ),
            revealed_hands=((), (CARDS[0], fresh(CARDS[1])), ()),
        ),
        dataclasses.replace(base, viewer=None, legal_actions=(), hand=(), to_act=None, revealed_hands=()),
        dataclasses.replace(
            base, active=(), card_counts=(), talon=(), talon_counts=(), tricks_won=(), scores=()
        ),
        dataclasses.replace(base, rules=Rules(players=4, bank=7)),
        dataclasses.replace(base, rules=Rules(players=4, bank=7)),  # equal rules, another object
    ]
    for seen in (base, *variants):
        assert view_wire.view_bytes(seen) == reference(seen)
        assert view_wire.view_bytes(seen) == reference(seen)  # again, from the caches


def test_caches_emptied_mid_game(monkeypatch: pytest.MonkeyPatch) -> None:
    """A bound of 3 empties every cache many times a deal: what is written afterwards is still right."""
    monkeypatch.setattr(view_wire, "_MAX_CACHED", 3)
    found: Counter[str] = Counter()
    play(Rules(players=3, dark=True), 5, 300, found)
    assert found["legal actions"] > 50


@pytest.mark.parametrize("bound", [4096, 3])
def test_the_adapter_kept_event_bytes_are_protobufs(monkeypatch: pytest.MonkeyPatch, bound: int) -> None:
    """Every event of seeded games, as each audience sees it, is the same bytes from the adapter (which keeps
    those of a small closed set: server.games.thousand._KEPT_EVENTS) as protobuf serializes its message,
    also with a cache so small it is emptied many times a deal; equal events not the same object included."""
    monkeypatch.setattr(thousand_adapter, "_MAX_CACHED_ACTIONS", bound)
    thousand_adapter._THOUSAND_EVENT_BYTES.clear()
    kept: Counter[str] = Counter()
    for rules in (Rules(players=3, dark=True), Rules(players=4, golden_deals=True)):
        game = play(rules, 7, 600, Counter())
        for audience in (*range(rules.players), SPECTATOR):
            for event in game.events:
                seen = THOUSAND.event_for(event, audience)
                expected = THOUSAND.event_message(seen).SerializeToString()
                assert THOUSAND.event_bytes(seen) == expected, seen
                assert THOUSAND.event_bytes(dataclasses.replace(seen)) == expected, seen  # an equal copy
                if type(seen) in thousand_adapter._KEPT_EVENTS:
                    kept[type(seen).__name__] += 1
    for name in ("CardPlayed", "BidMade", "Passed", "AuctionWon", "MarriageDeclared", "DarkDeclared"):
        assert kept[name], name
    assert len(thousand_adapter._THOUSAND_EVENT_BYTES) <= bound


def test_the_adapter_sends_the_hand_written_view_in_its_wrapper() -> None:
    game = Game(Rules(players=3, dark=True), 11)
    game.apply_chance()
    for audience in (*range(3), SPECTATOR):
        assert (
            THOUSAND.view_bytes(game, audience) == THOUSAND.view_to_proto(game, audience).SerializeToString()
        )
        assert pb.View.FromString(THOUSAND.view_bytes(game, audience)) == THOUSAND.view_to_proto(
            game, audience
        )


@pytest.mark.parametrize(
    "value", [0, 1, 127, 128, 16_383, 16_384, 2**31 - 1, -1, -5, -120, -(2**31), 2**32, 2**64 - 1]
)
def test_integer_fields_match_protobuf(value: int) -> None:
    """int32 negatives are ten bytes (sign-extended); the uint64 ``sequence`` still encodes as before."""
    if -(2**31) <= value < 2**31:
        standing = thousand_events_pb2.Standing(payout=value).SerializeToString()
        assert (wire.int_field(4, value) if value else b"") == standing
        assert len(wire.int32(value)) == 10 or value >= 0
    if value >= 0:
        sequence = pb.StreamEventsResponse(sequence=value).SerializeToString()
        assert (wire.int_field(1, value) if value else b"") == sequence


def test_bool_and_packed_fields_match_protobuf() -> None:
    assert wire.bool_field(18, True) == thousand_views_pb2.ThousandView(doubled=True).SerializeToString()
    assert wire.bool_field(4, False) == b"\x20\x00"  # present: a caller leaves a false non-optional bool out
    for values in ([], [0], [0, 0, 0], [1, 127, 128, 300], [-1, 5, -(2**31)], list(range(200))):
        expected = thousand_views_pb2.ThousandView(card_counts=values).SerializeToString()
        assert wire.packed_field(10, values) == expected
