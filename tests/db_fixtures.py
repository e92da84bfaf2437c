"""Database fixtures for the store and the table service, on SQLite and PostgreSQL.

``database_url`` (parametrised ``sqlite`` / ``postgresql``) is an empty database: a file in
``tmp_path``, or a fresh schema of a scratch PostgreSQL database ``mt_<random>`` of this worker
(``pg_worker_database``) on the server of :data:`PG_ADMIN_URL` (``$MACAU_TABLES_TEST_PG``
overrides). ``store`` is a migrated :class:`~macau_tables.store.Store`: a copy of a SQLite file
migrated once per session, or on PostgreSQL the worker's database copied once from a template
migrated once per session (``pg_worker_store_database``), emptied between tests. A worker's
databases are made once and dropped at its end (creating and dropping one per test module
cost a second or more of the server's each); the connections a test module leaves open to
them are closed at the module's end, as dropping its database did. ``pg_module_database`` is
an empty database of a module's own (a real server's first start). PostgreSQL unreachable:
the PostgreSQL half is skipped, or fails under ``MACAU_TABLES_REQUIRE_ALL=1``.

No commit here waits for the disk: the scratch PostgreSQL databases are made with
``synchronous_commit = off`` (every session on them, a child process's too) and the ``store``
fixture's SQLite connections run at ``synchronous = NORMAL`` (WAL: the log is synced at its
checkpoints, not at each commit). What a commit makes visible, to whom and when, is the same —
a killed process (``tests/faults``) loses nothing it committed — and only a power cut or a
crash of the operating system (or of the PostgreSQL server) could lose the last commits, which
no test makes; each commit's wait for the disk (~3 ms here, thousands of commits a run) is
gone. A store a test opens itself keeps the store's own ``synchronous = FULL``.
"""

from __future__ import annotations

import functools
import os
import secrets
import shutil
import sqlite3
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from datetime import date
from pathlib import Path
from typing import Any

import pytest

PG_ADMIN_URL = os.environ.get(
    "MACAU_TABLES_TEST_PG", "postgresql+psycopg://postgres@127.0.0.1:5432/test"
)
BACKENDS = ("sqlite", "postgresql")
REQUIRE_ALL = os.environ.get("MACAU_TABLES_REQUIRE_ALL") == "1"  # as tests/conftest.py


def _pg_unavailable(reason: str) -> None:
    if REQUIRE_ALL:
        pytest.fail(f"PostgreSQL is required in CI (MACAU_TABLES_REQUIRE_ALL=1): {reason}")
    pytest.skip(f"PostgreSQL is not reachable: {reason}")


def _scratch_database(template: str | None = None) -> Iterator[str]:
    """Create a scratch database ``mt_<random>`` (a copy of ``template``, else empty) on the
    server of :data:`PG_ADMIN_URL`, yield its URL, drop it afterwards."""
    sqlalchemy = pytest.importorskip("sqlalchemy")
    from sqlalchemy.engine import make_url

    admin = make_url(PG_ADMIN_URL)
    name = f"mt_{secrets.token_hex(6)}"
    copy = f' TEMPLATE "{make_url(template).database}"' if template else ""
    try:
        engine = sqlalchemy.create_engine(admin, isolation_level="AUTOCOMMIT")
        with engine.connect() as conn:
            conn.exec_driver_sql(f'CREATE DATABASE "{name}"{copy}')
            conn.exec_driver_sql(f'ALTER DATABASE "{name}" SET synchronous_commit = off')
    except Exception as exc:  # unreachable server, no driver, no rights
        _pg_unavailable(str(exc).splitlines()[0])
    try:
        yield admin.set(database=name).render_as_string(hide_password=False)
    finally:
        with engine.connect() as conn:
            conn.exec_driver_sql(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
        engine.dispose()


def _close_others(url: str) -> None:
    """Close every connection to the database of ``url`` but this one's."""
    import sqlalchemy

    engine = sqlalchemy.create_engine(url, isolation_level="AUTOCOMMIT")
    try:
        with engine.connect() as conn:
            conn.exec_driver_sql(
                "SELECT pg_terminate_backend(pid) FROM pg_stat_activity "
                "WHERE datname = current_database() AND pid <> pg_backend_pid()"
            )
    finally:
        engine.dispose()


@pytest.fixture(scope="module")
def pg_module_database() -> Iterator[str]:
    """A scratch PostgreSQL database for this test module (its URL), empty; dropped afterwards."""
    yield from _scratch_database()


@pytest.fixture(scope="session")
def pg_worker_database() -> Iterator[str]:
    """A scratch PostgreSQL database of this pytest-xdist worker (its URL), for
    ``database_url`` (which empties its schema for each test); dropped at the worker's end."""
    yield from _scratch_database()


@pytest.fixture(scope="module")
def pg_module_end(request: pytest.FixtureRequest) -> Iterator[list[str]]:
    """The worker's databases this module used: at its end, their connections left open
    (a leaked engine, a thread's) are closed, as dropping a module's database closed them."""
    used: list[str] = []
    yield used
    for url in dict.fromkeys(used):
        _close_others(url)


def _used_by_module(request: pytest.FixtureRequest, url: str) -> str:
    ended: list[str] = request.getfixturevalue("pg_module_end")
    ended.append(url)
    return url


@pytest.fixture(scope="session")
def pg_template_database() -> Iterator[str]:
    """A migrated, empty PostgreSQL database, migrated once per session (per pytest-xdist
    worker): the template :func:`pg_worker_store_database` is copied from (a copy is a file
    copy on the server, far quicker than running every migration again)."""
    from macau_tables.store import Store

    for url in _scratch_database():
        template = Store.open(url)
        try:
            template.upgrade()
        finally:
            template.close()  # no connection may stay open on a template being copied
        yield url


@pytest.fixture(scope="session")
def pg_worker_store_database(pg_template_database: str) -> Iterator[str]:
    """A scratch PostgreSQL database for this worker's ``store`` / ``pg_store``, migrated (a
    copy of :func:`pg_template_database`); dropped at the worker's end."""
    yield from _scratch_database(template=pg_template_database)


def _reset_pg(url: str) -> None:
    import sqlalchemy

    engine = sqlalchemy.create_engine(url, isolation_level="AUTOCOMMIT")
    try:
        with engine.connect() as conn:
            conn.exec_driver_sql("DROP SCHEMA public CASCADE")
            conn.exec_driver_sql("CREATE SCHEMA public")
    finally:
        engine.dispose()


@pytest.fixture(params=BACKENDS)
def database_url(request: pytest.FixtureRequest, tmp_path: Path) -> str:
    """An empty database's URL, on each backend."""
    if request.param == "sqlite":
        return f"sqlite:///{tmp_path / 'macau-tables.db'}"
    url = _used_by_module(request, request.getfixturevalue("pg_worker_database"))
    _reset_pg(url)
    return url


@functools.cache
def _current_schema() -> tuple[int, frozenset[str]]:
    """This code's schema version and its Alembic head revisions (read from the migrations
    once per process)."""
    from macau_tables.store import SCHEMA_VERSION
    from macau_tables.store.store import _heads

    return SCHEMA_VERSION, _heads()


@functools.cache
def _emptying() -> str:
    """One text deleting every row of every table but ``schema_info`` (children first)."""
    from macau_tables.store.schema import metadata

    tables = [t.name for t in reversed(metadata.sorted_tables) if t.name != "schema_info"]
    return "; ".join(f'DELETE FROM "{name}"' for name in tables)


def _pg_truncate_if_current(store: Any) -> bool:
    """Empty every table of a PostgreSQL database already at the current schema (much faster
    than creating the schema again); ``False`` when the schema is not current (not migrated, an
    older version, a foreign or newer Alembic revision: nothing is deleted then). One
    transaction on a connection of ``store``'s own pool — the one its test then uses first: no
    server process started for the emptying alone, and the one it starts has read every table
    once — and the version and the revision are one read, not a run of Alembic, and the
    deletions one text (DELETE is far quicker than TRUNCATE on tiny tables)."""
    import psycopg

    version, heads = _current_schema()
    pooled = store.engine.raw_connection()
    conn = pooled.driver_connection
    try:
        try:
            found = conn.execute(
                "SELECT (SELECT version FROM schema_info WHERE id = 1), "
                "(SELECT min(version_num) FROM alembic_version), "
                "(SELECT count(*) FROM alembic_version)"
            ).fetchone()
        except psycopg.errors.UndefinedTable:  # a table missing: not migrated
            conn.rollback()
            return False
        if found is None or (found[0], found[2]) != (version, 1) or found[1] not in heads:
            conn.rollback()
            return False
        conn.execute(_emptying().encode())
        conn.commit()
        return True
    finally:
        pooled.close()  # back to the pool


@pytest.fixture(scope="session")
def sqlite_template(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A migrated, empty SQLite file, migrated once per session (tests get a copy)."""
    from macau_tables.store import Store

    path = tmp_path_factory.mktemp("template") / "macau-tables.db"
    template = Store.open(f"sqlite:///{path}")
    template.upgrade()
    template.close()  # the last connection folds the WAL into the file
    return path


def _sync_normal(dbapi_connection: Any, _record: Any) -> None:
    cursor = dbapi_connection.cursor()
    try:
        cursor.execute("PRAGMA synchronous = NORMAL")
    finally:
        cursor.close()


def _migrated_store(request: pytest.FixtureRequest, backend: str, tmp_path: Path) -> object:
    from sqlalchemy import event

    from macau_tables.store import Store

    if backend == "sqlite":
        template: Path = request.getfixturevalue("sqlite_template")
        path = tmp_path / "macau-tables.db"
        shutil.copyfile(template, path)
        copied = Store.open(f"sqlite:///{path}")  # a copy of a migrated file: current already
        event.listen(copied.engine, "connect", _sync_normal)  # after the store's own pragmas
        return copied
    url = _used_by_module(request, request.getfixturevalue("pg_worker_store_database"))
    opened = Store.open(url)
    if _pg_truncate_if_current(opened):
        return opened  # emptied at the current schema: nothing to migrate
    opened.close()
    _reset_pg(url)
    opened = Store.open(url)
    opened.upgrade()
    return opened


@pytest.fixture(params=BACKENDS)
def migrated_url(request: pytest.FixtureRequest, tmp_path: Path) -> str:
    """A migrated, empty database's URL, on each backend, no store open on it (what the
    ``store`` fixture opens: not a run of every migration per test)."""
    opened: Any = _migrated_store(request, request.param, tmp_path)
    url = opened.raw_url.render_as_string(hide_password=False)
    opened.close()
    return str(url)


@pytest.fixture(params=BACKENDS)
def store(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[object]:
    """A migrated, empty store on each backend (closed afterwards)."""
    opened = _migrated_store(request, request.param, tmp_path)
    try:
        yield opened
    finally:
        opened.close()  # type: ignore[attr-defined]


@pytest.fixture
def pg_store(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[object]:
    """A migrated, empty store on PostgreSQL only (multi-process, row locks, NOTIFY)."""
    opened = _migrated_store(request, "postgresql", tmp_path)
    try:
        yield opened
    finally:
        opened.close()  # type: ignore[attr-defined]


@dataclass(frozen=True)
class _Filled:
    """What a fill wrote: on SQLite the whole database (an in-memory copy, laid over a store
    with SQLite's backup, page by page); on PostgreSQL each non-empty table's rows as
    ``COPY`` text and the largest key of each serial column (its sequence is set to it)."""

    sqlite: sqlite3.Connection | None = None
    tables: tuple[tuple[str, bytes], ...] = ()
    sequences: tuple[tuple[str, str, int], ...] = ()


_FILLED: dict[tuple[str, str, date], _Filled] = {}


def filled(store: Any, key: str, fill: Callable[[Any], object]) -> None:
    """Write into ``store`` — empty and migrated, as the ``store`` fixture gives it (on
    SQLite its whole content is replaced) — the rows ``fill(store)`` writes. The first call
    with ``key`` on a backend (in this process: a pytest worker) runs ``fill`` and keeps what
    it wrote; every later call writes that again instead of running ``fill`` (SQLite: a copy
    of the database's pages; PostgreSQL: ``COPY`` into each table, in one transaction — no
    statement compiled, no row made an object): a set-up many tests share (the
    demonstration casino and its users, for the server's tests) is paid once per worker and
    backend, not once per test. ``fill`` must write the same rows for every test that names
    ``key``: the copies carry the first call's identifiers, hashes and times. The rows kept
    are those of the store clock's business day in Macau (the tables' opening date): a run
    crossing midnight there (16:00 UTC) fills again, so no test is given yesterday's rows."""
    from macau_tables.tables.clock import opening_date

    day = opening_date(store.clock())
    saved = _FILLED.get((key, store.dialect, day))
    if saved is None:
        fill(store)
        _FILLED[(key, store.dialect, day)] = _keep(store)
        return
    if saved.sqlite is not None:
        with store.engine.connect() as conn:  # no transaction: the backup is its own
            saved.sqlite.backup(conn.connection.driver_connection)
        return
    with store.engine.begin() as conn, conn.connection.driver_connection.cursor() as cursor:
        for name, rows in saved.tables:
            with cursor.copy(f'COPY "{name}" FROM STDIN') as copy:
                copy.write(rows)
        # a key written explicitly does not move its sequence
        for name, column, largest in saved.sequences:
            cursor.execute(
                "SELECT setval(pg_get_serial_sequence(%s, %s), %s)", (name, column, largest)
            )


def empty(store: Any) -> bool:
    """Whether ``store`` is at the current schema and holds no row but the schema's own (as
    the ``store`` fixture gives it): one statement. An older schema is not empty."""
    from sqlalchemy.exc import DBAPIError

    from macau_tables.store.schema import SCHEMA_VERSION, metadata

    names = [t.name for t in metadata.sorted_tables if t.name != "schema_info"]
    query = "SELECT (SELECT version FROM schema_info WHERE id = 1) = {} AND NOT ({})".format(
        int(SCHEMA_VERSION), " OR ".join(f'EXISTS (SELECT 1 FROM "{name}")' for name in names)
    )
    try:
        with store.engine.connect() as conn:
            return bool(conn.exec_driver_sql(query).scalar())
    except DBAPIError:  # a table of the current schema missing
        return False


def _keep(store: Any) -> _Filled:
    """What ``store`` holds now, as :func:`filled` writes it again."""
    from sqlalchemy import func, select

    from macau_tables.store.schema import metadata

    with store.engine.connect() as conn:
        driver = conn.connection.driver_connection
        if store.dialect == "sqlite":
            copy = sqlite3.connect(":memory:", check_same_thread=False)
            driver.backup(copy)
            return _Filled(sqlite=copy)
        tables: list[tuple[str, bytes]] = []
        sequences: list[tuple[str, str, int]] = []
        for table in metadata.sorted_tables:
            count = select(func.count()).select_from(table)
            if table.name == "schema_info" or not conn.scalar(count):
                continue
            with driver.cursor() as cursor, cursor.copy(f'COPY "{table.name}" TO STDOUT') as out:
                tables.append((table.name, b"".join(bytes(part) for part in out)))
            for column in table.primary_key.columns:
                if column.autoincrement is True:
                    largest = conn.scalar(select(func.max(column)))
                    sequences.append((table.name, column.name, int(largest)))
    return _Filled(tables=tuple(tables), sequences=tuple(sequences))


def on_sqlite_first_on_both(argnames: str, values: Sequence[Any]) -> pytest.MarkDecorator:
    """``pytest.mark.parametrize(argnames, values)`` with the ``store`` fixture's backend
    chosen per case: every value on SQLite, the first one on PostgreSQL too. For checks of
    input the server refuses before the database matters (a header, a ``next`` URL, a body's
    shape): each database still answers one of them, the other values are the same path on
    the other database."""
    several = "," in argnames
    cases = [("sqlite", *v) if several else ("sqlite", v) for v in values]
    first = values[0]
    cases.append(("postgresql", *first) if several else ("postgresql", first))
    return pytest.mark.parametrize(f"store,{argnames}", cases, indirect=["store"])
