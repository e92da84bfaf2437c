"""Money is an ``int`` of minor units (avos, cents) everywhere. Never a float.

These helpers validate amounts at the edges of the core so that a bad amount is refused before
anything changes.
"""

from __future__ import annotations

from .errors import RuleViolation

Money = int
"""An amount in minor units. A plain ``int``; the alias documents intent."""


def require_money(value: object, what: str) -> int:
    """Return ``value`` if it is an ``int`` amount (not ``bool``, not ``float``); else raise.

    Raises :class:`TypeError` naming ``what`` for anything that is not an integer.
    """
    if isinstance(value, bool) or not isinstance(value, int):
        raise TypeError(f"{what} must be an integer number of minor units, got {value!r}")
    return value


def check_stake(
    amount: object,
    *,
    unit: int,
    minimum: int,
    maximum: int,
    rule: str,
    what: str,
) -> int:
    """Validate a stake: a positive whole multiple of ``unit`` within ``minimum..maximum``.

    Returns the amount. Raises :class:`RuleViolation` with ``rule`` when it is not.
    """
    if isinstance(amount, bool) or not isinstance(amount, int):
        raise RuleViolation(rule, f"{what} must be a whole number of minor units: {amount!r}")
    if amount <= 0:
        raise RuleViolation(rule, f"{what} must be positive, got {amount}")
    if amount % unit:
        raise RuleViolation(rule, f"{what} {amount} is not a whole multiple of the bet unit {unit}")
    if amount < minimum or amount > maximum:
        raise RuleViolation(
            rule, f"{what} {amount} is outside the table limits {minimum}..{maximum}"
        )
    return amount
