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
from clients.cli.thousand_events import mark_words, render_lines
from clients.games import THOUSAND
from clients.i18n import t
from engine import Action, DealKind, Phase, View
from engine import actions as ea
from engine.cards import Card
from engine.events import (
    DealScored,
    DealStarted,
    Event,
    GameOver,
    GameStarted,
    Mark,
    SheetMarked,
    TrickTaken,
)

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
_PASS_WORDS: Final = frozenset({"p", "pass"})


def sheet_legend() -> str:
    """``• bolt  ▲ onto the barrel  ▼ off the barrel  0 back to 0``."""
    return t("cli.sheet_legend")


def pass_words() -> frozenset[str]:
    """What may be typed to pass: ``p``, ``pass`` and the player's language's word (its first letter too)."""
    word = t("action.thousand.pass").lower()
    return _PASS_WORDS | {word, word[:1]}


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
    dealer = text.seat_name(names, event.first_dealer)
    return t(
        "event.thousand.game_started", players=event.rules.players, dealer=dealer, changed="; ".join(changed)
    )


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
    kind = "" if event.kind is DealKind.NORMAL else text.deal_kind_words(event.kind)
    outcome = event.outcome.value
    doubled = "yes" if event.doubled else "no"
    title = t("cli.sheet_title", name=declarer, kind=kind, contract=event.contract, outcome=outcome)
    summary = [
        t(
            "cli.deal_summary",
            number=event.number,
            name=declarer,
            kind=kind,
            contract=event.contract,
            outcome=outcome,
            taken=event.deal_points[event.declarer],
            doubled=doubled,
        )
    ]
    cells = []
    for seat, (delta, total) in enumerate(zip(event.deltas, event.totals, strict=True)):
        own = [m for m in marks if m.seat == seat]
        words = [t("cli.mark_points", mark=mark_words(m.mark), points=m.points) for m in own]
        summary.append(
            t(
                "cli.deal_summary_seat",
                name=text.seat_name(names, seat),
                delta=delta,
                total=total,
                marks=", ".join(words),
            )
        )
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
    return tuple(
        _gift(line, gifts[line], names)
        if isinstance(line, Card)
        else Choice(text.action_label(line, names), line)
        for line in lines
    )


def _gift(card: Card, gifts: list[Action], names: Sequence[str]) -> Choice[Action]:
    """A card to give: who gets it is asked, unless only one may."""
    if len(gifts) == 1:
        return Choice(text.action_label(gifts[0], names), gifts[0])
    then: tuple[Choice[Action], ...] = tuple(Choice(_recipient(a, names), a) for a in gifts)
    return Choice(
        t("cli.give_card_menu", card=str(card)), then=then, question=t("cli.who_gets", card=str(card))
    )


def _recipient(action: Action, names: Sequence[str]) -> str:
    if isinstance(action, ea.GiveCard):
        return t("cli.give_to", name=text.seat_name(names, action.to))
    return t("cli.give_to_talon")


async def read(typed: Typed[View, Action]) -> Action | None:
    """A bid typed as its amount, ``p`` to pass, or a card typed by name; None for other words."""
    words = typed.text.strip().lower().removeprefix("bid").strip()
    actions = typed.actions
    if words in pass_words() and ea.Pass() in actions:
        return ea.Pass()
    if words.isdigit():
        value = int(words)
        bids = sorted(a.value for a in actions if isinstance(a, ea.Bid))
        if ea.Bid(value) in actions:
            return ea.Bid(value)
        if bids:
            raise ValueError(t("cli.no_such_bid", value=value, low=bids[0], high=bids[-1]))
        contracts = sorted(a.value for a in actions if isinstance(a, ea.NameContract))
        if ea.NameContract(value) in actions:
            return ea.NameContract(value)
        if contracts:
            raise ValueError(t("cli.no_such_contract", value=value, low=contracts[0], high=contracts[-1]))
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
    raise ValueError(t("cli.card_not_now", card=str(card), why=why_not(card, view)))


def why_not(card: Card, view: View | None) -> str:
    """Why a card of the hand is not among the actions, in the words of the rule (T-18 and its variants)."""
    if view is None or card not in view.hand:
        return t("cli.why_not_in_hand")
    if view.phase is not Phase.PLAY:
        return t("cli.why_no_play")
    if not view.trick:
        return t("cli.why_not_your_lead")  # a card of one's own lead is always legal
    lead = view.trick[0][1].suit
    follows = [c for c in view.hand if c.suit == lead]
    if follows:
        if card.suit == lead:
            return t("cli.why_must_beat", suit=lead.symbol)
        return t("cli.why_must_follow", suit=lead.symbol)
    trump = view.trump
    if trump is not None and any(c.suit == trump for c in view.hand):
        if card.suit == trump:
            return t("cli.why_overtrump", suit=trump.symbol)
        return t("cli.why_must_trump", suit=lead.symbol, trump=trump.symbol)
    return t("cli.why_rules")


def typing_help(view: View | None, actions: tuple[Action, ...]) -> str:
    if any(isinstance(a, ea.Bid) for a in actions):
        return t("cli.typing_bid")
    if any(isinstance(a, ea.NameContract) for a in actions):
        return t("cli.typing_contract")
    if any(isinstance(a, ea.PlayCard) for a in actions):
        return t("cli.typing_card")
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
    default_bot="ismcts",
    app="clients.cli.tui:ThousandApp",
)
