"""Exact baccarat mathematics against published figures and independent brute force.

Rules cited: BAC-5 (values), BAC-9 (third card), BAC-11/12 (winner, tie), BAC-13 (pairs,
jackpot combinations BAC-13.4), BAC-17 (payouts), BAC-18 (commission / no commission),
56/2018 (Lucky 6).
"""

from __future__ import annotations

import itertools
import math
from dataclasses import replace
from fractions import Fraction

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from macau_tables.analysis.baccarat_exact import (
    JackpotAwards,
    analyze,
    break_even_meter,
    check_decks,
    composition_after,
    effects_of_removal,
    falling,
    full_shoe,
    jackpot_counts,
    jackpot_return,
    main_counts,
    pair_count,
    wager_stats,
)
from macau_tables.cards import Card
from macau_tables.errors import ConfigError
from macau_tables.jackpot import Combination

from .support import classify_first_cards

AWARDS = JackpotAwards(
    wager=10_000,
    meter=1_000_000_000,
    heavenly_straight=200_000_000,
    four_of_a_kind=10_000_000,
    double_pair=300_000,
    three_of_a_kind=100_000,
    single_pair=20_000,
)

# ---------------------------------------------------------------------------------------------
# An independent, deliberately plain implementation of the law (from the Chinese text of
# article 9, not from the project's tableau): value sequences, weighted by the shoe.

PLAYER_DRAWS_ON = {0, 1, 2, 3, 4, 5}  # BAC-9.1 (10 counts 0)
BANKER_DRAWS_WHEN_PLAYER_THIRD = {  # BAC-9.3 (1)-(5)
    0: set(range(10)),
    1: set(range(10)),
    2: set(range(10)),
    3: {0, 1, 2, 3, 4, 5, 6, 7, 9},
    4: {2, 3, 4, 5, 6, 7},
    5: {4, 5, 6, 7},
    6: {6, 7},
    7: set(),
}


def brute_force_values(decks: int) -> dict[str, int]:
    """Counts over ordered 6-card sequences by a plain recursive walk of value sequences."""
    counts = [16 * decks] + [4 * decks] * 9
    total_cards = 52 * decks
    out = dict.fromkeys(("banker", "player", "tie", "six2", "six3", "c4", "c5", "c6", "natural"), 0)

    def draw(weight: int, used: int) -> list[tuple[int, int]]:
        # (value, new weight) for each possible next card value
        return [(v, weight * counts[v]) for v in range(10) if counts[v] > 0]

    def finish(weight: int, used: int, p: int, b: int, banker_cards: int, natural: bool) -> None:
        w = weight * falling(total_cards - used, 6 - used)
        if p > b:
            out["player"] += w
        elif b > p:
            out["banker"] += w
            if b == 6:
                out["six2" if banker_cards == 2 else "six3"] += w
        else:
            out["tie"] += w
        out[f"c{used}"] += w
        if natural:
            out["natural"] += w

    def take(v: int) -> None:
        counts[v] -= 1

    def give(v: int) -> None:
        counts[v] += 1

    for p1, w1 in draw(1, 0):
        take(p1)
        for b1, w2 in draw(w1, 1):
            take(b1)
            for p2, w3 in draw(w2, 2):
                take(p2)
                for b2, w4 in draw(w3, 3):
                    take(b2)
                    p = (p1 + p2) % 10
                    b = (b1 + b2) % 10
                    if p in (8, 9) or b in (8, 9):
                        finish(w4, 4, p, b, 2, True)
                    elif p in PLAYER_DRAWS_ON:
                        for x, w5 in draw(w4, 4):
                            take(x)
                            p3 = (p + x) % 10
                            if x in BANKER_DRAWS_WHEN_PLAYER_THIRD.get(b, set()):
                                for y, w6 in draw(w5, 5):
                                    finish(w6, 6, p3, (b + y) % 10, 3, False)
                            else:
                                finish(w5, 5, p3, b, 2, False)
                            give(x)
                    elif b <= 5:  # BAC-9.3 (6): the player stood, the banker draws on 0-5
                        for y, w5 in draw(w4, 4):
                            finish(w5, 5, p, (b + y) % 10, 3, False)
                    else:
                        finish(w4, 4, p, b, 2, False)
                    give(b2)
                give(p2)
            give(b1)
        give(p1)
    return out


@pytest.mark.parametrize("decks", [1, 2, 6, 8])
def test_fast_engine_equals_brute_force_enumeration_BAC_9(decks: int) -> None:
    """BAC-5/BAC-9/BAC-11: the multiset engine equals a plain walk of all value sequences."""
    bf = brute_force_values(decks)
    m = main_counts(full_shoe(decks))
    assert m.total == falling(52 * decks, 6)
    assert (m.banker, m.player, m.tie) == (bf["banker"], bf["player"], bf["tie"])
    assert (m.banker_six_two_cards, m.banker_six_three_cards) == (bf["six2"], bf["six3"])
    assert [m.cards_dealt(n) for n in (4, 5, 6)] == [bf["c4"], bf["c5"], bf["c6"]]
    assert m.natural == bf["natural"]


def test_eight_decks_match_published_counts_BAC_11() -> None:
    m = main_counts(full_shoe(8))
    assert m.total == 4_998_398_275_503_360 == math.prod(range(411, 417))
    assert m.banker == 2_292_252_566_437_888
    assert m.player == 2_230_518_282_592_256
    assert m.tie == 475_627_426_473_216
    # published "banker wins on 6" (the no-commission game, BAC-18.2)
    assert m.banker_six == 269_232_304_455_680


def test_six_decks_match_published_counts_BAC_11() -> None:
    m = main_counts(full_shoe(6))
    assert m.total == math.prod(range(307, 313))
    assert m.banker == 403_095_751_234_560
    assert m.player == 392_220_492_728_832
    assert m.tie == 83_552_962_932_288


def test_house_edges_eight_decks_are_exact_fractions_BAC_17_BAC_18() -> None:
    full = full_shoe(8)
    m = main_counts(full)
    w = wager_stats(m, pair_count(full))
    assert w["banker"].house_edge == Fraction(m.player * 20 - m.banker * 19, 20 * m.total)
    assert round(float(w["banker"].house_edge) * 100, 4) == 1.0579
    assert round(float(w["player"].house_edge) * 100, 4) == 1.2351
    assert round(float(w["tie"].house_edge) * 100, 2) == 14.36
    assert round(float(w["banker_no_commission"].house_edge) * 100, 4) == 1.4581
    assert w["player_pair"].house_edge == Fraction(43, 415)
    assert w["banker_pair"].house_edge == Fraction(43, 415)
    assert isinstance(w["banker"].house_edge, Fraction)


def test_lucky_six_pays_by_banker_cards_56_2018() -> None:
    """Lucky 6 (56/2018): 12:1 on a two-card banker 6, 20:1 on a three-card banker 6."""
    m = main_counts(full_shoe(8))
    w = wager_stats(m, pair_count(full_shoe(8)))["lucky_six"]
    expected = Fraction(13 * m.banker_six_two_cards + 21 * m.banker_six_three_cards, m.total) - 1
    assert w.expectation == expected
    assert m.banker_six_two_cards + m.banker_six_three_cards == m.banker_six


def test_standard_deviation_of_tie_matches_its_two_point_distribution_BAC_17() -> None:
    m = main_counts(full_shoe(8))
    w = wager_stats(m, pair_count(full_shoe(8)))["tie"]
    p = m.tie / m.total
    assert w.standard_deviation == pytest.approx(math.sqrt(81 * p * (1 - p)))


# ---------------------------------------------------------------------------------------------
# Pairs and the jackpot, card by card


def fifth_card_dealt(cards: list[int]) -> bool:
    def value(c: int) -> int:
        r = c // 4 + 2
        return 1 if r == 14 else (0 if r >= 10 else r)

    p = (value(cards[0]) + value(cards[2])) % 10
    b = (value(cards[1]) + value(cards[3])) % 10
    if p >= 8 or b >= 8:
        return False
    return p <= 5 or b <= 5


def brute_force_jackpot(comp: tuple[int, ...]) -> tuple[dict[Combination, int], int]:
    """Walk every ordered sequence of first cards (by card index, weighted by the copies the
    shoe holds); the fifth card only where a royal flush / heavenly straight is possible."""
    total = sum(comp)
    kinds = [i for i in range(52) if comp[i] > 0]
    out = dict.fromkeys(Combination, 0)
    pairs = 0
    counts = list(comp)
    for seq in itertools.product(kinds, repeat=4):
        weight = 1
        for c in seq:
            weight *= counts[c]
            counts[c] -= 1
        if weight:
            if seq[0] // 4 == seq[2] // 4:
                pairs += weight * falling(total - 4, 2)
            four = classify_first_cards(list(seq))
            if fifth_card_dealt(list(seq)) and all(c >= 32 for c in seq):  # 10 J Q K A only
                for fifth in kinds:
                    w5 = weight * counts[fifth] * (total - 5)
                    five = classify_first_cards([*seq, fifth])
                    if five in (Combination.ROYAL_FLUSH, Combination.HEAVENLY_STRAIGHT):
                        out[five] += w5
                    elif four is not None:
                        out[four] += w5
            elif four is not None:
                out[four] += weight * falling(total - 4, 2)
        for c in seq:
            counts[c] += 1
    return out, pairs


def _shoe(cards: dict[str, int]) -> tuple[int, ...]:
    comp = [0] * 52
    for text, n in cards.items():
        comp[Card.parse(text).index] = n
    return tuple(comp)


_ROYAL_S = ("Ts", "Js", "Qs", "Ks", "As")
_ROYAL_H = ("Th", "Jh", "Qh", "Kh", "Ah")
SMALL_SHOES = [
    # two royal suits, a stray ace (heavenly straights) and two deuces (pairs), one of each
    _shoe(dict.fromkeys((*_ROYAL_S, *_ROYAL_H, "Ad", "2s", "2h"), 1)),
    # uneven multiplicities
    _shoe({**dict.fromkeys(_ROYAL_S, 2), "Ah": 1, "Kh": 3, "2c": 2, "9d": 1}),
    # four suits of one rank twice (four of a kind needs four different suits) and a royal
    _shoe({**dict.fromkeys(("5d", "5c", "5h", "5s"), 2), **dict.fromkeys(_ROYAL_S, 1), "Ad": 1}),
]


@pytest.mark.parametrize("comp", SMALL_SHOES)
def test_jackpot_closed_forms_equal_card_by_card_enumeration_BAC_13_4(
    comp: tuple[int, ...],
) -> None:
    """BAC-13.4: royal flush, heavenly straight, four of a kind (four suits), double pair,
    three of a kind and single pair, highest only: closed forms = brute force over cards."""
    expected, pairs = brute_force_jackpot(comp)
    got = jackpot_counts(comp)
    for combo, count in got.items():
        assert count == expected[combo], combo
    assert pair_count(comp) == pairs
    assert got[Combination.ROYAL_FLUSH] > 0 or comp[51] == 0


def test_pair_probability_is_31_over_415_at_eight_decks_BAC_13() -> None:
    full = full_shoe(8)
    assert Fraction(pair_count(full), falling(416, 6)) == Fraction(31, 415)


def test_jackpot_combinations_eight_decks_closed_form_values_BAC_13_4() -> None:
    counts = jackpot_counts(full_shoe(8))
    rest5 = 411
    assert counts[Combination.ROYAL_FLUSH] == 4 * 120 * 8**5 * rest5
    assert counts[Combination.HEAVENLY_STRAIGHT] == 4 * 3 * 120 * 8**5 * rest5
    assert counts[Combination.FOUR_OF_A_KIND] == 13 * 24 * 8**4 * 412 * 411


def test_jackpot_return_uses_highest_award_and_shares_royal_BAC_17() -> None:
    counts = jackpot_counts(full_shoe(8))
    total = falling(416, 6)
    one = jackpot_return(counts, total, AWARDS)
    royal = one.lines[0]
    assert royal.award == AWARDS.meter
    assert royal.return_share == Fraction(counts[Combination.ROYAL_FLUSH], total) * Fraction(
        AWARDS.meter, AWARDS.wager
    )
    heavenly = one.lines[1]
    assert heavenly.award == max(AWARDS.heavenly_straight, AWARDS.meter // 10)
    three = JackpotAwards(**{**_fields(AWARDS), "bettors": 3})
    shared = jackpot_return(counts, total, three)
    assert shared.lines[0].award == AWARDS.meter // 3
    assert shared.lines[5].award == AWARDS.single_pair  # fixed awards are paid to each winner
    assert one.total_return == sum(line.return_share for line in one.lines)
    assert one.house_edge == 1 - one.total_return


def _fields(a: JackpotAwards) -> dict[str, int]:
    return {name: getattr(a, name) for name in a.__slots__}


@pytest.mark.parametrize(
    ("field", "value"),
    [("meter", -1), ("single_pair", -5), ("wager", 0), ("bettors", 0), ("meter", 1.5)],
)
def test_bad_jackpot_settings_are_refused_BAC_17(field: str, value: object) -> None:
    with pytest.raises(ConfigError, match=field.replace("_", " ")):
        JackpotAwards(**{**_fields(AWARDS), field: value})  # type: ignore[arg-type]


@pytest.mark.parametrize("decks", [0, 13, -1, True, 8.0])
def test_bad_deck_counts_are_refused_BAC_1(decks: object) -> None:
    with pytest.raises(ConfigError, match="decks"):
        check_decks(decks)


# ---------------------------------------------------------------------------------------------
# Effects of removal


def test_effects_of_removal_sum_to_zero_over_the_shoe() -> None:
    """BAC-17/BAC-18 wagers and the BAC-13.4 jackpot: removing a random card does not change
    the expectation, so Σ over all cards of EOR = 0."""
    eor = effects_of_removal(8, AWARDS)
    for key in eor[2]:
        assert sum(4 * eor[r][key] for r in range(2, 15)) == 0, key


def test_pair_eor_is_exactly_zero_and_lucky_six_likes_sevens_BAC_13() -> None:
    eor = effects_of_removal(8)
    assert all(eor[r]["player_pair"] == 0 for r in range(2, 15))
    assert eor[7]["lucky_six"] > 0 > eor[6]["lucky_six"]
    # the four zero-valued ranks act alike on value-only wagers (BAC-5)
    assert eor[10] == eor[11] == eor[12] == eor[13]


@settings(max_examples=20, deadline=None)
@given(st.lists(st.integers(0, 51), min_size=1, max_size=40))
def test_counts_add_up_for_any_depleted_shoe(removed: list[int]) -> None:
    """BAC-9/BAC-11: every 6-card sequence of any depleted shoe is exactly one round."""
    comp = composition_after(full_shoe(1), sorted(set(removed)))
    m = main_counts(comp)
    assert m.banker + m.player + m.tie == m.total == falling(sum(comp), 6)
    assert sum(m.cards_dealt(n) for n in (4, 5, 6)) == m.total


def test_analyze_reports_everything_for_eight_decks() -> None:
    """BAC-13, BAC-17, BAC-18 and 56/2018: every wager is analysed."""
    a = analyze(8, AWARDS)
    assert a.total == falling(416, 6)
    assert set(a.wagers) >= {"banker", "player", "tie", "lucky_six", "banker_no_commission"}
    assert 0 < a.jackpot.total_return < 1
    assert set(a.eor) == set(range(2, 15))


def test_break_even_meter_is_the_first_meter_returning_100_percent_BAC_17() -> None:
    counts = jackpot_counts(full_shoe(8))
    total = falling(416, 6)
    even = break_even_meter(counts, total, AWARDS)
    assert even is not None and even > 0

    def ret(meter: int) -> Fraction:
        return jackpot_return(counts, total, replace(AWARDS, meter=meter)).total_return

    assert ret(even) >= 1 > ret(even - 1)
    rich = replace(AWARDS, single_pair=100_000)  # returns more than the wager at any meter
    assert break_even_meter(counts, total, rich) == 0


@given(
    meter=st.integers(0, 10**12),
    fixed=st.integers(0, 10**10),
    bettors=st.integers(1, 9),
)
@settings(max_examples=200, deadline=None)
def test_award_per_winner_equals_the_shared_jackpot_primitive_BAC_17(
    meter: int, fixed: int, bettors: int
) -> None:
    """``JackpotAwards.award`` gives each winner exactly what ``jackpot.award_shared`` pays
    (royal: the whole meter shared; heavenly: max(fixed, 10 % of the meter) shared; rounded
    down, CSP-10.8 via BAC-17)."""
    from macau_tables.jackpot import award_shared

    awards = replace(AWARDS, meter=meter, heavenly_straight=fixed, bettors=bettors)
    royal = award_shared(meter, 1, 0, bettors)[0].amount
    heavenly = award_shared(meter, Fraction(1, 10), fixed, bettors)[0].amount
    assert awards.award(Combination.ROYAL_FLUSH) == royal
    assert awards.award(Combination.HEAVENLY_STRAIGHT) == heavenly
