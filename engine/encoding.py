"""Thousand for learning: a fixed id for every action, an observation tensor, a legal-action mask and an
information-state key, written once here for every framework (the OpenSpiel, PettingZoo and Gymnasium
environments of :mod:`bots.envs`, the bot SDK) and every variant of the rules (T-1 to T-35).

Action ids (:data:`NUM_ACTIONS` of them, the same for every variant and player count)::

    0               Pass                         1  DeclareDark        2  DeclineDark
    3, 4, 5         DemandRedeal(FOUR_NINES, WEAK_TALON, WEAK_HAND)    6  Concede
    7, 8            ChooseTalon(0), ChooseTalon(1)
    9 + k           Bid(100 + 5k),           k = 0 .. 60   (100 to 400)
    70 + k          NameContract(100 + 5k),  k = 0 .. 60
    131 + 4c + s    GiveCard(card c, to seat s)          (c = card index 0..23, s = 0..3)
    227 + c         DiscardCard(card c)
    251 + c         PlayCard(card c)
    275 + 2u + k    PlayCard(K or Q of suit u, declaring the marriage): k = 0 queen, 1 king

A card's index is ``suit * 6 + rank`` (:class:`engine.Card.index`: ♠ ♣ ♦ ♥, ranks 9 J Q K 10 A).

The observation (:data:`OBSERVATION_SIZE` floats, :func:`observation`) is what one seat sees (its
:class:`engine.View`, T-33), with the seats numbered *relative to the viewer* (0 is the viewer, 1 the next
seat in turn order, ...; four slots whatever the player count, unused ones zero), so one network plays every
seat. Its blocks, in order (:data:`LAYOUT` gives each block's offset and size)::

    hand 24 · talon 24 (the taken talon when shown to the viewer) · gave 24 · received 24 (exchange cards
    the viewer saw) · played 4x24 (completed tricks' cards by seat) · trick 4x24 (the trick on the table by
    seat) · phase 7 (one-hot: dark, auction, talon choice, exchange, contract, play, over) · kind 3 (normal,
    golden, obligatory) · dealer 4 · to act 4 · declarer 4 · high bidder 4 · dark seat 4 · passed 4 ·
    trump 4 · marriages 4x4 (seat by suit) · amounts 4 (high bid, bid, contract, each / 400; doubled) ·
    cards held 4 (/ 10) · tricks won 4 (/ 8) · trick points 4 (/ 120) · scores 4 (/ 1000) · on barrel 4 ·
    bolts 4 (/ 3) · barrel deals 4 (/ 3) · talon cards 2 (/ 3)

The legal-action mask (:func:`legal_mask`) has a 1 at the id of every legal action of the seat to act.
:func:`information_state` is a key for everything a seat has seen in the game: its filtered events
(:func:`engine.events_for`) without what identifies the hidden deck (the commitment of ``DeckShuffled``,
the salt and seeds ``DealRevealed`` discloses), so two positions the seat cannot tell apart get one key.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Final

from engine.actions import (
    CONCEDE,
    DECLARE_DARK,
    DECLINE_DARK,
    PASS,
    PLAY,
    PLAY_MARRIAGE,
    REDEAL,
    Action,
    Bid,
    ChooseTalon,
    Concede,
    DeclareDark,
    DeclineDark,
    DemandRedeal,
    DiscardCard,
    GiveCard,
    NameContract,
    Pass,
    PlayCard,
    RedealReason,
)
from engine.cards import CARDS, Rank
from engine.events import DealKind, DealRevealed, DeckShuffled, Event
from engine.game import Game
from engine.observer import View, events_for
from engine.phases import Phase
from engine.rules import MAX_POSSIBLE_POINTS

MAX_SEATS: Final = 4
_REDEALS: Final = (RedealReason.FOUR_NINES, RedealReason.WEAK_TALON, RedealReason.WEAK_HAND)
_VALUES: Final = (MAX_POSSIBLE_POINTS - 100) // 5 + 1
BID_BASE: Final = 9
CONTRACT_BASE: Final = BID_BASE + _VALUES
GIVE_BASE: Final = CONTRACT_BASE + _VALUES
DISCARD_BASE: Final = GIVE_BASE + 24 * MAX_SEATS
PLAY_BASE: Final = DISCARD_BASE + 24
MARRIAGE_BASE: Final = PLAY_BASE + 24
NUM_ACTIONS: Final = MARRIAGE_BASE + 8
"""283: the size of the action space."""


class EncodingError(ValueError):
    """An action id outside the action space, or a value no id stands for."""


def action_id(action: Action) -> int:
    """The fixed id of ``action`` (see the module docstring).

    :raises EncodingError: for a value no id stands for (a bid off the 5-point grid, a seat beyond 3).
    """
    match action:
        case Pass():
            return 0
        case DeclareDark():
            return 1
        case DeclineDark():
            return 2
        case DemandRedeal(reason):
            return 3 + _REDEALS.index(reason)
        case Concede():
            return 6
        case ChooseTalon(index) if index in (0, 1):
            return 7 + index
        case Bid(value) if _on_grid(value):
            return BID_BASE + (value - 100) // 5
        case NameContract(value) if _on_grid(value):
            return CONTRACT_BASE + (value - 100) // 5
        case GiveCard(card, to) if type(to) is int and 0 <= to < MAX_SEATS:
            return GIVE_BASE + 4 * card.index + to
        case DiscardCard(card):
            return DISCARD_BASE + card.index
        case PlayCard(card, False):
            return PLAY_BASE + card.index
        case PlayCard(card, True) if card.rank in (Rank.QUEEN, Rank.KING):
            return MARRIAGE_BASE + 2 * card.suit + (card.rank == Rank.KING)
    raise EncodingError(f"no action id for {action!r}")


def _on_grid(value: object) -> bool:
    return type(value) is int and 100 <= value <= MAX_POSSIBLE_POINTS and value % 5 == 0


def _decode_table() -> tuple[Action, ...]:
    table: list[Action] = [PASS, DECLARE_DARK, DECLINE_DARK, *(REDEAL[r] for r in _REDEALS), CONCEDE]
    table += [ChooseTalon(0), ChooseTalon(1)]
    table += [Bid(100 + 5 * k) for k in range(_VALUES)]
    table += [NameContract(100 + 5 * k) for k in range(_VALUES)]
    table += [GiveCard(c, s) for c in CARDS for s in range(MAX_SEATS)]
    table += [DiscardCard(c) for c in CARDS]
    table += list(PLAY)
    table += [PLAY_MARRIAGE[6 * u + r] for u in range(4) for r in (Rank.QUEEN, Rank.KING)]
    return tuple(table)


ACTIONS: Final = _decode_table()
"""The action of every id: ``ACTIONS[action_id(a)] == a``."""
assert len(ACTIONS) == NUM_ACTIONS


def action_of(action_id: int) -> Action:
    """The action an id stands for.

    :raises EncodingError: for an id outside ``0 .. NUM_ACTIONS - 1``.
    """
    if type(action_id) is not int or not 0 <= action_id < NUM_ACTIONS:
        raise EncodingError(f"action id {action_id!r} is not in 0..{NUM_ACTIONS - 1}")
    return ACTIONS[action_id]


def legal_ids(legal: tuple[Action, ...]) -> list[int]:
    """The ids of a legal-action list, in ascending order."""
    return sorted(action_id(a) for a in legal)


def legal_mask(legal: tuple[Action, ...]) -> list[int]:
    """A 0/1 list of :data:`NUM_ACTIONS` entries: 1 for each legal action."""
    mask = [0] * NUM_ACTIONS
    for a in legal:
        mask[action_id(a)] = 1
    return mask


# ---------------------------------------------------------------------------------------- observation

_BLOCKS: Final = (
    ("hand", 24),
    ("talon", 24),
    ("gave", 24),
    ("received", 24),
    ("played", 4 * 24),
    ("trick", 4 * 24),
    ("phase", 7),
    ("kind", 3),
    ("dealer", 4),
    ("to_act", 4),
    ("declarer", 4),
    ("high_bidder", 4),
    ("dark_seat", 4),
    ("passed", 4),
    ("trump", 4),
    ("marriages", 16),
    ("amounts", 4),
    ("cards_held", 4),
    ("tricks_won", 4),
    ("trick_points", 4),
    ("scores", 4),
    ("on_barrel", 4),
    ("bolts", 4),
    ("barrel_deals", 4),
    ("talon_cards", 2),
)


def _layout() -> dict[str, tuple[int, int]]:
    out: dict[str, tuple[int, int]] = {}
    offset = 0
    for name, size in _BLOCKS:
        out[name] = (offset, size)
        offset += size
    return out


LAYOUT: Final = _layout()
"""Each block's (offset, size) in the observation."""
OBSERVATION_SIZE: Final = sum(size for _, size in _BLOCKS)
_PHASES: Final = tuple(Phase)
_KINDS: Final = tuple(DealKind)


def observation(view: View) -> list[float]:
    """The observation tensor of a seat's view (layout in the module docstring); zeros for a spectator's
    seat-relative blocks that need a viewer."""
    obs = [0.0] * OBSERVATION_SIZE
    me = view.viewer if view.viewer is not None else 0
    n = view.rules.players

    def rel(seat: int) -> int:
        return (seat - me) % n

    def put(block: str, index: int, value: float = 1.0) -> None:
        offset, size = LAYOUT[block]
        assert 0 <= index < size
        obs[offset + index] = value

    def seat(block: str, who: int | None) -> None:
        if who is not None:
            put(block, rel(who))

    for c in view.hand:
        put("hand", c.index)
    for c in view.talon or ():
        put("talon", c.index)
    for ex in view.exchange:
        if ex.card is None:
            continue
        if ex.giver == view.viewer:
            put("gave", ex.card.index)
        elif ex.to == view.viewer:
            put("received", ex.card.index)
    for trick in view.tricks:
        for who, c in trick.plays:
            put("played", 24 * rel(who) + c.index)
    for who, c in view.trick:
        put("trick", 24 * rel(who) + c.index)
    if view.phase is not None:
        put("phase", _PHASES.index(view.phase))
    if view.kind is not None:
        put("kind", _KINDS.index(view.kind))
    seat("dealer", view.dealer)
    seat("to_act", view.to_act)
    seat("declarer", view.declarer)
    seat("high_bidder", view.high_bidder)
    seat("dark_seat", view.dark_seat)
    for who, bid in view.auction:
        if bid is None:
            seat("passed", who)
    if view.trump is not None:
        put("trump", int(view.trump))
    for who, suit in view.marriages:
        put("marriages", 4 * rel(who) + int(suit))
    put("amounts", 0, (view.high_bid or 0) / MAX_POSSIBLE_POINTS)
    put("amounts", 1, (view.bid or 0) / MAX_POSSIBLE_POINTS)
    put("amounts", 2, (view.contract or 0) / MAX_POSSIBLE_POINTS)
    put("amounts", 3, 1.0 if view.doubled else 0.0)
    for who in range(n):
        r = rel(who)
        put("cards_held", r, view.card_counts[who] / 10)
        put("tricks_won", r, view.tricks_won[who] / 8)
        put("trick_points", r, view.trick_points[who] / 120)
    for line in view.scores:
        r = rel(line.seat)
        put("scores", r, line.score / 1000)
        put("on_barrel", r, 1.0 if line.on_barrel else 0.0)
        put("bolts", r, line.bolts / 3)
        put("barrel_deals", r, line.barrel_deals / 3)
    for t, count in enumerate(view.talon_counts[:2]):
        put("talon_cards", t, count / 3)
    return obs


# ---------------------------------------------------------------------------------------- information state


def information_state(game: Game, seat: int) -> str:
    """A key for all ``seat`` has seen of ``game``: its filtered events with the deck's commitment, salt
    and seeds left out (they tell apart deals the seat cannot tell apart)."""
    parts: list[str] = [f"seat {seat}"]
    for seen in events_for(game, seat):
        event: Event = seen
        if isinstance(seen, DeckShuffled):
            event = replace(seen, commitment="")
        elif isinstance(seen, DealRevealed):
            event = replace(seen, salt="", deal_seed=None, client_seeds=())
        parts.append(repr(event))
    return "\n".join(parts)


__all__ = [
    "ACTIONS",
    "LAYOUT",
    "NUM_ACTIONS",
    "OBSERVATION_SIZE",
    "EncodingError",
    "action_id",
    "action_of",
    "information_state",
    "legal_ids",
    "legal_mask",
    "observation",
]
