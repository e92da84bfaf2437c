"""Cards, suits, ranks, decks and shoes: the vocabulary shared by both games.

Order (CSP-4): suits high to low ♠ > ♥ > ♣ > ♦; ranks high to low A K Q J 10 … 2. A
:class:`Card` is ordered by rank, then suit, so ``max(cards)`` is the highest card under
Macau's rules.

Integer encoding (used by the batch APIs and the math kernels)::

    card.index = (rank - 2) * 4 + suit        # 0 = 2♦, 1 = 2♣, 2 = 2♥, 3 = 2♠, …, 51 = A♠

so ``index`` order is card order. ``rank`` is 2..14 (ace 14), ``suit`` 0..3 (♦ ♣ ♥ ♠).

>>> Card.parse("As") > Card.parse("Ks")
True
>>> [str(c) for c in parse_cards("as 10c T♦ 9h")]
['As', 'Tc', 'Td', '9h']
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence
from enum import IntEnum
from typing import Any, ClassVar

from .errors import ConfigError, ParseError


class Suit(IntEnum):
    """Suits in Macau order (CSP-4): ``Suit.SPADES > Suit.HEARTS > Suit.CLUBS > Suit.DIAMONDS``."""

    DIAMONDS = 0
    CLUBS = 1
    HEARTS = 2
    SPADES = 3

    @property
    def letter(self) -> str:
        """``'d' 'c' 'h' 's'``."""
        return "dchs"[self]

    @property
    def symbol(self) -> str:
        """``'♦' '♣' '♥' '♠'``."""
        return "♦♣♥♠"[self]

    @property
    def chinese(self) -> str:
        """The suit's name in the regulation (鑽石, 梅花, 紅心, 黑桃)."""
        return ("鑽石", "梅花", "紅心", "黑桃")[self]

    @property
    def is_red(self) -> bool:
        return self in (Suit.DIAMONDS, Suit.HEARTS)


class Rank(IntEnum):
    """Ranks 2 … 14 (ace high, CSP-4). The ace also plays low in the straight 5-4-3-2-A."""

    TWO = 2
    THREE = 3
    FOUR = 4
    FIVE = 5
    SIX = 6
    SEVEN = 7
    EIGHT = 8
    NINE = 9
    TEN = 10
    JACK = 11
    QUEEN = 12
    KING = 13
    ACE = 14

    @property
    def letter(self) -> str:
        """``'2'`` … ``'9'``, ``'T'``, ``'J'``, ``'Q'``, ``'K'``, ``'A'``."""
        return "23456789TJQKA"[self - 2]

    @property
    def label(self) -> str:
        """How the rank is printed on a card: ``'10'`` for ten, otherwise :attr:`letter`."""
        return "10" if self == Rank.TEN else self.letter


_RANK_TEXT = {r.letter: r for r in Rank} | {"10": Rank.TEN}
_SUIT_TEXT = (
    {s.letter: s for s in Suit}
    | {s.symbol: s for s in Suit}
    | {
        "♤": Suit.SPADES,
        "♡": Suit.HEARTS,
        "♧": Suit.CLUBS,
        "♢": Suit.DIAMONDS,
    }
)

# Packed key used by the pure-Python hand evaluator (macau_tables.caribbean.hands): the sum of
# five cards' keys describes the hand completely.
#   bits  0..51  one bit per card at 4*(rank-2)+suit: their OR (= sum when distinct) is the hand
#   bits 56..94  3-bit count per rank (rank-major)
#   bits 96..107 3-bit count per suit
EVAL_RANK_SHIFT = 56
EVAL_SUIT_SHIFT = 96


class Card:
    """A playing card: immutable, hashable, totally ordered by rank then suit.

    There are exactly 52 instances; ``Card(Rank.ACE, Suit.SPADES) is Card.parse("As")``.
    """

    __slots__ = ("_ek", "index", "rank", "suit")
    rank: Rank
    suit: Suit
    index: int
    _ek: int
    _all: ClassVar[tuple[Card, ...]]

    def __new__(cls, rank: int, suit: int) -> Card:
        try:
            r = Rank(rank)
            s = Suit(suit)
        except ValueError as exc:
            raise ParseError("core.card_no_such", rank=repr(rank), suit=repr(suit)) from exc
        return cls._all[(r - 2) * 4 + s]

    @classmethod
    def _make(cls, index: int) -> Card:
        card = object.__new__(cls)
        rank, suit = Rank(index // 4 + 2), Suit(index % 4)
        object.__setattr__(card, "rank", rank)
        object.__setattr__(card, "suit", suit)
        object.__setattr__(card, "index", index)
        ek = (
            (1 << index)
            + (1 << (EVAL_RANK_SHIFT + 3 * (rank - 2)))
            + (1 << (EVAL_SUIT_SHIFT + 3 * suit))
        )
        object.__setattr__(card, "_ek", ek)
        return card

    @classmethod
    def from_index(cls, index: int) -> Card:
        """The card with integer encoding ``index`` (0..51; see the module docstring)."""
        if isinstance(index, bool) or not isinstance(index, int) or not 0 <= index < 52:
            raise ParseError("core.card_bad_index", index=repr(index))
        return cls._all[index]

    @classmethod
    def parse(cls, text: str) -> Card:
        """Parse ``'As'``, ``'10c'``, ``'Tc'``, ``'qh'``, ``'K♠'``; raise :class:`ParseError`
        quoting the token otherwise."""
        if not isinstance(text, str):
            raise ParseError("core.card_not_text", text=repr(text))
        # "A♠️": the emoji form of a suit symbol ends with the variation selector U+FE0F.
        token = text.strip().replace("\ufe0f", "")
        if len(token) < 2:
            raise ParseError("core.card_too_short", text=repr(text))
        rank = _RANK_TEXT.get(token[:-1].upper())
        suit = _SUIT_TEXT.get(token[-1].lower())
        if rank is None or suit is None:
            raise ParseError("core.card_unreadable", text=repr(text))
        return cls._all[(rank - 2) * 4 + suit]

    def __setattr__(self, name: str, value: Any) -> None:
        raise AttributeError("Card is immutable")

    def __delattr__(self, name: str) -> None:
        raise AttributeError("Card is immutable")

    def __reduce__(self) -> tuple[Any, ...]:
        return (Card.from_index, (self.index,))

    def __copy__(self) -> Card:
        return self

    def __deepcopy__(self, memo: dict[int, Any]) -> Card:
        return self

    def __str__(self) -> str:
        return self.rank.letter + self.suit.letter

    def __repr__(self) -> str:
        return f"Card.parse({str(self)!r})"

    @property
    def pretty(self) -> str:
        """``'10♠'``, ``'A♥'``: for people."""
        return self.rank.label + self.suit.symbol

    def __hash__(self) -> int:
        return self.index

    # Equality is identity (there are exactly 52 instances): ``object``'s own, which Python
    # compares without calling a method (a card looked for in a hand, a set or a dict).

    def __lt__(self, other: Card) -> bool:
        if not isinstance(other, Card):
            return NotImplemented
        return self.index < other.index

    def __le__(self, other: Card) -> bool:
        if not isinstance(other, Card):
            return NotImplemented
        return self.index <= other.index

    def __gt__(self, other: Card) -> bool:
        if not isinstance(other, Card):
            return NotImplemented
        return self.index > other.index

    def __ge__(self, other: Card) -> bool:
        if not isinstance(other, Card):
            return NotImplemented
        return self.index >= other.index


Card._all = tuple(Card._make(i) for i in range(52))

DECK: tuple[Card, ...] = Card._all
"""The 52 cards in index order (2♦ first, A♠ last)."""


def parse_cards(text: str | Iterable[str]) -> list[Card]:
    """Parse ``"As Kd 10c 9h 2s"`` (spaces or commas between cards) or an iterable of tokens.

    Accepts ``T`` or ``10``, upper or lower case, and the symbols ♠♥♣♦. A bad token raises
    :class:`ParseError` quoting it. Duplicates are allowed here (a multi-deck shoe has them);
    the game rules refuse them where the law does.
    """
    if isinstance(text, str):
        tokens: list[str] = text.replace(",", " ").split()
    elif isinstance(text, Iterable):
        tokens = list(text)
    else:
        raise ParseError("core.cards_not_text", text=repr(text))
    return [Card.parse(t) for t in tokens]


def format_cards(cards: Iterable[Card]) -> str:
    """``"As Kd Tc"``: the inverse of :func:`parse_cards`."""
    return " ".join(str(c) for c in cards)


def new_deck() -> list[Card]:
    """A fresh, ordered 52-card deck (a new list each call)."""
    return list(DECK)


def new_shoe(decks: int) -> list[Card]:
    """``decks`` ordered 52-card decks in one list (for a baccarat shoe, 6 … 12 decks).

    Refuses (:class:`ConfigError`, a ``ValueError``) anything but a positive int.
    """
    if isinstance(decks, bool) or not isinstance(decks, int) or decks < 1:
        raise ConfigError("core.shoe_bad_decks", decks=repr(decks))
    return list(DECK) * decks


def find_duplicate(cards: Sequence[Card]) -> Card | None:
    """The first card that appears twice in ``cards``, or ``None``."""
    seen: set[Card] = set()
    for card in cards:
        if card in seen:
            return card
        seen.add(card)
    return None


def iter_indices(cards: Iterable[Card]) -> Iterator[int]:
    """The integer encodings of ``cards``."""
    return (c.index for c in cards)
