"""A pooled PostgreSQL connection that died (a server restart, a killed backend) is replaced by
the transaction that finds it, which runs once more — no "ping" round trip before every
transaction, and nothing applied twice (the commit was never sent)."""

from __future__ import annotations

from collections.abc import Callable

import pytest
from sqlalchemy import create_engine, text

from macau_tables.errors import StoreError
from macau_tables.ledger import Account, AccountKind, Posting, Reason
from macau_tables.store import LedgerEntry, Store, Tx, TxKind
from tests.store.support import setup


def _deposit(tx: Tx) -> None:
    """A deposit: its first statement is the ledger's, sent to the driver itself."""
    tx.deposit("alice", 5, actor="cashier-1", reason="after a restart")


def _read_then_deposit(tx: Tx) -> None:
    """A read through SQLAlchemy first, then the deposit."""
    assert tx.wallet_balance("alice") >= 1_000
    _deposit(tx)


def kill_pooled_connection(store: Store) -> None:
    """End, from another session, the PostgreSQL backend of the connection the store's pool
    hands out next (the one its last transaction used)."""
    pid = store.run(lambda tx: tx.connection.execute(text("SELECT pg_backend_pid()")).scalar())
    admin = create_engine(store.raw_url, isolation_level="AUTOCOMMIT")
    try:
        with admin.connect() as conn:
            conn.execute(text("SELECT pg_terminate_backend(:pid)"), {"pid": pid})
    finally:
        admin.dispose()


@pytest.mark.parametrize("work", [_deposit, _read_then_deposit], ids=["driver", "sqlalchemy"])
def test_a_dead_pooled_connection_is_replaced_and_the_transaction_runs_once(
    pg_store: Store, work: Callable[[Tx], None]
) -> None:
    store = pg_store
    setup(store, players={"alice": 1_000})
    kill_pooled_connection(store)
    store.run(work)  # whichever way its first statement reaches the dead connection
    assert store.read(lambda tx: tx.wallet_balance("alice")) == 1_005
    assert store.read(lambda tx: tx.ledger_total()) == 0


def test_a_dead_connection_met_by_the_commits_one_round_trip_is_refused_then_replaced(
    pg_store: Store,
) -> None:
    """A transaction that only posts sends nothing before its commit's one round trip (``BEGIN``
    … ``COMMIT`` as one simple query on the driver's connection): a dead pooled connection is
    met there, where the store cannot tell whether the commit landed, so it is refused
    (``store.unavailable``) and not run again; nothing of it is kept, and the next transaction
    runs on a new connection."""
    store = pg_store
    setup(store, players={"alice": 1_000}, seed=10_000)
    contribution = LedgerEntry(
        (
            Posting(Account.wallet("alice"), -7, Reason.CONTRIBUTION),
            Posting(Account(AccountKind.JACKPOT_METER), 7, Reason.CONTRIBUTION),
        ),
        TxKind.ROUND,
        table_id="t1",
        meter_id="m-1",
    )
    kill_pooled_connection(store)
    with pytest.raises(StoreError) as refused:
        store.run(lambda tx: tx.post_deferred([contribution]))
    assert refused.value.key == "store.unavailable"
    assert store.read(lambda tx: tx.wallet_balance("alice")) == 1_000  # nothing kept
    store.run(lambda tx: tx.post_deferred([contribution]))  # a new connection
    assert store.read(lambda tx: tx.wallet_balance("alice")) == 993
    assert store.read(lambda tx: tx.meter_amount("m-1")) == 10_007
    assert store.read(lambda tx: tx.ledger_total()) == 0
