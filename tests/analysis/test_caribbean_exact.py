"""Exact Caribbean Stud analysis (CSP-6.5, CSP-6.6, CSP-6.7, CSP-9, CSP-10).

The fast sweep is checked three ways: against the published standard-ranking figure (an exact
integer), against brute-force enumeration of the dealer's hands for sampled player hands, and for
internal consistency (every deal counted once, Macau ranking never ties).
"""

from __future__ import annotations

import itertools
import subprocess
import sys
from dataclasses import replace
from fractions import Fraction
from functools import cache
from itertools import combinations
from math import comb

import numpy as np
import numpy.typing as npt
import pytest

from macau_tables.analysis.caribbean_exact import (
    DEALS_PER_UP_CARD,
    TOTAL_DEALS,
    TOTAL_DECISIONS,
    CaribbeanAnalysis,
    analyze,
    analyze_jackpot,
    par_rules,
    raise_win_units,
)
from macau_tables.cards import Card
from macau_tables.caribbean.hands import (
    QUALIFYING_STRENGTH,
    HandCategory,
    compare,
    dealer_qualifies,
    evaluate,
    evaluate_many,
)
from macau_tables.caribbean.rules import JackpotFixedAwards
from macau_tables.errors import ConfigError
from macau_tables.jackpot import Combination
from tests.analysis.support import PROBE_HANDS

PUBLISHED_STANDARD_LOSS = 1_041_372_912_372  # standard ranking, royal 100:1, optimal play


@pytest.fixture
def standard(standard_par: CaribbeanAnalysis) -> CaribbeanAnalysis:
    return standard_par


@pytest.fixture
def macau(macau_par: CaribbeanAnalysis) -> CaribbeanAnalysis:
    return macau_par


@cache
def _five_of_47() -> npt.NDArray[np.int8]:
    """Every 5 of 47 positions (1,533,939 rows), made once, when a brute-force check first
    needs it."""
    flat = itertools.chain.from_iterable(combinations(range(47), 5))
    return np.fromiter(flat, dtype=np.int8, count=5 * comb(47, 5)).reshape(-1, 5)


def _brute_counts(hand: list[int], ranking: str) -> dict[int, tuple[int, ...]]:
    """For each up card: (not qualified, player wins, tie, dealer wins) over every dealer hand
    holding it — every 5 of the 47 cards the player does not hold is evaluated once, and
    counted for each of its five cards as the up card."""
    others = np.array([c for c in range(52) if c not in hand], dtype=np.int64)
    positions = _five_of_47()
    dealer = others[positions]
    macau = evaluate_many(dealer, "macau")
    strengths = macau if ranking == "macau" else evaluate_many(dealer, ranking)  # type: ignore[arg-type]
    player = evaluate_many(np.array([hand], dtype=np.int64), ranking)[0]  # type: ignore[arg-type]
    # 0 not qualified, 1 player wins, 2 tie, 3 dealer wins
    outcome = np.where(
        macau < QUALIFYING_STRENGTH,
        0,
        np.where(strengths < player, 1, np.where(strengths == player, 2, 3)),
    )
    counts = np.zeros(47 * 4, dtype=np.int64)
    for column in range(5):
        counts += np.bincount(positions[:, column].astype(np.int64) * 4 + outcome, minlength=47 * 4)
    by_position = counts.reshape(47, 4)
    assert (by_position.sum(axis=1) == DEALS_PER_UP_CARD).all()
    return {int(up): tuple(int(x) for x in by_position[j]) for j, up in enumerate(others)}


def _optimal_raise(counts: tuple[int, ...], win_units: int) -> bool:
    n, w, _t, lose = counts
    # CSP-9.2..9.5 per ante: not qualified +1, win 1 + raise odds x 2, tie 0, loss -3 (ante and
    # the raise of CSP-6.6); folding loses the ante (CSP-6.7).
    return n + w * win_units - 3 * lose > -DEALS_PER_UP_CARD


def test_standard_ranking_matches_published_house_edge_exactly_CSP_9(
    standard: CaribbeanAnalysis,
) -> None:
    """CSP-9 with royal 100:1, standard ranking: the published 5.22430577 % as an exact integer."""
    assert standard.total_combinations == TOTAL_DEALS == 19_933_230_517_200
    loss = -sum(o.units * o.combinations for o in standard.outcomes)
    assert loss == PUBLISHED_STANDARD_LOSS
    assert standard.house_edge == Fraction(PUBLISHED_STANDARD_LOSS, TOTAL_DEALS)
    assert f"{float(standard.house_edge):.10f}" == "0.0522430577"


def test_standard_ranking_headline_figures_CSP_9_1(standard: CaribbeanAnalysis) -> None:
    """Dealer qualification (CSP-9.1) and the optimal raise rate, exact."""
    # P(dealer qualifies) does not depend on the strategy: 1 - 0.4368131868... over all deals.
    assert standard.dealer_qualifies_probability == Fraction(
        standard.dealer_qualifies_deals, TOTAL_DEALS
    )
    assert f"{float(standard.dealer_qualifies_probability):.10f}" == "0.5631868132"
    assert f"{float(standard.raise_probability):.6f}" == "0.522255"
    assert f"{float(standard.element_of_risk):.8f}" == "0.02555286"
    pushes = {o.event: o.combinations for o in standard.outcomes}["push (equal hands)"]
    assert pushes > 0


def test_macau_ranking_figures_recorded_CSP_8(macau: CaribbeanAnalysis) -> None:
    """Macau ranking (CSP-8 suit tie-breaks): no pushes, and the recorded exact figures."""
    by_event = {o.event: o for o in macau.outcomes}
    assert by_event["push (equal hands)"].combinations == 0
    assert macau.total_combinations == TOTAL_DEALS
    loss = -sum(o.units * o.combinations for o in macau.outcomes)
    assert macau.house_edge == Fraction(3_337_606_931, 63_888_559_350)
    assert loss == 1_041_333_362_472
    assert macau.raised_pairs == 63_793_782
    assert macau.indifferent_pairs == 3


def test_every_pair_decided_once_and_strategy_consistent_CSP_6_5(
    macau: CaribbeanAnalysis,
) -> None:
    """122,151,120 decisions; raised pairs equal the set bits of the strategy table."""
    bits = np.unpackbits(macau.decisions.view(np.uint8)).sum()
    assert int(bits) == macau.raised_pairs
    assert sum(macau.pairs_by_category) == TOTAL_DECISIONS
    fold = {o.event: o.combinations for o in macau.outcomes}["fold"]
    assert fold == (TOTAL_DECISIONS - macau.raised_pairs) * DEALS_PER_UP_CARD
    # Pair or better is always raised; high card below A-K never is.
    for c in range(1, 10):
        assert macau.raised_by_category[c] == macau.pairs_by_category[c]


@pytest.mark.parametrize("ranking", ["macau", "standard"])
def test_sweep_counts_equal_brute_force_CSP_9(
    ranking: str, macau: CaribbeanAnalysis, standard: CaribbeanAnalysis
) -> None:
    """W/L/N/ties and the decision for sampled hands and all 47 up cards, by enumeration."""
    analysis = macau if ranking == "macau" else standard
    for k, hand in enumerate(PROBE_HANDS):
        category = HandCategory(int(evaluate_many(np.array([hand]), analysis.ranking)[0]) >> 22)
        win_units = 1 + raise_win_units(analysis.rules, category, analysis.max_payout_units)
        brute = _brute_counts(hand, ranking)
        for up in range(52):
            if up in hand:
                continue
            counts = brute[up]
            got = tuple(int(x) for x in analysis.probe_counts[k, :, up])
            assert got == counts, (hand, up)
            decided = analysis.should_raise([Card.from_index(c) for c in hand], Card.from_index(up))
            assert decided == _optimal_raise(counts, win_units), (hand, up)


def test_royal_odds_change_only_the_royal_line_CSP_9_5(macau: CaribbeanAnalysis) -> None:
    """Royal 50:1 pays 101 units per ante on a win; the rest of the table is unchanged."""
    a = analyze(par_rules(50), threads=3)
    for low, high in zip(a.outcomes, macau.outcomes, strict=True):
        assert (low.event, low.combinations) == (high.event, high.combinations)
        if low.event == "player wins with royal flush":
            assert (low.units, high.units) == (101, 201)
        else:
            assert low.units == high.units
    assert a.house_edge > macau.house_edge
    # A different thread split (3 chunks) gives the same decisions.
    assert np.array_equal(a.decisions, macau.decisions)


@pytest.mark.parametrize("odds", [49, 101, 0, True])
def test_bad_royal_odds_refused_CSP_9_5(odds: int) -> None:
    """The analysis takes the table's own rules: CaribbeanRules refuses the odds (CSP-9.5)."""
    with pytest.raises(ConfigError, match="royal flush raise odds"):
        par_rules(odds)


def test_bad_ranking_and_cap_refused() -> None:
    with pytest.raises(ConfigError, match="ranking") as bad_ranking:
        analyze(par_rules(), ranking="poker")  # type: ignore[arg-type]
    assert bad_ranking.value.key == "analysis.unknown_ranking"
    with pytest.raises(ConfigError, match="max_payout_units"):
        analyze(par_rules(), max_payout_units=0)
    with pytest.raises(ConfigError, match="CaribbeanRules"):
        analyze("macau")  # type: ignore[arg-type]


def test_max_payout_cap_applies_to_capped_categories_only_CSP_9_5() -> None:
    rules = par_rules()
    assert raise_win_units(rules, HandCategory.ROYAL_FLUSH, 30) == 30
    assert raise_win_units(rules, HandCategory.STRAIGHT_FLUSH, 30) == 30
    assert raise_win_units(rules, HandCategory.FOUR_OF_A_KIND, 30) == 30
    assert raise_win_units(rules, HandCategory.FULL_HOUSE, 30) == 14
    # Without a cap the rules' paytable decides (raise = 2 antes, CSP-6.6).
    assert raise_win_units(rules, HandCategory.ROYAL_FLUSH) == 2 * rules.royal_flush_odds


def _with_jackpot(analysis: CaribbeanAnalysis, **awards: int) -> CaribbeanAnalysis:
    """``analysis`` with the jackpot settings of a table paying ``awards`` (the counts do not
    depend on the jackpot)."""
    fixed = {"royal_flush": 0, "straight_flush": 0, "four_of_a_kind": 0, "full_house": 0}
    fixed |= {"flush": 0} | awards
    rules = par_rules(
        analysis.rules.royal_flush_odds, jackpot_fixed_awards=JackpotFixedAwards(**fixed)
    )
    return replace(analysis, rules=rules)


def test_jackpot_break_even_meter_CSP_10_2(macau: CaribbeanAnalysis) -> None:
    """The break-even meter is the first meter at which the expected award reaches the wager."""
    table = _with_jackpot(macau, four_of_a_kind=50_000, full_house=10_000, flush=5_000)
    jackpot = analyze_jackpot(table, 0)
    assert jackpot.wager == 100
    meter = jackpot.break_even_meter()
    assert jackpot.expected_award(meter) >= 100 > jackpot.expected_award(meter - 1)
    # A folded box wins nothing (CSP-6.7): flush probability equals the raised flush pairs.
    assert jackpot.probabilities[HandCategory.FLUSH] == Fraction(5_108, 2_598_960)
    assert jackpot.expected_award(10**9) > jackpot.expected_award(10**8)


def test_jackpot_awards_are_the_tables_CSP_10_2(macau: CaribbeanAnalysis) -> None:
    """The analysis pays what macau_tables.jackpot pays a table: royal flush max(fixed, meter),
    straight flush max(fixed, floor(10 % of meter)), the others their fixed award; only the
    royal and straight flush take from the meter (CSP-10.2, CSP-10.8)."""
    table = _with_jackpot(macau, royal_flush=10**6, straight_flush=10**5, flush=777)
    jackpot = analyze_jackpot(table, 0)
    assert jackpot.award(Combination.ROYAL_FLUSH, 999).amount == 10**6
    assert jackpot.award(Combination.ROYAL_FLUSH, 5 * 10**6).amount == 5 * 10**6
    assert jackpot.award(Combination.STRAIGHT_FLUSH, 1_234_567).amount == 123_456
    assert jackpot.award(Combination.STRAIGHT_FLUSH, 99_999).amount == 10**5
    assert jackpot.award(Combination.STRAIGHT_FLUSH, 1_234_567).from_meter == 123_456
    assert jackpot.award(Combination.FLUSH, 10**9).amount == 777
    assert jackpot.award(Combination.FLUSH, 10**9).from_meter == 0
    p = jackpot.probabilities
    assert jackpot.meter_drain(10**7) == p[HandCategory.ROYAL_FLUSH] * 10**7 + p[
        HandCategory.STRAIGHT_FLUSH
    ] * (10**7 // 10)


@pytest.mark.parametrize("field", ["royal_flush", "straight_flush", "four_of_a_kind", "flush"])
def test_negative_jackpot_amounts_refused_CSP_10_3(field: str) -> None:
    """Fixed awards are table settings (CSP-10.3): the rules refuse a negative one."""
    amounts = dict.fromkeys(("royal_flush", "straight_flush", "four_of_a_kind", "full_house"), 0)
    amounts |= {"flush": 0, field: -1}
    with pytest.raises(ConfigError, match=field):
        JackpotFixedAwards(**amounts)


@pytest.mark.parametrize("meter", [-1, 1.5, True])
def test_bad_meter_refused_CSP_10_3(macau: CaribbeanAnalysis, meter: object) -> None:
    with pytest.raises(ConfigError, match="meter"):
        analyze_jackpot(macau, meter)  # type: ignore[arg-type]


def test_brute_force_with_rule_functions_CSP_9(macau: CaribbeanAnalysis) -> None:
    """Two (hand, up card) pairs enumerated with ``evaluate``/``compare``/``dealer_qualifies``."""
    analysis = macau  # its probe 0 is PROBE_HANDS[0]
    hand = [Card.from_index(c) for c in PROBE_HANDS[0]]
    for up_index in (0, 50):
        up = Card.from_index(up_index)
        rest = [c for c in (Card.from_index(i) for i in range(52)) if c not in hand and c != up]
        counts = [0, 0, 0, 0]
        player = evaluate(hand)
        for four in combinations(rest, 4):
            dealer = [*four, up]
            if not dealer_qualifies(dealer):
                counts[0] += 1
                continue
            result = compare(player, evaluate(dealer))
            counts[1 if result > 0 else 2 if result == 0 else 3] += 1
        got = [int(x) for x in analysis.probe_counts[0, :, up_index]]
        assert got == counts


_INTERRUPT_DURING_SWEEP = """
import os, signal, subprocess, sys
from macau_tables.analysis.caribbean_exact import analyze, par_rules

# Ctrl-C as a terminal delivers it: a test process may have left SIGINT ignored or blocked, and
# a child inherits both (it would then run to the end, "finished")
print("inherited:", signal.getsignal(signal.SIGINT), signal.pthread_sigmask(signal.SIG_BLOCK, []),
      file=sys.stderr)
signal.signal(signal.SIGINT, signal.default_int_handler)
signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGINT})

def step(name):
    # The sweep starts now and runs for seconds of CPU, holding the GIL: the signal must come
    # from another process (a thread of this one could not run until the sweep ends). That
    # process signals once this one has spent 0.2 s of CPU after this step, which it can only
    # have spent in the sweep: a measure of work done, not of time, so a busy machine that
    # runs the sweep slowly still receives the signal in the middle of it.
    if name == "strengths":
        code = (
            "import os, signal, sys, time\\n"
            f"pid = {os.getpid()}\\n"
            "def cpu():\\n"
            "    with open(f'/proc/{pid}/stat') as f:\\n"
            "        fields = f.read().rsplit(')', 1)[1].split()\\n"
            "    return (int(fields[11]) + int(fields[12])) / os.sysconf('SC_CLK_TCK')\\n"
            "start = cpu()\\n"
            "print('ready', flush=True)\\n"
            "for _ in range(60000):\\n"
            "    if cpu() - start >= 0.2:\\n"
            "        break\\n"
            "    time.sleep(0.005)\\n"
            "os.kill(pid, signal.SIGINT)\\n"
        )
        killer = subprocess.Popen([sys.executable, "-c", code], stdout=subprocess.PIPE)
        killer.stdout.readline()

# The kernels compiled or loaded first: no signal during compilation. The sweep's machine
# code is only loaded (or compiled) for the arguments analyze passes, not run (its seconds of
# CPU would prove nothing here): the dispatcher then has it when the sweep below starts.
import numba
from macau_tables.analysis import _caribbean_kernels as kernels

sweep = kernels.sweep

class Loaded(Exception):
    pass

def load_only(*args):
    sweep.compile(tuple(numba.typeof(a) for a in args))
    raise Loaded

kernels.sweep = load_only
try:
    analyze(par_rules())
except Loaded:
    pass
kernels.sweep = sweep
loaded = len(sweep.overloads)
try:
    analyze(par_rules(), step=step, threads=2)
except KeyboardInterrupt:
    print("interrupted")
else:
    print("finished")
# The sweep that ran was the one loaded above (the signal came while it ran, not compiling).
assert loaded == 1 and len(sweep.overloads) == 1, (loaded, len(sweep.overloads))
"""


def test_ctrl_c_during_the_sweep_is_a_clean_keyboard_interrupt() -> None:
    """A SIGINT that arrives while the numba sweep runs surfaces as ``KeyboardInterrupt`` once
    it returns (the CLI then says ``interrupted: no results``). It used to kill the process
    with a segmentation fault (or a ``SystemError``): the kernel returned a tuple of new
    arrays, and boxing it ran Python code that raised on the pending signal."""
    done = subprocess.run(
        [sys.executable, "-c", _INTERRUPT_DURING_SWEEP],
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout.strip() == "interrupted", done.stdout + done.stderr[-2000:]
