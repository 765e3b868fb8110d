"""Readable English transcripts of engine events, for logs, golden tests and code review.

:func:`render` turns a sequence of events (:mod:`engine.events`) into text, one line per event, with cards
written as ``10♥``. The one exception to "one line per event": a :class:`MarriageDeclared` is folded into the
:class:`CardPlayed` that follows it, so a declaration reads "seat 2 leads K♥ declaring the ♥ marriage
(100)".

Seat-filtered events (:func:`engine.observer.events_for`) render too: a hidden card is written as "a card",
a hidden hand or face-down talon without its cards. The module is pure: no I/O, no global state.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Final, assert_never

from engine.actions import RedealReason
from engine.cards import Card
from engine.events import (
    AuctionWon,
    BidMade,
    CardGiven,
    CardPlayed,
    Conceded,
    ContractNamed,
    DarkDeclared,
    DarkDeclined,
    DealKind,
    DealRevealed,
    DealScored,
    DealStarted,
    DeckShuffled,
    Event,
    GameOver,
    GameStarted,
    HandDealt,
    LastTalonTaken,
    Mark,
    MarriageDeclared,
    Outcome,
    Passed,
    RedealDemanded,
    SheetMarked,
    TalonChosen,
    TalonTaken,
    TrickTaken,
)
from engine.rules import Rules

_InDealEvent = (
    DeckShuffled
    | HandDealt
    | DarkDeclared
    | DarkDeclined
    | BidMade
    | Passed
    | AuctionWon
    | RedealDemanded
    | TalonChosen
    | TalonTaken
    | CardGiven
    | ContractNamed
    | Conceded
    | MarriageDeclared
    | CardPlayed
    | TrickTaken
    | LastTalonTaken
    | DealRevealed
    | DealScored
    | SheetMarked
)
"""Every event but the game's and the deal's header lines."""

INDENT: Final = "  "
"""Lines inside a deal are indented under the deal's header line."""

_REDEAL_REASONS: Final = {
    RedealReason.FOUR_NINES: "four nines",
    RedealReason.WEAK_TALON: "weak talon",
    RedealReason.WEAK_HAND: "weak hand",
}

_OUTCOMES: Final = {
    Outcome.MADE: "made",
    Outcome.FAILED: "failed",
    Outcome.CONCEDED: "conceded",
}

_MARKS: Final = {
    Mark.BOLT: "gets a bolt",
    Mark.BOLT_PENALTY: "takes a third bolt",
    Mark.BARREL_ON: "climbs onto the barrel",
    Mark.BARREL_FALL: "falls off the barrel with a failed contract",
    Mark.BARREL_BOTH_FALL: "falls off the barrel: climbed in the same deal as another player",
    Mark.BARREL_BUMPED: "is bumped off the barrel by a newcomer",
    Mark.BARREL_TIMEOUT: "falls off the barrel: three deals without winning",
    Mark.THIRD_FALL_RESET: "falls off the barrel for the third time: score reset to 0",
    Mark.OBLIGATORY_FAILED: "fails the obligatory game: score reset to 0",
    Mark.SAMOSVAL: "scores exactly 555: samosval, score reset to 0",
}


def render(events: Iterable[Event], names: Sequence[str] | None = None) -> str:
    """The events as text, one line per event (see the module docstring), without a final newline.

    ``names`` optionally names the seats by seat number; by default a seat is written "seat 2".
    """
    return "\n".join(render_lines(events, names))


def render_lines(events: Iterable[Event], names: Sequence[str] | None = None) -> list[str]:
    """The lines of :func:`render`."""
    return _Renderer(names).lines(events)


def format_cards(cards: Iterable[Card]) -> str:
    return " ".join(str(c) for c in cards)


def signed(points: int) -> str:
    """``+95``, ``-120``, ``+0``."""
    return f"{points:+d}"


class _Renderer:
    """Keeps the little context some lines need: the position in the trick, a pending marriage, dark."""

    def __init__(self, names: Sequence[str] | None) -> None:
        self.names = names
        self.cards_in_trick = 0
        self.dark_seat: int | None = None

    def seat(self, seat: int) -> str:
        if self.names is not None and 0 <= seat < len(self.names):
            return self.names[seat]
        return f"seat {seat}"

    def lines(self, events: Iterable[Event]) -> list[str]:
        out: list[str] = []
        pending: MarriageDeclared | None = None
        for event in events:
            if pending is not None:
                if isinstance(event, CardPlayed) and event.seat == pending.seat:
                    out.append(INDENT + self.card_played(event, pending))
                    pending = None
                    continue
                out.append(INDENT + self.marriage(pending))
                pending = None
            if isinstance(event, MarriageDeclared):
                pending = event
                continue
            out.append(self.line(event))
        if pending is not None:
            out.append(INDENT + self.marriage(pending))
        return out

    # ------------------------------------------------------------------ one event

    def line(self, event: Event) -> str:
        """The line of one event (a :class:`MarriageDeclared` on its own, when no card follows it)."""
        match event:
            case GameStarted():
                return self.game_started(event)
            case DealStarted():
                return self.deal_started(event)
            case GameOver():
                return self.game_over(event)
            case _:
                return INDENT + self.in_deal(event)

    def in_deal(self, event: _InDealEvent) -> str:
        who = self.seat
        match event:
            case DeckShuffled():
                return "the deck is shuffled"
            case HandDealt(seat, count, cards):
                dealt = f"{who(seat)} is dealt {count} cards"
                return dealt if cards is None else f"{dealt}: {format_cards(cards)}"
            case DarkDeclared(seat):
                self.dark_seat = seat
                return f"{who(seat)} declares dark: 120 without looking at the cards"
            case DarkDeclined(seat):
                return f"{who(seat)} declines to play dark and looks at the cards"
            case BidMade(seat, value, forced):
                if not forced:
                    return f"{who(seat)} bids {value}"
                why = "dark" if seat == self.dark_seat else "forced"
                return f"{who(seat)} bids {value} ({why})"
            case Passed(seat):
                return f"{who(seat)} passes"
            case AuctionWon(seat, bid):
                return f"{who(seat)} wins the auction at {bid}"
            case RedealDemanded(seat, reason):
                return f"{who(seat)} demands a redeal: {_REDEAL_REASONS[reason]}"
            case TalonChosen(seat, index):
                return f"{who(seat)} chooses talon {index}"
            case TalonTaken(seat, face_up, cards):
                how = "face up" if face_up else "face down"
                taken = f"{who(seat)} takes the talon {how}"
                return taken if cards is None else f"{taken}: {format_cards(cards)}"
            case CardGiven(seat, to, card):
                shown = "a card" if card is None else str(card)
                if to is None:
                    return f"{who(seat)} puts {shown} into the other talon"
                return f"{who(seat)} gives {shown} to {who(to)}"
            case ContractNamed(seat, value):
                return f"{who(seat)} names the contract: {value}"
            case Conceded(seat, contract):
                return f"{who(seat)} concedes (rospis) at {contract}"
            case MarriageDeclared():
                return self.marriage(event)
            case CardPlayed():
                return self.card_played(event, None)
            case TrickTaken(seat, number, _cards, points):
                self.cards_in_trick = 0
                return f"trick {number} to {who(seat)} ({points} points)"
            case LastTalonTaken(seat, cards, points):
                return f"{who(seat)} takes the other talon: {format_cards(cards)} ({points} points)"
            case DealRevealed():
                return self.revealed(event)
            case DealScored():
                return self.scored(event)
            case SheetMarked(seat, mark, points):
                text = f"{who(seat)} {_MARKS[mark]}"
                return text if mark is Mark.BOLT and points == 0 else f"{text} ({signed(points)})"
            case _:
                assert_never(event)

    # ------------------------------------------------------------------ the longer lines

    def game_started(self, event: GameStarted) -> str:
        rules = event.rules
        defaults = Rules(players=rules.players)
        changed = [
            line.removesuffix("  (changed)")
            for line, default in zip(rules.describe(), defaults.describe(), strict=True)
            if line != default and line.endswith("(changed)")
        ]
        variants = "default rules" if not changed else "rules changed: " + ", ".join(changed)
        return (
            f"Game of Thousand — {rules.players} players — first dealer: {self.seat(event.first_dealer)}"
            f" — {variants}"
        )

    def deal_started(self, event: DealStarted) -> str:
        self.cards_in_trick = 0
        self.dark_seat = None
        parts = [f"Deal {event.number}", f"dealer: {self.seat(event.dealer)}", event.kind.value]
        if event.declarer is not None:
            parts.append(f"declarer: {self.seat(event.declarer)}")
        if event.dealer not in event.active:
            parts.append(f"{self.seat(event.dealer)} sits out")
        return " — ".join(parts)

    def marriage(self, event: MarriageDeclared) -> str:
        return f"{self.seat(event.seat)} declares the {event.suit.symbol} marriage ({event.points})"

    def card_played(self, event: CardPlayed, marriage: MarriageDeclared | None) -> str:
        verb = "leads" if self.cards_in_trick == 0 else "plays"
        self.cards_in_trick += 1
        text = f"{self.seat(event.seat)} {verb} {event.card}"
        if marriage is not None:
            text += f" declaring the {marriage.suit.symbol} marriage ({marriage.points})"
        return text

    def revealed(self, event: DealRevealed) -> str:
        parts = [f"{self.seat(s)}: {format_cards(hand)}" for s, hand in enumerate(event.hands) if hand]
        if len(event.talons) == 1:
            parts.append(f"talon: {format_cards(event.talons[0])}")
        else:
            parts += [f"talon {i}: {format_cards(t)}" for i, t in enumerate(event.talons)]
        return f"deal {event.number} revealed — " + "; ".join(parts)

    def scored(self, event: DealScored) -> str:
        kind = "" if event.kind is DealKind.NORMAL else f" ({event.kind.value})"
        result = f"{self.seat(event.declarer)} {_OUTCOMES[event.outcome]} {event.contract}"
        if event.doubled:
            result += " (doubled)"
        parts = [f"deal {event.number}{kind} scored: {result}"]
        if event.outcome is not Outcome.CONCEDED:
            points = ", ".join(f"{self.seat(s)} {p}" for s, p in enumerate(event.deal_points))
            parts.append(f"points: {points}")
        scores = ", ".join(
            f"{self.seat(s)} {signed(d)} → {t}"
            for s, (d, t) in enumerate(zip(event.deltas, event.totals, strict=True))
        )
        parts.append(f"scores: {scores}")
        return " — ".join(parts)

    def game_over(self, event: GameOver) -> str:
        standings = []
        for st in event.standings:
            entry = f"{st.place}. {self.seat(st.seat)} {st.score}"
            if st.payout:
                entry += f" (bank {signed(st.payout)})"
            standings.append(entry)
        return f"Game over — winner: {self.seat(event.winner)} — standings: " + ", ".join(standings)
