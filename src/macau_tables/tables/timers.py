"""The clock's side of a table: when each due thing became due, and which time-outs are ripe.

The rules never read a clock; the service does. After every commit :class:`DueTimers` notes,
for each thing the round waits for (``expected_next().due``) that has a time-out (the dealing
adapter says which: a decision, CSP-6.4; a card holder's reveal, BAC-16), when it became due.
:meth:`DueTimers.ripe` gives the time-out commands whose time has come. Timers start again
when a service starts and when a fault that held the round is cleared (the time a process was
down or the table stood still is not held against a player: a fresh decision time, CSP-6.4).

>>> from datetime import UTC, datetime, timedelta
>>> t = DueTimers()
>>> t.ripe(None, None, datetime(2026, 1, 5, tzinfo=UTC))
[]
"""

from __future__ import annotations

from datetime import datetime, timedelta
from typing import Any

from ..rounds import Due
from .dealing import Dealing

__all__ = ["DueTimers"]


class DueTimers:
    """When each timed due thing of the current round became due."""

    def __init__(self) -> None:
        self._since: dict[tuple[str, Due], datetime] = {}

    def track(self, round_: Any, dealing: Dealing, now: datetime) -> None:
        """Note what ``round_`` waits for now: things already due keep their start, new ones
        start at ``now``, the rest are forgotten."""
        since: dict[tuple[str, Due], datetime] = {}
        if round_ is not None and not round_.is_over:
            for due in round_.expected_next().due:
                if dealing.timeout(round_, due) is not None:
                    key = (str(round_.round_id), due)
                    since[key] = self._since.get(key, now)
        self._since = since

    def ripe(self, round_: Any, dealing: Dealing | None, now: datetime) -> list[object]:
        """The time-out commands of ``round_`` whose time has come at ``now``, in due order."""
        if round_ is None or dealing is None or round_.is_over:
            return []
        out: list[object] = []
        for due in round_.expected_next().due:
            timeout = dealing.timeout(round_, due)
            start = self._since.get((str(round_.round_id), due))
            if timeout is None or start is None:
                continue
            command, seconds = timeout
            if now - start >= timedelta(seconds=seconds):
                out.append(command)
        return out

    def next_deadline(self, round_: Any, dealing: Dealing) -> datetime | None:
        """When the first time-out of ``round_`` falls due, or ``None``."""
        deadlines = []
        if round_ is None or round_.is_over:
            return None
        for due in round_.expected_next().due:
            timeout = dealing.timeout(round_, due)
            start = self._since.get((str(round_.round_id), due))
            if timeout is not None and start is not None:
                deadlines.append(start + timedelta(seconds=timeout[1]))
        return min(deadlines, default=None)
