"""One round of 1000 Blagogo, from the deal to the discard that goes out (B-5 to B-19): the turn.

A :class:`Round` is a state machine over two phases per turn: ``DRAW`` (draw from the deck, or take from the
bridge once opened) and ``PLAY`` (any number of meld actions, then one discard that ends the turn). The
first player's first turn starts in ``PLAY`` (B-8). Its state is :class:`RoundState`'s; the meld actions are
planned by :mod:`engine.blagogo.melding`, the draw, the take and the discard here.

Every action goes through one planner (``_plan``) that checks it completely and returns the change as a
closure; nothing is touched until the closure runs. So a rejected action leaves the round exactly as it was,
and :meth:`Round.validate` (the check alone) and :meth:`Round.apply` (check and change) can never disagree.

Legal actions (B-22) come in two kinds:

- :meth:`Round.legal_actions` is the **complete** list of the acting seat's *simple* actions: the draw,
  every bridge position it may take from, every discard, every joker swap and every single-card
  :class:`AddToMeld` (each card, in every meaning and at every end it fits).
- :class:`LayMelds` and multi-card :class:`AddToMeld` are too many to list. :meth:`Round.validate` is an
  **exact** validator for every action (it accepts exactly the legal ones and rejects anything else with a
  specific reason, the state unchanged), and :func:`engine.blagogo.candidates.candidate_melds` lists a
  useful, **non-exhaustive** set of legal ones for bots.

Choices where the specification leaves room (all of them are listed in this package's README.md; the deal's
are in :mod:`engine.blagogo.round_state`, the meld actions' in :mod:`engine.blagogo.melding`):

- The deck is turned over (B-10) at the start of the turn of the player who must draw from an empty deck,
  before they decide; so the bridge they could have taken from is now the deck. At the start of every turn
  the bridge holds at least the last discard, so B-10's "bridge empty too" never happens; at that moment a
  round nobody can go out of ends instead (:mod:`engine.blagogo.dead_round`), and at the start of any turn
  after :data:`~engine.blagogo.dead_round.QUIET_TURNS` turns without a card placed (so every round ends).
  The variant ``turnover_limit`` (off by default; not in the source) ends the round with no winner when the
  deck runs out after that many turnovers.
- B-9 ``bridge_take_must_meld``: taking is allowed when some sequence of the turn's meld actions can put the
  deepest card taken on the table (a joker swapped out first, then laid with it, counts:
  :func:`engine.blagogo.placing.can_meld_this_turn`); until it is on the table the player may not discard.
- Discarding the card just taken from the bridge is allowed (the source does not forbid it).
- Kantrame (B-19): the player went out in the same turn as their opening, i.e. had no meld on the table at
  the start of that turn; with ``kantrame_first_turn_only`` it must also be their first turn of the round.

``Phase`` is :mod:`engine.blagogo.round_state`'s, importable from here as before.
"""

from __future__ import annotations

from engine.blagogo.actions import (
    DISCARDS,
    DRAW,
    Action,
    AddToMeld,
    Discard,
    DrawFromDeck,
    LayMelds,
    SwapJoker,
    TakeFromBridge,
    take,
)
from engine.blagogo.cards import CARDS, Card, cards_of, indices_of
from engine.blagogo.dead_round import is_dead, is_quiet, is_stalled
from engine.blagogo.errors import BlagogoReason, illegal
from engine.blagogo.events import (
    BridgeStarted,
    BridgeTaken,
    BridgeTurnedOver,
    CardDrawn,
    DeckExhausted,
    Discarded,
    Event,
    Exhaustion,
    HandDealt,
    RoundRevealed,
    WentOut,
)
from engine.blagogo.melding import plan_add, plan_lay, plan_swap, table_actions
from engine.blagogo.round_state import Commit, Phase, RoundState
from engine.errors import IllegalActionError, InvalidActionError, Reason

__all__ = ["Phase", "Round"]

PLACING: tuple[type, ...] = (LayMelds, AddToMeld, SwapJoker)
"""The actions that put a card on the table."""


class Round(RoundState):
    """One round, dealt from ``order`` (the 108 cards in dealing order) by ``dealer``."""

    def start(self) -> list[Event]:
        """The deal's events: each hand, then the first card of the bridge."""
        events: list[Event] = [
            HandDealt(seat, self.hands[seat].bit_count(), cards_of(self.hands[seat])) for seat in self.seats
        ]
        events.append(BridgeStarted(CARDS[self.bridge[0]], len(self.deck)))
        return events

    # ------------------------------------------------------------------ queries

    def legal_actions(self) -> tuple[Action, ...]:
        """The acting seat's complete list of *simple* legal actions (see the module docstring).

        Empty once the round is over. :class:`LayMelds` and multi-card :class:`AddToMeld` are never listed:
        check them with :meth:`validate`, and find some with ``candidate_melds``.
        """
        legal = self._legal
        if legal is None:
            legal = self._legal = self._compute_legal()
        return legal

    def validate(self, seat: int, action: object) -> None:
        """Raise why ``action`` is illegal for ``seat`` now; return None if it is legal. Exact (B-22)."""
        self._plan(seat, action)

    def is_legal(self, seat: int, action: object) -> bool:
        try:
            self._plan(seat, action)
        except (IllegalActionError, InvalidActionError):
            return False
        return True

    # ------------------------------------------------------------------ legal actions

    def _compute_legal(self) -> tuple[Action, ...]:
        seat = self.to_act
        if seat is None:
            return ()
        if self.phase is Phase.DRAW:
            actions: list[Action] = [DRAW]
            if self.opened[seat]:
                actions.extend(take(p) for p in range(len(self.bridge)))
            if self.rules.bridge_take_must_meld:
                return tuple(a for a in actions if self.is_legal(seat, a))
            return tuple(actions)
        hand = self.hands[seat]
        actions = []
        if self.opened[seat]:
            actions.extend(table_actions(self, seat, hand))
        if self.must_meld is not None:
            return tuple(a for a in actions if self.is_legal(seat, a))
        actions.extend(DISCARDS[i] for i in indices_of(hand))
        return tuple(actions)

    # ------------------------------------------------------------------ apply

    def apply(self, seat: int, action: Action) -> list[Event]:
        """Apply ``seat``'s action and return its events; on rejection raise with the round unchanged."""
        commit = self._plan(seat, action)
        self._legal = None
        if type(action) in PLACING:
            self.quiet_turns = 0
            self.placed_since_turnover = True
            if self.go_out_draws:
                self.go_out_draws = {}
        events: list[Event] = []
        commit(events)
        return events

    def _plan(self, seat: int, action: object) -> Commit:
        if self.phase is Phase.OVER:
            raise IllegalActionError(Reason.GAME_OVER, "the round is over")
        if seat != self.to_act:
            raise IllegalActionError(
                Reason.NOT_YOUR_TURN, f"it is seat {self.to_act}'s turn, not seat {seat}'s"
            )
        kind = type(action)
        if kind is Discard:
            assert isinstance(action, Discard)
            return self._plan_discard(seat, action.card)
        if kind is DrawFromDeck:
            return self._plan_draw(seat)
        if kind is TakeFromBridge:
            assert isinstance(action, TakeFromBridge)
            return self._plan_take(seat, action.position)
        if kind is LayMelds:
            assert isinstance(action, LayMelds)
            return plan_lay(self, seat, action.melds)
        if kind is AddToMeld:
            assert isinstance(action, AddToMeld)
            return plan_add(self, seat, action)
        if kind is SwapJoker:
            assert isinstance(action, SwapJoker)
            return plan_swap(self, seat, action.meld_id, action.card)
        raise InvalidActionError(f"{action!r} is not an action of 1000 Blagogo")

    # -- the draw

    def _need_draw_phase(self, what: str) -> None:
        if self.phase is not Phase.DRAW:
            raise IllegalActionError(
                Reason.WRONG_PHASE, f"{what} starts a turn; this turn's draw is done, now meld or discard"
            )

    def _plan_draw(self, seat: int) -> Commit:
        self._need_draw_phase("drawing")

        def commit(events: list[Event]) -> None:
            index = self.deck.pop()
            self.hands[seat] |= 1 << index
            self.phase = Phase.PLAY
            events.append(CardDrawn(seat, CARDS[index]))

        return commit

    def _plan_take(self, seat: int, position: object) -> Commit:
        if not isinstance(position, int) or isinstance(position, bool):
            raise InvalidActionError(f"bridge position {position!r} is not a number")
        self._need_draw_phase("taking from the bridge")
        if not self.opened[seat]:
            raise illegal(
                BlagogoReason.NOT_OPENED, "only a player who has opened may take from the bridge (B-9)"
            )
        bridge = self.bridge
        if not 0 <= position < len(bridge):
            raise illegal(
                BlagogoReason.NO_SUCH_POSITION,
                f"the bridge has positions 0 to {len(bridge) - 1}, not {position}",
            )
        taken = bridge[position:]
        deepest = taken[0]
        must_meld = self.rules.bridge_take_must_meld
        if must_meld:
            hand = self.hands[seat]
            for i in taken:
                hand |= 1 << i
            if not self.can_meld(seat, deepest, hand, self.melds):
                raise illegal(
                    BlagogoReason.BRIDGE_CARD_NOT_MELDABLE,
                    f"{CARDS[deepest]} could not be melded this turn, by any sequence of meld actions "
                    "(bridge_take_must_meld)",
                )

        def commit(events: list[Event]) -> None:
            del self.bridge[position:]
            mask = 0
            for i in taken:
                mask |= 1 << i
            self.hands[seat] |= mask
            self.known[seat] |= mask
            if must_meld:
                self.must_meld = deepest
            self.phase = Phase.PLAY
            events.append(BridgeTaken(seat, position, tuple(CARDS[i] for i in taken)))

        return commit

    # -- the discard

    def _plan_discard(self, seat: int, card: object) -> Commit:
        if not isinstance(card, Card):
            raise InvalidActionError(f"{card!r} is not a card")
        self.need_play_phase("discard")
        index = card.index
        if not self.hands[seat] >> index & 1:
            raise IllegalActionError(Reason.NO_SUCH_CARD, f"{card} is not in your hand")
        if self.must_meld is not None:
            raise illegal(
                BlagogoReason.MUST_MELD_BRIDGE_CARD,
                f"meld {CARDS[self.must_meld]}, taken from the bridge, before discarding (B-9)",
            )

        def commit(events: list[Event]) -> None:
            bit = 1 << index
            self.hands[seat] &= ~bit
            self.known[seat] &= ~bit
            self.bridge.append(index)
            events.append(Discarded(seat, card))
            if not self.hands[seat]:
                self._go_out(seat, events)
            else:
                self._next_turn(seat, events)

        return commit

    def _go_out(self, seat: int, events: list[Event]) -> None:
        """B-18, B-19."""
        turn = self.turns[seat]
        kantrame = self.opened_on_turn[seat] == turn
        if self.rules.kantrame_first_turn_only and turn != 1:
            kantrame = False
        self.winner = seat
        self.kantrame = kantrame
        events.append(WentOut(seat, kantrame))
        self._finish(events)

    def _next_turn(self, seat: int, events: list[Event]) -> None:
        n = self.rules.players
        nxt = (seat + 1) % n
        self.to_act = nxt
        self.turns[nxt] += 1
        self.quiet_turns += 1
        self.phase = Phase.DRAW
        if is_quiet(self):  # dead_round.QUIET_TURNS: a round nobody places a card in any more ends
            events.append(DeckExhausted(self.turnovers, Exhaustion.NO_ONE_CAN_GO_OUT))
            self._finish(events)
            return
        if self.deck:
            return
        reason = self._unwon()
        if reason is not None:  # B-10: the round ends with no winner
            events.append(DeckExhausted(self.turnovers, reason))
            self._finish(events)
            return
        self.deck = self.bridge[::-1]  # B-10: face down, the earliest-laid card on top
        self.bridge = []
        self.turnovers += 1
        self.placed_since_turnover = False
        events.append(BridgeTurnedOver(len(self.deck)))

    def _unwon(self) -> Exhaustion | None:
        """Why the round ends with no winner now that a draw is due from an empty deck (B-10), if it does."""
        if not self.bridge:
            return Exhaustion.NOTHING_TO_DRAW
        limit = self.rules.turnover_limit
        if limit and self.turnovers >= limit:
            return Exhaustion.TURNOVER_LIMIT
        if is_dead(self) or is_stalled(self, self.quiet_turns, self.placed_since_turnover):
            return Exhaustion.NO_ONE_CAN_GO_OUT
        return None

    def _finish(self, events: list[Event]) -> None:
        self.phase = Phase.OVER
        self.to_act = None
        self.must_meld = None
        events.append(
            RoundRevealed(
                self.number,
                self.order,
                tuple(cards_of(m) for m in self.dealt),
                tuple(cards_of(m) for m in self.hands),
                self.salt,
                self.client_seeds,
            )
        )
