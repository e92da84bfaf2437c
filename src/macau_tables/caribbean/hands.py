"""Caribbean Stud Poker hand evaluation: the ranking of CSP-8, under Macau law or standard poker.

Two rankings are offered:

``"macau"`` (the law; the only ranking a table uses)
    CSP-4 card order and every CSP-8 tie-break: the suit decides between hands of equal ranks
    (royal flush, straight flush, flush: the flush suit; straight and high card: the suit of the
    highest card, which in 5-4-3-2-A is the 5; two pair: the higher suit held in the higher pair;
    one pair: the higher suit held in the pair). Four of a kind, full house and three of a kind
    are decided by the rank of the four / the three alone: the other cards never count.
    Two hands dealt from one deck therefore never tie (CSP-8); hands that share cards may
    (``AAAA+K`` and ``AAAA+Q`` are equal).

``"standard"``
    Ordinary poker order for analysis and for comparison with published figures: full
    kickers, no suits, equal ranks tie. The royal flush is still its own category.

Both rankings play the ace low in 5-4-3-2-A, the lowest straight (CSP-4).

Strength layout
---------------
Every hand maps to an ``int`` *strength*; a higher strength is a better hand, equal strengths
tie::

    strength = category << 22 | rankcode << 2 | suitcode

* ``category``: :class:`HandCategory` (0 high card … 9 royal flush), bits 22..25.
* ``rankcode``: 20 bits, five 4-bit nibbles ``rank - 2`` (deuce 0 … ace 12), most
  significant first, holding exactly the ranks the ranking compares, in the order it compares
  them, zero padded on the right (e.g. Macau one pair: pair rank, then the three kickers high to
  low; Macau three of a kind: the rank of the three alone; a straight: its highest card, 5 in
  5-4-3-2-A). :attr:`HandValue.ranks` decodes them.
* ``suitcode``: 0..3 (♦ ♣ ♥ ♠, CSP-4), the suit the Macau tie-break uses; 0 where the law uses no
  suit, and always 0 under the standard ranking. :attr:`HandValue.suit` decodes it.

The strength fits in 26 bits, so ``int64`` (or even ``int32``) arrays hold it; the batch
function :func:`evaluate_many` returns exactly ``evaluate(...).strength`` for every row.

Speed
-----
:func:`evaluate` is a table lookup: each :class:`~macau_tables.cards.Card` carries a packed key
(``Card._ek``) whose sum over five cards holds the hand's card mask, its rank counts and its
suit counts. Two dicts built on the first evaluation in a process (non-flush / flush, keyed by
the rank counts) give a tuple of pre-built :class:`HandValue` objects, indexed by the highest
suit present among the cards of the tie-break rank. :func:`evaluate_many` runs a numba kernel
over tables built from the same definitions (see :mod:`macau_tables.caribbean._kernels`).

>>> v = evaluate("As Ks Qs Js 10s")
>>> v.category, v.suit
(<HandCategory.ROYAL_FLUSH: 9>, <Suit.SPADES: 3>)
>>> compare("5h 4c 3d 2s Ad", "5s 4h 3c 2d Ac")     # the suit of the 5 decides
-1
>>> compare("Ah Ad Ac As Kd", "Ah Ad Ac As Qd")     # the fifth card never counts
0
>>> dealer_qualifies("Ad Kc 7h 4s 2d"), dealer_qualifies("Ad Qc Jh 10s 9d")
(True, False)
"""

from __future__ import annotations

import threading
from collections.abc import Iterable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Final, overload

from ..cards import EVAL_RANK_SHIFT, EVAL_SUIT_SHIFT, Card, Rank, Suit
from ..errors import ConfigError, ParseError
from .ranking import (
    _NIBBLES,
    _RANKS_COMPARED,
    _SUITED_TIEBREAK,
    CATEGORY_SHIFT,
    RANK_SHIFT,
    RANKINGS,
    HandCategory,
    Ranking,
    _rank_multisets,
    _rank_value,
)

if TYPE_CHECKING:
    import numpy as np
    import numpy.typing as npt

__all__ = [
    "CATEGORY_SHIFT",
    "QUALIFYING_STRENGTH",
    "RANKINGS",
    "RANK_SHIFT",
    "HandCategory",
    "HandValue",
    "Ranking",
    "compare",
    "dealer_qualifies",
    "evaluate",
    "evaluate_many",
    "prepare",
    "qualifies",
    "strength_category",
]

_KNOWN_RANKINGS: Final = repr(RANKINGS)


@dataclass(frozen=True, slots=True, eq=True)
class HandValue:
    """The value of a five-card hand under one ranking: immutable, hashable, totally ordered.

    ``a < b`` means hand ``b`` beats hand ``a``; equal values tie. Values of different rankings
    are never equal, and ordering them (``<``, ``<=``, ``>``, ``>=``) raises :class:`TypeError`.
    :func:`evaluate` returns shared, pre-built instances.
    """

    strength: int
    ranking: Ranking

    def __post_init__(self) -> None:
        if self.ranking not in _RANKS_COMPARED:
            raise ConfigError(
                "caribbean.unknown_ranking", ranking=repr(self.ranking), known=_KNOWN_RANKINGS
            )
        if isinstance(self.strength, bool) or not isinstance(self.strength, int):
            raise ParseError("caribbean.strength_not_int", value=repr(self.strength))
        if not 0 <= self.strength < (int(HandCategory.ROYAL_FLUSH) + 1) << CATEGORY_SHIFT:
            raise ParseError("caribbean.strength_out_of_range", value=repr(self.strength))

    @property
    def category(self) -> HandCategory:
        """The hand's category (CSP-8)."""
        return HandCategory(self.strength >> CATEGORY_SHIFT)

    @property
    def ranks(self) -> tuple[Rank, ...]:
        """The ranks this ranking compares, in the order it compares them (CSP-8).

        E.g. Macau one pair ``(pair, kicker1, kicker2, kicker3)``; Macau three of a kind just
        ``(trips,)``; a straight or straight flush its highest card (``Rank.FIVE`` for 5-4-3-2-A).
        """
        code = (self.strength >> RANK_SHIFT) & ((1 << 4 * _NIBBLES) - 1)
        count = _RANKS_COMPARED[self.ranking][self.category]
        return tuple(Rank(((code >> (4 * (_NIBBLES - 1 - i))) & 15) + 2) for i in range(count))

    @property
    def suit(self) -> Suit | None:
        """The suit the Macau tie-break uses (CSP-8), or ``None`` where the law uses none
        (four of a kind, full house, three of a kind) and always under ``"standard"``."""
        if self.ranking != "macau" or self.category not in _SUITED_TIEBREAK:
            return None
        return Suit(self.strength & 3)

    def __str__(self) -> str:
        ranks = "-".join(r.label for r in self.ranks)
        suit = "" if self.suit is None else self.suit.symbol
        return f"{self.category.english} {ranks}{suit}"

    def _check(self, other: object) -> HandValue | None:
        if not isinstance(other, HandValue):
            return None
        if other.ranking != self.ranking:
            raise TypeError(
                f"cannot order a {self.ranking!r} hand value against a {other.ranking!r} one"
            )
        return other

    def __lt__(self, other: object) -> bool:
        o = self._check(other)
        if o is None:
            return NotImplemented
        return self.strength < o.strength

    def __le__(self, other: object) -> bool:
        o = self._check(other)
        if o is None:
            return NotImplemented
        return self.strength <= o.strength

    def __gt__(self, other: object) -> bool:
        o = self._check(other)
        if o is None:
            return NotImplemented
        return self.strength > o.strength

    def __ge__(self, other: object) -> bool:
        o = self._check(other)
        if o is None:
            return NotImplemented
        return self.strength >= o.strength


# (value if the tie-break nibble is empty, … if its highest suit is ♦, ♣, ♥, ♠; nibble shift).
# Typed loosely: indexed with a computed int, mypy could not narrow the element type anyway.
_Entry = tuple[Any, ...]
_RANK_COUNT_MASK: Final = (1 << 39) - 1
_CARD_MASK: Final = (1 << 52) - 1
# Suit-count fields (bits 96.. of the packed key) of a five-card flush, one per suit.
_FLUSH_SUIT_COUNTS: Final = frozenset(5 << (3 * s) for s in range(4))


def _build_tables() -> dict[str, tuple[dict[int, _Entry], dict[int, _Entry]]]:
    values: dict[tuple[str, int], HandValue] = {}

    def value(strength: int, ranking: Ranking) -> HandValue:
        key = (ranking, strength)
        v = values.get(key)
        if v is None:
            # Trusted construction (no __post_init__ checks): ~30,000 values, built once.
            v = object.__new__(HandValue)
            object.__setattr__(v, "strength", strength)
            object.__setattr__(v, "ranking", ranking)
            values[key] = v
        return v

    tables: dict[str, tuple[dict[int, _Entry], dict[int, _Entry]]] = {}
    multisets = _rank_multisets()
    for ranking in RANKINGS:
        plain: dict[int, _Entry] = {}
        flush: dict[int, _Entry] = {}
        for ranks in multisets:
            key = sum(1 << (3 * (r - 2)) for r in ranks)
            for is_flush, table in ((False, plain), (True, flush)):
                if is_flush and len(set(ranks)) < 5:
                    continue
                base, suit_rank = _rank_value(ranks, is_flush, ranking)
                if suit_rank is None:
                    v = value(base, ranking)
                    table[key] = (v, v, v, v, v, 0)
                else:
                    # Index = bit_length of the suit nibble of ``suit_rank``: the highest suit
                    # held in that rank, plus one (0 cannot occur: the rank is in the hand).
                    vs = [value(base + max(k - 1, 0), ranking) for k in range(5)]
                    table[key] = (vs[0], vs[1], vs[2], vs[3], vs[4], 4 * (suit_rank - 2))
        tables[ranking] = (plain, flush)
    return tables


_TABLES: Final[dict[str, tuple[dict[int, _Entry], dict[int, _Entry]]]] = {}
"""Each ranking's tables, built on the first evaluation in a process (~0.2 s of CPU: a
program that evaluates no hand — a CLI command, a server's start, a test process — does not
pay it); empty until then."""
_TABLES_BUILT = threading.Lock()


def _tables() -> dict[str, tuple[dict[int, _Entry], dict[int, _Entry]]]:
    """:data:`_TABLES`, built first if no evaluation has built them yet (once: a lock keeps
    two threads from building them both)."""
    if not _TABLES:
        with _TABLES_BUILT:
            if not _TABLES:
                _TABLES.update(_build_tables())
    return _TABLES


def prepare() -> None:
    """Build the evaluator's tables now if no evaluation has yet (the game plug-in's
    ``prepare``: a process that forks workers builds them once, for all of them)."""
    _tables()


# ---------------------------------------------------------------------------------------------
# Public functions.


def _normalise(cards: object) -> list[Card]:
    """The five distinct cards of ``cards``, or a clear :class:`ParseError`."""
    if isinstance(cards, str):
        items: list[object] = list(cards.replace(",", " ").split())
    elif isinstance(cards, Iterable):
        items = list(cards)
    else:
        raise ParseError("caribbean.hand_not_cards", value=repr(cards))
    hand: list[Card] = []
    for item in items:
        if isinstance(item, Card):
            hand.append(item)
        elif isinstance(item, str):
            hand.append(Card.parse(item))
        else:
            raise ParseError("caribbean.hand_item_not_a_card", value=repr(item))
    if len(hand) != 5:
        shown = " ".join(str(c) for c in hand)
        raise ParseError("caribbean.hand_size", count=len(hand), cards=repr(shown))
    seen: set[Card] = set()
    for card in hand:
        if card in seen:
            raise ParseError(
                "caribbean.hand_duplicate_card",
                card=card,
                cards=repr(" ".join(str(c) for c in hand)),
            )
        seen.add(card)
    return hand


def _check_ranking(ranking: object) -> tuple[dict[int, _Entry], dict[int, _Entry]]:
    tables = _tables()
    if not isinstance(ranking, str) or ranking not in tables:
        raise ConfigError("caribbean.unknown_ranking", ranking=repr(ranking), known=_KNOWN_RANKINGS)
    return tables[ranking]


def _evaluate_checked(cards: object, ranking: object) -> HandValue:
    plain, flush = _check_ranking(ranking)
    a, b, c, d, e = _normalise(cards)
    s = a._ek + b._ek + c._ek + d._ek + e._ek
    entry = (flush if s >> EVAL_SUIT_SHIFT in _FLUSH_SUIT_COUNTS else plain)[
        (s >> EVAL_RANK_SHIFT) & _RANK_COUNT_MASK
    ]
    value: HandValue = entry[(((s & _CARD_MASK) >> entry[5]) & 15).bit_length()]
    return value


def evaluate(cards: Iterable[Card | str] | str, ranking: Ranking = "macau") -> HandValue:
    """The :class:`HandValue` of a five-card hand under ``ranking`` (``"macau"`` or
    ``"standard"``; CSP-4, CSP-8).

    ``cards``: five :class:`~macau_tables.cards.Card` objects (the fast path: a list or tuple),
    or text such as ``"As Kd 10c 9h 2s"``, or an iterable of card texts.

    Refuses, with a message naming the problem: anything but exactly five cards, a duplicate
    card, an unreadable card (:class:`~macau_tables.errors.ParseError`), an unknown ranking
    (:class:`~macau_tables.errors.ConfigError`). Both are ``ValueError`` subclasses.
    """
    # Fast path: a list/tuple of five distinct Cards. Anything unusual (text, wrong count,
    # duplicates, bad ranking) falls through to the careful path, which explains the problem.
    if cards.__class__ is list or cards.__class__ is tuple:
        try:
            hand: Any = cards
            a, b, c, d, e = hand
            s = a._ek + b._ek + c._ek + d._ek + e._ek
            m = s & _CARD_MASK
            # Distinct cards <=> no carries between card bits <=> exactly five bits set.
            if m.bit_count() == 5:
                plain, flush = _TABLES[ranking]
                entry = (flush if s >> 96 in _FLUSH_SUIT_COUNTS else plain)[
                    (s >> 56) & _RANK_COUNT_MASK
                ]
                value: HandValue = entry[((m >> entry[5]) & 15).bit_length()]
                return value
        except Exception:  # the careful path below reports the real problem
            pass
    return _evaluate_checked(cards, ranking)


def _value_of(hand: object, ranking: Ranking) -> HandValue:
    if isinstance(hand, HandValue):
        if hand.ranking != ranking:
            raise ConfigError(
                "caribbean.ranking_mismatch", value=repr(hand.ranking), wanted=repr(ranking)
            )
        return hand
    return evaluate(hand, ranking)  # type: ignore[arg-type]


def compare(
    a: Iterable[Card | str] | str | HandValue,
    b: Iterable[Card | str] | str | HandValue,
    ranking: Ranking = "macau",
) -> int:
    """``1`` when hand ``a`` beats hand ``b``, ``-1`` when ``b`` wins, ``0`` when they tie
    (CSP-8 under ``"macau"``).

    ``a`` and ``b`` are anything :func:`evaluate` accepts, or :class:`HandValue` objects of the
    same ranking. Under Macau ranking two hands from one deck never tie; hands that share cards
    can (``AAAA+K`` vs ``AAAA+Q`` is ``0``: the fifth card never counts, CSP-8.3).
    Refuses what :func:`evaluate` refuses, and a HandValue of another ranking (ConfigError).
    """
    _check_ranking(ranking)
    sa = _value_of(a, ranking).strength
    sb = _value_of(b, ranking).strength
    return (sa > sb) - (sa < sb)


# CSP-9.1: the lowest qualifying dealer hand is A-K-4-3-2 with the lowest suits; every hand of
# a higher strength has at least A-K high or a pair (the same rankcode under both rankings).
QUALIFYING_STRENGTH: Final[int] = _rank_value((14, 13, 4, 3, 2), False, "standard")[0]
"""Smallest strength with which the dealer qualifies (CSP-9.1), under either ranking:
``strengths >= QUALIFYING_STRENGTH`` qualifies a whole array from :func:`evaluate_many`."""


def qualifies(value: HandValue) -> bool:
    """Whether an evaluated dealer hand qualifies (CSP-9.1): at least an ace and a king,
    i.e. A-K high or better; any pair or better qualifies. Refuses a non-HandValue (TypeError)."""
    if not isinstance(value, HandValue):
        raise TypeError(f"qualifies() takes a HandValue, got {value!r}")
    return value.strength >= QUALIFYING_STRENGTH


def dealer_qualifies(cards: Iterable[Card | str] | str) -> bool:
    """Whether the dealer's five cards qualify (CSP-9.1): A-K high or better.

    Refuses what :func:`evaluate` refuses.
    """
    return evaluate(cards, "macau").strength >= QUALIFYING_STRENGTH


@overload
def strength_category(strength: int) -> HandCategory: ...
@overload
def strength_category(strength: np.integer[Any]) -> HandCategory: ...
@overload
def strength_category(strength: npt.NDArray[Any]) -> npt.NDArray[np.int8]: ...
def strength_category(
    strength: int | np.integer[Any] | npt.NDArray[Any],
) -> HandCategory | npt.NDArray[np.int8]:
    """The :class:`HandCategory` of a strength (an ``int`` or numpy integer scalar); for an
    integer array, an ``int8`` array of category codes (compare with ``HandCategory`` members).
    Refuses non-integers and negative or too large strengths (ParseError)."""
    limit = (int(HandCategory.ROYAL_FLUSH) + 1) << CATEGORY_SHIFT
    if isinstance(strength, int) and not isinstance(strength, bool):
        if not 0 <= strength < limit:
            raise ParseError("caribbean.strength_out_of_range", value=repr(strength))
        return HandCategory(strength >> CATEGORY_SHIFT)
    import numpy as np

    arr = np.asarray(strength)
    if not np.issubdtype(arr.dtype, np.integer):
        raise ParseError("caribbean.strengths_not_int", dtype=str(arr.dtype))
    if arr.size and (int(arr.min()) < 0 or int(arr.max()) >= limit):
        raise ParseError("caribbean.strengths_out_of_range")
    if arr.ndim == 0:
        return HandCategory(int(arr) >> CATEGORY_SHIFT)
    return (arr >> CATEGORY_SHIFT).astype(np.int8)


def evaluate_many(cards: npt.ArrayLike, ranking: Ranking = "macau") -> npt.NDArray[np.int64]:
    """Strengths of many hands at once: ``out[i] == evaluate(row i).strength``.

    ``cards`` is an ``(N, 5)`` integer array of card indices ``index = (rank - 2) * 4 + suit``
    (0 = 2♦, 1 = 2♣, 2 = 2♥, 3 = 2♠, …, 51 = A♠; see :mod:`macau_tables.cards`). Returns an
    ``int64`` array of length ``N`` (layout in the module docstring). Runs in parallel (numba).

    Refuses (ParseError) a wrong shape, a non-integer dtype, an index outside 0..51 and a card
    repeated within a row, naming the first bad row; an unknown ranking (ConfigError).
    """
    from ._kernels import evaluate_array

    _check_ranking(ranking)
    return evaluate_array(cards, ranking)
