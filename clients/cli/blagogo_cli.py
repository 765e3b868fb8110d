"""1000 Blagogo for the terminal client (:class:`~clients.cli.entry.CliGame`): its transcript, its score
sheet round by round, its actions offered, and melds composed by typing (B-22), which the Turn's list cannot
hold all of:

- ``m 3 5 7`` lays the hand's cards 3, 5 and 7 as a meld; ``m 1 2 3 | 4 5 6`` lays two at once (an opening
  must be laid in one go);
- ``a 4 3 5`` adds the hand's cards 3 and 5 to meld #4; ``a 4 high 3`` (or ``low``) names a run's end.

Melds are numbered from 1 as they are shown (the wire's meld 0 is #1), and so are the hand's cards; ``a 0``
is refused in words.

A joker's meaning is asked only when more than one fits (:mod:`clients.cli.blagogo_compose`).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Final

from clients.cli import blagogo_text as words
from clients.cli.blagogo_compose import addition_readings, choose_reading, new_meld_readings
from clients.cli.entry import Ask, Choice, CliGame, Names, SheetRow, Typed
from clients.cli.text import counted, typed_index
from clients.games import BLAGOGO
from clients.i18n import t
from engine.blagogo import actions as ba
from engine.blagogo import events as be
from engine.blagogo.cards import Card, Rank
from engine.blagogo.observer import View
from engine.blagogo.round import Phase

ENDS: Final = {"low": ba.End.LOW, "high": ba.End.HIGH, "l": ba.End.LOW, "h": ba.End.HIGH}
RULES_IN_WORDS: Final = tuple(f"blagogo.rules_{i}" for i in range(1, 6))
"""The rules in a few paragraphs for the help page: catalogue keys."""


class BlagogoTranscript:
    """Each event's lines as it comes (:func:`clients.cli.blagogo_text.event_lines`)."""

    def __init__(self, names: Names) -> None:
        self._names = names

    def add(self, event: be.Event) -> list[str]:
        return words.event_lines(event, self._names())

    def flush(self) -> list[str]:
        return []


class BlagogoSheet:
    """The score sheet round by round (RoundScored)."""

    def __init__(self, names: Names) -> None:
        self._names = names

    def see(self, event: be.Event, view: View | None) -> SheetRow | None:
        if not isinstance(event, be.RoundScored):
            return None
        names = self._names()
        winner = "" if event.winner is None else words.seat_name(names, event.winner)
        title = t("blagogo.sheet_title", winner=winner, kantrame="yes" if event.kantrame else "no")
        cells = tuple(str(total) for total in event.totals)
        return SheetRow(event.number, title, cells)


def menu(
    actions: tuple[ba.Action, ...], view: View | None, names: Sequence[str]
) -> tuple[Choice[ba.Action], ...]:
    return tuple(Choice(words.action_label(a, names), a) for a in actions)


def can_compose(view: View | None, actions: tuple[ba.Action, ...]) -> bool:
    return bool(actions) and view is not None and view.phase is Phase.PLAY


def typing_help(view: View | None, actions: tuple[ba.Action, ...]) -> str:
    return t("blagogo.compose_help") if can_compose(view, actions) else ""


async def read(typed: Typed[View, ba.Action]) -> ba.Action | None:
    """``m ...`` or ``a ...`` (see the module's docstring); None for other words."""
    items = typed.text.split()
    if not items or items[0].lower() not in ("m", "a") or not can_compose(typed.view, typed.actions):
        return None
    view = typed.view
    assert view is not None
    hand = words.sorted_hand(view.hand)
    if items[0].lower() == "m":
        specs = []
        for group in " ".join(items[1:]).split("|"):
            cards = hand_cards(group.split(), hand)
            meanings = await meld_meanings(cards, typed.ask)
            if meanings is None:
                raise ValueError(t("blagogo.nothing_laid"))
            specs.append(ba.MeldSpec(cards, meanings))
        return ba.LayMelds(tuple(specs))
    meld_id = typed_index(items[1], t("blagogo.no_meld_zero")) if len(items) >= 3 else None
    if meld_id is None:
        raise ValueError(t("blagogo.add_usage"))
    rest = items[2:]
    end = ENDS.get(rest[0].lower())
    if end is not None:
        rest = rest[1:]
    added = await addition(view, meld_id, hand_cards(rest, hand), end, typed.ask)
    if added is None:
        raise ValueError(t("blagogo.nothing_added"))
    return added


def hand_cards(numbers: list[str], hand: list[Card]) -> tuple[Card, ...]:
    """The hand's cards by their numbers (1-based, the hand sorted); ValueError says what is wrong."""
    if not numbers:
        raise ValueError(t("blagogo.name_cards"))
    cards: list[Card] = []
    for word in numbers:
        if not word.isdigit() or not 1 <= int(word) <= len(hand):
            raise ValueError(t("blagogo.not_in_hand", word=word, count=len(hand)))
        card = hand[int(word) - 1]
        if card in cards:
            raise ValueError(t("blagogo.named_twice", word=word, card=str(card)))
        cards.append(card)
    return tuple(cards)


async def meld_meanings(cards: tuple[Card, ...], ask: Ask) -> tuple[ba.Stands, ...] | None:
    """What the jokers among ``cards`` stand for in a new meld: worked out, or asked when several fit."""
    if not any(c.is_joker for c in cards):
        return ()
    return await choose_reading(cards, new_meld_readings(cards), ask)


async def addition(
    view: View, meld_id: int, cards: tuple[Card, ...], end: ba.End | None, ask: Ask
) -> ba.AddToMeld | None:
    """Adding ``cards`` to meld ``meld_id``: the run's end and the jokers' meanings worked out where only one
    fits, else asked; None when the player gives up. An unknown meld, or cards that fit nowhere, are sent
    as they are: the server says why."""
    meld = next((m for m in view.melds if m.id == meld_id), None)
    seat = view.viewer if view.viewer is not None else 0
    fits = addition_readings(meld, seat, cards, end) if meld is not None else []
    if not fits:
        return ba.AddToMeld(meld_id, cards, _placeholder(cards), end)
    ends = sorted({at for at, _ in fits}, key=lambda e: "" if e is None else e.value)
    if len(ends) > 1:
        answer = await ask(t("blagogo.which_end", id=counted(meld_id)))
        if answer is None:
            return None
        end = ENDS.get(answer.strip().lower())
        if end is None:
            raise ValueError(t("blagogo.not_an_end", text=answer.strip()))
    else:
        end = ends[0]
    readings = [r for at, r in fits if at == end]
    meanings = await choose_reading(cards, readings, ask) if readings else _placeholder(cards)
    return None if meanings is None else ba.AddToMeld(meld_id, cards, meanings, end)


def _placeholder(cards: tuple[Card, ...]) -> tuple[ba.Stands, ...]:
    """Meanings for jokers that fit nowhere: the server refuses the action with its reason."""
    return tuple(ba.Stands(Rank.ACE) for c in cards if c.is_joker)


BLAGOGO_CLI: Final[CliGame[View, ba.Action, be.Event]] = CliGame(
    game=BLAGOGO,
    transcript=BlagogoTranscript,
    scorer=BlagogoSheet,
    label=words.action_label,
    state_lines=words.state_lines,
    score_lines=lambda view, names: [words.scores_line(view, names)],
    standings_lines=words.standings_lines,
    menu=menu,
    read=read,
    typing_help=typing_help,
    default_bot="planner",
    rules_in_words=RULES_IN_WORDS,
    app="clients.cli.blagogo_tui:BlagogoApp",
)
