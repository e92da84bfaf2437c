"""Opening, migrating and checking a database at start-up, on SQLite and PostgreSQL."""

from __future__ import annotations

import contextlib
import sqlite3
from pathlib import Path

import pytest
from alembic.autogenerate import compare_metadata
from alembic.migration import MigrationContext
from sqlalchemy import text

from macau_tables.errors import StoreError
from macau_tables.store import SCHEMA_VERSION, Store
from macau_tables.store.engine import resolve_url
from macau_tables.store.schema import metadata
from tests.store.support import behind_the_back, setup


def test_url_from_argument_environment_or_default(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("MACAU_TABLES_DATABASE", raising=False)
    assert resolve_url(None).render_as_string() == "sqlite:///macau-tables.db"
    monkeypatch.setenv("MACAU_TABLES_DATABASE", "postgresql://u@h:5432/db")
    assert resolve_url(None).drivername == "postgresql+psycopg"
    assert resolve_url("sqlite:///x.db").database == "x.db"
    for bad in ("mysql://u@h/db", "not a url", "postgresql+asyncpg://u@h/db"):
        with pytest.raises(StoreError) as err:
            resolve_url(bad)
        assert err.value.key == "store.bad_url"


def test_sqlite_is_durable_wal_synchronous_full_with_foreign_keys(tmp_path: Path) -> None:
    store = Store.open(f"sqlite:///{tmp_path / 'x.db'}")
    with store.engine.connect() as conn:
        assert conn.exec_driver_sql("PRAGMA journal_mode").scalar() == "wal"
        assert conn.exec_driver_sql("PRAGMA synchronous").scalar() == 2  # FULL
        assert conn.exec_driver_sql("PRAGMA foreign_keys").scalar() == 1
        assert conn.exec_driver_sql("PRAGMA busy_timeout").scalar() > 0
    store.close()


def test_a_database_not_migrated_is_refused_until_upgraded(database_url: str) -> None:
    store = Store.open(database_url)
    with pytest.raises(StoreError) as err:
        store.check()
    assert err.value.key == "store.not_migrated"
    assert "macau-tables db upgrade" in err.value.message
    assert store.upgrade() == SCHEMA_VERSION
    store.check()
    assert store.upgrade() == SCHEMA_VERSION  # again: nothing to do
    assert store.schema_version() == SCHEMA_VERSION
    store.close()


def test_the_migrations_create_exactly_the_schema_the_code_uses(store: Store) -> None:
    with store.engine.connect() as conn:
        diff = compare_metadata(MigrationContext.configure(conn), metadata)
    assert diff == []


def test_a_newer_schema_is_refused_and_not_migrated(store: Store) -> None:
    behind_the_back(store, "UPDATE schema_info SET version = :v", v=SCHEMA_VERSION + 1)
    for action in (store.check, store.upgrade):
        with pytest.raises(StoreError) as err:
            action()
        assert err.value.key == "store.schema_newer"
        assert "upgrade macau-tables" in err.value.message
    assert store.schema_version() == SCHEMA_VERSION + 1


def test_an_unknown_alembic_revision_is_a_newer_schema(store: Store) -> None:
    behind_the_back(store, "UPDATE alembic_version SET version_num = 'ffff9999'")
    with pytest.raises(StoreError) as err:
        store.check()
    assert err.value.key == "store.schema_newer"


def test_an_older_schema_is_refused_run_upgrade(store: Store) -> None:
    behind_the_back(store, "UPDATE schema_info SET version = 0")
    with pytest.raises(StoreError) as err:
        store.check()
    assert err.value.key == "store.schema_older"
    assert "macau-tables db upgrade" in err.value.message


def test_a_ledger_not_summing_to_zero_is_refused_at_start_up(store: Store) -> None:
    setup(store)
    store.check()
    behind_the_back(store, "UPDATE accounts SET balance = balance + 1 WHERE account_id = 'cashier'")
    with pytest.raises(StoreError) as err:
        store.check()
    assert err.value.key == "store.integrity_failed"
    assert "sums to 1" in err.value.message


def test_a_corrupt_sqlite_file_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "x.db"
    store = Store.open(f"sqlite:///{path}")
    store.upgrade()
    setup(store)
    store.close()  # the last connection checkpoints the WAL into the file
    with contextlib.closing(sqlite3.connect(path)) as raw:
        raw.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        page = raw.execute("PRAGMA page_size").fetchone()[0]
    data = bytearray(path.read_bytes())
    assert isinstance(page, int) and len(data) > 4 * page
    for i in range(2 * page + 8, 2 * page + 600):  # scribble over a b-tree page
        data[i] = 0xA5
    path.write_bytes(bytes(data))
    broken = Store.open(f"sqlite:///{path}")
    with pytest.raises(StoreError) as err:
        broken.check()
    assert err.value.key == "store.integrity_failed"
    assert "tables stay closed" in err.value.message
    broken.close()


def test_an_unreachable_database_says_so() -> None:
    store = Store.open("postgresql+psycopg://nobody@127.0.0.1:1/none?connect_timeout=2")
    with pytest.raises(StoreError) as err:
        store.check()
    assert err.value.key == "store.unavailable"
    with pytest.raises(StoreError) as err:
        store.run(lambda tx: tx.tables())
    assert err.value.key == "store.unavailable"
    store.close()


def test_read_only_transactions_refuse_writes(store: Store) -> None:
    with pytest.raises(StoreError) as err:
        store.read(lambda tx: tx.add_player("p", "P"))
    assert err.value.key == "store.readonly"


def test_a_sqlite_read_does_not_block_a_writer(tmp_path: Path) -> None:
    store = Store.open(f"sqlite:///{tmp_path / 'x.db'}")
    store.upgrade()
    setup(store)

    def read_while_writing(tx: object) -> int:
        store.run(lambda w: w.deposit("alice", 5, actor="c", reason="r"))
        with store.engine.connect() as conn:
            return int(conn.execute(text("SELECT COUNT(*) FROM transactions")).scalar_one())

    assert store.read(read_while_writing) >= 3
    store.close()
