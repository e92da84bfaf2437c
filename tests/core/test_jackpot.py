"""Jackpot meter, contributions and award resolution (SPEC CSP-10, shared with BAC-17)."""

from __future__ import annotations

from fractions import Fraction

import pytest
from hypothesis import given
from hypothesis import strategies as st

from macau_tables.errors import ConfigError
from macau_tables.jackpot import (
    CARIBBEAN_JACKPOT_COMBINATIONS,
    Award,
    AwardSplit,
    Combination,
    Meter,
    award_each,
    award_shared,
    build_result,
    fixed_award,
    meter_portion,
    resolve_caribbean,
    share_equally,
    split_contribution,
)

C = Combination
FIXED = {
    C.ROYAL_FLUSH: 5_000_000,
    C.STRAIGHT_FLUSH: 500_000,
    C.FOUR_OF_A_KIND: 50_000,
    C.FULL_HOUSE: 15_000,
    C.FLUSH: 10_000,
}


def test_meter_refuses_negative_and_float_CSP_10_8() -> None:
    with pytest.raises(ConfigError):
        Meter(-1, 0)
    with pytest.raises(ConfigError):
        Meter(10, -5)
    with pytest.raises(ConfigError):
        Meter(1.5, 0)  # type: ignore[arg-type]
    assert Meter.seeded(100) == Meter(100, 100)
    assert Meter(100, 50).credit(7) == Meter(107, 50)


def test_contribution_rounds_down_rest_to_house_CSP_10() -> None:
    assert split_contribution(1000, Fraction(7, 10)) == (700, 300)
    # 333 × 0.7 = 233.1 → 233 to the meter, 100 to the house
    assert split_contribution(333, Fraction(7, 10)) == (233, 100)
    # basis points
    assert split_contribution(999, Fraction(1234, 10_000)) == (123, 876)
    assert split_contribution(50, 1) == (50, 0)
    assert split_contribution(50, 0) == (0, 50)


def test_contribution_refuses_float_and_out_of_range_share() -> None:
    """CSP-10 (contributions): the share is an exact rational in 0..1, never a float."""
    with pytest.raises(ConfigError):
        split_contribution(100, 0.5)  # type: ignore[arg-type]
    with pytest.raises(ConfigError):
        split_contribution(100, Fraction(3, 2))
    with pytest.raises(ConfigError):
        split_contribution(100, Fraction(-1, 2))


@given(st.integers(0, 10**9), st.integers(0, 10_000))
def test_contribution_conserves_money_CSP_10(wager: int, bp: int) -> None:
    to_meter, to_house = split_contribution(wager, Fraction(bp, 10_000))
    assert to_meter + to_house == wager
    assert to_meter >= 0 and to_house >= 0
    assert to_meter * 10_000 <= wager * bp < (to_meter + 1) * 10_000


def test_primitives() -> None:
    """CSP-10.2 / BAC-17 primitives: floor of a meter share, equal sharing, max(fixed, share)."""
    assert meter_portion(1_234_567, Fraction(1, 10)) == 123_456
    assert share_equally(1001, 3) == (333, 2)
    assert award_each(1_000_000, Fraction(1, 10), 50_000) == AwardSplit(100_000, 0)
    split = award_each(100_000, Fraction(1, 10), 50_000)
    assert (split.from_meter, split.from_house, split.amount) == (10_000, 40_000, 50_000)
    assert fixed_award(700).from_meter == 0 and fixed_award(700).amount == 700
    with pytest.raises(ConfigError):
        share_equally(10, 0)


def test_award_shared_baccarat_heavenly_straight_BAC_17() -> None:
    # max(fixed, 10 % of meter) shared by 3: meter 1_000_005 → 100_000 from meter
    splits = award_shared(1_000_005, Fraction(1, 10), 30_000, 3)
    assert len(splits) == 3
    assert all(s == splits[0] for s in splits)
    assert splits[0].amount == 33_333 and splits[0].from_meter == 33_333
    # fixed higher than 10 %: house tops up
    splits = award_shared(100_000, Fraction(1, 10), 60_001, 2)
    assert splits[0].amount == 30_000
    assert splits[0].from_meter == 5_000 and splits[0].from_house == 25_000


def test_award_shared_whole_meter_baccarat_royal_BAC_17() -> None:
    meter = Meter(1_000_001, 100_000)
    splits = award_shared(meter.amount, 1, 0, 3)
    awards = [Award.of(seat, C.ROYAL_FLUSH, s) for seat, s in zip((1, 4, 6), splits, strict=True)]
    result = build_result(meter, awards, whole_meter_paid=True)
    assert [a.amount for a in result.awards] == [333_333] * 3
    assert result.meter_after == Meter(2 + 100_000, 100_000)
    assert result.seed_funding == 100_000 and result.reset


def test_build_result_refuses_overdraw() -> None:
    """CSP-10.8: nothing is paid out of the meter beyond what it holds."""
    with pytest.raises(ConfigError):
        build_result(Meter(10, 0), [Award(1, C.ROYAL_FLUSH, 11, 11, 0)], whole_meter_paid=True)


def test_award_refuses_inconsistent_amount() -> None:
    """CSP-10.8: an award is exactly its meter part plus its house part."""
    with pytest.raises(ConfigError):
        Award(1, C.FLUSH, 10, 0, 9)


def test_single_royal_takes_whole_meter_and_resets_CSP_10_2_CSP_10_8() -> None:
    meter = Meter(12_345_678, 1_000_000)
    r = resolve_caribbean(meter, [(3, C.ROYAL_FLUSH)], FIXED)
    (award,) = r.awards
    assert (award.box, award.amount, award.from_meter, award.from_house) == (
        3,
        12_345_678,
        12_345_678,
        0,
    )
    assert r.reset and r.seed_funding == 1_000_000
    assert r.meter_after == Meter(1_000_000, 1_000_000)
    assert r.meter_before == meter


def test_royal_fixed_higher_than_meter_house_pays_difference_CSP_10_8() -> None:
    meter = Meter(3_000_000, 1_000_000)
    r = resolve_caribbean(meter, [(1, C.ROYAL_FLUSH)], FIXED)
    (award,) = r.awards
    assert award.amount == 5_000_000
    assert award.from_meter == 3_000_000 and award.from_house == 2_000_000
    assert r.meter_after.amount == 1_000_000


def test_two_royals_share_meter_remainder_stays_CSP_10_5() -> None:
    meter = Meter(20_000_001, 1_000_000)
    r = resolve_caribbean(meter, [(5, C.ROYAL_FLUSH), (2, C.ROYAL_FLUSH)], FIXED)
    assert [a.box for a in r.awards] == [2, 5]
    assert [a.amount for a in r.awards] == [10_000_000, 10_000_000]
    assert all(a.from_house == 0 for a in r.awards)
    # the odd minor unit stays in the meter, on top of the seed
    assert r.meter_after.amount == 1 + 1_000_000


def test_two_royals_each_get_fixed_when_share_is_lower_CSP_10_5() -> None:
    meter = Meter(6_000_000, 1_000_000)
    r = resolve_caribbean(meter, [(1, C.ROYAL_FLUSH), (7, C.ROYAL_FLUSH)], FIXED)
    for a in r.awards:
        assert a.amount == 5_000_000
        assert a.from_meter == 3_000_000 and a.from_house == 2_000_000
    assert r.meter_after.amount == 1_000_000


def test_two_royals_pool_reading_of_the_chinese_text_CSP_10_5() -> None:
    """CSP-10.5, alternative reading (平分累進大獎或定額彩金): share max(meter, fixed) equally."""
    meter = Meter(6_000_001, 1_000_000)
    r = resolve_caribbean(
        meter, [(1, C.ROYAL_FLUSH), (7, C.ROYAL_FLUSH)], FIXED, royal_sharing="pool"
    )
    for a in r.awards:
        assert a.amount == 3_000_000  # max(6_000_001, 5_000_000) / 2, rounded down
        assert a.from_meter == 3_000_000 and a.from_house == 0
    assert r.meter_after.amount == 1 + 1_000_000
    r = resolve_caribbean(
        Meter(4_000_000, 0), [(1, C.ROYAL_FLUSH), (2, C.ROYAL_FLUSH)], FIXED, royal_sharing="pool"
    )
    assert [(a.amount, a.from_meter, a.from_house) for a in r.awards] == [
        (2_500_000, 2_000_000, 500_000)
    ] * 2
    with pytest.raises(ConfigError):
        resolve_caribbean(meter, [(1, C.ROYAL_FLUSH)], FIXED, royal_sharing="x")  # type: ignore[arg-type]


def test_straight_flushes_each_ten_percent_of_starting_meter_CSP_10_6() -> None:
    meter = Meter(10_000_009, 1_000_000)
    r = resolve_caribbean(meter, [(2, C.STRAIGHT_FLUSH), (6, C.STRAIGHT_FLUSH)], FIXED)
    # both take 10 % of the meter as it stood before the first payment, rounded down
    assert [a.amount for a in r.awards] == [1_000_000, 1_000_000]
    assert all(a.from_meter == 1_000_000 for a in r.awards)
    assert r.meter_after == Meter(8_000_009, 1_000_000)
    assert not r.reset and r.seed_funding == 0


def test_straight_flush_fixed_higher_house_tops_up_CSP_10_8() -> None:
    meter = Meter(2_000_000, 1_000_000)
    r = resolve_caribbean(meter, [(4, C.STRAIGHT_FLUSH)], FIXED)
    (a,) = r.awards
    assert (a.amount, a.from_meter, a.from_house) == (500_000, 200_000, 300_000)
    assert r.meter_after.amount == 1_800_000


def test_straight_flush_paid_before_royal_CSP_10_7() -> None:
    meter = Meter(10_000_000, 1_000_000)
    r = resolve_caribbean(meter, [(1, C.ROYAL_FLUSH), (3, C.FLUSH), (6, C.STRAIGHT_FLUSH)], FIXED)
    assert [(a.box, a.combination) for a in r.awards] == [
        (3, C.FLUSH),
        (6, C.STRAIGHT_FLUSH),
        (1, C.ROYAL_FLUSH),
    ]
    sf, royal = r.awards[1], r.awards[2]
    assert sf.amount == 1_000_000
    # the royal gets what the straight flush left
    assert royal.amount == 9_000_000 and royal.from_meter == 9_000_000
    assert r.meter_after.amount == 1_000_000


def test_fixed_awards_do_not_lower_meter_and_pay_in_box_order_CSP_10_4() -> None:
    meter = Meter(7_777_777, 1_000_000)
    winners = [(7, C.FLUSH), (1, C.FULL_HOUSE), (4, C.FOUR_OF_A_KIND)]
    r = resolve_caribbean(meter, winners, FIXED)
    assert [a.box for a in r.awards] == [1, 4, 7]
    assert [a.amount for a in r.awards] == [15_000, 50_000, 10_000]
    assert all(a.from_meter == 0 for a in r.awards)
    assert r.meter_after == meter
    assert r.house_paid == 75_000 and r.meter_paid == 0


def test_no_winners_leaves_meter() -> None:
    """CSP-10.8: no award, no meter change."""
    meter = Meter(5, 1)
    r = resolve_caribbean(meter, [], FIXED)
    assert r.awards == () and r.meter_after == meter and not r.reset


def test_resolve_refuses_bad_input() -> None:
    """CSP-10.2: only the CSP jackpot combinations pay, one award per box, fixed awards set."""
    with pytest.raises(ConfigError):
        resolve_caribbean(Meter(1, 1), [(1, C.FLUSH), (1, C.FLUSH)], FIXED)
    with pytest.raises(ConfigError):
        resolve_caribbean(Meter(1, 1), [(1, C.SINGLE_PAIR)], FIXED)
    with pytest.raises(ConfigError):
        resolve_caribbean(Meter(1, 1), [(1, C.FLUSH)], {})


@given(
    st.integers(0, 10**10),
    st.integers(0, 10**7),
    st.lists(
        st.sampled_from((*CARIBBEAN_JACKPOT_COMBINATIONS, None)),
        min_size=7,
        max_size=7,
    ),
)
def test_resolution_invariants_CSP_10(amount: int, seed: int, combos: list[C | None]) -> None:
    meter = Meter(amount, seed)
    winners = [(box, c) for box, c in enumerate(combos, start=1) if c is not None]
    r = resolve_caribbean(meter, winners, FIXED)
    # money: what left the meter + seed funding = meter change
    assert r.meter_after.amount == meter.amount - r.meter_paid + r.seed_funding
    assert r.meter_paid <= meter.amount
    for a in r.awards:
        assert a.amount >= FIXED[a.combination]
        assert a.from_meter >= 0 and a.from_house >= 0
    # order: straight flushes before royals, boxes ascending otherwise
    kinds = [a.combination for a in r.awards]
    if C.ROYAL_FLUSH in kinds:
        first_royal = kinds.index(C.ROYAL_FLUSH)
        assert all(k is C.ROYAL_FLUSH for k in kinds[first_royal:])
        assert r.reset
        royals = [a for a in r.awards if a.combination is C.ROYAL_FLUSH]
        assert r.meter_after.amount - seed < len(royals)
    non_royal = [a.box for a in r.awards if a.combination is not C.ROYAL_FLUSH]
    assert non_royal == sorted(non_royal)
    assert sorted(a.box for a in r.awards) == sorted(b for b, _ in winners)
