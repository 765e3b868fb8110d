"""``--plain``: the line mode, for scripts and screen readers, the same for every game.

Every event is printed as a transcript line. When it is the user's turn the table's state is printed as
text, then the actions, numbered; the user types a number and Enter (a line that is two decisions, a card
and then who gets it, asks the second), or words the game reads (a bid's amount, a meld composed: its
entry's :attr:`~clients.cli.entry.CliGame.read`). Anything else is answered with what to type, and the
question is asked again. ``sheet`` prints the score sheet deal by deal. At a deal's end its summary is
printed; at the end, "Final standings", one seat a line.
"""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from typing import Any, Final, TextIO

from clients.cli.entry import Choice, SheetRow, Typed
from clients.cli.follow import Follower
from clients.errors import ServerError, error_words
from clients.i18n import t
from clients.session import TableSession

RESYNC_REASONS: Final = frozenset({"STALE_SEQUENCE", "NOT_YOUR_TURN", "GAME_OVER", "GAME_NOT_STARTED"})
"""Refusals after which the question is not asked again: the table moved on; the stream brings the news."""
EXIT_INPUT_ENDED: Final = 3
SHEET_WORDS: Final = frozenset({"sheet", "s"})


class InputEndedError(Exception):
    """Standard input ended while a question was asked."""


def numbers(n: int) -> str:
    """How to say the numbers 1 to ``n`` in a hint."""
    return t("cli.numbers", count=n)


def sheet_lines(sheet: Sequence[SheetRow], names: Sequence[str]) -> list[str]:
    """The score sheet as text: a line per deal, each seat's total and marks."""
    if not sheet:
        return [t("cli.no_deal_scored")]
    lines = [t("cli.sheet_deal").capitalize().ljust(4) + "  " + " | ".join(names)]
    for row in sheet:
        lines.append(f"{row.number:>4}  " + " | ".join(row.cells) + f"   ({row.title})")
    return lines


class PlainClient:
    """The line mode over one session (a seat, or a spectator when the session has no seat)."""

    def __init__(self, session: TableSession, stdin: TextIO, stdout: TextIO) -> None:
        assert session.table is not None, "join or watch the table first"
        self.session = session
        self.stdin = stdin
        self.stdout = stdout
        self.follower: Follower[Any, Any, Any] = Follower(session.seat, session.table, session.deals.witness)
        self.entry = self.follower.entry

    def say(self, line: str = "") -> None:
        print(line, file=self.stdout, flush=True)

    async def run(self) -> int:
        """Follow the table to the end of the game; returns the exit status."""
        follower = self.follower
        scored = False
        async for item in self.session.stream(from_start=True):
            for line in follower.feed(item):
                self.say(line)
            scored = scored or follower.scored
            if scored and follower.batch_ended and follower.view is not None:
                scored = False
                self.say(
                    t("cli.scores", scores="; ".join(self.entry.score_lines(follower.view, follower.names)))
                )
            if follower.batch_ended and follower.my_turn:
                try:
                    await self.ask()
                except InputEndedError:
                    self.say(t("cli.input_ended"))
                    return EXIT_INPUT_ENDED
        if self.session.handed_over:  # the stream ended there: the game goes on without this client
            self.say(t("cli.seat_handed_over"))
            return 0
        self.say()
        self.say(t("cli.final_standings"))
        for line in self.entry.standings_lines(follower.standings, follower.names):
            self.say(line)
        return 0

    async def read_line(self) -> str:
        line = await asyncio.get_running_loop().run_in_executor(None, self.stdin.readline)
        if not line:
            raise InputEndedError
        return line.strip()

    async def question(self, text: str) -> str | None:
        """Ask one more question (a joker's meaning); the answer."""
        self.say(text)
        return await self.read_line()

    async def ask(self) -> bool:
        """Ask for an action until one is accepted (True), or the table moved on (False)."""
        follower = self.follower
        view = follower.view
        actions = follower.legal_actions
        names = follower.names
        menu = self.entry.menu(actions, view, names)
        self.say()
        if view is not None:
            for line in self.entry.state_lines(view, names, follower.seat):
                self.say(line)
        turn = follower.turn
        left = turn.seconds_left() if turn is not None else None
        seconds = -1 if left is None else max(0, round(left))
        self.say(t("cli.plain_your_turn", left=seconds))
        self.show(menu)
        extra = self.entry.typing_help(view, actions)
        if extra:
            self.say(extra)
        while True:
            self.say(t("cli.your_choice", count=len(menu), words="yes" if extra else "no"))  # scripts read it
            text = await self.read_line()
            try:
                action = await self.parse(text, menu, actions)
            except ValueError as error:
                self.say(str(error))
                continue
            if action is None:
                continue  # a sheet shown, or a second question given up: ask again
            try:
                await self.session.submit(action)
            except ServerError as error:
                self.say(t("cli.rejected", why=error_words(error), code=error.rule or error.reason))
                if error.reason in RESYNC_REASONS:
                    return False
                continue
            self.say(t("cli.you_chose", action=self.entry.label(action, names)))
            return True

    def show(self, menu: Sequence[Choice[Any]]) -> None:
        for number, choice in enumerate(menu, 1):
            self.say(f"  {number}. {choice.label}")

    async def parse(self, text: str, menu: Sequence[Choice[Any]], actions: tuple[Any, ...]) -> Any:
        """The action ``text`` asks for; None to ask again; ValueError says what to type instead."""
        follower = self.follower
        if text.lower() in SHEET_WORDS:
            for line in sheet_lines(follower.sheet, follower.names):
                self.say(line)
            return None
        if text.isdigit() and 1 <= int(text) <= len(menu):
            return await self.follow_up(menu[int(text) - 1])
        typed = Typed(text, actions, follower.view, follower.names, self.question)
        action = await self.entry.read(typed)
        if action is not None:
            return action
        raise ValueError(t("cli.not_an_action", text=text, number="yes" if text.isdigit() else "no",
                           numbers=numbers(len(menu))))  # fmt: skip

    async def follow_up(self, choice: Choice[Any]) -> Any:
        """The action of a chosen line, asking its second question if it has one (0 goes back)."""
        if choice.action is not None:
            return choice.action
        self.say(t("cli.second_question", question=choice.question))
        self.show(choice.then)
        while True:
            text = await self.read_line()
            if text == "0":
                return None
            if text.isdigit() and 1 <= int(text) <= len(choice.then):
                return choice.then[int(text) - 1].action
            self.say(t("cli.not_one_of_them", text=text, numbers=numbers(len(choice.then))))
