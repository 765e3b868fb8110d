"""The full-screen UI (Textual), driven by key presses through Textual's pilot: a whole game against two
server-side bots, the help screen, a rejection shown in words, a spectator, and a dropped connection."""

from __future__ import annotations

import asyncio
import io
import random
import time
from collections.abc import Callable

from rich.console import Console
from textual.pilot import Pilot
from textual.widgets import OptionList, RichLog, Static

from clients.backoff import Backoff
from clients.bots.strategy import greedy_player
from clients.cli.text import action_label
from clients.cli.tui import CARD_KEYS, HelpScreen, ThousandApp
from clients.session import OPEN, TableSession
from engine import Action, PlayCard, Rules
from tests.cli_harness import Proxy, run, serving

FAST = Backoff(initial=0.05, maximum=0.5, give_up_after=30)
SHORT = Rules(barrel_at=0)  # the first to 1000 wins: greedy games end in a few dozen deals
SIZE = (150, 50)


def static_text(app: ThousandApp, selector: str) -> str:
    """What a Static shows, as plain text."""
    console = Console(width=SIZE[0], file=io.StringIO(), record=True, color_system=None)
    console.print(app.query_one(selector, Static).content)
    return console.export_text()


def log_text(app: ThousandApp) -> str:
    return "\n".join(line.text for line in app.query_one("#log", RichLog).lines)


async def wait_for(condition: Callable[[], bool], pilot: Pilot[int], timeout: float = 20) -> None:
    """Let the app work until ``condition()`` holds."""
    deadline = time.monotonic() + timeout
    while not condition():
        assert time.monotonic() < deadline, "timed out"
        await asyncio.sleep(0.005)


def keys_for(app: ThousandApp, action: Action, rng: random.Random) -> list[str]:
    """The keys a person would press for ``action``: a card's letter when that names it alone, else its number
    (with Enter when more digits could follow)."""
    offered = app.offered
    index = offered.index(action)
    if isinstance(action, PlayCard) and rng.random() < 0.5:
        same_card = [a for a in offered if isinstance(a, PlayCard) and a.card == action.card]
        if len(same_card) == 1:
            return [CARD_KEYS[app.hand_cards().index(action.card)]]
    number = str(index + 1)
    keys = list(number)
    if int(number) * 10 <= len(offered):
        keys.append("enter")
    return keys


async def play_with_keys(app: ThousandApp, pilot: Pilot[int], timeout: float) -> int:
    """Answer every turn of the app's seat with the greedy strategy's choice, by key presses."""
    rng = random.Random(1)
    key_rng = random.Random(2)
    answered: int | None = None
    moves = 0
    deadline = time.monotonic() + timeout
    while not app.follower.finished:
        assert time.monotonic() < deadline, f"the game did not end in {timeout} s ({moves} moves)"
        turn = app.follower.turn
        if app.offered and app.offered_at != answered and turn is not None and turn.view is not None:
            answered = app.offered_at
            options = app.query_one("#actions", OptionList)
            assert options.option_count == len(app.offered) == len(turn.legal_actions)
            action = greedy_player(turn.view, rng)
            for key in keys_for(app, action, key_rng):
                await pilot.press(key)
            moves += 1
        else:
            await asyncio.sleep(0.002)
    return moves


def test_a_whole_game_by_key_presses_against_two_bots() -> None:
    async def scenario() -> None:
        async with serving() as address, TableSession(address, backoff=FAST) as session:
            # Seed 52: greedy play ends this game in 13 deals (125 decisions of seat 0).
            table = await session.create_table(
                SHORT, [OPEN, "greedy", "greedy"], seed=52, practice=True, first_dealer=0
            )
            await session.join(table.table_id, name="Ann")
            app = ThousandApp(session)
            async with app.run_test(size=SIZE) as pilot:
                await wait_for(lambda: bool(app.offered), pilot)
                hand = static_text(app, "#hand")
                assert "a:" in hand  # the cards carry their letters
                await pilot.press("question_mark")
                assert isinstance(app.screen, HelpScreen)
                help_text = str(app.screen.query_one(Static).content)
                assert "barrel_at: 0" in help_text and "bid_step: 5" in help_text and "changed" in help_text
                await pilot.press("escape")
                assert not isinstance(app.screen, HelpScreen)
                moves = await play_with_keys(app, pilot, timeout=100)  # about 25 s on an idle machine
                await pilot.pause()
                assert moves > 20
                assert "Final standings" in static_text(app, "#status")
                assert "Game over" in log_text(app)
                sheet = static_text(app, "#sheet")
                assert "Ann (seat 0)" in sheet
                await pilot.press("q")
            assert app.return_code == 0
            final = await session.get_table()
            assert session.finished and session.last_sequence == final.sequence

    run(scenario())


def test_a_rejection_is_shown_in_words_and_the_turn_offered_again() -> None:
    async def scenario() -> None:
        async with serving() as address, TableSession(address, backoff=FAST) as session:
            table = await session.create_table(
                Rules(), [OPEN, "greedy", "greedy"], seed=5, practice=True, first_dealer=2
            )
            await session.join(table.table_id)
            app = ThousandApp(session)
            async with app.run_test(size=SIZE) as pilot:
                await wait_for(lambda: bool(app.offered), pilot)
                # Someone else's action moves the table on unseen: ours is refused as stale, in words.
                session._at.last_sequence = 1  # the client believes it saw less than it did
                first = app.offered[0]
                await pilot.press("1")
                await wait_for(lambda: app.error is not None, pilot)
                assert app.error is not None and app.error.reason == "STALE_SEQUENCE"
                await pilot.pause()
                assert "resync and retry" in static_text(app, "#status")
                assert "rejected: you last saw event 1" in log_text(app)
                assert action_label(first, app.follower.names) in log_text(app)
                await pilot.press("q")

    run(scenario())


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
                    async with app.run_test(size=SIZE) as pilot:
                        await wait_for(lambda: app.follower.sequence is not None, pilot)
                        assert "Cards held" in static_text(app, "#hand")
                        rng = random.Random(2)
                        cuts = 0
                        async for item in player.stream(from_start=True):
                            turn = getattr(item, "turn", None)
                            if turn is not None and turn.seat == player.seat and turn.view is not None:
                                if player.last_sequence and player.last_sequence > 100 * (cuts + 1):
                                    proxy.cut()
                                    cuts += 1
                                await player.submit(greedy_player(turn.view, rng))
                        await wait_for(lambda: app.follower.finished, pilot, timeout=30)
                        final = await player.get_table()
                        assert app.follower.sequence == final.sequence
                        assert cuts >= 2 and "(reconnected; resuming after event" in log_text(app)
                        assert "Game over" in log_text(app)
                        lines = log_text(app)
                        assert "is dealt 7 cards:" not in lines  # a spectator sees no hand (T-33)
                        await pilot.press("q")
            finally:
                await proxy.stop()

    run(scenario())
