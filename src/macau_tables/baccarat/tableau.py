"""The baccarat tableau: card values, totals, the third-card rules and the outcome of a round.

Everything here is a pure function of the cards (BAC-5, BAC-7, BAC-9, BAC-11). The math
engineers call :func:`card_value`, :func:`player_draws`, :func:`banker_draws` and
:func:`deal_round` to prove their kernels equal the law, so these names are stable.

The BAC-9 drawing order lives in one place, :func:`next_slot` (which :class:`CardSlot` is due
after the cards dealt so far); :func:`deal_round` and the baccarat round both ask it.

>>> from macau_tables.cards import parse_cards
>>> r = deal_round(parse_cards("9s 5h Kd 2c"))       # P: 9 K = 9 natural, B: 5 2 = 7
>>> r.winner, r.player_total, r.banker_total, r.natural, r.cards_used
(<Side.PLAYER: 'player'>, 9, 7, True, 4)
>>> next_slot(parse_cards("2s 3h Ac")), next_slot(parse_cards("2s 3h Ac Kd"))
(<CardSlot.BANKER_2: 'B2'>, <CardSlot.PLAYER_3: 'P3'>)
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from enum import StrEnum

from ..cards import DECK, Card
from ..errors import MacauTablesError
from .sides import Side

__all__ = [
    "BANKER_DRAW_TABLE",
    "CardSlot",
    "NotEnoughCards",
    "RoundResult",
    "banker_draws",
    "card_value",
    "deal_round",
    "hand_total",
    "is_natural",
    "next_slot",
    "player_draws",
]


class CardSlot(StrEnum):
    """Where a card goes, in dealing order (BAC-7.1, BAC-9)."""

    PLAYER_1 = "P1"
    BANKER_1 = "B1"
    PLAYER_2 = "P2"
    BANKER_2 = "B2"
    PLAYER_3 = "P3"
    BANKER_3 = "B3"


_FIRST_FOUR = (CardSlot.PLAYER_1, CardSlot.BANKER_1, CardSlot.PLAYER_2, CardSlot.BANKER_2)


class NotEnoughCards(MacauTablesError, ValueError):
    """:func:`deal_round` was given fewer cards than the round needs (4, 5 or 6)."""

    code = "not_enough_cards"


# BAC-5: 10, J, Q, K count 0; A counts 1; 2..9 face value. Indexed by Card.index.
_VALUES: tuple[int, ...] = tuple(
    (1 if c.rank == 14 else (0 if c.rank >= 10 else int(c.rank))) for c in DECK
)


def card_value(card: Card) -> int:
    """The BAC-5 value of ``card``: 0 for 10/J/Q/K, 1 for an ace, otherwise its face value."""
    return _VALUES[card.index]


def hand_total(cards: Iterable[Card]) -> int:
    """The BAC-5 total of ``cards``: the sum of their values modulo 10 (0..9, 9 highest)."""
    values = _VALUES
    return sum(values[c.index] for c in cards) % 10


def is_natural(cards: Sequence[Card]) -> bool:
    """True when ``cards`` is a two-card hand totalling 8 or 9 (例牌, BAC-9.2).

    A three-card 8 or 9 is not a natural; any other number of cards returns False.
    """
    return len(cards) == 2 and hand_total(cards) >= 8


def player_draws(total: int) -> bool:
    """Whether the player draws a third card on a two-card ``total`` (BAC-9.1, BAC-9.2).

    True on 0..5, False on 6..9. Naturals are decided before this is asked: when either side
    has a two-card 8 or 9 neither side draws (see :func:`deal_round`). Refuses (``ValueError``)
    a total outside 0..9.
    """
    if not 0 <= total <= 9:
        raise ValueError(f"a baccarat total is 0..9, got {total!r}")
    return total <= 5


# BAC-9.3 / BAC-9.4. Row: banker's two-card total 0..9. Column: the player's third-card value
# 0..9, and column 10 = "the player did not draw". True = the banker draws.
def _banker_row(total: int) -> tuple[bool, ...]:
    if total <= 2:  # BAC-9.3: 0, 1, 2 draw whatever the player drew
        drew = [True] * 10
    elif total == 3:  # unless the player's third card is an 8
        drew = [v != 8 for v in range(10)]
    elif total == 4:  # if it is 2..7
        drew = [2 <= v <= 7 for v in range(10)]
    elif total == 5:  # if it is 4..7
        drew = [4 <= v <= 7 for v in range(10)]
    elif total == 6:  # if it is 6 or 7
        drew = [v in (6, 7) for v in range(10)]
    else:  # BAC-9.4: 7, 8, 9 stand
        drew = [False] * 10
    return (*drew, total <= 5)  # player stood: banker draws on 0..5 (BAC-9.3), stands on 6+


BANKER_DRAW_TABLE: tuple[tuple[bool, ...], ...] = tuple(_banker_row(t) for t in range(10))
"""``BANKER_DRAW_TABLE[banker_total][player_third_value]`` (column 10: the player stood)."""


def banker_draws(banker_total: int, player_third_value: int | None) -> bool:
    """Whether the banker draws (BAC-9.3, BAC-9.4), given the banker's two-card total and the
    BAC-5 value of the player's third card, or ``None`` when the player did not draw.

    Naturals are decided before this is asked (a player natural makes the banker stand,
    BAC-9.4). Refuses (``ValueError``) a total or value outside 0..9.
    """
    if not 0 <= banker_total <= 9:
        raise ValueError(f"a baccarat total is 0..9, got {banker_total!r}")
    if player_third_value is None:
        return BANKER_DRAW_TABLE[banker_total][10]
    if not 0 <= player_third_value <= 9:
        raise ValueError(f"a card value is 0..9, got {player_third_value!r}")
    return BANKER_DRAW_TABLE[banker_total][player_third_value]


def next_slot(cards: Sequence[Card]) -> CardSlot | None:
    """The slot due after ``cards`` (the cards dealt so far, in dealing order), or ``None`` when
    the hand is complete.

    The order is P1 B1 P2 B2 (BAC-7.1); then, unless either side has a natural (BAC-9.2, BAC-9.4),
    the player's third card when the player's total is 0..5 (BAC-9.1) and the banker's third card
    as :data:`BANKER_DRAW_TABLE` says (BAC-9.3, BAC-9.4). This is the one statement of the
    drawing order: :func:`deal_round` and the baccarat round both ask it. More cards than the
    hand takes also return ``None``. Refuses nothing; ``cards`` must be :class:`Card` objects.
    """
    n = len(cards)
    if n < 4:
        return _FIRST_FOUR[n]  # BAC-7.1
    values = _VALUES
    pt = (values[cards[0].index] + values[cards[2].index]) % 10
    bt = (values[cards[1].index] + values[cards[3].index]) % 10
    if pt >= 8 or bt >= 8:  # BAC-9.2 / BAC-9.4: a natural, nobody draws
        return None
    if pt <= 5:  # BAC-9.1: the player draws, then the banker by the table (BAC-9.3)
        if n == 4:
            return CardSlot.PLAYER_3
        if n == 5 and BANKER_DRAW_TABLE[bt][values[cards[4].index]]:
            return CardSlot.BANKER_3
        return None
    # The player stood on 6 or 7: the banker draws on 0..5 (BAC-9.3), stands on 6, 7 (BAC-9.4).
    if n == 4 and BANKER_DRAW_TABLE[bt][10]:
        return CardSlot.BANKER_3
    return None


@dataclass(frozen=True, slots=True)
class RoundResult:
    """The cards and outcome of one baccarat round (BAC-7, BAC-9, BAC-11, BAC-12, BAC-13).

    ``natural`` is True when either side's first two cards total 8 or 9. ``player_pair`` /
    ``banker_pair``: that side's first two cards have the same rank (BAC-13: J-J is a pair,
    J-Q is not). ``cards_used`` is 4, 5 or 6.
    """

    player_cards: tuple[Card, ...]
    banker_cards: tuple[Card, ...]
    player_total: int
    banker_total: int
    winner: Side
    natural: bool
    player_pair: bool
    banker_pair: bool
    cards_used: int

    @property
    def cards_in_order(self) -> tuple[Card, ...]:
        """The cards in the order they left the shoe: P1 B1 P2 B2 [P3] [B3] (BAC-7, BAC-9)."""
        p, b = self.player_cards, self.banker_cards
        order: tuple[Card, ...] = (p[0], b[0], p[1], b[1])
        if len(p) == 3:
            order += (p[2],)
        if len(b) == 3:
            order += (b[2],)
        return order


def deal_round(cards: Iterable[Card]) -> RoundResult:
    """Deal one round from ``cards`` in shoe order and return its :class:`RoundResult`.

    Cards go where :func:`next_slot` says: P1, B1, P2, B2 (BAC-7.1); then, unless either side
    has a natural, the player's third card if the player draws and the banker's third card if
    the banker draws (BAC-9). Only the cards the round needs are consumed: from an iterator the
    rest stays unread; from a sequence the rest is ignored. Refuses (:class:`NotEnoughCards`)
    when the cards run out before the round is complete.
    """
    it = iter(cards)
    dealt: list[Card] = []
    while (slot := next_slot(dealt)) is not None:
        card = next(it, None)
        if card is None:
            given = len(dealt)
            if slot is CardSlot.PLAYER_3:
                raise NotEnoughCards("shoe.player_draws_short", given=given)
            if slot is CardSlot.BANKER_3:
                raise NotEnoughCards("shoe.banker_draws_short", given=given)
            raise NotEnoughCards("shoe.round_needs_four", given=given)
        dealt.append(card)
    return _result(dealt)


def _result(dealt: Sequence[Card]) -> RoundResult:
    """The :class:`RoundResult` of a complete hand ``dealt`` in dealing order (BAC-11, BAC-13)."""
    values = _VALUES
    p1, b1, p2, b2 = dealt[0], dealt[1], dealt[2], dealt[3]
    pt = (values[p1.index] + values[p2.index]) % 10
    bt = (values[b1.index] + values[b2.index]) % 10
    natural = pt >= 8 or bt >= 8  # BAC-9.2
    player: tuple[Card, ...] = (p1, p2)
    banker: tuple[Card, ...] = (b1, b2)
    n = len(dealt)
    if n > 4 and pt <= 5:  # the player drew: the fifth card is P3 (BAC-9.1)
        player = (p1, p2, dealt[4])
        pt = (pt + values[dealt[4].index]) % 10
    if n == 6 or (n == 5 and len(player) == 2):  # the last card is B3 (BAC-9.3)
        banker = (b1, b2, dealt[-1])
        bt = (bt + values[dealt[-1].index]) % 10
    winner = Side.PLAYER if pt > bt else (Side.BANKER if bt > pt else Side.TIE)  # BAC-11
    return RoundResult(
        player,
        banker,
        pt,
        bt,
        winner,
        natural,
        p1.rank == p2.rank,  # BAC-13
        b1.rank == b2.rank,
        len(dealt),
    )
