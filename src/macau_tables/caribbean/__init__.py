"""Caribbean Stud Poker (聯獎撲克), Dispatch 61/2004 (SPEC CSP-1 … CSP-13)."""

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

__all__ = [
    "QUALIFYING_STRENGTH",
    "RANKINGS",
    "HandCategory",
    "HandValue",
    "Ranking",
    "compare",
    "dealer_qualifies",
    "evaluate",
    "evaluate_many",
    "qualifies",
    "strength_category",
]
