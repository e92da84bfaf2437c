"""Baccarat (百家樂), 2004 regulation with its amendments (SPEC BAC-1 … BAC-19).

The pure rules: :mod:`.tableau` (values, third-card rules, :func:`deal_round`), :mod:`.shoe`
(the shoe procedure), :mod:`.bets` (wagers and payouts), :mod:`.jackpot_combos` (the jackpot),
:mod:`.rules` (the table's settings and approvals) and :mod:`.round` (the round state machine).
"""

from .round import BaccaratRound, CardSlot
from .rules import BaccaratRules, ShoeSettings, WagerKind
from .sides import Side
from .tableau import (
    RoundResult,
    banker_draws,
    card_value,
    deal_round,
    hand_total,
    is_natural,
    player_draws,
)

__all__ = [
    "BaccaratRound",
    "BaccaratRules",
    "CardSlot",
    "RoundResult",
    "ShoeSettings",
    "Side",
    "WagerKind",
    "banker_draws",
    "card_value",
    "deal_round",
    "hand_total",
    "is_natural",
    "player_draws",
]
