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
    with pytest.raises(ConfigError, match=r"multiple of 0\.20"):
        BaccaratRules(bet_unit=10, limits=default_limits(10))
    # no commission: a banker six pays 50 %, so an even unit suffices
    r = BaccaratRules(
        bet_unit=10, limits=default_limits(10), commission=CommissionMode.NO_COMMISSION
    )
    assert r.bet_unit == 10
    with pytest.raises(ConfigError, match=r"multiple of 0\.02"):
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


# -- bad values: a ConfigError with a message key naming the field and the rule ----------------


@pytest.mark.parametrize(
    ("kwargs", "field", "rule"),
    [
        ({"burn_rule": "sideways"}, "burn_rule", "BAC-2.1"),
        ({"burn_rule": None}, "burn_rule", "BAC-2.1"),
        ({"burn_rule": ["decks"]}, "burn_rule", "BAC-2.1"),
        ({"last_round": "never"}, "last_round", "BAC-3.1"),
        ({"last_round": 1}, "last_round", "BAC-3.1"),
    ],
)
def test_bad_shoe_enum_values_name_field_and_rule_BAC_2_1_BAC_3_1(
    kwargs: dict[str, object], field: str, rule: str
) -> None:
    with pytest.raises(ConfigError) as exc:
        ShoeSettings(**kwargs)  # type: ignore[arg-type]
    err = exc.value
    assert err.key == "shoe.setting_not_one_of"
    assert err.params["field"] == field and err.params["rule"] == rule
    assert "must be one of" in err.message and rule in err.message
    assert field in err.text("zh-Hant") and "必須是" in err.text("zh-Hant")


@pytest.mark.parametrize(
    ("kwargs", "key", "field"),
    [
        ({"decks": "8"}, "shoe.setting_not_integer", "decks"),
        ({"decks": 13}, "shoe.decks_range", None),
        ({"cut_card_behind": 11}, "shoe.setting_below_minimum", "cut_card_behind"),
        ({"demo_rounds": 4}, "shoe.demo_rounds_max", None),
        ({"machine": "yes"}, "shoe.setting_not_bool", "machine"),
        ({"per_round_burn": 1}, "shoe.setting_not_bool", "per_round_burn"),
    ],
)
def test_bad_shoe_settings_carry_keys_BAC_1_BAC_2(
    kwargs: dict[str, object], key: str, field: str | None
) -> None:
    with pytest.raises(ConfigError) as exc:
        ShoeSettings(**kwargs)  # type: ignore[arg-type]
    assert exc.value.key == key
    if field is not None:
        assert exc.value.params["field"] == field
    assert exc.value.text("zh-Hant") != exc.value.message


@pytest.mark.parametrize(
    ("kwargs", "key"),
    [
        ({"commission": "half"}, "shoe.setting_not_one_of"),
        ({"limits": [("player", 1)]}, "shoe.setting_not_mapping"),
        ({"limits": {"baccarat": WagerLimit(100, 1000)}}, "shoe.setting_not_one_of"),
        (
            {"limits": {**default_limits(), WagerKind.TIE: (100, 1000)}},
            "shoe.limit_not_wager_limit",
        ),
        ({"tie_options": "leave"}, "shoe.setting_not_collection"),
        ({"tie_options": 3}, "shoe.setting_not_collection"),
        ({"tie_options": {"sideways"}}, "shoe.setting_not_one_of"),
        ({"tie_options": frozenset()}, "shoe.tie_options_empty"),
        ({"card_holding": "yes"}, "shoe.setting_not_bool"),
        ({"jackpot_fixed_awards": {"lucky": 5}}, "shoe.setting_not_one_of"),
        ({"jackpot_fixed_awards": {"royal_flush": 5}}, "shoe.no_fixed_award"),
        ({"jackpot_fixed_awards": 5}, "shoe.setting_not_mapping"),
        ({"approvals": None}, "shoe.setting_not_collection"),
        ({"approvals": ("DICJ-1",)}, "shoe.bad_approval"),
        ({"shoe": "eight decks"}, "shoe.rules_shoe_not_settings"),
    ],
)
def test_bad_rules_values_are_config_errors_with_keys_BAC_12_BAC_13_BAC_17(
    kwargs: dict[str, object], key: str
) -> None:
    with pytest.raises(ConfigError) as exc:
        BaccaratRules(**kwargs)  # type: ignore[arg-type]
    assert exc.value.key == key
    assert exc.value.message and exc.value.text("zh-Hant")


def test_bad_limit_key_names_the_rule_BAC_13() -> None:
    with pytest.raises(ConfigError) as exc:
        BaccaratRules(limits={**default_limits(), "sideways": WagerLimit(100, 1000)})  # type: ignore[dict-item]
    assert exc.value.params["rule"] == "BAC-13" and exc.value.params["field"] == "limits key"


def test_rules_messages_keep_their_english_and_have_chinese_BAC_18() -> None:
    with pytest.raises(ConfigError) as exc:
        BaccaratRules(bet_unit=10, limits=default_limits(10))
    err = exc.value
    assert err.key == "shoe.bet_unit_commission" and err.params == {"unit": 10, "need": 20}
    assert "5 % commission is exact (BAC-18)" in err.message
    assert "抽水" in err.text("zh-Hant")


def test_rules_codec_types_resolve_at_run_time_BAC_19() -> None:
    import typing
    from dataclasses import fields, is_dataclass

    from macau_tables.baccarat.rules import RULES_CODEC_TYPES

    assert {BaccaratRules, ShoeSettings, WagerLimit} <= set(RULES_CODEC_TYPES)
    for cls in RULES_CODEC_TYPES:
        if not is_dataclass(cls):
            continue
        hints = typing.get_type_hints(cls)
        for f in fields(cls):
            assert hints[f.name] not in (typing.Any, object), (cls, f.name)
