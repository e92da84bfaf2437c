"""Properties of the hand order (CSP-8) with hypothesis, and the batch API's contract."""

from __future__ import annotations

import numpy as np
import numpy.typing as npt
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from macau_tables.cards import DECK, Card
from macau_tables.caribbean.hands import (
    HandCategory,
    compare,
    evaluate,
    evaluate_many,
    strength_category,
)
from macau_tables.errors import ConfigError, ParseError

deals = st.permutations(DECK)


def sign(x: int) -> int:
    return (x > 0) - (x < 0)


@settings(deadline=None)  # the machine is shared: timing is not what is tested
@given(deals)
def test_disjoint_hands_never_tie_and_compare_is_antisymmetric_CSP_8(deck: list[Card]) -> None:
    a, b = deck[:5], deck[5:10]
    ab, ba = compare(a, b), compare(b, a)
    assert ab in (-1, 1)
    assert ab == -ba


@settings(deadline=None)  # the machine is shared: timing is not what is tested
@given(deals)
def test_compare_is_transitive_on_disjoint_hands_CSP_8(deck: list[Card]) -> None:
    a, b, c = deck[:5], deck[5:10], deck[10:15]
    if compare(a, b) > 0 and compare(b, c) > 0:
        assert compare(a, c) > 0
    if compare(a, b) < 0 and compare(b, c) < 0:
        assert compare(a, c) < 0
    # Sorting by compare and by HandValue gives one strict chain.
    values = sorted([evaluate(a), evaluate(b), evaluate(c)])
    assert values[0] < values[1] < values[2]


@settings(deadline=None)  # the machine is shared: timing is not what is tested
@given(deals, st.sampled_from(["macau", "standard"]))
def test_compare_agrees_with_hand_value_order_CSP_8(deck: list[Card], ranking: str) -> None:
    a, b = deck[:5], deck[5:10]
    va, vb = evaluate(a, ranking), evaluate(b, ranking)  # type: ignore[arg-type]
    c = compare(a, b, ranking)  # type: ignore[arg-type]
    assert c == sign(va.strength - vb.strength)
    assert (c > 0) == (va > vb) and (c < 0) == (va < vb) and (c == 0) == (va == vb)
    assert compare(b, a, ranking) == -c  # type: ignore[arg-type]


@settings(deadline=None)  # the machine is shared: timing is not what is tested
@given(deals, st.sampled_from(["macau", "standard"]))
def test_card_order_within_a_hand_does_not_matter(deck: list[Card], ranking: str) -> None:
    hand = deck[:5]
    v = evaluate(hand, ranking)  # type: ignore[arg-type]
    assert evaluate(list(reversed(hand)), ranking) is v  # type: ignore[arg-type]
    assert evaluate(tuple(sorted(hand)), ranking) is v  # type: ignore[arg-type]
    assert evaluate(" ".join(map(str, hand)), ranking) is v  # type: ignore[arg-type]


@settings(deadline=None)  # the machine is shared: timing is not what is tested
@given(deals)
def test_macau_refines_standard_CSP_8(deck: list[Card]) -> None:
    """The Macau ranking only adds tie-breaks to the standard one, except where the law makes
    cards not count (the fifth card of quads, the pair of a full house, the trips' kickers)."""
    a, b = deck[:5], deck[5:10]
    std, mac = compare(a, b, "standard"), compare(a, b, "macau")
    cat = evaluate(a).category
    if std != 0 and not (
        cat == evaluate(b).category
        and cat
        in (HandCategory.FOUR_OF_A_KIND, HandCategory.FULL_HOUSE, HandCategory.THREE_OF_A_KIND)
    ):
        assert mac == std
    assert evaluate(a).category == evaluate(a, "standard").category


# The batch's agreement with ``evaluate`` hand by hand over many hands is
# test_hands_exhaustive.py's (a fortieth of all hands and every one of straight or better, in
# both rankings); here the batch's sizes and index dtypes.
@settings(max_examples=50, deadline=None)
@given(
    st.lists(deals.map(lambda d: [c.index for c in d[:5]]), min_size=1, max_size=10),
    st.sampled_from([np.uint8, np.int8, np.int16, np.int32, np.int64, np.uint16, np.uint64]),
    st.sampled_from(["macau", "standard"]),
)
def test_evaluate_many_equals_evaluate(rows: list[list[int]], dtype: type, ranking: str) -> None:
    arr: npt.NDArray[np.integer] = np.array(rows, dtype=dtype)
    got = evaluate_many(arr, ranking)  # type: ignore[arg-type]
    assert got.dtype == np.int64 and got.shape == (len(rows),)
    want = [evaluate([Card.from_index(i) for i in r], ranking).strength for r in rows]  # type: ignore[arg-type]
    assert got.tolist() == want


def test_evaluate_many_accepts_lists_and_strided_arrays() -> None:
    rows = [[51, 47, 43, 39, 35], [0, 1, 2, 3, 4], [3, 6, 9, 12, 17]]
    want = [evaluate([Card.from_index(i) for i in r]).strength for r in rows]
    assert evaluate_many(rows).tolist() == want
    arr = np.asfortranarray(np.array(rows, dtype=np.int64))
    assert evaluate_many(arr).tolist() == want
    wide = np.zeros((3, 10), dtype=np.int32)
    wide[:, ::2] = rows
    assert evaluate_many(wide[:, ::2]).tolist() == want
    assert evaluate_many(np.empty((0, 5), np.uint8)).shape == (0,)
    assert strength_category(evaluate_many(rows)).tolist() == [9, 7, 4]


@pytest.mark.parametrize(
    ("array", "message"),
    [
        (np.zeros((3, 4), np.int64), r"\(N, 5\).*shape \(3, 4\)"),
        (np.zeros(5, np.int64), r"shape \(5,\)"),
        (np.zeros((2, 5, 1), np.int64), r"shape \(2, 5, 1\)"),
        (np.array([[0.0, 1, 2, 3, 4]]), "integers.*float64"),
        (np.ones((1, 5), bool), "integers.*bool"),
        (np.array([["As", "Kd", "Qc", "Jh", "Ts"]]), "integers"),
        (np.array([[0, 1, 2, 3, 4], [0, 1, 2, 3, 52]]), "row 1: card index 52 is outside 0..51"),
        (np.array([[0, 1, 2, 3, 4], [5, 6, 7, 8, 9], [-1, 1, 2, 3, 4]]), "row 2: card index -1"),
        (np.array([[0, 1, 2, 3, 4], [51, 50, 49, 51, 9]]), "row 1: duplicate card As"),
        (np.array([[0, 1, 2, 3, 4], [7, 7, 7, 7, 7]], np.uint8), "row 1: duplicate card 3s"),
        (np.array([[0, 1, 2, 3, 2**63 + 1]], np.uint64), "row 0: card index 9223372036854775809"),
        (np.array([[300, 1, 2, 3, 4]], np.int16), "row 0: card index 300"),
    ],
)
def test_evaluate_many_refuses_bad_arrays(array: object, message: str) -> None:
    with pytest.raises(ParseError, match=message):
        evaluate_many(array)  # type: ignore[arg-type]


def test_evaluate_many_names_the_first_bad_row() -> None:
    arr = np.tile(np.arange(5, dtype=np.int64), (1000, 1))
    arr[700, 2] = 99
    arr[300, 4] = 0
    with pytest.raises(ParseError, match="row 300: duplicate card 2d"):
        evaluate_many(arr)


def test_evaluate_many_refuses_unknown_ranking() -> None:
    with pytest.raises(ConfigError, match="unknown ranking"):
        evaluate_many(np.zeros((0, 5), np.int64), "poker")  # type: ignore[arg-type]


def test_strength_category_vectorised() -> None:
    s = evaluate_many([[51, 47, 43, 39, 35], [0, 1, 2, 3, 4], [0, 5, 10, 15, 16]])
    cats = strength_category(s)
    assert cats.dtype == np.int8
    assert [HandCategory(int(c)) for c in cats] == [
        HandCategory.ROYAL_FLUSH,
        HandCategory.FOUR_OF_A_KIND,
        HandCategory.STRAIGHT,
    ]
    assert strength_category(s[0]) is HandCategory.ROYAL_FLUSH  # a numpy scalar
    with pytest.raises(ParseError):
        strength_category(np.array([-1]))
    with pytest.raises(ParseError):
        strength_category(np.array([0.5]))
