"""How ``verify`` closes a Caribbean Stud round again (:data:`macau_tables.plugin.Closer`).

The round as it stood before its closing event is given the closing command again: a
settlement is the showdown on the meter the round was settled on (CSP-10: the meter before this
round's contributions), a void its ``Void`` (only its money must come out again)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ..jackpot import Meter
from ..plugin import Closing
from ..voids import Ground, VoidBasis, redecider
from . import commands, events, handlers

__all__ = ["close"]


def close(event: object, before: Callable[[], Any]) -> Closing | None:
    """How ``event`` closed its round (``None``: it does not close one); ``before()`` replays
    the round as it stood before ``event``."""
    if isinstance(event, events.RoundSettled):
        s = event.settlement
        pre = before()
        staked = any(b.jackpot for b in pre.in_play)
        if s.jackpot is None:
            meter = Meter.seeded(pre.rules.jackpot_seed)
        else:  # CSP-10: the showdown is given the meter before this round's contributions
            given = s.jackpot.meter_before
            meter = Meter(given.amount - s.meter_contribution, given.seed)
        return Closing(commands.Showdown(meter), meter if staked else None, True)
    if isinstance(event, events.RoundVoided):
        b = event.ground
        if b is None:  # version 1: no ground recorded
            legacy = VoidBasis(Ground.SHOE_LOST, event.rule, None, event.reason)
            return Closing(None, None, False, lambda pre: (handlers.void_event(pre, legacy),))
        return Closing(commands.Void(b.reason, b.ground, redecider(b), b.evidence), None, False)
    return None
