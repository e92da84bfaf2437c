"""Caribbean Stud's part of the demonstration casino (``macau-tables casino init``,
:mod:`macau_tables.tables.casino`): its rules, its meter and its table.

``csp-1`` a table with a virtual (CSPRNG) deck, on configuration ``csp-v1`` and the meter
``m-caribbean``.
"""

from __future__ import annotations

from fractions import Fraction

from ..plugin import Demonstration, DemoTableSpec
from ..tables.casino import SEED, UNIT, approved
from .rules import CaribbeanRules, DealingProcedure, JackpotFixedAwards

__all__ = ["demo_rules", "demonstration"]


def demo_rules() -> CaribbeanRules:
    """A Caribbean Stud table: ante 10.00 to 1,000.00, royal flush 100 to 1, the jackpot
    wager 10.00 with 70 % to the meter (CSP-10), a shuffler deck, 30 s to decide (CSP-6.4);
    every option approved (``DEMO-ONLY``)."""
    rules = CaribbeanRules(
        bet_unit=UNIT,
        ante_minimum=UNIT,
        ante_maximum=100 * UNIT,
        jackpot_wager=UNIT,
        royal_flush_odds=100,
        max_payout_per_box=100_000_000,
        jackpot_fixed_awards=JackpotFixedAwards(5_000_000, 500_000, 50_000, 15_000, 10_000),
        jackpot_contribution=Fraction(7, 10),
        jackpot_seed=SEED,
        dealing_procedure=DealingProcedure.SHUFFLER,
        decision_timeout_seconds=30,
    )
    result: CaribbeanRules = approved(rules)
    return result


def demonstration() -> Demonstration:
    """The rules, meter and table Caribbean Stud contributes to the demonstration casino."""
    rules = demo_rules()
    return Demonstration(
        rules,
        "m-caribbean",
        {"contribution": str(rules.jackpot_contribution), "wager": rules.jackpot_wager},
        (DemoTableSpec("csp-1", "Caribbean Stud 1 (virtual deck)", False, "csp-v1"),),
    )
