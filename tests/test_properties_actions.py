"""Property tests over random Thousand games: the refusal of every action not legal (T-34, T-33).

At every decision every action outside the legal list, and every action of a seat not to act, is refused and
changes nothing (T-34), with a message naming no card the seat may not see (T-33). That a seat is to act
exactly when it has legal actions is checked for every game in tests/test_engine_conformance.py.
Games are played by the seeded random players of :mod:`tests.randomplay`; the rules, seeds and observers
they share: :mod:`tests.property_helpers`.
"""

from __future__ import annotations

import contextlib
import re
from functools import cache

import pytest
from hypothesis import given, settings

from engine import (
    Action,
    ActionError,
    Bid,
    Card,
    ChooseTalon,
    Concede,
    DeclareDark,
    DeclineDark,
    DemandRedeal,
    DiscardCard,
    Game,
    GiveCard,
    NameContract,
    Pass,
    PlayCard,
    Reason,
    RedealReason,
    Rules,
    Shuffle,
    view,
)
from engine.cards import CARDS
from tests.instances import instances_in
from tests.property_helpers import (
    MAX_DEALS,
    RULES,
    SEEDS,
    may_see,
    property_settings,
    replay,
    viewers,
)
from tests.randomplay import states

heavy_settings = settings(property_settings, max_examples=40)
"""For the test that tries ~350 actions at every decision."""


_CARD_TEXT = re.compile(r"(?:10|[9JQKA])[♠♣♦♥]")


def cards_named(text: str) -> set[Card]:
    return {Card.parse(m) for m in _CARD_TEXT.findall(text)}


def internal_state(obj: object, skip: frozenset[str] = frozenset()) -> str:
    """The repr of an object's public attributes (private ones are caches), with or without ``__slots__``."""
    names = set(getattr(obj, "__dict__", ()))
    for cls in type(obj).__mro__:
        slots = getattr(cls, "__slots__", ())
        names.update((slots,) if isinstance(slots, str) else slots)
    public = sorted(n for n in names if not n.startswith("_") and n not in skip)
    return repr([(n, getattr(obj, n, None)) for n in public])


_GAME_SKIP = frozenset({"deal", "events", "history", "rules"})


def fingerprint(game: Game) -> tuple[object, ...]:
    """The state: every seat's and the spectator's view, the event and history counts, and (to catch a change
    no view shows, such as who has spoken in the auction) the game's and the deal's own attributes."""
    return (
        tuple(repr(view(game, v)) for v in viewers(game)),
        len(game.events),
        len(game.history),
        internal_state(game, _GAME_SKIP),
        internal_state(game.deal),
    )


@cache
def candidate_actions(players: int) -> tuple[Action, ...]:
    """One or more actions of every type, legal or not, for the illegal-action test."""
    values = (*range(-5, 410, 5), 1, 99, 101, 102, 103, 104, 106, 119, 121, 122, 999)
    actions: list[Action] = [PlayCard(c, marriage) for c in CARDS for marriage in (False, True)]
    actions += [Bid(v) for v in values]
    actions += [NameContract(v) for v in values]
    actions += [GiveCard(c, to) for c in CARDS for to in range(players)]
    actions += [DiscardCard(c) for c in CARDS]
    actions += [ChooseTalon(i) for i in range(3)]
    actions += [DemandRedeal(r) for r in RedealReason]
    actions += [Pass(), DeclareDark(), DeclineDark(), Concede()]
    return tuple(actions)


# ---------------------------------------------------------------------------------------------- T-34


def _find_mutation(
    rules: Rules, seed: int, steps: int, attempts: list[tuple[int, Action]], before: tuple[object, ...]
) -> str:
    """Which rejected attempt changed the state: replay to the same point and retry each alone."""
    for seat, action in attempts:
        game = replay(rules, seed, play_history(rules, seed, steps))
        assert fingerprint(game) == before
        with contextlib.suppress(ActionError):
            game.apply(seat, action)
        if fingerprint(game) != before:
            return f"seat {seat} {action!r} was rejected but changed the state"
    return "the state changed, but no single rejected action changes it on its own"


def play_history(rules: Rules, seed: int, steps: int) -> list[tuple[int | None, Action | Shuffle]]:
    for game in states(rules, seed, MAX_DEALS):
        if len(game.history) == steps:
            return list(game.history)
    raise AssertionError("history too short")


@heavy_settings
@given(rules=RULES, seed=SEEDS)
def test_t34_t33_every_other_action_is_rejected_and_changes_nothing(rules: Rules, seed: int) -> None:
    """T-34: at every decision, every action outside the legal list (of every action type), and every action
    by a seat not to act, raises ActionError and leaves the state unchanged. T-33: no rejection message names
    a card the seat may not see."""
    candidates = candidate_actions(rules.players)
    for game in states(rules, seed, MAX_DEALS):
        if game.is_over:
            for seat in range(rules.players):
                with pytest.raises(ActionError) as over:
                    game.apply(seat, Pass())
                assert over.value.reason is Reason.GAME_OVER
            break
        before = fingerprint(game)
        counts = len(game.events), len(game.history)
        attempts: list[tuple[int, Action]] = []
        if game.is_chance_node:
            attempts += [(s, Pass()) for s in range(rules.players)]
        else:
            actor = game.to_act
            assert actor is not None
            legal = set(game.legal_actions())
            attempts += [(actor, a) for a in candidates if a not in legal]
            attempts += [(other, a) for other in range(rules.players) if other != actor for a in legal]
            with pytest.raises(ActionError) as chance:
                game.apply_chance()
            assert chance.value.reason is Reason.WRONG_PHASE
        known = {v: may_see(game, v) for v in range(rules.players)} if game.deal is not None else {}
        for seat, action in attempts:
            try:
                game.apply(seat, action)
            except ActionError as error:
                if game.to_act is not None and seat != game.to_act:
                    assert error.reason is Reason.NOT_YOUR_TURN
                mentioned = cards_named(str(error)) - instances_in(action, Card, set())
                leaked = mentioned - known.get(seat, frozenset())
                assert not leaked, f"seat {seat} {action!r}: message {error!s} names hidden {leaked} (T-33)"
            else:
                raise AssertionError(f"seat {seat} {action!r} was accepted but is not legal")
            assert (len(game.events), len(game.history)) == counts, f"seat {seat} {action!r} changed state"
        if fingerprint(game) != before:
            raise AssertionError(_find_mutation(rules, seed, counts[1], attempts, before))
