"""Wagers and payouts (BAC-12, BAC-13, BAC-14, BAC-15, BAC-16, BAC-17, BAC-18, 56/2018)."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from macau_tables.baccarat.bets import (
    Wager,
    area_total,
    card_holder,
    check_area,
    check_difference,
    check_stake,
    seat,
    standing,
)
from macau_tables.baccarat.rules import (
    ALL_WAGERS,
    BaccaratRules,
    CommissionMode,
    WagerKind,
    default_limits,
)
from macau_tables.baccarat.settlement import returned, settle_wager
from macau_tables.baccarat.sides import Side
from macau_tables.baccarat.tableau import deal_round
from macau_tables.cards import DECK, Card, parse_cards
from macau_tables.errors import RuleViolation
from macau_tables.jackpot import AwardSplit
from macau_tables.rounds import Outcome

RULES = BaccaratRules(limits=default_limits(100, ALL_WAGERS), max_difference=50_000)
NO_COMMISSION = BaccaratRules(
    limits=default_limits(100, ALL_WAGERS), commission=CommissionMode.NO_COMMISSION
)

PLAYER_WINS = deal_round(parse_cards("9s 5h Kd 2c"))  # P 9 natural, B 7
BANKER_WINS_7 = deal_round(parse_cards("2s 5h 4c 2d 3c"))  # P 6 stands, B 7 stands
TIE = deal_round(parse_cards("7s 7h Kc Kd"))
PAIRS = deal_round(parse_cards("Js Qh Jh Qd 2c 3c"))


def wager(kind: WagerKind, amount: int = 1000) -> Wager:
    return Wager(1, "p", seat(1), kind, amount)


def test_player_and_banker_even_money_commission_BAC_17_BAC_18() -> None:
    s = settle_wager(RULES, wager(WagerKind.PLAYER), PLAYER_WINS)
    assert (s.outcome, s.paid, s.house, s.commission) == (Outcome.WON, 2000, -1000, 0)
    s = settle_wager(RULES, wager(WagerKind.BANKER), PLAYER_WINS)
    assert (s.outcome, s.paid, s.house) == (Outcome.LOST, 0, 1000)
    assert BANKER_WINS_7.winner is Side.BANKER
    s = settle_wager(RULES, wager(WagerKind.BANKER), BANKER_WINS_7)
    # 1:1 less 5 % of the win
    assert (s.outcome, s.paid, s.commission, s.house) == (Outcome.WON, 1950, 50, -1000)


def test_lucky_6_and_no_commission_six_56_2018_73_2005() -> None:
    two = deal_round(parse_cards("2s 4h 3c 2d 9c"))  # P 5+9=4, B 6 stands on a 9: B wins 6-4
    assert (two.winner, two.banker_total, len(two.banker_cards)) == (Side.BANKER, 6, 2)
    three = deal_round(parse_cards("Ts 3h Kc Ad 3c 2d"))  # P 0+3=3; B 4 draws on 3: +2 = 6
    assert (three.winner, three.banker_total, len(three.banker_cards)) == (Side.BANKER, 6, 3)
    s = settle_wager(RULES, wager(WagerKind.LUCKY_6, 100), two)
    assert (s.outcome, s.paid) == (Outcome.WON, 100 + 12 * 100)
    s = settle_wager(RULES, wager(WagerKind.LUCKY_6, 100), three)
    assert (s.outcome, s.paid) == (Outcome.WON, 100 + 20 * 100)
    s = settle_wager(RULES, wager(WagerKind.LUCKY_6, 100), BANKER_WINS_7)
    assert s.outcome is Outcome.LOST
    # 73/2005: no commission, a banker win on 6 pays 50 %
    s = settle_wager(NO_COMMISSION, wager(WagerKind.BANKER), two)
    assert (s.paid, s.commission, s.house) == (1500, 0, -500)
    s = settle_wager(NO_COMMISSION, wager(WagerKind.BANKER), BANKER_WINS_7)
    assert (s.paid, s.commission) == (2000, 0)


def test_tie_pays_8_and_carries_main_wagers_BAC_12_BAC_17() -> None:
    s = settle_wager(RULES, wager(WagerKind.TIE, 100), TIE)
    assert (s.outcome, s.paid) == (Outcome.WON, 900)
    for kind in (WagerKind.PLAYER, WagerKind.BANKER):
        s = settle_wager(RULES, wager(kind), TIE)
        assert (s.outcome, s.paid, s.carried, s.house) == (Outcome.CARRIED_OVER, 0, 1000, 0)
        assert s.net == 0
    assert settle_wager(RULES, wager(WagerKind.TIE, 100), PLAYER_WINS).outcome is Outcome.LOST


def test_pairs_pay_11_BAC_13_BAC_17() -> None:
    assert PAIRS.player_pair and PAIRS.banker_pair
    for kind in (WagerKind.PLAYER_PAIR, WagerKind.BANKER_PAIR):
        s = settle_wager(RULES, wager(kind, 100), PAIRS)
        assert (s.outcome, s.paid, s.house) == (Outcome.WON, 1200, -1100)
        assert settle_wager(RULES, wager(kind, 100), PLAYER_WINS).outcome is Outcome.LOST


def test_jackpot_wager_contribution_and_award_BAC_17() -> None:
    w = wager(WagerKind.JACKPOT, 100)
    s = settle_wager(RULES, w, PLAYER_WINS)
    assert (s.paid, s.meter, s.house) == (0, 50, 50)
    s = settle_wager(RULES, w, PAIRS, AwardSplit(300, 700))
    # the gross contribution and house share stay; the award says who funded it (CSP-10.8)
    assert (s.outcome, s.paid, s.meter, s.house) == (Outcome.WON, 1000, 50, 50)
    assert (s.award_from_meter, s.award_from_house, s.award) == (300, 700, 1000)
    assert s.kind == "jackpot" and s.spot == "seat 1" and s.player == "p"


@given(
    st.lists(st.sampled_from(DECK), min_size=6, max_size=6),
    st.sampled_from(list(WagerKind)),
    st.integers(1, 50).map(lambda k: 100 * k),
    st.booleans(),
)
def test_every_settlement_balances_BAC_18(
    cards: list[Card], kind: WagerKind, amount: int, no_commission: bool
) -> None:
    rules = NO_COMMISSION if no_commission else RULES
    s = settle_wager(rules, wager(kind, amount), deal_round(cards))
    assert s.paid + s.commission + s.house + s.meter + s.carried == amount == s.stake
    assert s.paid >= 0 and s.commission >= 0
    if rules.commission is CommissionMode.STANDARD and s.commission:
        assert s.commission * 20 == amount  # exact 5 %, no rounding


def test_returned_wager_BAC_10() -> None:
    s = returned(wager(WagerKind.TIE, 300))
    assert (s.outcome, s.paid, s.net) == (Outcome.RETURNED, 300, 0)


def test_stake_validation_BAC_13_BAC_14_BAC_18() -> None:
    assert check_stake(RULES, WagerKind.BANKER, 500) == 500
    with pytest.raises(RuleViolation) as exc:
        check_stake(RULES, WagerKind.BANKER, 550)
    assert exc.value.rule == "BAC-18"
    for bad in (0, -100, 1.5, True):
        with pytest.raises(RuleViolation):
            check_stake(RULES, WagerKind.BANKER, bad)
    with pytest.raises(RuleViolation) as exc:
        check_stake(RULES, WagerKind.BANKER, 100_100)
    assert exc.value.rule == "BAC-14"
    with pytest.raises(RuleViolation) as exc:
        check_stake(RULES, WagerKind.BANKER, 100, area_total=100_000)
    assert exc.value.rule == "BAC-14"
    with pytest.raises(RuleViolation) as exc:
        check_stake(BaccaratRules(), WagerKind.LUCKY_6, 100)
    assert exc.value.rule == "BAC-13"
    with pytest.raises(RuleViolation):
        check_stake(RULES, WagerKind.JACKPOT, 200)


def test_difference_limit_BAC_14() -> None:
    check_difference(RULES, [Wager(1, "a", seat(1), WagerKind.BANKER, 50_000)])
    with pytest.raises(RuleViolation) as exc:
        check_difference(RULES, [Wager(1, "a", seat(1), WagerKind.BANKER, 50_100)])
    assert exc.value.rule == "BAC-14"
    check_difference(
        RULES,
        [
            Wager(1, "a", seat(1), WagerKind.BANKER, 90_000),
            Wager(2, "b", seat(2), WagerKind.PLAYER, 40_000),
            Wager(3, "c", seat(3), WagerKind.TIE, 10_000),  # tie wagers do not count
        ],
    )


def test_standing_player_not_in_seated_area_BAC_15() -> None:
    seated = {1: "alice", 2: "bob"}
    check_area(RULES, seat(1), "alice", seated)
    check_area(RULES, standing(1), "carol", seated)
    with pytest.raises(RuleViolation, match="standing player") as exc:
        check_area(RULES, seat(1), "carol", seated)
    assert exc.value.rule == "BAC-15"
    with pytest.raises(RuleViolation, match="another player"):
        check_area(RULES, seat(1), "bob", seated)
    with pytest.raises(RuleViolation):
        check_area(RULES, seat(3), "carol", seated)  # an empty seat's area is still reserved
    with pytest.raises(RuleViolation):
        check_area(RULES, standing(99), "carol", seated)
    for bad_area in ("seat 1", None, seat(True)):  # type: ignore[arg-type]
        with pytest.raises(RuleViolation) as exc:
            check_area(RULES, bad_area, "alice", seated)  # type: ignore[arg-type]
        assert exc.value.rule == "BAC-15"
    with pytest.raises(RuleViolation) as exc:
        check_area(RULES, seat(1), None, seated)
    assert exc.value.rule == "BAC-15"


def test_area_total_counts_the_same_player_area_and_kind_BAC_14() -> None:
    wagers = [
        Wager(1, "a", seat(1), WagerKind.BANKER, 500),
        Wager(2, "a", seat(1), WagerKind.BANKER, 300),
        Wager(3, "a", seat(1), WagerKind.PLAYER, 700),
        Wager(4, "b", standing(1), WagerKind.BANKER, 900),
    ]
    assert area_total(wagers, "a", seat(1), WagerKind.BANKER) == 800
    assert area_total(wagers, "a", seat(1), WagerKind.BANKER, but=1) == 300
    assert area_total(wagers, "b", seat(1), WagerKind.BANKER) == 0


def test_card_holder_largest_seated_wager_lowest_seat_BAC_16() -> None:
    holding = BaccaratRules(card_holding=True)
    wagers = [
        Wager(1, "a", seat(3), WagerKind.BANKER, 500),
        Wager(2, "b", seat(2), WagerKind.BANKER, 500),
        Wager(3, "c", standing(1), WagerKind.BANKER, 9000),  # standing: never holds
        Wager(4, "d", seat(5), WagerKind.PLAYER, 100),
    ]
    assert card_holder(holding, Side.BANKER, wagers) == "b"  # equal largest: lowest seat
    assert card_holder(holding, Side.PLAYER, wagers) == "d"
    assert card_holder(holding, Side.PLAYER, wagers[:3]) is None  # dealer reveals
    assert card_holder(BaccaratRules(), Side.BANKER, wagers) is None  # BAC-16.1: not allowed
