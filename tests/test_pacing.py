"""The bot pacer's order (issue 21, item 3: bots cannot starve people), checked by the order of events on one
event loop rather than by timing: one step of bot work per turn of the loop, so whatever else the loop has
to do (reading the network) runs between two steps; people's tables before tables of bots only; tables
that ask again after each step take turns; a cancelled waiter gives its turn away; a stored move is
applied even when the server stops while it waits.

The timed counterpart, with a real server under 40 tables of bots, is
``tests/test_limits_bots.py::test_tables_of_bots_do_not_starve_people``."""

from __future__ import annotations

import asyncio
import itertools
from collections.abc import Awaitable, Callable

import pytest

from server.pacing import BOTS_ONLY, PEOPLE, BotPacer
from tests.server_harness import run


async def bot_table(pacer: BotPacer, kind: int, name: str, steps: int, log: list[str]) -> None:
    """A table's bot loop: a turn, then one step (no await in between), ``steps`` times."""
    for _ in range(steps):
        await pacer.turn(kind)
        log.append(name)


async def ticking(log: list[str], until: Callable[[], bool]) -> None:
    """What the loop does besides bot work: one entry per turn of the loop (``sleep(0)`` yields once)."""
    while not until():
        log.append("·")
        await asyncio.sleep(0)


def steps_apart(log: list[str]) -> list[int]:
    """How many loop ticks lie between each two consecutive bot steps."""
    gaps, since = [], None
    for entry in log:
        if entry == "·":
            if since is not None:
                since += 1
        else:
            if since is not None:
                gaps.append(since)
            since = 0
    return gaps


def test_one_bot_step_per_turn_of_the_loop_so_other_work_runs_between_any_two() -> None:
    async def scenario() -> list[str]:
        pacer, log = BotPacer(), list[str]()
        tables = [asyncio.create_task(bot_table(pacer, BOTS_ONLY, f"t{i}", 5, log)) for i in range(20)]
        await ticking(log, lambda: all(t.done() for t in tables))
        await asyncio.gather(*tables)
        return log

    log = run(scenario())
    assert sum(entry != "·" for entry in log) == 100
    gaps = steps_apart(log)
    assert min(gaps) >= 1, f"two bot steps in one turn of the loop: {log}"


def test_a_person_waits_for_one_bot_step_at_most_not_for_a_round_of_every_table() -> None:
    async def scenario() -> list[str]:
        pacer, log = BotPacer(), list[str]()
        bots = [asyncio.create_task(bot_table(pacer, BOTS_ONLY, f"b{i}", 3, log)) for i in range(30)]
        await asyncio.sleep(0)  # every table of bots is queued
        await asyncio.sleep(0)
        person = asyncio.create_task(bot_table(pacer, PEOPLE, "P", 3, log))
        await asyncio.gather(person, *bots)
        return log

    log = run(scenario())
    first = log.index("P")
    assert first <= 2, f"the person's table waited behind {first} bot steps: {log[: first + 1]}"
    people = [i for i, name in enumerate(log) if name == "P"]
    # after each of its steps the person's table asks again and is served before the queued bots
    assert all(b - a <= 2 for a, b in itertools.pairwise(people)), log[: people[-1] + 1]


def test_tables_that_ask_again_after_each_step_take_turns() -> None:
    async def scenario() -> list[str]:
        pacer, log = BotPacer(), list[str]()
        await asyncio.gather(*(bot_table(pacer, BOTS_ONLY, name, 4, log) for name in "abc"))
        return log

    log = run(scenario())
    assert log == list("abc" * 4), log


def test_a_cancelled_waiter_gives_its_turn_to_the_next_table() -> None:
    async def scenario() -> list[str]:
        pacer, log = BotPacer(), list[str]()
        gone = asyncio.create_task(bot_table(pacer, BOTS_ONLY, "gone", 1, log))
        await asyncio.sleep(0)  # queued, not yet granted
        stays = asyncio.create_task(bot_table(pacer, BOTS_ONLY, "stays", 1, log))
        await asyncio.sleep(0)
        gone.cancel()
        await asyncio.gather(stays)
        with pytest.raises(asyncio.CancelledError):
            await gone
        return log

    assert run(scenario()) == ["stays"]


def test_a_stored_move_is_applied_even_when_the_wait_for_its_turn_is_cancelled() -> None:
    async def scenario() -> tuple[list[str], bool]:
        pacer, log = BotPacer(), list[str]()
        hold = asyncio.Event()

        async def busy() -> None:  # a table of people keeps the pacer busy until released
            while not hold.is_set():
                await pacer.turn(PEOPLE)

        blocker = asyncio.create_task(busy())
        await asyncio.sleep(0)

        async def apply_stored() -> None:
            await pacer.turn_after_commit(BOTS_ONLY)
            log.append("applied")  # no await between the turn and the step
            await asyncio.sleep(0)  # the held-back cancellation surfaces here
            log.append("after")

        applying = asyncio.create_task(apply_stored())
        await asyncio.sleep(0)
        applying.cancel()
        await asyncio.sleep(0)
        hold.set()
        await blocker
        cancelled = False
        try:
            await applying
        except asyncio.CancelledError:
            cancelled = True
        return log, cancelled

    log, cancelled = run(scenario())
    assert log == ["applied"] and cancelled


def test_the_pacer_serves_a_second_event_loop_after_the_first_is_gone() -> None:
    """Tests (and a server restarted in one process) run several loops with one pacer."""
    pacer = BotPacer()

    def play(name: str) -> Callable[[], Awaitable[list[str]]]:
        async def scenario() -> list[str]:
            log: list[str] = []
            await asyncio.gather(*(bot_table(pacer, BOTS_ONLY, f"{name}{i}", 2, log) for i in range(2)))
            return log

        return scenario

    assert run(play("x")()) == ["x0", "x1", "x0", "x1"]
    assert run(play("y")()) == ["y0", "y1", "y0", "y1"]
