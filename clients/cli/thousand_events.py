"""Thousand's events in the player's language, from each event's type and fields (``event.thousand.*``), never
from the server's English: the terminal client's transcript.

The lines follow :mod:`engine.transcript` (which stays English, for logs and golden tests): one line per
event, indented inside a deal, a declared marriage folded into the card led with it, a hidden card or hand
said without its cards.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Final, assert_never

from clients.cli.text import counted, numbered_seat
from clients.i18n import t
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

INDENT: Final = "  "


def cards_text(cards: Iterable[Card]) -> str:
    return " ".join(str(c) for c in cards)


def mark_words(mark: Mark) -> str:
    """A sheet mark as a short phrase (``a bolt``, ``onto the barrel``): the glossary's ``term.mark_*``."""
    return t(f"term.mark_{mark.value}")


class ThousandLines:
    """Renders events to lines, keeping the little context some need: the trick's position, dark, a marriage
    waiting for its card."""

    def __init__(self, names: Sequence[str]) -> None:
        self.names = names
        self.cards_in_trick = 0
        self.dark_seat: int | None = None

    def seat(self, seat: int) -> str:
        if 0 <= seat < len(self.names):
            return self.names[seat]
        return numbered_seat(seat)

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

    def line(self, event: Event) -> str:
        match event:
            case GameStarted():
                return t(
                    "event.thousand.game_started",
                    players=event.rules.players,
                    dealer=self.seat(event.first_dealer),
                    changed="",
                )
            case DealStarted():
                return self.deal_started(event)
            case GameOver():
                return self.game_over(event)
            case _:
                return INDENT + self.in_deal(event)

    def in_deal(self, event: Event) -> str:
        who = self.seat
        match event:
            case DeckShuffled():
                return t("event.thousand.deck_shuffled")
            case HandDealt(seat, count, cards):
                return t(
                    "event.thousand.hand_dealt",
                    name=who(seat),
                    count=count,
                    cards="" if cards is None else cards_text(cards),
                )
            case DarkDeclared(seat):
                self.dark_seat = seat
                return t("event.thousand.dark_declared", name=who(seat))
            case DarkDeclined(seat):
                return t("event.thousand.dark_declined", name=who(seat))
            case BidMade(seat, value, forced):
                how = "dark" if forced and seat == self.dark_seat else "forced" if forced else "free"
                return t("event.thousand.bid_made", name=who(seat), value=value, how=how)
            case Passed(seat):
                return t("event.thousand.passed", name=who(seat))
            case AuctionWon(seat, bid):
                return t("event.thousand.auction_won", name=who(seat), bid=bid)
            case RedealDemanded(seat, reason):
                return t(
                    "event.thousand.redeal_demanded", name=who(seat), reason=t(f"term.redeal_{reason.value}")
                )
            case TalonChosen(seat, index):
                return t("event.thousand.talon_chosen", name=who(seat), index=counted(index))
            case TalonTaken(seat, face_up, cards):
                return t(
                    "event.thousand.talon_taken",
                    name=who(seat),
                    face_up="yes" if face_up else "no",
                    cards="" if cards is None else cards_text(cards),
                )
            case CardGiven(seat, to, card):
                shown = "" if card is None else str(card)
                if to is None:
                    return t("event.thousand.card_discarded", name=who(seat), card=shown)
                return t("event.thousand.card_given", name=who(seat), card=shown, to=who(to))
            case ContractNamed(seat, value):
                return t("event.thousand.contract_named", name=who(seat), value=value)
            case Conceded(seat, contract):
                return t("event.thousand.conceded", name=who(seat), contract=contract)
            case MarriageDeclared():
                return self.marriage(event)
            case CardPlayed():
                return self.card_played(event, None)
            case TrickTaken(seat, number, _cards, points):
                self.cards_in_trick = 0
                return t("event.thousand.trick_taken", name=who(seat), number=number, points=points)
            case LastTalonTaken(seat, cards, points):
                return t(
                    "event.thousand.last_talon_taken", name=who(seat), cards=cards_text(cards), points=points
                )
            case DealRevealed():
                return self.revealed(event)
            case DealScored():
                return self.scored(event)
            case SheetMarked(seat, mark, points):
                return t("event.thousand.sheet_marked", name=who(seat), mark=mark_words(mark), points=points)
            case GameStarted() | DealStarted() | GameOver():
                return self.line(event)
            case _:
                assert_never(event)

    def deal_started(self, event: DealStarted) -> str:
        self.cards_in_trick = 0
        self.dark_seat = None
        parts = [
            t(
                "event.thousand.deal_started",
                number=event.number,
                dealer=self.seat(event.dealer),
                kind=t(f"term.deal_{event.kind.value}"),
            )
        ]
        if event.declarer is not None:
            parts.append(t("event.thousand.deal_declarer", name=self.seat(event.declarer)))
        if event.dealer not in event.active:
            parts.append(t("cli.sits_out", name=self.seat(event.dealer)))
        return " — ".join(parts)

    def marriage(self, event: MarriageDeclared) -> str:
        return t(
            "event.thousand.marriage_declared",
            name=self.seat(event.seat),
            suit=event.suit.symbol,
            points=event.points,
        )

    def card_played(self, event: CardPlayed, marriage: MarriageDeclared | None) -> str:
        lead = "yes" if self.cards_in_trick == 0 else "no"
        self.cards_in_trick += 1
        if marriage is not None:
            return t(
                "event.thousand.card_played_marriage",
                name=self.seat(event.seat),
                card=str(event.card),
                suit=marriage.suit.symbol,
                points=marriage.points,
            )
        return t("event.thousand.card_played", name=self.seat(event.seat), card=str(event.card), lead=lead)

    def revealed(self, event: DealRevealed) -> str:
        parts = [f"{self.seat(s)}: {cards_text(hand)}" for s, hand in enumerate(event.hands) if hand]
        if len(event.talons) == 1:
            parts.append(t("cli.talon_cards", cards=cards_text(event.talons[0])))
        else:
            parts += [
                t("event.thousand.talon_numbered", index=counted(i), cards=cards_text(talon))
                for i, talon in enumerate(event.talons)
            ]
        return t("event.thousand.deal_revealed", number=event.number, hands="; ".join(parts))

    def scored(self, event: DealScored) -> str:
        kind = "" if event.kind is DealKind.NORMAL else t(f"term.deal_{event.kind.value}")
        parts = [
            t(
                "event.thousand.deal_scored",
                number=event.number,
                kind=kind,
                name=self.seat(event.declarer),
                outcome=event.outcome.value,
                contract=event.contract,
                doubled="yes" if event.doubled else "no",
            )
        ]
        if event.outcome is not Outcome.CONCEDED:
            points = ", ".join(f"{self.seat(s)} {p}" for s, p in enumerate(event.deal_points))
            parts.append(t("event.thousand.deal_points", points=points))
        scores = ", ".join(
            t("event.thousand.score_change", name=self.seat(s), delta=d, total=total)
            for s, (d, total) in enumerate(zip(event.deltas, event.totals, strict=True))
        )
        parts.append(t("event.thousand.deal_scores", scores=scores))
        return " — ".join(parts)

    def game_over(self, event: GameOver) -> str:
        standings = ", ".join(
            t(
                "event.thousand.standing",
                place=s.place,
                name=self.seat(s.seat),
                score=s.score,
                payout=s.payout,
            )
            for s in event.standings
        )
        return t("event.thousand.game_over", winner=self.seat(event.winner), standings=standings)


def render_lines(events: Iterable[Event], names: Sequence[str]) -> list[str]:
    return ThousandLines(names).lines(events)
