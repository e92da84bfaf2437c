"""``Tx.savepoint`` on SQLite and PostgreSQL: a part of a transaction that fails alone — its
statements, its ledger batch left for the commit (refused by the ledger at the savepoint's end:
a wallet never goes below zero, SPEC common rules) and its meter credits rolled back — while
the transaction goes on and commits the rest."""

from __future__ import annotations

import pytest

from macau_tables.errors import StoreError
from macau_tables.ledger import Account, AccountKind, Posting, Reason
from macau_tables.store import LedgerEntry, Store, Tx, TxKind
from tests.store.support import events, setup

METER = Account(AccountKind.JACKPOT_METER)


def contribution(player: str, amount: int) -> LedgerEntry:
    postings = (
        Posting(Account.wallet(player), -amount, Reason.CONTRIBUTION),
        Posting(METER, amount, Reason.CONTRIBUTION),
    )
    return LedgerEntry(postings, TxKind.ROUND, table_id="t1", meter_id="m-1")


def test_a_savepoint_rolls_back_its_part_alone_and_the_transaction_commits_the_rest(
    store: Store,
) -> None:
    setup(store, players={"alice": 1_000})
    refusals: list[str] = []

    def work(tx: Tx) -> None:
        with tx.savepoint():  # kept
            tx.append_events("t1", events(1))
            tx.post_deferred([contribution("alice", 300)])
        with pytest.raises(StoreError) as refused, tx.savepoint():
            tx.append_events("t1", events(2, "r2")[1:], expected_seq=1)
            tx.post_deferred([contribution("alice", 800)])  # 300 + 800 > 1,000
        refusals.append(refused.value.key)
        with pytest.raises(KeyError), tx.savepoint():
            tx.post_deferred([contribution("alice", 100)])
            raise KeyError("a refusal of the caller's own")
        assert tx.meter_pending.get("m-1", 0) in (0, 300)  # (PostgreSQL: left for the commit)
        tx.post_deferred([contribution("alice", 200)])

    store.run(work)
    assert refusals == ["ledger.insufficient_funds"]
    assert store.read(lambda tx: tx.wallet_balance("alice")) == 500
    assert store.read(lambda tx: tx.meter("m-1").amount) == 10_000 + 500
    assert [r.seq for r in store.read(lambda tx: tx.read_events("t1"))] == [1]
