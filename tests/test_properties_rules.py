"""Property tests of the Thousand rules' settings: an invalid one is refused (T-4 to T-6, T-8, T-12, T-13,
T-27, T-31, T-32).

One invalid setting in otherwise random valid rules raises RulesError naming it; two examples are checked by
hand. The strategy of valid rules: :mod:`tests.property_helpers`.
"""

from __future__ import annotations

import dataclasses
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from engine import Rules, RulesError
from tests.property_helpers import any_rules, property_settings

_INVALID: tuple[tuple[str, dict[str, Any]], ...] = (
    ("players", {"players": 1}),
    ("players", {"players": 5}),
    ("players", {"players": 0}),
    ("players", {"players": "3"}),
    ("players", {"players": True}),
    ("bid_step", {"bid_step": 7}),
    ("bid_step", {"bid_step": 0}),
    ("bid_step", {"bid_step": -5}),
    ("bid_step", {"bid_step": 12}),
    ("bid_step", {"bid_step": 5.0}),
    ("dark", {"players": 2, "dark": True}),
    ("dark", {"dark": 1}),
    ("two_player_deal", {"two_player_deal": "nine_and_two_talons_of_3"}),
    ("weak_talon", {"weak_talon": None}),
    ("weak_talon_below_points", {"weak_talon_below_points": -1}),
    ("weak_talon_below_points", {"weak_talon_below_points": 33}),
    ("weak_hand_max_points", {"weak_hand_max_points": -1}),
    ("barrel_at", {"barrel_at": 120}),
    ("barrel_at", {"barrel_at": 1000}),
    ("barrel_at", {"barrel_at": 883}),
    ("barrel_at", {"barrel_at": -5}),
    ("barrel_at", {"barrel_at": 595, "obligatory_game": False}),
    ("barrel_at", {"barrel_at": 555, "samosval": True}),
    ("bank", {"bank": -1}),
    ("samosval", {"samosval": "yes"}),
)


# ---------------------------------------------------------------------------------------------- rules


def test_invalid_rules_examples_raise_rules_error() -> None:
    """T-31 (dark never with two players) and T-8 (bids are multiples of 5): rejected when building rules."""
    with pytest.raises(RulesError) as dark:
        Rules(players=2, dark=True)
    assert dark.value.field == "dark"
    with pytest.raises(RulesError) as step:
        Rules(bid_step=7)
    assert step.value.field == "bid_step"


@property_settings
@given(rules=any_rules(), invalid=st.sampled_from(_INVALID))
def test_invalid_rules_raise_rules_error(rules: Rules, invalid: tuple[str, dict[str, Any]]) -> None:
    """T-4 to T-6, T-8, T-12, T-13, T-27, T-31, T-32: one invalid setting in valid rules is a RulesError."""
    field, change = invalid
    kwargs = {f.name: getattr(rules, f.name) for f in dataclasses.fields(rules)}
    kwargs.update(change)
    with pytest.raises(RulesError) as error:
        Rules(**kwargs)
    assert error.value.field == field
