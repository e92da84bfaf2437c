"""Helpers shared by the tests of tests/baccarat (no tests here; test files import them from this
module, never from one another)."""

from __future__ import annotations

from dataclasses import replace
from datetime import date

from macau_tables.approvals import Approval
from macau_tables.baccarat.round import BaccaratRound
from macau_tables.baccarat.rules import (
    ALL_WAGERS,
    BaccaratRules,
    TieOption,
    default_limits,
)

DAY = date(2026, 12, 2)


def approved(rules: BaccaratRules) -> BaccaratRules:
    """``rules`` with a timely approval for every option it uses."""
    records = tuple(
        Approval(req.option, req.value, f"DICJ-{i}", date(2026, 11, 2), date(2026, 11, 5))
        for i, req in enumerate(rules.options_requiring_approval())
    )
    return replace(rules, approvals=records)


SEATED = {1: "alice", 2: "bob", 3: "carol"}

STANDARD = approved(
    BaccaratRules(
        limits=default_limits(100, ALL_WAGERS),
        max_difference=30_000,
        tie_options=frozenset(TieOption),
        jackpot_seed=1_000,
    )
)


RULES = approved(
    BaccaratRules(
        limits=default_limits(100, ALL_WAGERS),
        max_difference=20_000,
        tie_options=frozenset(TieOption),
    )
)


def open_round(rules: BaccaratRules = RULES, **kw: object) -> BaccaratRound:
    return BaccaratRound.new(rules, "r1", DAY, seated=SEATED, **kw)  # type: ignore[arg-type]
