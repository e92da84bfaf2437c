"""Every one of the C(52, 5) = 2,598,960 hands, under both rankings (CSP-4, CSP-8).

Checks the category counts, that ``evaluate`` and ``evaluate_many`` agree on every hand, that
the strength order is exactly the order the law's text gives (an independent, literal
re-statement of CSP-8 below), and that under Macau ranking two hands from one deck never tie.
``make test`` compares ``evaluate`` (one hand per call) with ``evaluate_many`` on a fortieth of
the hands at random, and the order with the law's text on 20,000 of them, each with every hand
of straight or better; ``make test-slow`` on every hand.
"""

from __future__ import annotations

import itertools
from collections import Counter
from collections.abc import Sequence
from math import comb

import numpy as np
import numpy.typing as npt
import pytest

from macau_tables.cards import DECK, Card
from macau_tables.caribbean.hands import (
    HandCategory,
    HandValue,
    Ranking,
    evaluate,
    evaluate_many,
    strength_category,
)

N_HANDS = comb(52, 5)

# The textbook counts of five-card poker hands (royal flush listed apart from straight flushes).
EXPECTED_COUNTS = {
    HandCategory.ROYAL_FLUSH: 4,
    HandCategory.STRAIGHT_FLUSH: 36,
    HandCategory.FOUR_OF_A_KIND: 624,
    HandCategory.FULL_HOUSE: 3_744,
    HandCategory.FLUSH: 5_108,
    HandCategory.STRAIGHT: 10_200,
    HandCategory.THREE_OF_A_KIND: 54_912,
    HandCategory.TWO_PAIR: 123_552,
    HandCategory.ONE_PAIR: 1_098_240,
    HandCategory.HIGH_CARD: 1_302_540,
}
# Distinct values: standard poker has the well-known 7,462 classes. Macau (CSP-8) adds the suit:
# ×4 for royal flush (1), straight flush (9), flush (1,277), straight (10) and high card (1,277);
# ×3 for one pair (2,860) and two pair (858) (the higher suit of two distinct suits is never ♦);
# ×1 for four of a kind, full house, three of a kind (13 each: their rank alone counts).
DISTINCT = {
    "standard": 7_462,
    "macau": 4 * (1 + 9 + 1_277 + 10 + 1_277) + 3 * (2_860 + 858) + 3 * 13,
}
_DECK_OBJECTS = np.array(DECK, dtype=object)


@pytest.fixture(scope="module")
def all_hands() -> npt.NDArray[np.uint8]:
    """All hands as rows of card indices; each row's cards in a random order (so that the
    kernel's sorting network sees unsorted input)."""
    flat = itertools.chain.from_iterable(itertools.combinations(range(52), 5))
    hands = np.fromiter(flat, dtype=np.uint8, count=5 * N_HANDS).reshape(N_HANDS, 5)
    return np.random.default_rng(20040512).permuted(hands, axis=1)


@pytest.fixture(scope="module")
def strengths(all_hands: npt.NDArray[np.uint8]) -> dict[str, npt.NDArray[np.int64]]:
    return {r: evaluate_many(all_hands, r) for r in ("macau", "standard")}


def literal_key(cards: Sequence[Card], ranking: str) -> tuple[int, ...]:
    """CSP-8 restated literally, clause by clause, as a sort key (independent of hands.py)."""
    ranks = sorted((int(c.rank) for c in cards), reverse=True)
    count = Counter(ranks)
    flush = len({c.suit for c in cards}) == 1
    top_suit = {r: max(int(c.suit) for c in cards if c.rank == r) for r in count}
    distinct = sorted(count, reverse=True)
    straight = len(distinct) == 5 and distinct[0] - distinct[4] == 4
    wheel = distinct == [14, 5, 4, 3, 2]
    high = 5 if wheel else distinct[0]  # CSP-4: the ace plays low in 5-4-3-2-A
    by_count = {n: sorted((r for r in count if count[r] == n), reverse=True) for n in (1, 2, 3, 4)}
    kick = by_count[1]
    macau = ranking == "macau"

    def suit(rank: int) -> tuple[int, ...]:
        return (top_suit[rank],) if macau else ()

    if (straight or wheel) and flush:
        if high == 14:  # 1. royal flush: the higher suit
            return (9, *suit(14))
        return (8, high, *suit(high))  # 2. straight flush: ranks, then suit
    if by_count[4]:  # 3. four of a kind: rank of the four; the fifth never counts
        return (7, by_count[4][0]) if macau else (7, by_count[4][0], *kick)
    if by_count[3] and by_count[2]:  # 4. full house: rank of the three
        return (6, by_count[3][0]) if macau else (6, by_count[3][0], by_count[2][0])
    if flush:  # 5. flush: ranks high to low, then the flush's suit
        return (5, *ranks, *suit(ranks[0]))
    if straight or wheel:  # 6. straight: ranks, then the suit of the highest card
        return (4, high, *suit(high))
    if by_count[3]:  # 7. three of a kind: rank of the three
        return (3, by_count[3][0]) if macau else (3, by_count[3][0], *kick)
    if len(by_count[2]) == 2:  # 8. two pair: pairs, kicker, suit of the higher pair
        hi, lo = by_count[2]
        return (2, hi, lo, *kick, *suit(hi))
    if by_count[2]:  # 9. one pair: pair, kickers high to low, suit of the pair
        return (1, by_count[2][0], *kick, *suit(by_count[2][0]))
    return (0, *ranks, *suit(ranks[0]))  # 10. high card: ranks, suit of the highest card


def check_order_matches_law(
    rows: npt.NDArray[np.integer], strengths: npt.NDArray[np.int64], ranking: str
) -> None:
    """Sorted by the literal key, strengths must rise exactly where the key rises."""
    keys = [literal_key(hand, ranking) for hand in _DECK_OBJECTS[rows].tolist()]
    order = sorted(range(len(keys)), key=keys.__getitem__)
    for i, j in itertools.pairwise(order):
        if keys[i] == keys[j]:
            assert strengths[i] == strengths[j], (rows[i], rows[j])
        else:
            assert strengths[i] < strengths[j], (rows[i], rows[j])
    cats = strength_category(strengths)
    assert all(cats[i] == keys[i][0] for i in range(len(keys)))


@pytest.mark.parametrize("ranking", ["macau", "standard"])
def test_category_counts_of_all_hands_CSP_8(
    strengths: dict[str, npt.NDArray[np.int64]], ranking: str
) -> None:
    s = strengths[ranking]
    assert s.shape == (N_HANDS,) and s.dtype == np.int64
    counts = np.bincount(strength_category(s), minlength=10)
    assert {HandCategory(c): int(n) for c, n in enumerate(counts)} == EXPECTED_COUNTS


@pytest.mark.parametrize("ranking", ["macau", "standard"])
def test_number_of_distinct_strengths_CSP_8(
    strengths: dict[str, npt.NDArray[np.int64]], ranking: str
) -> None:
    assert len(np.unique(strengths[ranking])) == DISTINCT[ranking]


def check_evaluate_agrees(
    rows: npt.NDArray[np.integer], strengths: npt.NDArray[np.int64], ranking: Ranking
) -> None:
    """``evaluate`` (one hand at a time) gives each row the strength ``evaluate_many`` gave."""
    hands = _DECK_OBJECTS[rows].tolist()
    single = np.fromiter(
        (v.strength for v in (evaluate(h, ranking) for h in hands)), np.int64, len(hands)
    )
    assert np.array_equal(single, strengths)


def _sample(strengths: dict[str, npt.NDArray[np.int64]], seed: int) -> npt.NDArray[np.int64]:
    """A fortieth of all hands at random, and every hand of the rare categories (straight and
    better: every clause of CSP-8 with many ties)."""
    rows = np.random.default_rng(seed).choice(N_HANDS, N_HANDS // 40, replace=False)
    rare = np.flatnonzero(strength_category(strengths["standard"]) >= HandCategory.STRAIGHT)
    return np.union1d(rows, rare)


@pytest.mark.parametrize("ranking", ["macau", "standard"])
def test_evaluate_agrees_with_evaluate_many_on_a_sample_CSP_8(
    all_hands: npt.NDArray[np.uint8],
    strengths: dict[str, npt.NDArray[np.int64]],
    ranking: Ranking,
) -> None:
    rows = _sample(strengths, 83)
    check_evaluate_agrees(all_hands[rows], strengths[ranking][rows], ranking)


@pytest.mark.slow
@pytest.mark.parametrize("ranking", ["macau", "standard"])
def test_evaluate_agrees_with_evaluate_many_on_every_hand_CSP_8(
    all_hands: npt.NDArray[np.uint8],
    strengths: dict[str, npt.NDArray[np.int64]],
    ranking: Ranking,
) -> None:
    check_evaluate_agrees(all_hands, strengths[ranking], ranking)


@pytest.mark.parametrize("ranking", ["macau", "standard"])
def test_order_matches_literal_law_on_a_sample_CSP_4_CSP_8(
    all_hands: npt.NDArray[np.uint8],
    strengths: dict[str, npt.NDArray[np.int64]],
    ranking: str,
) -> None:
    rng = np.random.default_rng(61)
    rows = rng.choice(N_HANDS, 20_000, replace=False)
    # Rare categories in full, so every clause of CSP-8 is exercised with many ties.
    rare = np.flatnonzero(strength_category(strengths["standard"]) >= HandCategory.STRAIGHT)
    rows = np.union1d(rows, rare)
    check_order_matches_law(all_hands[rows], strengths[ranking][rows], ranking)


@pytest.mark.slow
@pytest.mark.parametrize("ranking", ["macau", "standard"])
def test_order_matches_literal_law_on_every_hand_CSP_4_CSP_8(
    all_hands: npt.NDArray[np.uint8],
    strengths: dict[str, npt.NDArray[np.int64]],
    ranking: str,
) -> None:
    check_order_matches_law(all_hands, strengths[ranking], ranking)


def test_hands_from_one_deck_never_tie_under_macau_ranking_CSP_8(
    all_hands: npt.NDArray[np.uint8], strengths: dict[str, npt.NDArray[np.int64]]
) -> None:
    """Group all hands by strength; no group may hold two disjoint hands (CSP-8's
    consequence). A group whose hands all share a card passes at once; the others are
    checked pair by pair."""
    s = strengths["macau"]
    masks = (np.uint64(1) << all_hands.astype(np.uint64)).sum(axis=1, dtype=np.uint64)
    order = np.argsort(s, kind="stable")
    s_sorted, m_sorted = s[order], masks[order]
    starts = np.flatnonzero(np.r_[True, s_sorted[1:] != s_sorted[:-1]])
    common = np.bitwise_and.reduceat(m_sorted, starts)
    ends = np.r_[starts[1:], len(s_sorted)]
    no_common_card = np.flatnonzero(common == 0)
    # Only three of a kind and full house groups lack a common card (3 of the 4 cards of the
    # rank in each hand: any two hands share two of them).
    cats = {int(strength_category(int(s_sorted[starts[g]]))) for g in no_common_card}
    assert cats <= {HandCategory.THREE_OF_A_KIND, HandCategory.FULL_HOUSE}
    for g in no_common_card:
        group = m_sorted[starts[g] : ends[g]]
        for lo in range(0, len(group), 512):
            block = group[lo : lo + 512]
            assert not np.any((block[:, None] & group[None, :]) == 0)


def test_standard_ranking_ties_disjoint_hands_of_equal_ranks() -> None:
    """Under the standard ranking equal ranks tie whatever the suits (ties push)."""
    a = evaluate("As Kd 9d 7d 6d", "standard")
    b = evaluate("Ah Ks 9s 7s 6c", "standard")
    assert a == b and a.strength == b.strength
    assert isinstance(a, HandValue)


def test_all_column_orders_give_the_same_strength(
    all_hands: npt.NDArray[np.uint8], strengths: dict[str, npt.NDArray[np.int64]]
) -> None:
    """The kernel sorts ranks with a network: every one of the 120 orders must agree."""
    rows = np.random.default_rng(5).choice(N_HANDS, 2_000, replace=False)
    sample = all_hands[rows]
    rankings: tuple[Ranking, ...] = ("macau", "standard")
    for perm in itertools.permutations(range(5)):
        for ranking in rankings:
            got = evaluate_many(sample[:, list(perm)], ranking)
            assert np.array_equal(got, strengths[ranking][rows])
