"""Words for 1000 Blagogo in the terminal client: cards, bridge, melds, events, actions, the table's state.

Plain text only, like :mod:`clients.cli.text` for Thousand: the line mode prints it as it is, and the
full-screen UI draws from the same words. A joker is shown with what it stands for (``★1(=K♥)``), every meld
with its id and owner, the bridge in order with each card's position (what ``TakeFromBridge`` names).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Final, assert_never

from clients.cli.rules_text import changed_words
from clients.cli.text import seat_name  # one way to name a seat, in both games
from engine.blagogo import actions as ba
from engine.blagogo import events as be
from engine.blagogo.actions import Stands
from engine.blagogo.cards import Card, Rank, Suit
from engine.blagogo.melds import MeldKind, TableMeld
from engine.blagogo.observer import View
from engine.blagogo.round import Phase

__all__ = ["seat_name"]

_PHASE_WORDS: Final = {Phase.DRAW: "draw", Phase.PLAY: "meld or discard", Phase.OVER: "round over"}
_RANK_BY_LABEL: Final = {r.label: r for r in Rank} | {"T": Rank.TEN, "1": Rank.ACE}
_SUIT_BY_TEXT: Final = {s.symbol: s for s in Suit} | {s.letter: s for s in Suit}


def card_key(card: Card) -> tuple[int, int, int]:
    """Sort order of a hand: by suit (♠ ♣ ♦ ♥), then rank, the jokers last."""
    if card.suit is None or card.rank is None:
        return (len(Suit), 0, card.index)
    return (int(card.suit), int(card.rank), card.index)


def sorted_hand(hand: Sequence[Card]) -> list[Card]:
    return sorted(hand, key=card_key)


def cards_text(cards: Sequence[Card]) -> str:
    return " ".join(str(c) for c in cards) or "(none)"


def numbered_hand(hand: Sequence[Card]) -> str:
    """The hand sorted, each card with the number ``m`` and ``a`` select it by: ``1:2♠ 2:5♠ ...``."""
    return "  ".join(f"{i}:{c}" for i, c in enumerate(sorted_hand(hand), 1)) or "(no cards)"


def stands_text(stands: Stands) -> str:
    return stands.rank.label + (stands.suit.symbol if stands.suit is not None else "")


def parse_stands(text: str) -> Stands:
    """``Q`` (a set's rank) or ``K♥`` / ``KH`` (a run's rank and suit); ValueError says what to type."""
    raw = text.strip().upper().removeprefix("=")
    suit = _SUIT_BY_TEXT.get(raw[-1:]) if len(raw) > 1 else None
    rank_text = raw[:-1] if suit is not None else raw
    rank = _RANK_BY_LABEL.get(rank_text)
    if rank is None:
        raise ValueError(
            f"{text.strip()!r} is not a meaning: type a rank (2-10, J, Q, K, A) for a set, "
            "or a rank and suit (K♥ or KH) for a run"
        )
    return Stands(rank, suit)


def meld_text(meld: TableMeld, names: Sequence[str]) -> str:
    """``#3 run of ♥ by Ann (seat 0): 9♥ ★1(=10♥) J♥`` (closed sets say so)."""
    parts = [
        str(c) if s is None else f"{c}(={stands_text(s)})"
        for c, s in zip(meld.cards, meld.stands(), strict=True)
    ]
    kind = f"run of {meld.suit.symbol}" if meld.kind is MeldKind.RUN and meld.suit is not None else "set"
    closed = ", closed" if meld.closed else ""
    owner = seat_name(names, meld.owner)
    return f"#{meld.id} {kind} by {owner}{closed}: {' '.join(parts)} ({meld.points} points)"


def spec_text(cards: Sequence[Card], jokers: Sequence[Stands]) -> str:
    meanings = iter(jokers)
    parts = []
    for c in cards:
        meaning = next(meanings, None) if c.is_joker else None
        parts.append(str(c) if meaning is None else f"{c}(={stands_text(meaning)})")
    return " ".join(parts)


def bridge_text(bridge: Sequence[Card]) -> str:
    """The bridge in the order laid, each card at its position: ``0:K♠ 1:7♦ 2:★2`` (the newest last)."""
    return "  ".join(f"{i}:{c}" for i, c in enumerate(bridge)) or "(empty)"


def action_label(action: ba.Action, names: Sequence[str]) -> str:
    """What choosing ``action`` does, in words."""
    match action:
        case ba.DrawFromDeck():
            return "draw from the deck"
        case ba.TakeFromBridge(position):
            return f"take the bridge from position {position}"
        case ba.LayMelds(melds):
            return "lay " + " | ".join(spec_text(m.cards, m.jokers) for m in melds)
        case ba.AddToMeld(meld_id, cards, jokers, end):
            where = "" if end is None else f" at its {end.value} end"
            return f"add {spec_text(cards, jokers)} to meld #{meld_id}{where}"
        case ba.SwapJoker(meld_id, card):
            return f"put {card} in meld #{meld_id} and take its joker"
        case ba.Discard(card):
            return f"discard {card}"
        case _:
            assert_never(action)


def event_lines(event: be.Event, names: Sequence[str]) -> list[str]:
    """One event as transcript lines."""
    name = seat_name
    match event:
        case be.GameStarted(rules, first_dealer):
            changed = changed_words(rules)
            rules_words = "; rules changed: " + "; ".join(changed) if changed else ""
            return [
                f"Game of 1000 Blagogo — {rules.players} players, to {rules.target}{rules_words}",
                f"First dealer: {name(names, first_dealer)}",
            ]
        case be.RoundStarted(number, dealer, first):
            return [f"Round {number}: dealer {name(names, dealer)}; {name(names, first)} starts"]
        case be.DeckShuffled():
            return []
        case be.HandDealt(seat, count, cards):
            shown = "" if cards is None else ": " + cards_text(sorted_hand(cards))
            return [f"{name(names, seat)} is dealt {count} cards{shown}"]
        case be.BridgeStarted(card, deck_count):
            return [f"The bridge starts with {card}; {deck_count} cards left in the deck"]
        case be.BridgeTurnedOver(count):
            return [f"The deck ran out: the bridge ({count} cards) is turned over and is the deck now"]
        case be.DeckExhausted(_, be.Exhaustion.NO_ONE_CAN_GO_OUT):
            return ["The round ended: no one could go out (no winner)"]
        case be.DeckExhausted(turnovers, be.Exhaustion.TURNOVER_LIMIT):
            return [f"Turnover limit reached ({turnovers}): the round ends with no winner"]
        case be.DeckExhausted(turnovers):
            return [f"Nothing left to draw after {turnovers} turnover(s): the round ends with no winner"]
        case be.CardDrawn(seat, card):
            return [f"{name(names, seat)} draws {'a card' if card is None else card} from the deck"]
        case be.BridgeTaken(seat, position, cards):
            return [f"{name(names, seat)} takes the bridge from position {position}: {cards_text(cards)}"]
        case be.MeldsLaid(seat, melds, points, opening):
            verb = f"opens with {points} points" if opening else f"lays {points} points"
            return [f"{name(names, seat)} {verb}:", *(f"  {meld_text(m, names)}" for m in melds)]
        case be.MeldExtended(seat, meld, cards, end):
            where = "" if end is None else f" at its {end.value} end"
            return [
                f"{name(names, seat)} adds {cards_text(cards)} to meld #{meld.id}{where}:",
                f"  {meld_text(meld, names)}",
            ]
        case be.JokerSwapped(seat, meld, card, joker):
            return [
                f"{name(names, seat)} puts {card} in meld #{meld.id} and takes {joker}:",
                f"  {meld_text(meld, names)}",
            ]
        case be.MeldClosed(meld_id, owner):
            return [f"Meld #{meld_id} of {name(names, owner)} has all four suits and is closed"]
        case be.Discarded(seat, card):
            return [f"{name(names, seat)} discards {card}"]
        case be.WentOut(seat, kantrame):
            return [f"{name(names, seat)} goes out{' — kantrame!' if kantrame else ''}"]
        case be.RoundRevealed(number, _, _, final_hands):
            return [f"Round {number}: the hands at the end:"] + [
                f"  {name(names, s)}: {cards_text(sorted_hand(h))}" for s, h in enumerate(final_hands)
            ]
        case be.RoundScored(number, winner, kantrame, meld_points, penalties, deltas, totals):
            who = "no winner" if winner is None else f"won by {name(names, winner)}"
            lines = [f"Round {number} scored ({who}{', kantrame' if kantrame else ''}):"]
            for s, total in enumerate(totals):
                lines.append(
                    f"  {name(names, s)}: melds {meld_points[s]}, hand -{penalties[s]}, "
                    f"round {deltas[s]:+d}, total {total}"
                )
            return lines
        case be.GameOver(winner, _):
            return [f"Game over — winner: {name(names, winner)}"]
        case _:
            assert_never(event)


def state_lines(view: View, names: Sequence[str], seat: int | None) -> list[str]:
    """The table as text: round, bridge in order, every meld and its owner, known cards, hand, scores."""
    if view.phase is None:
        return ["The game has not started.", scores_line(view, names)]
    phase = _PHASE_WORDS[view.phase]
    lines = [
        f"Round {view.round_number}, dealer {seat_name(names, view.dealer)}, {phase}; "
        f"{view.deck_count} cards in the deck"
    ]
    lines.append(f"Bridge (position:card, the newest last): {bridge_text(view.bridge)}")
    if view.melds:
        lines.append("Melds:")
        lines.extend(f"  {meld_text(m, names)}" for m in view.melds)
    else:
        lines.append("Melds: none yet")
    if view.must_meld is not None:
        lines.append(f"{view.must_meld} from the bridge must be melded this turn")
    counts = []
    for s, count in enumerate(view.card_counts):
        opened = "opened" if view.opened[s] else "not opened"
        known = f", known: {cards_text(view.known_cards[s])}" if view.known_cards[s] and s != seat else ""
        counts.append(f"{seat_name(names, s)} {count} cards ({opened}{known})")
    lines.append("Players: " + "; ".join(counts))
    if seat is not None:
        lines.append(f"Your hand: {numbered_hand(view.hand)}")
    lines.append(scores_line(view, names))
    if view.to_act is not None:
        lines.append(f"To act: {seat_name(names, view.to_act)}")
    return lines


def scores_line(view: View, names: Sequence[str]) -> str:
    return "Scores: " + ", ".join(f"{seat_name(names, s)} {score}" for s, score in enumerate(view.scores))


def standings_lines(standings: Sequence[be.Standing], names: Sequence[str]) -> list[str]:
    return [f"{s.place}. {seat_name(names, s.seat)}: {s.score}" for s in standings]
