"""Baccarat's part of the demonstration casino (``macau-tables casino init``,
:mod:`macau_tables.tables.casino`): its rules, its meter and its tables.

``bac-1`` an 8-deck table with a virtual (CSPRNG) shoe and ``bac-live`` a live table (cards from
its dealer console), both on configuration ``bac-8d-v1``, and ``bac-squeeze`` a virtual table
with card holding on (BAC-16: the player with the largest wager on a side squeezes its cards),
on configuration ``bac-8d-squeeze-v1``; the three share the meter ``m-baccarat``.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Final

from ..plugin import Demonstration, DemoTableSpec
from ..tables.casino import SEED, UNIT, approved
from .rules import BaccaratRules, BurnRule, ShoeSettings, WagerKind, default_limits

__all__ = ["MAX_DIFFERENCE", "SQUEEZE_TABLE", "demo_rules", "demonstration", "squeeze_rules"]

SQUEEZE_TABLE: Final = "bac-squeeze"
"""The demonstration table with card holding on (BAC-16): the squeeze out of the box."""

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


def squeeze_rules() -> BaccaratRules:
    """:func:`demo_rules` with card holding on (BAC-16.1: the house decides; BAC-16.2: the
    seated player with the largest wager on a side holds its cards, the dealer turns them when
    the holder's ``holding_timeout_seconds`` run out). Card holding is not an option of BAC-19
    (docs/rules.md): the configuration's approval records are its other options', approved as
    :func:`demo_rules` approves them (``DEMO-ONLY``)."""
    result: BaccaratRules = approved(replace(demo_rules(), card_holding=True, approvals=()))
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
            DemoTableSpec(
                SQUEEZE_TABLE,
                "Baccarat squeeze (card holding)",
                False,
                "bac-8d-squeeze-v1",
                squeeze_rules(),
            ),
        ),
    )
