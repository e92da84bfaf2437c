"""Publishing a table's views to its subscribers, per audience, after each commit.

A subscriber names its :class:`~macau_tables.rounds.Audience` (a player by id, the dealer, a
supervisor, the public) and gets a :class:`TableUpdate` holding the round's ``view(audience)``
— never the raw state: what the round contract lets that audience see (SPEC "Hidden
information"). Updates go out only after the database committed (a refused or rolled-back
command publishes nothing), in commit order. A subscriber's exception is logged and never
disturbs the table or the other subscribers.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from ..rounds import Audience, Role, require_audience
from ..visibility import seat_view, shared_view, view_for
from .cycle import CycleView
from .cycle import view as cycle_view

__all__ = [
    "Hub",
    "MeterUpdate",
    "Subscription",
    "TableUpdate",
    "shared_publisher",
    "table_update",
]

log = logging.getLogger(__name__)


@dataclass(frozen=True, slots=True)
class TableUpdate:
    """What a subscriber receives after a commit: table ``table_id`` at record ``seq``, the
    round ``round_id`` as ``audience`` may see it (``view``; ``None`` before the first round),
    the fault in force (its reason), whether the meter can be reached and the round cycle's
    public state (``cycle``: :class:`~.cycle.CycleView`, the same for every audience: the
    countdown's deadline, idle, paused). ``round`` is the
    round the view was made of (a frozen value, ``None`` before the first round): what else a
    subscriber asks of it — what it expects next — is the same for every audience, asked once
    per round (it takes no part in comparisons). ``public`` is the shared part's view
    (:func:`macau_tables.visibility.shared_view`: the public's), made once per publish and the
    same object in every audience's update of that publish: the table sockets encode it once
    for all (it takes no part in comparisons). ``seat`` likewise, for a player's update only:
    the seat part's view (:func:`macau_tables.visibility.seat_view`: what every player at the
    table sees alike), made once per publish; ``None`` for the other audiences."""

    table_id: str
    seq: int
    audience: Audience
    round_id: str | None
    view: Any
    fault: str | None
    meter_link: bool
    cycle: CycleView | None = None
    round: Any = field(default=None, compare=False, repr=False)
    public: Any = field(default=None, compare=False, repr=False)
    seat: Any = field(default=None, compare=False, repr=False)


_UNSET: Any = object()


def table_update(
    state: Any,
    seq: int,
    audience: Audience,
    *,
    meter_link: bool,
    public: Any = _UNSET,
    seat: Any = _UNSET,
) -> TableUpdate:
    """What ``audience`` may see of the table ``state`` (a :class:`~.engine.TableState`)
    after record ``seq``: its round's ``view(audience)``, through the gate
    (:func:`macau_tables.visibility.view_for`). Made in the thread that publishes
    (which holds the table's lock), not later on the sockets' event loop: the loop serves
    every request's answer and every socket, and views made there (tried) showed no gain
    (docs/benchmarks.md, "Table server under load"). ``public``: the shared part's view when
    the caller made it already (:func:`shared_publisher`: once per publish); ``seat`` the seat
    part's view likewise (a player's update only)."""
    r = state.round
    fault = state.fault
    if public is _UNSET:
        public = shared_view(r)
    who = require_audience(audience)
    if who.role is not Role.PLAYER:
        seat = None
    elif seat is _UNSET:
        seat = seat_view(r)
    return TableUpdate(
        state.setup.table_id,
        seq,
        audience,
        None if r is None else str(r.round_id),
        public if who.role is Role.PUBLIC else view_for(r, who),
        None if fault is None else fault.reason,
        meter_link,
        cycle_view(state),
        r,
        public,
        seat,
    )


def shared_publisher(state: Any, seq: int, *, meter_link: bool) -> Callable[[Audience], Any]:
    """``make(audience)`` for :meth:`Hub.publish`: each audience's :func:`table_update` of
    ``state`` at ``seq``, all sharing one public view made here (the shared part, made once per
    publish, not once per audience) and the players' one seat view (made at the first player's
    update of the publish)."""
    public = shared_view(state.round)
    seats: list[Any] = []

    def make(audience: Audience) -> TableUpdate:
        if audience.role is not Role.PLAYER:
            return table_update(state, seq, audience, meter_link=meter_link, public=public)
        if not seats:
            seats.append(seat_view(state.round))
        return table_update(
            state, seq, audience, meter_link=meter_link, public=public, seat=seats[0]
        )

    return make


@dataclass(frozen=True, slots=True)
class MeterUpdate:
    """The linked meter ``meter_id`` now stands at ``amount`` (public: the jackpot display)."""

    meter_id: str
    amount: int


Callback = Callable[[Any], None]


class Subscription:
    """One subscriber; :meth:`close` ends it."""

    def __init__(self, hub: Hub, audience: Audience, callback: Callback) -> None:
        self.audience = audience
        self.callback = callback
        self._hub = hub

    def close(self) -> None:
        """Stop receiving updates (idempotent)."""
        self._hub.remove(self)


class Hub:
    """The subscribers of one table."""

    def __init__(self) -> None:
        self._subs: list[Subscription] = []
        self._lock = threading.Lock()

    def add(self, audience: object, callback: Callback) -> Subscription:
        """Subscribe ``callback`` as ``audience`` (refuses anything that is not an
        :class:`~macau_tables.rounds.Audience`)."""
        sub = Subscription(self, require_audience(audience), callback)
        with self._lock:
            self._subs.append(sub)
        return sub

    def remove(self, sub: Subscription) -> None:
        """Unsubscribe ``sub``."""
        with self._lock:
            if sub in self._subs:
                self._subs.remove(sub)

    def subscribers(self) -> list[Subscription]:
        """The subscribers now."""
        with self._lock:
            return list(self._subs)

    def publish(self, make: Callable[[Audience], Any], only: Subscription | None = None) -> None:
        """Send each subscriber (or ``only`` one) ``make(its audience)``, made once per
        distinct audience: the subscribers of one audience (the public, the dealer, a
        supervisor, one player on several sockets) get the same object; a player's own view
        is made for that player alone."""
        made: dict[Audience, Any] = {}
        for sub in [only] if only is not None else self.subscribers():
            try:
                if sub.audience in made:
                    update = made[sub.audience]
                else:
                    update = made[sub.audience] = make(sub.audience)
                sub.callback(update)
            except Exception:
                log.exception("a subscriber of the table failed")

    def publish_public(self, update: Any) -> None:
        """Send ``update`` to every subscriber (public information, e.g. the meter)."""
        self.publish(lambda audience: update)
