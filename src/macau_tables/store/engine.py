"""Engines: the database URL, SQLite's durability settings, which errors are conflicts.

SQLite: the driver's own transaction handling is switched off (``isolation_level = None``) and
every transaction is begun by us: ``BEGIN IMMEDIATE`` for a write (the write lock is taken at
once, so two writers never deadlock half-way), plain ``BEGIN`` for a read (one WAL snapshot).
Each connection sets ``journal_mode=WAL``, ``synchronous=FULL`` (a commit survives power loss),
``foreign_keys=ON`` and a busy time-out.
"""

from __future__ import annotations

import os
import sqlite3
from typing import Any, Final

from sqlalchemy import create_engine, event
from sqlalchemy.engine import URL, Connection, Engine, make_url
from sqlalchemy.exc import ArgumentError, DBAPIError

from ..errors import StoreError

__all__ = [
    "BEGIN_OPTION",
    "DEFAULT_URL",
    "ENV_VAR",
    "PG_OVERFLOW",
    "PG_POOL",
    "RETRYABLE_SQLSTATES",
    "is_retryable",
    "make_engine",
    "resolve_url",
]

ENV_VAR: Final = "MACAU_TABLES_DATABASE"
DEFAULT_URL: Final = "sqlite:///macau-tables.db"
RETRYABLE_SQLSTATES: Final = frozenset({"40001", "40P01"})
"""Serialization failure and deadlock: the transaction may simply be run again."""

BEGIN_OPTION: Final = "macau_sqlite_begin"
"""Execution option naming SQLite's ``BEGIN`` mode (``IMMEDIATE`` or ``DEFERRED``)."""

PG_POOL: Final = 24
"""PostgreSQL: the connections a store keeps open. A server's tables commit at once, each on
its own connection (a group commit per table, ``tables/group.py``): twenty tables and the
clock's thread fit, so that no transaction waits for a connection, nor opens one (a new
PostgreSQL backend each: ~2 ms of this process's CPU, and the server's fork) only to close it
when it ends, as SQLAlchemy's default (5 kept, 10 more opened and closed) did."""
PG_OVERFLOW: Final = 16
"""PostgreSQL: connections opened beyond :data:`PG_POOL` when all are busy (closed when
returned); a store holds at most ``PG_POOL + PG_OVERFLOW`` (40: two ``serve --workers``
and their listeners stay under PostgreSQL's default ``max_connections`` of 100)."""

_SQLITE_BUSY: Final = ("database is locked", "database table is locked", "database is busy")


def resolve_url(url: str | None = None) -> URL:
    """The database URL: ``url``, else ``$MACAU_TABLES_DATABASE``, else
    ``sqlite:///macau-tables.db``. ``postgresql://`` and ``postgres://`` mean psycopg 3.

    Refuses (``store.bad_url``) a URL that cannot be parsed or names another database.
    """
    text = url or os.environ.get(ENV_VAR) or DEFAULT_URL
    try:
        parsed = make_url(text)
    except ArgumentError:
        raise StoreError("store.bad_url", url=text) from None
    backend, _, driver = parsed.drivername.partition("+")
    if backend in ("postgresql", "postgres") and driver in ("", "psycopg"):
        return parsed.set(drivername="postgresql+psycopg")
    if backend == "sqlite" and driver in ("", "pysqlite"):
        return parsed
    raise StoreError("store.bad_url", url=parsed.render_as_string(hide_password=True))


def make_engine(url: URL, *, busy_timeout: float = 10.0) -> Engine:
    """An engine for ``url`` (from :func:`resolve_url`). SQLite gets its pragmas and our own
    ``BEGIN``; PostgreSQL runs at READ COMMITTED unless a transaction asks otherwise."""
    if url.get_backend_name() == "sqlite":
        engine = create_engine(url, connect_args={"check_same_thread": False})
        _sqlite_setup(engine, busy_timeout)
        return engine
    # No "ping" before each transaction (a round trip each): a connection found dead by the
    # transaction's first statement is replaced and the transaction run again (``Store.run``).
    return create_engine(
        url, isolation_level="READ COMMITTED", pool_size=PG_POOL, max_overflow=PG_OVERFLOW
    )


def _sqlite_setup(engine: Engine, busy_timeout: float) -> None:
    @event.listens_for(engine, "connect")
    def _connect(dbapi_connection: Any, _record: Any) -> None:
        dbapi_connection.isolation_level = None  # we issue BEGIN ourselves
        cursor = dbapi_connection.cursor()
        try:
            cursor.execute(f"PRAGMA busy_timeout = {int(busy_timeout * 1000)}")
            if engine.url.database not in (None, "", ":memory:"):
                cursor.execute("PRAGMA journal_mode = WAL")
            cursor.execute("PRAGMA synchronous = FULL")
            cursor.execute("PRAGMA foreign_keys = ON")
        finally:
            cursor.close()

    @event.listens_for(engine, "begin")
    def _begin(connection: Connection) -> None:
        mode = connection.get_execution_options().get(BEGIN_OPTION, "IMMEDIATE")
        statement = "BEGIN IMMEDIATE" if mode == "IMMEDIATE" else "BEGIN"
        # Sent to the driver itself (every transaction begins so); its error raised as
        # SQLAlchemy's, as for any statement ("database is locked" is then retried).
        try:
            connection.connection.driver_connection.execute(statement)  # type: ignore[union-attr]
        except sqlite3.Error as exc:
            raise DBAPIError.instance(
                statement, (), exc, sqlite3.Error, dialect=connection.dialect
            ) from exc


def is_retryable(exc: BaseException) -> bool:
    """Whether ``exc`` is a conflict that running the transaction again may resolve: SQLSTATE
    40001 (serialization failure) or 40P01 (deadlock), or SQLite's "database is locked"."""
    if not isinstance(exc, DBAPIError):
        return False
    orig = exc.orig
    state = getattr(orig, "sqlstate", None) or getattr(orig, "pgcode", None)
    if state in RETRYABLE_SQLSTATES:
        return True
    text = str(orig).lower()
    return any(busy in text for busy in _SQLITE_BUSY)
