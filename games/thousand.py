"""Thousand (``../shared/rules/thousand.md``): :mod:`engine`, :mod:`codec.thousand`, :mod:`bots.registry`."""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import fields
from enum import Enum
from typing import Any, Final, get_args

import engine
from bots.registry import THOUSAND as THOUSAND_BOTS
from bots.strategy import Strategy, decide
from codec import thousand as codec
from engine import events as thousand_events
from engine.cards import CARDS, Card
from engine.events import GameOver
from engine.seeds import FairDeals, derive_seed
from engine.verify import THOUSAND as THOUSAND_DEALS
from games.description import Duplicate, GameDescription, Scored
from thousand.v1 import table_service_pb2 as pb


def _new_game(
    rules: engine.Rules, seed: int, first_dealer: int | None, fair: FairDeals | None
) -> engine.Game:
    return engine.Game(rules, seed, first_dealer, fair=fair)


def _turn_actions(game: engine.Game, seat: int) -> Sequence[engine.Action]:
    """T-34: the Turn lists the seat's complete legal actions."""
    return game.legal_actions() if game.to_act == seat else ()


def _choose(
    strategy: Strategy,
    view: engine.View,
    actions: Sequence[engine.Action],
    rng: random.Random,
    deadline: float | None,
) -> engine.Action:
    """A Thousand strategy decides from the view alone: its legal actions are the Turn's (T-34)."""
    return decide(strategy, view, rng, deadline)


def _scored(event: object) -> Scored | None:
    """A deal (T-24 to T-27): kind ``normal``/``golden``/..., outcome ``made``/``failed``/..."""
    if not isinstance(event, thousand_events.DealScored):
        return None
    kind, outcome = event.kind.value, event.outcome.value
    details = {
        "deal": event.number,
        "kind": kind,
        "declarer": event.declarer,
        "contract": event.contract,
        "outcome": outcome,
        "totals": list(event.totals),
    }
    return Scored("deal", kind, outcome, details, event.deltas)


_ACTIONS: Final[dict[str, type[engine.Action]]] = {
    "bid": engine.Bid,
    "pass_bid": engine.Pass,
    "declare_dark": engine.DeclareDark,
    "decline_dark": engine.DeclineDark,
    "demand_redeal": engine.DemandRedeal,
    "choose_talon": engine.ChooseTalon,
    "give_card": engine.GiveCard,
    "discard_card": engine.DiscardCard,
    "name_contract": engine.NameContract,
    "concede": engine.Concede,
    "play_card": engine.PlayCard,
}
"""Each action class by its case in ThousandAction: the ``kind`` of a game record's action."""
_KINDS: Final[dict[type, str]] = {cls: kind for kind, cls in _ACTIONS.items()}


def _action_to_json(action: engine.Action) -> dict[str, Any]:
    return {
        "kind": _KINDS.get(type(action), "unknown"),
        **{f.name: _plain(getattr(action, f.name)) for f in fields(action)},
    }


def _action_from_json(raw: dict[str, Any]) -> engine.Action:
    kind = raw.get("kind")
    cls = _ACTIONS.get(str(kind))
    if cls is None:
        raise ValueError(f"unknown action kind {kind!r}")
    args: dict[str, Any] = {}
    for f in fields(cls):
        value = raw[f.name]
        if f.name == "card":
            value = Card.parse(value)
        elif f.name == "reason":
            value = engine.RedealReason(value)
        args[f.name] = value
    action: engine.Action = cls(**args)
    return action


def _plain(value: object) -> object:
    """An action's field in JSON: an enum by its value, a card as the engine prints it."""
    if isinstance(value, Enum):
        return value.value
    if isinstance(value, Card):
        return str(value)
    return value


def _playing(game: engine.Game) -> Sequence[int]:
    deal = game.deal
    assert deal is not None
    return deal.active


DUPLICATE: Final = Duplicate(
    unit="deal",
    cards=CARDS,
    stacked=engine.Shuffle,
    derive_seed=derive_seed,
    games_label="game-tournament",
    playing=_playing,
    played=lambda game: game.deals_played,
    dealt=lambda game: game.deals_dealt,
    score=lambda game, seat: game.records[seat].score,
    unit_players=3,
    tournament_rules={},
    max_units=200,
    stalls=False,
)
"""Deals on a fresh score sheet (no barrel, bolts or race to 1000), or whole games cut after 200 deals."""

THOUSAND: Final = GameDescription(
    kind=pb.GAME_KIND_THOUSAND,
    name="thousand",
    title="Thousand",
    rules_type=engine.Rules,
    default_rules=lambda players: engine.Rules(players=players),
    new_game=_new_game,
    action_types=get_args(engine.Action),
    game_over=GameOver,
    codec=codec,
    deals=THOUSAND_DEALS,
    strategies=THOUSAND_BOTS,
    takeover_strategy="greedy",
    view=engine.view,
    event_for=engine.event_for,
    turn_actions=_turn_actions,
    choose=_choose,
    scored=_scored,
    action_kinds=_KINDS,
    action_to_json=_action_to_json,
    action_from_json=_action_from_json,
    duplicate=DUPLICATE,
)
