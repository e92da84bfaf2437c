"""Events of a baccarat round: immutable facts, the round's only source of truth.

A round's state is a fold over its events (:meth:`~.round.BaccaratRound.replay`), so recovery,
recall and verification all rebuild the identical state from the log. :func:`postings` says
what money an event moves, as balanced ledger postings (:mod:`macau_tables.ledger`).
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date
from enum import StrEnum
from typing import ClassVar

from .. import messages
from ..cards import Card
from ..errors import ParseError
from ..ledger import Posting, carried_back, stake
from ..rng import CardLeaf
from ..rounds import Dealer
from ..voids import Ground, VoidBasis
from .bets import Wager
from .commands import CorrectionAction, RevealStep
from .rules import BaccaratRules, TieOption
from .settlement import RoundSettlement, returned
from .tableau import CardSlot, RoundResult

__all__ = [
    "EVENT_TYPES",
    "BettingClosed",
    "CardCorrected",
    "CardDealt",
    "CardRefused",
    "CardsRevealed",
    "CarriedChanged",
    "Event",
    "RevealTimedOut",
    "RoundOpened",
    "RoundPhase",
    "RoundSettled",
    "RoundVoided",
    "WagerPlaced",
    "WagerWithdrawn",
    "postings",
]

Param = bool | int | str | None


class RoundPhase(StrEnum):
    """Where a baccarat round stands."""

    BETTING = "betting"
    DEALING = "dealing"
    COMPLETE = "complete"
    """Every card dealt (and revealed): waiting for the settlement."""
    SETTLED = "settled"
    VOID = "void"


@dataclass(frozen=True, slots=True)
class RoundOpened:
    """The round opened (after the BAC-19 approval check: ``approval_references``) under
    ``rules``, the table configuration ``config_id``. ``available`` / ``cards_left``: what the
    shoe still holds (BAC-1); ``carried``: wagers carried from a tie (BAC-12) — in a
    demonstration round (BAC-2.2) they wait untouched for the first round with wagers."""

    round_id: str
    rules: BaccaratRules
    config_id: str
    live: bool
    demo: bool
    seated: tuple[tuple[int, str], ...]
    available: tuple[int, ...]
    cards_left: int
    carried: tuple[Wager, ...]
    opening_date: date
    approval_references: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class WagerPlaced:
    """A wager was accepted (BAC-13 … BAC-15, BAC-18)."""

    wager: Wager


@dataclass(frozen=True, slots=True)
class WagerWithdrawn:
    """Before betting closed, ``wager`` was taken back by its player (handed back whole)."""

    wager: Wager


@dataclass(frozen=True, slots=True)
class CarriedChanged:
    """BAC-12: ``player``'s carried wager ``wager_id`` was withdrawn (``new`` None), left,
    reduced or switched; ``returned`` is the amount handed back (0 when none)."""

    wager_id: int
    player: str
    option: TieOption
    new: Wager | None
    returned: int = 0


@dataclass(frozen=True, slots=True)
class BettingClosed:
    """Betting closed; ``returned``: carried wagers handed back because the table does not
    allow leaving them (BAC-12)."""

    returned: tuple[Wager, ...] = ()


@dataclass(frozen=True, slots=True)
class CardDealt:
    """A card was accepted into ``slot``; ``exposed``: face up in error, still valid (BAC-4).
    ``leaf``: where the card sits in the committed virtual shoe (its position and salt, Common
    rules "Randomness"; version 2 of this event), ``None`` for a live shoe's card or one
    recorded before cards were committed one by one (version 1)."""

    __codec_version__: ClassVar[int] = 2

    slot: CardSlot
    card: Card
    exposed: bool = False
    leaf: CardLeaf | None = None

    @classmethod
    def __codec_migrate__(cls, fields: dict[str, object], version: int) -> dict[str, object]:
        """Version 1 (before cards were committed one by one) had no leaf: read as ``None``."""
        return fields


@dataclass(frozen=True, slots=True)
class CardRefused:
    """Live mode (BAC-10): a card not due (BAC-7, BAC-9, BAC-16) or not possible in this shoe
    (BAC-1) was refused and flagged for the supervisor: ``rule``, and the refusal's message
    ``key`` and ``params``. ``possible``: it can be a card of this shoe (so, if withdrawn, it is
    out of the shoe)."""

    SHOWS: ClassVar[frozenset[Ground]] = frozenset({Ground.UNCORRECTABLE})
    """Evidence of a BAC-10 void when the supervisor finds the error cannot be corrected."""

    card: Card
    slot: CardSlot | None
    rule: str
    key: str
    params: tuple[tuple[str, Param], ...]
    possible: bool
    exposed: bool = False

    @property
    def message(self) -> str:
        """The refusal in English."""
        return messages.render(self.key, dict(self.params))

    def text(self, language: str = messages.DEFAULT_LANGUAGE) -> str:
        """The refusal in ``language`` (one of ``messages.LANGUAGES``)."""
        return messages.render(self.key, dict(self.params), language)


@dataclass(frozen=True, slots=True)
class CardCorrected:
    """BAC-10: a supervisor reassigned the refused card to ``slot``, withdrew it, or struck the
    mistyped last entry ``card`` (from ``slot``). ``discarded``: the card left the shoe."""

    supervisor: str
    reason: str
    action: CorrectionAction
    card: Card
    slot: CardSlot | None
    discarded: bool


@dataclass(frozen=True, slots=True)
class CardsRevealed:
    """BAC-16: ``by`` (the holder, or the dealer) revealed ``step``."""

    step: RevealStep
    by: str | Dealer


@dataclass(frozen=True, slots=True)
class RevealTimedOut:
    """BAC-16: the holder's time for ``step`` ran out; the dealer reveals it."""

    step: RevealStep


@dataclass(frozen=True, slots=True)
class RoundSettled:
    """The round was settled on ``result`` (BAC-11, BAC-12, BAC-17, BAC-18)."""

    result: RoundResult
    settlement: RoundSettlement


@dataclass(frozen=True, slots=True)
class RoundVoided:
    """BAC-10: the round is void; every wager in play is returned (``settlement``). From
    version 2, ``ground`` records the legal ground, who decided and the evidence in the log
    (:class:`~macau_tables.voids.VoidBasis`; ``supervisor`` is then ``""`` for a ground the
    system proves); a version-1 void has none (read with ``ground=None``)."""

    __codec_version__: ClassVar[int] = 2
    VOID_GROUND_SINCE: ClassVar[int] = 2

    supervisor: str
    reason: str
    settlement: RoundSettlement
    ground: VoidBasis | None = None

    @classmethod
    def __codec_migrate__(cls, fields: dict[str, object], version: int) -> dict[str, object]:
        """Version 1 had no ground: read as ``ground=None`` (verified and counted apart)."""
        return fields


Event = (
    RoundOpened
    | WagerPlaced
    | WagerWithdrawn
    | CarriedChanged
    | BettingClosed
    | CardDealt
    | CardRefused
    | CardCorrected
    | CardsRevealed
    | RevealTimedOut
    | RoundSettled
    | RoundVoided
)

EVENT_TYPES: tuple[type, ...] = (
    RoundOpened,
    WagerPlaced,
    WagerWithdrawn,
    CarriedChanged,
    BettingClosed,
    CardDealt,
    CardRefused,
    CardCorrected,
    CardsRevealed,
    RevealTimedOut,
    RoundSettled,
    RoundVoided,
)
"""Every event of a baccarat round."""


def postings(event: object) -> tuple[Posting, ...]:
    """The balanced ledger postings ``event`` moves (``()`` for one that moves no money).
    Refuses (``ParseError``) anything that is not a baccarat round event (an event of another
    game would otherwise move no money without a word). Built only from the
    :mod:`macau_tables.ledger` builders:

    * :class:`WagerPlaced` → ``stake`` (wallet → in play);
    * :class:`WagerWithdrawn` → ``settlement`` of the wager returned (in play → wallet);
    * :class:`CarriedChanged` with a part handed back, and :class:`BettingClosed` handing back
      carried wagers → ``carried_back`` (carried → wallet);
    * :class:`RoundSettled` / :class:`RoundVoided` → ``settlement`` of its lines (and the
      meter's seed funding).
    """
    if isinstance(event, WagerPlaced):
        return stake(event.wager.player, event.wager.amount)
    if isinstance(event, WagerWithdrawn):
        return RoundSettlement((returned(event.wager),), (event.wager.wager_id,)).postings()
    if isinstance(event, CarriedChanged):
        return carried_back(event.player, event.returned) if event.returned else ()
    if isinstance(event, BettingClosed):
        return tuple(p for w in event.returned for p in carried_back(w.player, w.amount))
    if isinstance(event, RoundSettled | RoundVoided):
        return event.settlement.postings()
    if isinstance(event, EVENT_TYPES):
        return ()
    raise ParseError("baccarat.not_an_event", event=_shown(event))


def _shown(value: object) -> str:
    try:
        text = repr(value)
    except Exception:
        text = f"<{type(value).__name__}>"
    return text if len(text) <= 80 else text[:79] + "…"
