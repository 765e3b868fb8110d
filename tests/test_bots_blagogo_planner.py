"""The 1000 Blagogo world sampler and the ``planner`` (issue 31): sampled worlds hold exactly what the seat
has seen (B-21) and play on; the seat's memory of a turned-over deck (B-10) is the real deck; the planner
plays legal actions, keeps to the Turn's deadline, and is a registered, searching strategy."""

from __future__ import annotations

import random
import time

from bots.blagogo import BLAGOGO, BlagogoStrategy, decide_blagogo, make_blagogo_strategy
from bots.blagogo_planner import BlagogoPlannerStrategy
from bots.blagogo_worlds import UNKNOWN, RoundMemory, sample_game
from bots.registry import registry_for
from bots.strategy import StrategyOptions
from engine.blagogo import BlagogoRules, Game, view
from engine.blagogo.cards import mask_of


def _seated(players: int, seed: int, names: list[str]) -> tuple[Game, list[BlagogoStrategy]]:
    game = Game(BlagogoRules(players=players, turnover_limit=3), seed)
    return game, [make_blagogo_strategy(name) for name in names]


def test_sampled_worlds_hold_what_the_seat_has_seen_and_play_on() -> None:
    """B-21: the seat's view of every sampled world is the view it has (hand, bridge, table, counts, known
    cards, sheet, legal actions); every card is somewhere once; the other hands hold their known cards; and
    a world's round plays on to its end."""
    rng = random.Random(1)
    checked = turned = 0
    for seed in range(6):
        players = 2 + seed % 4
        game, bots = _seated(players, seed, ["random" if seed % 2 else "heuristic"] * players)
        memories = [RoundMemory(s) for s in range(players)]
        game.apply_chance()
        for s in range(players):
            memories[s].update(view(game, s))
        while not game.is_chance_node:
            seat = game.to_act
            assert seat is not None
            mine = view(game, seat)
            world = sample_game(mine, memories[seat], rng)
            theirs = view(world, seat)
            for field in ("hand", "bridge", "melds", "card_counts", "known_cards", "deck_count", "scores"):
                assert getattr(theirs, field) == getattr(mine, field), field
            assert theirs.legal_actions == mine.legal_actions
            assert world.candidate_melds() == game.candidate_melds()
            rnd, real = world.round, game.round
            assert rnd is not None and real is not None
            rnd.check_invariants()
            memory = memories[seat]
            if memory.deck is not None:  # B-10: the turned-over deck as remembered is the real one
                turned += 1
                assert len(memory.deck) == len(real.deck)
                for remembered, card in zip(memory.deck, real.deck, strict=True):
                    assert remembered in (UNKNOWN, card)
                for s in range(players):
                    assert memory.holds[s] & ~real.hands[s] == 0
            checked += 1
            if checked % 15 == 0:
                copy = world.copy()
                for _ in range(2000):
                    if copy.is_chance_node:
                        break
                    actor = copy.to_act
                    assert actor is not None
                    actions = (*copy.legal_actions(), *copy.candidate_melds())
                    copy.apply(actor, bots[actor].choose(view(copy, actor), actions, rng))
                assert copy.is_chance_node
            actions = (*game.legal_actions(), *game.candidate_melds())
            game.apply(seat, bots[seat].choose(mine, actions, rng))
            for s in range(players):
                memories[s].update(view(game, s))
    assert checked > 200  # turnovers are rare in these rounds: `turned` counts the checks of the deck kept


def test_a_world_never_puts_a_card_the_seat_holds_or_saw_played_elsewhere() -> None:
    rng = random.Random(2)
    game, bots = _seated(4, 9, ["random"] * 4)
    game.apply_chance()
    for _ in range(120):
        if game.is_chance_node:
            break
        seat = game.to_act
        assert seat is not None
        mine = view(game, seat)
        for _ in range(3):
            world = sample_game(mine, None, rng)
            rnd = world.round
            assert rnd is not None
            assert rnd.hands[seat] == mask_of(mine.hand)
            for s, known in enumerate(mine.known_cards):
                assert mask_of(known) & ~rnd.hands[s] == 0
        game.apply(seat, bots[seat].choose(mine, (*game.legal_actions(), *game.candidate_melds()), rng))


def test_the_planner_plays_legal_actions_and_keeps_to_the_turn_s_deadline() -> None:
    """Whole rounds with the planner in two seats: every action legal; handed a deadline 20 ms away with a
    budget of a second, no decision takes much longer than the deadline (a playout is cut off)."""
    rng = random.Random(3)
    game = Game(BlagogoRules(players=3, turnover_limit=2), 4)
    seats: list[BlagogoStrategy] = [
        BlagogoPlannerStrategy(StrategyOptions(budget_ms=1000)),
        make_blagogo_strategy("heuristic"),
        BlagogoPlannerStrategy(StrategyOptions(budget_ms=1000)),
    ]
    searched, slowest = 0, 0.0
    for _ in range(2):
        game.apply_chance()
        for s, bot in enumerate(seats):
            bot.observe(view(game, s))
        while not game.is_chance_node:
            seat = game.to_act
            assert seat is not None
            actions = (*game.legal_actions(), *game.candidate_melds())
            begun = time.monotonic()
            action = decide_blagogo(seats[seat], view(game, seat), actions, rng, begun + 0.02)
            took = time.monotonic() - begun
            assert game.is_legal(seat, action)
            bot = seats[seat]
            if isinstance(bot, BlagogoPlannerStrategy) and bot.stats.searched:
                searched += 1
                slowest = max(slowest, took)
            game.apply(seat, action)
            for s, b in enumerate(seats):
                b.observe(view(game, s))
    assert searched > 5
    assert slowest < 0.02 + 0.03, slowest


def test_the_planner_with_an_iteration_cap_is_deterministic() -> None:
    options = StrategyOptions(budget_ms=0, iterations=3, seed=5)
    chosen = []
    for _ in range(2):
        game = Game(BlagogoRules(players=3, turnover_limit=2), 8)
        game.apply_chance()
        planner = BlagogoPlannerStrategy(options)
        bots = [planner, make_blagogo_strategy("heuristic"), make_blagogo_strategy("heuristic")]
        rng = random.Random(0)
        moves = []
        for _ in range(60):
            if game.is_chance_node:
                break
            seat = game.to_act
            assert seat is not None
            action = bots[seat].choose(
                view(game, seat), (*game.legal_actions(), *game.candidate_melds()), rng
            )
            moves.append(action)
            game.apply(seat, action)
            for s, b in enumerate(bots):
                b.observe(view(game, s))
        chosen.append(moves)
    assert chosen[0] == chosen[1]


def test_the_planner_is_registered_as_a_searching_strategy() -> None:
    """The ladder, the server's bot seats and ``thousand-bot`` build Blagogo bots from this registry."""
    assert "planner" in BLAGOGO.names() and "planner" in BLAGOGO.searching
    assert "planner" not in BLAGOGO.stateless
    assert isinstance(registry_for("blagogo").make("planner"), BlagogoPlannerStrategy)
