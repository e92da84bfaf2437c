"""How ``verify`` closes a baccarat round again (:data:`macau_tables.plugin.Closer`).

The round as it stood before its closing event is given the closing command again: a
settlement is ``Settle`` on the meter it was settled on (BAC-17: none when no jackpot wager was
placed), a void its ``Void`` (only its money must come out again)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ..plugin import Closing
from . import commands, events

__all__ = ["close"]


def close(event: object, before: Callable[[], Any]) -> Closing | None:
    """How ``event`` closed its round (``None``: it does not close one); ``before()`` replays
    the round as it stood before ``event`` (not needed here)."""
    if isinstance(event, events.RoundSettled):
        meter = event.settlement.meter_before  # BAC-17: None when no jackpot wager was placed
        return Closing(commands.Settle(meter), meter, True)
    if isinstance(event, events.RoundVoided):
        return Closing(commands.Void(event.supervisor, event.reason), None, False)
    return None
