"""The state every :class:`~macau_tables.store.Tx` operation shares (one open transaction)."""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC, datetime
from typing import Any, Final

from sqlalchemy import Select
from sqlalchemy.engine import Connection

from ..errors import StoreError

__all__ = ["METER_CHANNEL", "Clock", "TxBase", "require_text", "utc_now"]

METER_CHANNEL: Final = "macau_meters"
"""The PostgreSQL ``NOTIFY`` channel of meter changes (payload ``"<meter_id>:<amount>"``)."""

Clock = Callable[[], datetime]


def utc_now() -> datetime:
    """The current time, UTC (the store's default clock)."""
    return datetime.now(UTC)


def require_text(value: object, field: str) -> str:
    """``value`` if it is a non-empty ``str``; else ``store.bad_value`` naming ``field``."""
    if not isinstance(value, str) or not value.strip():
        raise StoreError("store.bad_value", field=field, value=repr(value))
    return value


def require_int(value: object, field: str, *, minimum: int | None = None) -> int:
    """``value`` if it is an ``int`` (not a bool) at least ``minimum``; else
    ``store.bad_value``."""
    if isinstance(value, bool) or not isinstance(value, int):
        raise StoreError("store.bad_value", field=field, value=repr(value))
    if minimum is not None and value < minimum:
        raise StoreError("store.bad_value", field=field, value=repr(value))
    return value


class TxBase:
    """One database transaction: the connection, its dialect, the clock, and what to do after
    the commit (callbacks, meter notifications)."""

    def __init__(
        self, connection: Connection, *, clock: Clock = utc_now, readonly: bool = False
    ) -> None:
        self.connection = connection
        self.dialect: str = connection.dialect.name
        self.readonly = readonly
        self._clock = clock
        self._after: list[Callable[[], None]] = []
        self.meter_changes: dict[str, int] = {}
        """Meter id -> amount after this transaction, for every meter it changed."""
        self.meter_notified: dict[str, int] = {}
        """Meter id -> the amount last notified by a statement of this transaction
        (PostgreSQL; delivered at the commit): the store does not notify it again."""
        self.meter_pending: dict[str, int] = {}
        """Meter id -> an amount credited to it by this transaction and not yet written
        (PostgreSQL): the store writes it with the commit, in the same round trip, so that
        the meter's row is held only for that (contributions from many processes commute);
        any read of balances in this transaction writes it first (:meth:`flush_meters`)."""

    @property
    def postgres(self) -> bool:
        """Whether this is PostgreSQL (row locks with ``FOR UPDATE`` mean something)."""
        return self.dialect == "postgresql"

    def now(self) -> datetime:
        """The store clock's time (aware, UTC)."""
        at = self._clock()
        if at.tzinfo is None:
            raise StoreError("store.bad_value", field="clock", value=repr(at))
        return at.astimezone(UTC)

    def after_commit(self, callback: Callable[[], None]) -> None:
        """Run ``callback`` once this transaction has committed (never if it rolls back)."""
        self._after.append(callback)

    def run_after_commit(self) -> None:
        """Called by the store after the commit: the callbacks, in order."""
        for callback in self._after:
            callback()

    def flush_meters(self) -> None:
        """Write the meter credits still pending (before a read of balances)."""
        if self.meter_pending:
            pending, self.meter_pending = self.meter_pending, {}
            for meter_id, amount in sorted(pending.items()):
                self.meter_changes[meter_id] = self.move_meter(meter_id, amount)

    def move_meter(self, meter_id: str, amount: int) -> int:
        """Add ``amount`` to the meter's balance now; returns the new balance."""
        raise NotImplementedError  # pragma: no cover - the ledger implements it

    def writable(self) -> None:
        """Refuses (``store.readonly``) a write inside a read-only transaction."""
        if self.readonly:
            raise StoreError("store.readonly")

    def locked(self, query: Select[Any]) -> Select[Any]:
        """``query`` with ``FOR UPDATE`` on PostgreSQL (SQLite writers are already serial)."""
        return query.with_for_update() if self.postgres and not self.readonly else query
