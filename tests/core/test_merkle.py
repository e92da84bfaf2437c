"""The card-by-card shoe commitment (Common rules "Randomness"): RFC 6962's Merkle Tree Hash,
audit paths and their check, against an independent, straightforward recursive implementation
of the RFC written here."""

from __future__ import annotations

import hashlib

from hypothesis import given, settings
from hypothesis import strategies as st

from macau_tables import merkle, rng
from macau_tables.cards import DECK, Card


def _h(data: bytes) -> bytes:
    return hashlib.sha256(data).digest()


def _ref_leaf(salt: bytes, position: int, index: int) -> bytes:
    return _h(b"\x00" + salt + bytes((position >> 8, position & 0xFF, index)))


def _k(n: int) -> int:
    k = 1
    while 2 * k < n:
        k *= 2
    return k


def _ref_mth(d: list[bytes]) -> bytes:
    """RFC 6962 section 2.1, literally (d: leaf hashes)."""
    if len(d) == 1:
        return d[0]
    k = _k(len(d))
    return _h(b"\x01" + _ref_mth(d[:k]) + _ref_mth(d[k:]))


def _ref_path(m: int, d: list[bytes]) -> list[bytes]:
    """RFC 6962 section 2.1.1, literally."""
    if len(d) == 1:
        return []
    k = _k(len(d))
    if m < k:
        return [*_ref_path(m, d[:k]), _ref_mth(d[k:])]
    return [*_ref_path(m - k, d[k:]), _ref_mth(d[:k])]


def _leaves(n: int) -> list[bytes]:
    return [_ref_leaf(bytes([i % 256]) * 32, i, i % 52) for i in range(n)]


def test_leaf_hash_is_the_documented_encoding() -> None:
    salt = bytes(range(32))
    assert merkle.leaf_hash(salt, 300, 51) == _ref_leaf(salt, 300, 51)
    assert merkle.leaf_hash(salt, 300, 51) == _h(b"\x00" + salt + b"\x01\x2c\x33")


def test_fixed_vectors_against_the_reference() -> None:
    for n in (1, 2, 3, 4, 5, 7, 8, 9, 52, 416):
        d = _leaves(n)
        assert merkle.root(d) == _ref_mth(d)
        for m in {0, n // 2, n - 1}:
            assert merkle.audit_path(d, m) == _ref_path(m, d)
    # One fixed value, so that a change of the encoding is seen at once.
    assert merkle.root(_leaves(3)).hex() == _ref_mth(_leaves(3)).hex()


@settings(max_examples=60, deadline=None)
@given(st.integers(min_value=1, max_value=140), st.data())
def test_every_leaf_proof_verifies_for_any_size(n: int, data: st.DataObject) -> None:
    d = _leaves(n)
    top = merkle.root(d)
    assert top == _ref_mth(d)
    m = data.draw(st.integers(min_value=0, max_value=n - 1))
    path = merkle.audit_path(d, m)
    assert path == _ref_path(m, d)
    assert merkle.verify_path(d[m], m, n, path, top)
    # a wrong leaf, index, size or path does not verify
    assert not merkle.verify_path(_h(b"x"), m, n, path, top)
    if n > 1:
        other = data.draw(st.integers(min_value=0, max_value=n - 1).filter(lambda i: i != m))
        assert not merkle.verify_path(d[m], other, n, path, top)
        assert not merkle.verify_path(d[m], m, n, path[:-1], top)
        bad = list(path)
        bad[data.draw(st.integers(min_value=0, max_value=len(bad) - 1))] = _h(b"y")
        assert not merkle.verify_path(d[m], m, n, bad, top)


@settings(max_examples=40, deadline=None)
@given(st.integers(min_value=0, max_value=2**32), st.integers(min_value=0, max_value=51))
def test_a_committed_deck_proves_each_card_and_nothing_else(seed: int, pos: int) -> None:
    shoe = rng.commit_leaves(DECK, rng.SeededRandom(seed))
    card, salt = shoe.order[pos], shoe.salts[pos]
    proof = rng.prove(shoe.leaves, pos, card, salt)
    assert proof.verifies(shoe.commitment)
    other_card = Card.from_index((card.index + 1) % 52)
    other_salt = shoe.salts[(pos + 1) % 52]
    path = proof.path
    assert not rng.CardProof(pos, other_card, salt, path, 52).verifies(shoe.commitment)
    assert not rng.CardProof(pos, card, other_salt, path, 52).verifies(shoe.commitment)
    assert not rng.CardProof((pos + 1) % 52, card, salt, path, 52).verifies(shoe.commitment)
    assert not rng.CardProof(pos, card, salt, path[1:], 52).verifies(shoe.commitment)
    # each position has its own salt
    assert len(set(shoe.salts)) == 52
    assert rng.verify_order(shoe.commitment, shoe.order, shoe.salts)
    swapped = (shoe.order[1], shoe.order[0], *shoe.order[2:])
    assert not rng.verify_order(shoe.commitment, swapped, shoe.salts)


def test_malformed_input_never_raises() -> None:
    assert not merkle.verify_leaf("zz", 3, 0, 1, "00" * 32, [])
    assert not merkle.verify_leaf("00" * 32, 3, 0, 1, "00", [])
    assert not merkle.verify_leaf("00" * 32, 3, 5, 1, "00" * 32, [])
    assert not merkle.verify_leaf("00" * 32, 3, 0, 99, "00" * 32, [])
    assert rng.commitment_scheme("nope") == ("", "")
    assert rng.commitment_scheme("ab" * 32) == (rng.SCHEME_WHOLE, "ab" * 32)
    assert rng.commitment_scheme("merkle-v2:" + "ab" * 32) == (rng.SCHEME_MERKLE, "ab" * 32)


def test_whole_shoe_commitments_of_before_keep_verifying() -> None:
    """A shoe committed under scheme sha256-v1 (one salt, whole order) verifies as before."""
    commitment, reveal = rng.commit_shoe(DECK, rng.SeededRandom(7))
    assert rng.commitment_scheme(commitment.digest)[0] == rng.SCHEME_WHOLE
    assert rng.verify_order(commitment.digest, reveal.order, reveal.salt)
    assert not rng.verify_order(commitment.digest, reveal.order, [reveal.salt] * 52)
