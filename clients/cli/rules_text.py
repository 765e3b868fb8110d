"""A table's rules in words for people: what each variant means and its value, instead of the engine's field
names and Python's True/False (``bid_step: 5``, ``dark: True``).

Every rules field of both games has a label here, with the rule it varies (T-n, B-n); a field this client does
not know yet (a newer server's) is still shown, by its name. :func:`rules_lines` is the help screen's list,
:func:`changed_words` the short form of ``thousand tables``.
"""

from __future__ import annotations

from dataclasses import fields
from enum import Enum
from typing import Final

from google.protobuf.duration_pb2 import Duration

from engine import Rules
from engine.blagogo import BlagogoRules
from thousand.v1 import table_service_pb2 as pb

CHANGED: Final = "   ← changed"

_LABELS: Final[dict[str, str]] = {
    # Thousand
    "players": "Players",
    "two_player_deal": "Two players deal (T-5)",
    "sitter_scores": "With four, the dealer sitting out scores (T-6)",
    "opening_bid": "Opening bid (T-7)",
    "bid_step": "Bids rise in steps of (T-8)",
    "bid_cap": "Highest bid (T-9)",
    "closed_talon_on_uncontested_100": "An uncontested 100 takes the talon unseen (T-10)",
    "redeal_four_nines": "Four nines may ask for a redeal (T-11)",
    "weak_talon": "A weak talon may be redealt (T-12)",
    "weak_talon_below_points": "A talon is weak below (points, T-12)",
    "weak_hand_max_points": "A hand is weak at most (points, T-13)",
    "must_beat": "Must beat the trick when able (T-18)",
    "marriage_on_first_trick": "Marriage on the declarer's first lead (T-20)",
    "round_defenders": "Defenders' points rounded to 5 (T-24)",
    "barrel_at": "The barrel at (T-27)",
    "barrel_bumped_by_newcomer": "A newcomer bumps the one on the barrel (T-27)",
    "barrel_simultaneous_both_fall": "Two on the barrel at once both fall (T-27)",
    "obligatory_game": "Obligatory game on the third barrel (T-28)",
    "samosval": "Exactly 555 falls back to 0 (samosval, T-29)",
    "golden_deals": "Golden deals (T-30)",
    "dark": "Dark bids, 120 unseen (T-31)",
    "bank": "Bank, paid by the last to the first (T-32)",
    # 1000 Blagogo
    "ace_in_hand": "An ace left in hand costs (B-3)",
    "bridge_take_must_meld": "A card taken from the bridge must be melded (B-9)",
    "opening_min_points": "An opening is worth at least (B-11)",
    "layoff_scores_for": "A card added to a meld scores for (B-17)",
    "kantrame_first_turn_only": "Kantrame only on the first turn (B-19)",
    "target": "The game ends at (B-20)",
    "turnover_limit": "Deck turnovers before a round ends unwon (B-10)",
    "opening_one_meld": "An opening of one meld is enough (B-11)",
    "completed_set_keeper": "A completed set belongs to (B-15)",
    "play_on_own_melds": "Cards may be added to one's own melds (B-12)",
    "max_jokers_per_meld": "Jokers in one meld at most (B-14)",
}

_ZERO: Final[dict[str, str]] = {
    "barrel_at": "off (the first to 1000 wins)",
    "bank": "none",
    "weak_hand_max_points": "off",
    "turnover_limit": "never (the deck is turned over as often as needed)",
    "max_jokers_per_meld": "any number",
}
"""Fields whose 0 means "off" rather than a number."""

_ENUM_WORDS: Final[dict[str, str]] = {
    "nine_and_two_talons_of_3": "9 cards each, two talons of 3",
    "ten_and_two_talons_of_2": "10 cards each, two talons of 2",
    "nothing": "nothing",
    "talon_aces_and_marriage": "the talon's aces and marriage",
    "forced_100": "100, forced on the first to speak",
    "at_least_100": "100 or more, or pass",
    "marriages_in_hand": "120 plus the marriages held",
    "none": "no limit",
    "off": "never",
    "two_nines_or_two_jacks_and_nine": "two nines, or two jacks and a nine",
    "below_points": "below a number of points",
    "meld_owner": "the meld's owner",
}


def value_words(name: str, value: object) -> str:
    """A rule's value in words: yes/no, an option's meaning, "off" for a 0 that means off."""
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, Enum):
        raw = str(value.value)
        return _ENUM_WORDS.get(raw, raw.replace("_", " "))
    if value == 0 and name in _ZERO:
        return _ZERO[name]
    if isinstance(value, int) and name in {"ace_in_hand", "opening_min_points", "target"}:
        return f"{value} points"
    return str(value)


def label(name: str) -> str:
    return _LABELS.get(name, name.replace("_", " ").capitalize())


def _changed(rules: Rules | BlagogoRules) -> list[tuple[str, object, bool]]:
    defaults = type(rules)(players=rules.players)
    return [
        (f.name, getattr(rules, f.name), getattr(rules, f.name) != getattr(defaults, f.name))
        for f in fields(rules)
    ]


def rules_lines(rules: Rules | BlagogoRules) -> list[str]:
    """Every rule of the table, one a line, ``label: value``; those that differ from the specification's
    defaults marked."""
    return [
        f"{label(name)}: {value_words(name, value)}{CHANGED if changed else ''}"
        for name, value, changed in _changed(rules)
    ]


def changed_words(rules: Rules | BlagogoRules) -> list[str]:
    """The rules that differ from the specification's defaults, shortly: ``bids rise in steps of 10``."""
    return [
        f"{label(name).split(' (')[0].lower()}: {value_words(name, value)}"
        for name, value, changed in _changed(rules)
        if changed and name != "players"
    ]


_POLICY_WORDS: Final = {
    pb.TIMEOUT_POLICY_UNSPECIFIED: "the server's bot makes that one move; the seat stays its player's",
    pb.TIMEOUT_POLICY_BOT_PLAYS_TURN: "the server's bot makes that one move; the seat stays its player's",
    pb.TIMEOUT_POLICY_BOT_PLAYS: "the server's bot plays the seat until its player is back",
    pb.TIMEOUT_POLICY_FORFEIT: "the seat forfeits: the server's bot plays it to the end",
}


def seconds(duration: Duration) -> float:
    return duration.ToNanoseconds() / 1e9


def clock_lines(table: pb.Table) -> list[str]:
    """The table's clocks in words: the turn clock and what a timeout does (shown to every seat alike), and
    the pace of the server's bots."""
    if not table.HasField("time_control"):
        return ["Turn clock: none (take your time)"]
    control = table.time_control
    per_move = seconds(control.per_move)
    lines = []
    if per_move > 0:
        bank = seconds(control.bank)
        extra = f", plus a bank of {bank:g} s for the whole game" if bank else ""
        lines.append(f"Turn clock: {per_move:g} s a move{extra}")
        lines.append(f"When a move's time runs out: {_POLICY_WORDS.get(control.on_timeout, 'unknown')}")
    else:
        lines.append("Turn clock: none (take your time)")
    pace = seconds(control.bot_pace)
    if pace > 0:
        lines.append(f"The server's bots take {pace:g} s a move here, so that you can follow")
    return lines
