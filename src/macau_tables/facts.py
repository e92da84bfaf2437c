"""A settled round's *settlement facts*: its money per betting position and wager kind.

What the per-position report (``macau-tables report --by-position``) shows, computed once, when
the round settles, by the game's plug-in (:attr:`macau_tables.plugin.GamePlugin.facts`, from the
event that settled the round and its :class:`~macau_tables.rounds.WagerResult` lines — the rules'
own figures) and recorded in the table's hash-chained log after that event, in the same
transaction (:class:`SettlementFacts`, the codec's ``tables.SettlementFacts``; after the awards
it held, if any), so that the report reads
them instead of replaying every round; ``verify`` derives them again from the settlement and
finds any that differ (:mod:`macau_tables.tables.facts`).

One :class:`FactLine` per ``(spot, kind)`` that had a wager, sorted by spot and kind; every
amount an ``int`` in minor units:

* ``wagers`` settled; ``staked`` (their stakes), ``dropped`` (the stakes taken from wallets in
  this round: a stake carried in from an earlier round was dropped then);
* ``paid`` to the players (stakes back, wins, awards), ``commission`` (BAC-18),
  ``contributions`` to the linked meter (CSP-10, BAC-17), ``carried`` (stakes kept for the
  next round);
* ``award_from_meter`` / ``award_from_house`` — the jackpot awards in ``paid`` and who funded
  them (CSP-10.8, BAC-17.5); ``house`` — the table bank's net (+ it won, − it paid).

No card is in a fact (CSP-12, BAC-16): only the money of a round that is over.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from .rounds import WagerResult

__all__ = ["FactLine", "SettlementFacts", "settlement_facts"]


@dataclass(frozen=True, slots=True)
class FactLine:
    """One position's and wager kind's money in a settled round (see the module docstring)."""

    spot: str
    kind: str
    wagers: int
    staked: int
    dropped: int
    paid: int
    commission: int
    contributions: int
    carried: int
    award_from_meter: int
    award_from_house: int
    house: int

    @property
    def awards(self) -> int:
        """The jackpot awards paid (whoever funded them)."""
        return self.award_from_meter + self.award_from_house

    @property
    def win(self) -> int:
        """The house's result: the table bank's net and the commission, less the awards the
        house funded (a meter award is the players' money, not a loss)."""
        return self.house + self.commission - self.award_from_house


@dataclass(frozen=True, slots=True)
class SettlementFacts:
    """A settled round's facts (recorded in its table's log after its settlement)."""

    lines: tuple[FactLine, ...]


def _spot_order(spot: str) -> tuple[str, int, str]:
    word, _, number = spot.rpartition(" ")
    return (word, int(number), spot) if number.isdigit() else (spot, 0, spot)


def settlement_facts(results: Iterable[WagerResult]) -> SettlementFacts:
    """The facts of a settlement's wager lines (each game's plug-in calls it with its own).

    >>> from macau_tables.rounds import Outcome
    >>> w = WagerResult("ann", "box 2", "ante", 100, Outcome.WON, paid=200, house=-100)
    >>> [(x.spot, x.kind, x.wagers, x.dropped, x.paid, x.win) for x in settlement_facts([w]).lines]
    [('box 2', 'ante', 1, 100, 200, -100)]
    """
    sums: dict[tuple[str, str], list[int]] = {}
    for w in results:
        f = sums.setdefault((w.spot, str(w.kind)), [0] * 10)
        f[0] += 1
        f[1] += w.stake
        f[2] += 0 if w.carried_in else w.stake
        f[3] += w.paid
        f[4] += w.commission
        f[5] += w.meter
        f[6] += w.carried
        f[7] += w.award_from_meter
        f[8] += w.award_from_house
        f[9] += w.house
    keys = sorted(sums, key=lambda k: (_spot_order(k[0]), k[1]))
    return SettlementFacts(tuple(FactLine(spot, kind, *sums[spot, kind]) for spot, kind in keys))
