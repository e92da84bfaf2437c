"""``Store``: open a database, migrate it, check it at start-up, run transactions.

See the package docstring for the API; :mod:`.engine` for the connection settings.
"""

from __future__ import annotations

import contextlib
import logging
import random
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from types import TracebackType
from typing import TYPE_CHECKING, Any, Final, TypeVar

from sqlalchemy import event, inspect, select, text
from sqlalchemy.engine import URL, Connection, Engine
from sqlalchemy.exc import DBAPIError, InterfaceError, OperationalError

from ..errors import StoreError
from . import pgwire
from . import schema as s
from ._base import METER_CHANNEL, PENDING, Clock, flush_pending, utc_now
from .engine import BEGIN_OPTION, is_retryable, make_engine, resolve_url
from .pgwire import abandon, begin_statement, escaping, text_rows
from .tx import Tx

if TYPE_CHECKING:  # alembic is imported when migrating or checking, not to run transactions
    from alembic.script import ScriptDirectory

    from .notify import _PgListener

__all__ = ["METER_CHANNEL", "Listener", "MeterCallback", "Store", "retry_delay"]

T = TypeVar("T")
MeterCallback = Callable[[str, int], None]
"""Called with ``(meter_id, amount)`` after a commit that changed the meter's amount."""


MIGRATIONS: Final = Path(__file__).with_name("migrations")

log = logging.getLogger(__name__)


def retry_delay(attempt: int) -> float:
    """Seconds to wait before retry ``attempt`` (1, 2, …): 5 ms doubling, at most 0.2 s,
    jittered by ±50 % so that conflicting writers do not meet again."""
    return min(0.2, 0.005 * 2.0 ** (attempt - 1)) * random.uniform(0.5, 1.5)


class Listener:
    """A subscription to meter changes; :meth:`close` ends it."""

    def __init__(self, close: Callable[[], None]) -> None:
        self._close = close
        self._closed = False

    def close(self) -> None:
        """Stop calling the callback (idempotent)."""
        if not self._closed:
            self._closed = True
            self._close()


class Store:
    """A database holding tables, their event logs, the ledger and the meters."""

    def __init__(self, engine: Engine, *, clock: Clock = utc_now) -> None:
        self.engine = engine
        self.clock = clock
        self.dialect: str = engine.dialect.name
        self._callbacks: list[MeterCallback] = []
        self._listeners: list[Listener] = []
        self._pg_listener: _PgListener | None = None
        self._lock = threading.Lock()
        # SQLite takes one writer at a time: this process's writers queue here and are woken
        # the moment the one before commits, instead of polling SQLite's lock in its busy
        # handler (which sleeps up to 100 ms between tries). Other processes still meet the
        # database's own lock and its busy_timeout.
        self._sqlite_writer = threading.RLock() if self.dialect == "sqlite" else None
        if self.dialect == "postgresql" and not event.contains(
            engine, "before_cursor_execute", flush_pending
        ):  # a ledger batch left for the commit is written before any other statement
            event.listen(engine, "before_cursor_execute", flush_pending)

    @classmethod
    def open(
        cls, url: str | None = None, *, clock: Clock = utc_now, busy_timeout: float = 10.0
    ) -> Store:
        """The store at ``url`` (else ``$MACAU_TABLES_DATABASE``, else
        ``sqlite:///macau-tables.db``). Nothing is checked yet: call :meth:`check` (or
        :meth:`upgrade`). Refuses a URL it cannot use (``store.bad_url``)."""
        return cls(make_engine(resolve_url(url), busy_timeout=busy_timeout), clock=clock)

    @property
    def url(self) -> str:
        """The database URL without its password."""
        return self.engine.url.render_as_string(hide_password=True)

    @property
    def raw_url(self) -> URL:
        """The database URL (with its password: for child processes, never for display)."""
        return self.engine.url

    def close(self) -> None:
        """Stop the listeners and close every connection."""
        for listener in list(self._listeners):
            listener.close()
        self.engine.dispose()

    def __enter__(self) -> Store:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.close()

    # -- schema -------------------------------------------------------------------------------

    def schema_version(self) -> int | None:
        """The schema version recorded in the database (``None`` when not migrated)."""
        with self._reading() as conn:
            return _schema_version(conn)

    def upgrade(self) -> int:
        """Create or migrate the schema to this code's version; returns it. Refuses a database
        from a newer schema (``store.schema_newer``)."""
        with self._translate():
            with self._reading() as conn:
                self._refuse_newer(conn)
            from alembic import command
            from alembic.config import Config

            with self.engine.begin() as conn:
                config = Config()
                config.set_main_option("script_location", str(MIGRATIONS))
                config.attributes["connection"] = conn
                command.upgrade(config, "head")
            with self._reading() as conn:
                version = _schema_version(conn)
        assert version is not None
        return version

    def check(self) -> None:
        """Start-up check: refuses a database that is not migrated (``store.not_migrated``),
        older (``store.schema_older``) or newer (``store.schema_newer``) than this code, or
        that fails its integrity check (``store.integrity_failed``: SQLite ``quick_check``;
        the ledger sums to zero)."""
        with self._translate(), self._reading() as conn:
            self._refuse_newer(conn)
            version = _schema_version(conn)
            if version is None:
                raise StoreError("store.not_migrated", url=self.url)
            if version < s.SCHEMA_VERSION or _revision(conn) not in _heads():
                raise StoreError(
                    "store.schema_older", url=self.url, found=version, supported=s.SCHEMA_VERSION
                )
            if self.dialect == "sqlite":
                rows = [r[0] for r in conn.exec_driver_sql("PRAGMA quick_check")]
                if rows != ["ok"]:
                    raise StoreError(
                        "store.integrity_failed", url=self.url, detail="; ".join(rows)[:300]
                    )
            total = conn.execute(select(s.accounts.c.balance)).scalars()
            balance = sum(int(b) for b in total)
            conn.rollback()
            if balance:
                raise StoreError(
                    "store.integrity_failed",
                    url=self.url,
                    detail=f"the ledger sums to {balance}, not 0",
                )

    def _refuse_newer(self, conn: Connection) -> None:
        version = _schema_version(conn)
        revision = _revision(conn)
        known = _revisions()
        if (version is not None and version > s.SCHEMA_VERSION) or (
            revision is not None and revision not in known
        ):
            raise StoreError(
                "store.schema_newer",
                url=self.url,
                found=version if version is not None else revision,
                supported=s.SCHEMA_VERSION,
            )

    # -- transactions -------------------------------------------------------------------------

    def run(
        self,
        fn: Callable[[Tx], T],
        *,
        retries: int = 5,
        readonly: bool = False,
        serializable: bool = False,
    ) -> T:
        """``fn(tx)`` in one database transaction, committed; returns what ``fn`` returns.

        Conflicts (SQLSTATE 40001/40P01, SQLite "database is locked") are retried at most
        ``retries`` times, then refused (``store.retries_exhausted``); any other exception
        rolls back and propagates (database errors as ``store.unavailable`` /
        ``store.database_error``). After the commit: meter notifications, then the
        transaction's ``after_commit`` callbacks.
        """
        attempt = 0
        reconnected = False
        while True:
            try:
                result, tx = self._attempt(fn, readonly=readonly, serializable=serializable)
            except _Disconnected as lost:
                # The connection was found dead before the commit was sent: nothing of this
                # transaction can have committed, so it runs once more on a new connection
                # (instead of a "ping" before every transaction).
                if reconnected:
                    raise _database_error(lost.error, self.url) from lost.error
                reconnected = True
                log.info("database connection lost, running the transaction again: %s", lost)
                continue
            except DBAPIError as exc:
                if not is_retryable(exc):
                    raise _database_error(exc, self.url) from exc
                attempt += 1
                if attempt > retries:
                    raise StoreError("store.retries_exhausted", attempts=attempt) from exc
                log.debug("conflict, retry %d of %d: %s", attempt, retries, exc.orig)
                time.sleep(retry_delay(attempt))
                continue
            break
        if tx.meter_changes and self.dialect != "postgresql":
            for meter_id, amount in tx.meter_changes.items():
                self._dispatch(meter_id, amount)
        tx.run_after_commit()
        return result

    def read(self, fn: Callable[[Tx], T]) -> T:
        """``fn(tx)`` in one read-only transaction (one consistent snapshot)."""
        return self.run(fn, readonly=True)

    def _attempt(
        self, fn: Callable[[Tx], T], *, readonly: bool, serializable: bool
    ) -> tuple[T, Tx]:
        options: dict[str, Any] = {}
        if self.dialect == "postgresql":
            if readonly:
                options = {"isolation_level": "REPEATABLE READ", "postgresql_readonly": True}
            elif serializable:
                options = {"isolation_level": "SERIALIZABLE"}
        else:
            options = {BEGIN_OPTION: "DEFERRED" if readonly else "IMMEDIATE"}
        gate = self._sqlite_writer if self._sqlite_writer is not None and not readonly else None
        with gate or contextlib.nullcontext(), self.engine.connect() as conn:
            if options:
                conn = conn.execution_options(**options)
            try:
                with conn.begin():
                    tx = Tx(conn, clock=self.clock, readonly=readonly)
                    try:
                        result = fn(tx)
                    except DBAPIError as exc:
                        if exc.connection_invalidated:
                            raise _Disconnected(exc) from exc
                        raise
                    if self.dialect == "postgresql":
                        self._commit_pg(conn, tx)
            finally:
                if self.dialect == "postgresql" and not conn.invalidated:
                    conn.info.pop(PENDING, None)  # (writes refused or rolled back with it)
        return result, tx

    def _commit_pg(self, conn: Connection, tx: Tx) -> None:
        """PostgreSQL, the end of ``tx``: the meters it changed by statements are notified;
        then its ledger batch left for the commit and its meters' credits are written with the
        ``COMMIT`` in one round trip (:func:`_commit_pg`)."""
        for meter_id, amount in sorted(tx.meter_changes.items()):
            if tx.meter_notified.get(meter_id) == amount:
                continue  # its last change was notified by that statement
            if meter_id in tx.meter_pending:
                continue  # notified with the commit below
            # Delivered by PostgreSQL only when (and if) this transaction commits.
            conn.execute(
                text("SELECT pg_notify(:channel, :payload)"),
                {"channel": METER_CHANNEL, "payload": f"{meter_id}:{amount}"},
            )
        if tx.meter_pending or tx.pending:
            tx.meter_changes.update(_commit_pg(tx))

    # -- meter notifications ------------------------------------------------------------------

    def listen_meters(self, callback: MeterCallback) -> Listener:
        """Call ``callback(meter_id, amount)`` after every committed change of a meter's
        amount, made by this process or (PostgreSQL) any other; returns the subscription."""
        with self._lock:
            stale = self._pg_listener is not None and not self._pg_listener.alive
            if self.dialect == "postgresql" and (self._pg_listener is None or stale):
                # One LISTEN connection per store, whatever the number of subscribers (every
                # table of a server process subscribes: one connection each would exhaust
                # PostgreSQL's ``max_connections`` at a hundred tables); it calls them all. One
                # that lost its connection is replaced by the next subscription.
                from .notify import pg_listen

                pg = pg_listen(self.engine.url, METER_CHANNEL, self._dispatch)
                self._pg_listener = pg
                self._listeners.append(Listener(pg.close))
            self._callbacks.append(callback)

        def remove() -> None:
            with self._lock:
                if callback in self._callbacks:
                    self._callbacks.remove(callback)

        return Listener(remove)

    def _dispatch(self, meter_id: str, amount: int) -> None:
        with self._lock:
            callbacks = list(self._callbacks)
        for callback in callbacks:
            try:
                callback(meter_id, amount)
            except Exception:  # a subscriber's bug must not undo a committed transaction
                log.exception("meter callback failed")

    # -- errors -------------------------------------------------------------------------------

    @contextmanager
    def _reading(self) -> Iterator[Connection]:
        with self.engine.connect() as conn:
            yield conn.execution_options(**{BEGIN_OPTION: "DEFERRED"})

    def _translate(self) -> _Translate:
        return _Translate(self.url)


def _commit_pg(tx: Tx) -> dict[str, int]:
    """PostgreSQL: send ``tx``'s writes left for the commit (:class:`~._base.Pending`: the
    events and idempotency records of its table requests, its ledger batch — ``macau_post``),
    add the pending credits to their meters (``macau_move_meter``: each notified) and COMMIT,
    in ONE round trip (a simple query of several statements, :mod:`.pgwire`). When nothing of
    the transaction was sent yet (a transaction that only posts), its ``BEGIN`` goes in the
    same round trip. A meter's row is then held only while the server applies that update and
    flushes the commit, never across a round trip to this process, so writers queued on it
    follow one another as fast as bare updates would. Returns the meters' new amounts. (The
    caller's own COMMIT then finds nothing to do.)

    A refusal of the ledger's check, an unknown meter, a key stored meanwhile or a race for a
    log's seq fails that statement: the rest, ``COMMIT`` included, is not run, the transaction
    is rolled back and the refusal raised (:meth:`~.ledger_ops.LedgerOps.pending_failure`)."""
    raw = tx.driver_connection()
    begin = begin_statement(raw)
    parts: list[bytes] = [] if begin is None else [begin]
    writes, batch = tx.pending_statements(raw)
    parts += writes
    ledger_at = len(parts) - 1  # (the batch's call is the writes' last statement)
    pending = tx.meter_pending
    meters = sorted(pending)
    escape = escaping(raw)
    for meter_id in meters:
        amount = pending[meter_id]
        if type(amount) is not int:  # pragma: no cover - the ledger's sums are ints
            raise StoreError("store.bad_value", field="amount", value=repr(amount))
        parts.append(b"SELECT macau_move_meter(%b, %d)" % (_meter_args(escape, meter_id), amount))
    parts.append(b"COMMIT")
    query = b"; ".join(parts)
    amounts: dict[str, int] = {}
    try:
        results = pgwire.simple_query(raw, query)
        if batch is not None:
            tx._pg_done(batch, text_rows(results[ledger_at]))
        at = ledger_at + 1
        for meter_id in meters:
            amounts[meter_id] = int(results[at].get_value(0, 0))
            at += 1
    except tx._driver_error as exc:
        if begin is not None:
            abandon(raw)
        raise tx.pending_failure(batch, exc, query) from exc
    pending.clear()
    return amounts


_METER_ARGS: dict[str, bytes] = {}


def _meter_args(escape: Callable[[bytes], bytes], meter_id: str) -> bytes:
    """``macau_move_meter``'s first two arguments for ``meter_id`` (its account and its id,
    quoted by the driver; made once per meter)."""
    args = _METER_ARGS.get(meter_id)
    if args is None:
        account = escape(f"jackpot_meter:{meter_id}".encode())
        args = _METER_ARGS[meter_id] = b"%b, %b" % (account, escape(meter_id.encode()))
    return args


class _Disconnected(Exception):
    """The database connection was lost while a transaction ran, before its commit."""

    def __init__(self, error: DBAPIError) -> None:
        super().__init__(str(error.orig or error).strip().splitlines()[0][:300])
        self.error = error


class _Translate:
    """Turns a database error into a ``StoreError`` (a ``with`` block)."""

    def __init__(self, url: str) -> None:
        self.url = url

    def __enter__(self) -> None:
        return None

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        if isinstance(exc, DBAPIError):
            raise _database_error(exc, self.url) from exc


def _database_error(exc: DBAPIError, url: str) -> StoreError:
    if _is_chain_race(exc):
        return StoreError("store.chain_race")
    detail = str(exc.orig).strip().splitlines()[0][:300] if exc.orig else str(exc)[:300]
    if isinstance(exc, OperationalError | InterfaceError) or exc.connection_invalidated:
        return StoreError("store.unavailable", url=url, error=detail)
    return StoreError("store.database_error", url=url, error=detail)


def _is_chain_race(exc: DBAPIError) -> bool:
    """Whether ``exc`` is two appends to one table's log racing for the same seq."""
    diag = getattr(exc.orig, "diag", None)
    if getattr(diag, "constraint_name", None) == "events_pkey":
        return True
    return "UNIQUE constraint failed: events.table_id, events.seq" in str(exc.orig)


def _schema_version(conn: Connection) -> int | None:
    if not inspect(conn).has_table("schema_info"):
        return None
    value = conn.execute(
        select(s.schema_info.c.version).where(s.schema_info.c.id == 1)
    ).scalar_one_or_none()
    conn.rollback()
    return None if value is None else int(value)


def _revision(conn: Connection) -> str | None:
    if not inspect(conn).has_table("alembic_version"):
        return None
    value = conn.exec_driver_sql("SELECT version_num FROM alembic_version").scalar()
    conn.rollback()
    return None if value is None else str(value)


def _scripts() -> ScriptDirectory:
    from alembic.script import ScriptDirectory

    return ScriptDirectory(str(MIGRATIONS))


def _revisions() -> frozenset[str]:
    return frozenset(r.revision for r in _scripts().walk_revisions())


def _heads() -> frozenset[str]:
    return frozenset(_scripts().get_heads())
