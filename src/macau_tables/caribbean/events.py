"""Events of a Caribbean Stud round: immutable facts, the round's only source of truth.

A round's state is a fold over its events (:meth:`CaribbeanRound.replay`), so recovery,
recall and verification all rebuild the identical state from the log.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date
from typing import ClassVar

from ..cards import Card
from ..rng import CardLeaf
from ..rounds import Dealer
from ..voids import Ground, VoidBasis
from .rules import CaribbeanRules
from .settlement import CarriedWager, Settlement

__all__ = [
    "AntePlaced",
    "BettingClosed",
    "CardDealt",
    "CardExposed",
    "CarriedWagerReturned",
    "DeadHandDealt",
    "DecisionMade",
    "Event",
    "FaultReported",
    "JackpotWagerPlaced",
    "ReportRejected",
    "RoundOpened",
    "RoundSettled",
    "RoundVoided",
]


@dataclass(frozen=True, slots=True)
class RoundOpened:
    """The round opened on ``opening_date`` under ``rules`` after the CSP-13 approval check
    (``approval_references`` relied on), with jackpot wagers ``carried`` over from a void round
    (CSP-11.1). The rules travel in the log (in memory) so that the log alone rebuilds the
    round; stored, they are referred to by ``config_id`` and their hash (:mod:`macau_tables.codec`).
    """

    round_id: str
    rules: CaribbeanRules
    config_id: str
    opening_date: date
    approval_references: tuple[str, ...]
    carried: tuple[CarriedWager, ...]


@dataclass(frozen=True, slots=True)
class AntePlaced:
    """CSP-6.2: an ante was accepted."""

    box: int
    player: str
    amount: int


@dataclass(frozen=True, slots=True)
class JackpotWagerPlaced:
    """CSP-6.3 / CSP-10.1: a jackpot wager was accepted."""

    box: int
    player: str
    amount: int


@dataclass(frozen=True, slots=True)
class BettingClosed:
    """Betting closed; ``deal_order`` lists the recipient of every card (a box, or
    :data:`~macau_tables.rounds.DEALER`), fixed by the table's procedure (CSP-7.1 / CSP-7.2);
    ``shoe_commitment`` the virtual shoe's published commitment (hex), if any."""

    deal_order: tuple[int | Dealer, ...]
    shoe_commitment: str | None = None


@dataclass(frozen=True, slots=True)
class CardDealt:
    """A card went to ``to`` (a box or :data:`~macau_tables.rounds.DEALER`), face up or down
    (CSP-7, CSP-11.2). ``leaf``: where the card sits in the committed virtual deck (its
    position and salt, Common rules "Randomness"; version 2 of this event), ``None`` for a
    live table's card or one recorded before cards were committed one by one (version 1)."""

    __codec_version__: ClassVar[int] = 2

    card: Card
    to: int | Dealer
    face_up: bool
    leaf: CardLeaf | None = None

    @classmethod
    def __codec_migrate__(cls, fields: dict[str, object], version: int) -> dict[str, object]:
        """Version 1 (before cards were committed one by one) had no leaf: read as ``None``."""
        return fields


@dataclass(frozen=True, slots=True)
class CardExposed:
    """CSP-11.2: one card exposed in error; the round stands. ``position``: a box or
    :data:`~macau_tables.rounds.DEALER`. One exposure is no ground for a void: the second is
    recorded with a :class:`FaultReported` (CSP-11.1), the void's evidence."""

    card: Card
    position: int | Dealer


@dataclass(frozen=True, slots=True)
class DeadHandDealt:
    """CSP-11.3: cards dealt to a box without a bet; the hand is dead."""

    box: int
    cards: tuple[Card, ...]


@dataclass(frozen=True, slots=True)
class DecisionMade:
    """CSP-6.4..6.7: ``box`` raised (``raise_amount`` > 0) or folded (``raise_amount`` 0);
    ``timed_out`` when the decision timer folded it (CSP-6.4)."""

    box: int
    player: str
    raise_amount: int
    timed_out: bool = False


@dataclass(frozen=True, slots=True)
class CarriedWagerReturned:
    """CSP-11.1 (documented interpretation): the jackpot wager carried over to ``box`` was
    handed back to its ``player``, who left the table before this round; ``supervisor``
    authorised it for ``reason``. The box is free again."""

    box: int
    player: str
    amount: int
    supervisor: str
    reason: str


@dataclass(frozen=True, slots=True)
class RoundSettled:
    """CSP-9 / CSP-10: the showdown happened; ``settlement`` is the money result."""

    settlement: Settlement


@dataclass(frozen=True, slots=True)
class FaultReported:
    """CSP-11.1 / CSP-11.4: the dealer reported ``ground`` (a misdeal, a second exposure, a
    shuffler's failure) for ``reason``. ``holds``: a player had seen a card of the round, so the
    round waits for a supervisor (a ``Void`` on the ground, or :class:`ReportRejected`); when
    ``False`` the round was void at once (a void follows) or goes on (a shuffler failing after
    the last card). The evidence of the void that follows (``SHOWS``)."""

    ground: Ground
    reason: str
    holds: bool

    @property
    def SHOWS(self) -> frozenset[Ground]:
        """The ground the report shows (:func:`macau_tables.voids.shows`)."""
        return frozenset({self.ground})


@dataclass(frozen=True, slots=True)
class ReportRejected:
    """CSP-11.1 / CSP-11.4: supervisor ``supervisor`` rejected the report holding the round,
    for ``reason``: the round goes on."""

    supervisor: str
    reason: str


@dataclass(frozen=True, slots=True)
class RoundVoided:
    """CSP-11.1 / CSP-11.4: the round is void (``rule`` says why); wagers returned, jackpot
    wagers carried over (``settlement``). From version 2, ``ground`` records the legal ground,
    who decided and the evidence in the log (:class:`~macau_tables.voids.VoidBasis`); a
    version-1 void has none (it is read with ``ground=None``)."""

    __codec_version__: ClassVar[int] = 2
    VOID_GROUND_SINCE: ClassVar[int] = 2

    rule: str
    reason: str
    settlement: Settlement
    ground: VoidBasis | None = None

    @classmethod
    def __codec_migrate__(cls, fields: dict[str, object], version: int) -> dict[str, object]:
        """Version 1 had no ground: read as ``ground=None`` (verified and counted apart)."""
        return fields


Event = (
    RoundOpened
    | AntePlaced
    | JackpotWagerPlaced
    | CarriedWagerReturned
    | BettingClosed
    | CardDealt
    | CardExposed
    | DeadHandDealt
    | DecisionMade
    | FaultReported
    | ReportRejected
    | RoundSettled
    | RoundVoided
)
"""Any event of a Caribbean Stud round."""
