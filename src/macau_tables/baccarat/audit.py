"""How ``verify`` closes a baccarat round again (:data:`macau_tables.plugin.Closer`).

The round as it stood before its closing event is given the closing command again: a
settlement is ``Settle`` on the meter it was settled on (BAC-17: none when no jackpot wager was
placed), a void its ``Void`` (only its money must come out again)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ..plugin import Closing
from ..voids import redecider
from . import commands, events, settlement

__all__ = ["close"]


def close(event: object, before: Callable[[], Any]) -> Closing | None:
    """How ``event`` closed its round (``None``: it does not close one); ``before()`` replays
    the round as it stood before ``event`` (not needed here)."""
    if isinstance(event, events.RoundSettled):
        meter = event.settlement.meter_before  # BAC-17: None when no jackpot wager was placed
        return Closing(commands.Settle(meter), meter, True)
    if isinstance(event, events.RoundVoided):
        b = event.ground
        if b is None:  # version 1: no ground recorded: its money only, as it was then
            return Closing(
                None,
                None,
                False,
                lambda pre: (
                    events.RoundVoided(
                        event.supervisor, event.reason, settlement.void_settlement(pre.wagers)
                    ),
                ),
            )
        return Closing(commands.Void(redecider(b), b.reason, b.ground, b.evidence), None, False)
    return None
