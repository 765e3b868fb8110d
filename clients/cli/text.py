"""Words for the terminal client: action labels, the table's state, the score sheet, a table's summary.

Plain text only (no colours, no layout), so the line mode and screen readers get the same words as the
full-screen UI, which adds colour on top.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Final, assert_never

from clients.cli.rules_text import changed_words
from clients.games import game_of
from engine import Action, Phase, Rules, View
from engine import actions as ea
from engine.blagogo.rules import BlagogoRules
from engine.cards import Card, Suit
from engine.events import Standing
from thousand.v1 import table_service_pb2 as pb

_REDEAL_WORDS: Final = {
    ea.RedealReason.FOUR_NINES: "four nines",
    ea.RedealReason.WEAK_TALON: "weak talon",
    ea.RedealReason.WEAK_HAND: "weak hand",
}

_PHASE_WORDS: Final = {
    Phase.DARK: "dark decision",
    Phase.AUCTION: "auction",
    Phase.TALON_CHOICE: "talon choice",
    Phase.EXCHANGE: "exchange",
    Phase.CONTRACT: "contract",
    Phase.PLAY: "play",
    Phase.OVER: "deal over",
}

_STATUS_WORDS: Final = {
    pb.TABLE_STATUS_WAITING: "waiting for players",
    pb.TABLE_STATUS_PLAYING: "playing",
    pb.TABLE_STATUS_FINISHED: "finished",
}


def seat_name(names: Sequence[str], seat: int) -> str:
    return names[seat] if 0 <= seat < len(names) else f"seat {seat}"


def action_label(action: Action, names: Sequence[str]) -> str:
    """What choosing ``action`` does, in words."""
    match action:
        case ea.Bid(value):
            return f"bid {value}"
        case ea.Pass():
            return "pass"
        case ea.DeclareDark():
            return "bid 120 dark, without looking at your cards"
        case ea.DeclineDark():
            return "look at your cards (no dark)"
        case ea.DemandRedeal(reason):
            return f"demand a redeal: {_REDEAL_WORDS[reason]}"
        case ea.ChooseTalon(index):
            return f"take talon {index}"
        case ea.GiveCard(card, to):
            return f"give {card} to {seat_name(names, to)}"
        case ea.DiscardCard(card):
            return f"put {card} into the other talon"
        case ea.NameContract(value):
            return f"name the contract: {value}"
        case ea.Concede():
            return "concede the deal (rospis)"
        case ea.PlayCard(card, marriage):
            if marriage:
                suit = card.suit
                return f"play {card} declaring the {suit.symbol} marriage ({suit.marriage_points})"
            return f"play {card}"
        case _:
            assert_never(action)


def action_card(action: Action) -> Card | None:
    """The card an action moves, if any."""
    if isinstance(action, ea.PlayCard | ea.GiveCard | ea.DiscardCard):
        return action.card
    return None


def hand_by_suit(hand: Sequence[Card]) -> list[tuple[Suit, list[Card]]]:
    """The hand grouped by suit (♠ ♣ ♦ ♥), each suit by ascending rank."""
    groups: list[tuple[Suit, list[Card]]] = []
    for suit in Suit:
        cards = sorted((c for c in hand if c.suit == suit), key=lambda c: c.rank)
        if cards:
            groups.append((suit, cards))
    return groups


def sorted_hand(hand: Sequence[Card]) -> list[Card]:
    return [c for _, cards in hand_by_suit(hand) for c in cards]


def hand_text(hand: Sequence[Card]) -> str:
    if not hand:
        return "(no cards)"
    return "  ".join(" ".join(str(c) for c in cards) for _, cards in hand_by_suit(hand))


def seats_summary(table: pb.Table) -> str:
    taken = sum(1 for s in table.seats if s.taken)
    bots = sum(1 for s in table.seats if s.kind == pb.SEAT_KIND_BOT)
    text = f"{taken}/{len(table.seats)} taken, {table.open_seats} free"
    return text + (f" ({bots} bots)" if bots else "")


def status_text(table: pb.Table) -> str:
    return _STATUS_WORDS.get(table.status, "unknown")


def table_line(table: pb.Table, rules: Rules | BlagogoRules) -> str:
    """One table of ``thousand tables``: id, game, players, seats, status, clock, changed rules in words."""
    game = game_of(table).title
    changed = changed_words(rules)
    clock = ""
    if table.HasField("time_control") and table.time_control.per_move.ToNanoseconds():
        clock = f"  clock {table.time_control.per_move.ToNanoseconds() / 1e9:g} s a move"
    return (
        f"{table.table_id}  {game}  {rules.players} players  {seats_summary(table)}  "
        f"{status_text(table)}{clock}  rules: {'; '.join(changed) if changed else 'the default ones'}"
    )


def score_line(view: View, seat: int, names: Sequence[str]) -> str:
    """One seat's line of the score sheet: score, bolts, barrel marks, falls."""
    s = view.scores[seat]
    parts = [f"{seat_name(names, seat)}: {s.score}"]
    if s.bolts:
        parts.append(f"bolts {s.bolts}")
    if s.on_barrel:
        parts.append(f"on the barrel (deal {min(s.barrel_deals + 1, 3)} of 3, visit {s.barrel_visits})")
    elif s.barrel_visits:
        parts.append(f"barrel visits {s.barrel_visits}")
    if s.falls:
        parts.append(f"falls {s.falls}")
    return ", ".join(parts)


def score_lines(view: View, names: Sequence[str]) -> list[str]:
    return [score_line(view, seat, names) for seat in range(view.rules.players)]


def auction_text(view: View, names: Sequence[str]) -> str:
    if not view.auction:
        return "no bids yet"
    spoken = [f"{seat_name(names, seat)} {'pass' if bid is None else bid}" for seat, bid in view.auction]
    return ", ".join(spoken)


def trick_text(trick: Sequence[tuple[int, Card]], names: Sequence[str]) -> str:
    return ", ".join(f"{seat_name(names, seat)} {card}" for seat, card in trick) or "empty"


def deal_line(view: View, names: Sequence[str]) -> str:
    if view.phase is None:
        return "The game has not started."
    kind = "" if view.kind is None or view.kind.value == "normal" else f" ({view.kind.value})"
    line = (
        f"Deal {view.deal_number}{kind}, dealer {seat_name(names, view.dealer)}, {_PHASE_WORDS[view.phase]}"
    )
    if view.sitter is not None:
        line += f"; {seat_name(names, view.sitter)} sits out"
    return line


def contract_text(view: View, names: Sequence[str]) -> str | None:
    if view.declarer is None:
        return None
    text = f"Declarer {seat_name(names, view.declarer)}"
    if view.contract is not None:
        text += f", contract {view.contract}"
    elif view.bid is not None:
        text += f", bid {view.bid}"
    if view.doubled:
        text += " (doubled)"
    return text


def trump_text(view: View, names: Sequence[str]) -> str:
    trump = "none" if view.trump is None else f"{view.trump.symbol}"
    if not view.marriages:
        return f"Trump: {trump}"
    declared = ", ".join(f"{seat_name(names, s)} {suit.symbol}" for s, suit in view.marriages)
    return f"Trump: {trump}; marriages: {declared}"


def talon_text(view: View) -> str | None:
    """The talon while it matters: face down during the auction, its cards until the exchange is over (then
    they are in the declarer's hand, or the other talon's); nothing during the play."""
    if view.talon and view.phase in (Phase.TALON_CHOICE, Phase.EXCHANGE, Phase.CONTRACT):
        return "Talon: " + " ".join(str(c) for c in view.talon)
    if view.phase in (Phase.DARK, Phase.AUCTION, Phase.TALON_CHOICE):
        return "Talon: " + ", ".join(f"{n} cards face down" for n in view.talon_counts)
    return None


def seat_lines(view: View, names: Sequence[str], seat: int | None) -> list[str]:
    """Each seat of the deal: cards held, tricks and card points taken so far."""
    lines = []
    for s in view.active:
        you = " (you)" if s == seat else ""
        tricks = view.tricks_won[s]
        taken = f"{tricks} trick{'s' if tricks != 1 else ''}, {view.trick_points[s]} points"
        lines.append(f"{seat_name(names, s)}{you}: {view.card_counts[s]} cards, {taken}")
    return lines


def tricks_lines(view: View, names: Sequence[str]) -> list[str]:
    """The deal's tricks so far, in order: who took each, with which cards."""
    return [
        f"{i}. {seat_name(names, t.winner)} took {trick_text(t.plays, names)} ({t.points} points)"
        for i, t in enumerate(view.tricks, 1)
    ]


def state_lines(view: View, names: Sequence[str], seat: int | None) -> list[str]:
    """The table as text: the deal, auction, contract, trump, talon, trick, hand, scores, whose turn."""
    lines = [deal_line(view, names)]
    if view.phase is None:
        return [*lines, *score_lines(view, names)]
    if view.phase in (Phase.DARK, Phase.AUCTION) or view.auction:
        high = "" if view.high_bid is None else f" (high bid {view.high_bid})"
        lines.append(f"Auction: {auction_text(view, names)}{high}")
    contract = contract_text(view, names)
    if contract:
        lines.append(contract)
    lines.append(trump_text(view, names))
    talon = talon_text(view)
    if talon:
        lines.append(talon)
    if view.phase is Phase.PLAY:
        if view.tricks:
            last = view.tricks[-1]
            lines.append(f"Last trick: {seat_name(names, last.winner)} took {trick_text(last.plays, names)}")
        lines.append(f"Trick: {trick_text(view.trick, names)}")
    if seat is not None:
        lines.append(f"Your hand: {hand_text(view.hand)}")
    lines.append("Seats: " + "; ".join(seat_lines(view, names, seat)))
    lines.append("Scores: " + "; ".join(score_lines(view, names)))
    if view.to_act is not None:
        lines.append(f"To act: {seat_name(names, view.to_act)}")
    return lines


def standings_lines(standings: Sequence[Standing], names: Sequence[str]) -> list[str]:
    """One seat per line, best first: place, name, score (and the bank's payout)."""
    lines = []
    for s in standings:
        line = f"{s.place}. {seat_name(names, s.seat)}: {s.score}"
        if s.payout:
            line += f" (bank {s.payout:+d})"
        lines.append(line)
    return lines


def short_names(names: Sequence[str]) -> list[str]:
    """The seats' names for a narrow screen: ``Ann``, ``greedy 1``, ``greedy 2`` (the seat's number only
    where two would read the same)."""
    bases = [name.split(" (seat", maxsplit=1)[0].removesuffix(" bot") for name in names]
    return [
        f"{base} {seat}" if bases.count(base) > 1 and not base.startswith("seat ") else base
        for seat, base in enumerate(bases)
    ]
