"""Money is an ``int`` of minor units (avos, cents) everywhere. Never a float.

These helpers validate amounts at the edges of the core so that a bad amount is refused before
anything changes, and :func:`format_minor` is the one way an amount is written for a person
(the demos, the PAR sheets).

>>> format_minor(123_456_789)
'1,234,567.89'
>>> format_minor(-1050)
'-10.50'
"""

from __future__ import annotations

from fractions import Fraction

from .errors import ConfigError, RuleViolation

__all__ = ["Money", "check_stake", "format_minor", "format_percent", "require_money"]

Money = int
"""An amount in minor units. A plain ``int``; the alias documents intent."""


def require_money(value: object, what: str) -> int:
    """Return ``value`` if it is an ``int`` amount (not ``bool``, not ``float``); else raise.

    Raises :class:`TypeError` naming ``what`` for anything that is not an integer.

    >>> require_money(500, "ante")
    500
    """
    if isinstance(value, bool) or not isinstance(value, int):
        raise TypeError(f"{what} must be an integer number of minor units, got {value!r}")
    return value


def format_minor(amount: int, *, decimals: int = 2, grouping: bool = True) -> str:
    """``amount`` minor units written in major units with ``decimals`` decimal places.

    The sign applies to the whole amount (``-5`` is ``-0.05``, never ``-1.95``); thousands are
    separated by commas unless ``grouping`` is false. ``decimals=0`` writes the minor units as
    they are. Exact: integer arithmetic only, no float.

    Refuses (``ConfigError``) an amount that is not an ``int`` (a ``float`` or a ``bool``) and a
    negative ``decimals``.

    >>> format_minor(-1050)
    '-10.50'
    >>> format_minor(-5)
    '-0.05'
    >>> format_minor(0)
    '0.00'
    >>> format_minor(1_000_000_000)
    '10,000,000.00'
    >>> format_minor(1_234_567, decimals=0)
    '1,234,567'
    >>> format_minor(-123_456, decimals=3, grouping=False)
    '-123.456'
    >>> format_minor(10.5)
    Traceback (most recent call last):
    ...
    macau_tables.errors.ConfigError: an amount is a whole number of minor units, not 10.5
    """
    if isinstance(amount, bool) or not isinstance(amount, int):
        raise ConfigError("money.amount_not_minor_units", amount=repr(amount))
    if isinstance(decimals, bool) or not isinstance(decimals, int) or decimals < 0:
        raise ConfigError("money.bad_decimals", decimals=repr(decimals))
    sign = "-" if amount < 0 else ""
    whole, part = divmod(abs(amount), 10**decimals)
    text = f"{whole:,}" if grouping else str(whole)
    if decimals:
        text += f".{part:0{decimals}d}"
    return sign + text


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

    >>> check_stake(500, unit=100, minimum=100, maximum=1_000, rule="CSP-6.2", what="ante")
    500
    >>> try:
    ...     check_stake(150, unit=100, minimum=100, maximum=1_000, rule="CSP-6.2", what="ante")
    ... except RuleViolation as refused:
    ...     print(refused)
    [CSP-6.2] ante 1.50 is not a whole multiple of the bet unit 1.00
    """
    if isinstance(amount, bool) or not isinstance(amount, int):
        raise RuleViolation(rule, "money.stake_not_whole", what=what, amount=repr(amount))
    if amount <= 0:
        raise RuleViolation(rule, "money.stake_not_positive", what=what, amount=amount)
    if amount % unit:
        raise RuleViolation(rule, "money.stake_off_unit", what=what, amount=amount, unit=unit)
    if amount < minimum or amount > maximum:
        raise RuleViolation(
            rule,
            "money.stake_outside_limits",
            what=what,
            amount=amount,
            minimum=minimum,
            maximum=maximum,
        )
    return amount


def format_percent(ratio: Fraction | None) -> str:
    """``ratio`` as a percentage with two decimals, rounded half away from zero, exactly
    (``""`` for ``None``).

    >>> format_percent(Fraction(1, 3)), format_percent(Fraction(-2, 41)), format_percent(None)
    ('33.33', '-4.88', '')
    """
    if ratio is None:
        return ""
    scaled = abs(ratio) * 10_000
    units = (scaled.numerator * 2 + scaled.denominator) // (2 * scaled.denominator)
    return ("-" if ratio < 0 and units else "") + f"{units // 100}.{units % 100:02d}"
