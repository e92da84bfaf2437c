"""The baccarat kernel equals the rule functions; the shoe procedure; simulation against exact.

Rules cited: BAC-2.1 (burn, cut card), BAC-3.1 (last round), BAC-7 (dealing order), BAC-9
(third card), BAC-11/12 (winner), BAC-13 / BAC-13.4 (pairs, jackpot combinations).
"""

from __future__ import annotations

from fractions import Fraction

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from macau_tables.analysis import _baccarat_kernels as kern
from macau_tables.analysis.baccarat_counting import (
    _lucky_six_table,
    counting_study,
    lucky_six_tags,
)
from macau_tables.analysis.baccarat_exact import (
    composition_after,
    effects_of_removal,
    falling,
    full_shoe,
    main_counts,
)
from macau_tables.analysis.baccarat_sim import ShoeProcedure, SimulationResult, simulate
from macau_tables.baccarat.rules import BurnRule, LastRoundRule
from macau_tables.baccarat.sides import Side
from macau_tables.baccarat.tableau import deal_round
from macau_tables.cards import Card, new_shoe, parse_cards
from macau_tables.errors import ConfigError
from macau_tables.jackpot import Combination
from macau_tables.rng import SeededRandom, shuffle

from .support import classify_first_cards

JACKPOT_CODE = {
    None: kern.JP_NONE,
    Combination.SINGLE_PAIR: kern.JP_SINGLE_PAIR,
    Combination.THREE_OF_A_KIND: kern.JP_THREE_OF_A_KIND,
    Combination.DOUBLE_PAIR: kern.JP_DOUBLE_PAIR,
    Combination.FOUR_OF_A_KIND: kern.JP_FOUR_OF_A_KIND,
    Combination.HEAVENLY_STRAIGHT: kern.JP_HEAVENLY_STRAIGHT,
    Combination.ROYAL_FLUSH: kern.JP_ROYAL_FLUSH,
}
WINNER = {0: Side.PLAYER, 1: Side.BANKER, 2: Side.TIE}


def assert_code_matches_rules(cards: list[Card], code: int) -> int:
    """Compare one packed kernel result with deal_round on the same cards; return cards used."""
    r = deal_round(cards)
    cls = code & 255
    kind, winner, banker_total = cls // 30, (cls // 10) % 3, cls % 10
    used = (code >> 13) & 7
    assert used == r.cards_used
    assert WINNER[winner] is r.winner
    assert banker_total == r.banker_total
    assert (code >> 16) & 15 == r.player_total
    assert (kind == kern.KIND_NATURAL) == r.natural
    assert bool((code >> 8) & 1) == r.player_pair
    assert bool((code >> 9) & 1) == r.banker_pair
    # which side drew is encoded by the kind: compare the hands themselves
    player_drew = kind in (kern.KIND_PLAYER_DRAWS, kern.KIND_BOTH_DRAW)
    banker_drew = kind in (kern.KIND_BANKER_DRAWS, kern.KIND_BOTH_DRAW)
    assert len(r.player_cards) == 2 + player_drew
    assert len(r.banker_cards) == 2 + banker_drew
    assert r.cards_in_order == tuple(cards[:used])
    first = [c.index for c in cards[: 5 if used >= 5 else 4]]
    assert (code >> 10) & 7 == JACKPOT_CODE[classify_first_cards(first)]
    return used


@pytest.mark.parametrize("n", [20_000, pytest.param(100_000, marks=pytest.mark.slow)])
def test_kernel_equals_deal_round_BAC_9_BAC_13(n: int) -> None:
    """≥ ``n`` rounds (20,000; 100,000 in ``make test-slow``) from shuffled 8-deck shoes
    (seeded, project shuffle) through both the numba kernel and
    macau_tables.baccarat.tableau.deal_round: every field equal."""
    source = SeededRandom(20261202)
    rounds = 0
    while rounds < n:
        shoe = shuffle(new_shoe(8), source)
        indices = np.array([c.index for c in shoe], np.int64)
        starts = []
        pos = 0
        while pos + 6 <= len(shoe):
            starts.append(pos)
            pos += deal_round(shoe[pos : pos + 6]).cards_used
        start_arr = np.array(starts, np.int64)
        codes = np.empty(len(starts), np.int64)
        kern.replay(indices, start_arr, codes)
        for s, code in zip(starts, codes, strict=True):
            assert_code_matches_rules(shoe[s : s + 6], int(code))
        rounds += len(starts)
    assert rounds >= n


def test_kernel_finds_every_jackpot_combination_BAC_13_4() -> None:
    """Hand-made rounds for each BAC-13.4 combination (and the near misses)."""
    cases = {
        "As 2c Ks 3d Qs Js Ts": None,  # P: A K, B: 2 3 ... not the first five
        "As Ks Qs Js Ts 2c": Combination.ROYAL_FLUSH,
        "Ks Ad Qs Js Ts 2c": Combination.HEAVENLY_STRAIGHT,
        "Ks As Qs Js Th 2c": None,  # 10 of another suit: nothing
        "7s 7h 7d 7c 2c 3c": Combination.FOUR_OF_A_KIND,
        "7s 7s 7d 7c 2c 3c": Combination.THREE_OF_A_KIND,  # two spades: not four suits
        "9s 5h 9d 5c 2c 3c": Combination.DOUBLE_PAIR,
        "9s 9h 9d 5c 2c 3c": Combination.THREE_OF_A_KIND,
        "9s 5h 9d 6c 2c 3c": Combination.SINGLE_PAIR,
        "9s 5h 8d 5c 2c 3c": Combination.SINGLE_PAIR,
        "Js Qh Qd Jc 2c 3c": None,  # J-Q is not a pair (BAC-13)
    }

    for text, combo in cases.items():
        cards = parse_cards(text)
        out = np.empty(1, np.int64)
        kern.replay(np.array([c.index for c in cards], np.int64), np.zeros(1, np.int64), out)
        assert (int(out[0]) >> 10) & 7 == JACKPOT_CODE[combo], text
        assert_code_matches_rules(cards, int(out[0]))


_TRICKY = parse_cards("Ts Js Qs Ks As Ad Ah 7s 7h 7d 7c 9s 9h 4c 6d 3s")


@settings(max_examples=400, deadline=None)
@given(st.lists(st.sampled_from(_TRICKY), min_size=6, max_size=6))
def test_kernel_equals_rules_on_crafted_rounds_BAC_9_BAC_13_4(cards: list[Card]) -> None:
    """Rounds from a small alphabet (royal cards, a stray ace, four sevens, repeated cards as a
    multi-deck shoe allows): the kernel equals deal_round and the BAC-13.4 classifier."""
    out = np.empty(1, np.int64)
    kern.replay(np.array([c.index for c in cards], np.int64), np.zeros(1, np.int64), out)
    assert_code_matches_rules(cards, int(out[0]))


@pytest.mark.parametrize(
    ("burn", "count", "last", "decks"),
    [
        (BurnRule.FIRST_CARD, 0, LastRoundRule.THIS_ROUND, 8),
        (BurnRule.DECKS, 0, LastRoundRule.ONE_MORE, 6),
        (BurnRule.FIXED, 3, LastRoundRule.THIS_ROUND, 8),
    ],
)
def test_shoe_procedure_burn_cut_card_and_last_round_BAC_2_1_BAC_3_1(
    burn: BurnRule, count: int, last: LastRoundRule, decks: int
) -> None:
    p = ShoeProcedure(decks=decks, burn=burn, burn_count=count, cut_card=14, last_round=last)
    size = 52 * decks
    for batch in range(20):
        shoe = np.empty(size, np.int64)
        starts = np.empty(size // 4 + 1, np.int64)
        codes = np.empty(size // 4 + 1, np.int64)
        n = kern.trace_shoe(
            99, batch, decks, p.burn_mode, p.burn_count, p.cut_card, p.extra_rounds,
            shoe, starts, codes,
        )  # fmt: skip
        assert sorted(shoe.tolist()) == sorted(c.index for c in new_shoe(decks))
        first = Card.from_index(int(shoe[0]))
        burned = {
            BurnRule.FIRST_CARD: 1 + (10 if first.rank >= 10 and first.rank != 14 else
                                      (1 if first.rank == 14 else int(first.rank))),
            BurnRule.DECKS: decks,
            BurnRule.FIXED: count,
        }[burn]  # fmt: skip
        assert starts[0] == burned
        cards = [Card.from_index(int(i)) for i in shoe]
        ends = []
        for i in range(n):
            used = assert_code_matches_rules(cards[starts[i] : starts[i] + 6], int(codes[i]))
            ends.append(int(starts[i]) + used)
            if i + 1 < n:
                assert starts[i + 1] == ends[-1]
        cut = size - 14  # index of the first card behind the cut card
        out_round = next(i for i, e in enumerate(ends) if e > cut)  # the cut card came out
        assert n - 1 == out_round + p.extra_rounds
        assert ends[-1] <= size


def test_simulation_kernel_tallies_exactly_the_traced_shoes_BAC_2_BAC_3() -> None:
    """The parallel kernel deals the very shoes trace_shoe shows (and the trace was checked
    against deal_round above): its tallies equal the traced rounds' tallies."""
    p = ShoeProcedure()
    size = 416
    expected = np.zeros(kern.N_TALLY, np.int64)
    shoe = np.empty(size, np.int64)
    starts = np.empty(size // 4 + 1, np.int64)
    codes = np.empty(size // 4 + 1, np.int64)
    n = kern.trace_shoe(
        42, 0, 8, p.burn_mode, p.burn_count, p.cut_card, p.extra_rounds, shoe, starts, codes
    )
    for code in codes[:n]:
        code = int(code)
        expected[code & 255] += 1
        expected[kern.T_PLAYER_PAIR] += (code >> 8) & 1
        expected[kern.T_BANKER_PAIR] += (code >> 9) & 1
        expected[kern.T_JACKPOT + ((code >> 10) & 7)] += 1
        expected[kern.T_BOTH_PAIRS] += (code >> 8) & (code >> 9) & 1
    expected[kern.T_SHOES] = 1
    rounds = n
    tallies = kern.empty_tallies(1)
    kern.simulate(
        42, 0, np.array([rounds], np.int64), 8, p.burn_mode, p.burn_count, p.cut_card,
        p.extra_rounds, False, tallies,
    )  # fmt: skip
    assert np.array_equal(tallies[0], expected)
    # one more round than the shoe holds: a second shoe is shuffled for it
    tallies = kern.empty_tallies(1)
    kern.simulate(
        42, 0, np.array([rounds + 1], np.int64), 8, p.burn_mode, p.burn_count, p.cut_card,
        p.extra_rounds, False, tallies,
    )  # fmt: skip
    assert tallies[0, kern.T_SHOES] == 2
    assert tallies[0, :150].sum() == rounds + 1


def check_estimates(result: SimulationResult) -> None:
    """Every estimate near its exact value: within 1.7 half-widths (so that two dozen
    simultaneous checks do not fail by chance), or inside its interval for rare events (the
    interval is then a skewed Wilson interval)."""
    for e in result.estimates:
        if e.key.startswith("p_") and float(e.exact) * result.rounds < 200:
            assert e.covers_exact, e
        else:
            assert abs(e.mean - float(e.exact)) <= 1.7 * (e.high - e.low) / 2, e


def test_simulation_agrees_with_exact_values_within_ci() -> None:
    """2 M rounds with the full shoe procedure (BAC-2, BAC-3) against the exact values."""
    result = simulate(ShoeProcedure(), 2_000_000, seed=11)
    assert result.rounds == 2_000_000
    assert 2_000_000 / 90 < result.shoes < 2_000_000 / 70
    check_estimates(result)
    covered = sum(e.covers_exact for e in result.estimates)
    assert covered >= len(result.estimates) - 3


def test_machine_dealing_agrees_with_exact_BAC_7_2() -> None:
    result = simulate(ShoeProcedure(decks=6, machine=True), 1_000_000, seed=5)
    assert result.shoes == 0
    check_estimates(result)


def test_simulation_is_reproducible_and_seed_dependent() -> None:
    """Seeded streams (SPEC "Randomness": seeded generators for analysis only): same seed, same
    shoes (30,000 rounds: 100 independent batches, as many as 300,000 would have)."""
    a = simulate(ShoeProcedure(), 30_000, seed=1)
    b = simulate(ShoeProcedure(), 30_000, seed=1)
    c = simulate(ShoeProcedure(), 30_000, seed=2)
    assert np.array_equal(a.tallies, b.tallies)
    assert not np.array_equal(a.tallies, c.tallies)


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"decks": 0}, "decks"),
        ({"decks": 13}, "decks"),
        ({"cut_card": 11}, "cut card"),
        ({"burn": BurnRule.FIXED, "burn_count": 9}, "burn count"),
        ({"burn": BurnRule.FIXED, "burn_count": 0}, "burn count"),
    ],
)
def test_bad_procedures_are_refused_BAC_2_1(kwargs: dict[str, object], message: str) -> None:
    with pytest.raises(ConfigError, match=message):
        ShoeProcedure(**kwargs)  # type: ignore[arg-type]


def test_bad_simulation_arguments_are_refused() -> None:
    """Bad arguments are refused before any shoe is dealt (BAC-2 simulation settings)."""
    with pytest.raises(ConfigError, match="rounds"):
        simulate(ShoeProcedure(), 0, seed=1)
    with pytest.raises(ConfigError, match="seed"):
        simulate(ShoeProcedure(), 10, seed=-1)


# ---------------------------------------------------------------------------------------------
# Card counting


def test_lucky_six_table_gives_exact_probabilities_of_a_depleted_shoe() -> None:
    """Lucky 6 (56/2018): the multiset rows the counting kernel evaluates reproduce the exact
    Lucky 6 counts."""
    source = SeededRandom(3)
    removed = [c.index for c in shuffle(new_shoe(8), source)[:150]]
    comp = composition_after(full_shoe(8), removed)
    main = main_counts(comp)
    values = [0] * 10
    for index, n in enumerate(comp):
        rank = index // 4 + 2
        values[1 if rank == 14 else (0 if rank >= 10 else rank)] += n
    mult, k, two, three = _lucky_six_table()
    u = sum(values)
    got_two = Fraction(0)
    got_three = Fraction(0)
    for row, size, t2, t3 in zip(mult, k, two, three, strict=True):
        w = falling(u - int(size), 6 - int(size))  # completions of the k-card round to 6 cards
        for v in range(10):
            w *= falling(values[v], int(row[v]))
        got_two += int(t2) * w
        got_three += int(t3) * w
    assert got_two == main.banker_six_two_cards
    assert got_three == main.banker_six_three_cards


def test_lucky_six_tags_follow_the_effects_of_removal() -> None:
    """Lucky 6 (56/2018) count tags follow the BAC-5 values' effects of removal."""
    tags = lucky_six_tags(effects_of_removal(8))
    assert tags[6] < 0 < tags[7]  # index = BAC-5 value: a 6 hurts, a 7 helps Lucky 6
    assert max(abs(t) for t in tags) == 4


def test_counting_study_is_consistent_and_near_the_exact_expectations() -> None:
    """BAC-13 pairs and Lucky 6 at every shoe position (BAC-2.1 burn, BAC-3.1 cut card)."""
    eor = effects_of_removal(8)
    result = counting_study(ShoeProcedure(), 60, seed=4, eor=eor)
    assert result.shoes == 60
    assert 60 * 70 < result.rounds < 60 * 90
    assert result.mean_ev_pair == pytest.approx(-43 / 415, abs=0.01)
    assert result.mean_ev_lucky_six == pytest.approx(-0.1668, abs=0.02)
    perfect = result.rows[1]
    assert 0 <= perfect.bet_share < 0.2
    assert perfect.gain_per_round >= 0  # only positive expectations are bet
    assert all(r.gain_per_round <= perfect.gain_per_round + 1e-12 for r in result.rows[2:])
    with pytest.raises(ConfigError):
        counting_study(ShoeProcedure(machine=True), 5, seed=1, eor=eor)
