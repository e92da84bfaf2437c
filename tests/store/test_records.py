"""Players, tables, leases, configurations, idempotency records, snapshots, shoes and the
audit log, on SQLite and PostgreSQL."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from macau_tables import codec
from macau_tables.cards import parse_cards
from macau_tables.errors import StoreError
from macau_tables.rng import CardShown, SeededRandom, ShoeOpening, commit_leaves, commit_shoe
from macau_tables.store import Store, TableMode, TableStatus, Tx
from macau_tables.store.verify import Check, verify
from tests.store.support import GAME, RULES, ToyRules, behind_the_back, events, setup


def test_players_have_wallets(store: Store) -> None:
    setup(store, players={"alice": 300, "bob": 0})
    players = store.read(lambda tx: tx.players())
    assert [(p.player_id, p.name, p.balance) for p in players] == [
        ("alice", "Alice", 300),
        ("bob", "Bob", 0),
    ]
    assert store.read(lambda tx: tx.player("zoe")) is None
    with pytest.raises(StoreError) as err:
        store.run(lambda tx: tx.add_player("alice", "Again"))
    assert err.value.key == "store.player_exists"
    with pytest.raises(StoreError) as err:
        store.read(lambda tx: tx.wallet_balance("zoe"))
    assert err.value.key == "store.unknown_player"


def test_tables_status_fault_and_audit(store: Store) -> None:
    setup(store)
    table = store.read(lambda tx: tx.table("t1"))
    assert (table.game, table.mode, table.demo, table.status, table.meter_id) == (
        GAME,
        TableMode.VIRTUAL,
        True,
        TableStatus.CLOSED,
        "m-1",
    )
    store.run(lambda tx: tx.set_table_status("t1", TableStatus.OPEN, actor="pit", reason="open"))
    fault = {"kind": "shuffler", "round_id": "r7"}
    store.run(
        lambda tx: tx.set_table_status(
            "t1", TableStatus.FAULT, actor="pit", reason="shuffler jam", fault=fault
        )
    )
    faulted = store.read(lambda tx: tx.table("t1"))
    assert (faulted.status, faulted.fault) == (TableStatus.FAULT, fault)
    audit = store.read(lambda tx: tx.audit_entries(table_id="t1"))
    assert [(a.action, a.actor, a.reason) for a in audit] == [
        ("table_open", "pit", "open"),
        ("table_fault", "pit", "shuffler jam"),
    ]
    assert audit[1].detail == fault
    assert [t.table_id for t in store.read(lambda tx: tx.tables())] == ["t1"]
    for call, key in (
        (lambda tx: tx.table("t9"), "store.unknown_table"),
        (
            lambda tx: tx.create_table(
                "t1", name="x", game=GAME, mode=TableMode.LIVE, demo=False, config_id="cfg-1"
            ),
            "store.table_exists",
        ),
        (
            lambda tx: tx.create_table(
                "t2", name="x", game="baccarat", mode=TableMode.LIVE, demo=False, config_id="cfg-1"
            ),
            "store.wrong_game",
        ),
        (
            lambda tx: tx.create_table(
                "t2", name="x", game=GAME, mode=TableMode.LIVE, demo=False, config_id="cfg-9"
            ),
            "store.unknown_config",
        ),
        (
            lambda tx: tx.create_table(
                "t2",
                name="x",
                game=GAME,
                mode=TableMode.LIVE,
                demo=False,
                config_id="cfg-1",
                meter_id="m-9",
            ),
            "store.unknown_meter",
        ),
    ):
        with pytest.raises(StoreError) as err:
            store.run(call)
        assert err.value.key == key


def test_a_table_moves_to_a_new_configuration_version(store: Store) -> None:
    setup(store)
    store.run(lambda tx: tx.put_config(GAME, "cfg-2", ToyRules("higher", 5_000)))
    store.run(lambda tx: tx.set_table_config("t1", "cfg-2", actor="manager", reason="limits"))
    assert store.read(lambda tx: tx.table("t1")).config_id == "cfg-2"
    assert store.read(lambda tx: tx.config("cfg-1")).sha256 == codec.sha256(RULES)


def test_a_tampered_configuration_is_refused_and_fails_verify(store: Store) -> None:
    setup(store)
    # read once before: what a process keeps of a configuration it read does not hide a change
    assert store.read(lambda tx: tx.get_config("cfg-1")) == RULES
    behind_the_back(
        store,
        "UPDATE configs SET payload = REPLACE(payload, '1000', '9000') WHERE config_id = 'cfg-1'",
    )
    with pytest.raises(StoreError) as err:
        store.read(lambda tx: tx.get_config("cfg-1"))
    assert err.value.key == "store.config_tampered"
    failure = verify(store).failure
    assert failure is not None
    assert (failure.check, failure.relation, failure.record) == (Check.CONFIG, "configs", "cfg-1")


def test_one_lease_holder_per_table_until_it_expires(store: Store) -> None:
    setup(store)
    now = store.read(lambda tx: tx.now())
    soon = now + timedelta(seconds=30)
    assert store.run(lambda tx: tx.acquire_lease("t1", "proc-a", until=soon))
    assert not store.run(lambda tx: tx.acquire_lease("t1", "proc-b", until=soon))
    assert store.run(lambda tx: tx.acquire_lease("t1", "proc-a", until=soon))  # renewal
    store.run(lambda tx: tx.release_lease("t1", "proc-a"))
    assert store.run(lambda tx: tx.acquire_lease("t1", "proc-b", until=now - timedelta(1)))
    # proc-b's lease has expired: proc-a may take the table over.
    assert store.run(lambda tx: tx.acquire_lease("t1", "proc-a", until=soon))
    assert store.read(lambda tx: tx.table("t1")).lease_owner == "proc-a"


def test_idempotency_records(store: Store) -> None:
    setup(store)
    assert store.read(lambda tx: tx.idempotency_get("k1")) is None
    response = {"ok": True, "events": [1, 2], "text": "莊"}
    store.run(
        lambda tx: tx.idempotency_put("k1", scope="t1", request_sha256="ab" * 32, response=response)
    )
    record = store.read(lambda tx: tx.idempotency_get("k1"))
    assert record is not None
    assert (record.scope, record.request_sha256, record.response) == ("t1", "ab" * 32, response)
    with pytest.raises(StoreError) as err:
        store.run(
            lambda tx: tx.idempotency_put("k1", scope="t1", request_sha256="cd" * 32, response={})
        )
    assert err.value.key == "store.idempotency_exists"


def test_old_idempotency_records_are_pruned_oldest_first_in_batches(store: Store) -> None:
    """What a retry finds for a week (the server's ``idempotency_days``), then never again: the
    records older than a time are deleted, the oldest first, at most ``limit`` at a time, the
    newer ones kept (schema v5's index by age)."""
    setup(store)
    real = store.clock
    start = datetime(2026, 11, 1, 12, tzinfo=UTC)
    for day in range(5):  # k0 (oldest) .. k4, a day apart
        store.clock = lambda day=day: start + timedelta(days=day)  # type: ignore[misc]
        store.run(
            lambda tx, day=day: tx.idempotency_put(
                f"k{day}", scope="t1", request_sha256="ab" * 32, response={"day": day}
            )
        )
    store.clock = real  # type: ignore[misc]
    cut = start + timedelta(days=3)  # k0, k1, k2 are older
    assert store.run(lambda tx: tx.idempotency_prune(cut, limit=2)) == 2
    assert store.read(lambda tx: tx.idempotency_get("k0")) is None
    assert store.read(lambda tx: tx.idempotency_get("k1")) is None
    assert store.read(lambda tx: tx.idempotency_get("k2")) is not None  # the limit: next time
    assert store.run(lambda tx: tx.idempotency_prune(cut)) == 1
    assert store.run(lambda tx: tx.idempotency_prune(cut)) == 0
    kept = [store.read(lambda tx, k=k: tx.idempotency_get(k)) for k in ("k3", "k4")]
    assert [r.response for r in kept if r is not None] == [{"day": 3}, {"day": 4}]
    # a pruned key can be stored again (a late retry runs as a new command)
    again = {"scope": "t1", "request_sha256": "cd" * 32, "response": {}}
    store.run(lambda tx: tx.idempotency_put("k0", **again))
    for bad, limit, field in ((datetime(2026, 11, 4), 10, "before"), (cut, 0, "limit")):
        with pytest.raises(StoreError) as err:
            store.run(lambda tx, b=bad, n=limit: tx.idempotency_prune(b, limit=n))
        assert err.value.key == "store.bad_value" and err.value.params["field"] == field
    with pytest.raises(StoreError) as err:
        store.read(lambda tx: tx.idempotency_prune(cut))
    assert err.value.key == "store.readonly"


def test_snapshots_latest_and_conflicts(store: Store) -> None:
    setup(store)
    assert store.read(lambda tx: tx.snapshot_latest("t1")) is None
    store.run(lambda tx: tx.snapshot_put("t1", 10, {"state": "a"}))
    store.run(lambda tx: tx.snapshot_put("t1", 20, {"state": "b"}))
    store.run(lambda tx: tx.snapshot_put("t1", 20, {"state": "b"}))  # the same again: no-op
    latest = store.read(lambda tx: tx.snapshot_latest("t1"))
    assert latest is not None and (latest.seq, latest.payload) == (20, {"state": "b"})
    earlier = store.read(lambda tx: tx.snapshot_latest("t1", at_most=15))
    assert earlier is not None and earlier.seq == 10
    with pytest.raises(StoreError) as err:
        store.run(lambda tx: tx.snapshot_put("t1", 20, {"state": "c"}))
    assert err.value.key == "store.snapshot_conflict"


def test_shoes_commitment_then_reveal_once_and_verify_checks_it(store: Store) -> None:
    setup(store)
    order = parse_cards("As Kd 7h 2c")
    commitment, reveal = commit_shoe(order, SeededRandom(1))
    assert store.read(lambda tx: tx.next_shoe_no("t1")) == 1
    store.run(lambda tx: tx.shoe_put("t1", 1, commitment.digest))
    with pytest.raises(StoreError) as err:
        store.run(lambda tx: tx.shoe_put("t1", 1, commitment.digest))
    assert err.value.key == "store.shoe_exists"
    store.run(lambda tx: tx.shoe_reveal("t1", 1, codec.encode(reveal), True))
    with pytest.raises(StoreError) as err:
        store.run(lambda tx: tx.shoe_reveal("t1", 1, codec.encode(reveal), True))
    assert err.value.key == "store.shoe_revealed"
    shoe = store.read(lambda tx: tx.shoes("t1"))[0]
    assert (shoe.commitment, shoe.verified) == (commitment.digest, True)
    assert codec.decode(shoe.revealed) == reveal
    assert verify(store).ok
    other = codec.encode(commit_shoe(parse_cards("As Kd 7h 3c"), SeededRandom(1))[1])
    behind_the_back(
        store,
        "UPDATE shoes SET revealed = :r WHERE table_id = 't1' AND shoe_no = 1",
        r=codec.canonical_bytes(other).decode(),
    )
    failure = verify(store).failure
    assert failure is not None
    assert (failure.check, failure.record, failure.key) == (Check.SHOE, "t1#1", "store.verify_shoe")


def test_a_card_by_card_shoe_verifies_and_a_changed_card_or_salt_is_named(store: Store) -> None:
    """Common rules "Randomness": a shoe committed card by card is stored with its leaves and
    the public's cards; verify checks every one against the Merkle root, and names the shoe
    and the position of a card or salt changed behind the store's back."""
    setup(store)
    shoe = commit_leaves(parse_cards("As Kd 7h 2c 9s"), SeededRandom(4))
    public = tuple(CardShown(i, shoe.order[i], shoe.salts[i]) for i in (1, 3))
    store.run(lambda tx: tx.shoe_put("t1", 1, shoe.commitment))
    opening = ShoeOpening(shoe.commitment, shoe.leaves, public)
    store.run(lambda tx: tx.shoe_reveal("t1", 1, codec.encode(opening), True))
    assert verify(store).ok
    assert store.read(lambda tx: tx.shoe("t1", 1)).revealed == codec.encode(opening)
    for changed in (
        CardShown(3, shoe.order[0], shoe.salts[3]),  # another card at position 3
        CardShown(3, shoe.order[3], shoe.salts[2]),  # another salt
    ):
        forged = ShoeOpening(shoe.commitment, shoe.leaves, (public[0], changed))
        behind_the_back(
            store,
            "UPDATE shoes SET revealed = :r WHERE table_id = 't1' AND shoe_no = 1",
            r=codec.canonical_bytes(forged).decode(),
        )
        failure = verify(store).failure
        assert failure is not None
        assert (failure.check, failure.record, failure.key) == (
            Check.SHOE,
            "t1#1",
            "store.verify_leaf",
        )
        assert (failure.params["shoe_no"], failure.params["position"]) == (1, 3)
    # leaves that are not the root's: named as the shoe's leaves ("-")
    other = commit_leaves(parse_cards("As Kd 7h 2c 9s"), SeededRandom(5))
    forged = ShoeOpening(shoe.commitment, other.leaves, ())
    behind_the_back(
        store,
        "UPDATE shoes SET revealed = :r WHERE table_id = 't1' AND shoe_no = 1",
        r=codec.canonical_bytes(forged).decode(),
    )
    failure = verify(store).failure
    assert failure is not None and failure.params["position"] == "-"


def test_times_written_by_the_driver_statements_are_those_core_writes(store: Store) -> None:
    """The events, idempotency records and shoes go to the driver directly: their times are
    stored as SQLAlchemy Core stores them (the ledger's transactions, beside them)."""
    setup(store)
    at = datetime(2026, 12, 3, 15, 4, 5, 678901, tzinfo=UTC)
    store.clock = lambda: at
    reveal = codec.encode(commit_shoe(parse_cards("As Kd"), SeededRandom(1))[1])

    def write(tx: Tx) -> None:
        tx.deposit("alice", 5, actor="cashier-1", reason="time check")
        tx.append_events("t1", events(2))
        tx.idempotency_put("k-time", scope="t1", request_sha256="ab" * 32, response={})
        tx.shoe_put("t1", 1, "cd" * 32)
        tx.shoe_reveal("t1", 1, reveal, True)

    store.run(write)
    stored = store.read(
        lambda tx: tx.connection.exec_driver_sql(
            "SELECT (SELECT created_at FROM transactions WHERE reason = 'time check'), "
            "(SELECT max(recorded_at) FROM events), "
            "(SELECT created_at FROM idempotency WHERE key = 'k-time'), "
            "(SELECT created_at FROM shoes), (SELECT revealed_at FROM shoes)"
        ).one()
    )
    assert len(set(stored)) == 1  # the same stored value (text on SQLite) in every column
    assert {r.recorded_at for r in store.read(lambda tx: tx.read_events("t1"))} == {at}
    record = store.read(lambda tx: tx.idempotency_get("k-time"))
    assert record is not None and record.created_at == at
    shoe = store.read(lambda tx: tx.shoes("t1"))[0]
    assert (shoe.created_at, shoe.revealed_at, shoe.verified) == (at, at, True)
