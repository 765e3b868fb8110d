"""Thousand's rules as ``ThousandRules``: every variant of the engine's :class:`~engine.Rules`, one field
each.

A client creating a table sends them, so the direction from protobuf validates: an unset field is the
specification's default, and the first invalid field is a :class:`~engine.RulesError` naming it. The server
sends them with every field set, so a client never has to know the defaults.
"""

from __future__ import annotations

import functools
from typing import Final

from codec.common import enum_table, or_default, rule_enum
from engine import Rules
from engine import rules as er
from thousand.v1 import thousand_rules_pb2

_TWO_PLAYER_DEAL: Final = enum_table(
    er.TwoPlayerDeal, thousand_rules_pb2.TwoPlayerDeal.Value, "TWO_PLAYER_DEAL_"
)
_SITTER_SCORES: Final = enum_table(er.SitterScores, thousand_rules_pb2.SitterScores.Value, "SITTER_SCORES_")
_OPENING_BID: Final = enum_table(er.OpeningBid, thousand_rules_pb2.OpeningBid.Value, "OPENING_BID_")
_BID_CAP: Final = enum_table(er.BidCap, thousand_rules_pb2.BidCap.Value, "BID_CAP_")
_WEAK_TALON: Final = enum_table(er.WeakTalon, thousand_rules_pb2.WeakTalon.Value, "WEAK_TALON_")
_DEFAULT_RULES: Final = Rules()


def rules_to_proto(rules: Rules) -> thousand_rules_pb2.ThousandRules:
    """Every field set explicitly, so a client never has to know the defaults."""
    return thousand_rules_pb2.ThousandRules(
        players=rules.players,
        two_player_deal=_TWO_PLAYER_DEAL[rules.two_player_deal],
        sitter_scores=_SITTER_SCORES[rules.sitter_scores],
        opening_bid=_OPENING_BID[rules.opening_bid],
        bid_step=rules.bid_step,
        bid_cap=_BID_CAP[rules.bid_cap],
        closed_talon_on_uncontested_100=rules.closed_talon_on_uncontested_100,
        redeal_four_nines=rules.redeal_four_nines,
        weak_talon=_WEAK_TALON[rules.weak_talon],
        weak_talon_below_points=rules.weak_talon_below_points,
        weak_hand_max_points=rules.weak_hand_max_points,
        must_beat=rules.must_beat,
        marriage_on_first_trick=rules.marriage_on_first_trick,
        round_defenders=rules.round_defenders,
        barrel_at=rules.barrel_at,
        barrel_bumped_by_newcomer=rules.barrel_bumped_by_newcomer,
        barrel_simultaneous_both_fall=rules.barrel_simultaneous_both_fall,
        obligatory_game=rules.obligatory_game,
        samosval=rules.samosval,
        golden_deals=rules.golden_deals,
        dark=rules.dark,
        bank=rules.bank,
    )


@functools.lru_cache(maxsize=64)
def rules_message(rules: Rules) -> thousand_rules_pb2.ThousandRules:
    """:func:`rules_to_proto`, cached for views (each carries its table's rules): shared, never changed."""
    return rules_to_proto(rules)


def rules_from_proto(message: thousand_rules_pb2.ThousandRules) -> Rules:
    """The engine's rules: unset fields take the defaults; RulesError names the first invalid field."""
    m, d = message, _DEFAULT_RULES
    return Rules(
        players=or_default(m, "players", d.players),
        two_player_deal=rule_enum(m.two_player_deal, _TWO_PLAYER_DEAL, "two_player_deal", d.two_player_deal),
        sitter_scores=rule_enum(m.sitter_scores, _SITTER_SCORES, "sitter_scores", d.sitter_scores),
        opening_bid=rule_enum(m.opening_bid, _OPENING_BID, "opening_bid", d.opening_bid),
        bid_step=or_default(m, "bid_step", d.bid_step),
        bid_cap=rule_enum(m.bid_cap, _BID_CAP, "bid_cap", d.bid_cap),
        closed_talon_on_uncontested_100=or_default(
            m, "closed_talon_on_uncontested_100", d.closed_talon_on_uncontested_100
        ),
        redeal_four_nines=or_default(m, "redeal_four_nines", d.redeal_four_nines),
        weak_talon=rule_enum(m.weak_talon, _WEAK_TALON, "weak_talon", d.weak_talon),
        weak_talon_below_points=or_default(m, "weak_talon_below_points", d.weak_talon_below_points),
        weak_hand_max_points=or_default(m, "weak_hand_max_points", d.weak_hand_max_points),
        must_beat=or_default(m, "must_beat", d.must_beat),
        marriage_on_first_trick=or_default(m, "marriage_on_first_trick", d.marriage_on_first_trick),
        round_defenders=or_default(m, "round_defenders", d.round_defenders),
        barrel_at=or_default(m, "barrel_at", d.barrel_at),
        barrel_bumped_by_newcomer=or_default(m, "barrel_bumped_by_newcomer", d.barrel_bumped_by_newcomer),
        barrel_simultaneous_both_fall=or_default(
            m, "barrel_simultaneous_both_fall", d.barrel_simultaneous_both_fall
        ),
        obligatory_game=or_default(m, "obligatory_game", d.obligatory_game),
        samosval=or_default(m, "samosval", d.samosval),
        golden_deals=or_default(m, "golden_deals", d.golden_deals),
        dark=or_default(m, "dark", d.dark),
        bank=or_default(m, "bank", d.bank),
    )
