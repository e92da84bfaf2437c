"""The hand shuffle and cut of CSP-3(1) at a live Caribbean Stud table.

CSP-3 gives two ways to prepare the deck, a table setting (:class:`.rules.DealingProcedure`):
(1) the dealer shuffles by hand, cuts with the cut card, puts the cut card at the bottom and
loads the deck into the shoe; (2) a shuffling machine shuffles, with no cut. At a live table
whose procedure is the shoe, the dealer records (1) for each round with :class:`ShuffleAndCut`
before the round's first card, and the table refuses a card until it is recorded (CSP-3). A
virtual table shuffles its deck with the secure generator and has no physical cut (its
``MODES``: live only); a table with the shuffling machine has no cut to record.

The command is the table's, not the round's: the dealing adapter of the table service takes it
and records :class:`DeckShuffledAndCut` in the round's records (who, for which round).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar, Final

from ..rounds import LIVE_ONLY, Issuer, TableMode

__all__ = ["PROCEDURE_TYPES", "DeckShuffledAndCut", "ShuffleAndCut"]


@dataclass(frozen=True, slots=True)
class ShuffleAndCut:
    """CSP-3(1): the dealer shuffled the deck by hand, cut it with the cut card, put the cut
    card at the bottom and loaded the deck into the shoe — before the round's first card, at a
    live table whose dealing procedure is the shoe."""

    ISSUER: ClassVar[Issuer] = Issuer.DEALER
    ACTOR_FIELD: ClassVar[str | None] = None
    MODES: ClassVar[frozenset[TableMode]] = LIVE_ONLY


@dataclass(frozen=True, slots=True)
class DeckShuffledAndCut:
    """Recorded: ``by`` (who sent :class:`ShuffleAndCut` from the console) shuffled the deck
    by hand and cut it for round ``round_id`` (CSP-3(1))."""

    round_id: str
    by: str


PROCEDURE_TYPES: Final[tuple[type, ...]] = (ShuffleAndCut, DeckShuffledAndCut)
"""The storable types of this module (in the game's ``CODEC_TYPES``)."""
