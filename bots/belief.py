"""What one seat knows about the current deal, rebuilt from the successive views it is shown (T-33).

A :class:`engine.View` lists the deal's taken tricks (``View.tricks``), and the belief copies them. A view
from a server that predates that field is a snapshot of the trick in progress only; then the
:class:`Belief` remembers the tricks from view to view: every card it saw in a trick, its own plays (the
cards that left its hand), who won each trick (the ``tricks_won`` counter that moved, or the next leader)
and what the trick was worth (the winner's ``trick_points`` difference). The card that completes a trick is
never in such a view (the trick is gone by the time it is played); when the belief saw the trick just
before, it still knows that card's rank (card points identify the rank) and keeps the card itself as a
*hidden* play. A runner that only shows the seat its own decisions leaves more hidden plays (every card
played after the seat's own), with the trick's total points when one trick was taken between two views.

Marriages (``view.marriages``) are tied to the trick whose lead declared them, so the trump of every trick is
known; failing to follow suit or to trump shows a void (:func:`~bots.cardlib.implied_forbidden`).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from bots.cardlib import CARD_POINTS, implied_forbidden
from engine import Phase, View

_PHASE_ORDER = {
    Phase.DARK: 0,
    Phase.AUCTION: 1,
    Phase.TALON_CHOICE: 2,
    Phase.EXCHANGE: 3,
    Phase.CONTRACT: 4,
    Phase.PLAY: 5,
    Phase.OVER: 6,
}


@dataclass(slots=True)
class TrickRecord:
    """One trick as the seat knows it: seats in playing order, each card or None when it was not seen."""

    leader: int
    seats: tuple[int, ...]
    cards: list[int | None]
    """Card index per position; None for a hidden play."""
    winner: int | None = None
    points: int | None = None
    """Card points of the whole trick when known."""
    marriage: bool = False
    """The lead declared a marriage (T-20)."""

    def hidden_positions(self) -> list[int]:
        return [p for p, c in enumerate(self.cards) if c is None]

    def known_points(self) -> int:
        return sum(CARD_POINTS[c] for c in self.cards if c is not None)


@dataclass(slots=True)
class Belief:
    """The seat's memory of one deal; :meth:`update` it with every view the seat is given."""

    seat: int
    key: tuple[object, ...] | None = None
    phase_rank: int = -1
    hand: int = 0
    """The seat's hand at the last view (a mask)."""
    holdings: int = 0
    """Every card the seat has held this deal (dealt, talon, received)."""
    my_plays: list[int] = field(default_factory=list)
    tricks: list[TrickRecord] = field(default_factory=list)
    """Completed tricks, in order."""
    live: list[tuple[int, int]] = field(default_factory=list)
    """The trick in progress at the last view: (seat, card index)."""
    marriage_tricks: list[tuple[int, int, int]] = field(default_factory=list)
    """(trick number, seat, suit) of each declared marriage, in order."""
    tricks_won: tuple[int, ...] = ()
    trick_points: tuple[int, ...] = ()
    degraded: bool = False
    """Set when views were missed so badly that who led a trick is unknown (no world can be rebuilt)."""
    last: View | None = None

    # ------------------------------------------------------------------ updating

    def update(self, view: View) -> None:
        if view.viewer != self.seat or view.phase is None:
            return
        key = (view.deal_number, view.dealer, view.kind, view.active, view.rules)
        rank = _PHASE_ORDER[view.phase]
        hand = 0
        for c in view.hand:
            hand |= 1 << c.index
        completed = sum(view.tricks_won)
        if (
            key != self.key
            or rank < self.phase_rank
            or completed < len(self.tricks)
            or len(view.auction) < (len(self.last.auction) if self.last else 0)
            or hand & ~self.holdings & self._played_mask()
        ):
            self._reset(key)
        self.phase_rank = rank
        if view.phase is not Phase.DARK:  # a dark opener's own hand is hidden until it decides (T-31)
            if view.phase in (Phase.PLAY, Phase.OVER) and self.last is not None:
                gone = self.hand & ~hand & ~self.given_mask(view)
                while gone:
                    low = gone & -gone
                    self.my_plays.append(low.bit_length() - 1)
                    gone ^= low
            self.hand = hand
            self.holdings |= hand
        if view.phase in (Phase.PLAY, Phase.OVER) and view.declarer is not None:
            self._update_tricks(view, completed)
        self.last = view

    def _reset(self, key: tuple[object, ...]) -> None:
        self.key = key
        self.phase_rank = -1
        self.hand = 0
        self.holdings = 0
        self.my_plays = []
        self.tricks = []
        self.live = []
        self.marriage_tricks = []
        self.tricks_won = ()
        self.trick_points = ()
        self.degraded = False
        self.last = None

    def _order_from(self, view: View, leader: int) -> tuple[int, ...]:
        active = view.active
        i = active.index(leader)
        return tuple(active[(i + k) % len(active)] for k in range(len(active)))

    def _update_tricks(self, view: View, completed: int) -> None:
        if len(view.tricks) == completed:
            self._copy_tricks(view)
        else:
            self._infer_tricks(view, completed)
        self._note_live_and_marriages(view)

    def _copy_tricks(self, view: View) -> None:
        """The view lists the taken tricks (``View.tricks``): nothing to infer, no hidden play."""
        marriage_at = {k for k, _, _ in self.marriage_tricks}
        self.tricks = [
            TrickRecord(
                trick.plays[0][0],
                tuple(seat for seat, _ in trick.plays),
                [card.index for _, card in trick.plays],
                trick.winner,
                trick.points,
                marriage=k in marriage_at,
            )
            for k, trick in enumerate(view.tricks)
        ]
        self.live = []

    def _infer_tricks(self, view: View, completed: int) -> None:
        """A view without the taken tricks (a server from before ``View.tricks``): rebuild them from what
        changed since the last view; cards this seat never saw stay hidden plays."""
        declarer = view.declarer
        assert declarer is not None
        prev_won = self.tricks_won or (0,) * len(view.tricks_won)
        prev_points = self.trick_points or (0,) * len(view.trick_points)
        new = completed - len(self.tricks)
        for step in range(new):
            k = len(self.tricks)
            leader = declarer if k == 0 else self.tricks[k - 1].winner
            if leader is None:
                self.degraded = True
                leader = declarer
            seats = self._order_from(view, leader)
            cards: list[int | None] = [None] * len(seats)
            if self.live and self.live[0][0] == leader:
                for pos, (_, c) in enumerate(self.live):
                    cards[pos] = c
            record = TrickRecord(
                leader, seats, cards, marriage=any(t == k for t, _, _ in self.marriage_tricks)
            )
            last_step = step == new - 1
            if new == 1:
                movers = [s for s in range(len(view.tricks_won)) if view.tricks_won[s] > prev_won[s]]
                if len(movers) == 1:
                    record.winner = movers[0]
                    gained = view.trick_points[movers[0]] - prev_points[movers[0]]
                    if view.phase is not Phase.OVER or view.rules.players != 2:
                        record.points = gained
            elif last_step:
                record.winner = self._current_leader(view)
            self.tricks.append(record)
            self.live = []
        # The seat's own plays fill its position in each trick (it plays exactly once per trick).
        for k, c in enumerate(self.my_plays):
            if k < len(self.tricks):
                rec = self.tricks[k]
                rec.cards[rec.seats.index(self.seat)] = c
        if self.tricks and self.tricks[-1].winner is None and not self.degraded:
            self.tricks[-1].winner = self._current_leader(view)

    def _note_live_and_marriages(self, view: View) -> None:
        self.live = [(s, c.index) for s, c in view.trick]
        # A newly declared marriage belongs to the latest trick its seat led.
        for seat, suit in view.marriages[len(self.marriage_tricks) :]:
            if self.live and self.live[0][0] == seat:
                k = len(self.tricks)
            else:
                k = next(
                    (i for i in range(len(self.tricks) - 1, -1, -1) if self.tricks[i].leader == seat), -1
                )
                if k >= 0:
                    self.tricks[k].marriage = True
            self.marriage_tricks.append((k, seat, int(suit)))
        self.tricks_won = view.tricks_won
        self.trick_points = view.trick_points

    def _current_leader(self, view: View) -> int | None:
        if view.trick:
            return view.trick[0][0]
        if view.phase is Phase.PLAY and view.to_act is not None:
            return view.to_act
        return None

    # ------------------------------------------------------------------ queries

    def trump_at(self, trick: int) -> int | None:
        """The trump in force during trick number ``trick`` (0-based), after any marriage at its lead."""
        trump: int | None = None
        for k, _, suit in self.marriage_tricks:
            if k <= trick:
                trump = suit
        return trump

    def live_marriage(self) -> bool:
        """Whether the trick in progress was led declaring a marriage."""
        k = len(self.tricks)
        return any(t == k for t, _, _ in self.marriage_tricks)

    def given_mask(self, view: View) -> int:
        """Cards the seat gave away in the exchange."""
        mask = 0
        for ex in view.exchange:
            if ex.giver == self.seat and ex.card is not None:
                mask |= 1 << ex.card.index
        return mask

    def _played_mask(self) -> int:
        mask = 0
        for rec in self.tricks:
            for c in rec.cards:
                if c is not None:
                    mask |= 1 << c
        return mask

    def played_mask(self) -> int:
        """Cards seen played in taken tricks and in the trick in progress."""
        mask = self._played_mask()
        for _, c in self.live:
            mask |= 1 << c
        return mask

    def hidden_count(self) -> int:
        return sum(1 for rec in self.tricks for c in rec.cards if c is None)

    def voids(self, must_beat: bool) -> dict[int, int]:
        """Cards each seat is known not to hold now (from its seen plays), by seat."""
        out: dict[int, int] = {}
        plays = [(k, rec.seats, rec.cards) for k, rec in enumerate(self.tricks)]
        if self.live:
            live_seats = tuple(s for s, _ in self.live)
            plays.append((len(self.tricks), live_seats, [c for _, c in self.live]))
        for k, seats, cards in plays:
            trump = self.trump_at(k)
            before: list[tuple[int, int]] = []
            exact = True
            for seat, c in zip(seats, cards, strict=True):
                if c is None:
                    exact = False  # later plays still show voids, but not what they failed to beat
                    continue
                if before:
                    out[seat] = out.get(seat, 0) | implied_forbidden(before, trump, c, must_beat and exact)
                before.append((seat, c))
        return out
