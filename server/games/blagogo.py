"""1000 Blagogo (``../shared/rules/blagogo.md``) as the server plays it: :mod:`engine.blagogo`,
:mod:`codec.blagogo`.

The one difference in legality from Thousand (B-22): a Turn lists the engine's simple legal actions
(complete) and some candidate melds, not all, so every action, listed or not, is checked by the engine's
exact validator.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence
from typing import Any, Final

from bots.blagogo import BlagogoStrategy
from bots.strategy import GameStrategies
from codec import blagogo as codec_blagogo
from engine import blagogo
from engine.blagogo import events as blagogo_events
from games import BLAGOGO as BLAGOGO_GAME
from server.games.adapter import GameAdapter, Scored, SeatBot
from thousand.v1 import table_service_pb2 as pb


class BlagogoAdapter(GameAdapter[blagogo.BlagogoRules, blagogo.Game, blagogo.Action, blagogo_events.Event]):
    """1000 Blagogo (``../shared/rules/blagogo.md``): :mod:`engine.blagogo`, :mod:`codec.blagogo`.

    A Turn lists the engine's simple legal actions (complete: draw, takes, discards, swaps, single-card
    additions), then its candidate melds (some legal LayMelds, not all: B-22). Any action is checked by the
    engine's exact validator, so a LayMelds or AddToMeld the list does not hold is accepted when legal.
    """

    description = BLAGOGO_GAME

    def scored(self, event: object) -> Scored | None:
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
        return Scored("round", "round", outcome, details)

    def action_kind(self, action: blagogo.Action) -> str:
        return _BLAGOGO_ACTION_KINDS.get(type(action), "unknown")

    def action_to_json(self, action: blagogo.Action) -> dict[str, Any]:
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

    def action_from_json(self, raw: dict[str, Any]) -> blagogo.Action:
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

    def event_for(self, event: blagogo_events.Event, audience: int | None) -> blagogo_events.Event:
        return blagogo.event_for(event, audience)

    def view_to_proto(self, game: blagogo.Game, audience: int | None) -> pb.View:
        return pb.View(blagogo=codec_blagogo.view_to_proto(blagogo.view(game, audience)))

    def turn_actions(self, game: blagogo.Game, seat: int) -> Sequence[blagogo.Action]:
        if game.to_act != seat:
            return ()
        return (*game.legal_actions(), *game.candidate_melds())

    def new_bot(self, strategy: str) -> SeatBot[blagogo.Game, blagogo.Action]:
        return BlagogoBot(strategy, self.strategies, self.turn_actions)


class BlagogoBot(SeatBot[blagogo.Game, blagogo.Action]):
    """A 1000 Blagogo strategy in a seat: it sees the seat's view and the actions its Turn lists (B-22)."""

    def __init__(
        self,
        strategy: str,
        registry: GameStrategies[BlagogoStrategy],
        turn_actions: Callable[[blagogo.Game, int], Sequence[blagogo.Action]],
    ) -> None:
        super().__init__(strategy, registry)
        self.player = registry.make(strategy)
        self._turn_actions = turn_actions

    def decide(
        self, game: blagogo.Game, seat: int, rng: random.Random, deadline: float | None = None
    ) -> blagogo.Action:
        return self.player.choose(blagogo.view(game, seat), self._turn_actions(game, seat), rng)

    def observe(self, game: blagogo.Game, seat: int) -> None:
        self.player.observe(blagogo.view(game, seat))


_BLAGOGO_ACTION_KINDS: Final[dict[type, str]] = {
    blagogo.DrawFromDeck: "draw_from_deck",
    blagogo.TakeFromBridge: "take_from_bridge",
    blagogo.LayMelds: "lay_melds",
    blagogo.AddToMeld: "add_to_meld",
    blagogo.SwapJoker: "swap_joker",
    blagogo.Discard: "discard",
}


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
