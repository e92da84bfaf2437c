"""Commands a Caribbean Stud round accepts (frozen values; see :mod:`.round`).

A command is a request: the round validates it against the law (CSP-6, CSP-7, CSP-11) and either
refuses it with a :class:`~macau_tables.errors.RuleViolation` (nothing changes) or turns it into
events (:mod:`.events`). Boxes are numbered 1..7 from the dealer's left (CSP-2); ``player`` is
an opaque, non-empty player id.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from ..cards import Card
from ..jackpot import Meter
from ..rng import CardLeaf, ShoeCommitment
from ..rounds import EVERY_MODE, LIVE_ONLY, CycleStep, Dealer, Issuer, TableMode
from ..voids import Evidence, Ground

__all__ = [
    "CloseBetting",
    "Command",
    "DealCard",
    "DealtToEmptyBox",
    "DecisionTimeout",
    "Fold",
    "PlaceAnte",
    "PlaceJackpotWager",
    "Raise",
    "RejectReport",
    "ReportExposedCard",
    "ReportMisdeal",
    "ReturnCarriedWager",
    "Showdown",
    "ShufflerFailure",
    "Void",
]


@dataclass(frozen=True, slots=True)
class PlaceAnte:
    """CSP-6.1/6.2: ``player`` places an ante of ``amount`` on ``box``."""

    ISSUER: ClassVar[Issuer] = Issuer.PLAYER
    ACTOR_FIELD: ClassVar[str | None] = "player"
    MODES: ClassVar[frozenset[TableMode]] = EVERY_MODE

    box: int
    player: str
    amount: int


@dataclass(frozen=True, slots=True)
class PlaceJackpotWager:
    """CSP-6.3/10.1: ``player`` adds the jackpot wager on ``box``.

    ``amount`` defaults to the table's fixed amount; any other amount given is refused.
    """

    ISSUER: ClassVar[Issuer] = Issuer.PLAYER
    ACTOR_FIELD: ClassVar[str | None] = "player"
    MODES: ClassVar[frozenset[TableMode]] = EVERY_MODE

    box: int
    player: str
    amount: int | None = None


@dataclass(frozen=True, slots=True)
class ReturnCarriedWager:
    """CSP-11.1 (documented interpretation): hand back the jackpot wager carried over to
    ``box`` because its player left the table before this round.

    Accepted only while betting is open, for a carried wager whose box has no ante this round,
    with the authorising ``supervisor``'s id and a ``reason`` (both non-empty). The stake goes
    back to the player's wallet (``ledger.carried_back``) and the box is free again.
    """

    ISSUER: ClassVar[Issuer] = Issuer.SUPERVISOR
    ACTOR_FIELD: ClassVar[str | None] = "supervisor"
    MODES: ClassVar[frozenset[TableMode]] = EVERY_MODE

    box: int
    supervisor: str
    reason: str


@dataclass(frozen=True, slots=True)
class CloseBetting:
    """No more bets; the dealing order of CSP-7 is fixed from the boxes with an ante.

    ``shoe_commitment``: with a virtual shoe, its commitment — the table's card-by-card Merkle
    root (``"merkle-v2:<64 hex>"``, :mod:`macau_tables.merkle`) or a whole-shoe SHA-256 digest
    (64 lowercase hex digits; a :class:`~macau_tables.rng.ShoeCommitment`, e.g.
    ``VirtualShoe.commitment``) — recorded in the round's log (as the digest) before the first card
    (Common rules "Randomness"); ``None`` for a physical shoe or shuffler.
    """

    ISSUER: ClassVar[Issuer] = Issuer.DEALER
    ACTOR_FIELD: ClassVar[str | None] = None
    MODES: ClassVar[frozenset[TableMode]] = EVERY_MODE
    CYCLE: ClassVar[CycleStep] = CycleStep.CLOSE

    shoe_commitment: ShoeCommitment | str | None = None


@dataclass(frozen=True, slots=True)
class DealCard:
    """One card leaves the shoe/shuffler (virtual shoe, dealer console, replay).

    The round knows who is due (CSP-7). ``to`` (a box, or :data:`~macau_tables.rounds.DEALER`)
    is optional: a live console may state where the card went, and a card to anyone else is
    refused. ``leaf``: the card's place in the committed virtual deck (the table service's
    only; a client's is refused).
    """

    ISSUER: ClassVar[Issuer] = Issuer.DEALER
    ACTOR_FIELD: ClassVar[str | None] = None
    MODES: ClassVar[frozenset[TableMode]] = LIVE_ONLY

    card: Card | str
    to: int | Dealer | None = None
    leaf: CardLeaf | None = None


@dataclass(frozen=True, slots=True)
class Raise:
    """CSP-6.5/6.6: the box's player raises; ``amount`` must be exactly 2 × ante."""

    ISSUER: ClassVar[Issuer] = Issuer.PLAYER
    ACTOR_FIELD: ClassVar[str | None] = "player"
    MODES: ClassVar[frozenset[TableMode]] = EVERY_MODE

    box: int
    player: str
    amount: int


@dataclass(frozen=True, slots=True)
class Fold:
    """CSP-6.7: the box's player does not raise."""

    ISSUER: ClassVar[Issuer] = Issuer.PLAYER
    ACTOR_FIELD: ClassVar[str | None] = "player"
    MODES: ClassVar[frozenset[TableMode]] = EVERY_MODE

    box: int
    player: str


@dataclass(frozen=True, slots=True)
class DecisionTimeout:
    """CSP-6.4: the decision timer of ``box`` ran out; the absent player's hand is folded."""

    ISSUER: ClassVar[Issuer] = Issuer.SERVICE
    ACTOR_FIELD: ClassVar[str | None] = None
    MODES: ClassVar[frozenset[TableMode]] = EVERY_MODE

    box: int


@dataclass(frozen=True, slots=True)
class Showdown:
    """CSP-6.8, CSP-9, CSP-10: reveal, settle and resolve the jackpot.

    ``meter`` is the jackpot meter as it stands now (the meter may be linked across tables, so
    it is an input, read by the table service in the same transaction that posts the result).
    """

    ISSUER: ClassVar[Issuer] = Issuer.SERVICE
    ACTOR_FIELD: ClassVar[str | None] = None
    MODES: ClassVar[frozenset[TableMode]] = EVERY_MODE

    meter: Meter


@dataclass(frozen=True, slots=True)
class ReportExposedCard:
    """CSP-11.1/11.2: a dealt card was exposed in error (one: the round stands; two: void).

    Accepted from the first card until the showdown (after the last card it is handled as an
    exposure while dealing); a dealer card so exposed stays face up for every player."""

    ISSUER: ClassVar[Issuer] = Issuer.DEALER
    ACTOR_FIELD: ClassVar[str | None] = None
    MODES: ClassVar[frozenset[TableMode]] = LIVE_ONLY

    card: Card | str


@dataclass(frozen=True, slots=True)
class ReportMisdeal:
    """CSP-11.1: a wrong dealing procedure or a wrong number of cards (``ground``). The round is
    void at once while no player has seen a card of it; after that it is held until a
    supervisor confirms the ground (``Void``) or rejects the report (:class:`RejectReport`)."""

    ISSUER: ClassVar[Issuer] = Issuer.DEALER
    ACTOR_FIELD: ClassVar[str | None] = None
    MODES: ClassVar[frozenset[TableMode]] = LIVE_ONLY

    reason: str
    ground: Ground = Ground.WRONG_PROCEDURE


@dataclass(frozen=True, slots=True)
class DealtToEmptyBox:
    """CSP-11.3: ``cards`` were dealt to ``box``, which has no bet: a dead hand, round goes on."""

    ISSUER: ClassVar[Issuer] = Issuer.DEALER
    ACTOR_FIELD: ClassVar[str | None] = None
    MODES: ClassVar[frozenset[TableMode]] = LIVE_ONLY

    box: int
    cards: tuple[Card | str, ...]


@dataclass(frozen=True, slots=True)
class ShufflerFailure:
    """CSP-11.4: the shuffling machine failed. During the deal the round is void at once while
    no player has seen a card of it, else held for a supervisor's decision; after the last card
    the round goes on. Either way the table deals no further round until the shuffler is
    recorded replaced or the table deals from a shoe (CSP-11.4, second sentence)."""

    ISSUER: ClassVar[Issuer] = Issuer.DEALER
    ACTOR_FIELD: ClassVar[str | None] = None
    MODES: ClassVar[frozenset[TableMode]] = LIVE_ONLY

    reason: str = "shuffling machine failure"


@dataclass(frozen=True, slots=True)
class RejectReport:
    """CSP-11.1 / CSP-11.4: supervisor ``supervisor`` rejects the dealer's report that holds the
    round (a misdeal, a second exposure, a shuffler's failure), for ``reason``: the round goes
    on from where it stood."""

    ISSUER: ClassVar[Issuer] = Issuer.SUPERVISOR
    ACTOR_FIELD: ClassVar[str | None] = "supervisor"
    MODES: ClassVar[frozenset[TableMode]] = LIVE_ONLY

    supervisor: str
    reason: str


@dataclass(frozen=True, slots=True)
class Void:
    """CSP-11.1 / CSP-11.4: supervisor ``supervisor`` voids the round on a legal ``ground``
    (:class:`~macau_tables.voids.Ground`: a wrong procedure, a wrong number of cards, two or
    more exposures, a shuffler's failure during the deal; a lost deck is the system's, with no
    supervisor), shown by the event ``evidence`` of the round's log (``None``: the table service
    finds it — the report, exposure or fault that held the round)."""

    ISSUER: ClassVar[Issuer] = Issuer.SUPERVISOR
    ACTOR_FIELD: ClassVar[str | None] = "supervisor"
    MODES: ClassVar[frozenset[TableMode]] = EVERY_MODE
    VOIDS: ClassVar[bool] = True
    GROUNDS: ClassVar[frozenset[Ground]] = frozenset(
        {Ground.WRONG_PROCEDURE, Ground.WRONG_CARD_COUNT, Ground.EXPOSURES, Ground.SHUFFLER_FAILURE}
    )
    """The grounds a supervisor may give (a lost deck is the system's own)."""

    reason: str
    ground: Ground | None = None
    supervisor: str | None = None
    evidence: Evidence | None = None


Command = (
    PlaceAnte
    | PlaceJackpotWager
    | ReturnCarriedWager
    | CloseBetting
    | DealCard
    | Raise
    | Fold
    | DecisionTimeout
    | Showdown
    | ReportExposedCard
    | ReportMisdeal
    | DealtToEmptyBox
    | ShufflerFailure
    | RejectReport
    | Void
)
"""Any command a :class:`~macau_tables.caribbean.round.CaribbeanRound` accepts."""
