"""Words for the terminal client: action labels, the table's state, the score sheet, a table's summary.

Plain text only (no colours, no layout), so the line mode and screen readers get the same words as the
full-screen UI, which adds colour on top.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Final, assert_never

from clients.cli.rules_text import changed_words
from clients.games import game_of
from clients.i18n import t
from engine import Action, DealKind, Phase, Rules, View
from engine import actions as ea
from engine.blagogo.rules import BlagogoRules
from engine.cards import Card, Suit
from engine.events import Standing
from thousand.v1 import table_service_pb2 as pb

_STATUS_KEYS: Final = {
    pb.TABLE_STATUS_WAITING: "cli.status_waiting",
    pb.TABLE_STATUS_PLAYING: "cli.status_playing",
    pb.TABLE_STATUS_FINISHED: "cli.status_finished",
}


def counted(index: int) -> int:
    """A seat, meld, bridge position or talon as people count them: from 1. The wire and the engine count
    from 0; every such number a person reads goes through here, and every one typed through
    :func:`typed_index`."""
    return index + 1


def typed_index(word: str, zero: str) -> int | None:
    """The wire's index of a number a person typed (``3`` is index 2); None when ``word`` is not a number.
    ValueError with ``zero`` (the words for it) on ``0``: people count from 1, and a 0 typed from habit
    must not silently mean something else."""
    text = word.strip().lstrip("#")
    if not text.isdigit():
        return None
    if int(text) == 0:
        raise ValueError(zero)
    return int(text) - 1


def numbered_seat(seat: int) -> str:
    """``seat 1`` for the wire's seat 0: a seat nobody sits in yet."""
    return t("seat.numbered", seat=counted(seat))


def seat_name(names: Sequence[str], seat: int) -> str:
    return names[seat] if 0 <= seat < len(names) else numbered_seat(seat)


def redeal_words(reason: ea.RedealReason) -> str:
    return t(f"term.redeal_{reason.value}")


def phase_words(phase: Phase) -> str:
    return t(f"term.phase_{phase.value}")


def deal_kind_words(kind: DealKind) -> str:
    return t(f"term.deal_{kind.value}")


def action_label(action: Action, names: Sequence[str]) -> str:
    """What choosing ``action`` does, in words."""
    match action:
        case ea.Bid(value):
            return t("action.thousand.bid", value=value)
        case ea.Pass():
            return t("action.thousand.pass")
        case ea.DeclareDark():
            return t("action.thousand.declare_dark")
        case ea.DeclineDark():
            return t("action.thousand.decline_dark")
        case ea.DemandRedeal(reason):
            return t("action.thousand.demand_redeal", reason=redeal_words(reason))
        case ea.ChooseTalon(index):
            return t("action.thousand.choose_talon", index=counted(index))
        case ea.GiveCard(card, to):
            return t("action.thousand.give_card", card=str(card), to=seat_name(names, to))
        case ea.DiscardCard(card):
            return t("action.thousand.discard_card", card=str(card))
        case ea.NameContract(value):
            return t("action.thousand.name_contract", value=value)
        case ea.Concede():
            return t("action.thousand.concede")
        case ea.PlayCard(card, marriage):
            if marriage:
                suit = card.suit
                return t(
                    "action.thousand.play_marriage",
                    card=str(card),
                    suit=suit.symbol,
                    points=suit.marriage_points,
                )
            return t("action.thousand.play_card", card=str(card))
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
        return t("cli.no_cards")
    return "  ".join(" ".join(str(c) for c in cards) for _, cards in hand_by_suit(hand))


def seats_summary(table: pb.Table) -> str:
    taken = sum(1 for s in table.seats if s.taken)
    bots = sum(1 for s in table.seats if s.kind == pb.SEAT_KIND_BOT)
    return t("cli.seats_summary", taken=taken, seats=len(table.seats), free=table.open_seats, bots=bots)


def status_text(table: pb.Table) -> str:
    return t(_STATUS_KEYS.get(table.status, "cli.status_unknown"))


def table_line(table: pb.Table, rules: Rules | BlagogoRules) -> str:
    """One table of ``thousand tables``: id, game, players, seats, status, clock, changed rules in words."""
    game = t(f"term.game_{game_of(table).name}")
    changed = changed_words(rules)
    per_move = table.time_control.per_move.ToNanoseconds() if table.HasField("time_control") else 0
    return t(
        "cli.table_line",
        table=table.table_id,
        game=game,
        players=rules.players,
        seats=seats_summary(table),
        status=t("cli.status_rated", status=status_text(table)) if table.rated else status_text(table),
        clock=per_move / 1e9 if per_move else 0,
        rules="; ".join(changed) if changed else t("cli.rules_default"),
    )


def score_line(view: View, seat: int, names: Sequence[str]) -> str:
    """One seat's line of the score sheet: score, bolts, barrel marks, falls."""
    s = view.scores[seat]
    parts = [t("cli.score_seat", name=seat_name(names, seat), score=s.score)]
    if s.bolts:
        parts.append(t("cli.score_bolts", bolts=s.bolts))
    if s.on_barrel:
        parts.append(t("cli.score_on_barrel", deal=min(s.barrel_deals + 1, 3), visit=s.barrel_visits))
    elif s.barrel_visits:
        parts.append(t("cli.score_barrel_visits", visits=s.barrel_visits))
    if s.falls:
        parts.append(t("cli.score_falls", falls=s.falls))
    return ", ".join(parts)


def score_lines(view: View, names: Sequence[str]) -> list[str]:
    return [score_line(view, seat, names) for seat in range(view.rules.players)]


def auction_text(view: View, names: Sequence[str]) -> str:
    if not view.auction:
        return t("cli.auction_none")
    spoken = [
        t("cli.auction_pass", name=seat_name(names, seat))
        if bid is None
        else t("cli.auction_bid", name=seat_name(names, seat), value=bid)
        for seat, bid in view.auction
    ]
    return ", ".join(spoken)


def trick_text(trick: Sequence[tuple[int, Card]], names: Sequence[str]) -> str:
    return ", ".join(f"{seat_name(names, seat)} {card}" for seat, card in trick) or t("cli.trick_empty")


def deal_line(view: View, names: Sequence[str]) -> str:
    if view.phase is None:
        return t("cli.game_not_started")
    kind = "" if view.kind is None or view.kind is DealKind.NORMAL else deal_kind_words(view.kind)
    line = t(
        "cli.deal_line",
        number=view.deal_number,
        kind=kind,
        dealer=seat_name(names, view.dealer),
        phase=phase_words(view.phase),
    )
    if view.sitter is not None:
        line += "; " + t("cli.sits_out", name=seat_name(names, view.sitter))
    return line


def contract_text(view: View, names: Sequence[str]) -> str | None:
    if view.declarer is None:
        return None
    declarer = seat_name(names, view.declarer)
    doubled = "yes" if view.doubled else "no"
    if view.contract is not None:
        return t("cli.declarer_contract", name=declarer, value=view.contract, doubled=doubled)
    if view.bid is not None:
        return t("cli.declarer_bid", name=declarer, value=view.bid, doubled=doubled)
    return t("cli.declarer", name=declarer, doubled=doubled)


def trump_text(view: View, names: Sequence[str]) -> str:
    trump = t("cli.trump_none") if view.trump is None else view.trump.symbol
    if not view.marriages:
        return t("cli.trump", trump=trump)
    declared = ", ".join(f"{seat_name(names, s)} {suit.symbol}" for s, suit in view.marriages)
    return t("cli.trump_marriages", trump=trump, marriages=declared)


def talon_text(view: View) -> str | None:
    """The talon while it matters: face down during the auction, its cards until the exchange is over (then
    they are in the declarer's hand, or the other talon's); nothing during the play."""
    if view.talon and view.phase in (Phase.TALON_CHOICE, Phase.EXCHANGE, Phase.CONTRACT):
        return t("cli.talon_cards", cards=" ".join(str(c) for c in view.talon))
    if view.phase in (Phase.DARK, Phase.AUCTION, Phase.TALON_CHOICE):
        down = ", ".join(t("cli.cards_face_down", count=n) for n in view.talon_counts)
        return t("cli.talon_down", talons=down)
    return None


def seat_lines(view: View, names: Sequence[str], seat: int | None) -> list[str]:
    """Each seat of the deal in seat order (the same every deal): cards held, tricks and card points taken."""
    return [
        t(
            "cli.seat_line",
            name=seat_name(names, s),
            you="yes" if s == seat else "no",
            cards=view.card_counts[s],
            tricks=view.tricks_won[s],
            points=view.trick_points[s],
        )
        for s in sorted(view.active)
    ]


def tricks_lines(view: View, names: Sequence[str]) -> list[str]:
    """The deal's tricks so far, in order: who took each, with which cards."""
    return [
        t(
            "cli.trick_taken",
            number=i,
            name=seat_name(names, tr.winner),
            cards=trick_text(tr.plays, names),
            points=tr.points,
        )
        for i, tr in enumerate(view.tricks, 1)
    ]


def state_lines(view: View, names: Sequence[str], seat: int | None) -> list[str]:
    """The table as text: the deal, auction, contract, trump, talon, trick, hand, scores, whose turn."""
    lines = [deal_line(view, names)]
    if view.phase is None:
        return [*lines, *score_lines(view, names)]
    if view.phase in (Phase.DARK, Phase.AUCTION) or view.auction:
        bids = auction_text(view, names)
        high = view.high_bid
        lines.append(
            t("cli.auction", bids=bids) if high is None else t("cli.auction_high", bids=bids, high=high)
        )
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
            lines.append(
                t("cli.last_trick", name=seat_name(names, last.winner), cards=trick_text(last.plays, names))
            )
        lines.append(t("cli.trick", cards=trick_text(view.trick, names)))
    if seat is not None:
        lines.append(t("cli.your_hand", cards=hand_text(view.hand)))
    lines.append(t("cli.seats", seats="; ".join(seat_lines(view, names, seat))))
    lines.append(t("cli.scores", scores="; ".join(score_lines(view, names))))
    if view.to_act is not None:
        lines.append(t("cli.to_act", name=seat_name(names, view.to_act)))
    return lines


def standings_lines(standings: Sequence[Standing], names: Sequence[str]) -> list[str]:
    """One seat per line, best first: place, name, score (and the bank's payout)."""
    return [
        t("cli.standing", place=s.place, name=seat_name(names, s.seat), score=s.score, payout=s.payout)
        for s in standings
    ]


def _inside(pattern: str, text: str) -> str | None:
    """What stands in ``text`` where ``pattern`` (a message rendered with the name ``\x00``) has the name."""
    prefix, _, suffix = pattern.partition("\x00")
    if text.startswith(prefix) and text.endswith(suffix) and len(text) >= len(prefix) + len(suffix):
        return text[len(prefix) : len(text) - len(suffix)]
    return None


def short_names(names: Sequence[str]) -> list[str]:
    """The seats' names for a narrow screen: ``Ann``, ``greedy 2``, ``greedy 3`` (the seat's number, counted
    from 1 as in the long names, only where two would read the same). The long names are the catalogue's
    ``seat.bot`` and ``seat.player`` (:func:`clients.cli.follow.display_name`), read back in the player's
    language."""
    bases = []
    for seat, name in enumerate(names):
        bot = _inside(t("seat.bot", name="\x00", seat=counted(seat)), name)
        player = _inside(t("seat.player", name="\x00", seat=counted(seat)), name)
        bases.append(bot if bot is not None else player if player is not None else name)
    free = {numbered_seat(seat) for seat in range(len(names))}
    return [
        f"{base} {counted(seat)}" if bases.count(base) > 1 and base not in free else base
        for seat, base in enumerate(bases)
    ]
