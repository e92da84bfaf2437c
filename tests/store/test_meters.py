"""Linked meters on SQLite and PostgreSQL: the amount is the meter account's balance,
contributions are deltas, awards read under a lock and recorded in order, parameter changes wait
for the next hit, each change is in the meter's hash-chained log (CSP-1 "system", CSP-10,
BAC-17)."""

from __future__ import annotations

import threading
from collections.abc import Callable

import pytest
from sqlalchemy import text

from macau_tables.errors import StoreError
from macau_tables.ledger import Account, AccountKind, Posting, Reason
from macau_tables.store import Store, Tx, TxKind
from macau_tables.store.verify import Check, verify
from tests.store.support import behind_the_back, contribute, setup


def award(tx: Tx, amount: int, *, box: int = 1, player: str = "alice") -> int:
    """Pay ``amount`` from the meter to ``player`` and record the hit (as a settling table)."""
    meter = tx.meter_amount("m-1", lock=True)
    assert amount <= meter
    postings = (
        Posting(Account(AccountKind.JACKPOT_METER), -amount, Reason.AWARD),
        Posting(Account.wallet(player), amount, Reason.AWARD),
    )
    tx.post(postings, kind=TxKind.ROUND, table_id="t1", meter_id="m-1")
    tx.record_hit(
        "m-1", table_id="t1", round_id="r1", box=box, combination="royal_flush", amount=amount
    )
    return meter


def test_a_new_meter_is_funded_from_its_seed_CSP_10_8(store: Store) -> None:
    setup(store, seed=10_000)
    meter = store.read(lambda tx: tx.meter("m-1"))
    assert (meter.amount, meter.seed, meter.hits, meter.version) == (10_000, 10_000, 0, 1)
    assert meter.params == {"share": "7/10"} and meter.params_pending is None
    assert store.read(lambda tx: tx.balance("house_funding")) == -10_000
    seeds = [t for t in store.read(lambda tx: tx.transactions()) if t.kind == "meter_seed"]
    assert len(seeds) == 1 and seeds[0].actor == "admin"
    with pytest.raises(StoreError) as err:
        store.run(lambda tx: tx.create_meter("m-1", game="caribbean", seed=1, params={}, actor="a"))
    assert err.value.key == "store.meter_exists"


def test_contributions_are_deltas_and_the_amount_is_the_account_balance(store: Store) -> None:
    setup(store, seed=1_000)
    for amount in (7, 70, 700):
        contribute(store, amount)
    assert store.read(lambda tx: tx.meter_amount("m-1")) == 1_777
    assert store.read(lambda tx: tx.balance("jackpot_meter:m-1")) == 1_777
    assert store.read(lambda tx: tx.meter("m-1")).amount == 1_777
    with pytest.raises(StoreError) as err:
        store.read(lambda tx: tx.meter_amount("m-9"))
    assert err.value.key == "store.unknown_meter"


def test_hits_are_recorded_in_order_newest_first_last_25(store: Store) -> None:
    setup(store, seed=100_000)
    for box in range(1, 31):
        store.run(lambda tx, box=box: award(tx, 10, box=box))
    hits = store.read(lambda tx: tx.hits("m-1"))
    assert len(hits) == 25
    assert [h.seq for h in hits] == list(range(30, 5, -1))
    assert [h.box for h in hits[:2]] == [30, 29]
    assert store.read(lambda tx: tx.meter("m-1")).hits == 30
    assert store.read(lambda tx: tx.meter_amount("m-1")) == 100_000 - 300
    assert store.read(lambda tx: tx.wallet_balance("alice")) == 1_000 + 300
    assert verify(store).ok


def test_parameter_changes_take_effect_only_after_the_next_hit(store: Store) -> None:
    setup(store, seed=1_000)
    store.run(
        lambda tx: tx.set_meter_params(
            "m-1", seed=2_000, params={"share": "1/2"}, actor="manager", reason="new schedule"
        )
    )
    pending = store.read(lambda tx: tx.meter("m-1"))
    assert (pending.seed, pending.params) == (1_000, {"share": "7/10"})
    assert (pending.seed_pending, pending.params_pending) == (2_000, {"share": "1/2"})
    store.run(lambda tx: award(tx, 10))
    after = store.read(lambda tx: tx.meter("m-1"))
    assert (after.seed, after.params, after.seed_pending, after.params_pending) == (
        2_000,
        {"share": "1/2"},
        None,
        None,
    )
    audit = store.read(lambda tx: tx.audit_entries(action="meter_params"))
    assert [(a.actor, a.reason) for a in audit] == [("manager", "new schedule")]
    assert verify(store).ok


def test_an_audited_adjustment_may_lower_the_meter_but_not_below_zero(store: Store) -> None:
    setup(store, seed=1_000)
    tx_id = store.run(lambda tx: tx.adjust_meter("m-1", -400, actor="manager", reason="error"))
    assert store.read(lambda tx: tx.meter_amount("m-1")) == 600
    assert store.read(lambda tx: tx.transaction(tx_id)).kind == "meter_adjustment"
    assert store.read(lambda tx: tx.audit_entries(action="meter_adjust"))[0].detail == {
        "meter_id": "m-1",
        "amount": -400,
        "tx_id": tx_id,
    }
    with pytest.raises(StoreError) as err:
        store.run(lambda tx: tx.adjust_meter("m-1", -601, actor="manager", reason="error"))
    assert err.value.key == "store.account_negative"
    with pytest.raises(StoreError):
        store.run(lambda tx: tx.adjust_meter("m-1", 5, actor="manager", reason=""))
    assert verify(store).ok


@pytest.mark.parametrize(
    ("sql", "relation", "record", "key"),
    [
        ("UPDATE meters SET seed = 1 WHERE meter_id = 'm-1'", "meters", "m-1", "verify_meter_row"),
        ("UPDATE meters SET hits = 5 WHERE meter_id = 'm-1'", "meters", "m-1", "verify_meter_row"),
        (
            "UPDATE meters SET params = '{\"share\":\"1/1\"}' WHERE meter_id = 'm-1'",
            "meters",
            "m-1",
            "verify_meter_row",
        ),
        (
            "UPDATE meter_hits SET amount = 99 WHERE meter_id = 'm-1' AND seq = 1",
            "meter_hits",
            "m-1#1",
            "verify_meter_hit",
        ),
        (
            "UPDATE meter_log SET payload = REPLACE(payload, '1000', '9000') "
            "WHERE meter_id = 'm-1' AND seq = 1",
            "meter_log",
            "m-1#1",
            "verify_meter_log",
        ),
        (
            "UPDATE accounts SET balance = balance + 1 WHERE account_id = 'jackpot_meter:m-1'",
            "accounts",
            "jackpot_meter:m-1",
            "verify_balance",
        ),
    ],
)
def test_a_tampered_meter_fails_verify_at_that_record(
    store: Store, sql: str, relation: str, record: str, key: str
) -> None:
    setup(store, seed=1_000)
    store.run(lambda tx: award(tx, 10))
    assert verify(store).ok
    assert behind_the_back(store, sql) == 1
    failure = verify(store).failure
    assert failure is not None
    assert (failure.relation, failure.record, failure.key) == (relation, record, f"store.{key}")
    assert failure.check in (Check.METER, Check.BALANCE)


def test_meter_changes_are_published_after_commit_only(store: Store) -> None:
    setup(store, seed=1_000)
    seen: list[tuple[str, int]] = []
    arrived = threading.Event()

    def on_change(meter_id: str, amount: int) -> None:
        seen.append((meter_id, amount))
        arrived.set()

    listener = store.listen_meters(on_change)  # listening when it returns

    def contribute_then_fail(tx: Tx) -> None:
        tx.post(
            (
                Posting(Account(AccountKind.HOUSE_FUNDING), -5, Reason.CONTRIBUTION),
                Posting(Account(AccountKind.JACKPOT_METER), 5, Reason.CONTRIBUTION),
            ),
            kind=TxKind.ROUND,
            meter_id="m-1",
        )
        raise RuntimeError("rolled back")

    with pytest.raises(RuntimeError):
        store.run(contribute_then_fail)
    contribute(store, 25)
    assert arrived.wait(5)
    # a change of the rolled-back transaction, had it been published, came first
    assert seen == [("m-1", 1_025)]
    listener.close()
    # a subscriber still listening hears the next change; the closed one, called in the same
    # order had it still been subscribed, does not
    after: list[tuple[str, int]] = []
    heard = threading.Event()
    witness = store.listen_meters(lambda m, a: (after.append((m, a)), heard.set()))
    contribute(store, 1)
    assert heard.wait(5) and after == [("m-1", 1_026)]
    witness.close()
    assert seen == [("m-1", 1_025)]


def test_after_commit_callbacks_run_once_after_the_commit(store: Store) -> None:
    setup(store)
    calls: list[str] = []

    def work(tx: Tx) -> None:
        tx.after_commit(lambda: calls.append("published"))
        assert calls == []

    store.run(work)
    assert calls == ["published"]

    def failing(tx: Tx) -> None:
        tx.after_commit(lambda: calls.append("never"))
        raise RuntimeError

    with pytest.raises(RuntimeError):
        store.run(failing)
    assert calls == ["published"]


def test_every_subscriber_of_a_store_shares_one_listening_connection(store: Store) -> None:
    """A server process subscribes once per table: a hundred tables on PostgreSQL must not
    take a hundred LISTEN connections (``max_connections`` is 100 by default). All the
    subscribers still hear every committed change, and a closed one no longer does."""
    setup(store, seed=1_000)
    heard: list[list[int]] = [[] for _ in range(30)]
    lock = threading.Lock()
    changed = threading.Condition(lock)

    def subscriber(i: int) -> Callable[[str, int], None]:
        def on_change(meter_id: str, amount: int) -> None:
            with changed:
                heard[i].append(amount)
                changed.notify_all()

        return on_change

    def heard_by_all(amount: int, who: range) -> bool:
        with changed:
            return changed.wait_for(lambda: all(amount in heard[i] for i in who), timeout=5)

    listeners = [store.listen_meters(subscriber(i)) for i in range(len(heard))]
    if store.dialect == "postgresql":
        with store.engine.connect() as conn:
            listening = conn.execute(
                text(
                    "SELECT count(*) FROM pg_stat_activity"
                    " WHERE datname = current_database() AND query LIKE 'LISTEN%'"
                )
            ).scalar_one()
        assert listening == 1
    contribute(store, 25)
    assert heard_by_all(1_025, range(len(heard)))
    for listener in listeners[1:]:
        listener.close()
    contribute(store, 1)
    assert heard_by_all(1_026, range(1))
    listeners[0].close()
    assert heard[0] == [1_025, 1_026]
    assert all(h == [1_025] for h in heard[1:])
