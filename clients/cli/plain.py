"""``--plain``: the line mode, for scripts and screen readers.

Every event is printed as a transcript line (:mod:`engine.transcript`). When it is the user's turn the table's
state is printed as text, then the legal actions, numbered; the user types one number and Enter. Anything else
is answered with what to type, and the question is asked again. At the end: "Final standings", one seat
a line.
"""

from __future__ import annotations

import asyncio
from typing import Final, TextIO

from clients.cli.follow import Follower
from clients.cli.text import action_label, score_lines, standings_lines, state_lines
from clients.errors import ServerError
from clients.session import TableSession
from engine import Action

RESYNC_REASONS: Final = frozenset({"STALE_SEQUENCE", "NOT_YOUR_TURN", "GAME_OVER", "GAME_NOT_STARTED"})
"""Refusals after which the question is not asked again: the table moved on; the stream brings the news."""

EXIT_INPUT_ENDED: Final = 3


class PlainClient:
    """The line mode over one session (a seat, or a spectator when the session has no seat)."""

    def __init__(self, session: TableSession, stdin: TextIO, stdout: TextIO) -> None:
        self.session = session
        self.stdin = stdin
        self.stdout = stdout
        self.follower = Follower(session.seat, session.table, session.deals.witness)

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
                self.say("Score sheet:")
                for line in score_lines(follower.view, follower.names):
                    self.say(f"  {line}")
            if follower.batch_ended and follower.my_turn:
                answered = await self.ask()
                if answered is None:
                    self.say("Input ended: leaving the game.")
                    return EXIT_INPUT_ENDED
        self.say()
        self.say("Final standings")
        for line in standings_lines(follower.standings, follower.names):
            self.say(line)
        return 0

    async def read_line(self) -> str:
        return await asyncio.get_running_loop().run_in_executor(None, self.stdin.readline)

    async def ask(self) -> bool | None:
        """Ask for an action until one is accepted, or the table moved on; None when the input ended."""
        follower = self.follower
        view = follower.view
        actions: tuple[Action, ...] = follower.legal_actions
        names = follower.names
        self.say()
        if view is not None:
            for line in state_lines(view, names, follower.seat):
                self.say(line)
        turn = follower.turn
        left = turn.seconds_left() if turn is not None else None
        clock = "" if left is None else f" ({max(0, round(left))} seconds left)"
        self.say(f"Your turn{clock}. Choose an action (type its number, then Enter):")
        for number, action in enumerate(actions, 1):
            self.say(f"  {number}. {action_label(action, names)}")
        while True:
            self.say(f"Your choice (1-{len(actions)}):")
            line = await self.read_line()
            if not line:
                return None
            text = line.strip()
            if not text.isdigit() or not 1 <= int(text) <= len(actions):
                self.say(f"{text!r} is not one of the actions: type a number from 1 to {len(actions)}.")
                continue
            action = actions[int(text) - 1]
            try:
                await self.session.submit(action)
            except ServerError as error:
                self.say(f"Rejected: {error.message}")
                if error.reason in RESYNC_REASONS:
                    return False
                continue
            self.say(f"You chose: {action_label(action, names)}")
            return True
