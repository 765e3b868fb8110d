"""Composing a 1000 Blagogo meld (B-22): the readings of its jokers, worked out rather than asked.

A joker stands for a rank in a set and for a rank and suit in a run. Where the cards allow one reading only
(``Q♠ Q♥ ★1`` is a set of queens; ``5♥ ★1 7♥`` needs the 6♥) the client takes it without a question; it asks
only when several fit (``5♥ 6♥ ★1``: the 4♥ or the 7♥), offering those, and says at once when none does.
The engine's own meld rules decide (:func:`engine.blagogo.melds.form_meld`, ``extend_meld``), so the client
reads melds exactly as the server does.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from itertools import product

from clients.cli.blagogo_text import parse_stands
from clients.cli.entry import Ask
from clients.i18n import t
from engine.blagogo import actions as ba
from engine.blagogo.cards import Card, Rank
from engine.blagogo.melds import MeldKind, TableMeld, extend_meld, form_meld
from engine.errors import ActionError

MAX_READINGS = 20_000
"""Joker readings tried at most (three jokers in a run: 13³); beyond it the player is asked."""


def _meanings(naturals: Sequence[Card]) -> list[ba.Stands]:
    """What one joker among these naturals could stand for: their rank in a set, any rank of their suit
    in a run."""
    found: list[ba.Stands] = []
    ranks = {c.rank for c in naturals if c.rank is not None}
    suits = {c.suit for c in naturals if c.suit is not None}
    if len(ranks) == 1:
        found.append(ba.Stands(next(iter(ranks))))
    if len(suits) == 1:
        suit = next(iter(suits))
        found += [ba.Stands(rank, suit) for rank in Rank]
    return found


def _assignments(jokers: int, options: list[ba.Stands]) -> Iterator[tuple[ba.Stands, ...]]:
    if jokers == 0:
        yield ()
        return
    if len(options) ** jokers > MAX_READINGS:
        return
    yield from product(options, repeat=jokers)


def new_meld_readings(cards: tuple[Card, ...]) -> list[tuple[ba.Stands, ...]]:
    """Every reading of the jokers among ``cards`` that makes them one legal new meld."""
    jokers = sum(1 for c in cards if c.is_joker)
    naturals = [c for c in cards if not c.is_joker]
    found = []
    for meanings in _assignments(jokers, _meanings(naturals)):
        try:
            form_meld(0, 0, cards, meanings)
        except ActionError:
            continue
        found.append(meanings)
    return found


def addition_readings(
    meld: TableMeld, seat: int, cards: tuple[Card, ...], end: ba.End | None
) -> list[tuple[ba.End | None, tuple[ba.Stands, ...]]]:
    """Every (end, reading) that adds ``cards`` to ``meld``: at ``end``, or at either end of a run when
    ``end`` is None."""
    jokers = sum(1 for c in cards if c.is_joker)
    if meld.kind is MeldKind.SET:
        ends: list[ba.End | None] = [None]
        options = [ba.Stands(meld.rank)]
    else:
        ends = [end] if end is not None else [ba.End.LOW, ba.End.HIGH]
        options = [ba.Stands(rank, meld.suit) for rank in Rank]
    found = []
    for at in ends:
        for meanings in _assignments(jokers, options):
            try:
                extend_meld(meld, seat, cards, meanings, at)
            except (ActionError, ValueError):
                continue
            found.append((at, meanings))
    return found


def reading_text(meanings: Sequence[ba.Stands]) -> str:
    return ", ".join(f"{m.rank.label}{m.suit.symbol if m.suit is not None else ''}" for m in meanings)


async def choose_reading(
    cards: tuple[Card, ...], readings: list[tuple[ba.Stands, ...]], ask: Ask
) -> tuple[ba.Stands, ...] | None:
    """The reading of the jokers among ``cards``: each joker asked only when more than one meaning remains,
    naming those; None when the player gives up. ValueError when no reading fits."""
    jokers = [c for c in cards if c.is_joker]
    if not jokers:
        return ()
    if not readings:
        raise ValueError(t("blagogo.no_meld", cards=" ".join(map(str, cards))))
    remaining = readings
    chosen: list[ba.Stands] = []
    for i, joker in enumerate(jokers):
        options = sorted({r[i] for r in remaining}, key=lambda s: (s.rank, -1 if s.suit is None else s.suit))
        if len(options) > 1:
            picked = await _ask_meaning(joker, options, ask)
            if picked is None:
                return None
            options = [picked]
        chosen.append(options[0])
        remaining = [r for r in remaining if r[i] == options[0]]
    return tuple(chosen)


async def _ask_meaning(joker: Card, options: list[ba.Stands], ask: Ask) -> ba.Stands | None:
    names = t("blagogo.or").join(reading_text([o]) for o in options)
    problem = ""
    while True:
        answer = await ask(problem + t("blagogo.joker_question", joker=str(joker), options=names))
        if answer is None:
            return None
        try:
            stands = parse_stands(answer)
        except ValueError as error:
            problem = t("blagogo.problem", error=str(error)) + " "
            continue
        match = [o for o in options if o.rank == stands.rank and stands.suit in (None, o.suit)]
        if len(match) == 1:
            return match[0]
        problem = t("blagogo.not_one_of_them", text=answer.strip()) + " "
