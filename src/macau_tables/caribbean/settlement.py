"""Settlement of a Caribbean Stud round: who won what, who pays, and the money check.

A :class:`Settlement` is a value carried by the round's final event (showdown or void). It lists
every wager (ante, raise, jackpot) of every box with its outcome and the amount paid back to the
player, the jackpot awards in payment order with the meter movements, and the three money totals
— players, house, meter — which always sum to zero.

Money conventions (all ``int`` minor units):

* ``stake``: the amount wagered; ``paid``: what the player receives back at settlement (stake
  included). ``WON`` ante: ``2 × stake``; ``RETURNED``: ``stake``; ``LOST``: 0.
* A jackpot wager that is settled (``WON`` or ``LOST``) is split into its meter contribution and
  the house share (:func:`macau_tables.jackpot.split_contribution`); a ``WON`` jackpot wager's
  ``paid`` is the jackpot award (the wager itself is not returned).
* ``CARRIED_OVER`` (CSP-11.1, CSP-11.4): the jackpot wager is not settled in this round; it
  moves, still the player's stake, to the next round, so its net for this round is 0.
* ``players_net + house_net + meter_net == 0`` (house funds fixed awards, top-ups and the seed).
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum

from ..cards import Card
from ..jackpot import JackpotResult
from .hands import HandCategory

__all__ = [
    "BoxOutcome",
    "BoxResult",
    "CarriedWager",
    "Outcome",
    "Settlement",
    "WagerKind",
    "WagerResult",
]


class WagerKind(StrEnum):
    """CSP-5: the three wagers of a box."""

    ANTE = "ante"
    RAISE = "raise"
    JACKPOT = "jackpot"


class Outcome(StrEnum):
    """How a wager was settled."""

    WON = "won"
    LOST = "lost"
    RETURNED = "returned"
    CARRIED_OVER = "carried_over"


class BoxOutcome(StrEnum):
    """How a box's hand ended (for display and audit)."""

    FOLDED = "folded"
    """CSP-6.7: no raise; ante and jackpot wager lost."""
    TIMED_OUT = "timed_out"
    """CSP-6.4: the decision timer ran out; folded."""
    DEALER_NOT_QUALIFIED = "dealer_not_qualified"
    """CSP-9.2: ante wins 1:1, raise returned."""
    WON = "won"
    """CSP-9.5: player's hand higher."""
    LOST = "lost"
    """CSP-9.4: dealer's hand higher."""
    TIED = "tied"
    """Equal hands: impossible from one deck under Macau ranking (CSP-8); ante and raise
    returned if it ever happened."""
    VOID = "void"
    """CSP-11.1 / CSP-11.4: the round was void."""


@dataclass(frozen=True, slots=True)
class CarriedWager:
    """A jackpot wager carried over to the next round (CSP-11.1): box, player and stake."""

    box: int
    player: str
    amount: int


@dataclass(frozen=True, slots=True)
class WagerResult:
    """One wager's settlement. ``to_meter``/``to_house`` split a settled jackpot wager's stake."""

    box: int
    player: str
    kind: WagerKind
    stake: int
    outcome: Outcome
    paid: int
    to_meter: int = 0
    to_house: int = 0

    @property
    def net(self) -> int:
        """The player's gain (negative: loss) from this wager in this round."""
        if self.outcome is Outcome.CARRIED_OVER:
            return 0
        return self.paid - self.stake


@dataclass(frozen=True, slots=True)
class BoxResult:
    """A box's hand at showdown: its cards, category and how it ended."""

    box: int
    player: str
    cards: tuple[Card, ...]
    category: HandCategory | None
    outcome: BoxOutcome


@dataclass(frozen=True, slots=True)
class Settlement:
    """The money result of one round (see the module docstring for conventions).

    ``voided`` rounds have no dealer evaluation and no jackpot; every ante/raise is returned and
    every jackpot wager carried over. ``meter_contribution`` is what the round's settled jackpot
    wagers credited to the meter, before the awards were resolved (``jackpot.meter_before``
    includes it).
    """

    voided: bool
    dealer_cards: tuple[Card, ...]
    dealer_category: HandCategory | None
    dealer_qualifies: bool | None
    boxes: tuple[BoxResult, ...]
    wagers: tuple[WagerResult, ...]
    meter_contribution: int
    jackpot: JackpotResult | None
    carried_over: tuple[CarriedWager, ...]

    @property
    def players_net(self) -> int:
        """Sum of every player's gain (negative: the players lost money overall)."""
        return sum(w.net for w in self.wagers)

    @property
    def meter_net(self) -> int:
        """The meter's change: contributions − paid out of the meter + seed funding."""
        if self.jackpot is None:
            return self.meter_contribution
        return self.meter_contribution - self.jackpot.meter_paid + self.jackpot.seed_funding

    @property
    def house_net(self) -> int:
        """The house's gain, computed from its own movements: lost antes/raises − ante/raise
        wins + house share of jackpot wagers − house-paid awards − seed funding."""
        table = sum(
            w.stake - w.paid
            for w in self.wagers
            if w.kind is not WagerKind.JACKPOT and w.outcome is not Outcome.CARRIED_OVER
        )
        jackpot_share = sum(w.to_house for w in self.wagers if w.kind is WagerKind.JACKPOT)
        funded = 0 if self.jackpot is None else self.jackpot.house_paid + self.jackpot.seed_funding
        return table + jackpot_share - funded

    def net_by_player(self) -> dict[str, int]:
        """Each player's gain (negative: loss) in this round, for posting to their accounts."""
        totals: dict[str, int] = {}
        for w in self.wagers:
            totals[w.player] = totals.get(w.player, 0) + w.net
        return totals

    def for_box(self, box: int) -> tuple[WagerResult, ...]:
        """The wager results of ``box``."""
        return tuple(w for w in self.wagers if w.box == box)

    def wager(self, box: int, kind: WagerKind) -> WagerResult | None:
        """The result of ``box``'s wager of ``kind``, or ``None`` if it had none."""
        for w in self.wagers:
            if w.box == box and w.kind is kind:
                return w
        return None
