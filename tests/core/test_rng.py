"""Randomness and shoe commitments (SPEC "Common rules: Randomness")."""

from __future__ import annotations

import hashlib
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
    ShoeNotFinished,
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


def test_commitment_is_sha256_of_the_documented_encoding() -> None:
    """An outside checker needs only hashlib and the rng module docstring: SHA-256 of the domain
    tag, the 32-byte salt and one byte per card (its index, in dealing order). The salt comes
    from the source (32 bytes) and the digest is 64 lowercase hex digits."""
    order = shuffle(DECK, SeededRandom(61))
    commitment, reveal = commit_shoe(order, SeededRandom(2004))
    salt = bytes.fromhex(reveal.salt)
    assert len(salt) == 32 and salt == SeededRandom(2004).token_bytes(32)
    by_hand = hashlib.sha256(
        b"macau-tables/shoe/v1\x00" + salt + bytes(card.index for card in order)
    ).hexdigest()
    assert commitment.digest == by_hand == commitment_digest(order, salt)
    assert len(by_hand) == 64 and by_hand == by_hand.lower()
    # A fixed vector: the ordered deck with an all-zero salt.
    assert (
        commitment_digest(DECK, bytes(32))
        == hashlib.sha256(b"macau-tables/shoe/v1\x00" + bytes(32) + bytes(range(52))).hexdigest()
    )
    with pytest.raises(ValueError, match="32 bytes"):
        commitment_digest(order, bytes(16))


@given(st.binary(min_size=32, max_size=32), st.permutations(DECK))
def test_commitment_digest_is_deterministic(salt: bytes, order: list) -> None:  # type: ignore[type-arg]
    assert commitment_digest(order, salt) == commitment_digest(list(order), salt)
    assert verify_commitment(commitment_digest(order, salt), order, salt)


def test_malformed_commitment_or_salt_does_not_verify() -> None:
    """A checker may feed verify_commitment whatever was published: False, never a crash."""
    commitment, reveal = commit_shoe(DECK, SystemRandom())
    assert verify_commitment(commitment.digest.upper(), DECK, reveal.salt.upper())
    assert not verify_commitment(commitment, DECK, "zz" * 32)  # not hex
    assert not verify_commitment(commitment, DECK, 32)  # type: ignore[arg-type]
    assert not verify_commitment("é" * 64, DECK, reveal.salt)
    assert not verify_commitment(None, DECK, reveal.salt)  # type: ignore[arg-type]
    assert verify_commitment(commitment, DECK, bytes.fromhex(reveal.salt))


def test_virtual_shoe_hides_its_order_until_finished() -> None:
    """Hidden information: the undealt order is not revealed while cards can still be dealt;
    after close() nothing more is dealt and the reveal verifies."""
    shoe = VirtualShoe(DECK, SystemRandom())
    first = [shoe.draw() for _ in range(25)]
    with pytest.raises(ShoeNotFinished, match="27 cards"):
        shoe.reveal()
    shoe.close()
    assert shoe.finished
    with pytest.raises(ShoeExhausted, match="closed"):
        shoe.draw()
    reveal = shoe.reveal()
    assert reveal.order[:25] == tuple(first)
    assert verify_commitment(shoe.commitment, reveal.order, reveal.salt)


def test_live_table_refuses_a_shoe_shuffled_by_the_seeded_generator() -> None:
    assert require_production(VirtualShoe(DECK, SystemRandom())).production
    with pytest.raises(ConfigError, match="seeded"):
        require_production(VirtualShoe(DECK, SeededRandom(1)))


def test_virtual_shoe_deals_its_committed_order_then_stops() -> None:
    shoe = VirtualShoe(DECK, SeededRandom(9))
    dealt = [shoe.draw() for _ in range(52)]
    assert shoe.remaining == 0 and shoe.dealt == 52
    reveal = shoe.reveal()
    assert tuple(dealt) == reveal.order
    assert verify_commitment(shoe.commitment, dealt, reveal.salt)
    with pytest.raises(ShoeExhausted):
        shoe.draw()
