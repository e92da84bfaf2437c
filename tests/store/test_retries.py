"""Serialization failures are retried, at most ``retries`` times, then refused; other errors
are not retried (on SQLite and PostgreSQL)."""

from __future__ import annotations

import threading
from collections.abc import Callable
from pathlib import Path

import pytest
from sqlalchemy.exc import IntegrityError, OperationalError

from macau_tables.errors import StoreError
from macau_tables.store import Store, Tx
from macau_tables.store.engine import is_retryable
from tests.store.support import count, setup


class FakeDriverError(Exception):
    """What a driver raises: psycopg errors carry ``sqlstate``."""

    def __init__(self, message: str, sqlstate: str | None = None) -> None:
        super().__init__(message)
        self.sqlstate = sqlstate


def conflict(sqlstate: str = "40001", message: str = "could not serialize access") -> Exception:
    return OperationalError("UPDATE ...", {}, FakeDriverError(message, sqlstate))


def flaky(failures: int, error: Exception | None = None) -> tuple[list[int], Callable[[Tx], str]]:
    """A transaction function that writes a player, then fails ``failures`` times first."""
    calls: list[int] = []

    def fn(tx: Tx) -> str:
        calls.append(1)
        tx.add_player(f"p{len(calls)}", "P")
        if len(calls) <= failures:
            raise error or conflict()
        return f"p{len(calls)}"

    return calls, fn


@pytest.mark.parametrize(
    "error",
    [
        conflict("40001"),
        conflict("40P01", "deadlock detected"),
        OperationalError("BEGIN IMMEDIATE", {}, FakeDriverError("database is locked")),
    ],
)
def test_conflicts_are_retried_and_the_failed_attempts_leave_nothing(
    store: Store, error: Exception
) -> None:
    calls, fn = flaky(3, error)
    assert store.run(fn, retries=5) == "p4"
    assert len(calls) == 4
    assert [p.player_id for p in store.read(lambda tx: tx.players())] == ["p4"]


def test_retries_are_bounded_then_refused(store: Store) -> None:
    calls, fn = flaky(100)
    with pytest.raises(StoreError) as err:
        store.run(fn, retries=3)
    assert err.value.key == "store.retries_exhausted"
    assert err.value.params["attempts"] == 4
    assert len(calls) == 4
    assert count(store, "players") == 0
    calls, fn = flaky(100)
    with pytest.raises(StoreError):
        store.run(fn, retries=0)
    assert len(calls) == 1


def test_other_errors_are_not_retried(store: Store) -> None:
    integrity = IntegrityError("INSERT ...", {}, FakeDriverError("duplicate key", "23505"))
    calls, fn = flaky(1, integrity)
    with pytest.raises(StoreError) as err:
        store.run(fn)
    assert err.value.key == "store.database_error"
    assert len(calls) == 1
    calls, fn = flaky(1, ValueError("a bug"))
    with pytest.raises(ValueError):
        store.run(fn)
    assert len(calls) == 1


def test_what_counts_as_a_conflict() -> None:
    assert is_retryable(conflict("40001")) and is_retryable(conflict("40P01"))
    assert not is_retryable(conflict("23505", "duplicate"))
    assert not is_retryable(ValueError("database is locked"))


def test_a_real_postgresql_serialization_failure_is_retried(pg_store: Store) -> None:
    store = pg_store
    calls: list[int] = []

    def fn(tx: Tx) -> int:
        calls.append(1)
        if len(calls) < 3:
            tx.connection.exec_driver_sql(
                "DO $$ BEGIN RAISE EXCEPTION 'injected' USING ERRCODE = '40001'; END $$"
            )
        return len(calls)

    assert store.run(fn) == 3


def test_real_serializable_conflicts_on_postgresql_all_commit(pg_store: Store) -> None:
    """Writers reading and writing the same rows under SERIALIZABLE conflict for real; each
    is retried until it commits, and every one of them counts."""
    store = pg_store
    setup(store, players={"alice": 0})
    start = threading.Barrier(4)
    errors: list[BaseException] = []

    def writer() -> None:
        def fn(tx: Tx) -> None:
            balance = tx.wallet_balance("alice")  # read, then write: a serialization hazard
            tx.deposit("alice", 1, actor="c", reason=f"after {balance}")

        try:
            start.wait()
            for _ in range(10):
                store.run(fn, serializable=True, retries=50)
        except BaseException as exc:  # reported below
            errors.append(exc)

    threads = [threading.Thread(target=writer) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert errors == []
    assert store.read(lambda tx: tx.wallet_balance("alice")) == 40


def test_a_real_sqlite_lock_is_retried_then_refused(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'x.db'}"
    store = Store.open(url, busy_timeout=0.05)
    store.upgrade()
    holder = Store.open(url)
    holding = threading.Event()
    release = threading.Event()

    def hold_the_write_lock() -> None:
        def fn(tx: Tx) -> None:
            tx.add_player("holder", "H")
            holding.set()
            release.wait(10)

        holder.run(fn)

    thread = threading.Thread(target=hold_the_write_lock)
    thread.start()
    assert holding.wait(5)
    with pytest.raises(StoreError) as err:
        store.run(lambda tx: tx.add_player("p", "P"), retries=2)
    assert err.value.key == "store.retries_exhausted"
    timer = threading.Timer(0.05, release.set)
    timer.start()
    store.run(lambda tx: tx.add_player("p", "P"), retries=20)
    thread.join()
    assert sorted(p.player_id for p in store.read(lambda tx: tx.players())) == ["holder", "p"]
    store.close()
    holder.close()
