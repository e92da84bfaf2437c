"""The simulation kernel against the rule functions (CSP-6.5, CSP-6.6, CSP-6.7, CSP-9).

The kernel settles rounds with precomputed tables, not with the rule functions, so this test
plays more than 100,000 of its rounds again through ``evaluate``/``compare``/
``dealer_qualifies`` and the rules' paytable, and requires the same result for every round.
"""

from __future__ import annotations

from collections import Counter

import numpy as np
import pytest

from macau_tables.analysis.caribbean_exact import CaribbeanAnalysis
from macau_tables.analysis.caribbean_sim import STREAMS, simulate
from macau_tables.cards import Card
from macau_tables.caribbean.hands import compare, dealer_qualifies, evaluate
from macau_tables.errors import ConfigError


@pytest.fixture
def macau(macau_par: CaribbeanAnalysis) -> CaribbeanAnalysis:
    return macau_par


def _rules_units(
    player: list[Card], dealer: list[Card], raised: bool, analysis: CaribbeanAnalysis
) -> int:
    """One round settled by the rule functions, per ante (raise = 2 antes, CSP-6.6)."""
    if not raised:
        return -1  # CSP-6.7: the fold loses the ante
    if not dealer_qualifies(dealer):
        return 1  # CSP-9.2: ante 1:1, raise returned
    ranking = analysis.ranking
    value = evaluate(player, ranking)
    result = compare(value, evaluate(dealer, ranking), ranking)
    if result < 0:
        return -3  # CSP-9.4
    if result == 0:
        return 0  # standard ranking only: a push
    category = value.category
    return 1 + 2 * analysis.rules.raise_odds(category)  # CSP-9.5


@pytest.mark.parametrize("n", [20_000, pytest.param(100_000, marks=pytest.mark.slow)])
def test_kernel_equals_rule_functions_CSP_9(macau: CaribbeanAnalysis, n: int) -> None:
    """Every one of ``n`` kernel rounds (20,000; 100,000 in ``make test-slow``): same decision
    as the strategy, same result as the rule functions (dealer's fifth card face up, CSP-7)."""
    result = simulate(macau, n * STREAMS, seed=2024, record_rounds=n)
    record = result.record
    assert record.shape == (n, 12)
    seen: Counter[int] = Counter()
    for row in record.tolist():
        player = [Card.from_index(c) for c in row[:5]]
        dealer = [Card.from_index(c) for c in row[5:10]]
        assert len({*row[:10]}) == 10
        raised = macau.should_raise(player, dealer[4])
        assert bool(row[10]) == raised
        assert row[11] == _rules_units(player, dealer, raised, macau)
        seen[row[11]] += 1
    assert set(seen) >= {-3, -1, 1, 3, 5, 7}


def test_standard_ranking_pushes_match_rules(standard_par: CaribbeanAnalysis) -> None:
    """Standard ranking (equal hands push): kernel rounds match the rule functions too."""
    standard = standard_par
    n = 20_000
    result = simulate(standard, n * STREAMS, seed=7, record_rounds=n)
    for row in result.record.tolist():
        player = [Card.from_index(c) for c in row[:5]]
        dealer = [Card.from_index(c) for c in row[5:10]]
        assert row[11] == _rules_units(player, dealer, bool(row[10]), standard)


def test_simulation_agrees_with_exact_values(macau: CaribbeanAnalysis) -> None:
    """2 million rounds: the mean and every event frequency near the exact values."""
    result = simulate(macau, 2_000_000, seed=11)
    assert sum(line.count for line in result.lines) == 2_000_000
    assert abs(result.mean - float(macau.expected_win)) < 4 * result.mean_half_width
    for line in result.lines:
        assert abs(line.frequency - float(line.exact)) <= 4 * line.half_width + 2e-6, line.event
    assert abs(result.raise_frequency - float(macau.raise_probability)) < 0.002


def test_same_seed_same_result_other_seed_differs(macau: CaribbeanAnalysis) -> None:
    a = simulate(macau, 50_000, seed=3)
    b = simulate(macau, 50_000, seed=3)
    c = simulate(macau, 50_000, seed=4)
    assert [x.count for x in a.lines] == [x.count for x in b.lines]
    assert [x.count for x in a.lines] != [x.count for x in c.lines]


def test_up_card_is_uniform_over_the_deck(macau: CaribbeanAnalysis) -> None:
    """The deal is a uniform shuffle: each card is the up card about 1/52 of the time."""
    n = 200_000
    result = simulate(macau, n * STREAMS, seed=99, record_rounds=n)
    counts = np.bincount(result.record[:, 9], minlength=52)
    expected = n / 52
    chi2 = float(((counts - expected) ** 2 / expected).sum())
    assert chi2 < 110  # 51 degrees of freedom; p < 1e-5 beyond this


@pytest.mark.parametrize(("rounds", "seed"), [(0, 1), (10, -1), (10, 2**64)])
def test_bad_simulation_input_refused(macau: CaribbeanAnalysis, rounds: int, seed: int) -> None:
    with pytest.raises(ConfigError):
        simulate(macau, rounds, seed)


def test_intervals_stay_inside_zero_one_and_cover_unseen_events() -> None:
    """The 95 % interval of an event's probability is a Wilson score interval: never below 0
    or above 1, and not empty for an event a short run never saw (a royal flush)."""
    from fractions import Fraction

    from macau_tables.analysis.caribbean_sim import SimulatedLine

    unseen = SimulatedLine("player wins with royal flush", 201, 0, 300_000, Fraction(1, 10**6))
    low, high = unseen.ci95
    assert low == 0.0 < float(unseen.exact) < high < 2e-5
    rare = SimulatedLine("player wins with royal flush", 201, 1, 1_000_000, Fraction(1, 10**6))
    assert 0.0 < rare.ci95[0] < 1e-6 < rare.ci95[1]
    always = SimulatedLine("fold", -1, 50, 50, Fraction(1))
    assert always.ci95[1] == 1.0 and always.ci95[0] > 0.9
    # Where the normal approximation is good, the two agree closely.
    common = SimulatedLine("fold", -1, 478_000, 1_000_000, Fraction(1, 2))
    normal = (common.frequency - common.half_width, common.frequency + common.half_width)
    assert common.ci95 == pytest.approx(normal, abs=1e-6)
