"""A request's ledger entries posted at once (``Tx.post_many``), the idempotency key refused by
its primary key, and the one-statement reads the table service starts a request with — on
SQLite and PostgreSQL. Each entry stays its own balanced transaction, every balance is checked
after each entry (SPEC common rules: a wallet never goes below zero), and a refusal writes
nothing."""

from __future__ import annotations

import pytest

from macau_tables.errors import StoreError
from macau_tables.ledger import Account, AccountKind, Posting, Reason, stake
from macau_tables.store import GENESIS, LedgerEntry, Store, Tx, TxKind
from macau_tables.store.verify import verify
from tests.store.support import count, events, setup

IN_PLAY = Account(AccountKind.IN_PLAY)
TABLE_BANK = Account(AccountKind.TABLE_BANK)


def pay(player: str, amount: int) -> tuple[Posting, ...]:
    """The table bank pays ``player`` (a credit only, for the wallet)."""
    return (
        Posting(TABLE_BANK, -amount, Reason.WIN),
        Posting(Account.wallet(player), amount, Reason.PAYOUT),
    )


def entry(postings: tuple[Posting, ...], seq: int) -> LedgerEntry:
    return LedgerEntry(postings, TxKind.ROUND, table_id="t1", meter_id="m-1", event_seq=seq)


def state(store: Store) -> tuple[int, int, list[tuple[str, int]]]:
    balances = store.read(lambda tx: [(a.account_id, a.balance) for a in tx.accounts()])
    return count(store, "transactions"), count(store, "postings"), balances


def test_entries_are_separate_transactions_in_order_with_net_balances(store: Store) -> None:
    setup(store, players={"alice": 1_000, "bob": 500})
    batch = [
        entry(stake("alice", 300), 1),
        entry((), 2),  # nothing to post: None, nothing written
        entry(stake("bob", 200), 3),
        entry(
            (
                Posting(IN_PLAY, -500, Reason.STAKE),
                Posting(Account.wallet("alice"), 600, Reason.PAYOUT),
                Posting(TABLE_BANK, -100, Reason.WIN),
            ),
            4,
        ),
    ]
    ids = store.run(lambda tx: tx.post_many(batch))
    assert ids[1] is None and all(isinstance(i, int) for i in ids[:1] + ids[2:])
    assert ids[0] < ids[2] < ids[3]  # type: ignore[operator]
    txs = store.read(lambda tx: tx.transactions(table_id="t1"))
    assert [t.event_seq for t in txs] == [1, 3, 4]
    assert [t.tx_id for t in txs] == [ids[0], ids[2], ids[3]]
    assert all(sum(p.amount for p in t.postings) == 0 for t in txs)
    assert store.read(lambda tx: (tx.wallet_balance("alice"), tx.wallet_balance("bob"))) == (
        1_300,
        300,
    )
    assert store.read(lambda tx: tx.balance("table_bank:t1")) == -100
    assert store.read(lambda tx: tx.ledger_total()) == 0
    assert verify(store).ok  # each digest and each balance = the sum of its postings


def test_a_batch_taking_a_wallet_below_zero_at_any_entry_is_refused_whole(store: Store) -> None:
    """Debit then credit: the net would be fine, but after the first entry the wallet stood
    below zero, as posting them one by one would have refused."""
    setup(store, players={"alice": 100})
    before = state(store)

    def overdraw(tx: Tx) -> StoreError:
        try:
            tx.post_many([entry(stake("alice", 150), 1), entry(pay("alice", 100), 2)])
        except StoreError as exc:
            return exc
        raise AssertionError("the overdraft was accepted")

    refusal = store.run(overdraw)  # caught inside the transaction: nothing of it stays
    assert refusal.key == "ledger.insufficient_funds"
    assert refusal.params == {"player": "alice", "balance": 100, "amount": 150}
    assert state(store) == before
    # Credit first, then the debit: every step holds.
    store.run(lambda tx: tx.post_many([entry(pay("alice", 100), 1), entry(stake("alice", 150), 2)]))
    assert store.read(lambda tx: tx.wallet_balance("alice")) == 50
    assert verify(store).ok


def test_a_later_entry_overdrawing_refuses_the_earlier_ones_too(store: Store) -> None:
    setup(store, players={"alice": 500})
    before = state(store)
    with pytest.raises(StoreError) as err:
        store.run(
            lambda tx: tx.post_many([entry(stake("alice", 300), 1), entry(stake("alice", 201), 2)])
        )
    assert err.value.key == "ledger.insufficient_funds" and err.value.params["amount"] == 501
    assert state(store) == before


def test_credit_only_accounts(store: Store) -> None:
    """A wallet only credited is not read under lock (a credit cannot make it negative), but an
    unknown one is still refused, nothing written; a table account is opened on first use."""
    setup(store, players={"alice": 0})
    before = state(store)
    with pytest.raises(StoreError) as err:
        store.run(lambda tx: tx.post_many([entry(pay("zoe", 10), 1)]))
    assert (err.value.key, err.value.params["player"]) == ("store.unknown_player", "zoe")
    assert state(store) == before
    assert store.run(lambda tx: tx.post_many([entry(pay("alice", 10), 1)]))[0]
    assert store.read(lambda tx: (tx.wallet_balance("alice"), tx.balance("table_bank:t1"))) == (
        10,
        -10,
    )
    assert verify(store).ok


def test_a_meter_credited_moves_last_and_is_notified_once(store: Store) -> None:
    setup(store, players={"alice": 1_000})
    seen: list[tuple[str, int]] = []
    listener = store.listen_meters(lambda m, a: seen.append((m, a)))
    try:
        contribution = (
            Posting(Account.wallet("alice"), -10, Reason.CONTRIBUTION),
            Posting(Account(AccountKind.JACKPOT_METER), 10, Reason.CONTRIBUTION),
        )
        store.run(lambda tx: tx.post_many([entry(contribution, 1), entry(contribution, 2)]))
        assert store.read(lambda tx: tx.meter_state("m-1")) == (10_020, 10_000)
        if store.dialect == "sqlite":  # in-process; PostgreSQL's NOTIFY is tested elsewhere
            assert seen == [("m-1", 10_020)]
    finally:
        listener.close()
    with pytest.raises(StoreError) as err:
        store.read(lambda tx: tx.meter_state("m-9"))
    assert err.value.key == "store.unknown_meter"


def test_a_duplicate_idempotency_key_is_refused_by_the_key_and_the_transaction_goes_on(
    store: Store,
) -> None:
    setup(store)
    store.run(
        lambda tx: tx.idempotency_put("k1", scope="t1", request_sha256="ab" * 32, response={})
    )

    def again(tx: Tx) -> str:
        try:
            tx.idempotency_put("k1", scope="t1", request_sha256="cd" * 32, response={"x": 1})
        except StoreError as exc:
            tx.idempotency_put("k2", scope="t1", request_sha256="ef" * 32, response={})
            return exc.key
        raise AssertionError("the duplicate key was accepted")

    assert store.run(again) == "store.idempotency_exists"
    first = store.read(lambda tx: tx.idempotency_get("k1"))
    assert first is not None and (first.request_sha256, first.response) == ("ab" * 32, {})
    assert store.read(lambda tx: tx.idempotency_get("k2")) is not None


def test_request_start_reads_the_head_and_the_key_at_once(store: Store) -> None:
    setup(store)
    head, found = store.read(lambda tx: tx.request_start("t1", "k1"))
    assert (head.seq, head.hash, found) == (0, GENESIS, None)
    records = store.run(lambda tx: tx.append_events("t1", events(3), round_id="r1"))
    store.run(
        lambda tx: tx.idempotency_put("k1", scope="t1", request_sha256="ab" * 32, response={"a": 1})
    )
    head, found = store.read(lambda tx: tx.request_start("t1", "k1"))
    assert (head.seq, head.hash) == (3, records[-1].hash)
    assert found is not None and (found.scope, found.response) == ("t1", {"a": 1})
    assert store.read(lambda tx: tx.request_start("t1", "k2"))[1] is None


def test_append_with_the_head_read_by_the_caller(store: Store) -> None:
    """The head given is not read again; a stale one loses the race on the log's key."""
    setup(store)
    head = store.read(lambda tx: tx.chain_head("t1"))
    first = store.run(lambda tx: tx.append_events("t1", events(2), round_id="r1", head=head))
    assert store.read(lambda tx: tx.chain_head("t1")).hash == first[-1].hash
    with pytest.raises(StoreError) as err:  # built on the old head: seq 1 is taken
        store.run(lambda tx: tx.append_events("t1", events(1, "r2"), round_id="r2", head=head))
    assert err.value.key == "store.chain_race"
    assert verify(store).ok


def test_shoes_refused_by_their_keys(store: Store) -> None:
    setup(store)
    store.run(lambda tx: tx.shoe_put("t1", 1, "c" * 64))
    with pytest.raises(StoreError) as err:
        store.run(lambda tx: tx.shoe_put("t1", 1, "d" * 64))
    assert err.value.key == "store.shoe_exists"
    store.run(lambda tx: tx.shoe_reveal("t1", 1, {"order": []}, True))
    for shoe_no, key in ((1, "store.shoe_revealed"), (2, "store.unknown_shoe")):
        with pytest.raises(StoreError) as err:
            store.run(lambda tx, n=shoe_no: tx.shoe_reveal("t1", n, {"order": []}, True))
        assert err.value.key == key
    assert store.read(lambda tx: tx.shoes("t1"))[0].commitment == "c" * 64


def test_a_meter_credit_is_seen_by_reads_in_its_own_transaction(store: Store) -> None:
    """On PostgreSQL a meter's credit is written with the commit (its row held only for that);
    a read of balances in the same transaction writes it first, so nothing reads around it."""
    setup(store, players={"alice": 1_000})
    contribution = (
        Posting(Account.wallet("alice"), -10, Reason.CONTRIBUTION),
        Posting(Account(AccountKind.JACKPOT_METER), 10, Reason.CONTRIBUTION),
    )

    def play(tx: Tx) -> tuple[int, int, int, int]:
        tx.post_many([entry(contribution, 1)])
        first = tx.meter_amount("m-1")
        tx.post_many([entry(contribution, 2)])
        total = tx.ledger_total()
        tx.post_many([entry(contribution, 3)])
        amount, _ = tx.meter_state("m-1", lock=True)
        tx.post_many([entry(contribution, 4)])  # pending at the commit
        return first, total, amount, tx.balance("wallet:alice")

    assert store.run(play) == (10_010, 0, 10_030, 960)
    assert store.read(lambda tx: tx.meter_amount("m-1")) == 10_040
    assert store.read(lambda tx: tx.ledger_total()) == 0
    assert verify(store).ok


def test_what_a_transaction_says_is_stored_exactly_whatever_its_characters(store: Store) -> None:
    """On PostgreSQL a batch travels as one JSON parameter of a prepared statement: an actor and
    a reason with quotes, backslashes, a newline, non-ASCII text and a NUL-free control
    character come back exactly, the digest computed over them verifies, and a batch mixing
    several entries keeps their order and their own fields."""
    setup(store, players={"alice": 1_000})
    actor = 'cashier "O\'Neil" \\ 1'
    reason = "refund\nline 2 — 退款 \t {json: [1, 2]} %s %(x)s"
    tx_id = store.run(lambda tx: tx.withdraw("alice", 5, actor=actor, reason=reason))
    record = store.read(lambda tx: tx.transaction(tx_id))
    assert (record.actor, record.reason, record.kind) == (actor, reason, "withdrawal")
    assert [(p.account_id, p.amount) for p in record.postings] == [
        ("wallet:alice", -5),
        ("cashier", 5),
    ]
    assert store.read(lambda tx: tx.wallet_balance("alice")) == 995
    assert verify(store).ok  # the digest stored is the one re-derived from the stored fields
