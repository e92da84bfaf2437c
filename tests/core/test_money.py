"""Money helpers: integer minor units, stakes on the bet unit and within limits."""

from __future__ import annotations

import pytest

from macau_tables.errors import RuleViolation
from macau_tables.money import check_stake, require_money


def test_require_money_refuses_floats_and_bools() -> None:
    assert require_money(100, "ante") == 100
    for bad in (1.0, True, "100", None):
        with pytest.raises(TypeError, match="ante"):
            require_money(bad, "ante")


@pytest.mark.parametrize(
    ("amount", "fragment"),
    [(0, "positive"), (-100, "positive"), (150, "multiple"), (50.0, "whole"), (2_000, "limits")],
)
def test_check_stake_refuses_with_the_rule(amount: object, fragment: str) -> None:
    with pytest.raises(RuleViolation, match=fragment) as info:
        check_stake(amount, unit=100, minimum=100, maximum=1_000, rule="CSP-6.2", what="ante")
    assert info.value.rule == "CSP-6.2"


def test_check_stake_accepts_a_valid_stake() -> None:
    assert check_stake(500, unit=100, minimum=100, maximum=1_000, rule="X", what="ante") == 500
