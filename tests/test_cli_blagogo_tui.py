"""The full-screen UI at a 1000 Blagogo table, driven by key presses through Textual's pilot: a short game
against two server-side random bots (a meld composed with the card letters and ``m``, a joker's meaning asked
only when more than one fits), a refused meld shown in words, the help screen, and what the panels show."""

from __future__ import annotations

import asyncio
import time
from typing import Any

from textual.pilot import Pilot

from clients.backoff import Backoff
from clients.cli.blagogo_compose import new_meld_readings
from clients.cli.blagogo_text import sorted_hand
from clients.cli.blagogo_tui import BlagogoApp
from clients.cli.follow import Follower
from clients.cli.screens import AskScreen, TextScreen
from clients.messages import Turn
from clients.session import OPEN, TableSession
from engine.blagogo import BlagogoRules, Discard, LayMelds, MeldSpec
from tests.cli_harness import Proxy, run, serving
from tests.tui_harness import assert_layout_fits, log_text, quit_app, read_summary, static_text, wait_for

FAST = Backoff(initial=0.05, maximum=0.5, give_up_after=30)
SHORT = BlagogoRules(players=3, target=60, turnover_limit=1, opening_min_points=0)
SIZE = (160, 60)
SMALL = (80, 24)
original_turn = Follower._take_turn


def number_keys(app: BlagogoApp, index: int) -> list[str]:
    return [*str(index + 1), "enter"]


async def select(app: BlagogoApp, pilot: Pilot[int], spec: MeldSpec) -> None:
    for card in spec.cards:
        letter = app.letters.letter(card)
        assert letter is not None, card
        await pilot.press(letter)
    assert set(app.selected) == set(spec.cards)


async def compose_meld(app: BlagogoApp, pilot: Pilot[int], spec: MeldSpec) -> bool:
    """Select the meld's cards by their letters and press m; a joker's meaning is typed only when the prompt
    asks it (several fit), and it asks nothing when one only does. Returns whether it asked."""
    await select(app, pilot, spec)
    several = len(new_meld_readings(spec.cards)) > 1
    await pilot.press("m")
    asked = False
    for stands in spec.jokers:
        if not several:
            break
        await wait_for(lambda: isinstance(app.screen, AskScreen))
        asked = True
        meaning = stands.rank.label + (stands.suit.letter if stands.suit is not None else "")
        await pilot.press(*meaning.lower(), "enter")
    await wait_for(lambda: not app.composing and not isinstance(app.screen, AskScreen))
    return asked


async def refuse_a_meld(app: BlagogoApp, pilot: Pilot[int]) -> None:
    """Two cards are no meld: the server's refusal is shown in words, and the turn offered again."""
    naturals = [c for c in app.hand() if not c.is_joker][:2]
    await select(app, pilot, MeldSpec(tuple(naturals)))
    await pilot.press("m")
    await wait_for(lambda: app.problem is not None and not app.submitting)
    assert app.problem is not None and app.problem.startswith("Rejected: ")
    await pilot.pause()
    assert "Rejected: " in static_text(app, "#status")
    assert "(rejected: " in log_text(app)
    await pilot.press("escape")
    assert not app.selected and app.offered


async def refuse_an_addition(app: BlagogoApp, pilot: Pilot[int]) -> None:
    """``a`` asks which meld; a meld that is not on the table is refused in words."""
    card = next(c for c in app.hand() if not c.is_joker)
    await select(app, pilot, MeldSpec((card,)))
    await pilot.press("a")
    await wait_for(lambda: isinstance(app.screen, AskScreen))
    await pilot.press("x", "enter")  # not a meld id: asked again, the mistake in words
    await wait_for(lambda: isinstance(app.screen, AskScreen) and "is not a meld" in app.screen.question)
    await pilot.press("backspace", "0", "enter")  # melds count from 1: #0 is refused in words, asked again
    await wait_for(lambda: isinstance(app.screen, AskScreen) and "there is no meld #0" in app.screen.question)
    await pilot.press("backspace", "9", "9", " ", "h", "i", "g", "h", "enter")
    await wait_for(lambda: app.problem is not None and not app.submitting and not app.composing)
    assert app.problem is not None and app.problem.startswith("Rejected: ")
    assert "(you choose: add " in log_text(app) and "to meld #99 at its high end" in log_text(app)
    await pilot.press("escape")


async def play_with_keys(app: BlagogoApp, pilot: Pilot[int], timeout: float) -> tuple[int, bool, bool]:
    """Answer every turn by keys: a proposed meld (composed with the keys the first time), else a discard,
    else the first action; each round's summary, waiting for a key, read and dismissed. Returns the moves,
    whether a meld was refused and whether one was composed."""
    answered: int | None = None
    moves = 0
    refused = composed = added = False
    deadline = time.monotonic() + timeout
    while not app.follower.finished:
        assert time.monotonic() < deadline, f"the game did not end in {timeout} s ({moves} moves)"
        summary = await read_summary(app, pilot)
        if summary is not None:
            assert summary.startswith("Round ") and " scored (" in summary, summary
            assert "melds " in summary and "hand -0" not in summary, summary  # a hand that cost nothing: 0
            continue
        if not app.offered or app.offered_at == answered or app.submitting or app.composing:
            await asyncio.sleep(0.002)
            continue
        answered = app.offered_at
        offered = app.offered
        melds = [i for i, a in enumerate(offered) if isinstance(a, LayMelds) and len(a.melds) == 1]
        if melds and not refused:
            refused = True
            await refuse_a_meld(app, pilot)
        if melds and not composed:
            composed = True
            meld = offered[melds[0]]
            assert isinstance(meld, LayMelds)
            asked = await compose_meld(app, pilot, meld.melds[0])
            assert asked == (len(new_meld_readings(meld.melds[0].cards)) > 1)
            await wait_for(lambda: "by Ann (seat 1)" in static_text(app, "#melds"))
            moves += 1
            continue
        discards = [i for i, a in enumerate(offered) if isinstance(a, Discard)]
        if composed and discards and not added:
            added = True
            await refuse_an_addition(app, pilot)
        choice = melds[0] if melds else discards[0] if discards else 0
        await pilot.press(*number_keys(app, choice))
        moves += 1
    assert added
    return moves, refused, composed


def kept_view_matches_the_servers(mismatches: list[str]) -> None:
    """Record where the view the UI keeps from the events differs from the one a Turn brings."""

    def checked(self: Follower[Any, Any, Any], turn: Turn[Any, Any] | None) -> None:
        kept, sent = self.view, turn.view if turn is not None else None
        if kept is not None and sent is not None:
            for name in ("bridge", "melds", "card_counts", "opened", "scores", "deck_count", "known_cards"):
                if getattr(kept, name) != getattr(sent, name):
                    mismatches.append(f"{name}: {getattr(kept, name)} != {getattr(sent, name)}")
            if sorted_hand(kept.hand) != sorted_hand(sent.hand):
                mismatches.append(f"hand: {kept.hand} != {sent.hand}")
        original_turn(self, turn)

    Follower._take_turn = checked  # type: ignore[method-assign]


def test_a_whole_blagogo_game_by_key_presses_against_two_bots() -> None:
    mismatches: list[str] = []
    kept_view_matches_the_servers(mismatches)

    async def scenario() -> None:
        async with serving() as address, TableSession(address, backoff=FAST) as session:
            table = await session.create_table(
                SHORT, [OPEN, "random", "random"], seed=3, practice=True, first_dealer=0
            )
            await session.join(table.table_id, name="Ann")
            app = BlagogoApp(session)
            async with app.run_test(size=SIZE) as pilot:
                await wait_for(lambda: bool(app.offered))
                hand = static_text(app, "#hand")
                assert " b:" in hand and " c:" in hand  # the cards carry their letters
                assert "Bridge (position:card, newest last): 1:" in static_text(app, "#table")
                assert "Ann (seat 1) ←" in static_text(app, "#players")
                await pilot.press("question_mark")
                assert isinstance(app.screen, TextScreen)
                help_text = static_text(app.screen, "Static")
                assert "12 cards to each player and 13 to the player left of the dealer" in help_text
                assert "13 cards each" not in help_text  # B-5: 12, and 13 to the first player
                assert "a card of the second deck is marked '" in help_text
                assert "a set is 3 or 4 cards of one rank" in help_text
                assert "Deck turnovers before a round ends unwon (B-10): 1   ← changed" in help_text
                assert "lay the selected cards as a meld" in help_text
                await pilot.press("escape")
                assert not isinstance(app.screen, TextScreen)
                moves, refused, composed = await play_with_keys(app, pilot, timeout=60)
                await wait_for(lambda: "Final standings" in static_text(app, "#status"))
                assert moves > 5 and refused and composed
                log = log_text(app)
                assert "(you choose: lay " in log
                assert "Ann (seat 1) opens with " in log or "Ann (seat 1) lays " in log
                assert "Game over — winner: " in log
                assert "Final standings" in static_text(app, "#status")
                await quit_app(app, pilot)
            assert app.return_code == 0
            final = await session.get_table()
            assert session.finished and session.last_sequence == final.sequence

    try:
        run(scenario(), timeout=90)
    finally:
        Follower._take_turn = original_turn  # type: ignore[method-assign]
    assert not mismatches, mismatches[:5]


def test_a_spectator_watches_a_blagogo_game_of_bots() -> None:
    async def scenario() -> None:
        async with serving() as address, TableSession(address, backoff=FAST) as session:
            table = await session.create_table(SHORT, ["random", "random", "random"], seed=4, first_dealer=0)
            await session.watch(table.table_id)
            app = BlagogoApp(session)
            async with app.run_test(size=SMALL) as pilot:
                await wait_for(lambda: "Final standings" in static_text(app, "#status"), timeout=30)
                assert await read_summary(app, pilot) is None  # a spectator's screen is not held
                assert "Cards held: " in static_text(app, "#hand")
                assert_layout_fits(app)
                assert "Game over — winner: " in log_text(app)
                assert "Final standings" in static_text(app, "#status")
                assert not app.offered
                await pilot.press("m")  # nothing to meld for a spectator: said in words
                assert app.problem == "It is not your turn to meld."
                await quit_app(app, pilot)
            assert app.return_code == 0

    run(scenario(), timeout=60)


def test_a_blagogo_player_whose_connection_drops_resumes_and_finishes() -> None:
    """The player's connection is cut three times mid-game (a loopback proxy): the UI says it reconnected,
    resumes after the last event it had, is offered its turn again, and plays the game to the end with the
    same events as the server."""

    async def scenario() -> None:
        async with serving() as address:
            proxy = Proxy(address)
            await proxy.start()
            try:
                async with TableSession(proxy.address, backoff=FAST) as session:
                    table = await session.create_table(
                        SHORT, [OPEN, "random", "random"], seed=3, practice=True, first_dealer=0
                    )
                    await session.join(table.table_id, name="Ann")
                    app = BlagogoApp(session)
                    async with app.run_test(size=SIZE) as pilot:
                        answered: int | None = None
                        moves = 0
                        deadline = time.monotonic() + 60
                        while not app.follower.finished:
                            assert time.monotonic() < deadline, f"no end after {moves} moves"
                            if await read_summary(app, pilot) is not None:
                                continue
                            if not app.offered or app.offered_at == answered or app.submitting:
                                await asyncio.sleep(0.002)
                                continue
                            if moves in (3, 9, 15):
                                proxy.cut()  # the turn is lost with the connection, and offered again
                                await wait_for(lambda: "(reconnected: nothing was missed)" in log_text(app))
                                await wait_for(lambda: bool(app.offered) and not app.submitting)
                            answered = app.offered_at
                            discards = [i for i, a in enumerate(app.offered) if isinstance(a, Discard)]
                            await pilot.press(*number_keys(app, discards[0] if discards else 0))
                            moves += 1
                        await wait_for(lambda: "Game over — winner: " in log_text(app))
                        assert proxy.cuts >= 3 and moves > 15
                        assert log_text(app).count("(reconnected: nothing was missed)") >= 3
                        assert "Game over — winner: " in log_text(app)
                        await pilot.press("q")
                    final = await session.get_table()
                    assert app.follower.sequence == final.sequence == session.last_sequence
            finally:
                await proxy.stop()

    run(scenario(), timeout=120)


def test_the_players_panel_keeps_each_seat_on_one_line_at_80_columns() -> None:
    """At 80x24 the players panel is 30 columns: every seat's name, cards, opened mark and score stay on one
    line (before: "heuristic 2" was cut to "heuris…" with its number wrapped under it, and the target's
    "to 1000" broke over two lines); the target is in the panel's title."""

    async def scenario() -> None:
        async with serving() as address, TableSession(address, backoff=FAST) as session:
            rules = BlagogoRules(players=3)
            table = await session.create_table(
                rules, [OPEN, "heuristic", "heuristic"], seed=3, practice=True, first_dealer=0
            )
            await session.join(table.table_id, name="Ann")
            app = BlagogoApp(session)
            async with app.run_test(size=SMALL):
                await wait_for(lambda: bool(app.offered))
                panel = app.query_one("#players")
                lines = static_text(app, "#players", width=panel.content_region.width).splitlines()
                assert str(panel.border_title) == "Players, to 1000"
                rows = [line for line in lines if line.strip()]
                assert len(rows) == 4, lines  # the header and one line per seat
                for name, row in zip(("Ann", "heuristic 2", "heuristic 3"), rows[1:], strict=True):
                    assert name in row and row.rstrip().endswith("0"), lines
                await app.action_quit()

    run(scenario(), timeout=60)
