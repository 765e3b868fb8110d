"""``--plain`` at a 1000 Blagogo table: the line mode, for scripts and screen readers.

Every event is printed as a line (:mod:`clients.cli.blagogo_text`). When it is the user's turn the table is
printed as text (the bridge in order with positions, every meld with its owner and what its jokers stand for,
the hand sorted and numbered), then the Turn's actions, numbered: the simple actions and the melds the server
proposes. The user types a number, or composes an action the list may not hold (B-22):

- ``m 3 5 7`` lays the hand's cards 3, 5 and 7 as a meld; ``m 1 2 3 | 4 5 6`` lays two at once (an opening
  must be laid in one go). For each joker the client asks what it stands for: ``Q`` in a set, ``K♥`` in a run.
- ``a 4 3 5`` adds the hand's cards 3 and 5 to meld #4; ``a 4 high 3`` (or ``low``) names a run's end.

A refused action is explained in words (and its rule), and the question is asked again.
"""

from __future__ import annotations

import asyncio
from typing import Final, TextIO

from clients.cli.blagogo_text import (
    action_label,
    event_lines,
    numbered_hand,
    parse_stands,
    seat_name,
    sorted_hand,
    standings_lines,
    state_lines,
)
from clients.cli.follow import display_names
from clients.errors import ServerError
from clients.fairness import checker_for, deals_label
from clients.messages import (
    ConnectionLost,
    EventMessage,
    Reconnected,
    SeatReleased,
    SeatTaken,
    Snapshot,
    TableEvent,
    TableNotice,
    Turn,
)
from clients.session import TableSession
from engine.blagogo import actions as ba
from engine.blagogo import events as be
from engine.blagogo.cards import Card
from engine.blagogo.observer import View

RESYNC_REASONS: Final = frozenset({"STALE_SEQUENCE", "NOT_YOUR_TURN", "GAME_OVER", "GAME_NOT_STARTED"})
"""Refusals after which the question is not asked again: the table moved on; the stream brings the news."""
EXIT_INPUT_ENDED: Final = 3
HELP: Final = (
    "Or compose: m 3 5 7 lays your cards 3, 5, 7 as a meld (m 1 2 3 | 4 5 6 lays two); "
    "a ID [low|high] 3 5 adds your cards 3, 5 to meld #ID."
)
_ENDS: Final = {"low": ba.End.LOW, "high": ba.End.HIGH, "l": ba.End.LOW, "h": ba.End.HIGH}


class InputEndedError(Exception):
    """Standard input ended while a question was asked."""


class BlagogoPlainClient:
    """The line mode over one session at a 1000 Blagogo table (a seat, or a spectator)."""

    def __init__(self, session: TableSession, stdin: TextIO, stdout: TextIO) -> None:
        self.session = session
        self.stdin = stdin
        self.stdout = stdout
        self.seat = session.seat
        self.names: list[str] = display_names(session.table) if session.table is not None else []
        self.standings: tuple[be.Standing, ...] = ()
        self.deals = checker_for(session.table, session.deals.witness)
        """Checks every round revealed, and a fair table's secret at the end (engine.verify)."""

    def say(self, line: str = "") -> None:
        print(line, file=self.stdout, flush=True)

    async def run(self) -> int:
        """Follow the table to the end of the game; returns the exit status."""
        if self.session.table is not None:
            self.say(f"({deals_label(self.session.table)})")
        async for item in self.session.stream(from_start=True):
            turn: Turn[View, ba.Action] | None = None
            match item:
                case Snapshot(sequence, table, view, snapshot_turn):
                    self.names = display_names(table)
                    self.say(f"(joined the table at event {sequence})")
                    if view is not None and view.standings:
                        self.standings = view.standings
                    turn = snapshot_turn
                case EventMessage(sequence, event, event_turn):
                    self._event(event, sequence)
                    turn = event_turn
                case ConnectionLost(error, attempt, retry_in):
                    self.say(
                        f"(connection lost: {error.message}; "
                        f"reconnecting in {retry_in:.1f} s, attempt {attempt})"
                    )
                case Reconnected(after):
                    self.say(f"(reconnected; resuming after event {after})")
            if turn is not None and self.seat is not None and turn.seat == self.seat and turn.legal_actions:
                try:
                    await self.ask(turn)
                except InputEndedError:
                    self.say("Input ended: leaving the game.")
                    return EXIT_INPUT_ENDED
        self.say()
        self.say("Final standings")
        for line in standings_lines(self.standings, self.names):
            self.say(line)
        return 0

    def _event(self, event: TableEvent[be.Event], sequence: int) -> None:
        match event:
            case SeatTaken(seat, player_name, bot):
                self.deals.seat_taken(seat, sequence)
                self._rename(
                    seat, f"seat {seat} ({player_name} bot)" if bot else f"{player_name} (seat {seat})"
                )
                self.say(
                    f"{seat_name(self.names, seat)} takes seat {seat} ({'a bot' if bot else 'a player'})"
                )
            case SeatReleased(seat):
                self._rename(seat, f"seat {seat}")
                self.say(f"seat {seat} is free again")
            case TableNotice(text=text):
                self.say(text)
            case _:
                if isinstance(event, be.GameOver):
                    self.standings = event.standings
                for line in event_lines(event, self.names):
                    self.say(line)
                verdict = self.deals.see(event, sequence)
                if verdict is not None:
                    self.say(verdict)

    def _rename(self, seat: int, name: str) -> None:
        while len(self.names) <= seat:
            self.names.append(f"seat {len(self.names)}")
        self.names[seat] = name

    async def read_line(self) -> str:
        line = await asyncio.get_running_loop().run_in_executor(None, self.stdin.readline)
        if not line:
            raise InputEndedError
        return line.strip()

    async def ask(self, turn: Turn[View, ba.Action]) -> bool:
        """Ask for an action until one is accepted (True), or the table moved on (False)."""
        view = turn.view
        actions = turn.legal_actions
        hand = sorted_hand(view.hand) if view is not None else []
        self.say()
        if view is not None:
            for line in state_lines(view, self.names, self.seat):
                self.say(line)
        left = turn.seconds_left()
        clock = "" if left is None else f" ({max(0, round(left))} seconds left)"
        self.say(f"Your turn{clock}. Choose an action (type its number, then Enter):")
        for number, action in enumerate(actions, 1):
            self.say(f"  {number}. {action_label(action, self.names)}")
        can_meld = view is not None and view.phase is not None and view.phase.value == "play"
        if can_meld:
            self.say(HELP)
        while True:
            extra = ", or m ... / a ..." if can_meld else ""
            self.say(f"Your choice (1-{len(actions)}{extra}):")
            text = await self.read_line()
            try:
                action = await self._parse(text, actions, hand, can_meld)
            except ValueError as error:
                self.say(str(error))
                continue
            try:
                await self.session.submit(action)
            except ServerError as error:
                rule = f" [{error.rule}]" if error.rule else f" [{error.reason}]" if error.reason else ""
                self.say(f"Rejected: {error.message}{rule}")
                if error.reason in RESYNC_REASONS:
                    return False
                if can_meld:
                    self.say(f"Your hand: {numbered_hand(hand)}")
                continue
            self.say(f"You chose: {action_label(action, self.names)}")
            return True

    async def _parse(
        self, text: str, actions: tuple[ba.Action, ...], hand: list[Card], can_meld: bool
    ) -> ba.Action:
        """The action ``text`` asks for; ValueError says what to type instead."""
        if text.isdigit() and 1 <= int(text) <= len(actions):
            return actions[int(text) - 1]
        words = text.split()
        if can_meld and words and words[0].lower() == "m":
            specs = []
            for group in " ".join(words[1:]).split("|"):
                cards = self._cards(group.split(), hand)
                specs.append(ba.MeldSpec(cards, await self._meanings(cards)))
            return ba.LayMelds(tuple(specs))
        if can_meld and words and words[0].lower() == "a":
            if len(words) < 3 or not words[1].lstrip("#").isdigit():
                raise ValueError(
                    "To add to a meld type: a ID [low|high] then your cards' numbers, e.g. a 4 high 3"
                )
            meld_id = int(words[1].lstrip("#"))
            rest = words[2:]
            end = _ENDS.get(rest[0].lower())
            if end is not None:
                rest = rest[1:]
            cards = self._cards(rest, hand)
            return ba.AddToMeld(meld_id, cards, await self._meanings(cards), end)
        compose = ", or compose with m or a (see above)" if can_meld else ""
        raise ValueError(
            f"{text!r} is not one of the actions: type a number from 1 to {len(actions)}{compose}."
        )

    @staticmethod
    def _cards(numbers: list[str], hand: list[Card]) -> tuple[Card, ...]:
        if not numbers:
            raise ValueError("Name the cards by their numbers in your hand, e.g. m 3 5 7.")
        cards = []
        for word in numbers:
            if not word.isdigit() or not 1 <= int(word) <= len(hand):
                raise ValueError(f"{word!r} is not a card of your hand: use the numbers 1 to {len(hand)}.")
            card = hand[int(word) - 1]
            if card in cards:
                raise ValueError(f"card {word} ({card}) is named twice.")
            cards.append(card)
        return tuple(cards)

    async def _meanings(self, cards: tuple[Card, ...]) -> tuple[ba.Stands, ...]:
        """Ask what each joker among ``cards`` stands for, in order."""
        meanings = []
        for card in cards:
            if not card.is_joker:
                continue
            while True:
                self.say(
                    f"What does {card} stand for? "
                    "(a rank like Q in a set, a rank and suit like K♥ or KH in a run):"
                )
                try:
                    meanings.append(parse_stands(await self.read_line()))
                    break
                except ValueError as error:
                    self.say(str(error))
        return tuple(meanings)
