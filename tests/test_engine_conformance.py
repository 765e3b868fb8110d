"""One legal-action contract and one replay contract, checked the same way for every game (issue 24), in the
way OpenSpiel's ``random_sim_test`` checks every registered game: random playouts, every state checked.

Each game is one row of the games table (:mod:`tests.conformance_games`, from its description in
:data:`games.GAMES`); every test runs over every row. Over seeded random playouts:

- one invalid setting in otherwise valid rules is a RulesError naming it (T-4 to T-6, T-8, T-12, T-13, T-27,
  T-31, T-32; B-4);
- a seat is to act exactly when its Turn lists something to do, the legal list has no duplicates, chance
  nodes and the end list nothing, and only the acting seat's view lists legal actions (T-34, B-22);
- every listed action is accepted by ``validate`` and ``is_legal`` (T-34, B-22), and applying it succeeds;
- an action that is not legal (one listed in the previous position, or one listed for this position but
  offered by another seat) is refused by ``validate`` and by ``apply`` with the same error class and reason,
  and the refused ``apply`` leaves the state exactly as it was;
- the random player only plays legal actions and draws only from the generator it is given (T-35, B-23);
- at every step every card is in one place (T-1, B-1), and no viewer is shown a card it may not see in its
  view or its filtered events (T-33, B-21): each game's check (its row's ``cards_conserved`` and
  ``no_hidden_card``) over every state of the game's own playouts, with the game's own example count;
- every action played survives the codec (engine -> proto -> bytes -> proto -> engine);
- a game is a pure function of its rules, seed and actions (T-35, B-23): replaying its history into a fresh
  game, or playing again with the same seeded players, gives the same events, history and state, over
  every variant of the rules (hypothesis);
- through the server and a real SQLite store: a table played by the server's bots is stored, restored by a
  new registry on the same file, and is the table that was played (the same events with the same sequence
  numbers, the same game state, each stored action the one applied); its game record (``thousand-export``)
  replays to the same game (T-37, B-23).
"""

from __future__ import annotations

import asyncio
import dataclasses
import random
from collections.abc import Callable
from functools import partial
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import games
from engine import playout
from engine.errors import IllegalActionError, InvalidActionError, RulesError
from server import export
from server.creations import SeatSpec
from server.registry import Registry
from server.store_select import open_store
from server.table_state import StopReason
from tests.conformance_games import GAMES, ConformanceGame
from tests.property_helpers import property_settings
from tests.table_driving import bot_to_act, play_bot

replay_settings = settings(property_settings, max_examples=40)
"""Hypothesis draws rules (every variant) and a seed: 40 games of each game per test."""


def _reason(error: Exception) -> tuple[type, object]:
    return type(error), getattr(error, "reason", None)


def _refusal(call: Callable[[], object]) -> tuple[type, object] | None:
    try:
        call()
    except (IllegalActionError, InvalidActionError) as error:
        return _reason(error)
    return None


def _at_most(steps: int) -> Callable[[object], bool]:
    """A playout's ``go_on`` that holds for its first ``steps`` steps."""
    done = 0

    def go_on(_: object) -> bool:
        nonlocal done
        done += 1
        return done <= steps

    return go_on


def _run(game: Any, choose: Callable[[Any, random.Random], Any], rng: random.Random, steps: int) -> Any:
    """``game`` played by ``choose`` (shuffles at chance nodes) for at most ``steps`` steps, or to its end."""
    for _ in playout.playout(game, choose, rng, _at_most(steps)):
        pass
    return game


def _played(kind: ConformanceGame, seed: int) -> Any:
    return _run(kind.new(kind.default(), seed), kind.choose, random.Random(seed), kind.max_steps)


def _replayed(kind: ConformanceGame, rules: Any, seed: int, history: list[tuple[int | None, Any]]) -> Any:
    """A fresh game with the history applied: chance entries as the shuffles they were, then the actions."""
    game = kind.new(rules, seed)
    for seat, action in history:
        if seat is None:
            game.apply_chance(action)
        else:
            game.apply(seat, action)
    return game


def _views(kind: ConformanceGame, game: Any) -> list[str]:
    return [repr(kind.description.view(game, v)) for v in (None, *range(game.rules.players))]


def test_every_game_has_a_row() -> None:
    """A game added to games.GAMES is checked here as soon as it is: the table lists every one, in order."""
    assert [row.description for row in GAMES] == list(games.GAMES)


# ------------------------------------------------------------------------------------------------ rules


@pytest.mark.parametrize("kind", GAMES, ids=lambda k: k.name)
@property_settings
@given(data=st.data())
def test_an_invalid_setting_raises_rules_error_naming_it(kind: ConformanceGame, data: st.DataObject) -> None:
    """T-4 to T-6, T-8, T-12, T-13, T-27, T-31, T-32; B-4 and every variant: one invalid setting in otherwise
    valid rules is a RulesError naming it."""
    rules = data.draw(kind.rules)
    field, change = data.draw(st.sampled_from(kind.invalid_rules))
    kwargs = {f.name: getattr(rules, f.name) for f in dataclasses.fields(rules)}
    kwargs.update(change)
    with pytest.raises(RulesError) as error:
        kind.description.rules_type(**kwargs)
    assert error.value.field == field


# ------------------------------------------------------------------------------- the legal-action contract


@pytest.mark.parametrize("kind", GAMES, ids=lambda k: k.name)
@property_settings
@given(data=st.data(), seed=st.integers(min_value=0, max_value=2**64 - 1))
def test_t34_b22_a_seat_is_to_act_exactly_when_its_turn_lists_actions(
    kind: ConformanceGame, data: st.DataObject, seed: int
) -> None:
    """T-34, B-22: a seat is to act exactly when its Turn lists something to do (Thousand: a legal action;
    1000 Blagogo: a simple one or a candidate meld), with no legal action listed twice; chance nodes and the
    end of the game have no seat to act and no legal action. Only the acting seat's view lists them."""
    game = kind.new(data.draw(kind.rules), seed)
    description = kind.description
    for state in playout.playout(game, kind.choose, random.Random(seed), _at_most(2 * kind.max_steps)):
        legal = state.legal_actions()
        actor = state.to_act
        if state.is_over or state.is_chance_node:
            assert actor is None and legal == ()
        else:
            assert actor is not None, "a deal or round in progress with nobody to act"
            assert description.turn_actions(state, actor), f"seat {actor} has nothing to do"
            assert len(set(legal)) == len(legal), "an action is listed twice"
        for seat in range(state.rules.players):
            assert description.view(state, seat).legal_actions == (legal if seat == actor else ())


@pytest.mark.parametrize("kind", GAMES, ids=lambda k: k.name)
@pytest.mark.parametrize("seed", range(3))
def test_listed_actions_are_accepted_and_others_refused_alike(kind: ConformanceGame, seed: int) -> None:
    """validate and apply agree: every listed action accepted; refusals with apply's class and reason, the
    state unchanged."""
    previous: tuple[Any, ...] = ()

    def checked(game: Any, rng: random.Random) -> Any:
        """The random player's choice, once every listed action and some refused ones are checked."""
        nonlocal previous
        seat = game.to_act
        legal = game.legal_actions()
        assert legal, "a seat to act always has a legal action"
        for action in legal:
            assert game.validate(seat, action) is None
            assert game.is_legal(seat, action)
        offered = [(seat, a) for a in previous if a not in legal]
        offered += [((seat + 1) % game.rules.players, a) for a in legal[:3]]
        for who, action in offered:
            before = kind.fingerprint(game)
            said = _refusal(partial(game.validate, who, action))
            assert said is not None, f"validate accepted {action!r} for seat {who}"
            assert not game.is_legal(who, action)
            done = _refusal(partial(game.apply, who, action))
            assert done == said, f"{action!r}: apply says {done}, validate {said}"
            assert kind.fingerprint(game) == before
        previous = legal
        return kind.choose(game, rng)

    _run(kind.new(kind.default(), seed), checked, random.Random(seed), kind.max_steps)


@pytest.mark.parametrize("kind", GAMES, ids=lambda k: k.name)
@settings(property_settings, max_examples=15)
@given(data=st.data(), seed=st.integers(min_value=0, max_value=2**64 - 1))
def test_the_random_player_only_plays_legal_actions(
    kind: ConformanceGame, data: st.DataObject, seed: int
) -> None:
    """T-34, B-22, B-23: the driver's choices always validate (tests and benchmarks exercise legal play)."""

    def validated(game: Any, rng: random.Random) -> Any:
        action = kind.choose(game, rng)
        game.validate(game.to_act, action)
        return action

    _run(kind.new(data.draw(kind.rules), seed), validated, random.Random(seed), 400)


@pytest.mark.parametrize("kind", GAMES, ids=lambda k: k.name)
def test_the_random_player_uses_only_the_given_generator(kind: ConformanceGame) -> None:
    """T-35, B-23 for the test players themselves: the same seeded generator gives the same choices."""
    a, b = kind.new(kind.default(), 7), kind.new(kind.default(), 7)
    a.apply_chance()
    b.apply_chance()
    ra, rb = random.Random(3), random.Random(3)
    random.seed(0)  # the global generator must not matter
    first = kind.choose(a, ra)
    random.seed(1)
    assert kind.choose(b, rb) == first


# ------------------------------------------------------------------------------------- cards and views


@pytest.mark.parametrize("kind", GAMES, ids=lambda k: k.name)
def test_t1_b1_every_card_is_in_one_place_at_every_step(kind: ConformanceGame) -> None:
    """T-1, B-1: at every step of random games of every variant, every card is in exactly one place (the
    game's check, :attr:`ConformanceGame.cards_conserved`)."""

    @kind.settings
    @given(data=st.data(), seed=st.integers(min_value=0, max_value=2**64 - 1))
    def check(data: st.DataObject, seed: int) -> None:
        for game in kind.states(data.draw(kind.rules), seed):
            kind.cards_conserved(game)

    check()


@pytest.mark.parametrize("kind", GAMES, ids=lambda k: k.name)
def test_t33_b21_no_viewer_is_shown_a_card_it_may_not_see(kind: ConformanceGame) -> None:
    """T-33, B-21: over random games of every variant, no view and no filtered event shows its viewer a card
    it may not see (the game's check, :attr:`ConformanceGame.no_hidden_card`)."""

    @kind.settings
    @given(data=st.data(), seed=st.integers(min_value=0, max_value=2**64 - 1))
    def check(data: st.DataObject, seed: int) -> None:
        kind.no_hidden_card(kind.states(data.draw(kind.rules), seed))

    check()


# ------------------------------------------------------------------------------------- codec and replay


@pytest.mark.parametrize("kind", GAMES, ids=lambda k: k.name)
@pytest.mark.parametrize("seed", range(3))
def test_actions_round_trip_through_the_codec(kind: ConformanceGame, seed: int) -> None:
    """Every action of a playout, through proto and its bytes and back, is the same action."""
    codec = kind.description.codec
    game = _played(kind, seed)
    actions = [a for seat, a in game.history if seat is not None]
    assert actions
    for action in actions:
        message = codec.action_to_proto(action)
        parsed = type(message).FromString(message.SerializeToString())
        assert codec.action_from_proto(parsed) == action


@pytest.mark.parametrize("kind", GAMES, ids=lambda k: k.name)
@pytest.mark.parametrize("seed", range(3))
def test_replay_equals_live(kind: ConformanceGame, seed: int) -> None:
    """The history replayed into a fresh game gives the live game's events and state."""
    live = _played(kind, seed)
    replayed = _replayed(kind, kind.default(), seed, live.history)
    assert replayed.events == live.events
    assert kind.fingerprint(replayed) == kind.fingerprint(live)


@pytest.mark.parametrize("kind", GAMES, ids=lambda k: k.name)
@replay_settings
@given(data=st.data(), seed=st.integers(min_value=0, max_value=2**64 - 1))
def test_t35_b23_replaying_the_history_gives_the_same_game(
    kind: ConformanceGame, data: st.DataObject, seed: int
) -> None:
    """T-35, B-23: replaying game.history (chance entries as Shuffles) on a new game with the same rules and
    seed, or driving a new game with the same seeded players, gives identical events, history, scores and
    views of every seat and the spectator, whatever the rules' variants."""
    rules = data.draw(kind.rules)
    game = kind.play(rules, seed)
    again = _replayed(kind, rules, seed, list(game.history))
    assert again.events == game.events
    assert kind.fingerprint(again) == kind.fingerprint(game)
    assert _views(kind, again) == _views(kind, game)

    rerun = kind.play(rules, seed)
    assert rerun.events == game.events
    assert rerun.history == game.history
    assert kind.fingerprint(rerun) == kind.fingerprint(game)


# --------------------------------------------------------------------------- through a real SQLite store

MOVES = 240
"""Bot moves per stored table: a few Thousand deals, most of a 1000 Blagogo round."""


async def _play_and_store(
    kind: ConformanceGame, db: Path, seed: int
) -> tuple[str, list[Any], object, list[Any]]:
    """A table of three server-run random bots, played through the table's one path (decide, store, apply)
    into the store at ``db``, then stopped: its id, log, game fingerprint and the actions applied."""
    store = open_store(db)
    registry = Registry(store)
    seats = [SeatSpec(bot=True, strategy="random") for _ in range(3)]
    table = await registry.create(kind.default(), seats, seed, 0)
    for _ in range(MOVES):
        seat = bot_to_act(table)
        if seat is None:
            break
        await play_bot(table, seat)
    if not table.finished:
        await table.stop(StopReason.MOVE_LIMIT, f"stopped after {table.moves} moves by the conformance test")
    played = [action for seat, action in table.game.history if seat is not None]
    live = (table.table_id, list(table.log), kind.fingerprint(table.game), played)
    store.close()
    return live


@pytest.mark.parametrize("kind", GAMES, ids=lambda k: k.name)
@pytest.mark.parametrize("seed", range(2))
def test_a_table_through_a_real_sqlite_store_is_restored_as_it_was_played(
    kind: ConformanceGame, seed: int, tmp_path: Path
) -> None:
    """T-37, B-23 through the server: what the store holds is the table that was played. A new registry on
    the same SQLite file rebuilds it with the same events (same sequence numbers) and the same game state;
    each stored action record decodes to the action applied; the game record replays to the same game."""
    db = tmp_path / "conformance.db"
    table_id, log, state, played = asyncio.run(_play_and_store(kind, db, seed))
    assert played, "the bots made no move"

    registry = Registry(open_store(db))
    assert registry.restore() == 1
    restored = registry.find(table_id)
    assert restored is not None
    assert restored.log == log
    assert kind.fingerprint(restored.game) == state
    assert restored.finished

    stored = open_store(db).get(table_id)
    assert stored is not None
    adapter = restored.adapter
    assert [adapter.action_from_bytes(r.data) for r in stored.records if r.kind == "action"] == played
    record = export.record_of(stored)
    assert len(record["events"]) == len(log)
    replayed: Any = export.replay(record)
    assert replayed.events == restored.game.events
