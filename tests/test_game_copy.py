"""``Game.copy`` (a state copy without replaying history) and the public world sampler's whole games
(``WorldSampler.sample_game``): what a search bot needs from the engine (issue #31)."""

from __future__ import annotations

import random

import pytest

from bots.belief import Belief
from bots.heuristic import HeuristicStrategy
from bots.worlds import WorldSampler
from engine import Game, Rules, view
from engine.seeds import FairDeals


def _attributes() -> list[str]:
    """Every attribute a game sets: read from a fresh game (interpreted) or mypyc's list (compiled)."""
    names = getattr(Game, "__mypyc_attrs__", None) or list(vars(Game(Rules(), 1)))
    return [name for name in names if not name.startswith("__")]


def _played(players: int, seed: int, moves: int, fair: bool = False) -> Game:
    rng = random.Random(seed)
    table = FairDeals("thousand", bytes(range(32)), players) if fair else None
    game = Game(Rules(players=players), seed, fair=table)
    for _ in range(moves):
        if game.is_over:
            break
        if game.is_chance_node:
            game.apply_chance()
            continue
        seat = game.to_act
        assert seat is not None
        game.apply(seat, rng.choice(game.legal_actions()))
    return game


@pytest.mark.parametrize("players", [2, 3, 4])
def test_copy_copies_every_attribute_and_shares_no_container(players: int) -> None:
    for seed in range(5):
        game = _played(players, seed, 40 + 60 * seed, fair=seed % 2 == 1)
        twin = game.copy()
        names = _attributes()
        assert len(names) >= 13
        for name in names:
            mine, theirs = getattr(game, name), getattr(twin, name)
            if name == "deal":
                assert (mine is None) == (theirs is None)
                if mine is not None:
                    assert theirs is not mine and theirs.hands == mine.hands and theirs.phase is mine.phase
            elif name == "records":
                assert [vars_of(r) for r in theirs] == [vars_of(r) for r in mine]
                assert all(t is not m for t, m in zip(theirs, mine, strict=True))
            elif name == "fair":
                assert (mine is None) == (theirs is None)
                if mine is not None:
                    assert theirs is not mine and theirs.dealt == mine.dealt
                    assert theirs.dealt is not mine.dealt
            else:
                assert theirs == mine, name
                if isinstance(mine, list | dict | set):
                    assert theirs is not mine, f"{name} is shared between a game and its copy"


def vars_of(record: object) -> tuple[object, ...]:
    """A score-sheet line's fields (named: a compiled SeatRecord has no ``__slots__`` to read them from)."""
    names = ("score", "bolts", "on_barrel", "barrel_deals", "barrel_visits", "falls")
    return tuple(getattr(record, name) for name in names)


@pytest.mark.parametrize("players", [2, 3, 4])
def test_a_copy_plays_on_as_the_original_does_and_leaves_it_alone(players: int) -> None:
    """The copy and the original, given the same actions, produce the same events; the copy's moves do
    not reach the original (nor a fair table's record of its deals)."""
    for seed in range(4):
        game = _played(players, seed, 30 + 50 * seed, fair=seed % 2 == 0)
        twin = game.copy()
        before = (len(game.history), len(game.events), game.deals_dealt, [r.score for r in game.records])
        fair_dealt = None if game.fair is None else len(game.fair.dealt)
        rng_a, rng_b = random.Random(seed), random.Random(seed)
        other = game.copy()
        for _ in range(400):
            if twin.is_over:
                break
            if twin.is_chance_node:
                assert twin.apply_chance() == other.apply_chance()
                continue
            seat = twin.to_act
            assert seat is not None
            action = rng_a.choice(twin.legal_actions())
            assert action == rng_b.choice(other.legal_actions())
            assert twin.apply(seat, action) == other.apply(seat, action)
        after = (len(game.history), len(game.events), game.deals_dealt, [r.score for r in game.records])
        assert after == before
        assert fair_dealt is None or (game.fair is not None and len(game.fair.dealt) == fair_dealt)


@pytest.mark.parametrize("players", [3, 4])
def test_sampled_games_hold_what_the_seat_knows_and_play_on(players: int) -> None:
    """Every sampled game is in the seat's view's state: the same view for that seat (its hand, the
    score sheet, the legal actions), a history that replays, and moves past the deal."""
    rng = random.Random(players)
    sampled = 0
    for seed in range(4):
        game = Game(Rules(players=players), seed)
        bots = [HeuristicStrategy() for _ in range(players)]
        beliefs = [Belief(s) for s in range(players)]
        for step in range(200):
            if game.is_over:
                break
            if game.is_chance_node:
                game.apply_chance()
            else:
                seat = game.to_act
                assert seat is not None
                mine = view(game, seat)
                if step % 5 == 0:
                    world = WorldSampler(mine, beliefs[seat]).sample_game(rng)
                    assert world is not None
                    sampled += 1
                    theirs = view(world, seat)
                    assert theirs.hand == mine.hand
                    assert theirs.scores == mine.scores
                    assert theirs.legal_actions == mine.legal_actions
                    assert theirs.tricks == mine.tricks and theirs.auction == mine.auction
                    copy = world.copy()
                    while not copy.is_chance_node and not copy.is_over:
                        actor = copy.to_act
                        assert actor is not None
                        copy.apply(actor, rng.choice(copy.legal_actions()))
                game.apply(seat, bots[seat].choose(mine, rng))
            for s in range(players):
                beliefs[s].update(view(game, s))
    assert sampled > 30
