"""The ranking of CSP-4 and CSP-8, defined once: the hand categories and the strength of every
multiset of five ranks, under Macau law or standard poker.

:mod:`.hands` (the fast dict lookup) and :mod:`._kernels` (the numba batch kernel) build their
tables from :func:`_rank_value`, so both evaluate by the very same definition. The strength
layout is described in :mod:`.hands`.
"""

from __future__ import annotations

from collections import Counter
from enum import IntEnum
from typing import Final, Literal

from ..errors import ParseError

__all__ = [
    "CATEGORY_SHIFT",
    "RANKINGS",
    "RANK_SHIFT",
    "HandCategory",
    "Ranking",
]

Ranking = Literal["macau", "standard"]
RANKINGS: Final[tuple[Ranking, ...]] = ("macau", "standard")
"""The rankings :func:`.hands.evaluate` knows: ``"macau"`` (the law, CSP-8) and
``"standard"``."""

CATEGORY_SHIFT: Final = 22
"""``strength >> CATEGORY_SHIFT`` is the :class:`HandCategory` code (see :mod:`.hands`)."""
RANK_SHIFT: Final = 2
"""``(strength >> RANK_SHIFT) & 0xFFFFF`` is the rankcode (see :mod:`.hands`)."""
_NIBBLES: Final = 5


class HandCategory(IntEnum):
    """The ten hand categories of CSP-8, lowest first (so ``>`` means "beats")."""

    HIGH_CARD = 0
    ONE_PAIR = 1
    TWO_PAIR = 2
    THREE_OF_A_KIND = 3
    STRAIGHT = 4
    FLUSH = 5
    FULL_HOUSE = 6
    FOUR_OF_A_KIND = 7
    STRAIGHT_FLUSH = 8
    ROYAL_FLUSH = 9

    @property
    def chinese(self) -> str:
        """The category's name in the regulation (CSP-8): 五張散牌 … 黃袍麒."""
        return _CHINESE[self]

    @property
    def english(self) -> str:
        """The category's English name: ``"high card"`` … ``"royal flush"``."""
        return _ENGLISH[self]


_CHINESE: Final = (
    "五張散牌",
    "一對",
    "兩對",
    "三條",
    "順",
    "同花",
    "夫盧",
    "四條",
    "同花順",
    "黃袍麒",
)
_ENGLISH: Final = (
    "high card",
    "one pair",
    "two pair",
    "three of a kind",
    "straight",
    "flush",
    "full house",
    "four of a kind",
    "straight flush",
    "royal flush",
)

# How many rank nibbles each category compares, per ranking (see the module docstring).
_RANKS_COMPARED: Final[dict[str, tuple[int, ...]]] = {
    # CSP-8.3/8.4/8.7: quads, full house and trips compare the rank of the four/three only.
    "macau": (5, 4, 3, 1, 1, 5, 1, 1, 1, 1),
    "standard": (5, 4, 3, 3, 1, 5, 2, 2, 1, 1),
}
# Categories whose Macau tie-break ends with a suit (CSP-8.1/8.2/8.5/8.6/8.8/8.9/8.10).
_SUITED_TIEBREAK: Final = frozenset(
    {
        HandCategory.ROYAL_FLUSH,
        HandCategory.STRAIGHT_FLUSH,
        HandCategory.FLUSH,
        HandCategory.STRAIGHT,
        HandCategory.TWO_PAIR,
        HandCategory.ONE_PAIR,
        HandCategory.HIGH_CARD,
    }
)


def _rank_value(ranks: tuple[int, ...], flush: bool, ranking: str) -> tuple[int, int | None]:
    """``(strength without suitcode, tie-break rank or None)`` of five ranks (2..14).

    ``flush`` says whether the five cards share a suit. The tie-break rank is the rank whose
    cards' highest suit is the Macau suit tie-break (CSP-8); ``None`` where no suit counts.
    """
    macau = ranking == "macau"
    counts = Counter(ranks)
    # Ranks grouped by multiplicity (largest group first), then rank high to low.
    groups = sorted(counts, key=lambda r: (counts[r], r), reverse=True)
    shape = tuple(counts[r] for r in groups)
    distinct = sorted(counts, reverse=True)
    high: int | None = None
    if len(distinct) == 5:
        if distinct[0] - distinct[4] == 4:
            high = distinct[0]
        elif distinct == [14, 5, 4, 3, 2]:
            high = 5  # CSP-4: in 5-4-3-2-A the ace is low; the 5 is the highest card
    compared: list[int]
    suit_rank: int | None
    if high is not None and flush:
        # CSP-8.1 / 8.2: ranks (the highest card), then the suit.
        cat = HandCategory.ROYAL_FLUSH if high == 14 else HandCategory.STRAIGHT_FLUSH
        compared, suit_rank = [high], high
    elif shape == (4, 1):
        # CSP-8.3: the rank of the four; the fifth card never counts.
        cat = HandCategory.FOUR_OF_A_KIND
        compared, suit_rank = (groups[:1] if macau else groups), None
    elif shape == (3, 2):
        # CSP-8.4: the rank of the three.
        cat = HandCategory.FULL_HOUSE
        compared, suit_rank = (groups[:1] if macau else groups), None
    elif flush:
        # CSP-8.5: ranks high to low, then the flush's suit.
        cat = HandCategory.FLUSH
        compared, suit_rank = distinct, distinct[0]
    elif high is not None:
        # CSP-8.6: ranks, then the suit of the highest card (the 5 in 5-4-3-2-A).
        cat = HandCategory.STRAIGHT
        compared, suit_rank = [high], high
    elif shape == (3, 1, 1):
        # CSP-8.7: the rank of the three; the other two never count.
        cat = HandCategory.THREE_OF_A_KIND
        compared, suit_rank = (groups[:1] if macau else groups), None
    elif shape == (2, 2, 1):
        # CSP-8.8: higher pair, lower pair, kicker, then the higher suit in the higher pair.
        cat = HandCategory.TWO_PAIR
        compared, suit_rank = groups, groups[0]
    elif shape == (2, 1, 1, 1):
        # CSP-8.9: pair, kickers high to low, then the higher suit in the pair.
        cat = HandCategory.ONE_PAIR
        compared, suit_rank = groups, groups[0]
    elif shape == (1, 1, 1, 1, 1):
        # CSP-8.10: ranks high to low, then the suit of the highest card.
        cat = HandCategory.HIGH_CARD
        compared, suit_rank = distinct, distinct[0]
    else:
        raise ParseError("caribbean.impossible_ranks", ranks=repr(ranks))
    code = 0
    for i, r in enumerate(compared):
        code |= (r - 2) << (4 * (_NIBBLES - 1 - i))
    return cat << CATEGORY_SHIFT | code << RANK_SHIFT, (suit_rank if macau else None)


def _rank_multisets() -> list[tuple[int, ...]]:
    """Every multiset of five ranks (2..14, at most four of a rank), high to low."""
    out: list[tuple[int, ...]] = []

    def rec(prefix: tuple[int, ...], top: int) -> None:
        if len(prefix) == 5:
            if max(Counter(prefix).values()) <= 4:
                out.append(prefix)
            return
        for r in range(top, 1, -1):
            rec((*prefix, r), r)

    rec((), 14)
    return out
