"""1000 Blagogo (``../shared/rules/blagogo.md``): :mod:`engine.blagogo`, :mod:`codec.blagogo`,
:mod:`bots.blagogo`."""

from __future__ import annotations

import random
from collections.abc import Sequence
from typing import Any, Final, get_args

from bots.blagogo import BLAGOGO as BLAGOGO_BOTS
from bots.blagogo import BlagogoStrategy, decide_blagogo
from codec import blagogo as codec
from engine import blagogo
from engine.blagogo import events as blagogo_events
from engine.blagogo.events import GameOver
from engine.blagogo.game import derive_seed
from engine.blagogo.verify import BLAGOGO as BLAGOGO_DEALS
from engine.seeds import FairDeals
from games.description import Duplicate, GameDescription, Scored
from thousand.v1 import table_service_pb2 as pb


def _new_game(
    rules: blagogo.BlagogoRules, seed: int, first_dealer: int | None, fair: FairDeals | None
) -> blagogo.Game:
    return blagogo.Game(rules, seed, first_dealer, fair=fair)


def _turn_actions(game: blagogo.Game, seat: int) -> Sequence[blagogo.Action]:
    """B-22: the engine's simple legal actions (complete: draw, takes, discards, swaps, single-card
    additions), then its candidate melds (some legal LayMelds, not all; the engine validates any other)."""
    if game.to_act != seat:
        return ()
    return (*game.legal_actions(), *game.candidate_melds())


def _choose(
    strategy: BlagogoStrategy,
    view: blagogo.View,
    actions: Sequence[blagogo.Action],
    rng: random.Random,
    deadline: float | None,
) -> blagogo.Action:
    """A 1000 Blagogo strategy decides from the view and the Turn's actions (B-22); a searching one is
    handed the Turn's deadline (:func:`bots.blagogo.decide_blagogo`)."""
    return decide_blagogo(strategy, view, actions, rng, deadline)


def _scored(event: object) -> Scored | None:
    """A round (B-18, B-19; no winner: B-10): kind ``round``, outcome ``went_out``, ``kantrame`` or
    ``no_winner``."""
    if not isinstance(event, blagogo_events.RoundScored):
        return None
    outcome = "no_winner" if event.winner is None else "kantrame" if event.kantrame else "went_out"
    details = {
        "round": event.number,
        "winner": event.winner,
        "outcome": outcome,
        "totals": list(event.totals),
    }
    return Scored("round", "round", outcome, details, event.deltas)


_KINDS: Final[dict[type, str]] = {
    blagogo.DrawFromDeck: "draw_from_deck",
    blagogo.TakeFromBridge: "take_from_bridge",
    blagogo.LayMelds: "lay_melds",
    blagogo.AddToMeld: "add_to_meld",
    blagogo.SwapJoker: "swap_joker",
    blagogo.Discard: "discard",
}
"""Each action class by its case in BlagogoAction."""


def _action_to_json(action: blagogo.Action) -> dict[str, Any]:
    """Cards as the engine prints them ("A♠", "A♠'" for the second deck's copy, "★1" to "★4" for the
    jokers), a joker's meaning as ``{"rank": "K", "suit": "♠"}`` (``"suit": null`` in a set) and a run's
    end as ``"low"``/``"high"`` (null for a set)."""
    match action:
        case blagogo.DrawFromDeck():
            return {"kind": "draw_from_deck"}
        case blagogo.TakeFromBridge(position):
            return {"kind": "take_from_bridge", "position": position}
        case blagogo.LayMelds(melds):
            return {
                "kind": "lay_melds",
                "melds": [
                    {"cards": _cards_json(m.cards), "jokers": [_stands_json(s) for s in m.jokers]}
                    for m in melds
                ],
            }
        case blagogo.AddToMeld(meld_id, cards, jokers, end):
            return {
                "kind": "add_to_meld",
                "meld_id": meld_id,
                "cards": _cards_json(cards),
                "jokers": [_stands_json(s) for s in jokers],
                "end": None if end is None else end.value,
            }
        case blagogo.SwapJoker(meld_id, card):
            return {"kind": "swap_joker", "meld_id": meld_id, "card": str(card)}
        case blagogo.Discard(card):
            return {"kind": "discard", "card": str(card)}


def _action_from_json(raw: dict[str, Any]) -> blagogo.Action:
    match raw.get("kind"):
        case "draw_from_deck":
            return blagogo.DrawFromDeck()
        case "take_from_bridge":
            return blagogo.TakeFromBridge(int(raw["position"]))
        case "lay_melds":
            return blagogo.LayMelds(
                tuple(
                    blagogo.MeldSpec(
                        _cards_from_json(m["cards"]), tuple(_stands_from_json(s) for s in m["jokers"])
                    )
                    for m in raw["melds"]
                )
            )
        case "add_to_meld":
            end = raw.get("end")
            return blagogo.AddToMeld(
                int(raw["meld_id"]),
                _cards_from_json(raw["cards"]),
                tuple(_stands_from_json(s) for s in raw["jokers"]),
                None if end is None else blagogo.End(end),
            )
        case "swap_joker":
            return blagogo.SwapJoker(int(raw["meld_id"]), blagogo.Card.parse(raw["card"]))
        case "discard":
            return blagogo.Discard(blagogo.Card.parse(raw["card"]))
        case kind:
            raise ValueError(f"unknown action kind {kind!r}")


def _stands_json(stands: blagogo.Stands) -> dict[str, Any]:
    return {"rank": stands.rank.label, "suit": None if stands.suit is None else stands.suit.symbol}


def _stands_from_json(raw: dict[str, Any]) -> blagogo.Stands:
    rank = next((r for r in blagogo.Rank if r.label == raw["rank"]), None)
    if rank is None:
        raise ValueError(f"not a rank: {raw['rank']!r}")
    if raw.get("suit") is None:
        return blagogo.Stands(rank)
    suit = next((s for s in blagogo.Suit if s.symbol == raw["suit"]), None)
    if suit is None:
        raise ValueError(f"not a suit: {raw['suit']!r}")
    return blagogo.Stands(rank, suit)


def _cards_json(cards: tuple[blagogo.Card, ...]) -> list[str]:
    return [str(c) for c in cards]


def _cards_from_json(raw: list[str]) -> tuple[blagogo.Card, ...]:
    return tuple(blagogo.Card.parse(text) for text in raw)


DUPLICATE: Final = Duplicate(
    unit="round",
    cards=blagogo.CARDS,
    stacked=blagogo.Shuffle,
    derive_seed=derive_seed,
    games_label="blagogo-games",
    playing=lambda game: range(game.rules.players),
    played=lambda game: game.rounds_dealt,
    dealt=lambda game: game.rounds_dealt,
    score=lambda game, seat: game.scores[seat],
    unit_players=4,
    tournament_rules={"turnover_limit": 2},
    max_units=100,
    stalls=True,
)
"""Rounds ending after two turnovers of the deck unless told; whole games cut after 100 rounds."""

BLAGOGO: Final = GameDescription(
    kind=pb.GAME_KIND_BLAGOGO,
    name="blagogo",
    title="1000 Blagogo",
    rules_type=blagogo.BlagogoRules,
    default_rules=lambda players: blagogo.BlagogoRules(players=players),
    new_game=_new_game,
    action_types=get_args(blagogo.Action),
    game_over=GameOver,
    codec=codec,
    deals=BLAGOGO_DEALS,
    strategies=BLAGOGO_BOTS,
    takeover_strategy="random",
    view=blagogo.view,
    event_for=blagogo.event_for,
    turn_actions=_turn_actions,
    choose=_choose,
    scored=_scored,
    action_kinds=_KINDS,
    action_to_json=_action_to_json,
    action_from_json=_action_from_json,
    duplicate=DUPLICATE,
)
