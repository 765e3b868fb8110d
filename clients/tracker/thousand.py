"""Follow a Thousand table from its events: an engine :class:`~engine.View` kept current between the server's
views (see :mod:`clients.tracker`). :class:`ViewTracker` applies each event to the last view, for the
information its viewer may see (T-33): the events it gets are already filtered by the server.

Every field of the engine's view is kept, except ``legal_actions`` and ``to_act``, which only a Turn says
(:meth:`ViewTracker.set_turn`). ``tests/test_cli_tracker.py`` checks the tracker against the engine's own
:func:`engine.view` after every event of whole random games, for every viewer and many rule variants.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Final

from engine import Action, DealKind, Mark, Phase, Rules, View
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
    DealRevealed,
    DealScored,
    DealStarted,
    DeckShuffled,
    Event,
    GameOver,
    GameStarted,
    HandDealt,
    LastTalonTaken,
    MarriageDeclared,
    Outcome,
    Passed,
    RedealDemanded,
    SheetMarked,
    TalonChosen,
    TalonTaken,
    TrickTaken,
)
from engine.game import BOLTS_TO_PENALTY
from engine.observer import Exchange, SeatScore, TakenTrick
from engine.rules import GOAL, TwoPlayerDeal

BARREL_DEALS: Final = 3
"""T-27: deals a seat has on the barrel to win."""
GOLDEN_CONTRACT: Final = 120
OBLIGATORY_CONTRACT: Final = 121
DARK_BID: Final = 120

_FALLS: Final = frozenset({Mark.BARREL_FALL, Mark.BARREL_BOTH_FALL, Mark.BARREL_BUMPED, Mark.BARREL_TIMEOUT})
_AFTER_BARREL_COUNT: Final = frozenset(
    {Mark.BARREL_TIMEOUT, Mark.SAMOSVAL, Mark.BARREL_BOTH_FALL, Mark.BARREL_ON, Mark.BARREL_BUMPED}
)
"""Marks the engine writes after counting the barrel deals of a deal (T-27); the others come before."""
_TALON_TAKEN: Final = frozenset({Phase.EXCHANGE, Phase.CONTRACT, Phase.PLAY, Phase.OVER})


def empty_view(rules: Rules, viewer: int | None, first_dealer: int) -> View:
    """The view before the first deal."""
    n = rules.players
    scores = tuple(SeatScore(s, 0, 0, False, 0, 0, 0) for s in range(n))
    return View(
        viewer=viewer, rules=rules, deal_number=0, dealer=first_dealer, kind=None, phase=None, active=(),
        sitter=None, hand=(), card_counts=(0,) * n, auction=(), high_bid=None, high_bidder=None,
        dark_seat=None, declarer=None, bid=None, contract=None, doubled=False, talon=None, talon_counts=(),
        exchange=(), trick=(), tricks=(), trump=None, marriages=(), tricks_won=(0,) * n,
        trick_points=(0,) * n, scores=scores, to_act=None, legal_actions=(), revealed_hands=None, winner=None,
        standings=(),
    )  # fmt: skip


@dataclass(slots=True)
class _Seat:
    """One line of the score sheet while a deal's marks are applied."""

    score: int
    bolts: int
    on_barrel: bool
    barrel_deals: int
    barrel_visits: int
    falls: int

    def fall(self) -> None:
        self.on_barrel = False
        self.barrel_deals = 0
        self.falls += 1


def _sorted(cards: tuple[Card, ...] | list[Card]) -> tuple[Card, ...]:
    return tuple(sorted(cards, key=lambda c: c.index))


def _with(values: tuple[int, ...], index: int, delta: int) -> tuple[int, ...]:
    out = list(values)
    out[index] += delta
    return tuple(out)


class ViewTracker:
    """The current :class:`~engine.View` of one viewer (a seat, or ``None`` for a spectator).

    Feed it the server's views (:meth:`reset`) and every event after them (:meth:`apply`), in order.
    ``last_trick`` keeps the cards of the trick just taken, for a display that wants to show it.
    """

    def __init__(self, viewer: int | None, rules: Rules | None = None, first_dealer: int = 0) -> None:
        self.viewer = viewer
        self.view: View | None = None if rules is None else empty_view(rules, viewer, first_dealer)
        self.last_trick: tuple[tuple[int, Card], ...] = ()
        self._talon_index: int | None = None
        """The talon the declarer took (0 with three or four players), once taken."""
        self._marks: list[SheetMarked] = []
        """The sheet marks of the deal being settled, applied when its DealScored arrives."""

    def reset(self, view: View) -> None:
        """Start again from a view the server sent (a snapshot, or a Turn's view)."""
        self.view = view
        self._marks = []
        self._talon_index = None
        if view.phase in _TALON_TAKEN and view.talon_counts:
            empty = [i for i, count in enumerate(view.talon_counts) if count == 0]
            if len(view.talon_counts) == 1:
                self._talon_index = 0
            elif len(empty) == 1:
                self._talon_index = empty[0]

    def set_turn(self, seat: int | None, legal_actions: tuple[Action, ...]) -> None:
        """Whose turn it is now, and the viewer's legal actions if it is theirs."""
        if self.view is not None:
            self.view = replace(self.view, to_act=seat, legal_actions=legal_actions)

    def apply(self, event: Event) -> None:
        """Apply one event (as the viewer received it) to the view."""
        if isinstance(event, GameStarted):
            self.view = empty_view(event.rules, self.viewer, event.first_dealer)
            return
        v = self.view
        if v is None:
            return  # nothing to follow before the game's first event or a snapshot
        self.view = self._next(v, event)

    # ------------------------------------------------------------------ one event

    def _next(self, v: View, event: Event) -> View:
        rules = v.rules
        match event:
            case DealStarted():
                return self._deal_started(v, event)
            case DeckShuffled():
                return v
            case HandDealt(seat, count, cards):
                counts = list(v.card_counts)
                counts[seat] = count
                hand = _sorted(cards) if cards is not None and seat == self.viewer else v.hand
                return replace(v, card_counts=tuple(counts), hand=hand)
            case DarkDeclared(seat):
                return replace(v, dark_seat=seat, phase=Phase.AUCTION)
            case DarkDeclined():
                return replace(v, phase=Phase.AUCTION)
            case BidMade(seat, value, _forced):
                return replace(v, auction=(*v.auction, (seat, value)), high_bid=value, high_bidder=seat)
            case Passed(seat):
                return replace(v, auction=(*v.auction, (seat, None)))
            case AuctionWon(seat, bid):
                doubled = v.doubled or (v.dark_seat == seat and bid == DARK_BID)
                phase = Phase.TALON_CHOICE if rules.players == 2 else v.phase
                return replace(v, declarer=seat, bid=bid, doubled=doubled, phase=phase)
            case RedealDemanded():
                return v  # DealRevealed follows and ends the deal
            case TalonChosen(_seat, index):
                self._talon_index = index
                return v
            case TalonTaken(seat, _face_up, cards):
                index = self._talon_index if self._talon_index is not None else 0
                self._talon_index = index
                size = v.talon_counts[index]
                talon_counts = list(v.talon_counts)
                talon_counts[index] = 0
                hand = v.hand
                if seat == self.viewer and cards is not None:
                    hand = _sorted([*hand, *cards])
                return replace(
                    v,
                    phase=Phase.EXCHANGE,
                    talon=cards,
                    talon_counts=tuple(talon_counts),
                    card_counts=_with(v.card_counts, seat, size),
                    hand=hand,
                )
            case CardGiven(seat, to, card):
                return self._card_given(v, seat, to, card)
            case ContractNamed(_seat, value):
                return replace(v, contract=value, phase=Phase.PLAY)
            case Conceded(_seat, contract):
                return replace(v, contract=contract)
            case MarriageDeclared(seat, suit, _points):
                return replace(v, marriages=(*v.marriages, (seat, suit)), trump=suit)
            case CardPlayed(seat, card):
                hand = tuple(c for c in v.hand if c != card) if seat == self.viewer else v.hand
                return replace(
                    v, trick=(*v.trick, (seat, card)), card_counts=_with(v.card_counts, seat, -1), hand=hand
                )
            case TrickTaken(seat, _number, _cards, points):
                self.last_trick = v.trick
                return replace(
                    v,
                    trick=(),
                    tricks=(*v.tricks, TakenTrick(seat, v.trick, points)),
                    tricks_won=_with(v.tricks_won, seat, 1),
                    trick_points=_with(v.trick_points, seat, points),
                )
            case LastTalonTaken(seat, _cards, points):
                other = 1 - (self._talon_index or 0)
                talon_counts = list(v.talon_counts)
                talon_counts[other] = 0
                return replace(
                    v, trick_points=_with(v.trick_points, seat, points), talon_counts=tuple(talon_counts)
                )
            case DealRevealed(_number, _order, hands, talons):
                talon = v.talon
                if self._talon_index is not None:
                    talon = talons[self._talon_index] or None
                return replace(v, phase=Phase.OVER, revealed_hands=hands, talon=talon, to_act=None)
            case SheetMarked():
                self._marks.append(event)
                return v
            case DealScored():
                return self._scored(v, event)
            case GameOver(winner, standings):
                return replace(v, winner=winner, standings=standings, to_act=None, legal_actions=())
            case GameStarted():
                return v  # handled in apply
        return v

    def _deal_started(self, v: View, event: DealStarted) -> View:
        kind, active = event.kind, event.active
        rules = v.rules
        n = rules.players
        self._talon_index = None
        self._marks = []
        self.last_trick = ()
        if n == 2:
            polish = rules.two_player_deal is TwoPlayerDeal.TEN_AND_TWO_TALONS_OF_2
            talon_counts: tuple[int, ...] = (2, 2) if polish else (3, 3)
        else:
            talon_counts = (3,)
        hand_size = (24 - sum(talon_counts)) // len(active)
        counts = tuple(hand_size if s in active else 0 for s in range(n))
        bid: int | None = None
        if kind is DealKind.NORMAL:
            phase = Phase.DARK if rules.dark else Phase.AUCTION
        else:
            phase = Phase.TALON_CHOICE if n == 2 else Phase.EXCHANGE
            bid = OBLIGATORY_CONTRACT if kind is DealKind.OBLIGATORY else GOLDEN_CONTRACT
        return replace(
            v,
            deal_number=event.number,
            dealer=event.dealer,
            kind=kind,
            phase=phase,
            active=active,
            sitter=event.dealer if n == 4 else None,
            hand=(),
            card_counts=counts,
            auction=(),
            high_bid=None,
            high_bidder=None,
            dark_seat=None,
            declarer=event.declarer,
            bid=bid,
            contract=None,
            doubled=kind is DealKind.GOLDEN,
            talon=None,
            talon_counts=talon_counts,
            exchange=(),
            trick=(),
            tricks=(),
            trump=None,
            marriages=(),
            tricks_won=(0,) * n,
            trick_points=(0,) * n,
            revealed_hands=None,
        )

    def _card_given(self, v: View, seat: int, to: int | None, card: Card | None) -> View:
        counts = list(v.card_counts)
        counts[seat] -= 1
        talon_counts = list(v.talon_counts)
        if to is None:
            talon_counts[1 - (self._talon_index or 0)] += 1
        else:
            counts[to] += 1
        hand = v.hand
        if card is not None and seat == self.viewer:
            hand = tuple(c for c in hand if c != card)
        elif card is not None and to == self.viewer:
            hand = _sorted([*hand, card])
        exchange = (*v.exchange, Exchange(seat, to, card))
        phase = v.phase
        # Two cards end the exchange: one to each opponent, one given and one discarded, or two discarded. A
        # fixed contract (golden, dark, obligatory) is named by the engine at once: ContractNamed follows.
        if len(exchange) == 2 and v.kind is DealKind.NORMAL and not v.doubled:
            phase = Phase.CONTRACT
        return replace(
            v,
            card_counts=tuple(counts),
            talon_counts=tuple(talon_counts),
            hand=hand,
            exchange=exchange,
            phase=phase,
        )

    def _scored(self, v: View, event: DealScored) -> View:
        """Apply the deal's sheet marks the way the engine writes them (T-25 to T-29)."""
        sheet = [
            _Seat(s.score, s.bolts, s.on_barrel, s.barrel_deals, s.barrel_visits, s.falls) for s in v.scores
        ]
        declarer = sheet[event.declarer]
        winner: int | None = None
        if (
            v.rules.barrel
            and declarer.on_barrel
            and event.outcome is Outcome.MADE
            and (event.kind is DealKind.OBLIGATORY or declarer.score + event.contract >= GOAL)
        ):
            winner = event.declarer
        counted = False

        def count_barrel_deals() -> None:
            for seat in v.active:
                line = sheet[seat]
                if line.on_barrel and seat != winner:
                    line.barrel_deals += 1

        for m in self._marks:
            line = sheet[m.seat]
            if m.mark in _AFTER_BARREL_COUNT and not counted:
                count_barrel_deals()
                counted = True
            match m.mark:
                case Mark.BOLT:
                    line.bolts += 1
                case Mark.BOLT_PENALTY:
                    line.bolts -= BOLTS_TO_PENALTY  # T-25: a fourth (doubled) bolt stays on the sheet
                    if line.on_barrel and m.seat != winner:
                        line.fall()
                case Mark.THIRD_FALL_RESET:
                    line.falls = line.barrel_visits = 0
                case Mark.OBLIGATORY_FAILED:
                    line.falls = line.barrel_visits = line.barrel_deals = 0
                    line.on_barrel = False
                case Mark.BARREL_ON:
                    line.on_barrel = True
                    line.barrel_deals = 0
                    line.barrel_visits += 1
                case Mark.SAMOSVAL:
                    pass
                case _ if m.mark in _FALLS:
                    line.fall()
        if not counted:
            count_barrel_deals()
        self._marks = []
        scores = tuple(
            SeatScore(s, total, x.bolts, x.on_barrel, x.barrel_deals, x.barrel_visits, x.falls)
            for s, (x, total) in enumerate(zip(sheet, event.totals, strict=True))
        )
        return replace(v, scores=scores)
