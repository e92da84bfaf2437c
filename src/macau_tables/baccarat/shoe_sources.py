"""Where a shoe's cards come from (virtual mode), kept apart from the shoe procedure.

A :class:`CardSource` says which card is at a position of the shoe in play: a committed CSPRNG
shuffle (:func:`shuffle_shoe`, :class:`VirtualOrder`) or a recorded sequence
(:class:`SequenceSource`). Live mode needs no source: the console enters the physical cards.
Every name here is re-exported by :mod:`.shoe`.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Protocol

from ..cards import Card, new_shoe
from ..rng import RandomSource, ShoeCommitment, ShoeReveal, commit_shoe, shuffle
from .rules import ShoeSettings

__all__ = ["CardSource", "SequenceSource", "VirtualOrder", "shuffle_shoe"]


class CardSource(Protocol):
    """Where cards come from: ``card_at(position)`` is the card at ``position`` (0-based, cards
    already out of the shoe counted) of the shoe in play. Live mode needs no source: the console
    enters the physical cards as :class:`~.round.DealCard` commands."""

    def card_at(self, position: int) -> Card:
        """The card at ``position``; ``IndexError`` past the end."""
        ...


@dataclass(frozen=True, slots=True)
class SequenceSource:
    """A recorded sequence (replay, tests, analysis): ``card_at(i) == cards[i]``."""

    cards: tuple[Card, ...]

    def card_at(self, position: int) -> Card:
        """The recorded card at ``position``."""
        return self.cards[position]


@dataclass(frozen=True, slots=True)
class VirtualOrder:
    """A shuffled, committed shoe (virtual mode). ``cut`` rotates it (see module docstring).

    ``commitment`` is published at once; ``reveal`` only when the shoe is finished. The order
    and the salt are hidden information: they are left out of ``repr`` (logs, error messages).
    ``production`` tells whether the shuffle came from the CSPRNG, so a live table can refuse a
    seeded shoe with :func:`~macau_tables.rng.require_production`.
    """

    order: tuple[Card, ...] = field(repr=False)
    commitment: ShoeCommitment
    reveal: ShoeReveal = field(repr=False)
    cut: int = 0
    production: bool = False

    def card_at(self, position: int) -> Card:
        """The card dealt at ``position`` after the cut."""
        if not 0 <= position < len(self.order):
            raise IndexError(f"the shoe has {len(self.order)} cards, no position {position}")
        return self.order[(self.cut + position) % len(self.order)]

    def after_cut(self, position: int) -> VirtualOrder:
        """The same committed order, cut at ``position``."""
        return replace(self, cut=position)


def shuffle_shoe(settings: ShoeSettings, source: RandomSource) -> VirtualOrder:
    """Shuffle ``settings.decks`` decks with ``source`` (unbiased Fisher-Yates) and commit to
    the order (BAC-2.1; Common rules "Randomness"). A live table passes the CSPRNG
    (:class:`~macau_tables.rng.SystemRandom`; see :func:`~macau_tables.rng.require_production`).
    """
    order = tuple(shuffle(new_shoe(settings.decks), source))
    commitment, reveal = commit_shoe(order, source)
    production = bool(getattr(source, "production", False))
    return VirtualOrder(order, commitment, reveal, production=production)
