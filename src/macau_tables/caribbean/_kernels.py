"""numba kernel behind :func:`macau_tables.caribbean.hands.evaluate_many`.

Imported lazily (numba takes a while to import). The lookup tables are built with numpy from
the very definition :func:`macau_tables.caribbean.hands.evaluate` uses
(:func:`macau_tables.caribbean.ranking._rank_value`), so the two evaluators cannot disagree.

Per hand the kernel:

1. checks the five indices are in 0..51 and distinct (the sum of ``1 << index`` equals their OR
   exactly when no card repeats); a bad row gets strength ``-1`` and is reported by the caller;
2. flush (all five suits equal): looks up the 13-bit mask of the ranks in ``FLUSH`` (8192
   entries); otherwise sorts the five ranks with a 9-comparator network and looks up the
   colex index of the rank multiset in ``PLAIN`` (C(17, 5) = 6188 entries: fits in L1/L2);
3. a table entry packs ``base | shift << 32 | uses_suit << 40``: the Macau suit tie-break is the
   highest set bit of the 4-bit nibble ``(mask >> shift) & 15`` of the card mask (CSP-8).
"""

from __future__ import annotations

from math import comb
from typing import Any, Final

import numba
import numpy as np
import numpy.typing as npt

from ..cards import Card
from ..errors import ParseError
from .ranking import _rank_multisets, _rank_value

_PLAIN_SIZE: Final = comb(17, 5)
# COLEX[k, r] = C(r + k, k + 1): the colex rank of a sorted multiset r0 <= … <= r4 (ranks 0..12)
# is sum_k COLEX[k, r_k] (combinations with repetition mapped to strictly increasing r_k + k).
COLEX: Final = np.array([[comb(r + k, k + 1) for r in range(13)] for k in range(5)], np.int64)
# Index of the highest set bit of a 4-bit nibble (the highest suit held), 0 for an empty nibble.
HIGH_SUIT: Final = np.array([max(n.bit_length() - 1, 0) for n in range(16)], np.int64)


def _pack(base: int, suit_rank: int | None) -> int:
    if suit_rank is None:
        return base
    return base | (4 * (suit_rank - 2)) << 32 | 1 << 40


def build_tables(ranking: str) -> tuple[npt.NDArray[np.int64], npt.NDArray[np.int64]]:
    """``(PLAIN, FLUSH)`` lookup tables of one ranking (entries ``-1`` are impossible hands)."""
    plain = np.full(_PLAIN_SIZE, -1, np.int64)
    flush = np.full(1 << 13, -1, np.int64)
    for ranks in _rank_multisets():
        low = sorted(r - 2 for r in ranks)
        index = sum(int(COLEX[k, r]) for k, r in enumerate(low))
        plain[index] = _pack(*_rank_value(ranks, False, ranking))
        if len(set(ranks)) == 5:
            flush[sum(1 << r for r in low)] = _pack(*_rank_value(ranks, True, ranking))
    return plain, flush


_TABLES: Final = {ranking: build_tables(ranking) for ranking in ("macau", "standard")}


@numba.njit(parallel=True, cache=True, nogil=True)
def _kernel(
    cards: Any, plain: Any, flush: Any, colex: Any, high_suit: Any, out: Any
) -> None:  # pragma: no cover - compiled by numba; tested through evaluate_many
    for i in numba.prange(cards.shape[0]):
        c0 = np.int64(cards[i, 0])
        c1 = np.int64(cards[i, 1])
        c2 = np.int64(cards[i, 2])
        c3 = np.int64(cards[i, 3])
        c4 = np.int64(cards[i, 4])
        if min(c0, c1, c2, c3, c4) < 0 or max(c0, c1, c2, c3, c4) > 51:
            out[i] = -1
            continue
        b0 = np.int64(1) << c0
        b1 = np.int64(1) << c1
        b2 = np.int64(1) << c2
        b3 = np.int64(1) << c3
        b4 = np.int64(1) << c4
        mask = b0 | b1 | b2 | b3 | b4
        if b0 + b1 + b2 + b3 + b4 != mask:  # a repeated card
            out[i] = -1
            continue
        r0 = c0 >> 2
        r1 = c1 >> 2
        r2 = c2 >> 2
        r3 = c3 >> 2
        r4 = c4 >> 2
        if ((c0 ^ c1) | (c0 ^ c2) | (c0 ^ c3) | (c0 ^ c4)) & 3 == 0:
            entry = flush[(1 << r0) | (1 << r1) | (1 << r2) | (1 << r3) | (1 << r4)]
        else:
            # Optimal 9-comparator sorting network for five elements (ascending).
            r0, r1 = min(r0, r1), max(r0, r1)
            r3, r4 = min(r3, r4), max(r3, r4)
            r2, r4 = min(r2, r4), max(r2, r4)
            r2, r3 = min(r2, r3), max(r2, r3)
            r0, r3 = min(r0, r3), max(r0, r3)
            r0, r2 = min(r0, r2), max(r0, r2)
            r1, r4 = min(r1, r4), max(r1, r4)
            r1, r3 = min(r1, r3), max(r1, r3)
            r1, r2 = min(r1, r2), max(r1, r2)
            entry = plain[colex[0, r0] + colex[1, r1] + colex[2, r2] + colex[3, r3] + colex[4, r4]]
        nibble = (mask >> ((entry >> 32) & 63)) & 15
        out[i] = (entry & 0xFFFFFFFF) + (entry >> 40) * high_suit[nibble]


# dtypes the kernel is compiled for directly; other integer dtypes are converted to int64
# (a value that does not fit becomes negative and is refused like any out-of-range index).
_NATIVE: Final = frozenset(np.dtype(t) for t in (np.uint8, np.int8, np.int16, np.int32, np.int64))


def evaluate_array(cards: npt.ArrayLike, ranking: str) -> npt.NDArray[np.int64]:
    """Validate an ``(N, 5)`` array of card indices and return the strengths (see
    :func:`macau_tables.caribbean.hands.evaluate_many`, which documents what is refused)."""
    arr = np.asarray(cards)
    if arr.ndim != 2 or arr.shape[1] != 5:
        raise ParseError("caribbean.array_shape", shape=str(arr.shape))
    if not np.issubdtype(arr.dtype, np.integer):
        raise ParseError("caribbean.array_dtype", dtype=str(arr.dtype))
    work = arr if arr.dtype in _NATIVE else arr.astype(np.int64)
    work = np.ascontiguousarray(work)
    plain, flush = _TABLES[ranking]
    out = np.empty(arr.shape[0], np.int64)
    _kernel(work, plain, flush, COLEX, HIGH_SUIT, out)
    bad = np.flatnonzero(out < 0)
    if bad.size:
        row = int(bad[0])
        values = [int(v) for v in arr[row]]
        for v in values:
            if not 0 <= v <= 51:
                raise ParseError(
                    "caribbean.array_index_range", row=row, index=v, values=str(values)
                )
        for j, v in enumerate(values):
            if v in values[:j]:
                raise ParseError(
                    "caribbean.array_duplicate_card",
                    row=row,
                    card=Card.from_index(v),
                    index=v,
                    values=str(values),
                )
        raise AssertionError(f"row {row} refused by the kernel without a reason")  # a bug
    return out
