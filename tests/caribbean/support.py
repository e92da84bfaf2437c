"""Builders shared by the Caribbean Stud round tests (no tests here)."""

from __future__ import annotations

from collections.abc import Mapping
from datetime import date
from fractions import Fraction
from typing import Any

from macau_tables.approvals import Approval
from macau_tables.cards import Card, parse_cards
from macau_tables.caribbean.commands import (
    CloseBetting,
    DealCard,
    Fold,
    PlaceAnte,
    PlaceJackpotWager,
    Raise,
)
from macau_tables.caribbean.round import CaribbeanRound
from macau_tables.caribbean.rules import CaribbeanRules, DealingProcedure, JackpotFixedAwards
from macau_tables.jackpot import Meter
from macau_tables.rounds import DEALER, Dealer

OPENING = date(2026, 12, 10)  # a Thursday
UNIT = 100
SEED = 1_000_000
FIXED = JackpotFixedAwards(
    royal_flush=5_000_000,
    straight_flush=500_000,
    four_of_a_kind=50_000,
    full_house=15_000,
    flush=10_000,
)


def approval_for(odds: int) -> Approval:
    """A valid approval (applied Tue 1 Dec, effective Mon 7 Dec 2026) for ``odds``."""
    return Approval(
        "royal_flush_odds", odds, f"DICJ/CSP/{odds}", date(2026, 12, 1), date(2026, 12, 7)
    )


def make_rules(**overrides: Any) -> CaribbeanRules:
    """A valid table (approval included for the chosen royal-flush odds)."""
    odds = overrides.get("royal_flush_odds", 100)
    settings: dict[str, Any] = {
        "bet_unit": UNIT,
        "ante_minimum": UNIT,
        "ante_maximum": 100 * UNIT,
        "jackpot_wager": UNIT,
        "royal_flush_odds": odds,
        "max_payout_per_box": 100_000_000,
        "jackpot_fixed_awards": FIXED,
        "jackpot_contribution": Fraction(7, 10),
        "jackpot_seed": SEED,
        "dealing_procedure": DealingProcedure.SHUFFLER,
        "decision_timeout_seconds": 30,
        "approvals": (approval_for(odds),),
    }
    settings.update(overrides)
    return CaribbeanRules(**settings)


def new_round(rules: CaribbeanRules | None = None, **kwargs: Any) -> CaribbeanRound:
    return CaribbeanRound.new(rules or make_rules(), "r1", OPENING, **kwargs)


def player(box: int) -> str:
    return f"p{box}"


def bet(
    r: CaribbeanRound, antes: Mapping[int, int], jackpots: tuple[int, ...] = ()
) -> CaribbeanRound:
    """Place antes (box → amount) and jackpot wagers, then close betting."""
    for box, amount in antes.items():
        r, _ = r.apply(PlaceAnte(box, player(box), amount))
    for box in jackpots:
        r, _ = r.apply(PlaceJackpotWager(box, player(box)))
    r, _ = r.apply(CloseBetting())
    return r


def cards_for(r: CaribbeanRound, hands: Mapping[int | Dealer, str]) -> list[Card]:
    """The card sequence that gives each position (box, DEALER) its hand under the round's
    dealing order (works for both procedures)."""
    queues = {pos: parse_cards(text) for pos, text in hands.items()}
    return [queues[pos].pop(0) for pos in r.deal_order]


def deal(r: CaribbeanRound, hands: Mapping[int | Dealer, str]) -> CaribbeanRound:
    for card in cards_for(r, hands):
        r, _ = r.apply(DealCard(card))
    return r


def play(
    hands: Mapping[int, str],
    dealer: str,
    *,
    antes: Mapping[int, int] | None = None,
    jackpots: tuple[int, ...] = (),
    folds: tuple[int, ...] = (),
    rules: CaribbeanRules | None = None,
    meter: Meter | None = None,
) -> CaribbeanRound:
    """A complete round: bets, the deal giving ``hands`` and ``dealer``, decisions (raise unless
    in ``folds``), showdown against ``meter`` (default: the seed)."""
    from macau_tables.caribbean.commands import Showdown

    rules = rules or make_rules()
    antes = antes or dict.fromkeys(hands, UNIT)
    r = bet(new_round(rules), antes, jackpots)
    r = deal(r, {**hands, DEALER: dealer})
    for box in sorted(hands):
        if box in folds:
            r, _ = r.apply(Fold(box, player(box)))
        else:
            r, _ = r.apply(Raise(box, player(box), 2 * antes[box]))
    r, _ = r.apply(Showdown(meter or rules.new_meter()))
    return r
