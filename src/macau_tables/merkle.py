"""A shoe committed card by card: the Merkle Tree Hash of RFC 6962, its audit paths, their check.

Every position of a loaded shoe (from 0, in the committed order, burned cards included) is one
leaf; each leaf has its own random 32-byte salt (one salt for all would let anyone try the 52
cards of a position against a published leaf hash)::

    leaf hash = SHA-256(0x00 ‖ salt (32 bytes) ‖ position (2 bytes, big-endian)
                        ‖ card index (1 byte))
    node hash = SHA-256(0x01 ‖ left ‖ right)

with the card index of :mod:`macau_tables.cards` (``(rank - 2) * 4 + suit``: 0 = 2♦ … 51 = A♠).
The root of ``n`` leaves is RFC 6962's Merkle Tree Hash (section 2.1): for ``n > 1`` the leaves
split at ``k``, the largest power of two smaller than ``n``; the root of one leaf is its leaf
hash. An audit path (section 2.1.1) is the list of sibling hashes from the leaf up; checking
one (:func:`verify_path`) follows RFC 9162's algorithm (section 2.1.3.2), which needs only the
leaf's index and the tree's size.

Pure functions, no state: the shoe-check page runs the same algorithm in the browser
(``static/js/merkle.js``).
"""

from __future__ import annotations

import hashlib
import hmac
from collections.abc import Sequence

__all__ = [
    "SALT_BYTES",
    "audit_path",
    "audit_paths",
    "leaf_hash",
    "node_hash",
    "root",
    "verify_leaf",
    "verify_path",
]

SALT_BYTES = 32
MAX_LEAVES = 1 << 16
"""Positions are written in 2 bytes: a shoe holds at most 65,536 cards."""


def leaf_hash(salt: bytes, position: int, card_index: int) -> bytes:
    """The leaf of the card ``card_index`` (0..51) at ``position`` (0..65535) with ``salt``.

    Raises ``ValueError`` for a salt that is not 32 bytes or a position or index out of range.
    """
    if len(salt) != SALT_BYTES:
        raise ValueError(f"a leaf salt is {SALT_BYTES} bytes, got {len(salt)}")
    if not 0 <= position < MAX_LEAVES:
        raise ValueError(f"position {position} is out of 0..{MAX_LEAVES - 1}")
    if not 0 <= card_index < 52:
        raise ValueError(f"card index {card_index} is out of 0..51")
    return hashlib.sha256(
        b"\x00" + salt + position.to_bytes(2, "big") + bytes((card_index,))
    ).digest()


def node_hash(left: bytes, right: bytes) -> bytes:
    """An inner node: SHA-256(0x01 ‖ left ‖ right)."""
    return hashlib.sha256(b"\x01" + left + right).digest()


def _split(n: int) -> int:
    """The largest power of two smaller than ``n`` (``n >= 2``)."""
    k = 1
    while k << 1 < n:
        k <<= 1
    return k


def root(leaves: Sequence[bytes]) -> bytes:
    """The Merkle Tree Hash of ``leaves`` (leaf hashes, at least one)."""
    if not leaves:
        raise ValueError("a shoe has at least one card")
    # Bottom-up, pairing from the left and carrying an odd last node up unchanged: the same
    # tree as RFC 6962's recursive split at the largest power of two.
    return _levels(leaves)[-1][0]


def _levels(leaves: Sequence[bytes]) -> list[list[bytes]]:
    """Every level of the tree, leaves first (an odd last node is carried up unchanged)."""
    levels = [list(leaves)]
    while len(levels[-1]) > 1:
        level = levels[-1]
        nxt = [node_hash(level[j], level[j + 1]) for j in range(0, len(level) - 1, 2)]
        if len(level) % 2:
            nxt.append(level[-1])
        levels.append(nxt)
    return levels


def audit_paths(leaves: Sequence[bytes], indices: Sequence[int]) -> list[list[bytes]]:
    """The audit path of each leaf of ``indices`` (RFC 6962 section 2.1.1: from the leaf's
    sibling up to the root's child), the tree built once."""
    n = len(leaves)
    for index in indices:
        if not 0 <= index < n:
            raise ValueError(f"leaf {index} is out of 0..{n - 1}")
    levels = _levels(leaves)
    out: list[list[bytes]] = []
    for index in indices:
        path: list[bytes] = []
        i = index
        for level in levels[:-1]:
            sibling = i ^ 1
            if sibling < len(level):
                path.append(level[sibling])
            i //= 2
        out.append(path)
    return out


def audit_path(leaves: Sequence[bytes], index: int) -> list[bytes]:
    """The audit path of leaf ``index`` in the tree of ``leaves`` (:func:`audit_paths`)."""
    return audit_paths(leaves, [index])[0]


def verify_path(leaf: bytes, index: int, size: int, path: Sequence[bytes], expected: bytes) -> bool:
    """Whether ``path`` proves ``leaf`` at ``index`` in a tree of ``size`` leaves with root
    ``expected`` (RFC 9162 section 2.1.3.2). Never raises for bad input: ``False``."""
    if not 0 <= index < size:
        return False
    fn, sn = index, size - 1
    r = leaf
    for p in path:
        if sn == 0:
            return False
        if fn & 1 or fn == sn:
            r = node_hash(p, r)
            if not fn & 1:
                while fn and not fn & 1:
                    fn >>= 1
                    sn >>= 1
        else:
            r = node_hash(r, p)
        fn >>= 1
        sn >>= 1
    return sn == 0 and hmac.compare_digest(r, expected)


def verify_leaf(
    root_hex: str, size: int, position: int, card_index: int, salt_hex: str, path_hex: Sequence[str]
) -> bool:
    """Whether the card ``card_index`` at ``position`` with ``salt_hex`` is committed in the
    tree of ``size`` leaves whose root is ``root_hex``, by the audit path ``path_hex`` (all hex
    text, as published). Malformed input does not verify: ``False``, never an exception."""
    try:
        expected = bytes.fromhex(root_hex)
        leaf = leaf_hash(bytes.fromhex(salt_hex), position, card_index)
        path = [bytes.fromhex(p) for p in path_hex]
    except (ValueError, TypeError):
        return False
    if len(expected) != 32 or any(len(p) != 32 for p in path):
        return False
    return verify_path(leaf, position, size, path, expected)
