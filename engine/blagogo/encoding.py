"""1000 Blagogo for learning: fixed action ids, an observation tensor, a legal-action mask and an
information-state key, as :mod:`engine.encoding` gives them for Thousand.

Blagogo's actions are not a small closed set: melds are laid in combinations (B-11, B-12) and refer to the
table's melds by id. The ids therefore name what an action *does*, by card face (the two copies of a face
are interchangeable), by the meld's slot (its id, the order it was laid in, below :data:`MELD_SLOTS`) and,
for new melds, by its place in the turn's candidate list (``Game.candidate_melds()``, below
:data:`CANDIDATES`); an action outside those bounds has no id and is left out of the mask. Decoding is
against the current legal list (:func:`action_of`), which picks the concrete action an id stands for::

    0                          DrawFromDeck
    1 + p                      TakeFromBridge(position p),  p = 0 .. 107
    109 + f                    Discard(a card of face f),   f = 0 .. 51 natural (suit * 13 + rank), 52 joker
    162 + 52 m + f             SwapJoker(meld slot m, a natural of face f)
    2242 + 159 m + 3 f + e     AddToMeld(meld slot m, a card of face f, end e: 0 none (set), 1 low, 2 high)
    8602 + k                   LayMelds: the k-th of the turn's candidate melds, k = 0 .. 31

The observation (:data:`OBSERVATION_SIZE` floats, seats relative to the viewer, eight slots) is, in order:
hand 53 (copies of each face / 2) · known cards 8x53 (what each seat is known to hold) · bridge 53 (faces /
2) · bridge length (/ 108) · deck count (/ 108) · phase 3 · to act 8 · opened 8 · card counts 8 (/ 20) ·
scores 8 (/ 1000) · must meld 53 · melds 40 slots x 25 (present, owner 8, kind 2, suit 4, first rank / 13,
length / 13, closed, jokers / 4, own meld 1, 3 spare).
"""

from __future__ import annotations

from dataclasses import replace
from typing import Final

from engine.blagogo.actions import Action as BlagogoAction
from engine.blagogo.actions import AddToMeld, Discard, DrawFromDeck, End, LayMelds, SwapJoker, TakeFromBridge
from engine.blagogo.cards import CARD_FACE, DECK_SIZE, FIRST_JOKER
from engine.blagogo.events import DeckShuffled, RoundRevealed
from engine.blagogo.game import Game
from engine.blagogo.melds import MeldKind
from engine.blagogo.observer import View, events_for
from engine.blagogo.round_state import Phase

FACES: Final = 53
MELD_SLOTS: Final = 40
CANDIDATES: Final = 32
SEATS: Final = 8
TAKE_BASE: Final = 1
DISCARD_BASE: Final = TAKE_BASE + DECK_SIZE
SWAP_BASE: Final = DISCARD_BASE + FACES
ADD_BASE: Final = SWAP_BASE + MELD_SLOTS * 52
MELD_BASE: Final = ADD_BASE + MELD_SLOTS * FACES * 3
NUM_ACTIONS: Final = MELD_BASE + CANDIDATES
_ENDS: Final = {None: 0, End.LOW: 1, End.HIGH: 2}


def action_id(action: BlagogoAction, candidates: tuple[BlagogoAction, ...] = ()) -> int | None:
    """The id of ``action`` (a LayMelds by its place in ``candidates``), or None when it has none (a meld
    slot or a candidate beyond the bounds, an addition of several cards, a meld not among the candidates)."""
    match action:
        case DrawFromDeck():
            return 0
        case TakeFromBridge(position) if type(position) is int and 0 <= position < DECK_SIZE:
            return TAKE_BASE + position
        case Discard(card):
            return DISCARD_BASE + CARD_FACE[card.index]
        case SwapJoker(meld_id, card) if meld_id < MELD_SLOTS and card.index < FIRST_JOKER:
            return SWAP_BASE + 52 * meld_id + CARD_FACE[card.index]
        case AddToMeld(meld_id, cards, _, end) if meld_id < MELD_SLOTS and len(cards) == 1:
            return ADD_BASE + 3 * FACES * meld_id + 3 * CARD_FACE[cards[0].index] + _ENDS[end]
        case LayMelds():
            for k, candidate in enumerate(candidates[:CANDIDATES]):
                if candidate == action:
                    return MELD_BASE + k
    return None


def legal_ids(legal: tuple[BlagogoAction, ...], candidates: tuple[BlagogoAction, ...]) -> list[int]:
    """The ids of the turn's simple legal actions and candidate melds, ascending, each once."""
    ids = {action_id(a, candidates) for a in (*legal, *candidates)}
    ids.discard(None)
    return sorted(i for i in ids if i is not None)


def legal_mask(legal: tuple[BlagogoAction, ...], candidates: tuple[BlagogoAction, ...]) -> list[int]:
    mask = [0] * NUM_ACTIONS
    for i in legal_ids(legal, candidates):
        mask[i] = 1
    return mask


def action_of(
    chosen: int, legal: tuple[BlagogoAction, ...], candidates: tuple[BlagogoAction, ...]
) -> BlagogoAction:
    """The legal action (or candidate meld) that id ``chosen`` stands for now.

    :raises ValueError: when no legal action has that id.
    """
    if MELD_BASE <= chosen < NUM_ACTIONS and chosen - MELD_BASE < len(candidates):
        return candidates[chosen - MELD_BASE]
    for action in legal:
        if action_id(action, candidates) == chosen:
            return action
    raise ValueError(f"no legal action has id {chosen}")


# ---------------------------------------------------------------------------------------- observation

_BLOCKS: Final = (
    ("hand", FACES),
    ("known", SEATS * FACES),
    ("bridge", FACES),
    ("bridge_length", 1),
    ("deck_count", 1),
    ("phase", 3),
    ("to_act", SEATS),
    ("opened", SEATS),
    ("card_counts", SEATS),
    ("scores", SEATS),
    ("must_meld", FACES),
    ("melds", MELD_SLOTS * 25),
)
LAYOUT: Final = {name: (sum(size for _, size in _BLOCKS[:k]), size) for k, (name, size) in enumerate(_BLOCKS)}
OBSERVATION_SIZE: Final = sum(size for _, size in _BLOCKS)
_PHASES: Final = tuple(Phase)


def observation(view: View) -> list[float]:
    """The observation tensor of a seat's view (layout in the module docstring)."""
    obs = [0.0] * OBSERVATION_SIZE
    me = view.viewer if view.viewer is not None else 0
    n = view.rules.players

    def rel(seat: int) -> int:
        return (seat - me) % n

    def add(block: str, index: int, value: float) -> None:
        offset, size = LAYOUT[block]
        assert 0 <= index < size
        obs[offset + index] += value

    for c in view.hand:
        add("hand", CARD_FACE[c.index], 0.5)
    for seat, cards in enumerate(view.known_cards):
        for c in cards:
            add("known", FACES * rel(seat) + CARD_FACE[c.index], 0.5)
    for c in view.bridge:
        add("bridge", CARD_FACE[c.index], 0.5)
    add("bridge_length", 0, len(view.bridge) / DECK_SIZE)
    add("deck_count", 0, view.deck_count / DECK_SIZE)
    if view.phase is not None:
        add("phase", _PHASES.index(view.phase), 1.0)
    if view.to_act is not None:
        add("to_act", rel(view.to_act), 1.0)
    for seat in range(n):
        r = rel(seat)
        add("opened", r, 1.0 if view.opened[seat] else 0.0)
        add("card_counts", r, view.card_counts[seat] / 20)
        add("scores", r, view.scores[seat] / 1000)
    if view.must_meld is not None:
        add("must_meld", CARD_FACE[view.must_meld.index], 1.0)
    for meld in view.melds:
        if meld.id >= MELD_SLOTS:
            continue
        base = 25 * meld.id
        jokers = sum(1 for c in meld.cards if c.index >= FIRST_JOKER)
        add("melds", base, 1.0)
        add("melds", base + 1 + rel(meld.owner), 1.0)
        add("melds", base + 9 + (meld.kind is MeldKind.RUN), 1.0)
        if meld.suit is not None:
            add("melds", base + 11 + int(meld.suit), 1.0)
        add("melds", base + 15, int(meld.rank) / 13)
        add("melds", base + 16, len(meld.cards) / 13)
        add("melds", base + 17, 1.0 if meld.closed else 0.0)
        add("melds", base + 18, jokers / 4)
        add("melds", base + 19, 1.0 if meld.owner == view.viewer else 0.0)
    return obs


def information_state(game: Game, seat: int) -> str:
    """A key for all ``seat`` has seen: its filtered events, the deck's commitment and the revealed
    round's salt and seeds left out."""
    parts = [f"seat {seat}"]
    for seen in events_for(game, seat):
        event: object = seen
        if isinstance(seen, DeckShuffled):
            event = replace(seen, commitment="")
        elif isinstance(seen, RoundRevealed):
            event = replace(seen, salt="", client_seeds=())
        parts.append(repr(event))
    return "\n".join(parts)


__all__ = [
    "CANDIDATES",
    "LAYOUT",
    "MELD_SLOTS",
    "NUM_ACTIONS",
    "OBSERVATION_SIZE",
    "action_id",
    "action_of",
    "information_state",
    "legal_ids",
    "legal_mask",
    "observation",
]
