"""Baccarat's part of the demonstration casino (``macau-tables casino init``,
:mod:`macau_tables.tables.casino`): its rules, its meter and its tables.

``bac-1`` an 8-deck table with a virtual (CSPRNG) shoe and ``bac-live`` a live table (cards from
its dealer console), both on configuration ``bac-8d-v1`` and sharing the meter ``m-baccarat``.
"""

from __future__ import annotations

from typing import Final

from ..plugin import Demonstration, DemoTableSpec
from ..tables.casino import SEED, UNIT, approved
from .rules import BaccaratRules, BurnRule, ShoeSettings, WagerKind, default_limits

__all__ = ["MAX_DIFFERENCE", "demo_rules", "demonstration"]

MAX_DIFFERENCE: Final = 500_000
"""The baccarat tables' banker/player difference limit, 5,000.00 (BAC-14): betting does not
close while the round's banker and player totals differ by more."""


def demo_rules() -> BaccaratRules:
    """An 8-deck baccarat table burning one card per deck (BAC-2.1), one demonstration round
    per shoe, unit 10.00, every wager with the default limits, a banker/player difference limit
    of 5,000.00 (BAC-14), the jackpot wager of one unit (BAC-17), card holding off; every
    option approved (``DEMO-ONLY``)."""
    rules = BaccaratRules(
        shoe=ShoeSettings(decks=8, burn_rule=BurnRule.DECKS, demo_rounds=1),
        bet_unit=UNIT,
        limits=default_limits(UNIT, tuple(WagerKind)),
        max_difference=MAX_DIFFERENCE,
        jackpot_wager=UNIT,
        jackpot_seed=SEED,
    )
    result: BaccaratRules = approved(rules)
    return result


def demonstration() -> Demonstration:
    """The rules, meter and tables baccarat contributes to the demonstration casino."""
    rules = demo_rules()
    return Demonstration(
        rules,
        "m-baccarat",
        {"contribution": str(rules.jackpot_contribution), "wager": rules.jackpot_wager},
        (
            DemoTableSpec("bac-1", "Baccarat 1 (virtual shoe)", False, "bac-8d-v1"),
            DemoTableSpec("bac-live", "Baccarat live", True, "bac-8d-v1"),
        ),
    )
