"""Checks of the baccarat shoe procedure: reading cards and refusing what the shoe cannot hold.

Bad input is refused with a rule id, never a ``TypeError``: an unreadable card with BAC-1, a
burn of the wrong size with BAC-2.1. Used by :mod:`.shoe`, which re-exports :func:`burn_value`.
"""

from __future__ import annotations

from collections.abc import Sequence

from ..cards import Card
from ..errors import ParseError, RuleViolation
from .rules import BurnRule, ShoeSettings
from .shoe_state import ShoeState, count_seen

__all__ = [
    "burn_value",
    "check_cards",
    "check_start_burn",
    "read_card",
    "read_cards",
    "shown",
]


def burn_value(card: Card) -> int:
    """The number a first card shows for the burn (BAC-2.1): A=1, 2..9 face value, 10/J/Q/K=10.

    (Not the BAC-5 value: a ten or a court card burns ten cards.)
    """
    rank = int(card.rank)
    return 1 if rank == 14 else min(rank, 10)


def shown(value: object, limit: int = 80) -> str:
    """``repr(value)`` for a message, cut to ``limit`` characters; never raises."""
    try:
        text = repr(value)
    except Exception:
        text = f"<{type(value).__name__}>"
    return text if len(text) <= limit else text[: limit - 1] + "…"


def read_card(value: object) -> Card:
    """``value`` as a card (a :class:`Card` or its text, ``"As"``); refuses anything else
    (``RuleViolation`` BAC-1: not a card of the decks)."""
    if isinstance(value, Card):
        return value
    if isinstance(value, str):
        try:
            return Card.parse(value)
        except ParseError:
            pass
    raise RuleViolation("BAC-1", "shoe.unknown_card", card=shown(value))


def read_cards(values: object, name: str, *, unidentified: bool) -> tuple[Card | None, ...]:
    """``values`` (a tuple or list) as cards; ``None`` (a face-down card not identified) only
    when ``unidentified``. Refuses (BAC-1) anything else."""
    if not isinstance(values, tuple | list):
        raise RuleViolation("BAC-1", "shoe.cards_not_a_list", field=name, got=shown(values))
    return tuple(None if v is None and unidentified else read_card(v) for v in values)


def check_cards(state: ShoeState, cards: Sequence[Card | None], *, burn: bool) -> None:
    """Refuse (BAC-1) more cards than are left, or more copies of a face than the decks hold."""
    if len(cards) > state.remaining:
        if burn:
            raise RuleViolation(
                "BAC-1", "shoe.burn_more_than_left", count=len(cards), remaining=state.remaining
            )
        raise RuleViolation(
            "BAC-1", "shoe.round_more_than_left", count=len(cards), remaining=state.remaining
        )
    decks = state.settings.decks
    for index, n in enumerate(count_seen(state.seen, cards)):
        if n > decks:
            face = Card.from_index(index)
            if burn:
                raise RuleViolation(
                    "BAC-1", "shoe.burn_too_many_copies", card=face, copy=n, decks=decks
                )
            raise RuleViolation(
                "BAC-1", "shoe.round_too_many_copies", card=face, copy=n, decks=decks
            )


def check_start_burn(s: ShoeSettings, cards: tuple[Card | None, ...]) -> None:
    """Refuse (BAC-2.1) a start-of-shoe burn of the wrong number of cards for the table's rule,
    or a first-card burn whose first card is not shown."""
    got = len(cards)
    if s.burn_rule is BurnRule.DECKS:
        if got != s.decks:
            raise RuleViolation("BAC-2.1", "shoe.burn_decks_count", decks=s.decks, got=got)
    elif s.burn_rule is BurnRule.FIXED:
        if got != s.fixed_burn:
            raise RuleViolation("BAC-2.1", "shoe.burn_fixed_count", fixed=s.fixed_burn, got=got)
    else:
        first = cards[0] if cards else None
        if first is None:
            raise RuleViolation("BAC-2.1", "shoe.first_card_hidden")
        value = burn_value(first)
        if got != 1 + value:
            raise RuleViolation(
                "BAC-2.1",
                "shoe.burn_first_card_count",
                card=first,
                value=value,
                need=1 + value,
                got=got,
            )
