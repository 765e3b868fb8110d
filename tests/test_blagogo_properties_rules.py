"""Property tests of the 1000 Blagogo rules' settings: an invalid one is refused (B-4).

One invalid setting, of the player count or of any variant, in otherwise random valid rules raises
RulesError naming it. The strategy of valid rules: :mod:`tests.blagogo_property_helpers`.
"""

from __future__ import annotations

import dataclasses
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from engine.blagogo import BlagogoRules
from engine.errors import RulesError
from tests.blagogo_property_helpers import any_rules, property_settings

# ---------------------------------------------------------------------------------------------- B-4


_INVALID: tuple[tuple[str, Any], ...] = (
    ("players", 1),
    ("players", 9),
    ("players", 0),
    ("players", "2"),
    ("players", True),
    ("ace_in_hand", -1),
    ("ace_in_hand", 101),
    ("ace_in_hand", 10.0),
    ("opening_min_points", -5),
    ("opening_min_points", 301),
    ("layoff_scores_for", None),
    ("bridge_take_must_meld", "no"),
    ("kantrame_first_turn_only", 0),
    ("target", 0),
    ("target", -1000),
    ("target", 10_001),
    ("turnover_limit", -1),
    ("opening_one_meld", 1),
    ("completed_set_keeper", "owner"),
    ("play_on_own_melds", None),
    ("max_jokers_per_meld", 5),
    ("max_jokers_per_meld", -1),
)


@property_settings
@given(rules=any_rules(), invalid=st.sampled_from(_INVALID))
def test_b4_an_invalid_setting_raises_rules_error_naming_it(
    rules: BlagogoRules, invalid: tuple[str, Any]
) -> None:
    """B-4 and every variant: one invalid setting in otherwise valid rules is a RulesError naming it."""
    field, value = invalid
    kwargs = {f.name: getattr(rules, f.name) for f in dataclasses.fields(rules)}
    kwargs[field] = value
    with pytest.raises(RulesError) as info:
        BlagogoRules(**kwargs)
    assert info.value.field == field
