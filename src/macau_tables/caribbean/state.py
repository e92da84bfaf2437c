"""The state values of a Caribbean Stud round: its phase, its boxes and the dealing order.

Positions are the boxes 1..7 from the dealer's left (CSP-2) and the shared
:data:`~macau_tables.rounds.DEALER`.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from enum import StrEnum
from typing import Final

from ..cards import Card
from ..rounds import DEALER, Dealer
from .rules import DealingProcedure

__all__ = [
    "HAND_SIZE",
    "BoxState",
    "Phase",
    "Position",
    "deal_order",
]

HAND_SIZE: Final = 5
"""CSP-7: five cards to each box with a bet and to the dealer."""

Position = int | Dealer
"""Where a card goes: a box number (1..7) or :data:`~macau_tables.rounds.DEALER`."""


class Phase(StrEnum):
    """Where a round is in its lifecycle."""

    BETTING = "betting"
    DEALING = "dealing"
    DECIDING = "deciding"
    SETTLED = "settled"
    VOID = "void"


def deal_order(procedure: DealingProcedure, boxes: Iterable[int]) -> tuple[int | Dealer, ...]:
    """The recipient of every card, in order, for the boxes with a bet (CSP-7).

    SHOE (CSP-7.1): one card at a time to each box from box 1 upward, the dealer last, five
    times. SHUFFLER (CSP-7.2): five cards at a time to each box from box 1, the dealer last.

    >>> deal_order(DealingProcedure.SHOE, [3, 1])[:4]
    (1, 3, <Dealer.DEALER: 'dealer'>, 1)
    """
    seats: tuple[int | Dealer, ...] = (*sorted(boxes), DEALER)
    if procedure is DealingProcedure.SHOE:
        return tuple(seat for _ in range(HAND_SIZE) for seat in seats)
    return tuple(seat for seat in seats for _ in range(HAND_SIZE))


@dataclass(frozen=True, slots=True)
class BoxState:
    """One box in the round: its player, wagers, cards and decision.

    ``ante == 0`` means the box only holds a jackpot wager carried over (not in play yet);
    ``jackpot_carried``: the jackpot wager came from an earlier, void round (CSP-11.1).
    """

    box: int
    player: str
    ante: int = 0
    jackpot: int = 0
    jackpot_carried: bool = False
    cards: tuple[Card, ...] = ()
    decided: bool = False
    raise_amount: int = 0
    timed_out: bool = False

    @property
    def in_play(self) -> bool:
        """The box has an ante this round (CSP-6.2) and so receives cards (CSP-7)."""
        return self.ante > 0

    @property
    def raised(self) -> bool:
        """The player raised (CSP-6.5); False before the decision and after a fold."""
        return self.raise_amount > 0

    @property
    def spot(self) -> str:
        """Where the box's wagers lie, as :class:`~macau_tables.rounds.WagerResult` names it."""
        return spot(self.box)


def spot(box: int) -> str:
    """The ``spot`` of ``box``'s wagers in a :class:`~macau_tables.rounds.WagerResult`:
    ``"box 3"``."""
    return f"box {box}"
