"""Commands of a baccarat round: what the dealer's console, a player or a supervisor asks for.

A command is a plain value; :meth:`~.round.BaccaratRound.apply` turns it into events or refuses
it with a :class:`~macau_tables.errors.RuleViolation` naming the rule. Field values are checked
when the command is applied (a command may arrive from an API with anything in it): an
unreadable card is refused with BAC-1, a bad enum value with the rule of its field.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum
from typing import ClassVar

from ..cards import Card
from ..jackpot import Meter
from ..rng import CardLeaf
from ..rounds import EVERY_MODE, LIVE_ONLY, CycleStep, Dealer, Issuer, TableMode
from ..voids import Evidence, Ground
from .bets import Area
from .rules import TieOption, WagerKind
from .sides import Side
from .tableau import CardSlot

__all__ = [
    "COMMAND_TYPES",
    "ChangeCarried",
    "CloseBetting",
    "Command",
    "Correct",
    "CorrectionAction",
    "DealCard",
    "PlaceWager",
    "Reveal",
    "RevealPart",
    "RevealStep",
    "RevealTimeout",
    "Settle",
    "Void",
    "WithdrawWager",
]


class RevealPart(StrEnum):
    """BAC-16.2: a side's first two cards, then its drawn card separately."""

    FIRST_TWO = "first_two"
    THIRD = "third"


@dataclass(frozen=True, slots=True)
class RevealStep:
    """One reveal of the card holding procedure (BAC-16): ``side``'s ``part``."""

    side: Side
    part: RevealPart

    def __str__(self) -> str:
        """``"player's first two cards"``, ``"banker's third card"`` (dealer-readable)."""
        part = "first two cards" if self.part is RevealPart.FIRST_TWO else "third card"
        return f"{self.side.value}'s {part}"

    @property
    def slots(self) -> tuple[CardSlot, ...]:
        """The card slots this step turns (BAC-16.2)."""
        if self.side is Side.PLAYER:
            if self.part is RevealPart.FIRST_TWO:
                return (CardSlot.PLAYER_1, CardSlot.PLAYER_2)
            return (CardSlot.PLAYER_3,)
        if self.part is RevealPart.FIRST_TWO:
            return (CardSlot.BANKER_1, CardSlot.BANKER_2)
        return (CardSlot.BANKER_3,)


class CorrectionAction(StrEnum):
    """BAC-10: what a supervisor does about a card wrongly dealt (live mode)."""

    REASSIGN = "reassign"
    """The refused card goes to the slot that is due."""
    WITHDRAW = "withdraw"
    """The refused card is removed (out of the shoe when it can be one of its cards)."""
    MISTYPED = "mistyped"
    """The last card entered is not the card on the table (the dealer reports a typing error):
    its entry is struck and the card is entered again. Only before the card is revealed, when it
    was not exposed (BAC-4) and did not complete the hand."""


@dataclass(frozen=True, slots=True)
class PlaceWager:
    """``player`` places ``amount`` on ``kind`` in betting ``area`` (BAC-13 … BAC-15)."""

    ISSUER: ClassVar[Issuer] = Issuer.PLAYER
    ACTOR_FIELD: ClassVar[str | None] = "player"
    MODES: ClassVar[frozenset[TableMode]] = EVERY_MODE

    player: str
    area: Area
    kind: WagerKind
    amount: int


@dataclass(frozen=True, slots=True)
class WithdrawWager:
    """``player`` takes back their wager ``wager_id`` before betting closes (e.g. the one the
    BAC-14 difference refuses at the close). A carried wager is changed with
    :class:`ChangeCarried` instead."""

    ISSUER: ClassVar[Issuer] = Issuer.PLAYER
    ACTOR_FIELD: ClassVar[str | None] = "player"
    MODES: ClassVar[frozenset[TableMode]] = EVERY_MODE

    wager_id: int
    player: str


@dataclass(frozen=True, slots=True)
class ChangeCarried:
    """BAC-12: the owner of a carried wager withdraws it, leaves it, reduces it to ``amount``
    or switches it to the other side (``amount`` optional, a reduction when given). One choice
    per carried wager: a second is refused."""

    ISSUER: ClassVar[Issuer] = Issuer.PLAYER
    ACTOR_FIELD: ClassVar[str | None] = "player"
    MODES: ClassVar[frozenset[TableMode]] = EVERY_MODE

    wager_id: int
    player: str
    option: TieOption
    amount: int | None = None


@dataclass(frozen=True, slots=True)
class CloseBetting:
    """No more bets (the first card also closes betting). Refused (BAC-14) while the banker and
    player totals differ by more than the table allows."""

    ISSUER: ClassVar[Issuer] = Issuer.DEALER
    ACTOR_FIELD: ClassVar[str | None] = None
    MODES: ClassVar[frozenset[TableMode]] = EVERY_MODE
    CYCLE: ClassVar[CycleStep] = CycleStep.CLOSE


@dataclass(frozen=True, slots=True)
class DealCard:
    """A card leaves the shoe. ``slot`` (optional) says where the dealer put it; ``exposed``:
    it came out face up in error (BAC-4: it stays valid, and is recorded). ``leaf``: the card's
    place in the committed virtual shoe (the table service's only; a client's is refused)."""

    ISSUER: ClassVar[Issuer] = Issuer.DEALER
    ACTOR_FIELD: ClassVar[str | None] = None
    MODES: ClassVar[frozenset[TableMode]] = LIVE_ONLY

    card: Card | str
    slot: CardSlot | None = None
    exposed: bool = False
    leaf: CardLeaf | None = None


@dataclass(frozen=True, slots=True)
class Reveal:
    """BAC-16: ``by`` (the card holder's id, or :data:`~macau_tables.rounds.DEALER`) turns
    ``side``'s cards."""

    ISSUER: ClassVar[Issuer] = Issuer.PLAYER
    ACTOR_FIELD: ClassVar[str | None] = "by"
    MODES: ClassVar[frozenset[TableMode]] = EVERY_MODE

    side: Side
    part: RevealPart
    by: str | Dealer


@dataclass(frozen=True, slots=True)
class RevealTimeout:
    """BAC-16: the holder's time (the table's ``holding_timeout_seconds``, measured by the
    table service: the rules never read a clock) ran out; from then on only the dealer reveals
    that step."""

    ISSUER: ClassVar[Issuer] = Issuer.SERVICE
    ACTOR_FIELD: ClassVar[str | None] = None
    MODES: ClassVar[frozenset[TableMode]] = EVERY_MODE

    side: Side
    part: RevealPart


@dataclass(frozen=True, slots=True)
class Correct:
    """BAC-10 (live mode): supervisor ``supervisor`` corrects a dealing error, saying
    ``reason``."""

    ISSUER: ClassVar[Issuer] = Issuer.SUPERVISOR
    ACTOR_FIELD: ClassVar[str | None] = "supervisor"
    MODES: ClassVar[frozenset[TableMode]] = LIVE_ONLY

    supervisor: str
    reason: str
    action: CorrectionAction


@dataclass(frozen=True, slots=True)
class Void:
    """BAC-10: supervisor ``supervisor`` voids the round (every wager in play returned) on a
    legal ``ground`` (:class:`~macau_tables.voids.Ground`: a dealing error that cannot be
    corrected; a virtual shoe lost mid-deal is the system's, ``supervisor`` ``None``), shown by
    the event ``evidence`` of the round's log (``None``: the table service finds it — the
    fault that held the round, the recovery that found the shoe lost)."""

    ISSUER: ClassVar[Issuer] = Issuer.SUPERVISOR
    ACTOR_FIELD: ClassVar[str | None] = "supervisor"
    MODES: ClassVar[frozenset[TableMode]] = EVERY_MODE
    VOIDS: ClassVar[bool] = True
    GROUNDS: ClassVar[frozenset[Ground]] = frozenset({Ground.UNCORRECTABLE})
    """The grounds a supervisor may give (a lost shoe is the system's own)."""

    supervisor: str | None
    reason: str
    ground: Ground | None = None
    evidence: Evidence | None = None


@dataclass(frozen=True, slots=True)
class Settle:
    """Settle the complete round; ``meter``: this table's jackpot meter as it stands before this
    round's contributions (required when the round has jackpot wagers, BAC-17)."""

    ISSUER: ClassVar[Issuer] = Issuer.SERVICE
    ACTOR_FIELD: ClassVar[str | None] = None
    MODES: ClassVar[frozenset[TableMode]] = EVERY_MODE

    meter: Meter | None = None


Command = (
    PlaceWager
    | WithdrawWager
    | ChangeCarried
    | CloseBetting
    | DealCard
    | Reveal
    | RevealTimeout
    | Correct
    | Void
    | Settle
)

COMMAND_TYPES: tuple[type, ...] = (
    PlaceWager,
    WithdrawWager,
    ChangeCarried,
    CloseBetting,
    DealCard,
    Reveal,
    RevealTimeout,
    Correct,
    Void,
    Settle,
)
"""Every command of a baccarat round."""
