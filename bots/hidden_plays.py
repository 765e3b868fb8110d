"""The hidden plays of a sampled world: cards for the plays a seat did not see, trick by trick (T-18, T-19).

A depth-first search over the tricks played so far: each trick's hidden plays must fit what the seat knows
(the cards each other hand can still hold, the voids every play shows, the trick's winner and worth, a
marriage led), and a hidden play that needs a void is weighed down (:data:`VOID_WEIGHT`), so that the pick
comes closer to the true posterior, in which following suit is the likelier explanation. The search is
bounded (:data:`SEARCH_BUDGET`); :mod:`bots.worlds` tries another world when it runs out.

:class:`Placement` is what is left to place while one world is sampled: the search fills it with the hidden
plays, and the sampler then deals the rest of the cards around them.
"""

from __future__ import annotations

import random
from dataclasses import dataclass

from bots.cardlib import CARD_POINTS, MARRIAGE_MASKS, implied_forbidden, indices, trick_winner
from bots.world_facts import WorldFacts

VOID_WEIGHT = 0.25
"""Relative weight of a hidden play that shows a void (per suit shown void) against one that follows."""
SEARCH_BUDGET = 300
"""Nodes of the depth-first search for the hidden plays, per attempt."""


@dataclass(slots=True)
class Placement:
    """Cards still to place while one world is sampled."""

    free: int
    """Cards with no known owner."""
    owner: dict[int, tuple[int, int]]
    """Card -> (seat, trick): a card the seat holds now or played (hidden) after that trick."""
    talon_up: int
    """Face-up talon cards whose place is unknown (the declarer's, or given away)."""
    gift_taken: dict[int, int]
    """Receiver -> the face-up talon card it holds, which is then the card it was given."""
    forbidden: dict[int, int]
    """Cards each seat has shown it does not hold (voids)."""
    plays: dict[tuple[int, int], int]
    """(trick, position) -> card of a hidden play."""

    def take(self, card: int, seat: int, declarer: int | None) -> None:
        """``card`` was placed with ``seat`` (in a hidden play)."""
        bit = 1 << card
        if self.free & bit:
            self.free &= ~bit
        elif self.talon_up & bit:
            self.talon_up &= ~bit
            if seat != declarer:
                self.gift_taken[seat] = card
        else:
            self.owner.pop(card, None)

    def copy(self) -> Placement:
        return Placement(
            self.free,
            dict(self.owner),
            self.talon_up,
            dict(self.gift_taken),
            dict(self.forbidden),
            dict(self.plays),
        )


def search_hidden_plays(facts: WorldFacts, rng: random.Random, state: Placement) -> Placement | None:
    """``state`` with a card for every hidden play of the tricks so far, or None if none was found in the
    search's budget (or the hands could not be filled after them)."""
    return _hidden(facts, rng, 0, state, [SEARCH_BUDGET])


def _hidden(
    facts: WorldFacts, rng: random.Random, k: int, state: Placement, budget: list[int]
) -> Placement | None:
    """Cards for the hidden plays of tricks ``k`` on, or None; ``budget`` bounds the search."""
    if k == len(facts.tricks):
        return state if _room_for_hands(facts, state) else None
    seats, cards, _, _, _ = facts.tricks[k]
    trump = facts.trumps[k]
    hidden = [p for p, c in enumerate(cards) if c is None]
    combos = _hidden_combos(facts, rng, k, state) if hidden else [()]
    for combo in combos:
        budget[0] -= 1
        if budget[0] < 0:
            return None
        branch = state.copy() if combo else state
        full = list(cards)
        for p, c in zip(hidden, combo, strict=True):
            full[p] = c
            branch.plays[(k, p)] = c
            branch.take(c, seats[p], facts.declarer)
        before: list[tuple[int, int]] = []
        for seat, x in zip(seats, full, strict=True):
            assert x is not None
            if before:
                branch.forbidden[seat] |= implied_forbidden(before, trump, x, facts.rules.must_beat)
            before.append((seat, x))
        found = _hidden(facts, rng, k + 1, branch, budget)
        if found is not None:
            return found
    return None


def _room_for_hands(facts: WorldFacts, state: Placement) -> bool:
    """A quick necessary check: each hand can still be filled with cards its voids allow."""
    counts = facts.view.card_counts
    for s in facts.active:
        if s == facts.me and not facts.my_hidden:
            continue
        owned = sum(1 for seat, _ in state.owner.values() if seat == s)
        bad = state.forbidden[s] | facts.live_forbidden.get(s, 0)
        pool = state.free & ~bad
        if s == facts.declarer or s in facts.unknown_gift_to:
            pool |= state.talon_up & ~bad
        if pool.bit_count() < counts[s] - owned:
            return False
    return True


def _hidden_combos(facts: WorldFacts, rng: random.Random, k: int, state: Placement) -> list[tuple[int, ...]]:
    """The choices of cards for trick ``k``'s hidden plays that fit what is known, in weighted order."""
    seats, cards, winner, points, marriage = facts.tricks[k]
    trump = facts.trumps[k]
    hidden = [p for p, c in enumerate(cards) if c is None]
    need = None if points is None else points - sum(CARD_POINTS[c] for c in cards if c is not None)
    candidates: list[list[int]] = []
    for p in hidden:
        seat = seats[p]
        pool = state.free
        for c, (s, since) in state.owner.items():
            if s == seat and since < k:
                pool |= 1 << c
        if seat == facts.declarer or (seat in facts.unknown_gift_to and seat not in state.gift_taken):
            pool |= state.talon_up
        pool &= ~state.forbidden[seat]
        if p == 0 and marriage and trump is not None:
            pool &= MARRIAGE_MASKS[trump]
        single = len(hidden) == 1 and need is not None
        candidates.append([c for c in indices(pool) if not single or CARD_POINTS[c] == need])
    combos: set[tuple[int, ...]] = set()
    if len(hidden) == 1:
        combos = {(c,) for c in candidates[0]}
    elif len(hidden) == 2:
        for c0 in candidates[0]:
            for c1 in candidates[1]:
                if c0 != c1 and (need is None or CARD_POINTS[c0] + CARD_POINTS[c1] == need):
                    combos.add((c0, c1))
    elif all(candidates):
        for _ in range(200):
            pick = tuple(rng.choice(cs) for cs in candidates)
            if len(set(pick)) == len(pick) and (need is None or sum(CARD_POINTS[c] for c in pick) == need):
                combos.add(pick)
    valid: list[tuple[float, tuple[int, ...]]] = []
    for combo in sorted(combos):
        full = list(cards)
        for p, c in zip(hidden, combo, strict=True):
            full[p] = c
        plays = [(s, c) for s, c in zip(seats, full, strict=True) if c is not None]
        if winner is not None and seats[trick_winner(plays, trump)] != winner:
            continue
        if not _consistent(facts, k, full, hidden, state.owner):
            continue
        first = full[0]
        assert first is not None
        weight = 1.0
        for p, c in zip(hidden, combo, strict=True):
            if p and c // 6 != first // 6:
                weight *= VOID_WEIGHT if c // 6 == trump else VOID_WEIGHT * VOID_WEIGHT
        valid.append((rng.random() ** (1.0 / weight), combo))
    valid.sort(reverse=True)
    return [combo for _, combo in valid]


def _consistent(
    facts: WorldFacts, k: int, full: list[int | None], hidden: list[int], owner: dict[int, tuple[int, int]]
) -> bool:
    """The voids the hidden cards show do not contradict cards their seats played or held afterwards."""
    seats = facts.tricks[k][0]
    trump = facts.trumps[k]
    for p in hidden:
        c = full[p]
        assert c is not None
        before = [(s, x) for s, x in zip(seats[:p], full[:p], strict=True) if x is not None]
        implied = implied_forbidden(before, trump, c, facts.rules.must_beat)
        if implied & facts.held_later(seats[p], k, owner):
            return False
    return True
