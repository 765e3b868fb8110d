"""The table's pure core (server/table_core.py), without a server, a loop or a store.

At every state of a few seeded games of both games, every command (each seat's every listed action and one
it may not take, with a stale and a fresh sequence; a join, a leave, a reclaim, a bot's move, a timeout, a
seat's player gone (issue 27's ladder), a stop) is decided: deciding never changes the table, every refusal
has a reason, and a decided change applied to a twin of the table (rebuilt from the steps stored so far)
gives the events it gives the table. Replaying every stored step rebuilds the same log, seats and game.
"""

from __future__ import annotations

import random
from typing import Any

import pytest

import engine
from engine import blagogo
from server.games import BLAGOGO, THOUSAND, AnyAdapter
from server.table_changes import (
    Act,
    Away,
    BotMove,
    Change,
    Command,
    Join,
    Leave,
    Reclaim,
    Step,
    Stop,
    TimeOut,
    record_of,
    step_of,
)
from server.table_core import TableCore
from server.table_state import SeatState, StopReason, hash_token
from server.time_control import TimeoutPolicy

GAMES: list[tuple[AnyAdapter, Any, int]] = [
    (THOUSAND, engine.Rules(players=3), 1),
    (THOUSAND, engine.Rules(players=4), 2),
    (BLAGOGO, blagogo.BlagogoRules(players=2), 3),
]
DECISIONS = 60
"""Decisions played into each game; every state on the way is checked."""


def _core(adapter: AnyAdapter, rules: Any, seed: int) -> TableCore:
    seats = [SeatState(bot=False, strategy="") for _ in range(adapter.players(rules))]
    return TableCore(
        "t", serial=1, adapter=adapter, rules=rules, seats=seats, seed=seed, first_dealer=0, create_time=0.0
    )


def _state(core: TableCore) -> tuple[object, ...]:
    """What a decision must leave as it was."""
    return (core.sequence, tuple(core.seats), core.decisions, core.to_act, core.started, core.stopped)


def _applied(core: TableCore, change: Change) -> list[Any]:
    events: list[Any] = []
    for published in core.apply(change):
        events.extend(published.events)
    return events


def _commands(core: TableCore, rng: random.Random) -> list[Command]:
    seats = len(core.seats)
    commands: list[Command] = []
    to_act = core.to_act
    for seat in range(seats):
        actions = list(core.adapter.turn_actions(core.game, seat)) if seat == to_act else []
        if to_act is not None and seat != to_act:
            actions = list(core.adapter.turn_actions(core.game, to_act))[:2]  # another seat's, not its own
        for action in actions:
            commands.append(Act(seat, f"r{rng.random()}", core.sequence, action))
            commands.append(Act(seat, f"s{rng.random()}", core.sequence - 1, action))
            commands.append(BotMove(seat, action))
        commands.append(Leave(seat))
        commands.append(Reclaim(seat))
        commands.append(TimeOut(seat, TimeoutPolicy.BOT_PLAYS))
        commands.append(Away(seat))
    commands.append(Join(None, "late", "token-late", hash_token("token-late")))
    commands.append(Join(seats, "nowhere", "token-nowhere", hash_token("token-nowhere")))
    commands.append(Stop(StopReason.MOVE_LIMIT, "enough"))
    return commands


@pytest.mark.parametrize(("adapter", "rules", "seed"), GAMES, ids=lambda v: getattr(v, "name", str(v)))
def test_every_command_at_every_state_is_decided_without_change_and_applies_as_on_a_twin(
    adapter: AnyAdapter, rules: Any, seed: int
) -> None:
    core = _core(adapter, rules, seed)
    stored: list[Step] = []
    for seat in range(len(core.seats)):
        token = f"token-{seat}"
        change = core.decide(Join(seat, f"p{seat}", token, hash_token(token)))
        assert change.refusal is None and change.seat == seat
        stored.extend(change.steps)
        _applied(core, change)
    rng = random.Random(seed)
    for _ in range(DECISIONS):
        if core.finished:
            break
        for command in _commands(core, rng):
            before = _state(core)
            change = core.decide(command)
            assert _state(core) == before, command  # deciding changes nothing
            if change.refusal is not None:
                assert change.refusal.reason.value and change.refusal.message
            if not change.steps:
                continue
            twin = _core(adapter, rules, seed)
            twin.replay(stored)
            assert twin.log == core.log
            records = [record_of(step) for step in change.steps]
            assert [record_of(step_of(r, adapter.action_from_bytes)) for r in records] == records
            events = _applied(twin, change)
            assert twin.log == [*core.log, *events]
        acting = core.to_act
        assert acting is not None
        action = rng.choice(list(adapter.turn_actions(core.game, acting)))
        change = core.decide(Act(acting, f"play{core.decisions}", core.sequence, action))
        assert change.refusal is None, change.refusal
        stored.extend(change.steps)
        _applied(core, change)
        retried = core.decide(Act(acting, f"play{core.decisions - 1}", None, action))
        assert retried.sequence == core.sequence and not retried.steps  # a retry: its first outcome
    rebuilt = _core(adapter, rules, seed)
    rebuilt.replay(step_of(record_of(s), adapter.action_from_bytes) for s in stored)
    assert rebuilt.log == core.log
    assert rebuilt.seats == core.seats
    assert rebuilt.decisions == core.decisions
    assert rebuilt.to_act == core.to_act
