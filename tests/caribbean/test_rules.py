"""CaribbeanRules: validation of table settings, paytable and approvals (CSP-2, CSP-3, CSP-6,
CSP-9.5, CSP-10, CSP-13)."""

from __future__ import annotations

from datetime import date
from fractions import Fraction

import pytest

from macau_tables.caribbean.hands import HandCategory
from macau_tables.caribbean.rules import (
    CaribbeanRules,
    DealingProcedure,
    JackpotFixedAwards,
    jackpot_combination,
)
from macau_tables.errors import ConfigError, RuleViolation
from macau_tables.jackpot import Combination, Meter

from .support import FIXED, OPENING, SEED, approval_for, make_rules


def test_valid_rules_and_defaults_CSP_2() -> None:
    rules = make_rules()
    assert rules.boxes == 7
    assert rules.dealing_procedure is DealingProcedure.SHUFFLER
    assert rules.new_meter() == Meter(SEED, SEED)
    assert isinstance(rules.jackpot_contribution, Fraction)


@pytest.mark.parametrize(
    ("field", "value"),
    [
        ("bet_unit", 0),
        ("bet_unit", 1.5),
        ("ante_minimum", 150),  # not a multiple of the unit
        ("ante_maximum", 50),  # below the minimum
        ("jackpot_wager", 250),
        ("jackpot_wager", 0),
        ("royal_flush_odds", 49),
        ("royal_flush_odds", 101),
        ("max_payout_per_box", 0),
        ("jackpot_contribution", 0.7),  # floats are refused
        ("jackpot_contribution", Fraction(11, 10)),
        ("jackpot_seed", -1),
        ("dealing_procedure", "by hand"),
        ("decision_timeout_seconds", 0),
        ("boxes", 8),
        ("jackpot_fixed_awards", {"royal_flush": 1}),
        ("approvals", ("not an approval",)),
    ],
)
def test_invalid_setting_names_the_field(field: str, value: object) -> None:
    """CSP-2, CSP-3, CSP-6.2, CSP-6.3, CSP-6.4, CSP-9.5, CSP-10: a bad table setting is
    refused naming its field."""
    with pytest.raises(ConfigError) as exc:
        make_rules(**{field: value})
    assert field.split("_")[0] in str(exc.value)


def test_fixed_awards_validated_CSP_10_3() -> None:
    with pytest.raises(ConfigError, match="flush"):
        JackpotFixedAwards(1, 1, 1, 1, -5)
    assert FIXED.as_mapping()[Combination.FULL_HOUSE] == 15_000


def test_procedure_accepts_its_text_CSP_3() -> None:
    assert make_rules(dealing_procedure="shoe").dealing_procedure is DealingProcedure.SHOE


def test_paytable_CSP_9_5() -> None:
    rules = make_rules(royal_flush_odds=75)
    expected = {
        HandCategory.HIGH_CARD: 1,
        HandCategory.ONE_PAIR: 1,
        HandCategory.TWO_PAIR: 2,
        HandCategory.THREE_OF_A_KIND: 3,
        HandCategory.STRAIGHT: 4,
        HandCategory.FLUSH: 5,
        HandCategory.FULL_HOUSE: 7,
        HandCategory.FOUR_OF_A_KIND: 20,
        HandCategory.STRAIGHT_FLUSH: 50,
        HandCategory.ROYAL_FLUSH: 75,
    }
    assert {c: rules.raise_odds(c) for c in HandCategory} == expected


@pytest.mark.parametrize("odds", [-50, 0, 49, 101, 500])
def test_royal_odds_outside_50_to_100_refused_naming_the_rule_CSP_9_5(odds: int) -> None:
    """Both ends of the royal-flush odds range give the same message, naming CSP-9.5."""
    with pytest.raises(ConfigError, match=r"royal flush raise odds must be 50\.\.100 \(CSP-9\.5\)"):
        make_rules(royal_flush_odds=odds)
    assert make_rules(royal_flush_odds=50).royal_flush_odds == 50


def test_raise_win_cap_only_on_top_three_CSP_9_5() -> None:
    rules = make_rules(max_payout_per_box=1_000)
    assert rules.raise_win(HandCategory.FULL_HOUSE, 200) == 1_400  # not capped
    assert rules.raise_win(HandCategory.FOUR_OF_A_KIND, 200) == 1_000
    assert rules.raise_win(HandCategory.STRAIGHT_FLUSH, 200) == 1_000
    assert rules.raise_win(HandCategory.ROYAL_FLUSH, 200) == 1_000
    assert rules.raise_win(HandCategory.FOUR_OF_A_KIND, 20) == 400


def test_jackpot_combination_CSP_10_2() -> None:
    assert jackpot_combination(HandCategory.ROYAL_FLUSH) is Combination.ROYAL_FLUSH
    assert jackpot_combination(HandCategory.FLUSH) is Combination.FLUSH
    assert jackpot_combination(HandCategory.STRAIGHT) is None
    assert jackpot_combination(HandCategory.THREE_OF_A_KIND) is None


def test_royal_odds_always_need_approval_CSP_13() -> None:
    for odds in (50, 80, 100):
        rules = make_rules(royal_flush_odds=odds)
        (req,) = rules.options_requiring_approval()
        option, value, rule, description = req
        assert (option, value, rule) == ("royal_flush_odds", odds, "CSP-13")
        assert "CSP-9.5" in description
        assert rules.check_approvals(OPENING) == (approval_for(odds),)


def test_unapproved_option_refused_CSP_13() -> None:
    rules = make_rules(royal_flush_odds=80, approvals=(approval_for(100),))
    with pytest.raises(RuleViolation) as exc:
        rules.check_approvals(OPENING)
    assert exc.value.rule == "CSP-13" and "royal_flush_odds" in exc.value.message
    with pytest.raises(RuleViolation):
        make_rules(approvals=()).check_approvals(OPENING)
    # effective 7 Dec: not yet effective on 4 Dec
    with pytest.raises(RuleViolation):
        make_rules().check_approvals(date(2026, 12, 4))


def test_rules_are_frozen() -> None:
    """Design: a rules object cannot change after validation (CSP-9.5 paytable, CSP-13 option)."""
    rules = make_rules()
    with pytest.raises(AttributeError):
        rules.bet_unit = 5  # type: ignore[misc]
    assert isinstance(rules, CaribbeanRules)
