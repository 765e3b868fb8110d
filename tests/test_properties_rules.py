"""The Thousand rules' settings: two invalid ones checked by hand (T-31, T-8). One invalid setting of any
kind in otherwise random valid rules, for every game: tests/test_engine_conformance.py.
"""

from __future__ import annotations

import pytest

from engine import Rules, RulesError

# ---------------------------------------------------------------------------------------------- rules


def test_invalid_rules_examples_raise_rules_error() -> None:
    """T-31 (dark never with two players) and T-8 (bids are multiples of 5): rejected when building rules."""
    with pytest.raises(RulesError) as dark:
        Rules(players=2, dark=True)
    assert dark.value.field == "dark"
    with pytest.raises(RulesError) as step:
        Rules(bid_step=7)
    assert step.value.field == "bid_step"
