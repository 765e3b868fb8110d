"""1000 Blagogo's rules as ``BlagogoRules``: every variant of the engine's
:class:`~engine.blagogo.BlagogoRules`, one field each.

A client creating a table sends them, so the direction from protobuf validates: an unset field is the
specification's default, and the first invalid field is a :class:`~engine.errors.RulesError` naming it. The
server sends them with every field set, so a client never has to know the defaults.
"""

from __future__ import annotations

from typing import Final

from codec.common import enum_table, or_default, rule_enum
from engine.blagogo.rules import BlagogoRules, CompletedSetKeeper, LayoffScores
from thousand.v1 import blagogo_rules_pb2

_LAYOFF: Final = enum_table(
    LayoffScores, blagogo_rules_pb2.BlagogoLayoffScores.Value, "BLAGOGO_LAYOFF_SCORES_"
)
_KEEPER: Final = enum_table(
    CompletedSetKeeper,
    blagogo_rules_pb2.BlagogoCompletedSetKeeper.Value,
    "BLAGOGO_COMPLETED_SET_KEEPER_",
)
_DEFAULT_RULES: Final = BlagogoRules()


def rules_to_proto(rules: BlagogoRules) -> blagogo_rules_pb2.BlagogoRules:
    """Every field set explicitly, so a client never has to know the defaults."""
    return blagogo_rules_pb2.BlagogoRules(
        players=rules.players,
        ace_in_hand=rules.ace_in_hand,
        bridge_take_must_meld=rules.bridge_take_must_meld,
        opening_min_points=rules.opening_min_points,
        layoff_scores_for=_LAYOFF[rules.layoff_scores_for],
        kantrame_first_turn_only=rules.kantrame_first_turn_only,
        target=rules.target,
        turnover_limit=rules.turnover_limit,
        opening_one_meld=rules.opening_one_meld,
        completed_set_keeper=_KEEPER[rules.completed_set_keeper],
        play_on_own_melds=rules.play_on_own_melds,
        max_jokers_per_meld=rules.max_jokers_per_meld,
    )


def rules_from_proto(message: blagogo_rules_pb2.BlagogoRules) -> BlagogoRules:
    """The engine's rules: unset fields take the defaults; RulesError names the first invalid field."""
    m, d = message, _DEFAULT_RULES
    layoff = rule_enum(m.layoff_scores_for, _LAYOFF, "layoff_scores_for", d.layoff_scores_for)
    keeper = rule_enum(m.completed_set_keeper, _KEEPER, "completed_set_keeper", d.completed_set_keeper)
    return BlagogoRules(
        players=or_default(m, "players", d.players),
        ace_in_hand=or_default(m, "ace_in_hand", d.ace_in_hand),
        bridge_take_must_meld=or_default(m, "bridge_take_must_meld", d.bridge_take_must_meld),
        opening_min_points=or_default(m, "opening_min_points", d.opening_min_points),
        layoff_scores_for=layoff,
        kantrame_first_turn_only=or_default(m, "kantrame_first_turn_only", d.kantrame_first_turn_only),
        target=or_default(m, "target", d.target),
        turnover_limit=or_default(m, "turnover_limit", d.turnover_limit),
        opening_one_meld=or_default(m, "opening_one_meld", d.opening_one_meld),
        completed_set_keeper=keeper,
        play_on_own_melds=or_default(m, "play_on_own_melds", d.play_on_own_melds),
        max_jokers_per_meld=or_default(m, "max_jokers_per_meld", d.max_jokers_per_meld),
    )
