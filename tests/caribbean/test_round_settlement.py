"""Showdown settlement: paytable, cap, dealer qualification, folds and the jackpot
(CSP-6.7, CSP-9, CSP-10)."""

from __future__ import annotations

from fractions import Fraction

import pytest

from macau_tables.caribbean.hands import HandCategory
from macau_tables.caribbean.round import CaribbeanRound, Phase
from macau_tables.caribbean.settlement import BoxOutcome, Settlement, WagerKind
from macau_tables.jackpot import Combination, Meter
from macau_tables.rounds import Outcome

from .support import FIXED, SEED, UNIT, make_rules, play

DEALER_AK = "Ac Kh 4d 3c 2h"  # qualifies with the lowest A-K hand (CSP-9.1)

HANDS = {
    HandCategory.HIGH_CARD: "As Kd Qh 9s 7c",
    HandCategory.ONE_PAIR: "9h 9d 7s 5c 3d",
    HandCategory.TWO_PAIR: "9h 9d 7s 7c 5d",
    HandCategory.THREE_OF_A_KIND: "8s 8h 8d 6c 5s",
    HandCategory.STRAIGHT: "9c 8c 7h 6d 5h",
    HandCategory.FLUSH: "Js 9s 7s 5s 3s",
    HandCategory.FULL_HOUSE: "Qs Qh Qd Jc Jd",
    HandCategory.FOUR_OF_A_KIND: "7s 7h 7d 7c Jh",
    HandCategory.STRAIGHT_FLUSH: "9d 8d 7d 6d 5d",
    HandCategory.ROYAL_FLUSH: "As Ks Qs Js Ts",
}
ODDS = {
    HandCategory.HIGH_CARD: 1,
    HandCategory.ONE_PAIR: 1,
    HandCategory.TWO_PAIR: 2,
    HandCategory.THREE_OF_A_KIND: 3,
    HandCategory.STRAIGHT: 4,
    HandCategory.FLUSH: 5,
    HandCategory.FULL_HOUSE: 7,
    HandCategory.FOUR_OF_A_KIND: 20,
    HandCategory.STRAIGHT_FLUSH: 50,
    HandCategory.ROYAL_FLUSH: 100,
}


def settled(r: CaribbeanRound) -> Settlement:
    assert r.phase is Phase.SETTLED and r.settlement is not None
    s = r.settlement
    assert_balanced(s)
    assert CaribbeanRound.replay(r.events) == r
    return s


def assert_balanced(s: Settlement) -> None:
    """Money conservation: players + house + meter = 0."""
    assert s.players_net + s.house_net + s.meter_net == 0
    if s.jackpot is not None:
        j = s.jackpot
        assert j.meter_after.amount == j.meter_before.amount - j.meter_paid + j.seed_funding
        paid = sum(w.paid for w in s.wagers if w.kind == WagerKind.JACKPOT)
        assert paid == j.total_paid


@pytest.mark.parametrize("category", list(HandCategory))
def test_every_paytable_line_CSP_9_5(category: HandCategory) -> None:
    s = settled(play({3: HANDS[category]}, DEALER_AK, antes={3: 2 * UNIT}))
    (box,) = s.boxes
    assert box.category is category and box.outcome is BoxOutcome.WON
    ante, raise_ = s.wager(3, WagerKind.ANTE), s.wager(3, WagerKind.RAISE)
    assert ante is not None and raise_ is not None
    assert (ante.outcome, ante.paid) == (Outcome.WON, 4 * UNIT)
    assert raise_.stake == 4 * UNIT and raise_.outcome is Outcome.WON
    assert raise_.paid == 4 * UNIT + ODDS[category] * 4 * UNIT
    assert s.players_net == 2 * UNIT + ODDS[category] * 4 * UNIT
    assert s.dealer_qualifies and s.dealer_category is HandCategory.HIGH_CARD


@pytest.mark.parametrize(
    ("category", "win"),
    [
        (HandCategory.FULL_HOUSE, 1_400),  # not capped by law
        (HandCategory.FOUR_OF_A_KIND, 1_000),
        (HandCategory.STRAIGHT_FLUSH, 1_000),
        (HandCategory.ROYAL_FLUSH, 1_000),
    ],
)
def test_cap_on_raise_win_per_box_CSP_9_5(category: HandCategory, win: int) -> None:
    rules = make_rules(max_payout_per_box=1_000)
    s = settled(play({1: HANDS[category]}, DEALER_AK, rules=rules))
    raise_ = s.wager(1, WagerKind.RAISE)
    assert raise_ is not None and raise_.paid == 2 * UNIT + win


def test_royal_odds_setting_CSP_9_5() -> None:
    rules = make_rules(royal_flush_odds=50)
    s = settled(play({1: HANDS[HandCategory.ROYAL_FLUSH]}, DEALER_AK, rules=rules))
    assert s.wager(1, WagerKind.RAISE).paid == 2 * UNIT + 50 * 2 * UNIT  # type: ignore[union-attr]


@pytest.mark.parametrize("dealer", ["Qc Jh Td 4c 2h", "Ac Qh Td 4c 2h", "Kc Qh Jc 9c 8h"])
def test_dealer_not_qualifying_ante_wins_raise_returned_CSP_9_2(dealer: str) -> None:
    # box 2's K-high would lose to the dealer's hand, but the dealer does not qualify
    s = settled(play({1: "9h 9s 7s 5c 3d", 2: "Kd Jd 8s 6h 3c"}, dealer))
    assert s.dealer_qualifies is False
    for box in (1, 2):
        ante, raise_ = s.wager(box, WagerKind.ANTE), s.wager(box, WagerKind.RAISE)
        assert (ante.outcome, ante.paid) == (Outcome.WON, 2 * UNIT)  # type: ignore[union-attr]
        assert (raise_.outcome, raise_.paid) == (Outcome.RETURNED, 2 * UNIT)  # type: ignore[union-attr]
    assert s.players_net == 2 * UNIT and s.house_net == -2 * UNIT
    assert s.net_by_player() == {"p1": UNIT, "p2": UNIT}
    assert {b.outcome for b in s.boxes} == {BoxOutcome.DEALER_NOT_QUALIFIED}


def test_dealer_qualifies_with_ace_king_CSP_9_1() -> None:
    s = settled(play({1: "Kd Jd 8s 6h 3s"}, DEALER_AK))
    assert s.dealer_qualifies is True
    assert s.boxes[0].outcome is BoxOutcome.LOST


def test_dealer_higher_ante_and_raise_lose_CSP_9_4() -> None:
    s = settled(play({1: "9h 9d 7s 5c 3d"}, "Ac Ah 4d 3c 2h"))
    assert [w.outcome for w in s.wagers] == [Outcome.LOST, Outcome.LOST]
    assert s.players_net == -3 * UNIT and s.house_net == 3 * UNIT


def test_suit_tie_break_decides_CSP_8_CSP_9_3() -> None:
    # same ranks: the dealer's pair of aces holds spades; the box's pair of aces does not
    s = settled(play({1: "Ah Ad Kc 8c 5d"}, "As Ac Kh 8d 5c"))
    assert s.boxes[0].outcome is BoxOutcome.LOST


def test_fold_loses_ante_and_jackpot_wager_CSP_6_7() -> None:
    meter = Meter(8_000_000, SEED)
    s = settled(
        play(
            {1: HANDS[HandCategory.ROYAL_FLUSH]}, DEALER_AK, jackpots=(1,), folds=(1,), meter=meter
        )
    )
    ante, jackpot = s.wager(1, WagerKind.ANTE), s.wager(1, WagerKind.JACKPOT)
    assert s.wager(1, WagerKind.RAISE) is None
    assert (ante.outcome, ante.paid) == (Outcome.LOST, 0)  # type: ignore[union-attr]
    assert (jackpot.outcome, jackpot.paid) == (Outcome.LOST, 0)  # type: ignore[union-attr]
    assert (jackpot.meter, jackpot.house) == (70, 30)  # type: ignore[union-attr]
    assert s.jackpot is not None and s.jackpot.awards == ()
    assert s.jackpot.meter_after == Meter(8_000_070, SEED)
    assert s.boxes[0].outcome is BoxOutcome.FOLDED
    assert s.players_net == -2 * UNIT and s.meter_net == 70 and s.house_net == 130


def test_jackpot_pays_whatever_the_dealer_holds_CSP_10_2() -> None:
    meter = Meter(8_000_000, SEED)
    # dealer does not qualify; box 1's royal flush still takes the meter (+ its contribution)
    s = settled(
        play({1: HANDS[HandCategory.ROYAL_FLUSH]}, "Qh Jh 9d 4c 2h", jackpots=(1,), meter=meter)
    )
    jackpot = s.wager(1, WagerKind.JACKPOT)
    assert jackpot is not None and jackpot.outcome is Outcome.WON
    assert jackpot.paid == 8_000_070
    assert s.jackpot is not None and s.jackpot.reset
    assert s.jackpot.meter_after == Meter(SEED, SEED) and s.jackpot.seed_funding == SEED
    # flush loses to the dealer's higher flush, still wins its fixed jackpot award
    s = settled(play({1: "Jd 9d 7d 5d 3d"}, "Ac Qc 9c 4c 2c", jackpots=(1,)))
    assert s.boxes[0].outcome is BoxOutcome.LOST
    assert s.wager(1, WagerKind.JACKPOT).paid == FIXED.flush  # type: ignore[union-attr]
    assert s.jackpot.meter_after.amount == SEED + 70  # type: ignore[union-attr]


def test_jackpot_order_and_sources_in_a_round_CSP_10_4_CSP_10_7() -> None:
    hands = {
        2: HANDS[HandCategory.STRAIGHT_FLUSH],
        3: "Jc 9c 7c 5c 3c",
        4: "Kh 8h 6h 5h 3h",  # a flush without a jackpot wager: no award
        5: HANDS[HandCategory.ROYAL_FLUSH],
    }
    meter = Meter(10_000_000, SEED)
    s = settled(play(hands, "Qh Jh 9s 4s 2c", jackpots=(2, 3, 5), meter=meter))
    j = s.jackpot
    assert j is not None
    assert s.meter_contribution == 210
    assert j.meter_before == Meter(10_000_210, SEED)
    assert [(a.box, a.combination) for a in j.awards] == [
        (2, Combination.STRAIGHT_FLUSH),
        (3, Combination.FLUSH),
        (5, Combination.ROYAL_FLUSH),
    ]
    sf, flush, royal = j.awards
    assert (sf.amount, sf.from_meter) == (1_000_021, 1_000_021)
    assert (flush.amount, flush.from_meter, flush.from_house) == (10_000, 0, 10_000)
    assert (royal.amount, royal.from_meter) == (9_000_189, 9_000_189)
    assert j.meter_after == Meter(SEED, SEED)
    assert s.wager(4, WagerKind.JACKPOT) is None


def test_two_royal_flushes_share_the_meter_CSP_10_5() -> None:
    meter = Meter(20_000_001, SEED)
    hands = {1: "As Ks Qs Js Ts", 6: "Ah Kh Qh Jh Th"}
    s = settled(play(hands, "Qc Jc 9d 4c 2h", jackpots=(1, 6), meter=meter))
    j = s.jackpot
    assert j is not None
    assert [a.amount for a in j.awards] == [10_000_070, 10_000_070]
    assert j.meter_after.amount == SEED + 1  # the odd minor unit stays in the meter


def test_contribution_share_rounds_down_CSP_10() -> None:
    rules = make_rules(jackpot_contribution=Fraction(1, 3))
    s = settled(play({1: "9h 9d 7s 5c 3d"}, DEALER_AK, jackpots=(1,), rules=rules))
    jackpot = s.wager(1, WagerKind.JACKPOT)
    assert (jackpot.meter, jackpot.house) == (33, 67)  # type: ignore[union-attr]
    assert s.meter_net == 33
