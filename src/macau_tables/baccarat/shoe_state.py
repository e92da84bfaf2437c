"""The state of a baccarat shoe between commands (BAC-1 … BAC-3, BAC-7.2, BAC-8).

:class:`ShoeState` is a value changed only by the events of :mod:`.shoe_events` (see
:func:`macau_tables.baccarat.shoe.apply` and :func:`~macau_tables.baccarat.shoe.replay`).
Every name here is re-exported by :mod:`.shoe`.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from enum import StrEnum

from ..cards import Card
from .rules import ShoeSettings
from .shoe_commands import Burn, Cut, EndRound, ShoeCommand, StartRound
from .shoe_events import ShoeCut, ShoeFinished

__all__ = ["ShoePhase", "ShoeState", "count_seen"]


class ShoePhase(StrEnum):
    """Where the shoe procedure stands."""

    AWAITING_CUT = "awaiting_cut"
    AWAITING_BURN = "awaiting_burn"
    READY = "ready"  # between rounds
    IN_ROUND = "in_round"
    FINISHED = "finished"


@dataclass(frozen=True, slots=True)
class ShoeState:
    """A shoe between commands. Immutable; see the module docstring.

    * ``out``: cards out of the shoe so far (burned, dealt, discarded; the next card's position);
    * ``seen``: copies seen of each face, by :attr:`Card.index` (52 counts);
    * ``rounds``: rounds started (demonstration rounds included), ``demo_rounds`` of them demos;
    * ``cut_card_at``: the position at which the cut card comes out (``None`` before the cut
      and with the machine); ``last_round``: the number of the shoe's last round once known.
    """

    shoe_id: str
    settings: ShoeSettings
    live: bool
    commitment: str | None
    phase: ShoePhase
    out: int = 0
    seen: tuple[int, ...] = (0,) * 52
    cut: ShoeCut | None = None
    cut_card_at: int | None = None
    rounds: int = 0
    demo_rounds: int = 0
    current_round: str | None = None
    last_round: int | None = None
    finished: ShoeFinished | None = None

    @property
    def size(self) -> int:
        """Cards in a full shoe (``decks × 52``)."""
        return self.settings.cards

    @property
    def remaining(self) -> int:
        """Cards still in the shoe."""
        return self.size - self.out

    def available(self) -> tuple[int, ...]:
        """For each face (by :attr:`Card.index`), how many copies may still come out of the
        shoe: ``decks - seen`` (BAC-1). A round refuses a card whose count is 0."""
        decks = self.settings.decks
        return tuple(decks - n for n in self.seen)

    @property
    def cut_card_out(self) -> bool:
        """True once the cut card has come out (BAC-3.1)."""
        return self.last_round is not None

    def expected(self) -> type[ShoeCommand] | None:
        """The command the procedure waits for (``Cut``, ``Burn``, ``StartRound``/``EndRound``),
        or ``None`` when the shoe is finished."""
        return {
            ShoePhase.AWAITING_CUT: Cut,
            ShoePhase.AWAITING_BURN: Burn,
            ShoePhase.READY: StartRound,
            ShoePhase.IN_ROUND: EndRound,
            ShoePhase.FINISHED: None,
        }[self.phase]


def count_seen(seen: tuple[int, ...], cards: Iterable[Card | None]) -> tuple[int, ...]:
    """``seen`` with one more copy counted for each identified card of ``cards``."""
    counts = list(seen)
    for c in cards:
        if c is not None:
            counts[c.index] += 1
    return tuple(counts)
