"""A game of Thousand: deals until someone reaches 1000 (T-3, T-26 to T-32).

The game owns the score sheet (scores, bolts, the barrel), chooses each deal's dealer and kind, and is the
one place where chance enters: every deal begins at a chance node whose outcome, a :class:`Shuffle`, is
derived from the game's seed and the deal's number. Nothing here reads a global random generator, so a game is
a pure function of its rules, its seed and the seats' actions (T-35).
"""

from __future__ import annotations

import random
from collections.abc import Callable
from dataclasses import dataclass
from typing import Final

from engine.actions import Action, Shuffle
from engine.cards import CARDS, Card
from engine.deal import Deal
from engine.errors import IllegalActionError, InvalidActionError, Reason
from engine.events import (
    DealKind,
    DealScored,
    DealStarted,
    DeckShuffled,
    Event,
    GameOver,
    GameStarted,
    Mark,
    Outcome,
    SheetMarked,
    Standing,
)
from engine.layout import DealSetup, active_seats
from engine.phases import Phase
from engine.rules import GOAL, SAMOSVAL, Rules
from engine.scoring import DealValue, value_deal
from engine.seeds import (
    FairDeals,
    deal_key,
    deal_salt,
    derive_seed,
    fair_shuffle,
    seeded_shuffle,
    shuffle_from_key,
)
from engine.verify import commitment

BOLT_PENALTY = 120
BARREL_FALL_PENALTY = 120
BARREL_DEALS = 3
FALLS_TO_RESET = 3
BOLTS_TO_PENALTY = 3

_OVER: Final = Phase.OVER
_GOLDEN: Final = DealKind.GOLDEN

_MarkFn = Callable[[int, Mark, int], None]
_FallFn = Callable[[int, int, Mark], None]


def _is_card_tuple(order: object) -> bool:
    """Whether a caller's shuffle order is a tuple of cards; typed ``object`` so that a compiled engine
    checks the elements here instead of raising TypeError while iterating them as cards."""
    return isinstance(order, tuple) and all(type(card) is Card for card in order)


@dataclass(slots=True)
class SeatRecord:
    """One seat's line of the score sheet."""

    score: int = 0
    bolts: int = 0
    on_barrel: bool = False
    barrel_deals: int = 0
    """Deals played on the barrel this visit (T-27: three to win)."""
    barrel_visits: int = 0
    falls: int = 0


class Game:
    """A whole game: ``apply_chance()`` at chance nodes, ``apply(seat, action)`` at decisions."""

    def __init__(
        self, rules: Rules, seed: int, first_dealer: int | None = None, *, fair: FairDeals | None = None
    ) -> None:
        if first_dealer is not None and not 0 <= first_dealer < rules.players:
            raise InvalidActionError(f"first dealer {first_dealer} is not a seat of {rules.players} players")
        self.rules = rules
        self.seed = seed
        self.fair = fair
        """A fair table's deals (engine.seeds); None: every deal follows from ``seed``."""
        n = rules.players
        if first_dealer is None:
            first_dealer = random.Random(derive_seed(seed, "dealer")).randrange(n)  # T-3
        self.first_dealer = first_dealer
        self.dealer = first_dealer
        self.records = [SeatRecord() for _ in range(n)]
        self.deal: Deal | None = None
        self.deals_dealt = 0
        self.deals_played = 0
        self.golden_played = 0
        self.winner: int | None = None
        self.standings: tuple[Standing, ...] = ()
        self.history: list[tuple[int | None, Action | Shuffle]] = []
        """Every applied action with its seat (None for chance), enough to replay the game (T-35)."""
        self.events: list[Event] = [GameStarted(rules, first_dealer)]

    def copy(self) -> Game:
        """An independent copy of the game as it stands, without replaying its history: what a search needs
        to play many futures of one position (bench/copy.py measures it against a replay).

        The score sheet, the deal (``Deal.copy``), the history and the events are copied; their immutable
        values (actions, events, cards) are shared. Spelled out attribute by attribute for the compiled
        engine, as ``Deal.copy`` is; tests/test_game_copy.py checks that every attribute is copied.
        """
        fair = None if self.fair is None else self.fair.copy()
        twin = Game(self.rules, self.seed, self.first_dealer, fair=fair)
        twin.dealer = self.dealer
        twin.records = [
            SeatRecord(r.score, r.bolts, r.on_barrel, r.barrel_deals, r.barrel_visits, r.falls)
            for r in self.records
        ]
        twin.deal = None if self.deal is None else self.deal.copy()
        twin.deals_dealt = self.deals_dealt
        twin.deals_played = self.deals_played
        twin.golden_played = self.golden_played
        twin.winner = self.winner
        twin.standings = self.standings
        twin.history = self.history.copy()
        twin.events = self.events.copy()
        return twin

    # ------------------------------------------------------------------ queries

    @property
    def is_over(self) -> bool:
        return self.winner is not None

    @property
    def is_chance_node(self) -> bool:
        deal = self.deal
        return self.winner is None and (deal is None or deal.phase is _OVER)

    @property
    def to_act(self) -> int | None:
        """The seat to decide, or None at a chance node or once the game is over."""
        deal = self.deal
        if deal is None or self.winner is not None:
            return None
        return deal.to_act

    def legal_actions(self) -> tuple[Action, ...]:
        """The acting seat's complete legal actions (T-34); empty at chance nodes and at the end."""
        deal = self.deal
        if deal is None or self.winner is not None:
            return ()
        return deal.legal_actions()

    def next_setup(self) -> DealSetup:
        """What the next deal will be: its dealer, and whether it is golden or obligatory."""
        rules = self.rules
        number = self.deals_dealt + 1
        active = active_seats(rules.players, self.dealer)
        if rules.golden_deals and self.golden_played < rules.players:
            return DealSetup(number, self.dealer, DealKind.GOLDEN, active[0])  # T-30
        if rules.barrel and rules.obligatory_game:  # T-28
            for seat in active:
                rec = self.records[seat]
                if rec.on_barrel and rec.barrel_visits >= 3 and rec.barrel_deals == BARREL_DEALS - 1:
                    return DealSetup(number, self.dealer, DealKind.OBLIGATORY, seat)
        return DealSetup(number, self.dealer)

    def chance_outcome(self) -> Shuffle:
        """The shuffle of the next deal: the fair one, or the seed's."""
        if self.fair is not None:
            return Shuffle(fair_shuffle(CARDS, self.fair.deal(self.deals_dealt + 1).mix))
        return seeded_shuffle(self.seed, self.deals_dealt + 1)

    # ------------------------------------------------------------------ applying

    def apply_chance(self, shuffle: Shuffle | None = None) -> list[Event]:
        """Deal the next deal from ``shuffle`` (a stacked deck) or from the seeded shuffle."""
        if self.winner is not None:
            raise IllegalActionError(Reason.GAME_OVER, "the game is over")
        if not self.is_chance_node:
            raise IllegalActionError(Reason.WRONG_PHASE, "the deal is in progress; no shuffle now")
        seeded = shuffle is None
        fair = None if self.fair is None else self.fair.deal(self.deals_dealt + 1)
        if shuffle is None:
            shuffle = self.chance_outcome() if fair is None else Shuffle(fair_shuffle(CARDS, fair.mix))
        elif not isinstance(shuffle, Shuffle):
            raise InvalidActionError(f"{shuffle!r} is not a shuffle")
        elif not _is_card_tuple(shuffle.order):
            raise InvalidActionError("a shuffle must order each of the 24 cards exactly once")
        setup = self.next_setup()
        deal = Deal(self.rules, setup, shuffle.order)
        # The deal's commitment (engine.verify): a stacked deck has no key, the seeded one reveals its key, a
        # fair one its secret and the seats' seeds.
        if fair is not None and self.fair is not None:
            deal.salt = fair.salt
            deal.client_seeds = fair.client_seeds
            self.fair.dealt.append(fair.client_seeds)
        else:
            key = deal_key(self.seed, setup.number)
            deal.deal_seed = key if seeded or shuffle_from_key(key).order == shuffle.order else None
            deal.salt = deal_salt(self.seed, setup.number)
        self.deal = deal
        self.deals_dealt += 1
        self.history.append((None, shuffle))
        events: list[Event] = [
            DealStarted(setup.number, setup.dealer, setup.kind, deal.active, setup.declarer),
            DeckShuffled(setup.number, commitment(deal.salt, deal.deal_seed, shuffle.order)),
        ]
        events += deal.start()
        self._after(deal, events)
        return events

    def apply(self, seat: object, action: Action) -> list[Event]:
        """Apply one seat's action; on rejection raise with the game unchanged.

        ``seat`` is typed ``object`` because anything is answered: a value that is not a seat number (a bool,
        a float, a string) is rejected as INVALID_SEAT, in the compiled engine as in the interpreted one.
        """
        deal = self._deal_for(seat)
        assert type(seat) is int
        # The history records the engine's own action (Bid(105) for a Bid(105.0) given), as the events
        # report it: a replay, a copy or a codec reading it sees well-typed values. Checked once here:
        # apply_legal plays a card without a second check, and finds anything else by identity.
        legal = deal.checked(seat, action)
        events = deal.apply_legal(seat, legal)
        self.history.append((seat, legal))
        if deal.phase is _OVER:
            self._after(deal, events)
        else:
            self.events += events
        return events

    def validate(self, seat: object, action: object) -> None:
        """Raise why ``action`` is illegal for ``seat`` now, with the reason :meth:`apply` would give; return
        None if it is legal. Nothing changes either way, so no caller needs to apply to a copy (T-34).

        :raises IllegalActionError: GAME_OVER, INVALID_SEAT, CHANCE_NODE, NOT_YOUR_TURN or the rule broken.
        :raises InvalidActionError: for a malformed action.
        """
        deal = self._deal_for(seat)
        assert type(seat) is int
        deal.validate(seat, action)

    def is_legal(self, seat: object, action: object) -> bool:
        """Whether :meth:`validate` accepts ``action``."""
        try:
            self.validate(seat, action)
        except (IllegalActionError, InvalidActionError):
            return False
        return True

    def _deal_for(self, seat: object) -> Deal:
        """The deal in progress that ``seat`` may act in, or the reason there is none."""
        if self.winner is not None:
            raise IllegalActionError(Reason.GAME_OVER, "the game is over")
        if type(seat) is not int or not 0 <= seat < self.rules.players:  # bool is an int, but not a seat
            raise IllegalActionError(Reason.INVALID_SEAT, f"there is no seat {seat!r}")
        deal = self.deal
        if deal is None or deal.is_over:
            raise IllegalActionError(Reason.CHANCE_NODE, "the next deal has not been dealt yet")
        return deal

    def _after(self, deal: Deal, events: list[Event]) -> None:
        if deal.phase is _OVER:
            if deal.redeal is None:
                self._settle(deal, events)
                self.deals_played += 1
                if deal.kind is _GOLDEN:
                    self.golden_played += 1
                if self.winner is None:
                    self.dealer = (self.dealer + 1) % self.rules.players  # T-3
            if self.winner is not None:
                self.standings = self._standings()
                events.append(GameOver(self.winner, self.standings, self._table_secret()))
        self.events += events

    def _table_secret(self) -> str:
        """What GameOver discloses: a fair table's secret, which proves every deal's (engine.verify)."""
        return "" if self.fair is None else self.fair.secret.hex()

    # ------------------------------------------------------------------ the score sheet

    def _settle(self, deal: Deal, events: list[Event]) -> None:
        """Write a played or conceded deal on the sheet: T-23 to T-29."""
        rules = self.rules
        value = value_deal(rules, deal)
        records = self.records
        before = [rec.score for rec in records]
        marks: list[SheetMarked] = []
        settled: set[int] = set()
        """Seats whose barrel visit ended this deal (won or fell): nothing more happens to them."""

        def mark(seat: int, kind: Mark, points: int) -> None:
            marks.append(SheetMarked(seat, kind, points))

        def fall(seat: int, penalty: int, kind: Mark) -> None:
            rec = records[seat]
            rec.on_barrel = False
            rec.barrel_deals = 0
            rec.score -= penalty
            rec.falls += 1
            settled.add(seat)
            mark(seat, kind, -penalty)
            if rec.falls >= FALLS_TO_RESET:  # T-27: the third fall resets the score to 0
                mark(seat, Mark.THIRD_FALL_RESET, -rec.score)
                rec.score = rec.falls = rec.barrel_visits = 0

        declarer = value.declarer
        obligatory = deal.kind is DealKind.OBLIGATORY
        for seat, rec in enumerate(records):
            if not rec.on_barrel:
                rec.score += value.base[seat]
                continue
            if seat != declarer:
                continue  # T-27: nothing as a defender (or sitter) on the barrel
            if value.outcome is Outcome.MADE:
                if obligatory or rec.score + value.contract >= GOAL:
                    rec.score += value.base[seat]
                    self.winner = seat
                    settled.add(seat)
            elif obligatory:  # T-28: failing the obligatory game falls to 0
                mark(seat, Mark.OBLIGATORY_FAILED, -rec.score)
                rec.score = rec.falls = rec.barrel_visits = rec.barrel_deals = 0
                rec.on_barrel = False
                settled.add(seat)
            else:
                fall(seat, -value.base[seat], Mark.BARREL_FALL)

        self._bolts(value, marks, settled, fall)

        for seat in deal.active:  # T-27: three deals to win from the barrel
            rec = records[seat]
            if rec.on_barrel and seat not in settled:
                rec.barrel_deals += 1
                if rec.barrel_deals >= BARREL_DEALS:
                    fall(seat, BARREL_FALL_PENALTY, Mark.BARREL_TIMEOUT)

        if self.winner is None:
            if rules.barrel:
                self._climb(deal, mark, fall)
            else:
                self._first_to_goal(deal)

        # T-29 on the score the deal leaves: after a bump or a fall from climbing together too. Rules refuse a
        # barrel at 555 with samosval, so no seat on the barrel is ever reset here.
        if rules.samosval:
            for seat, rec in enumerate(records):
                if rec.score == SAMOSVAL:
                    mark(seat, Mark.SAMOSVAL, -SAMOSVAL)
                    rec.score = 0

        totals = tuple(rec.score for rec in records)
        events.extend(marks)
        events.append(
            DealScored(
                deal.number,
                deal.kind,
                declarer,
                value.contract,
                value.outcome,
                value.doubled,
                value.deal_points,
                tuple(after - b for after, b in zip(totals, before, strict=True)),
                totals,
            )
        )

    def _bolts(
        self,
        value: DealValue,
        marks: list[SheetMarked],
        settled: set[int],
        fall: _FallFn,
    ) -> None:
        """T-25: a bolt for a seat without a trick; the third costs 120 (and the barrel, T-27).

        At most two bolts come in one deal (a doubled one), so from two a seat reaches four at most: one
        penalty, and the fourth bolt counts towards the next three.
        """
        for seat, earned in enumerate(value.bolts):
            if not earned:
                continue
            rec = self.records[seat]
            rec.bolts += earned
            # One mark per bolt, so a doubled deal's bolt (T-30) reads as two on the sheet too.
            marks.extend(SheetMarked(seat, Mark.BOLT, 0) for _ in range(earned))
            if rec.bolts < BOLTS_TO_PENALTY:
                continue
            rec.bolts -= BOLTS_TO_PENALTY  # three are crossed out; a fourth (a doubled bolt, T-30) stays
            if rec.on_barrel and seat not in settled:
                fall(seat, BOLT_PENALTY, Mark.BOLT_PENALTY)
            else:
                rec.score -= BOLT_PENALTY
                marks.append(SheetMarked(seat, Mark.BOLT_PENALTY, -BOLT_PENALTY))

    def _climb(self, deal: Deal, mark: _MarkFn, fall: _FallFn) -> None:
        """T-27: reaching the barrel's score puts a seat on it (with the bump and both-fall variants)."""
        rules = self.rules
        climbers = [
            s for s, rec in enumerate(self.records) if not rec.on_barrel and rec.score >= rules.barrel_at
        ]
        if not climbers:
            return
        if len(climbers) > 1 and rules.barrel_simultaneous_both_fall:
            for seat in climbers:
                self.records[seat].score = rules.barrel_at
                fall(seat, BARREL_FALL_PENALTY, Mark.BARREL_BOTH_FALL)
            return
        already = [s for s, rec in enumerate(self.records) if rec.on_barrel]
        for seat in climbers:
            rec = self.records[seat]
            mark(seat, Mark.BARREL_ON, rules.barrel_at - rec.score)
            rec.score = rules.barrel_at
            rec.on_barrel = True
            rec.barrel_deals = 0
            rec.barrel_visits += 1
        if rules.barrel_bumped_by_newcomer:
            for seat in already:
                fall(seat, BARREL_FALL_PENALTY, Mark.BARREL_BUMPED)

    def _first_to_goal(self, deal: Deal) -> None:
        """T-26 without the barrel: the top score from 1000 up wins; ties to the declarer, then seat order."""
        reached = [s for s, rec in enumerate(self.records) if rec.score >= GOAL]
        if not reached:
            return
        top = max(self.records[s].score for s in reached)
        best = [s for s in reached if self.records[s].score == top]
        if deal.declarer in best:
            self.winner = deal.declarer
        else:
            self.winner = min(best, key=lambda s: (s - deal.dealer - 1) % self.rules.players)

    def _standings(self) -> tuple[Standing, ...]:
        """T-26 and T-32: every seat ranked by score, the winner first, with the bank's payouts."""
        n = self.rules.players
        winner = self.winner
        assert winner is not None
        order = sorted(
            range(n),
            key=lambda s: (s != winner, -self.records[s].score, (s - self.dealer - 1) % n),
        )
        bank = self.rules.bank
        return tuple(
            Standing(
                seat,
                place + 1,
                self.records[seat].score,
                bank if place == 0 else -bank if place == n - 1 else 0,
            )
            for place, seat in enumerate(order)
        )
