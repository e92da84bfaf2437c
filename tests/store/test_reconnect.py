"""A pooled PostgreSQL connection that died (a server restart, a killed backend) is replaced by
the transaction that finds it, which runs once more — no "ping" round trip before every
transaction, and nothing applied twice (the commit was never sent)."""

from __future__ import annotations

from sqlalchemy import create_engine, text

from macau_tables.store import Store
from tests.store.support import setup


def test_a_dead_pooled_connection_is_replaced_and_the_transaction_runs_once(
    pg_store: Store,
) -> None:
    store = pg_store
    setup(store, players={"alice": 1_000})
    pid = store.run(lambda tx: tx.connection.execute(text("SELECT pg_backend_pid()")).scalar())
    admin = create_engine(store.raw_url, isolation_level="AUTOCOMMIT")
    try:
        with admin.connect() as conn:
            conn.execute(text("SELECT pg_terminate_backend(:pid)"), {"pid": pid})
    finally:
        admin.dispose()
    store.run(lambda tx: tx.deposit("alice", 5, actor="cashier-1", reason="after a restart"))
    assert store.read(lambda tx: tx.wallet_balance("alice")) == 1_005
    assert store.read(lambda tx: tx.ledger_total()) == 0
