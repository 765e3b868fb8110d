"""Thousand for the terminal client (:class:`~clients.cli.entry.CliGame`): its transcript, its score sheet
deal by deal (the пуля), its actions offered and typed.

- The transcript is :mod:`engine.transcript`'s, rendered a deal's auction, or a trick, at a time (a line can
  depend on what came before it in the trick: a marriage declared with the card that follows).
- The score sheet gets a row per deal: who played what, made or failed, each seat's points and marks.
- The exchange is offered a card at a time, then who gets it; a bid may be typed as its amount (``120``,
  never read as the 120th line), ``p`` passes, and a card may be typed (``K♥``, ``kh``); a card that cannot
  be played says why (T-18).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Final

from clients.cli import text
from clients.cli.entry import Choice, CliGame, Names, SheetRow, Typed
from clients.cli.rules_text import changed_words
from clients.games import THOUSAND
from engine import Action, Phase, View
from engine import actions as ea
from engine.cards import Card
from engine.events import (
    DealScored,
    DealStarted,
    Event,
    GameOver,
    GameStarted,
    Mark,
    Outcome,
    SheetMarked,
    TrickTaken,
)
from engine.transcript import render_lines

MARK_WORDS: Final = {
    Mark.BOLT: "a bolt",
    Mark.BOLT_PENALTY: "third bolt",
    Mark.BARREL_ON: "onto the barrel",
    Mark.BARREL_FALL: "falls off the barrel",
    Mark.BARREL_BOTH_FALL: "both fall off the barrel",
    Mark.BARREL_BUMPED: "bumped off the barrel",
    Mark.BARREL_TIMEOUT: "barrel deals used up: falls off",
    Mark.THIRD_FALL_RESET: "third fall: back to 0",
    Mark.OBLIGATORY_FAILED: "obligatory game failed: back to 0",
    Mark.SAMOSVAL: "555: back to 0 (samosval)",
}
MARK_GLYPHS: Final = {
    Mark.BOLT: "•",
    Mark.BOLT_PENALTY: "•!",
    Mark.BARREL_ON: "▲",
    Mark.BARREL_FALL: "▼",
    Mark.BARREL_BOTH_FALL: "▼",
    Mark.BARREL_BUMPED: "▼",
    Mark.BARREL_TIMEOUT: "▼",
    Mark.THIRD_FALL_RESET: "0",
    Mark.OBLIGATORY_FAILED: "0",
    Mark.SAMOSVAL: "0",
}
SHEET_LEGEND: Final = "• bolt  ▲ onto the barrel  ▼ off the barrel  0 back to 0"
_OUTCOME_WORDS: Final = {Outcome.MADE: "made", Outcome.FAILED: "failed", Outcome.CONCEDED: "conceded"}
_PASS_WORDS: Final = frozenset({"p", "pass"})


class ThousandTranscript:
    """:func:`engine.transcript.render_lines` over the segment since the last deal header or trick, so each
    line is rendered with its context once the segment is complete (or at the end of a batch)."""

    def __init__(self, names: Names) -> None:
        self._names = names
        self._segment: list[Event] = []
        self._said = 0

    def add(self, event: Event) -> list[str]:
        out: list[str] = []
        if isinstance(event, GameStarted | DealStarted):
            out = self.flush()
            self._segment, self._said = [], 0
        self._segment.append(event)
        if isinstance(event, TrickTaken | DealScored | GameOver):
            out += self.flush()
            self._segment, self._said = [], 0  # a trick's context ends with it
        return out

    def flush(self) -> list[str]:
        if not self._segment:
            return []
        names = list(self._names())
        lines = render_lines(self._segment, names)
        if isinstance(self._segment[0], GameStarted):
            lines[0] = game_started(self._segment[0], names)
        new = lines[self._said :]
        self._said = len(lines)
        return new


def game_started(event: GameStarted, names: Sequence[str]) -> str:
    """The game's first line, its changed rules in words (:func:`clients.cli.rules_text.changed_words`)."""
    changed = changed_words(event.rules)
    variants = "the default rules" if not changed else "rules changed: " + "; ".join(changed)
    dealer = text.seat_name(names, event.first_dealer)
    return f"Game of Thousand — {event.rules.players} players — first dealer: {dealer} — {variants}"


class ThousandSheet:
    """The score sheet deal by deal, from DealScored and the marks written before it."""

    def __init__(self, names: Names) -> None:
        self._names = names
        self._marks: list[SheetMarked] = []

    def see(self, event: Event, view: View | None) -> SheetRow | None:
        if isinstance(event, SheetMarked):
            self._marks.append(event)
            return None
        if not isinstance(event, DealScored):
            return None
        marks, self._marks = self._marks, []
        return deal_row(event, marks, self._names())


def deal_row(event: DealScored, marks: Sequence[SheetMarked], names: Sequence[str]) -> SheetRow:
    """A scored deal as a row of the sheet, with its summary in words."""
    declarer = text.seat_name(names, event.declarer)
    taken = event.deal_points[event.declarer]
    outcome = _OUTCOME_WORDS[event.outcome]
    kind = "" if event.kind.value == "normal" else f" {event.kind.value}"
    doubled = ", doubled" if event.doubled else ""
    how = f" ({taken} taken{doubled})" if event.outcome is not Outcome.CONCEDED else f" (rospis{doubled})"
    title = f"{declarer}{kind} {event.contract}: {outcome}"
    summary = [f"Deal {event.number}: {declarer} played{kind} {event.contract} and {outcome}{how}."]
    cells = []
    for seat, (delta, total) in enumerate(zip(event.deltas, event.totals, strict=True)):
        own = [m for m in marks if m.seat == seat]
        words = [MARK_WORDS[m.mark] + (f" {m.points:+d}" if m.points else "") for m in own]
        extra = f" ({', '.join(words)})" if words else ""
        summary.append(f"  {text.seat_name(names, seat)}: {delta:+d}, {total} in all{extra}")
        glyphs = "".join(MARK_GLYPHS[m.mark] for m in own)
        cells.append(f"{total}{' ' + glyphs if glyphs else ''}")
    return SheetRow(event.number, title, tuple(cells), tuple(summary))


def menu(actions: tuple[Action, ...], view: View | None, names: Sequence[str]) -> tuple[Choice[Action], ...]:
    """The Turn's actions, in its order; in the exchange, one line per card, then who gets it."""
    gifts: dict[Card, list[Action]] = {}
    lines: list[Card | Action] = []
    for action in actions:
        if isinstance(action, ea.GiveCard | ea.DiscardCard):
            if action.card not in gifts:
                gifts[action.card] = []
                lines.append(action.card)
            gifts[action.card].append(action)
        else:
            lines.append(action)
    return tuple(_gift(line, gifts[line], names) if isinstance(line, Card) else
                 Choice(text.action_label(line, names), line) for line in lines)  # fmt: skip


def _gift(card: Card, gifts: list[Action], names: Sequence[str]) -> Choice[Action]:
    """A card to give: who gets it is asked, unless only one may."""
    if len(gifts) == 1:
        return Choice(text.action_label(gifts[0], names), gifts[0])
    then: tuple[Choice[Action], ...] = tuple(Choice(_recipient(a, names), a) for a in gifts)
    return Choice(f"give {card} …", then=then, question=f"Who gets {card}?")


def _recipient(action: Action, names: Sequence[str]) -> str:
    if isinstance(action, ea.GiveCard):
        return f"to {text.seat_name(names, action.to)}"
    return "into the other talon"


async def read(typed: Typed[View, Action]) -> Action | None:
    """A bid typed as its amount, ``p`` to pass, or a card typed by name; None for other words."""
    words = typed.text.strip().lower().removeprefix("bid").strip()
    actions = typed.actions
    if words in _PASS_WORDS and ea.Pass() in actions:
        return ea.Pass()
    if words.isdigit():
        value = int(words)
        bids = sorted(a.value for a in actions if isinstance(a, ea.Bid))
        if ea.Bid(value) in actions:
            return ea.Bid(value)
        if bids:
            raise ValueError(f"There is no bid of {value} now: bids go from {bids[0]} to {bids[-1]}.")
        contracts = sorted(a.value for a in actions if isinstance(a, ea.NameContract))
        if ea.NameContract(value) in actions:
            return ea.NameContract(value)
        if contracts:
            raise ValueError(f"The contract can be {contracts[0]} to {contracts[-1]}, not {value}.")
        return None
    try:
        card = Card.parse(typed.text)
    except ValueError:
        return None
    return card_action(card, actions, typed.view)


def card_action(card: Card, actions: tuple[Action, ...], view: View | None) -> Action | None:
    """The one action that plays (or gives) ``card``; None when there are several (a marriage or not, who
    gets it): the player picks among them. ValueError says why the card cannot be chosen."""
    matching = [a for a in actions if text.action_card(a) == card]
    if len(matching) == 1:
        return matching[0]
    if matching:
        return None
    raise ValueError(f"{card} cannot be played now: {why_not(card, view)}")


def why_not(card: Card, view: View | None) -> str:
    """Why a card of the hand is not among the actions, in the words of the rule (T-18 and its variants)."""
    if view is None or card not in view.hand:
        return "it is not in your hand"
    if view.phase is not Phase.PLAY:
        return "no card is played now"
    if not view.trick:
        return "it is not your lead"  # a card of one's own lead is always legal
    lead = view.trick[0][1].suit
    follows = [c for c in view.hand if c.suit == lead]
    if follows:
        if card.suit == lead:
            return f"you must beat the trick with a higher {lead.symbol} (must beat, T-18)"
        return f"you must follow {lead.symbol} (T-18)"
    trump = view.trump
    if trump is not None and any(c.suit == trump for c in view.hand):
        if card.suit == trump:
            return f"you must overtrump with a higher {trump.symbol} (must beat, T-18)"
        return f"you cannot follow {lead.symbol}, so you must play a trump {trump.symbol} (T-18)"
    return "the rules do not allow it now"


def typing_help(view: View | None, actions: tuple[Action, ...]) -> str:
    if any(isinstance(a, ea.Bid) for a in actions):
        return "Or type a bid's amount (e.g. 120), or p to pass."
    if any(isinstance(a, ea.NameContract) for a in actions):
        return "Or type the contract's amount."
    if any(isinstance(a, ea.PlayCard) for a in actions):
        return "Or type a card (K♥ or kh)."
    return ""


THOUSAND_CLI: Final[CliGame[View, Action, Event]] = CliGame(
    game=THOUSAND,
    transcript=ThousandTranscript,
    scorer=ThousandSheet,
    label=text.action_label,
    state_lines=text.state_lines,
    score_lines=text.score_lines,
    standings_lines=text.standings_lines,
    menu=menu,
    read=read,
    typing_help=typing_help,
    default_bot="greedy",
    app="clients.cli.tui:ThousandApp",
)
