"""The table service's clock: what time it is, and the tables' opening dates.

The rules never read a clock (a round is a pure value); the table service does, through a
:class:`Clock`, so that tests drive time by hand with a :class:`FakeClock`. Time is a timezone-
aware :class:`~datetime.datetime` in UTC; the *opening date* of a round (what approvals are
checked against, CSP-13 / BAC-19) is the date in Macau (UTC+8, no daylight saving).

>>> clock = FakeClock(datetime(2026, 1, 5, 17, 0, tzinfo=UTC))
>>> opening_date(clock.now())
datetime.date(2026, 1, 6)
>>> clock.advance(30).isoformat()
'2026-01-05T17:00:30+00:00'
"""

from __future__ import annotations

import threading
from datetime import UTC, date, datetime, timedelta, timezone
from typing import Final, Protocol, runtime_checkable

from ..errors import ConfigError

__all__ = [
    "MACAU",
    "Clock",
    "FakeClock",
    "SystemClock",
    "opening_date",
    "parse_day",
    "seconds_between",
]

MACAU: Final = timezone(timedelta(hours=8), "Asia/Macau")
"""Macau time (UTC+8 all year): the zone of a table's opening date."""


@runtime_checkable
class Clock(Protocol):
    """Anything that tells the time: ``now()`` is a timezone-aware ``datetime``."""

    def now(self) -> datetime:
        """The current time (timezone-aware)."""
        ...


class SystemClock:
    """The real time, in UTC."""

    def now(self) -> datetime:
        """``datetime.now(UTC)``."""
        return datetime.now(UTC)

    def __repr__(self) -> str:
        return "SystemClock()"


class FakeClock:
    """A clock that moves only when told (tests, simulations). Thread-safe.

    Refuses (``ConfigError``) a naive start time and a negative step.
    """

    def __init__(self, start: datetime | None = None) -> None:
        start = start or datetime(2026, 1, 5, 2, 0, tzinfo=UTC)  # 10:00 in Macau, a Monday
        self._now = _aware(start)
        self._lock = threading.Lock()
        self.slept: list[float] = []

    def now(self) -> datetime:
        """The time the clock was last set to."""
        with self._lock:
            return self._now

    def advance(self, seconds: float) -> datetime:
        """Move the clock ``seconds`` (≥ 0) forward; returns the new time."""
        if seconds < 0:
            raise ConfigError("tables.clock_backwards", seconds=str(seconds))
        with self._lock:
            self._now += timedelta(seconds=seconds)
            return self._now

    def sleep(self, seconds: float) -> None:
        """Wait ``seconds``: recorded in :attr:`slept` (what was asked) and the clock moved on,
        with no real wait (the server's login slow-down asks a clock that has ``sleep``)."""
        with self._lock:
            self.slept.append(seconds)
        self.advance(seconds)

    def set(self, when: datetime) -> datetime:
        """Set the clock to ``when`` (not before the current time); returns it."""
        when = _aware(when)
        with self._lock:
            if when < self._now:
                raise ConfigError("tables.clock_backwards", seconds=str(when - self._now))
            self._now = when
            return when

    def __repr__(self) -> str:
        return f"FakeClock({self._now.isoformat()})"


def _aware(when: datetime) -> datetime:
    if not isinstance(when, datetime) or when.tzinfo is None or when.utcoffset() is None:
        raise ConfigError("tables.clock_naive_time", when=repr(when))
    return when


def opening_date(now: datetime) -> date:
    """The Macau date of ``now`` (a round's opening date, for the approvals)."""
    return _aware(now).astimezone(MACAU).date()


def seconds_between(start: datetime, end: datetime) -> float:
    """Seconds from ``start`` to ``end`` (negative when ``end`` is earlier)."""
    return (end - start).total_seconds()


def parse_day(text: str) -> date:
    """A gaming day written ``YYYY-MM-DD``; refuses anything else (``cli.bad_day``)."""
    try:
        return date.fromisoformat(text)
    except (TypeError, ValueError):
        raise ConfigError("cli.bad_day", text=repr(text)) from None
