"""The commands of the baccarat shoe procedure (BAC-2, BAC-3, BAC-7.2, BAC-8).

Plain frozen values: :func:`macau_tables.baccarat.shoe.apply` checks them (an unreadable card
or a bad enum value is refused there with a rule id, never a ``TypeError``) and turns them into
the events of :mod:`.shoe_events`. Every name here is re-exported by :mod:`.shoe`.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum
from typing import ClassVar

from ..cards import Card
from ..rng import ShoeCommitment
from ..rounds import EVERY_MODE, LIVE_ONLY, Issuer, TableMode

__all__ = [
    "Burn",
    "ChangeShoe",
    "ConfirmCutCardOut",
    "Cut",
    "CutCardOut",
    "Cutter",
    "EndRound",
    "ShoeCommand",
    "StartRound",
]


class Cutter(StrEnum):
    """Who cut the shoe (BAC-2.1)."""

    PLAYER = "player"
    DEALER = "dealer"


@dataclass(frozen=True, slots=True)
class Cut:
    """BAC-2.1: ``cutter`` (``cutter_id``: the player's or dealer's id) cuts at ``position``
    (1 .. size-1 cards moved from the top to the bottom) and the cut card is placed with
    ``cut_card_behind`` cards behind it (``None``: the table's setting)."""

    ISSUER: ClassVar[Issuer] = Issuer.DEALER
    ACTOR_FIELD: ClassVar[str | None] = None
    MODES: ClassVar[frozenset[TableMode]] = LIVE_ONLY

    cutter: Cutter
    cutter_id: str
    position: int
    cut_card_behind: int | None = None


@dataclass(frozen=True, slots=True)
class Burn:
    """Burn ``cards`` (BAC-2.1 at the start of the shoe; BAC-8 before a round). ``None`` is a
    face-down card not identified (live mode)."""

    ISSUER: ClassVar[Issuer] = Issuer.DEALER
    ACTOR_FIELD: ClassVar[str | None] = None
    MODES: ClassVar[frozenset[TableMode]] = LIVE_ONLY

    cards: tuple[Card | None, ...]


@dataclass(frozen=True, slots=True)
class StartRound:
    """A round begins; ``demo`` for a demonstration round (BAC-2.2, no wagers). With the
    automatic machine in virtual mode, ``commitment`` is that round's shuffle of the full set
    (BAC-7.2)."""

    ISSUER: ClassVar[Issuer] = Issuer.SERVICE
    ACTOR_FIELD: ClassVar[str | None] = None
    MODES: ClassVar[frozenset[TableMode]] = EVERY_MODE

    round_id: str
    demo: bool = False
    commitment: ShoeCommitment | None = None


@dataclass(frozen=True, slots=True)
class EndRound:
    """The round ended having taken ``cards`` from the shoe (dealt, in order) and
    ``discarded`` (drawn but withdrawn by a supervisor, BAC-10; ``None``: not identified)."""

    ISSUER: ClassVar[Issuer] = Issuer.SERVICE
    ACTOR_FIELD: ClassVar[str | None] = None
    MODES: ClassVar[frozenset[TableMode]] = EVERY_MODE

    cards: tuple[Card, ...]
    discarded: tuple[Card | None, ...] = ()


@dataclass(frozen=True, slots=True)
class CutCardOut:
    """Live console: the cut card came out of the shoe (BAC-3.1). Taken at once when it is
    within one round's cards (:data:`~macau_tables.baccarat.shoe.CUT_CARD_TOLERANCE`) of where
    the count puts the cut card; farther away it is refused, and only a supervisor's
    :class:`ConfirmCutCardOut` ends the shoe there."""

    ISSUER: ClassVar[Issuer] = Issuer.DEALER
    ACTOR_FIELD: ClassVar[str | None] = None
    MODES: ClassVar[frozenset[TableMode]] = LIVE_ONLY


@dataclass(frozen=True, slots=True)
class ConfirmCutCardOut:
    """BAC-3.1, live shoe: supervisor ``supervisor`` confirms that the cut card came out now,
    wherever the count puts it (a cut card placed or read wrongly), saying ``reason``. The
    dealer's :class:`CutCardOut` farther than one round's cards from the count is refused and
    names this command."""

    ISSUER: ClassVar[Issuer] = Issuer.SUPERVISOR
    ACTOR_FIELD: ClassVar[str | None] = "supervisor"
    MODES: ClassVar[frozenset[TableMode]] = LIVE_ONLY

    supervisor: str
    reason: str


@dataclass(frozen=True, slots=True)
class ChangeShoe:
    """BAC-3.2: the house changes the shoe (between rounds); ``damaged``: damaged cards, so
    a new set of decks is needed (BAC-3.1)."""

    ISSUER: ClassVar[Issuer] = Issuer.SUPERVISOR
    ACTOR_FIELD: ClassVar[str | None] = None
    MODES: ClassVar[frozenset[TableMode]] = EVERY_MODE

    reason: str
    damaged: bool = False


ShoeCommand = Cut | Burn | StartRound | EndRound | CutCardOut | ConfirmCutCardOut | ChangeShoe
