"""The full-screen UI at a Thousand table (Textual), driven by key presses through Textual's pilot.

Two whole seeded games against two server-side bots: at 80×24 with the terminal closed mid-game and the seat
taken back (the seat's token kept on the machine), and at a wide size with a turn clock that runs out once
(the server's bot makes that one move, the seat is the player's again). Then what a person must not suffer:
a stray Enter or typed word playing a card, a bid typed as its amount read as a line's number, the screen
falling behind a burst of events; and a rejection in words, a spectator whose connection drops."""

from __future__ import annotations

import asyncio
import random
import re
import time
from collections.abc import Awaitable, Callable
from pathlib import Path

import pytest
from textual.pilot import Pilot

from bots.strategy import greedy_player
from clients.backoff import Backoff
from clients.cli.text import action_card
from clients.cli.tui import ThousandApp
from clients.errors import ServerError
from clients.seats import SeatKeeper
from clients.session import OPEN, TableSession
from engine import Action, Phase, Rules
from engine.rules import BidCap
from tests.cli_harness import Proxy, run, serving
from tests.tui_harness import assert_layout_fits, log_text, quit_app, read_summary, static_text, wait_for
from thousand.v1 import table_service_pb2 as pb

FAST = Backoff(initial=0.05, maximum=0.5, give_up_after=30)
SHORT = Rules(barrel_at=0)  # the first to 1000 wins: greedy games end in a few dozen deals
SMALL = (80, 24)
WIDE = (160, 50)


def keys_for(app: ThousandApp, action: Action, rng: random.Random) -> list[str]:
    """The keys a person would press for ``action``: a card's letter and Enter when that names it alone,
    else its line's number and Enter (and the second question's answer, for a card given)."""
    lines = app.lines()
    index = next(i for i, line in enumerate(lines) if action in line.actions())
    line = lines[index]
    card = action_card(action)
    same_card = [c for c in lines if any(action_card(a) == card for a in c.actions())]
    if card is not None and line.action == action and len(same_card) == 1 and rng.random() < 0.5:
        letter = app.letters.letter(card)
        assert letter is not None
        return [letter, "enter"]
    keys = [*str(index + 1), "enter"]
    if line.action is None:
        answer = next(i for i, c in enumerate(line.then) if c.action == action)
        keys += [*str(answer + 1), "enter"]
    return keys


Hook = Callable[[ThousandApp, Pilot[int]], Awaitable[bool]]
"""Called at each turn before it is answered; True when it answered the turn itself (or let it pass)."""


async def play_with_keys(
    app: ThousandApp,
    pilot: Pilot[int],
    timeout: float,
    *,
    moves: int | None = None,
    hook: Hook | None = None,
    summaries: list[str] | None = None,
) -> int:
    """Answer the app's seat's turns with the greedy strategy's choice, by key presses, to the end of the game
    (or for ``moves`` turns); each deal's summary, waiting for a key, is read (into ``summaries``) and
    dismissed."""
    rng = random.Random(1)
    key_rng = random.Random(2)
    answered: int | None = None
    made = 0
    deadline = time.monotonic() + timeout
    while not app.follower.finished and (moves is None or made < moves):
        assert time.monotonic() < deadline, f"the game did not end in {timeout} s ({made} moves)"
        summary = await read_summary(app, pilot)
        if summary is not None:
            if summaries is not None:
                summaries.append(summary)
            continue
        turn = app.follower.turn
        drawn = app.offered == app.follower.legal_actions and app.offered_at == app.follower.sequence
        fresh = app.offered and drawn and app.offered_at != answered
        if fresh and turn is not None and turn.view is not None:
            answered = app.offered_at
            if hook is not None and await hook(app, pilot):
                continue
            for key in keys_for(app, greedy_player(turn.view, rng), key_rng):
                await pilot.press(key)
            made += 1
        else:
            await asyncio.sleep(0.002)
    return made


class Checks:
    """What a whole game is checked for on the way: a refused card said in words, letters that stay with their
    cards, a single action's hint, the layout at every deal."""

    def __init__(self) -> None:
        self.refused_card = ""
        self.only_one = ""
        self.letters: dict[object, str] = {}
        self.deal = 0
        self.layouts = 0

    async def __call__(self, app: ThousandApp, pilot: Pilot[int]) -> bool:
        view = app.view
        assert view is not None
        if view.deal_number != self.deal:
            self.deal, self.letters = view.deal_number, {}
            assert_layout_fits(app)
            self.layouts += 1
        for card in app.hand():  # a card keeps its letter while it stays in the hand
            letter = app.letters.letter(card)
            assert letter is not None
            assert self.letters.setdefault(card, letter) == letter, (card, letter, self.letters[card])
        table = static_text(app, "#table")
        at = []
        for seat in sorted(view.active):  # every seat's cards, tricks and points of the deal
            row = rf"{re.escape(app.follower.name(seat))} +\d+ cards? +\d+ tr +\d+ pts"
            found = re.search(row, table)
            assert found, table
            at.append(found.start())
        assert at == sorted(at), table  # in seat order, whoever deals
        if view.phase is Phase.PLAY:
            assert "Talon:" not in table  # it was up all deal
            if view.tricks:
                assert "Last → " in table
        playable = {action_card(a) for a in app.offered}
        stuck = [c for c in app.hand() if c not in playable]
        if view.phase is Phase.PLAY and view.trick and stuck and not self.refused_card:
            letter = app.letters.letter(stuck[0])
            assert letter is not None
            await pilot.press(letter)
            self.refused_card = app.problem or ""
            assert not app.submitting  # a refused card sends nothing
            await pilot.press("escape")
        if len(app.offered) == 1 and not self.only_one:
            await pilot.press("7", "enter")
            self.only_one = app.problem or ""
        return False


def test_a_whole_game_at_80x24_with_the_terminal_closed_and_the_seat_taken_back(tmp_path: Path) -> None:
    keeper = SeatKeeper(tmp_path / "seats.json")

    async def scenario() -> None:
        async with serving() as address:
            async with TableSession(address, backoff=FAST, keeper=keeper) as first:
                # Seed 52: greedy play ends this game in 13 deals (125 decisions of seat 0).
                table = await first.create_table(
                    SHORT, [OPEN, "greedy", "greedy"], seed=52, practice=True, first_dealer=0
                )
                await first.join(table.table_id, name="Ann")
                app = ThousandApp(first)
                async with app.run_test(size=SMALL) as pilot:
                    await wait_for(lambda: bool(app.offered))
                    assert_layout_fits(app)
                    assert "a:" in static_text(app, "#hand")  # the cards carry their letters
                    await pilot.press("question_mark")
                    page = static_text(app.screen, "Static")
                    assert "The barrel at (T-27): off (the first to 1000 wins)   ← changed" in page
                    assert "Bids rise in steps of (T-8): 5" in page and "True" not in page
                    assert "Turn clock: none" in page
                    await pilot.press("escape")
                    assert await play_with_keys(app, pilot, timeout=60, moves=20) == 20
                    await quit_app(app, pilot)  # the terminal goes: no goodbye to the server
                assert app.return_code == 0
            async with TableSession(address) as stranger:
                with pytest.raises(ServerError, match="no free seat"):
                    await stranger.join(table.table_id)  # the seat is still Ann's
            async with TableSession(address, backoff=FAST, keeper=keeper) as back:
                assert await back.join(table.table_id) == 0
                assert back.resumed
                app = ThousandApp(back)
                checks = Checks()
                summaries: list[str] = []
                async with app.run_test(size=SMALL) as pilot:
                    moves = await play_with_keys(app, pilot, timeout=100, hook=checks, summaries=summaries)
                    await wait_for(lambda: "Final standings" in static_text(app, "#status"))
                    last = await read_summary(app, pilot)  # the last deal's, before the standings
                    summaries += [last] if last is not None else []
                    # Each deal scored while playing waited for a key: who made what, every seat's points
                    # (counted from 1, in seat order); the deals of the history read on coming back did not.
                    assert len(summaries) >= 5 and all(s.startswith("Deal ") for s in summaries), summaries
                    numbers = [int(s.split()[1].rstrip(":")) for s in summaries]
                    assert numbers == sorted(numbers) and numbers[0] > 1 and numbers[-1] == 13, numbers
                    for summary in summaries:
                        line = r"^  .*\(seat (\d)\): [+-]?\d+, -?\d+ in all"
                        seats = re.findall(line, summary, re.MULTILINE)
                        assert seats == ["1", "2", "3"], summary
                    assert moves > 20 and checks.layouts > 5
                    assert "cannot be chosen now: you " in checks.refused_card, checks.refused_card
                    assert " must " in checks.refused_card
                    assert "(T-18)" in checks.refused_card
                    assert checks.only_one == "There is only one action: type 1.", checks.only_one
                    assert "Final standings" in static_text(app, "#status")
                    log = log_text(app)
                    assert "Game over" in log and "leaves" not in log
                    assert "Deal 1: " in log and " in all" in log  # a deal's summary, seat by seat
                    sheet = static_text(app, "#sheet", width=SMALL[0])
                    assert "Ann*" in sheet and "13" in sheet  # the last deals, by number
                    assert_layout_fits(app)
                    await pilot.press("s")
                    page = static_text(app.screen, "Static")
                    assert "Deal 1: " in page and "• bolt" in page
                    await pilot.press("escape", "q")
                final = await back.get_table()
                assert back.finished and back.last_sequence == final.sequence

    run(scenario(), timeout=240)


def test_a_whole_game_at_a_wide_size_with_a_turn_that_times_out_and_the_seat_back() -> None:
    clock = pb.TimeControl(on_timeout=pb.TIMEOUT_POLICY_BOT_PLAYS_TURN)
    clock.per_move.FromNanoseconds(1_500_000_000)
    waited: list[int] = []

    async def let_one_time_out(app: ThousandApp, pilot: Pilot[int]) -> bool:
        """The fifth turn: nobody answers it; the clock shows the seconds, the bot makes the move, the seat is
        the player's again at once."""
        waited.append(len(waited))
        if len(waited) != 5:
            return False
        await wait_for(lambda: "s left)" in static_text(app, "#status"))
        await wait_for(lambda: "is played by its player again" in log_text(app), timeout=10)
        log = log_text(app)
        assert "Ann (seat 1) ran out of time" in log
        assert "Ann (seat 1) is played by the server's bot for this one move" in log
        assert app.follower.seat not in app.follower.away
        return True

    async def scenario() -> None:
        async with serving() as address, TableSession(address, backoff=FAST) as session:
            table = await session.create_table(
                SHORT, [OPEN, "greedy", "greedy"], seed=52, practice=True, first_dealer=0, time_control=clock
            )
            await session.join(table.table_id, name="Ann")
            app = ThousandApp(session)
            async with app.run_test(size=WIDE) as pilot:
                await wait_for(lambda: bool(app.offered))
                assert_layout_fits(app)
                await pilot.press("question_mark")
                page = static_text(app.screen, "Static")
                assert "Turn clock: 1.5 seconds a move" in page
                assert "the server's bot makes that one move; the seat stays its player's" in page
                await pilot.press("escape")
                moves = await play_with_keys(app, pilot, timeout=120, hook=let_one_time_out)
                await wait_for(lambda: "Final standings" in static_text(app, "#status"))
                await read_summary(app, pilot)
                assert moves > 20 and len(waited) > 5
                assert "Final standings" in static_text(app, "#status")
                assert_layout_fits(app)
                await pilot.press("q")
            final = await session.get_table()
            assert session.finished and session.last_sequence == final.sequence

    run(scenario(), timeout=240)


def test_no_stray_key_plays_and_a_bid_typed_is_that_bid() -> None:
    """A bare Enter chooses nothing (nothing is highlighted until the player says so); "hello" typed over the
    hand picks no card; "120" and Enter bid 120 among 40 bids (it chose line 12 before, a bid of 165)."""

    async def scenario() -> None:
        async with serving() as address, TableSession(address, backoff=FAST) as session:
            rules = Rules(bid_cap=BidCap.NONE)  # every bid up to 400: 40 lines
            table = await session.create_table(
                rules, [OPEN, "greedy", "greedy"], seed=5, practice=True, first_dealer=2
            )
            await session.join(table.table_id, name="Ann")
            app = ThousandApp(session)
            async with app.run_test(size=SMALL) as pilot:
                await wait_for(lambda: bool(app.offered))
                offered = app.offered
                assert len(offered) >= 24
                await pilot.press("enter")
                assert app.problem is not None and app.problem.startswith("Nothing is chosen")
                await pilot.press(*"hello")
                await pilot.pause()
                assert app.offered == offered and not app.submitting
                assert "(you choose" not in log_text(app)
                await pilot.press("escape", "1", "2", "0")
                assert "[120…: Enter chooses]" in static_text(app, "#status")
                await pilot.press("enter")
                await wait_for(lambda: "(you choose: bid 120)" in log_text(app))
                await wait_for(lambda: "Ann (seat 1) bids 120" in log_text(app))
                await pilot.press("q")

    run(scenario())


def test_a_rejection_is_shown_in_words_and_the_turn_offered_again() -> None:
    async def scenario() -> None:
        async with serving() as address, TableSession(address, backoff=FAST) as session:
            table = await session.create_table(
                Rules(), [OPEN, "greedy", "greedy"], seed=5, practice=True, first_dealer=2
            )
            await session.join(table.table_id)
            app = ThousandApp(session)
            async with app.run_test(size=SMALL) as pilot:
                await wait_for(lambda: bool(app.offered))
                # Someone else's action moves the table on unseen: ours is refused as stale, in words.
                session._at.last_sequence = 1  # the client believes it saw less than it did
                first = app.lines()[0]
                await pilot.press("1", "enter")
                await wait_for(lambda: app.problem is not None and not app.submitting)
                await pilot.pause()
                assert app.problem is not None and "resync and retry" in app.problem
                assert "resync and retry" in static_text(app, "#status")
                assert "rejected: you last saw event 1" in log_text(app)
                assert first.label in log_text(app)
                await pilot.press("q")

    run(scenario())


def test_the_screen_keeps_up_with_a_burst_of_events() -> None:
    """A spectator of a game of bots only, played as fast as the server can (thousands of events in seconds):
    the screen is drawn a frame at a time from the latest state, so it shows "Game over" moments after the
    table's end (it took minutes, drawing every event), and every frame's panels agree with each other."""

    async def scenario() -> None:
        async with serving() as address, TableSession(address, backoff=FAST) as session:
            table = await session.create_table(
                Rules(), ["greedy", "greedy", "greedy"], seed=7, first_dealer=0
            )
            await session.watch(table.table_id)
            app = ThousandApp(session)
            async with app.run_test(size=SMALL) as pilot:
                started = time.monotonic()
                while (await session.get_table(table.table_id)).status != pb.TABLE_STATUS_FINISHED:
                    await asyncio.sleep(0.05)
                server_done = time.monotonic()
                await wait_for(lambda: app.follower.finished, timeout=10, what="the screen caught up")
                await wait_for(lambda: "Final standings" in static_text(app, "#status"), timeout=2)
                caught_up = time.monotonic()
                events = app.follower.sequence or 0
                assert events > 1000, events
                assert caught_up - server_done < 5, (caught_up - server_done, server_done - started)
                assert app.frames < events / 5, (app.frames, events)
                view = app.view
                assert view is not None
                assert static_text(app, "#table").startswith(f"Deal {view.deal_number}")
                sheet = static_text(app, "#sheet", width=SMALL[0])
                last = app.follower.sheet[-1]
                assert str(last.number) in sheet and last.cells[0].split()[0] in sheet
                assert any(s.score for s in view.scores)
                await pilot.press("q")

    run(scenario(), timeout=120)


def test_a_spectator_watches_and_a_dropped_connection_resumes() -> None:
    async def scenario() -> None:
        async with serving() as address:
            proxy = Proxy(address)
            await proxy.start()
            try:
                async with (
                    TableSession(address, backoff=FAST) as player,
                    TableSession(proxy.address, backoff=FAST) as watcher,
                ):
                    table = await player.create_table(
                        SHORT, [OPEN, "greedy", "greedy"], seed=5, practice=True, first_dealer=0
                    )
                    await player.join(table.table_id)
                    await watcher.watch(table.table_id)
                    app = ThousandApp(watcher)
                    async with app.run_test(size=SMALL) as pilot:
                        await wait_for(lambda: app.follower.sequence is not None)
                        await wait_for(lambda: "Cards held" in static_text(app, "#hand"))
                        rng = random.Random(2)
                        cuts = 0
                        async for item in player.stream(from_start=True):
                            turn = getattr(item, "turn", None)
                            if turn is not None and turn.seat == player.seat and turn.view is not None:
                                if player.last_sequence and player.last_sequence > 100 * (cuts + 1):
                                    proxy.cut()
                                    cuts += 1
                                await player.submit(greedy_player(turn.view, rng))
                        await wait_for(lambda: "Game over" in log_text(app), timeout=30)
                        final = await player.get_table()
                        assert app.follower.sequence == final.sequence
                        lines = log_text(app)
                        assert cuts >= 2 and "(reconnected: nothing was missed)" in lines
                        assert "(connection lost: " in lines and "ipv4:" not in lines  # words, not gRPC's
                        assert "Game over" in lines
                        assert "is dealt 7 cards:" not in lines  # a spectator sees no hand (T-33)
                        await pilot.press("q")
            finally:
                await proxy.stop()

    run(scenario())
