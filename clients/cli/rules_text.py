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

from clients.i18n import current, t
from engine import Rules
from engine.blagogo import BlagogoRules
from thousand.v1 import table_service_pb2 as pb

CHANGED: Final = "   ← "
_ZERO_MEANS_OFF: Final = frozenset(
    {"barrel_at", "bank", "weak_hand_max_points", "turnover_limit", "max_jokers_per_meld"}
)
"""Fields whose 0 means "off" rather than a number (``variant_zero.<field>``)."""
_IN_POINTS: Final = frozenset({"ace_in_hand", "opening_min_points", "target"})


def value_words(name: str, value: object) -> str:
    """A rule's value in words: yes/no, an option's meaning, "off" for a 0 that means off."""
    if isinstance(value, bool):
        return t("cli.yes") if value else t("cli.no")
    if isinstance(value, Enum):
        raw = str(value.value)
        key = f"variant_value.{raw}"
        return t(key) if current().has(key) else raw.replace("_", " ")
    if value == 0 and name in _ZERO_MEANS_OFF:
        return t(f"variant_zero.{name}")
    if isinstance(value, int) and name in _IN_POINTS:
        return t("cli.points", points=value)
    if isinstance(value, int):
        return t("cli.number", value=value)
    return str(value)


def label(name: str) -> str:
    key = f"variant.{name}"
    return t(key) if current().has(key) else name.replace("_", " ").capitalize()


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
        f"{label(name)}: {value_words(name, value)}{CHANGED + t('cli.changed') if changed else ''}"
        for name, value, changed in _changed(rules)
    ]


def changed_words(rules: Rules | BlagogoRules) -> list[str]:
    """The rules that differ from the specification's defaults, shortly: ``bids rise in steps of 10``."""
    return [
        f"{label(name).split(' (')[0].lower()}: {value_words(name, value)}"
        for name, value, changed in _changed(rules)
        if changed and name != "players"
    ]


_POLICY_KEYS: Final = {
    pb.TIMEOUT_POLICY_UNSPECIFIED: "cli.policy_one_move",
    pb.TIMEOUT_POLICY_BOT_PLAYS_TURN: "cli.policy_one_move",
    pb.TIMEOUT_POLICY_BOT_PLAYS: "cli.policy_until_back",
    pb.TIMEOUT_POLICY_FORFEIT: "cli.policy_forfeit",
}


def seconds(duration: Duration) -> float:
    return duration.ToNanoseconds() / 1e9


def clock_lines(table: pb.Table) -> list[str]:
    """The table's clocks in words: the turn clock and what a timeout does (shown to every seat alike), and
    the pace of the server's bots."""
    if not table.HasField("time_control"):
        return [t("cli.clock_none")]
    control = table.time_control
    per_move = seconds(control.per_move)
    lines = []
    if per_move > 0:
        lines.append(t("cli.clock", seconds=per_move, bank=seconds(control.bank)))
        lines.append(
            t("cli.clock_policy", policy=t(_POLICY_KEYS.get(control.on_timeout, "cli.status_unknown")))
        )
    else:
        lines.append(t("cli.clock_none"))
    pace = seconds(control.bot_pace)
    if pace > 0:
        lines.append(t("cli.bot_pace", seconds=pace))
    return lines
