"""Randomness and shoe commitments (SPEC "Common rules: Randomness")."""

from __future__ import annotations

from collections import Counter
from itertools import permutations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from macau_tables.cards import DECK, new_shoe
from macau_tables.errors import ConfigError
from macau_tables.rng import (
    SeededRandom,
    ShoeExhausted,
    SystemRandom,
    VirtualShoe,
    commit_shoe,
    commitment_digest,
    require_production,
    shuffle,
    verify_commitment,
)


def test_live_table_refuses_the_seeded_generator() -> None:
    assert require_production(SystemRandom()).production
    with pytest.raises(ConfigError, match="seeded"):
        require_production(SeededRandom(7))


def test_shuffle_is_a_permutation_and_leaves_input_alone() -> None:
    cards = new_shoe(8)
    out = shuffle(cards, SystemRandom())
    assert Counter(out) == Counter(cards)
    assert cards == new_shoe(8)


def test_seeded_shuffle_is_reproducible() -> None:
    assert shuffle(DECK, SeededRandom(1)) == shuffle(DECK, SeededRandom(1))
    assert shuffle(DECK, SeededRandom(1)) != shuffle(DECK, SeededRandom(2))


def test_fisher_yates_is_unbiased_on_three_items() -> None:
    # All 6 orders of 3 items, 60,000 shuffles: each order's count is within 5 sigma of 10,000.
    rng = SeededRandom(2026)
    counts = Counter(tuple(shuffle("abc", rng)) for _ in range(60_000))
    assert set(counts) == set(permutations("abc"))
    sigma = (60_000 * (1 / 6) * (5 / 6)) ** 0.5
    assert all(abs(n - 10_000) < 5 * sigma for n in counts.values())


def test_commitment_verifies_and_detects_any_change() -> None:
    order = shuffle(DECK, SeededRandom(3))
    commitment, reveal = commit_shoe(order, SystemRandom())
    assert len(commitment.digest) == 64
    assert verify_commitment(commitment, reveal.order, reveal.salt)
    assert reveal.commitment == commitment
    swapped = list(order)
    swapped[0], swapped[1] = swapped[1], swapped[0]
    assert not verify_commitment(commitment, swapped, reveal.salt)
    other_salt = bytes(32).hex()
    assert not verify_commitment(commitment, order, other_salt)
    assert not verify_commitment(commitment.digest, order, "00")


@given(st.binary(min_size=32, max_size=32), st.permutations(DECK))
def test_commitment_digest_is_deterministic(salt: bytes, order: list) -> None:  # type: ignore[type-arg]
    assert commitment_digest(order, salt) == commitment_digest(list(order), salt)
    assert verify_commitment(commitment_digest(order, salt), order, salt)


def test_virtual_shoe_deals_its_committed_order_then_stops() -> None:
    shoe = VirtualShoe(DECK, SeededRandom(9))
    dealt = [shoe.draw() for _ in range(52)]
    assert shoe.remaining == 0 and shoe.dealt == 52
    reveal = shoe.reveal()
    assert tuple(dealt) == reveal.order
    assert verify_commitment(shoe.commitment, dealt, reveal.salt)
    with pytest.raises(ShoeExhausted):
        shoe.draw()
