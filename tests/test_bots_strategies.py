"""The strategies of the ``bots`` package: legal actions from views only (T-33, T-34), determinizations that
agree with what a seat knows, reproducible searches, and the duplicate tournament runner."""

from __future__ import annotations

import dataclasses
import json
import random
from collections.abc import Iterator

import pytest

from bots import STRATEGIES, Strategy, StrategyOptions, make_strategy
from bots.belief import Belief
from bots.ismcts import IsmctsStrategy
from bots.worlds import WorldSampler, clone_deal
from engine import (
    Action,
    BidCap,
    Deal,
    Game,
    OpeningBid,
    Phase,
    PlayCard,
    Rules,
    SitterScores,
    TwoPlayerDeal,
    View,
    view,
)
from engine.events import CardPlayed, TrickTaken
from games.tournament import seatings, tournament
from games.tournament_cli import main as tournament_main
from games.tournament_cli import to_json

VARIANTS = {
    "2p": Rules(players=2),
    "2p-polish": Rules(players=2, two_player_deal=TwoPlayerDeal.TEN_AND_TWO_TALONS_OF_2),
    "3p": Rules(players=3),
    "3p-dark": Rules(players=3, dark=True),
    "3p-golden": Rules(players=3, golden_deals=True),
    "3p-strict": Rules(players=3, must_beat=True, bid_cap=BidCap.NONE, opening_bid=OpeningBid.AT_LEAST_100),
    "4p": Rules(players=4, sitter_scores=SitterScores.TALON_ACES_AND_MARRIAGE, dark=True),
}
FAST = StrategyOptions(budget_ms=0, iterations=8)
"""Reproducible, tiny searches: an iteration cap and no clock."""


def decisions(
    rules: Rules, seed: int, names: list[str], deals: int, *, observe: bool = True
) -> Iterator[tuple[Game, int, View, Action]]:
    """Play ``deals`` deals of a seeded game; yields every decision with the action its strategy chose."""
    game = Game(rules, seed)
    bots: list[Strategy] = [make_strategy(names[s % len(names)], FAST) for s in range(rules.players)]
    rngs = [random.Random(f"{seed}:{s}") for s in range(rules.players)]
    while not game.is_over and (game.deals_dealt < deals or not game.is_chance_node):
        if game.is_chance_node:
            game.apply_chance()
        else:
            seat = game.to_act
            assert seat is not None
            v = view(game, seat)
            action = bots[seat].choose(v, rngs[seat])
            yield game, seat, v, action
            game.apply(seat, action)
        if observe:
            for s, bot in enumerate(bots):
                bot.observe(view(game, s))


@pytest.mark.parametrize("variant", sorted(VARIANTS))
@pytest.mark.parametrize("name", ["random", "greedy", "heuristic", "ismcts", "expert"])
def test_every_strategy_returns_a_legal_action(name: str, variant: str) -> None:
    """T-34: whatever the variant (dark, golden, 2 and 4 players), a bot picks from the legal list."""
    rules = VARIANTS[variant]
    deals = 3 if name in ("ismcts", "expert") else 8
    count = 0
    for seed in (1, 2, 3):
        for _, _, v, action in decisions(rules, seed, [name], deals):
            assert action in v.legal_actions
            count += 1
    assert count > 20


@pytest.mark.parametrize("variant", ["3p", "2p", "4p"])
def test_strategies_only_called_at_their_turns_still_play_legally(variant: str) -> None:
    """A server's bot seat only calls ``choose``: the belief copes with the views it misses."""
    for _, _, v, action in decisions(VARIANTS[variant], 3, ["ismcts", "heuristic"], 3, observe=False):
        assert action in v.legal_actions


@pytest.mark.parametrize("name", ["heuristic", "ismcts", "expert"])
def test_a_strategy_that_joins_mid_deal_still_plays_legally(name: str) -> None:
    """A seat taken over in the middle of the card play (a reconnect, a bot replacing a player)."""
    game = Game(Rules(players=3), 12)
    game.apply_chance()
    rng = random.Random(3)
    others = [make_strategy("heuristic") for _ in range(3)]
    late: dict[int, Strategy] = {}
    while game.deal is not None and not game.deal.is_over:
        seat = game.to_act
        assert seat is not None
        v = view(game, seat)
        if v.phase is Phase.PLAY and sum(v.tricks_won) >= 3:
            bot = late.setdefault(seat, make_strategy(name, FAST))
            action = bot.choose(v, rng)
            assert action in v.legal_actions
        else:
            action = others[seat].choose(v, rng)
        game.apply(seat, action)
        for s in range(3):
            others[s].observe(view(game, s))
    assert late


def test_registry_and_options() -> None:
    assert {"random", "greedy", "heuristic", "ismcts"} <= set(STRATEGIES)
    for name in STRATEGIES:
        bot = make_strategy(name, FAST)
        assert isinstance(bot, Strategy) and bot.name == name
    with pytest.raises(KeyError, match="known"):
        make_strategy("nobody")
    with pytest.raises(ValueError, match="iteration cap"):
        StrategyOptions(budget_ms=0)


def _actions(name: str, seed: int) -> list[Action]:
    return [a for _, _, _, a in decisions(Rules(players=3), 5, [name], 2) if seed]


@pytest.mark.parametrize("name", ["heuristic", "ismcts", "expert"])
def test_same_seed_same_play(name: str) -> None:
    """With an iteration cap and no clock, a strategy is a function of its views and its generator."""
    first = _actions(name, 1)
    assert first == _actions(name, 1)


def test_ismcts_seed_option_fixes_its_generator() -> None:
    game = Game(Rules(players=3), 11)
    game.apply_chance()
    seat = game.to_act
    assert seat is not None
    v = view(game, seat)
    options = StrategyOptions(budget_ms=0, iterations=30, seed=4)
    picks = {IsmctsStrategy(options).choose(v, random.Random(n)) for n in range(3)}
    assert len(picks) == 1


def test_ismcts_searches_and_counts_iterations() -> None:
    bot = IsmctsStrategy(StrategyOptions(budget_ms=0, iterations=25))
    searched = 0
    rng = random.Random(0)
    game = Game(Rules(players=3), 21)
    game.apply_chance()
    others = [make_strategy("heuristic") for _ in range(3)]
    while game.deal is not None and not game.deal.is_over:
        seat = game.to_act
        assert seat is not None
        v = view(game, seat)
        if seat == 0:
            action = bot.choose(v, rng)
            if len(v.legal_actions) > 1 and v.phase is Phase.PLAY:
                assert bot.stats.iterations == 25 and not bot.stats.fallback
                searched += 1
        else:
            action = others[seat].choose(v, rng)
        game.apply(seat, action)
        bot.observe(view(game, 0))
    assert searched >= 1


def test_ismcts_respects_its_time_budget() -> None:
    game = Game(Rules(players=3), 8)
    game.apply_chance()
    seat = game.to_act
    assert seat is not None
    bot = IsmctsStrategy(StrategyOptions(budget_ms=30))
    bot.choose(view(game, seat), random.Random(1))
    assert bot.stats.seconds < 0.3
    assert bot.stats.iterations >= 1


def _view(game: Game, seat: int, with_tricks: bool) -> View:
    """The seat's view, or as a server from before ``View.tricks`` sends it (no taken tricks)."""
    seen = view(game, seat)
    return seen if with_tricks else dataclasses.replace(seen, tricks=())


@pytest.mark.parametrize("with_tricks", [True, False], ids=["tricks", "no-tricks"])
@pytest.mark.parametrize("variant", ["3p", "2p", "2p-polish", "4p", "3p-strict", "3p-golden"])
def test_worlds_agree_with_the_view(variant: str, with_tricks: bool) -> None:
    """A determinization replays to the seat's state: same hand, counts, trick, trump; unseen cards only."""
    rules = VARIANTS[variant]
    checked = 0
    belief_by_seat: dict[int, Belief] = {}
    for game, seat, v, _ in decisions(rules, 4, ["heuristic"], 3):
        deal = game.deal
        assert deal is not None
        for s in range(rules.players):
            belief_by_seat.setdefault(s, Belief(s)).update(_view(game, s, with_tricks))
        if len(v.legal_actions) < 2:
            continue
        sampler = WorldSampler(_view(game, seat, with_tricks), belief_by_seat[seat])
        world = sampler.sample(random.Random(checked))
        assert world is not None, sampler.failures
        assert world.phase is v.phase and world.to_act == seat
        if v.phase is not Phase.DARK:  # the dark opener has not seen its own hand (T-31)
            assert world.hands[seat] == deal.hands[seat]
        assert [m.bit_count() for m in world.hands] == [m.bit_count() for m in deal.hands]
        assert world.trick_cards() == deal.trick_cards() and world.trump == deal.trump
        assert world.tricks_won == deal.tricks_won
        checked += 1
    assert checked > 30


@pytest.mark.parametrize("with_tricks", [True, False], ids=["tricks", "no-tricks"])
def test_belief_rebuilds_the_tricks(with_tricks: bool) -> None:
    """Every card a seat's belief places in a taken trick is the card played there. With ``View.tricks``
    every card is known; without (an older server), only unseen ones are hidden (with views after every
    action: the card that completes a trick, by another seat)."""
    rules = Rules(players=3)
    beliefs = [Belief(s) for s in range(3)]
    game = Game(rules, 9)
    game.apply_chance()
    rng = random.Random(2)
    bots = [make_strategy("heuristic") for _ in range(3)]
    while game.deal is not None and not game.deal.is_over:
        seat = game.to_act
        assert seat is not None
        game.apply(seat, bots[seat].choose(view(game, seat), rng))
        for s in range(3):
            beliefs[s].update(_view(game, s, with_tricks))
    played = [e for e in game.events if isinstance(e, CardPlayed)]
    taken = [e for e in game.events if isinstance(e, TrickTaken)]
    for belief in beliefs:
        assert len(belief.tricks) == len(taken)
        for k, record in enumerate(belief.tricks):
            truth = [(p.seat, p.card.index) for p in played[3 * k : 3 * k + 3]]
            assert list(record.seats) == [s for s, _ in truth]
            assert record.winner == taken[k].seat and record.points in (taken[k].points, None)
            if with_tricks:
                assert record.cards == [c for _, c in truth] and record.points == taken[k].points
            for pos, c in enumerate(record.cards):
                if c is None:
                    assert pos == 2 and record.seats[pos] != belief.seat
                else:
                    assert c == truth[pos][1]


def _snapshot(deal: Deal) -> tuple[object, ...]:
    return (
        deal.phase,
        deal.to_act,
        tuple(deal.hands),
        tuple(deal.won),
        deal.trick_cards(),
        tuple(deal.tricks_won),
        tuple(deal.marriages),
        tuple(deal.auction),
        deal.legal_actions(),
    )


@pytest.mark.parametrize("moves", [0, 5, 12, 20])
def test_clone_is_independent(moves: int) -> None:
    """A world is cloned for every iteration: playing the copy must leave the original as it was."""
    rng = random.Random(moves)
    for seed in range(4):
        game = Game(Rules(players=3), seed)
        game.apply_chance()
        deal = game.deal
        assert deal is not None
        for _ in range(moves):
            if deal.is_over:
                break
            seat = deal.to_act
            assert seat is not None
            deal.apply(seat, rng.choice(deal.legal_actions()))
        before = _snapshot(deal)
        twin = clone_deal(deal)
        assert _snapshot(twin) == before
        while not twin.is_over:
            seat = twin.to_act
            assert seat is not None
            twin.apply(seat, rng.choice(twin.legal_actions()))
        assert _snapshot(deal) == before


@pytest.mark.parametrize("players", [2, 3, 4])
@pytest.mark.parametrize("k", [1, 2, 3])
def test_seatings_put_every_strategy_in_every_seat_equally_often(players: int, k: int) -> None:
    names = ["a", "b", "c"][:k]
    table = seatings(names, players)
    for seat in range(players):
        counts = {n: sum(1 for s in table if s[seat] == n) for n in names}
        assert len(set(counts.values())) == 1, (table, seat)


def test_small_duplicate_tournament() -> None:
    calls: list[tuple[int, int]] = []
    options = StrategyOptions(budget_ms=0, iterations=3)
    result = tournament(
        "thousand",
        ["heuristic", "random", "ismcts"],
        2,
        7,
        players=3,
        progress=lambda d, t: calls.append((d, t)),
        options=options,
    )
    assert calls[0] == (0, 2) and calls[-1] == (2, 2)
    payload = to_json(result)["results"]
    assert isinstance(payload, dict) and set(payload) == {"heuristic", "random", "ismcts"}
    for entry in payload.values():
        assert entry["deals"] == 2
        assert isinstance(entry["mean_score"], float) and isinstance(entry["ci95"], float)
    assert result.score("heuristic").n == 2
    again = tournament(
        "thousand", ["heuristic", "random", "ismcts"], 2, 7, players=3, progress=None, options=options
    )
    assert again.sets == result.sets


def test_tournament_command_json(capsys: pytest.CaptureFixture[str]) -> None:
    assert tournament_main(["heuristic", "greedy", "--deals", "3", "--players", "4", "--json"]) == 0
    captured = capsys.readouterr()
    last = json.loads(captured.out.strip().splitlines()[-1])
    assert set(last) == {"results"}
    assert set(last["results"]) == {"heuristic", "greedy"}
    assert last["results"]["heuristic"]["deals"] == 3
    assert "3/3 deals" in captured.err


def test_play_actions_are_interned_like_the_engine_s() -> None:
    """The heuristic answers with the engine's own card-play values (equal to the legal ones)."""
    for _, _, v, action in decisions(Rules(players=3), 6, ["heuristic"], 1):
        if isinstance(action, PlayCard):
            assert action in v.legal_actions
