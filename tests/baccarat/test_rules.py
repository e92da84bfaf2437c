"""Baccarat rules object: settings validation (BAC-1, BAC-2, BAC-18) and approvals (BAC-19)."""

from __future__ import annotations

from datetime import date
from fractions import Fraction

import pytest

from macau_tables.approvals import Approval
from macau_tables.baccarat.rules import (
    ALL_WAGERS,
    BaccaratRules,
    BurnRule,
    CommissionMode,
    LastRoundRule,
    ShoeSettings,
    TieOption,
    WagerKind,
    WagerLimit,
    default_limits,
)
from macau_tables.errors import ConfigError, RuleViolation

MONDAY = date(2026, 11, 2)
OPEN = date(2026, 11, 16)


def approve(rules: BaccaratRules) -> BaccaratRules:
    """The same rules with a timely approval for every option they use."""
    records = tuple(
        Approval(req.option, req.value, f"DICJ-{i}", MONDAY, date(2026, 11, 5))
        for i, req in enumerate(rules.options_requiring_approval())
    )
    return BaccaratRules(**{**_fields(rules), "approvals": records})


def _fields(rules: BaccaratRules) -> dict[str, object]:
    return {name: getattr(rules, name) for name in rules.__dataclass_fields__}


def test_decks_6_to_12_BAC_1() -> None:
    assert ShoeSettings().decks == 8
    for decks in (6, 12):
        assert ShoeSettings(decks=decks).cards == decks * 52
    for bad in (5, 13, True):
        with pytest.raises(ConfigError):
            ShoeSettings(decks=bad)


def test_cut_card_at_least_12_behind_BAC_2_1() -> None:
    assert ShoeSettings(cut_card_behind=12).cut_card_behind == 12
    with pytest.raises(ConfigError, match="at least 12"):
        ShoeSettings(cut_card_behind=11)


def test_burn_settings_BAC_2_1_fixed_1_to_8() -> None:
    assert ShoeSettings(burn_rule=BurnRule.FIXED, fixed_burn=8).fixed_burn == 8
    for bad in (0, 9):
        with pytest.raises(ConfigError, match="83/2011"):
            ShoeSettings(burn_rule=BurnRule.FIXED, fixed_burn=bad)
    with pytest.raises(ConfigError):
        ShoeSettings(burn_rule=BurnRule.DECKS, fixed_burn=3)
    assert ShoeSettings(burn_rule="first_card").burn_rule is BurnRule.FIRST_CARD  # type: ignore[arg-type]
    with pytest.raises(ConfigError):
        ShoeSettings(burn_rule="whatever")  # type: ignore[arg-type]


def test_at_most_three_demo_rounds_BAC_2_2() -> None:
    assert ShoeSettings(demo_rounds=3).demo_rounds == 3
    with pytest.raises(ConfigError):
        ShoeSettings(demo_rounds=4)


def test_bet_unit_makes_commission_exact_BAC_18() -> None:
    assert BaccaratRules(bet_unit=20, limits=default_limits(20)).bet_unit == 20
    with pytest.raises(ConfigError, match="multiple of 20"):
        BaccaratRules(bet_unit=10, limits=default_limits(10))
    # no commission: a banker six pays 50 %, so an even unit suffices
    r = BaccaratRules(
        bet_unit=10, limits=default_limits(10), commission=CommissionMode.NO_COMMISSION
    )
    assert r.bet_unit == 10
    with pytest.raises(ConfigError, match="multiple of 2"):
        BaccaratRules(bet_unit=5, limits=default_limits(5), commission="no_commission")  # type: ignore[arg-type]


def test_limits_validated_BAC_13_BAC_14() -> None:
    with pytest.raises(ConfigError, match="always offered"):
        BaccaratRules(limits={WagerKind.PLAYER: WagerLimit(100, 1000)})
    with pytest.raises(ConfigError, match="multiple"):
        BaccaratRules(limits={**default_limits(), WagerKind.TIE: WagerLimit(150, 1000)})
    with pytest.raises(ConfigError):
        WagerLimit(200, 100)
    with pytest.raises(ConfigError):
        BaccaratRules(seats=6)


def test_machine_deals_face_up_so_no_card_holding_BAC_7_2_BAC_16() -> None:
    with pytest.raises(ConfigError, match="automatic machine"):
        BaccaratRules(shoe=ShoeSettings(machine=True), card_holding=True)


def test_float_contribution_refused_BAC_17() -> None:
    with pytest.raises(ConfigError, match="float"):
        BaccaratRules(jackpot_contribution=0.5)  # type: ignore[arg-type]
    assert BaccaratRules(jackpot_contribution=Fraction(3, 10)).jackpot_contribution == Fraction(
        3, 10
    )


def test_baseline_needs_no_approval_BAC_19() -> None:
    rules = BaccaratRules()
    assert rules.options_requiring_approval() == []
    assert rules.check_approvals(OPEN) == ()


@pytest.mark.parametrize(
    ("change", "option"),
    [
        ({"shoe": ShoeSettings(burn_rule=BurnRule.FIRST_CARD)}, "bac.burn_rule"),
        ({"shoe": ShoeSettings(burn_rule=BurnRule.FIXED, fixed_burn=3)}, "bac.burn_rule"),
        ({"shoe": ShoeSettings(demo_rounds=2)}, "bac.demo_rounds"),
        ({"shoe": ShoeSettings(machine=True)}, "bac.machine"),
        ({"shoe": ShoeSettings(last_round=LastRoundRule.ONE_MORE)}, "bac.last_round"),
        ({"tie_options": frozenset({TieOption.LEAVE, TieOption.WITHDRAW})}, "bac.tie_options"),
        (
            {"limits": default_limits(100, {*default_limits(), WagerKind.BANKER_PAIR})},
            "bac.banker_pair",
        ),
        ({"limits": default_limits(100, {*default_limits(), WagerKind.LUCKY_6})}, "bac.lucky_6"),
        ({"limits": default_limits(100, ALL_WAGERS)}, "bac.jackpot"),
        ({"limits": default_limits(100, ALL_WAGERS)}, "bac.fixed_award.single_pair"),
        ({"commission": CommissionMode.NO_COMMISSION}, "bac.no_commission"),
    ],
)
def test_option_without_approval_refused_BAC_19(change: dict[str, object], option: str) -> None:
    rules = BaccaratRules(**change)  # type: ignore[arg-type]
    assert option in {req.option for req in rules.options_requiring_approval()}
    with pytest.raises(RuleViolation) as exc:
        rules.check_approvals(OPEN)
    assert exc.value.rule in ("BAC-19", "BAC-17")
    approved = approve(rules)
    assert len(approved.check_approvals(OPEN)) == len(rules.options_requiring_approval())


def test_fixed_awards_need_approval_of_their_value_BAC_17_7() -> None:
    rules = approve(BaccaratRules(limits=default_limits(100, ALL_WAGERS)))
    awards = dict(rules.jackpot_fixed_awards)
    awards[next(iter(awards))] += 100
    changed = BaccaratRules(**{**_fields(rules), "jackpot_fixed_awards": awards})
    with pytest.raises(RuleViolation) as exc:
        changed.check_approvals(OPEN)
    assert exc.value.rule == "BAC-17"


def test_late_approval_refused_BAC_19() -> None:
    rules = BaccaratRules(commission=CommissionMode.NO_COMMISSION)
    # applied Monday, effective Wednesday: fewer than three working days
    late = Approval("bac.no_commission", True, "DICJ-9", MONDAY, date(2026, 11, 4))
    with pytest.raises(RuleViolation, match="3 working days"):
        BaccaratRules(**{**_fields(rules), "approvals": (late,)}).check_approvals(OPEN)
