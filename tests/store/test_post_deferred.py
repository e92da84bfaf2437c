"""A request's ledger batch left for the commit (``Tx.post_deferred``), on SQLite and
PostgreSQL: on PostgreSQL it is written with the ``COMMIT`` in one round trip (schema v4's
``macau_post``), or before the transaction's next statement if one comes first. Whatever the
order, every read sees it, a refusal is the ledger's own and keeps nothing of the transaction
(SPEC common rules: a wallet never goes below zero; every money movement is one balanced
transaction), and the meter's credit lands exactly (CSP-10, BAC-17)."""

from __future__ import annotations

import pytest

from macau_tables.errors import StoreError
from macau_tables.ledger import Account, AccountKind, Posting, Reason, stake
from macau_tables.store import LedgerEntry, Store, Tx, TxKind
from macau_tables.store.verify import verify
from tests.store.support import RoundTrips, count, entry, events, setup, snapshot

METER = Account(AccountKind.JACKPOT_METER)


def contribution(player: str, amount: int) -> tuple[Posting, ...]:
    return (
        Posting(Account.wallet(player), -amount, Reason.CONTRIBUTION),
        Posting(METER, amount, Reason.CONTRIBUTION),
    )


def test_a_batch_left_for_the_commit_is_written_with_it(store: Store) -> None:
    setup(store, players={"alice": 1_000}, seed=10_000)
    before = count(store, "transactions")
    store.run(lambda tx: tx.post_deferred([entry(stake("alice", 300), 1)]))
    store.run(lambda tx: tx.post_deferred([entry(contribution("alice", 70))]))
    assert count(store, "transactions") == before + 2
    assert store.read(lambda tx: tx.wallet_balance("alice")) == 630
    assert store.read(lambda tx: tx.balance("in_play:t1")) == 300  # opened on first use
    assert store.read(lambda tx: tx.meter_amount("m-1")) == 10_070
    assert store.read(lambda tx: tx.ledger_total()) == 0
    assert verify(store).ok


def test_every_later_statement_of_the_transaction_sees_the_batch(store: Store) -> None:
    setup(store, players={"alice": 1_000}, seed=10_000)

    def request(tx: Tx) -> tuple[int, int, int]:
        tx.post_deferred([entry(stake("alice", 300), 1)])
        seen = tx.wallet_balance("alice")  # SQLAlchemy's statement
        tx.post_deferred([entry(contribution("alice", 100))])  # the one before goes first
        in_play = tx.balance("in_play:t1")
        tx.append_events("t1", events(1))  # the driver's statement
        return seen, in_play, tx.meter_amount("m-1")

    assert store.run(request) == (700, 300, 10_100)
    assert store.read(lambda tx: tx.wallet_balance("alice")) == 600
    assert count(store, "events") == 1
    assert verify(store).ok


@pytest.mark.parametrize(
    ("postings", "key"),
    [
        (stake("alice", 1_006), "ledger.insufficient_funds"),
        (stake("nobody", 1), "store.unknown_player"),
        (contribution("alice", 1_006), "ledger.insufficient_funds"),
    ],
)
def test_a_refused_batch_keeps_nothing_of_its_transaction(
    store: Store, postings: tuple[Posting, ...], key: str
) -> None:
    setup(store, players={"alice": 1_000})
    before = snapshot(store)

    def request(tx: Tx) -> None:
        tx.append_events("t1", events(2))
        tx.deposit("alice", 5, actor="cashier-1", reason="float")
        tx.post_deferred([entry(postings, 1)])

    with pytest.raises(StoreError) as refused:
        store.run(request)
    assert refused.value.key == key
    assert snapshot(store) == before
    # the connection is left as a transaction expects it: the next one commits, or not at all
    store.run(lambda tx: tx.post_deferred([entry(stake("alice", 10), 1)]))
    with pytest.raises(RuntimeError):
        store.run(lambda tx: (tx.deposit("alice", 1, actor="c", reason="r"), _fail()))
    assert store.read(lambda tx: tx.wallet_balance("alice")) == 990


def test_a_batch_refused_by_a_later_statement_is_refused_there(store: Store) -> None:
    setup(store, players={"alice": 1_000})
    before = snapshot(store)
    seen: list[str] = []

    def request(tx: Tx) -> None:
        tx.post_deferred([entry(stake("alice", 5_000), 1)])
        try:
            tx.wallet_balance("alice")
        except StoreError as exc:
            seen.append(exc.key)
            raise

    with pytest.raises(StoreError) as refused:
        store.run(request)
    assert refused.value.key == "ledger.insufficient_funds"
    # on PostgreSQL the read wrote the batch first, and was refused; on SQLite the post was
    assert seen == (["ledger.insufficient_funds"] if store.dialect == "postgresql" else [])
    assert snapshot(store) == before


def test_an_unknown_meter_is_refused_and_nothing_kept(store: Store) -> None:
    setup(store, players={"alice": 1_000})
    before = snapshot(store)
    stray = LedgerEntry(contribution("alice", 5), TxKind.ROUND, table_id="t1", meter_id="m-none")
    with pytest.raises(StoreError) as refused:
        store.run(lambda tx: tx.post_deferred([stray]))
    assert refused.value.key == "store.unknown_meter"
    assert snapshot(store) == before


def _fail() -> None:
    raise RuntimeError("the caller's own failure")


def test_a_transaction_that_only_posts_is_one_round_trip_on_postgresql(
    pg_store: Store, monkeypatch: pytest.MonkeyPatch
) -> None:
    store = pg_store  # (SQLite has no round trips: one process writes its file)
    setup(store, players={"alice": 1_000}, seed=10_000)
    store.run(lambda tx: tx.post_deferred([entry(contribution("alice", 7))]))  # (pool warm)
    counting = RoundTrips(monkeypatch)
    store.run(lambda tx: tx.post_deferred([entry(contribution("alice", 7))]))
    assert len(counting.sent) == 1
    (query,) = counting.sent
    assert isinstance(query, bytes)
    assert query.startswith(b"BEGIN") and query.endswith(b"COMMIT")
    assert b"macau_post(" in query and b"macau_move_meter(" in query
    assert store.read(lambda tx: tx.meter_amount("m-1")) == 10_014
    assert store.read(lambda tx: tx.wallet_balance("alice")) == 986


def test_a_refusal_names_the_account_that_is_short_with_its_balance(store: Store) -> None:
    """Two wallets debited in one entry, the first with enough and the second without: the
    refusal names the second, with its balance as it was (SPEC common rules: a wallet never
    goes below zero), and nothing is kept — whatever order the server checks them in."""
    setup(store, players={"alice": 1_000, "bob": 100}, seed=10_000)
    before = snapshot(store)
    both = entry(
        (
            Posting(Account.wallet("alice"), -900, Reason.CONTRIBUTION),
            Posting(Account.wallet("bob"), -500, Reason.CONTRIBUTION),
            Posting(METER, 1_400, Reason.CONTRIBUTION),
        )
    )
    with pytest.raises(StoreError) as refused:
        store.run(lambda tx: tx.post_deferred([both]))
    assert refused.value.key == "ledger.insufficient_funds"
    assert refused.value.params["player"] == "bob"
    assert refused.value.params["balance"] == 100
    assert snapshot(store) == before


def test_an_unknown_wallet_credited_beside_a_debit_is_refused_and_nothing_kept(
    store: Store,
) -> None:
    setup(store, players={"alice": 1_000}, seed=10_000)
    before = snapshot(store)
    stray = entry(
        (
            Posting(Account.wallet("alice"), -300, Reason.CASH),
            Posting(Account.wallet("nobody"), 300, Reason.CASH),
        )
    )
    with pytest.raises(StoreError) as refused:
        store.run(lambda tx: tx.post_deferred([stray]))
    assert refused.value.key == "store.unknown_player"
    assert refused.value.params["player"] == "nobody"
    assert snapshot(store) == before
