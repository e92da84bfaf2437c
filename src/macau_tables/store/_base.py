"""The state every :class:`~macau_tables.store.Tx` operation shares (one open transaction)."""

from __future__ import annotations

import functools
import sqlite3
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any, Final

from sqlalchemy import Select
from sqlalchemy.engine import Connection, Dialect
from sqlalchemy.exc import DBAPIError, StatementError

from ..errors import StoreError

__all__ = [
    "METER_CHANNEL",
    "PENDING",
    "Clock",
    "Mark",
    "Pending",
    "TxBase",
    "flush_pending",
    "require_text",
    "utc_now",
]

METER_CHANNEL: Final = "macau_meters"
"""The PostgreSQL ``NOTIFY`` channel of meter changes (payload ``"<meter_id>:<amount>"``)."""

Clock = Callable[[], datetime]

PENDING: Final = "macau_writes_pending"
"""The key, in a connection's ``info``, of the transaction whose writes wait for the commit
(PostgreSQL; see :class:`Pending`)."""


def flush_pending(conn: Connection, *_: object) -> None:
    """The engine's ``before_cursor_execute`` hook (PostgreSQL): the writes left for the commit
    are sent before any other statement of their transaction, so every statement sees them."""
    tx = conn.info.get(PENDING)
    if tx is not None:
        tx.flush_writes()


@dataclass(slots=True)
class Pending:
    """PostgreSQL: what a transaction has written and not sent yet — sent with its ``COMMIT``,
    in the same round trip, or before its next statement if one comes first (so that every
    statement sees it). Ledger batches (``post_deferred``) always wait so; a table request's
    events and idempotency record too once the transaction asked for it
    (:meth:`TxBase.defer_writes`: the group commit does)."""

    fences: dict[str, None] = field(default_factory=dict)
    """The tables whose fence (shared) is taken before their events are written."""
    events: list[tuple[Any, ...]] = field(default_factory=list)
    """Rows of ``events``, in the order appended."""
    keys: list[tuple[Any, ...]] = field(default_factory=list)
    """Rows of ``idempotency``."""
    plans: list[Any] = field(default_factory=list)
    """The ledger's checked batches (``LedgerOps._plan``), written as ONE ``macau_post``."""

    def __bool__(self) -> bool:
        return bool(self.events or self.keys or self.plans or self.fences)

    def mark(self) -> tuple[int, int, int, int]:
        """Where the lists stand (for :meth:`rewind`)."""
        return len(self.fences), len(self.events), len(self.keys), len(self.plans)

    def rewind(self, mark: tuple[int, int, int, int]) -> None:
        """Drop what was added after ``mark`` (nothing of it was sent)."""
        fences, events, keys, plans = mark
        if len(self.fences) > fences:
            self.fences = dict.fromkeys(list(self.fences)[:fences])
        del self.events[events:], self.keys[keys:], self.plans[plans:]


@dataclass(frozen=True, slots=True)
class Mark:
    """A transaction's unsent state at one point (:meth:`TxBase.mark`)."""

    pending: tuple[int, int, int, int]
    flushes: int
    heads: dict[str, Any]
    written: int
    meters: tuple[dict[str, int], dict[str, int], dict[str, int]]
    after: int
    fenced: set[str]


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


def driver_error(dialect: str) -> type[Exception]:
    """The base error of ``dialect``'s driver (what :meth:`TxBase.driver_rows` wraps)."""
    if dialect == "sqlite":
        return sqlite3.Error
    import psycopg

    return psycopg.Error


@functools.cache
def _pyformat(sql: str) -> str:
    """``sql`` with psycopg's ``%s`` placeholders instead of ``?`` (the store's statements
    hold no other ``?`` and no ``%``)."""
    return sql.replace("?", "%s")


_TIME_BINDERS: dict[str, Callable[[datetime], Any]] = {}


def _time_binder(dialect: Dialect) -> Callable[[datetime], Any]:
    """How a :class:`~.schema.UtcDateTime` column binds a time on ``dialect`` (SQLAlchemy's
    own processor for that database: the same value as a Core statement binds)."""
    binder = _TIME_BINDERS.get(dialect.name)
    if binder is None:
        from .schema import UtcDateTime

        process = UtcDateTime().dialect_impl(dialect).bind_processor(dialect)
        binder = _TIME_BINDERS[dialect.name] = process if process is not None else _same
    return binder


def _same(value: datetime) -> Any:
    return value


class TxBase:
    """One database transaction: the connection, its dialect, the clock, and what to do after
    the commit (callbacks, meter notifications)."""

    def __init__(
        self, connection: Connection, *, clock: Clock = utc_now, readonly: bool = False
    ) -> None:
        self.connection = connection
        self.dialect: str = connection.dialect.name
        self._driver: Any = None  # the driver's connection, once a statement needed it
        self._driver_error: type[Exception] = Exception  # its base error, set with it
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
        self.pending = Pending()
        """PostgreSQL: the writes left for the commit (:class:`Pending`)."""
        self.deferring = False
        """PostgreSQL: a table request's events and idempotency record wait for the commit
        too (:meth:`defer_writes`)."""
        self.flushes = 0
        """How many times writes left for the commit were sent before it."""
        self.flush_failed: BaseException | None = None
        """The error of such a sending, if one failed (the transaction is then unusable)."""
        self.fenced: set[str] = set()
        """PostgreSQL: the tables whose fence this transaction holds (shared)."""
        self.heads: dict[str, Any] = {}
        """Table id -> its log's head (a ``ChainHead``) as this transaction left it, for the
        tables :meth:`prefetch_requests` read."""
        self.keys: dict[str, str | None] = {}
        """Idempotency key -> the scope it is stored under (``None``: not stored), as
        :meth:`prefetch_requests` read them."""
        self.written: dict[str, tuple[str, str, str, datetime]] = {}
        """Idempotency key -> (scope, request digest, response text, time) stored by this
        transaction."""

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

    @contextmanager
    def savepoint(self) -> Iterator[None]:
        """A part of this transaction that can fail alone (``SAVEPOINT``, both databases): what
        the block wrote is kept if it ends normally, else rolled back — the statements and what
        this object keeps for the commit (meter changes and credits, writes left for the
        commit, callbacks) — and the exception raised on; the transaction goes on. Writes left
        for the commit are sent before the block ends, so that the ledger's refusal of them (a
        wallet too short) fails this block, not the whole transaction. A database error (a lost
        connection, a conflict, a race for a log's seq) is not rolled back here: it fails the
        whole transaction, as it would without the savepoint."""
        self.writable()
        if self.pending:
            self.flush_writes()  # an earlier part's writes are not this part's to refuse
        kept = self.mark()
        nested = self.connection.begin_nested()
        try:
            yield
            if self.pending:
                self.flush_writes()
        except DBAPIError:
            raise
        except BaseException:
            nested.rollback()
            self.rewind(kept)
            raise
        nested.commit()

    def mark(self) -> Mark:
        """This transaction's unsent state now, for :meth:`rewind`."""
        return Mark(
            self.pending.mark(),
            self.flushes,
            dict(self.heads),
            len(self.written),
            (dict(self.meter_changes), dict(self.meter_notified), dict(self.meter_pending)),
            len(self._after),
            set(self.fenced),
        )

    def rewind(self, mark: Mark) -> None:
        """Forget what this object keeps of the writes made since ``mark``: those not sent
        (dropped: nothing of them reached the database) and what it noted of them (heads,
        keys, meters, callbacks). Writes sent meanwhile (:attr:`flushes` moved on) must be
        undone by the caller (a savepoint's rollback, or the whole transaction's)."""
        if self.flushes != mark.flushes:
            self.pending = Pending()
            self.connection.info.pop(PENDING, None)
        else:
            self.pending.rewind(mark.pending)
        for key in list(self.written)[mark.written :]:  # (stored in order, never twice)
            del self.written[key]
        self.heads, self.fenced = mark.heads, mark.fenced
        changes, notified, pending = mark.meters
        self.meter_changes, self.meter_notified, self.meter_pending = changes, notified, pending
        del self._after[mark.after :]

    def flush_meters(self) -> None:
        """Write the meter credits still pending (before a read of balances)."""
        if self.meter_pending:
            pending, self.meter_pending = self.meter_pending, {}
            for meter_id, amount in sorted(pending.items()):
                self.meter_changes[meter_id] = self.move_meter(meter_id, amount)

    def move_meter(self, meter_id: str, amount: int) -> int:
        """Add ``amount`` to the meter's balance now; returns the new balance."""
        raise NotImplementedError  # pragma: no cover - the ledger implements it

    def flush_writes(self) -> None:
        """Send the writes left for the commit, now (before another statement)."""
        raise NotImplementedError  # pragma: no cover - the ledger implements it

    def defer_writes(self) -> None:
        """PostgreSQL: from now on, a table request's events (``append_events``) and
        idempotency record (``idempotency_put``) wait for the commit with its ledger batch,
        as :class:`Pending` says; a key stored twice is then refused at once if this
        transaction stored it, else by the commit (``store.idempotency_exists``), and a race
        for a log's seq by the commit (``store.chain_race``). SQLite: nothing changes (no
        round trips)."""
        self.deferring = self.postgres

    def note_pending(self) -> None:
        """Something was left for the commit: any statement of this transaction sends it
        first (SQLAlchemy's, through the engine's hook :func:`flush_pending`, or the
        driver's, through :meth:`driver_rows`)."""
        self.connection.info[PENDING] = self

    def take_pending(self) -> Pending:
        """The writes left for the commit, no longer left (to be sent by the caller)."""
        pending, self.pending = self.pending, Pending()
        self.connection.info.pop(PENDING, None)
        return pending

    # -- the hottest statements, written for the driver -----------------------------------------

    def driver_rows(self, sql: str, params: Sequence[Any]) -> list[Any]:
        """Run ``sql`` (``?`` placeholders; the store's own text) with ``params`` already in the
        form the column types bind them (:func:`bind_time`); returns all its rows.

        For the statements every request runs (its log's head and idempotency key, its
        events, its idempotency record, the ledger's batch): SQLAlchemy Core compiles nothing
        for them, but its execution still costs ~0.03 ms per statement in Python. They go
        straight to the driver's own connection, inside the transaction SQLAlchemy began on
        it (PostgreSQL: psycopg prepares a statement once it has run a few times on a
        connection). This is the store's one way past SQLAlchemy to the driver. A driver error
        is raised as SQLAlchemy's ``DBAPIError`` (what :meth:`Store.run` retries or
        translates), as for every other statement; a lost connection is invalidated, as
        SQLAlchemy does with its own, so that ``Store.run`` runs the transaction again on a
        new one. The writes left for the commit are sent first."""
        if self.pending:
            self.flush_writes()
        driver = self.driver_connection()
        try:
            if self.dialect == "sqlite":
                return list(driver.execute(sql, params).fetchall())
            with driver.cursor() as cursor:
                cursor.execute(_pyformat(sql), params)
                return cursor.fetchall() if cursor.rownumber is not None else []  # rows?
        except self._driver_error as exc:
            raise self.driver_failure(sql, params, exc) from exc

    def driver_many(self, sql: str, rows: Sequence[Sequence[Any]]) -> None:
        """:meth:`driver_rows` of a statement with many rows of parameters (executemany)."""
        if self.pending:
            self.flush_writes()
        driver = self.driver_connection()
        try:
            if self.dialect == "sqlite":
                driver.executemany(sql, rows)
                return
            with driver.cursor() as cursor:
                cursor.executemany(_pyformat(sql), [tuple(r) for r in rows])
        except self._driver_error as exc:
            raise self.driver_failure(sql, rows, exc) from exc

    def idle(self) -> bool:
        """PostgreSQL: whether nothing of this transaction was sent yet (its ``BEGIN`` may go
        with its first statements, :mod:`.pgwire`)."""
        from psycopg import pq

        status = self.driver_connection().pgconn.transaction_status
        return bool(status == pq.TransactionStatus.IDLE)

    def driver_connection(self) -> Any:
        """The driver's own connection under this transaction (sqlite3's or psycopg's)."""
        if self._driver is None:
            self._driver = self.connection.connection.driver_connection
            self._driver_error = driver_error(self.dialect)
        return self._driver

    def driver_failure(self, sql: str, params: Any, exc: Exception) -> StatementError:
        """``exc``, an error of the driver running ``sql``, as SQLAlchemy raises its own: a
        ``DBAPIError`` of the matching class; when the driver says the connection is lost,
        the connection invalidated (a new one is made for the next transaction) and the
        error marked so."""
        dialect = self.connection.dialect
        error: Any = exc  # the driver's error class, which SQLAlchemy's typing cannot name
        lost = dialect.is_disconnect(error, self.connection.connection.dbapi_connection, None)
        if lost:
            self.connection.invalidate(exc)
        return DBAPIError.instance(
            sql,
            params,
            exc,
            self._driver_error,  # set with the driver connection the statement ran on
            dialect=dialect,
            connection_invalidated=lost,
        )

    def bind_time(self, at: datetime) -> Any:
        """``at`` as a :class:`~.schema.UtcDateTime` column binds it on this database (SQLite: the
        text SQLAlchemy writes; PostgreSQL: the aware time)."""
        return _time_binder(self.connection.dialect)(at)

    def writable(self) -> None:
        """Refuses (``store.readonly``) a write inside a read-only transaction."""
        if self.readonly:
            raise StoreError("store.readonly")

    def locked(self, query: Select[Any]) -> Select[Any]:
        """``query`` with ``FOR UPDATE`` on PostgreSQL (SQLite writers are already serial)."""
        return query.with_for_update() if self.postgres and not self.readonly else query
