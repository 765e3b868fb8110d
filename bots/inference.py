"""Inference from the card play: how likely each sampled world makes the other seats' plays so far.

A world (:mod:`bots.worlds`) is consistent with everything seen, but consistent is not likely: a defender
who threw a ten on a trick its partner did not hold probably had no small card of that suit left, and a
declarer who did not draw trumps probably had few. As Skat's Kermit weighs its worlds by how probable its
policy finds the opponents' actions in each (Buro, Long, Furtak & Sturtevant 2009), a world here is weighed
by how often the heuristic's card play (:func:`bots.card_play.choose_play`, from what that seat knew then)
would have played what each other seat did: a play the heuristic would have made counts 1, any other
:data:`MISS_WEIGHT`. The heuristic is a policy, not the truth, so the weight stays soft: a world that
explains every play is preferred, never the only one kept.
"""

from __future__ import annotations

from dataclasses import dataclass

from bots.card_play import choose_play, make_knowledge
from bots.cardlib import MARRIAGE_POINTS, SUIT_MASKS, above
from bots.world_facts import WorldFacts
from engine.cards import FULL_MASK, QUEENS_MASK
from engine.deal import Deal

MISS_WEIGHT = 0.5
"""A world's weight is multiplied by this for each play of another seat the heuristic would not have made."""


def legal_cards(hand: int, before: list[tuple[int, int]], trump: int | None, must_beat: bool) -> int:
    """The cards of ``hand`` that may be played after the plays ``before`` of the trick (T-18)."""
    if not before:
        return hand
    lead = before[0][1] // 6
    follow = hand & SUIT_MASKS[lead]
    if follow:
        if must_beat:
            trumped = trump is not None and trump != lead and any(i // 6 == trump for _, i in before)
            if not trumped:
                higher = follow & above(max(i for _, i in before if i // 6 == lead))
                if higher:
                    return higher
        return follow
    if trump is not None and hand & SUIT_MASKS[trump]:
        trumps = hand & SUIT_MASKS[trump]
        played = [i for _, i in before if i // 6 == trump]
        if must_beat and played:
            higher = trumps & above(max(played))
            if higher:
                return higher
        return trumps
    return hand


@dataclass(frozen=True, slots=True)
class PlayEvent:
    """One play of another seat, seen by the deciding seat: what that seat knew when it played."""

    seat: int
    card: int
    marriage: bool
    before: tuple[tuple[int, int], ...]
    """The plays of the trick before it."""
    trump: int | None
    played: int
    """Cards out of play before it (taken tricks and the trick's earlier plays)."""
    later: int
    """The cards the seat played from then on, this one included: its hand then was its hand now and these."""
    marriage_ok: bool
    declarer_points: int = 0
    """The declarer's deal points (tricks and marriages) when the seat played, and ..."""
    taken_points: int = 0
    """... the card points of the tricks taken by then: whether the contract was settled for the seat."""
    trickless: bool = False
    """The seat had taken no trick yet."""


_Seen = tuple[int, int, bool, tuple[tuple[int, int], ...], int | None, int, bool, int, int, bool]
"""A play as :class:`PlayEvent` holds it, before ``later`` is known."""


class PlayModel:
    """The other seats' seen plays of the deal under way, to weigh sampled worlds by (one decision)."""

    def __init__(self, facts: WorldFacts, miss_weight: float = MISS_WEIGHT) -> None:
        self.miss_weight = miss_weight
        self.active = facts.active
        self.declarer = facts.declarer
        self.rules = facts.rules
        tricks: list[tuple[list[tuple[int, int | None]], bool]] = [
            (list(zip(seats, cards, strict=True)), marriage) for seats, cards, _, _, marriage in facts.tricks
        ]
        tricks.append(([(s, c) for s, c in facts.live], facts.live_marriage))
        hidden = {s for plays, _ in tricks for s, c in plays if c is None}
        view = facts.view
        self.contract = view.contract if view.contract is not None else view.bid
        events: list[
            tuple[int, int, bool, tuple[tuple[int, int], ...], int | None, int, bool, int, int, bool]
        ] = []
        played = declarer_points = taken = 0
        winners: set[int] = set()
        for k, (plays, marriage) in enumerate(tricks):
            trump = facts.trumps[k]
            before: list[tuple[int, int]] = []
            for p, (seat, card) in enumerate(plays):
                if card is None:
                    break
                declared = marriage and p == 0
                if seat != facts.me and seat not in hidden and facts.declarer is not None:
                    # The trick's trump before a marriage led in it was the previous one.
                    now = facts.trumps[k - 1] if declared and k > 0 else (None if declared else trump)
                    ok = k > 0 or facts.rules.marriage_on_first_trick
                    seen = (declarer_points, taken, seat not in winners)
                    events.append((seat, card, declared, tuple(before), now, played, ok, *seen))
                if declared and seat == facts.declarer:
                    declarer_points += MARRIAGE_POINTS[card // 6]
                before.append((seat, card))
                played |= 1 << card
            if k < len(facts.tricks):
                _, _, winner, points, _ = facts.tricks[k]
                taken += points or 0
                if winner is not None:
                    winners.add(winner)
                if winner is not None and winner == facts.declarer:
                    declarer_points += points or 0
        later: dict[int, int] = {}
        built: list[PlayEvent] = []
        for seat, card, declared, before_t, trump_t, played_t, ok, dp, tp, bare in reversed(events):
            later[seat] = later.get(seat, 0) | 1 << card
            event = PlayEvent(
                seat, card, declared, before_t, trump_t, played_t, later[seat], ok, dp, tp, bare
            )
            built.append(event)
        built.reverse()
        self.events = built

    def weight(self, deal: Deal) -> float:
        """The world's weight: :data:`MISS_WEIGHT` to the power of the plays the heuristic would not make."""
        if self.declarer is None or not self.events:
            return 1.0
        w = 1.0
        must_beat = self.rules.must_beat
        for e in self.events:
            hand = deal.hands[e.seat] | e.later
            legal = legal_cards(hand, list(e.before), e.trump, must_beat)
            if legal.bit_count() <= 1:
                continue
            marriages = 0
            if not e.before and e.marriage_ok:
                queens = hand & hand >> 1 & QUEENS_MASK
                marriages = queens | queens << 1
            knowledge = make_knowledge(
                seat=e.seat,
                active=self.active,
                declarer=self.declarer,
                hand=hand,
                trick=list(e.before),
                trump=e.trump,
                played=e.played & FULL_MASK,
                voids={},
                rules=self.rules,
                declarer_points=e.declarer_points,
                taken_points=e.taken_points,
                contract=self.contract,
                trickless=e.trickless,
            )
            card, declare = choose_play(knowledge, legal, marriages)
            if card != e.card or declare != e.marriage:
                w *= self.miss_weight
        return w
