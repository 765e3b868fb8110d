"""Words for 1000 Blagogo in the terminal client: cards, bridge, melds, events, actions, the table's state.

Plain text only, like :mod:`clients.cli.text` for Thousand: the line mode prints it as it is, and the
full-screen UI draws from the same words. A joker is shown with what it stands for (``★1(=K♥)``), every meld
with its number and owner, the bridge in order with each card's position (what ``TakeFromBridge`` names);
melds and positions counted from 1, as people count (:func:`clients.cli.text.counted`).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Final, assert_never

from clients.cli.rules_text import changed_words
from clients.cli.text import counted, seat_name  # one way to name and count seats, in both games
from clients.i18n import t
from engine.blagogo import actions as ba
from engine.blagogo import events as be
from engine.blagogo.actions import Stands
from engine.blagogo.cards import Card, Rank, Suit
from engine.blagogo.melds import MeldKind, TableMeld
from engine.blagogo.observer import View

__all__ = ["seat_name"]

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
    return " ".join(str(c) for c in cards) or t("blagogo.none")


def numbered_hand(hand: Sequence[Card]) -> str:
    """The hand sorted, each card with the number ``m`` and ``a`` select it by: ``1:2♠ 2:5♠ ...``."""
    return "  ".join(f"{i}:{c}" for i, c in enumerate(sorted_hand(hand), 1)) or t("cli.no_cards")


def stands_text(stands: Stands) -> str:
    return stands.rank.label + (stands.suit.symbol if stands.suit is not None else "")


def parse_stands(text: str) -> Stands:
    """``Q`` (a set's rank) or ``K♥`` / ``KH`` (a run's rank and suit); ValueError says what to type."""
    raw = text.strip().upper().removeprefix("=")
    suit = _SUIT_BY_TEXT.get(raw[-1:]) if len(raw) > 1 else None
    rank_text = raw[:-1] if suit is not None else raw
    rank = _RANK_BY_LABEL.get(rank_text)
    if rank is None:
        raise ValueError(t("blagogo.not_a_meaning", text=text.strip()))
    return Stands(rank, suit)


def meld_text(meld: TableMeld, names: Sequence[str]) -> str:
    """``#3 run of ♥ by Ann (seat 1): 9♥ ★1(=10♥) J♥`` (closed sets say so): the round's third meld."""
    parts = [
        str(c) if s is None else f"{c}(={stands_text(s)})"
        for c, s in zip(meld.cards, meld.stands(), strict=True)
    ]
    run = meld.kind is MeldKind.RUN and meld.suit is not None
    return t(
        "blagogo.meld",
        id=counted(meld.id),
        suit=meld.suit.symbol if run and meld.suit is not None else "",
        owner=seat_name(names, meld.owner),
        closed="yes" if meld.closed else "no",
        cards=" ".join(parts),
        points=meld.points,
    )


def spec_text(cards: Sequence[Card], jokers: Sequence[Stands]) -> str:
    meanings = iter(jokers)
    parts = []
    for c in cards:
        meaning = next(meanings, None) if c.is_joker else None
        parts.append(str(c) if meaning is None else f"{c}(={stands_text(meaning)})")
    return " ".join(parts)


def bridge_text(bridge: Sequence[Card]) -> str:
    """The bridge in the order laid, each card at its position: ``1:K♠ 2:7♦ 3:★2`` (the newest last)."""
    return "  ".join(f"{i}:{c}" for i, c in enumerate(bridge, 1)) or t("blagogo.empty")


def action_label(action: ba.Action, names: Sequence[str]) -> str:
    """What choosing ``action`` does, in words."""
    match action:
        case ba.DrawFromDeck():
            return t("action.blagogo.draw")
        case ba.TakeFromBridge(position):
            return t("action.blagogo.take_bridge", position=counted(position))
        case ba.LayMelds(melds):
            return t("action.blagogo.lay", melds=" | ".join(spec_text(m.cards, m.jokers) for m in melds))
        case ba.AddToMeld(meld_id, cards, jokers, end):
            return t("action.blagogo.add", cards=spec_text(cards, jokers), id=counted(meld_id),
                     end="" if end is None else end.value)  # fmt: skip
        case ba.SwapJoker(meld_id, card):
            return t("action.blagogo.swap", card=str(card), id=counted(meld_id))
        case ba.Discard(card):
            return t("action.blagogo.discard", card=str(card))
        case _:
            assert_never(action)


def event_lines(event: be.Event, names: Sequence[str]) -> list[str]:
    """One event as transcript lines, from its type and fields (``event.blagogo.*``)."""
    name = seat_name
    match event:
        case be.GameStarted(rules, first_dealer):
            changed = changed_words(rules)
            return [
                t("event.blagogo.game_started", players=rules.players, target=rules.target,
                  changed="; ".join(changed)),
                t("event.blagogo.first_dealer", name=name(names, first_dealer)),
            ]  # fmt: skip
        case be.RoundStarted(number, dealer, first):
            return [
                t("event.blagogo.round_started", number=number, dealer=name(names, dealer),
                  first=name(names, first))
            ]  # fmt: skip
        case be.DeckShuffled():
            return []
        case be.HandDealt(seat, count, cards):
            shown = "" if cards is None else cards_text(sorted_hand(cards))
            return [t("event.blagogo.hand_dealt", name=name(names, seat), count=count, cards=shown)]
        case be.BridgeStarted(card, deck_count):
            return [t("event.blagogo.bridge_started", card=str(card), deck=deck_count)]
        case be.BridgeTurnedOver(count):
            return [t("event.blagogo.bridge_turned_over", count=count)]
        case be.DeckExhausted(_, be.Exhaustion.NO_ONE_CAN_GO_OUT):
            return [t("event.blagogo.no_one_can_go_out")]
        case be.DeckExhausted(turnovers, be.Exhaustion.TURNOVER_LIMIT):
            return [t("event.blagogo.turnover_limit", turnovers=turnovers)]
        case be.DeckExhausted(turnovers):
            return [t("event.blagogo.deck_exhausted", turnovers=turnovers)]
        case be.CardDrawn(seat, card):
            return [
                t("event.blagogo.card_drawn", name=name(names, seat), card="" if card is None else str(card))
            ]
        case be.BridgeTaken(seat, position, cards):
            return [
                t("event.blagogo.bridge_taken", name=name(names, seat), position=counted(position),
                  cards=cards_text(cards))
            ]  # fmt: skip
        case be.MeldsLaid(seat, melds, points, opening):
            key = "event.blagogo.opened" if opening else "event.blagogo.melds_laid"
            return [
                t(key, name=name(names, seat), points=points),
                *(f"  {meld_text(m, names)}" for m in melds),
            ]
        case be.MeldExtended(seat, meld, cards, end):
            return [
                t("event.blagogo.meld_extended", name=name(names, seat), cards=cards_text(cards),
                  id=counted(meld.id), end="" if end is None else end.value),
                f"  {meld_text(meld, names)}",
            ]  # fmt: skip
        case be.JokerSwapped(seat, meld, card, joker):
            return [
                t("event.blagogo.joker_swapped", name=name(names, seat), card=str(card), id=counted(meld.id),
                  joker=str(joker)),
                f"  {meld_text(meld, names)}",
            ]  # fmt: skip
        case be.MeldClosed(meld_id, owner):
            return [t("event.blagogo.meld_closed", id=counted(meld_id), name=name(names, owner))]
        case be.Discarded(seat, card):
            return [t("event.blagogo.discarded", name=name(names, seat), card=str(card))]
        case be.WentOut(seat, kantrame):
            return [t("event.blagogo.went_out", name=name(names, seat), kantrame="yes" if kantrame else "no")]
        case be.RoundRevealed(number, _, _, final_hands):
            return [t("event.blagogo.round_revealed", number=number)] + [
                f"  {name(names, s)}: {cards_text(sorted_hand(h))}" for s, h in enumerate(final_hands)
            ]
        case be.RoundScored(number, winner, kantrame, meld_points, penalties, deltas, totals):
            lines = [
                t("event.blagogo.round_scored", number=number,
                  winner="" if winner is None else name(names, winner), kantrame="yes" if kantrame else "no")
            ]  # fmt: skip
            for s, total in enumerate(totals):
                lines.append(
                    "  " + t("event.blagogo.round_seat", name=name(names, s), melds=meld_points[s],
                             hand=penalties[s], delta=deltas[s], total=total)
                )  # fmt: skip
            return lines
        case be.GameOver(winner, _):
            return [t("event.blagogo.game_over", winner=name(names, winner))]
        case _:
            assert_never(event)


def state_lines(view: View, names: Sequence[str], seat: int | None) -> list[str]:
    """The table as text: round, bridge in order, every meld and its owner, known cards, hand, scores."""
    if view.phase is None:
        return [t("cli.game_not_started"), scores_line(view, names)]
    lines = [
        t("blagogo.round_line", number=view.round_number, dealer=seat_name(names, view.dealer),
          phase=t(f"blagogo.phase_{view.phase.value}"), deck=view.deck_count)
    ]  # fmt: skip
    lines.append(t("blagogo.bridge", cards=bridge_text(view.bridge)))
    if view.melds:
        lines.append(t("blagogo.melds"))
        lines.extend(f"  {meld_text(m, names)}" for m in view.melds)
    else:
        lines.append(t("blagogo.melds_none"))
    if view.must_meld is not None:
        lines.append(t("blagogo.must_meld", card=str(view.must_meld)))
    counts = []
    for s, count in enumerate(view.card_counts):
        known = cards_text(view.known_cards[s]) if view.known_cards[s] and s != seat else ""
        counts.append(
            t("blagogo.player", name=seat_name(names, s), count=count,
              opened="yes" if view.opened[s] else "no", known=known)
        )  # fmt: skip
    lines.append(t("blagogo.players", players="; ".join(counts)))
    if seat is not None:
        lines.append(t("cli.your_hand", cards=numbered_hand(view.hand)))
    lines.append(scores_line(view, names))
    if view.to_act is not None:
        lines.append(t("cli.to_act", name=seat_name(names, view.to_act)))
    return lines


def scores_line(view: View, names: Sequence[str]) -> str:
    scores = ", ".join(
        t("blagogo.score", name=seat_name(names, s), score=score) for s, score in enumerate(view.scores)
    )
    return t("cli.scores", scores=scores)


def standings_lines(standings: Sequence[be.Standing], names: Sequence[str]) -> list[str]:
    return [
        t("cli.standing", place=s.place, name=seat_name(names, s.seat), score=s.score, payout=0)
        for s in standings
    ]
