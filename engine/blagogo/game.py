"""A game of 1000 Blagogo: rounds until someone reaches the target (B-4, B-20, B-23).

The game owns the score sheet and the dealer rotation and is the one place where chance enters: every round
begins at a chance node whose outcome, a :class:`Shuffle`, is derived from the game's seed and the round's
number. Nothing reads a global random generator, so a game is a pure function of its rules, its seed and the
seats' actions (B-23), and ``history`` replays it exactly.

B-20: after the round in which some score reaches ``target``, the highest score wins; a tie goes to the
player who went out in that round, then to the earliest seat after that round's dealer.
"""

from __future__ import annotations

import random

from engine.blagogo.actions import Action, Shuffle
from engine.blagogo.candidates import candidate_melds
from engine.blagogo.cards import CARDS
from engine.blagogo.events import (
    DeckShuffled,
    Event,
    GameOver,
    GameStarted,
    RoundScored,
    RoundStarted,
    Standing,
)
from engine.blagogo.round import Round
from engine.blagogo.round_state import deal_order
from engine.blagogo.rules import BlagogoRules
from engine.blagogo.scoring import value_round
from engine.blagogo.verify import commitment
from engine.errors import IllegalActionError, InvalidActionError, Reason
from engine.seeds import FairDeals, derive_key, fair_shuffle


def derive_seed(seed: int, label: str) -> int:
    """A 64-bit key for one use of the game's seed, so rounds and the dealer choice never share a stream."""
    return derive_key("blagogo", seed, label)


def seeded_shuffle(seed: int, round_number: int) -> Shuffle:
    order = list(CARDS)
    random.Random(derive_seed(seed, f"round:{round_number}")).shuffle(order)
    return Shuffle(tuple(order))


class Game:
    """A whole game: ``apply_chance()`` at chance nodes, ``apply(seat, action)`` at decisions."""

    def __init__(
        self,
        rules: BlagogoRules,
        seed: int,
        first_dealer: int | None = None,
        *,
        fair: FairDeals | None = None,
    ) -> None:
        if not isinstance(rules, BlagogoRules):
            raise InvalidActionError(f"{rules!r} are not BlagogoRules")
        n = rules.players
        if first_dealer is not None and (
            not isinstance(first_dealer, int) or isinstance(first_dealer, bool) or not 0 <= first_dealer < n
        ):
            raise InvalidActionError(f"first dealer {first_dealer!r} is not a seat of {n} players")
        self.rules = rules
        self.seed = seed
        self.fair = fair
        """A fair table's rounds (engine.seeds); None: every round follows from ``seed``."""
        if first_dealer is None:
            first_dealer = random.Random(derive_seed(seed, "dealer")).randrange(n)  # B-4
        self.first_dealer = first_dealer
        self.dealer = first_dealer
        """The dealer of the current round, or of the next one at a chance node."""
        self.scores = [0] * n
        self.round: Round | None = None
        self.rounds_dealt = 0
        self.winner: int | None = None
        self.standings: tuple[Standing, ...] = ()
        self.history: list[tuple[int | None, Action | Shuffle]] = []
        """Every applied action with its seat (None for chance), enough to replay the game (B-23)."""
        self.events: list[Event] = [GameStarted(rules, first_dealer)]

    def copy(self) -> Game:
        """An independent copy of the game as it stands, without replaying its history: what a search needs
        to play many futures of one position (bench/blagogo_copy.py measures it against ``copy.deepcopy``).

        The sheet, the history, the events and the round (:meth:`RoundState.copy`) are copied, a fair
        table's record of its rounds too (a copy that deals must not write into the original's); their
        immutable values (actions, shuffles, events, cards) are shared. tests/test_game_copy.py checks
        that every attribute is copied.
        """
        twin = object.__new__(Game)
        state = self.__dict__.copy()
        state["scores"] = self.scores.copy()
        state["history"] = self.history.copy()
        state["events"] = self.events.copy()
        state["round"] = None if self.round is None else self.round.copy()
        state["fair"] = None if self.fair is None else self.fair.copy()
        twin.__dict__.update(state)
        return twin

    # ------------------------------------------------------------------ queries

    @property
    def is_over(self) -> bool:
        return self.winner is not None

    @property
    def is_chance_node(self) -> bool:
        return self.winner is None and (self.round is None or self.round.is_over)

    @property
    def to_act(self) -> int | None:
        """The seat to decide, or None at a chance node or once the game is over."""
        rnd = self.round
        if rnd is None or self.winner is not None:
            return None
        return rnd.to_act

    def legal_actions(self) -> tuple[Action, ...]:
        """The acting seat's complete list of simple actions (B-22; see :mod:`engine.blagogo.round`)."""
        rnd = self.round
        if rnd is None or self.winner is not None:
            return ()
        return rnd.legal_actions()

    def validate(self, seat: int, action: object) -> None:
        """B-22, the exact validator: raise why ``action`` is illegal now; return None if it is legal."""
        self._round_for(seat).validate(seat, action)

    def is_legal(self, seat: int, action: object) -> bool:
        try:
            self.validate(seat, action)
        except (IllegalActionError, InvalidActionError):
            return False
        return True

    def candidate_melds(self) -> tuple[Action, ...]:
        """Some legal meld actions of the seat to act (non-exhaustive: :mod:`engine.blagogo.candidates`)."""
        rnd = self.round
        if rnd is None or self.winner is not None:
            return ()
        return candidate_melds(rnd)

    def chance_outcome(self) -> Shuffle:
        """The shuffle of the next round: the fair one, or the seed's."""
        if self.fair is not None:
            return Shuffle(fair_shuffle(CARDS, self.fair.deal(self.rounds_dealt + 1).mix))
        return seeded_shuffle(self.seed, self.rounds_dealt + 1)

    # ------------------------------------------------------------------ applying

    def apply_chance(self, shuffle: Shuffle | None = None) -> list[Event]:
        """Deal the next round from ``shuffle`` (a stacked deck) or from the seeded shuffle."""
        if self.winner is not None:
            raise IllegalActionError(Reason.GAME_OVER, "the game is over")
        if not self.is_chance_node:
            raise IllegalActionError(Reason.WRONG_PHASE, "the round is in progress; no shuffle now")
        number = self.rounds_dealt + 1
        fair = None if self.fair is None else self.fair.deal(number)
        if shuffle is None:
            shuffle = self.chance_outcome() if fair is None else Shuffle(fair_shuffle(CARDS, fair.mix))
        elif not isinstance(shuffle, Shuffle):
            raise InvalidActionError(f"{shuffle!r} is not a shuffle")
        rnd = Round(self.rules, number, self.dealer, shuffle.order)
        committed = ""
        if fair is not None and self.fair is not None:  # a seeded round has no commitment (its seed gives it)
            rnd.salt, rnd.client_seeds = fair.salt, fair.client_seeds
            committed = commitment(fair.salt, None, shuffle.order)
            self.fair.dealt.append(fair.client_seeds)
        self.round = rnd
        self.rounds_dealt = number
        self.history.append((None, shuffle))
        events: list[Event] = [RoundStarted(number, self.dealer, rnd.first), DeckShuffled(number, committed)]
        events += rnd.start()
        self.events += events
        return events

    def apply(self, seat: int, action: Action) -> list[Event]:
        """Apply one seat's action; on rejection raise with the game unchanged."""
        rnd = self._round_for(seat)
        events = rnd.apply(seat, action)
        self.history.append((seat, action))
        if rnd.is_over:
            self._settle(rnd, events)
        self.events += events
        return events

    def _round_for(self, seat: int) -> Round:
        if self.winner is not None:
            raise IllegalActionError(Reason.GAME_OVER, "the game is over")
        if not isinstance(seat, int) or isinstance(seat, bool) or not 0 <= seat < self.rules.players:
            raise IllegalActionError(Reason.INVALID_SEAT, f"there is no seat {seat!r}")
        rnd = self.round
        if rnd is None or rnd.is_over:
            raise IllegalActionError(Reason.CHANCE_NODE, "the next round has not been dealt yet")
        return rnd

    def _settle(self, rnd: Round, events: list[Event]) -> None:
        """B-18 to B-20: write the round on the sheet, then end the game or pass the deal."""
        rules = self.rules
        value = value_round(rules, rnd)
        for seat, delta in enumerate(value.deltas):
            self.scores[seat] += delta
        events.append(
            RoundScored(
                rnd.number,
                value.winner,
                value.kantrame,
                value.meld_points,
                value.hand_penalties,
                value.deltas,
                tuple(self.scores),
            )
        )
        if max(self.scores) >= rules.target:
            order = deal_order(rules.players, rnd.dealer)
            top = max(self.scores)
            best = [s for s in order if self.scores[s] == top]
            self.winner = rnd.winner if rnd.winner in best else best[0]
            self.standings = self._standings(order)
            secret = "" if self.fair is None else self.fair.secret.hex()  # it proves every round's secret
            events.append(GameOver(self.winner, self.standings, secret))
            return
        self.dealer = (self.dealer + 1) % rules.players  # B-4: the deal passes clockwise

    def _standings(self, order: tuple[int, ...]) -> tuple[Standing, ...]:
        winner = self.winner
        ranked = sorted(order, key=lambda s: (s != winner, -self.scores[s], order.index(s)))
        return tuple(Standing(seat, place + 1, self.scores[seat]) for place, seat in enumerate(ranked))
