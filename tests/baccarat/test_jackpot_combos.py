"""Baccarat jackpot combinations (BAC-13.4) and payments (BAC-17)."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from macau_tables.baccarat.jackpot_combos import (
    first_five,
    first_four,
    jackpot_combination,
    resolve_baccarat,
)
from macau_tables.baccarat.rules import BACCARAT_JACKPOT_COMBINATIONS
from macau_tables.baccarat.tableau import deal_round
from macau_tables.cards import DECK, Card, parse_cards
from macau_tables.errors import ConfigError
from macau_tables.jackpot import Combination, Meter

FIXED = {
    Combination.HEAVENLY_STRAIGHT: 50_000,
    Combination.FOUR_OF_A_KIND: 20_000,
    Combination.DOUBLE_PAIR: 2_000,
    Combination.THREE_OF_A_KIND: 1_000,
    Combination.SINGLE_PAIR: 50,
}


def combo(text: str) -> Combination | None:
    return jackpot_combination(deal_round(parse_cards(text)))


def test_royal_flush_first_five_any_order_BAC_13_4_1() -> None:
    # P: A K = 1, B: Q J = 0; P draws T (0): first five A K Q J T of spades
    assert combo("As Qs Ks Js Ts 2c") is Combination.ROYAL_FLUSH
    # the fifth card is the banker's when the player stands (P K7 = 7; B A3 = 4 draws)
    assert combo("Ks As 7s 3s Qs") is None


def test_heavenly_straight_BAC_13_4_2() -> None:
    assert combo("Ah Qs Ks Js Ts 2c") is Combination.HEAVENLY_STRAIGHT
    assert combo("Ah Qs Kd Js Ts 2c") is None  # K of another suit


def test_five_card_combos_need_a_fifth_card_BAC_13_4() -> None:
    r = deal_round(parse_cards("As Ks 8s Qs Js Ts"))  # P A8 = 9 natural: four cards only
    assert r.cards_used == 4 and first_five(r) is None
    assert jackpot_combination(r) is None
    assert first_four(r) == tuple(parse_cards("As Ks 8s Qs"))


def test_four_of_a_kind_four_suits_BAC_13_4_3() -> None:
    assert combo("Js Jh Jd Jc 2c 3c") is Combination.FOUR_OF_A_KIND
    # a repeated suit (several decks): not four of a kind, but three of a kind
    assert combo("Js Jh Js Jc 2c 3c") is Combination.THREE_OF_A_KIND


def test_double_pair_different_ranks_BAC_13_4_4() -> None:
    assert combo("Js Qh Jh Qd 2c 3c") is Combination.DOUBLE_PAIR
    # same-rank pairs on both sides are never a double pair (they are 3/4 of a kind)
    assert combo("5s 5h 5d 5h 2c 3c") is Combination.THREE_OF_A_KIND


def test_three_of_a_kind_any_order_BAC_13_4_5() -> None:
    assert combo("9s 9h 2c 9d 5c 5d") is Combination.THREE_OF_A_KIND
    assert combo("2s 9h 9c 9d 5c 5d") is Combination.THREE_OF_A_KIND


def test_single_pair_BAC_13_4_6_and_none() -> None:
    assert combo("4s 2h 4c 3d 5c 6c") is Combination.SINGLE_PAIR
    assert combo("4s 2h 3c 2d 5c 6c") is Combination.SINGLE_PAIR  # banker 2-2
    assert combo("4s 3h 2c 5d 7c 6c") is None


@given(st.lists(st.sampled_from(DECK), min_size=6, max_size=6))
def test_combination_matches_definitions_BAC_13_4(cards: list[Card]) -> None:
    r = deal_round(cards)
    c = jackpot_combination(r)
    four = first_four(r)
    ranks = [x.rank for x in four]
    if c is Combination.FOUR_OF_A_KIND:
        assert len(set(ranks)) == 1 and len({x.suit for x in four}) == 4
    if c is Combination.DOUBLE_PAIR:
        assert r.player_pair and r.banker_pair and four[0].rank != four[1].rank
    if c is None:
        assert not r.player_pair and not r.banker_pair
        assert max(ranks.count(x) for x in ranks) < 3
    if c in (Combination.ROYAL_FLUSH, Combination.HEAVENLY_STRAIGHT):
        assert r.cards_used >= 5


def test_royal_flush_shares_whole_meter_and_resets_BAC_17_4() -> None:
    meter = Meter(1_000_001, 100_000)
    res = resolve_baccarat(meter, Combination.ROYAL_FLUSH, [7, 3], FIXED)
    assert [a.box for a in res.awards] == [7, 3]
    assert all(a.amount == 500_000 and a.from_house == 0 for a in res.awards)
    assert res.reset and res.meter_after.amount == 1 + 100_000
    assert res.seed_funding == 100_000


def test_heavenly_straight_max_of_fixed_and_ten_percent_shared_BAC_17_5() -> None:
    big = resolve_baccarat(Meter(1_000_000, 0), Combination.HEAVENLY_STRAIGHT, [1, 2], FIXED)
    assert [a.amount for a in big.awards] == [50_000, 50_000]
    assert big.meter_after.amount == 900_000
    small = resolve_baccarat(Meter(100_000, 0), Combination.HEAVENLY_STRAIGHT, [1, 2], FIXED)
    # max(50_000, 10_000) = 50_000 shared: 25_000 each, 5_000 of it from the meter
    assert [(a.amount, a.from_meter) for a in small.awards] == [(25_000, 5_000)] * 2
    assert not small.reset


def test_fixed_awards_each_BAC_17_6() -> None:
    for c in BACCARAT_JACKPOT_COMBINATIONS[2:]:
        res = resolve_baccarat(Meter(500, 0), c, [1, 2, 3], FIXED)
        assert [a.amount for a in res.awards] == [FIXED[c]] * 3
        assert res.meter_after.amount == 500 and res.meter_paid == 0


def test_nothing_to_pay_and_refusals_BAC_17() -> None:
    assert resolve_baccarat(Meter(9, 0), None, [1], FIXED).awards == ()
    assert resolve_baccarat(Meter(9, 0), Combination.ROYAL_FLUSH, [], FIXED).meter_after.amount == 9
    with pytest.raises(ConfigError):
        resolve_baccarat(Meter(9, 0), Combination.FLUSH, [1], FIXED)
    with pytest.raises(ConfigError):
        resolve_baccarat(Meter(9, 0), Combination.SINGLE_PAIR, [1, 1], FIXED)
