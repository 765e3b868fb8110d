"""One legal-action contract, checked the same way for every game (issue 24): Thousand and 1000 Blagogo.

Each game is described once below (how to start it, a random player, its action codec, a fingerprint of its
state); every test runs over both. Over seeded random playouts:

- every listed action is accepted by ``validate`` and ``is_legal`` (T-34, B-22), and applying it succeeds;
- an action that is not legal (one listed in the previous position, or one listed for this position but
  offered by another seat) is refused by ``validate`` and by ``apply`` with the same error class and reason,
  and the refused ``apply`` leaves the state exactly as it was;
- every action played survives the codec (engine -> proto -> bytes -> proto -> engine);
- replaying the game's history into a fresh game gives the same events as the live game (T-37, B-23).
"""

from __future__ import annotations

import random
from collections.abc import Callable
from dataclasses import dataclass
from functools import partial
from typing import Any

import pytest

import codec.blagogo.actions as blagogo_codec
import codec.thousand.actions as thousand_codec
import engine
from engine import blagogo, playout
from engine.blagogo.randomplay import random_action as blagogo_random
from engine.errors import IllegalActionError, InvalidActionError
from tests.blagogo_helpers import fingerprint as blagogo_fingerprint
from tests.randomplay import random_action as thousand_random
from tests.test_properties_actions import fingerprint as thousand_fingerprint
from thousand.v1 import blagogo_actions_pb2, thousand_actions_pb2


@dataclass(frozen=True)
class GameKind:
    """What the conformance tests need of one game."""

    name: str
    new: Callable[[int], Any]
    choose: Callable[[Any, random.Random], Any]
    to_proto: Callable[[Any], Any]
    from_proto: Callable[[Any], Any]
    parse: Callable[[bytes], Any]
    fingerprint: Callable[[Any], object]
    max_steps: int


def _parse(kind: type[Any]) -> Callable[[bytes], Any]:
    def parse(data: bytes) -> Any:
        message = kind()
        message.ParseFromString(data)
        return message

    return parse


GAMES = (
    GameKind(
        "thousand",
        lambda seed: engine.Game(engine.Rules(), seed),
        thousand_random,
        thousand_codec.action_to_proto,
        thousand_codec.action_from_proto,
        _parse(thousand_actions_pb2.ThousandAction),
        thousand_fingerprint,
        300,
    ),
    GameKind(
        "blagogo",
        lambda seed: blagogo.Game(blagogo.BlagogoRules(players=3), seed),
        blagogo_random,
        blagogo_codec.action_to_proto,
        blagogo_codec.action_from_proto,
        _parse(blagogo_actions_pb2.BlagogoAction),
        blagogo_fingerprint,
        300,
    ),
)


def _reason(error: Exception) -> tuple[type, object]:
    return type(error), getattr(error, "reason", None)


def _refusal(call: Callable[[], object]) -> tuple[type, object] | None:
    try:
        call()
    except (IllegalActionError, InvalidActionError) as error:
        return _reason(error)
    return None


def _played(kind: GameKind, seed: int) -> Any:
    steps = 0

    def go_on(_: object) -> bool:
        nonlocal steps
        steps += 1
        return steps <= kind.max_steps

    last = None
    for last in playout.playout(kind.new(seed), kind.choose, random.Random(seed), go_on):  # noqa: B007
        pass
    return last


@pytest.mark.parametrize("kind", GAMES, ids=lambda k: k.name)
@pytest.mark.parametrize("seed", range(3))
def test_listed_actions_are_accepted_and_others_refused_alike(kind: GameKind, seed: int) -> None:
    """validate and apply agree: every listed action accepted; refusals with apply's class and reason, the
    state unchanged."""
    game = kind.new(seed)
    rng = random.Random(seed)
    previous: tuple[Any, ...] = ()
    for _ in range(kind.max_steps):
        if game.is_over:
            break
        if game.is_chance_node:
            game.apply_chance()
            continue
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
        game.apply(seat, kind.choose(game, rng))


@pytest.mark.parametrize("kind", GAMES, ids=lambda k: k.name)
@pytest.mark.parametrize("seed", range(3))
def test_actions_round_trip_through_the_codec(kind: GameKind, seed: int) -> None:
    """Every action of a playout, through proto and its bytes and back, is the same action."""
    game = _played(kind, seed)
    actions = [a for seat, a in game.history if seat is not None]
    assert actions
    for action in actions:
        wire = kind.to_proto(action).SerializeToString()
        assert kind.from_proto(kind.parse(wire)) == action


@pytest.mark.parametrize("kind", GAMES, ids=lambda k: k.name)
@pytest.mark.parametrize("seed", range(3))
def test_replay_equals_live(kind: GameKind, seed: int) -> None:
    """The history replayed into a fresh game gives the live game's events and state."""
    live = _played(kind, seed)
    replayed = kind.new(seed)
    for seat, action in live.history:
        if seat is None:
            replayed.apply_chance(action)
        else:
            replayed.apply(seat, action)
    assert replayed.events == live.events
    assert kind.fingerprint(replayed) == kind.fingerprint(live)
