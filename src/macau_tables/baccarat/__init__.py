"""Baccarat (百家樂), 2004 regulation with its amendments (docs/rules.md, BAC-1 … BAC-19).

The pure rules: :mod:`.tableau` (values, third-card rules, :func:`deal_round`), :mod:`.shoe`
(the shoe procedure), :mod:`.bets` (wagers, limits, card holding), :mod:`.settlement`
(settling wagers and rounds), :mod:`.jackpot_combos` (the jackpot), :mod:`.rules` (the table's
settings and approvals) and the round: :mod:`.commands`, :mod:`.events`, :mod:`.decisions`,
:mod:`.view` and :mod:`.round` (the state machine, :class:`BaccaratRound`).
"""

from .bets import Area, Wager, seat, standing
from .commands import (
    COMMAND_TYPES,
    ChangeCarried,
    CloseBetting,
    Command,
    Correct,
    CorrectionAction,
    DealCard,
    PlaceWager,
    Reveal,
    RevealPart,
    RevealStep,
    RevealTimeout,
    Settle,
    Void,
    WithdrawWager,
)
from .events import EVENT_TYPES, Event, RoundPhase
from .round import BaccaratRound
from .rules import RULES_CODEC_TYPES, BaccaratRules, ShoeSettings, WagerKind
from .settlement import RoundSettlement
from .shoe import SHOE_CODEC_TYPES
from .sides import Side
from .tableau import (
    CardSlot,
    RoundResult,
    banker_draws,
    card_value,
    deal_round,
    hand_total,
    is_natural,
    next_slot,
    player_draws,
)
from .view import AreaStake, CardView, RefusalView, RoundView

CODEC_TYPES: tuple[type, ...] = tuple(
    dict.fromkeys(
        (
            *COMMAND_TYPES,
            *EVENT_TYPES,
            # values carried by commands and events
            Area,
            Wager,
            RevealStep,
            RoundResult,
            RoundSettlement,
            # views
            RoundView,
            CardView,
            AreaStake,
            RefusalView,
            # the shoe procedure's commands, events and values
            *SHOE_CODEC_TYPES,
            # the rules and their nested settings
            *RULES_CODEC_TYPES,
            # enums of the round, stored by value
            RoundPhase,
            RevealPart,
            CorrectionAction,
            CardSlot,
            Side,
        )
    )
)
"""Every baccarat command, event, value type and view the codec stores ("baccarat.<Name>")."""

__all__ = [
    "CODEC_TYPES",
    "Area",
    "AreaStake",
    "BaccaratRound",
    "BaccaratRules",
    "CardSlot",
    "CardView",
    "ChangeCarried",
    "CloseBetting",
    "Command",
    "Correct",
    "CorrectionAction",
    "DealCard",
    "Event",
    "PlaceWager",
    "RefusalView",
    "Reveal",
    "RevealPart",
    "RevealStep",
    "RevealTimeout",
    "RoundPhase",
    "RoundResult",
    "RoundSettlement",
    "RoundView",
    "Settle",
    "ShoeSettings",
    "Side",
    "Void",
    "Wager",
    "WagerKind",
    "WithdrawWager",
    "banker_draws",
    "card_value",
    "deal_round",
    "hand_total",
    "is_natural",
    "next_slot",
    "player_draws",
    "seat",
    "standing",
]
