"""The double-entry ledger on SQLite and PostgreSQL: balanced transactions only, wallets never
below zero, cashier movements with who and why, corrections as new transactions, and tampering
found by verify (SPEC common rules, "Faults": every money movement is a balanced ledger entry)."""

from __future__ import annotations

import pytest

from macau_tables.errors import StoreError
from macau_tables.ledger import Account, AccountKind, Posting, Reason, carried_back, stake
from macau_tables.store import Store, Tx, TxKind, account_id
from macau_tables.store.verify import Check, verify
from tests.store.support import behind_the_back, contribution, count, setup

IN_PLAY = Account(AccountKind.IN_PLAY)
TABLE_BANK = Account(AccountKind.TABLE_BANK)


def snapshot(store: Store) -> tuple[int, int, list[tuple[str, int]]]:
    """(transactions, postings, balances): to show that nothing was written."""
    balances = store.read(lambda tx: [(a.account_id, a.balance) for a in tx.accounts()])
    return count(store, "transactions"), count(store, "postings"), balances


def test_account_ids() -> None:
    assert account_id(Account.wallet("alice"), table_id="t1", meter_id="m") == "wallet:alice"
    assert account_id(IN_PLAY, table_id="t1", meter_id=None) == "in_play:t1"
    assert account_id(Account(AccountKind.CARRIED), table_id="t2", meter_id=None) == "carried:t2"
    assert account_id(TABLE_BANK, table_id="t1", meter_id=None) == "table_bank:t1"
    assert account_id(Account(AccountKind.COMMISSION), table_id="t", meter_id=None) == (
        "commission:t"
    )
    assert account_id(Account(AccountKind.JACKPOT_METER), table_id="t", meter_id="m-bac") == (
        "jackpot_meter:m-bac"
    )
    assert account_id(Account(AccountKind.HOUSE_FUNDING), table_id=None, meter_id=None) == (
        "house_funding"
    )
    assert account_id(Account(AccountKind.CASHIER), table_id=None, meter_id=None) == "cashier"
    for account, table, meter in (
        (IN_PLAY, None, "m"),
        (Account(AccountKind.JACKPOT_METER), "t1", None),
        (Account(AccountKind.WALLET), "t1", "m"),
    ):
        with pytest.raises(StoreError) as err:
            account_id(account, table_id=table, meter_id=meter)
        assert err.value.key == "store.account_unmapped"


def test_a_round_s_postings_move_balances_and_the_ledger_sums_to_zero(store: Store) -> None:
    setup(store, players={"alice": 1_000, "bob": 500})

    def play(tx: Tx) -> list[int | None]:
        return [
            tx.post(stake("alice", 300), kind=TxKind.ROUND, table_id="t1", event_seq=1),
            tx.post(stake("bob", 200), kind=TxKind.ROUND, table_id="t1", event_seq=2),
            tx.post(
                (
                    Posting(IN_PLAY, -500, Reason.STAKE),
                    Posting(Account.wallet("alice"), 600, Reason.PAYOUT),
                    Posting(TABLE_BANK, -100, Reason.WIN),
                ),
                kind=TxKind.ROUND,
                table_id="t1",
                event_seq=3,
            ),
        ]

    ids = store.run(play)
    assert None not in ids
    assert store.read(lambda tx: (tx.wallet_balance("alice"), tx.wallet_balance("bob"))) == (
        1_300,
        300,
    )
    assert store.read(lambda tx: tx.balance("table_bank:t1")) == -100
    assert store.read(lambda tx: tx.balance("in_play:t1")) == 0
    assert store.read(lambda tx: tx.ledger_total()) == 0
    txs = store.read(lambda tx: tx.transactions(table_id="t1"))
    assert [t.event_seq for t in txs] == [1, 2, 3]
    assert all(sum(p.amount for p in t.postings) == 0 for t in txs)
    assert verify(store).ok


def test_nothing_to_post_writes_nothing(store: Store) -> None:
    setup(store)
    before = snapshot(store)
    assert store.run(lambda tx: tx.post((), kind=TxKind.ROUND, table_id="t1")) is None
    zero = (Posting(IN_PLAY, 0, Reason.STAKE),)
    assert store.run(lambda tx: tx.post(zero, kind=TxKind.ROUND, table_id="t1")) is None
    assert snapshot(store) == before


def test_unbalanced_postings_refused_and_nothing_written(store: Store) -> None:
    setup(store)
    before = snapshot(store)
    lopsided = (Posting(Account.wallet("alice"), 100, Reason.PAYOUT),)
    with pytest.raises(StoreError) as err:
        store.run(lambda tx: tx.post(lopsided, kind=TxKind.ROUND, table_id="t1"))
    assert err.value.key == "store.unbalanced" and err.value.params["total"] == 100
    assert snapshot(store) == before


def test_wallet_overdraft_refused_naming_the_player_and_nothing_written(store: Store) -> None:
    setup(store, players={"alice": 1_000})
    before = snapshot(store)

    def overdraw(tx: Tx) -> StoreError:
        # Even when the caller catches the refusal inside its transaction, nothing of it stays.
        try:
            tx.post(stake("alice", 1_001), kind=TxKind.ROUND, table_id="t1")
        except StoreError as exc:
            return exc
        raise AssertionError("the overdraft was accepted")

    refusal = store.run(overdraw)
    assert refusal.key == "ledger.insufficient_funds"
    assert refusal.params == {"player": "alice", "balance": 1_000, "amount": 1_001}
    assert "alice" in refusal.message and "deposit" in refusal.message
    assert snapshot(store) == before
    with pytest.raises(StoreError) as err:
        store.run(lambda tx: tx.withdraw("alice", 1_001, actor="cashier-1", reason="cash out"))
    assert err.value.key == "ledger.insufficient_funds"
    assert snapshot(store) == before
    assert store.run(lambda tx: tx.post(stake("alice", 1_000), kind=TxKind.ROUND, table_id="t1"))
    assert store.read(lambda tx: tx.wallet_balance("alice")) == 0


def test_held_money_may_not_go_negative(store: Store) -> None:
    setup(store)
    with pytest.raises(StoreError) as err:
        store.run(lambda tx: tx.post(carried_back("alice", 50), kind=TxKind.ROUND, table_id="t1"))
    assert (err.value.key, err.value.params["account"]) == ("store.account_negative", "carried:t1")


def test_unknown_player_refused(store: Store) -> None:
    setup(store)
    with pytest.raises(StoreError) as err:
        store.run(lambda tx: tx.deposit("zoe", 100, actor="cashier-1", reason="cash in"))
    assert err.value.key == "store.unknown_player"


def test_cashier_movements_record_who_and_why(store: Store) -> None:
    setup(store, players={"alice": 0})
    deposit = store.run(lambda tx: tx.deposit("alice", 700, actor="cashier-7", reason="cash in"))
    withdrawal = store.run(
        lambda tx: tx.withdraw("alice", 200, actor="cashier-7", reason="cash out")
    )
    assert store.read(lambda tx: tx.wallet_balance("alice")) == 500
    assert store.read(lambda tx: tx.balance("cashier")) == -500
    d, w = store.read(lambda tx: [tx.transaction(deposit), tx.transaction(withdrawal)])
    assert (d.kind, d.actor, d.reason) == ("deposit", "cashier-7", "cash in")
    assert (w.kind, w.actor, w.reason) == ("withdrawal", "cashier-7", "cash out")
    for bad in (
        lambda tx: tx.deposit("alice", 0, actor="c", reason="r"),
        lambda tx: tx.deposit("alice", -5, actor="c", reason="r"),
        lambda tx: tx.deposit("alice", 5, actor="", reason="r"),
        lambda tx: tx.deposit("alice", 5, actor="c", reason=" "),
        lambda tx: tx.withdraw("alice", True, actor="c", reason="r"),
    ):
        with pytest.raises(StoreError) as err:
            store.run(bad)
        assert err.value.key == "store.bad_value"


def test_a_correction_is_a_new_transaction_naming_the_one_it_corrects(store: Store) -> None:
    setup(store, players={"alice": 1_000})
    wrong = store.run(
        lambda tx: tx.post(stake("alice", 100), kind=TxKind.ROUND, table_id="t1", event_seq=1)
    )
    reverse = tuple(Posting(p.account, -p.amount, p.reason) for p in stake("alice", 100))
    with pytest.raises(StoreError):
        store.run(lambda tx: tx.post(reverse, kind=TxKind.CORRECTION, table_id="t1"))
    with pytest.raises(StoreError) as err:
        store.run(
            lambda tx: tx.post(
                reverse, kind=TxKind.CORRECTION, table_id="t1", actor="s", reason="r", corrects=999
            )
        )
    assert err.value.key == "store.unknown_transaction"
    fix = store.run(
        lambda tx: tx.post(
            reverse,
            kind=TxKind.CORRECTION,
            table_id="t1",
            actor="supervisor-2",
            reason="stake keyed twice",
            corrects=wrong,
        )
    )
    original, correction = store.read(lambda tx: [tx.transaction(wrong), tx.transaction(fix)])
    assert original.kind == "round" and [p.amount for p in original.postings] == [-100, 100]
    assert (correction.corrects, correction.actor) == (wrong, "supervisor-2")
    assert store.read(lambda tx: tx.wallet_balance("alice")) == 1_000
    assert verify(store).ok


def test_a_meter_decreases_only_by_an_award_or_an_audited_adjustment_CSP_10_8(
    store: Store,
) -> None:
    setup(store)
    down = tuple(Posting(p.account, -p.amount, p.reason) for p in contribution(10))
    with pytest.raises(StoreError) as err:
        store.run(lambda tx: tx.post(down, kind=TxKind.ROUND, table_id="t1", meter_id="m-1"))
    assert err.value.key == "store.meter_decrease"
    award = (
        Posting(Account(AccountKind.JACKPOT_METER), -10, Reason.AWARD),
        Posting(Account.wallet("alice"), 10, Reason.AWARD),
    )
    assert store.run(lambda tx: tx.post(award, kind=TxKind.ROUND, table_id="t1", meter_id="m-1"))


def test_a_posting_to_an_unknown_meter_is_refused(store: Store) -> None:
    setup(store)
    with pytest.raises(StoreError) as err:
        store.run(lambda tx: tx.post(contribution(5), kind=TxKind.ROUND, meter_id="m-9"))
    assert err.value.key == "store.unknown_meter"


def test_a_posting_naming_no_account_fails_the_commit_and_nothing_is_kept(store: Store) -> None:
    """A posting's account is checked at the commit (schema v3, so that a meter's posting line
    needs no lock of its own): still checked, and the whole transaction refused."""
    setup(store)
    before = snapshot(store)

    def write(tx: Tx) -> None:
        tx.post(contribution(5), kind=TxKind.ROUND, meter_id="m-1")
        tx.connection.exec_driver_sql(
            "UPDATE postings SET account_id = 'wallet:nobody' "
            "WHERE tx_id = (SELECT max(tx_id) FROM postings) AND line = 0"
        )

    with pytest.raises(StoreError) as err:
        store.run(write)
    assert err.value.key == "store.database_error"
    assert "foreign key" in str(err.value.params["error"]).lower()
    assert snapshot(store) == before
    meter = store.read(lambda tx: tx.meter_amount("m-1"))
    store.run(lambda tx: tx.post(contribution(5), kind=TxKind.ROUND, meter_id="m-1"))
    assert store.read(lambda tx: tx.meter_amount("m-1")) == meter + 5  # the next one commits
    assert verify(store).ok


@pytest.mark.parametrize(
    ("sql", "check", "relation", "record", "key"),
    [
        (
            "UPDATE postings SET amount = amount + 1 WHERE tx_id = :tx AND line = 0",
            Check.TRANSACTION,
            "postings",
            "tx {tx}",
            "store.verify_tx_unbalanced",
        ),
        (
            "UPDATE postings SET account_id = 'wallet:bob' WHERE tx_id = :tx AND line = 0",
            Check.TRANSACTION,
            "transactions",
            "tx {tx}",
            "store.verify_tx_digest",
        ),
        (
            "UPDATE transactions SET actor = 'nobody' WHERE tx_id = :tx",
            Check.TRANSACTION,
            "transactions",
            "tx {tx}",
            "store.verify_tx_digest",
        ),
        (
            "UPDATE accounts SET balance = balance + 50 WHERE account_id = 'wallet:alice'",
            Check.BALANCE,
            "accounts",
            "wallet:alice",
            "store.verify_balance",
        ),
    ],
)
def test_a_tampered_transaction_posting_or_balance_fails_verify_at_that_record(
    store: Store, sql: str, check: Check, relation: str, record: str, key: str
) -> None:
    setup(store, players={"alice": 1_000, "bob": 1_000})
    tx_id = store.run(lambda tx: tx.post(stake("alice", 100), kind=TxKind.ROUND, table_id="t1"))
    store.run(lambda tx: tx.post(stake("bob", 100), kind=TxKind.ROUND, table_id="t1"))
    assert verify(store).ok
    params = {"tx": tx_id} if ":tx" in sql else {}
    assert behind_the_back(store, sql, **params) == 1
    failure = verify(store).failure
    assert failure is not None
    assert (failure.check, failure.relation, failure.record, failure.key) == (
        check,
        relation,
        record.format(tx=tx_id),
        key,
    )


def test_a_ledger_no_longer_summing_to_zero_fails_verify(store: Store) -> None:
    setup(store, players={"alice": 1_000})
    # Balance and postings changed together: every account agrees with its postings, but
    # money was made.
    tx_id = store.run(lambda tx: tx.post(stake("alice", 100), kind=TxKind.ROUND, table_id="t1"))
    behind_the_back(
        store, "UPDATE accounts SET balance = balance + 1 WHERE account_id = 'in_play:t1'"
    )
    behind_the_back(
        store, "UPDATE postings SET amount = amount + 1 WHERE tx_id = :tx AND line = 1", tx=tx_id
    )
    failure = verify(store).failure
    assert failure is not None and failure.key == "store.verify_tx_unbalanced"
