"""A table request's writes left for the commit (``Tx.defer_writes``, what the group commit asks
for on PostgreSQL): its events, idempotency record and ledger batch go with the ``COMMIT`` in
one round trip, the heads and keys of the requests are read with the ``BEGIN``
(``Tx.prefetch_requests``). Every later statement sees them; a key stored twice, a key stored
meanwhile by another transaction and a race for a log's seq are refused, nothing kept; writes
rewound before they were sent are not written (SPEC common rules: every money movement is one
balanced transaction; a wallet never goes below zero). On SQLite nothing is deferred: the same
results."""

from __future__ import annotations

import pytest

from macau_tables.errors import StoreError
from macau_tables.ledger import stake
from macau_tables.store import ChainHead, Store, Tx
from macau_tables.store.verify import verify
from tests.store.support import RoundTrips, count, entry, events, setup, snapshot


def request(tx: Tx, key: str, n: int = 2, amount: int = 300) -> None:
    """A table request's writes as the service makes them: its events after the head it read,
    its idempotency record, its ledger batch."""
    head, found = tx.request_start("t1", key)
    assert found is None
    appended = tx.append_events("t1", events(n, f"r-{key}"), expected_seq=head.seq, head=head)
    tx.idempotency_put(key, scope="t1", request_sha256="0" * 64, response={"k": key})
    tx.post_deferred([entry(stake("alice", amount), appended[0].seq)])


def test_a_group_of_requests_is_two_round_trips_on_postgresql(
    pg_store: Store, monkeypatch: pytest.MonkeyPatch
) -> None:
    store = pg_store  # (SQLite has no round trips: one process writes its file)
    setup(store, players={"alice": 1_000}, seed=10_000)
    store.run(lambda tx: tx.post_deferred([entry(stake("alice", 1))]))  # (pool warm)
    trips = RoundTrips(monkeypatch)

    def group(tx: Tx) -> None:
        tx.defer_writes()
        tx.prefetch_requests(["t1"], ["k1", "k2", "k3"])
        for key in ("k1", "k2", "k3"):
            request(tx, key)

    store.run(group)
    first, last = trips.sent
    assert isinstance(first, bytes) and first.startswith(b"BEGIN")
    assert isinstance(last, bytes) and last.endswith(b"COMMIT")
    assert last.count(b"INSERT INTO events") == 1 and last.count(b"macau_post(") == 1
    assert count(store, "events") == 6 and count(store, "idempotency") == 3
    assert store.read(lambda tx: tx.wallet_balance("alice")) == 1_000 - 1 - 900
    assert store.read(lambda tx: tx.chain_head("t1")).seq == 6
    assert verify(store).ok


def test_every_later_statement_sees_the_writes_left_for_the_commit(store: Store) -> None:
    setup(store, players={"alice": 1_000}, seed=10_000)

    def group(tx: Tx) -> tuple[int, int, bool, int]:
        tx.defer_writes()
        tx.prefetch_requests(["t1"], ["k1"])
        request(tx, "k1", n=3)
        seen = (
            len(tx.read_events("t1")),  # SQLAlchemy's statement
            tx.chain_head("t1").seq,
            tx.idempotency_get("k1") is not None,
            tx.wallet_balance("alice"),
        )
        request(tx, "k2", n=1)  # (a key not read first: request_start reads it)
        return seen

    assert store.run(group) == (3, 3, True, 700)
    assert store.read(lambda tx: tx.chain_head("t1")).seq == 4
    assert store.read(lambda tx: tx.wallet_balance("alice")) == 400
    assert verify(store).ok


def test_a_key_stored_by_the_transaction_is_found_by_its_next_request_and_not_stored_twice(
    store: Store,
) -> None:
    setup(store, players={"alice": 1_000}, seed=10_000)

    def group(tx: Tx) -> tuple[ChainHead, dict[str, object]]:
        tx.defer_writes()
        tx.prefetch_requests(["t1"], ["k1", "k1"])
        request(tx, "k1")
        with pytest.raises(StoreError) as twice:
            tx.idempotency_put("k1", scope="t1", request_sha256="1" * 64, response={})
        assert twice.value.key == "store.idempotency_exists"
        head, found = tx.request_start("t1", "k1")
        assert found is not None and found.scope == "t1"
        return head, found.response

    head, response = store.run(group)
    assert head.seq == 2 and response == {"k": "k1"}
    assert count(store, "idempotency") == 1


def test_a_key_stored_meanwhile_by_another_transaction_refuses_the_commit_nothing_kept(
    pg_store: Store,
) -> None:
    store = pg_store
    setup(store, players={"alice": 1_000}, seed=10_000)
    before = snapshot(store)

    def group(tx: Tx) -> None:
        tx.defer_writes()
        tx.prefetch_requests(["t1"], ["k1"])
        request(tx, "k1")
        store.run(  # another transaction, committed first: nothing of this one was sent
            lambda other: other.idempotency_put(
                "k1", scope="t2", request_sha256="1" * 64, response={}
            )
        )

    with pytest.raises(StoreError) as refused:
        store.run(group)
    assert refused.value.key == "store.idempotency_exists"
    after = snapshot(store)
    assert after == before
    assert store.read(lambda tx: tx.idempotency_get("k1")).scope == "t2"  # type: ignore[union-attr]


def test_a_race_for_a_seq_found_by_the_commit_is_a_chain_race_nothing_kept(
    pg_store: Store,
) -> None:
    store = pg_store
    setup(store, players={"alice": 1_000}, seed=10_000)

    def group(tx: Tx) -> None:
        tx.defer_writes()
        tx.prefetch_requests(["t1"], ["k1"])
        request(tx, "k1")
        store.run(lambda other: other.append_events("t1", events(1, "r-other")))

    with pytest.raises(StoreError) as refused:
        store.run(group)
    assert refused.value.key == "store.chain_race"
    assert count(store, "events") == 1 and count(store, "idempotency") == 0
    assert store.read(lambda tx: tx.wallet_balance("alice")) == 1_000
    assert verify(store).ok


def test_writes_rewound_before_they_were_sent_are_not_written(pg_store: Store) -> None:
    store = pg_store
    setup(store, players={"alice": 1_000}, seed=10_000)

    def group(tx: Tx) -> int:
        tx.defer_writes()
        tx.prefetch_requests(["t1"], ["k1", "k2"])
        mark = tx.mark()
        request(tx, "k1", n=3, amount=900)
        tx.rewind(mark)  # (nothing was sent: a refusal of this request alone)
        request(tx, "k2", n=1, amount=200)
        return tx.flushes

    assert store.run(group) == 0
    assert count(store, "events") == 1
    assert store.read(lambda tx: tx.idempotency_get("k1")) is None
    assert store.read(lambda tx: tx.wallet_balance("alice")) == 800
    assert verify(store).ok


def test_ledger_batches_left_together_are_refused_together_when_one_would_be(
    store: Store,
) -> None:
    """Two requests' batches, each within the wallet alone, the two beyond it: refused
    (``ledger.insufficient_funds``), nothing kept; within it, both kept, each its own ledger
    transaction."""
    setup(store, players={"alice": 1_000}, seed=10_000)
    before = snapshot(store)

    def group(second: int) -> None:
        def run(tx: Tx) -> None:
            tx.defer_writes()
            tx.prefetch_requests(["t1"], ["a", "b"])
            request(tx, "a", amount=600)
            request(tx, "b", amount=second)

        store.run(run)

    with pytest.raises(StoreError) as refused:
        group(600)
    assert refused.value.key == "ledger.insufficient_funds"
    assert snapshot(store) == before
    group(400)
    assert store.read(lambda tx: tx.wallet_balance("alice")) == 0
    assert count(store, "transactions") == before[0] + 2
    assert verify(store).ok
