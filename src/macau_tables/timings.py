"""The electronic table's round cycle, as settings of a game's rules (its configuration).

Both games' rules carry the same four fields (so a new value is a new configuration version,
like any other setting):

* ``betting_seconds``: how long betting stays open once a round is opened (the countdown);
* ``result_seconds``: how long a settled round's result is shown before the next round opens;
* ``idle_after_rounds``: after this many countdowns in a row ended with no wager, a virtual
  table stops counting down (it idles) until a player opens its page or bets;
* ``countdown_closes``: at a live table, whether the countdown closes betting at zero
  (``True``) or only shows the time and leaves the close to the dealer (``False``).

They were added after configurations were stored: a rules class lists them in its
``__codec_omit_default__`` (:mod:`macau_tables.codec`), so a configuration keeping the defaults
encodes and hashes exactly as before and an old configuration reads with the defaults.

>>> check_cycle_settings(15, 5, 3, True)
>>> try:
...     check_cycle_settings(0, 5, 3, True)
... except ConfigError as exc:
...     print(exc.key)
core.cycle_seconds
"""

from __future__ import annotations

from typing import Final

from .errors import ConfigError

__all__ = ["CYCLE_FIELDS", "MAX_SECONDS", "check_cycle_settings"]

CYCLE_FIELDS: Final = frozenset(
    {"betting_seconds", "result_seconds", "idle_after_rounds", "countdown_closes"}
)
"""The cycle's settings, the same names in every game's rules."""

MAX_SECONDS: Final = 3600
"""The longest countdown or result pause a configuration may set (an hour)."""


def check_cycle_settings(
    betting_seconds: object,
    result_seconds: object,
    idle_after_rounds: object,
    countdown_closes: object,
) -> None:
    """Refuse (``ConfigError``, naming the field) a cycle setting out of range:
    ``betting_seconds`` 1..3600, ``result_seconds`` 0..3600, ``idle_after_rounds`` at least 1
    (whole numbers), ``countdown_closes`` a ``bool``."""
    for name, value, low in (
        ("betting_seconds", betting_seconds, 1),
        ("result_seconds", result_seconds, 0),
    ):
        if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= MAX_SECONDS:
            raise ConfigError(
                "core.cycle_seconds", field=name, low=low, high=MAX_SECONDS, value=repr(value)
            )
    if (
        isinstance(idle_after_rounds, bool)
        or not isinstance(idle_after_rounds, int)
        or idle_after_rounds < 1
    ):
        raise ConfigError("core.cycle_idle_rounds", value=repr(idle_after_rounds))
    if not isinstance(countdown_closes, bool):
        raise ConfigError("core.cycle_closes_not_bool", value=repr(countdown_closes))
