"""The events of the baccarat shoe procedure (BAC-2, BAC-3, BAC-7.2, BAC-8).

What :func:`macau_tables.baccarat.shoe.apply` decided, as storable values (every field is a
concrete type the codec can write); :func:`macau_tables.baccarat.shoe.replay` folds them back
into the shoe's state. Every name here is re-exported by :mod:`.shoe`.
"""

from __future__ import annotations

from dataclasses import dataclass

from ..cards import Card
from .rules import ShoeSettings
from .shoe_commands import Cutter

__all__ = [
    "CardsBurned",
    "CutCardCameOut",
    "CutCardConfirmed",
    "RoundEnded",
    "RoundStarted",
    "ShoeCut",
    "ShoeEvent",
    "ShoeFinished",
    "ShoeOpened",
]


@dataclass(frozen=True, slots=True)
class ShoeOpened:
    """A shoe opened with ``settings``; ``commitment`` (virtual mode) is the published digest."""

    shoe_id: str
    settings: ShoeSettings
    live: bool
    commitment: str | None
    approval_references: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class ShoeCut:
    """BAC-2.1: who cut, where, and how many cards are behind the cut card."""

    cutter: Cutter
    cutter_id: str
    position: int
    cut_card_behind: int


@dataclass(frozen=True, slots=True)
class CardsBurned:
    """Cards burned (``start_of_shoe``: BAC-2.1; otherwise a per-round burn, BAC-8)."""

    cards: tuple[Card | None, ...]
    start_of_shoe: bool


@dataclass(frozen=True, slots=True)
class RoundStarted:
    """Round ``number`` (1-based, demonstration rounds included) began."""

    round_id: str
    number: int
    demo: bool
    commitment: str | None = None


@dataclass(frozen=True, slots=True)
class RoundEnded:
    """The round took ``cards`` and ``discarded`` from the shoe."""

    round_id: str
    cards: tuple[Card, ...]
    discarded: tuple[Card | None, ...]


@dataclass(frozen=True, slots=True)
class CutCardCameOut:
    """BAC-3.1: the cut card came out; round ``last_round`` is the shoe's last."""

    in_round: int
    last_round: int


@dataclass(frozen=True, slots=True)
class CutCardConfirmed:
    """BAC-3.1, live shoe: supervisor ``supervisor`` confirmed (``reason``) the cut card out
    after ``out`` cards had left the shoe where the count puts it after ``counted`` cards
    (more than one round's cards away); the :class:`CutCardCameOut` follows it."""

    supervisor: str
    reason: str
    out: int
    counted: int


@dataclass(frozen=True, slots=True)
class ShoeFinished:
    """The shoe is over (``reason``); ``damaged`` asks for a new set of decks (BAC-3.1)."""

    reason: str
    damaged: bool


ShoeEvent = (
    ShoeOpened
    | ShoeCut
    | CardsBurned
    | RoundStarted
    | RoundEnded
    | CutCardConfirmed
    | CutCardCameOut
    | ShoeFinished
)
