"""Stacked two-player deals and short moves for the 1000 Blagogo scenario tests (test_blagogo_rules_*).

Most scenarios have two players with seat 0 dealing, so seat 1 starts with 13 cards and seat 0 holds 12
(B-5). Hands are written by face; :func:`engine.blagogo.stacking.stack` picks the copies (``'`` is the second
deck's copy) and :func:`engine.blagogo.stacking.pick` finds them in a hand again. The hands here serve
scenarios of more than one rule group; a hand only one group uses stays in that group's module.
"""

from __future__ import annotations

from typing import TypeVar

import pytest

from engine.blagogo import (
    BlagogoIllegalActionError,
    BlagogoRules,
    Card,
    Discard,
    DrawFromDeck,
    Game,
    LayMelds,
    MeldSpec,
    Rank,
    Round,
    Stands,
    Suit,
    view,
)
from engine.blagogo.events import Event
from engine.blagogo.stacking import pick, stack
from engine.errors import ActionError

LOW0 = "2♦ 4♦ 6♦ 8♦ 3♠ 5♣ 7♠ 9♣ J♣ K♣ 3♥ 9♥"
"""Seat 0's default 12 cards: not one meld among them."""

OPENING_HAND = "9♦ 10♦ J♦ 10♠ J♠ Q♠ 2♥ 3♥ 4♥ 5♣ 5♦ 5♠ K♥"
"""Seat 1: 10♠ J♠ Q♠ (30) opens alone; 9♦ 10♦ J♦ (25) and 2♥ 3♥ 4♥ (15) do not (B-11)."""

RUN_HAND = "5♥ ★ 7♥ 6♥ K♠ A♠ 2♠ Q♠ 3♠ A♦ 2♦ 3♦ 9♣"
"""Seat 1: the run 5♥ ★ 7♥ with the 6♥ to swap for its joker, and the round-the-corner K♠ A♠ 2♠."""
LOW0_WITH_SIX = "10♦ J♦ Q♦ 8♥ 6♥ 2♣ 4♣ 6♣ 9♠ J♣ 3♥ 4♠"
"""Seat 0 beside :data:`RUN_HAND`: the second 6♥, the 8♥ that extends the run, and 10♦ J♦ Q♦ to open."""
SIX_HEARTS = Stands(Rank.SIX, Suit.HEARTS)

SET_HAND = "Q♠ Q♥ ★ Q♦ Q♣ Q♦ 2♣ 4♣ 6♣ 8♣ 10♥ 8♠ 6♥"
"""Seat 1: a queen of every suit, the second Q♦ and a joker."""
Q = Stands(Rank.QUEEN)

SCORE_HAND = "A♠ A♣ A♦ Q♥ K♥ A♥ 2♣ 3♣ 4♣ 7♦ 7♠ 7♥ 9♠"
SCORE0 = "A♠ ★ 10♣ J♦ K♠ 2♦ 3♠ 4♦ 5♥ 6♦ 8♣ 9♥"
"""Seat 0's hand: ace 10 (B-3 default), joker 25, three tens and faces 30, seven low cards 35: 100."""

T = TypeVar("T")


def deal(seat1: str, seat0: str = LOW0, bridge: str = "8♣", deck: str = "", **variants: object) -> Game:
    """A two-player game (seat 0 deals) whose first round is dealt from the stacked hands."""
    rules = BlagogoRules(players=2, **variants)  # type: ignore[arg-type]
    game = Game(rules, seed=0, first_dealer=0)
    game.apply_chance(stack(2, 0, {1: seat1, 0: seat0}, bridge, deck))
    return game


def rnd(game: Game) -> Round:
    assert game.round is not None
    return game.round


def held(game: Game, seat: int, text: str) -> tuple[Card, ...]:
    return pick(rnd(game).hand(seat), text)


def spec(game: Game, seat: int, text: str, *jokers: Stands) -> MeldSpec:
    return MeldSpec(held(game, seat, text), jokers)


def lay(game: Game, seat: int, *specs: MeldSpec) -> list[Event]:
    return game.apply(seat, LayMelds(specs))


def discard(game: Game, seat: int, text: str) -> list[Event]:
    return game.apply(seat, Discard(held(game, seat, text)[0]))


def draw(game: Game, seat: int) -> list[Event]:
    return game.apply(seat, DrawFromDeck())


def of_type(events: list[Event], kind: type[T]) -> list[T]:
    return [e for e in events if isinstance(e, kind)]


def score_round_without_kantrame(game: Game) -> list[Event]:
    """Seat 1 opens with aces and Q-K-A, then goes out on its second turn (no kantrame)."""
    events = lay(game, 1, spec(game, 1, "A♠ A♣ A♦"), spec(game, 1, "Q♥ K♥ A♥"))
    events += discard(game, 1, "9♠")
    events += draw(game, 0)
    events += discard(game, 0, "7♣")
    events += draw(game, 1)
    events += lay(game, 1, spec(game, 1, "2♣ 3♣ 4♣"), spec(game, 1, "7♦ 7♠ 7♥"))
    events += discard(game, 1, "5♣")
    return events


def rule_of(error: ActionError) -> object:
    return error.rule if isinstance(error, BlagogoIllegalActionError) else error.reason


def fingerprint(game: Game) -> str:
    r = game.round
    inner = (
        ()
        if r is None
        else (r.hands, r.deck, r.bridge, r.melds, r.opened, r.phase, r.to_act, r.must_meld, r.known, r.turns)
    )
    views = [view(game, v) for v in (None, *range(game.rules.players))]
    return repr((views, inner, len(game.events), len(game.history), game.scores))


def refused(game: Game, seat: int, action: object, reason: object) -> None:
    """The action is rejected with ``reason``, by both apply and validate, and nothing changes."""
    before = fingerprint(game)
    with pytest.raises(ActionError) as info:
        game.apply(seat, action)  # type: ignore[arg-type]
    assert rule_of(info.value) is reason, info.value.message
    with pytest.raises(ActionError) as again:
        game.validate(seat, action)
    assert rule_of(again.value) is reason
    assert not game.is_legal(seat, action)
    assert fingerprint(game) == before
