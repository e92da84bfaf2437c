"""Caribbean Stud Poker (聯獎撲克), Dispatch 61/2004 (docs/rules.md CSP-1 … CSP-13).

:class:`CaribbeanRound` satisfies the shared round contract (:mod:`macau_tables.rounds`).
:data:`CODEC_TYPES` lists every type of this game that :mod:`macau_tables.codec` stores or
sends as ``"caribbean.<ClassName>"``: the commands, the events, the settlement values, the
views, the rules with their nested settings, and the game's enums. Shared core types
(``Card``, ``Meter``, ``JackpotResult``, ``Award``, ``Approval``, ``WagerResult``, ``DEALER``,
``Outcome``, ``Role``) are registered by the codec itself.
"""

from typing import Final

from .commands import (
    CloseBetting,
    Command,
    DealCard,
    DealtToEmptyBox,
    DecisionTimeout,
    Fold,
    PlaceAnte,
    PlaceJackpotWager,
    Raise,
    RejectReport,
    ReportExposedCard,
    ReportMisdeal,
    ReturnCarriedWager,
    Showdown,
    ShufflerFailure,
    Void,
)
from .events import (
    AntePlaced,
    BettingClosed,
    CardDealt,
    CardExposed,
    CarriedWagerReturned,
    DeadHandDealt,
    DecisionMade,
    Event,
    FaultReported,
    JackpotWagerPlaced,
    ReportRejected,
    RoundOpened,
    RoundSettled,
    RoundVoided,
)
from .hands import (
    QUALIFYING_STRENGTH,
    RANKINGS,
    HandCategory,
    HandValue,
    Ranking,
    compare,
    dealer_qualifies,
    evaluate,
    evaluate_many,
    qualifies,
    strength_category,
)
from .procedure import PROCEDURE_TYPES, DeckShuffledAndCut, ShuffleAndCut
from .round import CaribbeanRound
from .rules import CaribbeanRules, DealingProcedure, JackpotFixedAwards
from .settlement import BoxOutcome, BoxResult, CarriedWager, Settlement, WagerKind
from .state import BoxState, Phase, deal_order
from .view import BoxView, DeadHandView, NamedHand, PlayerView, PublicView, TableView

__all__ = [
    "CODEC_TYPES",
    "COMMANDS",
    "EVENTS",
    "PROCEDURE_TYPES",
    "QUALIFYING_STRENGTH",
    "RANKINGS",
    "AntePlaced",
    "BettingClosed",
    "BoxOutcome",
    "BoxResult",
    "BoxState",
    "BoxView",
    "CardDealt",
    "CardExposed",
    "CaribbeanRound",
    "CaribbeanRules",
    "CarriedWager",
    "CarriedWagerReturned",
    "CloseBetting",
    "Command",
    "DeadHandDealt",
    "DeadHandView",
    "DealCard",
    "DealingProcedure",
    "DealtToEmptyBox",
    "DecisionMade",
    "DecisionTimeout",
    "DeckShuffledAndCut",
    "Event",
    "FaultReported",
    "Fold",
    "HandCategory",
    "HandValue",
    "JackpotFixedAwards",
    "JackpotWagerPlaced",
    "NamedHand",
    "Phase",
    "PlaceAnte",
    "PlaceJackpotWager",
    "PlayerView",
    "PublicView",
    "Raise",
    "Ranking",
    "RejectReport",
    "ReportExposedCard",
    "ReportMisdeal",
    "ReportRejected",
    "ReturnCarriedWager",
    "RoundOpened",
    "RoundSettled",
    "RoundVoided",
    "Settlement",
    "Showdown",
    "ShuffleAndCut",
    "ShufflerFailure",
    "TableView",
    "Void",
    "WagerKind",
    "compare",
    "deal_order",
    "dealer_qualifies",
    "evaluate",
    "evaluate_many",
    "qualifies",
    "strength_category",
]

COMMANDS: Final[tuple[type, ...]] = (
    PlaceAnte,
    PlaceJackpotWager,
    ReturnCarriedWager,
    CloseBetting,
    DealCard,
    Raise,
    Fold,
    DecisionTimeout,
    Showdown,
    ReportExposedCard,
    ReportMisdeal,
    DealtToEmptyBox,
    ShufflerFailure,
    RejectReport,
    Void,
)
"""Every command a :class:`CaribbeanRound` accepts."""

EVENTS: Final[tuple[type, ...]] = (
    RoundOpened,
    AntePlaced,
    JackpotWagerPlaced,
    CarriedWagerReturned,
    BettingClosed,
    CardDealt,
    CardExposed,
    DeadHandDealt,
    DecisionMade,
    FaultReported,
    ReportRejected,
    RoundSettled,
    RoundVoided,
)
"""Every event a :class:`CaribbeanRound` writes."""

CODEC_TYPES: Final[tuple[type, ...]] = (
    *COMMANDS,
    *EVENTS,
    # the table's hand shuffle and cut (CSP-3(1), live tables)
    *PROCEDURE_TYPES,
    # values carried by events
    CarriedWager,
    Settlement,
    BoxResult,
    # views
    PlayerView,
    NamedHand,
    TableView,
    BoxView,
    DeadHandView,
    PublicView,
    # the rules and their nested settings
    CaribbeanRules,
    JackpotFixedAwards,
    # enums in the fields above
    DealingProcedure,
    Phase,
    WagerKind,
    BoxOutcome,
    HandCategory,
)
"""Every Caribbean Stud type :mod:`macau_tables.codec` encodes (names unique in the game)."""
