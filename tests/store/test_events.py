"""The event log: append-only, hash-chained per table, on SQLite and PostgreSQL."""

from __future__ import annotations

import hashlib
import json

import pytest

from macau_tables import codec
from macau_tables.errors import CodecError, StoreError
from macau_tables.store import GENESIS, Store, chain_hash
from macau_tables.store.verify import Check, verify
from tests.store.support import RULES, ToyDealt, ToyOpened, behind_the_back, count, events, setup


def test_append_chains_each_record_to_the_previous_one(store: Store) -> None:
    setup(store)
    first = store.run(lambda tx: tx.append_events("t1", events(3), round_id="r1"))
    second = store.run(lambda tx: tx.append_events("t1", events(2, "r2"), round_id="r2"))
    records = first + second
    assert [r.seq for r in records] == [1, 2, 3, 4, 5]
    prev = GENESIS
    for record, event in zip(records, events(3) + events(2, "r2"), strict=True):
        payload = codec.canonical_bytes(event)
        assert record.payload.encode() == payload
        assert record.prev_hash == prev
        # The formula, written out: SHA-256(previous hash as 32 bytes + canonical bytes).
        assert record.hash == hashlib.sha256(bytes.fromhex(prev) + payload).hexdigest()
        prev = record.hash
    stored = store.read(lambda tx: tx.read_events("t1"))
    assert stored == records
    assert store.read(lambda tx: tx.chain_head("t1")).hash == records[-1].hash
    assert store.read(lambda tx: tx.chain_heads())["t1"].seq == 5


def test_events_decode_with_the_rules_given_back_by_config_id(store: Store) -> None:
    setup(store)
    store.run(lambda tx: tx.append_events("t1", events(2), round_id="r1"))

    def read(tx: object) -> list[object]:
        from macau_tables.store import Tx

        assert isinstance(tx, Tx)
        return [r.decode(tx.config_resolver()) for r in tx.read_events("t1")]

    assert store.read(read) == events(2)
    opened = store.read(lambda tx: tx.read_events("t1"))[0].data()
    assert opened["rules"] == {"config_id": "cfg-1", "sha256": codec.sha256(RULES)}


def test_read_after_limit_and_round(store: Store) -> None:
    setup(store)
    store.run(lambda tx: tx.append_events("t1", events(3), round_id="r1"))
    store.run(lambda tx: tx.append_events("t1", events(3, "r2"), round_id="r2"))
    assert [r.seq for r in store.read(lambda tx: tx.read_events("t1", after=2, limit=2))] == [3, 4]
    assert [r.seq for r in store.read(lambda tx: tx.read_events("t1", round_id="r2"))] == [4, 5, 6]
    assert store.read(lambda tx: tx.round_ids("t1")) == ["r1", "r2"]
    assert store.read(lambda tx: tx.chain_head("nowhere")).hash == GENESIS


def test_unknown_table_and_unstorable_event_write_nothing(store: Store) -> None:
    setup(store)
    with pytest.raises(StoreError) as err:
        store.run(lambda tx: tx.append_events("t9", events(1)))
    assert err.value.key == "store.unknown_table"
    with pytest.raises(CodecError):
        store.run(lambda tx: tx.append_events("t1", [ToyDealt("r1", "c", 1), object()]))
    assert count(store, "events") == 0


def test_a_failed_transaction_leaves_no_event(store: Store) -> None:
    setup(store)

    def append_then_fail(tx: object) -> None:
        from macau_tables.store import Tx

        assert isinstance(tx, Tx)
        tx.append_events("t1", events(2))
        raise RuntimeError("crash before commit")

    with pytest.raises(RuntimeError):
        store.run(append_then_fail)
    assert count(store, "events") == 0
    assert store.run(lambda tx: tx.append_events("t1", events(1)))[0].seq == 1


def test_verify_passes_on_a_sound_log(store: Store) -> None:
    setup(store)
    for r in range(3):
        store.run(lambda tx, r=r: tx.append_events("t1", events(4, f"r{r}"), round_id=f"r{r}"))
    result = verify(store)
    assert result.ok, result.failure
    assert result.events == 12 and result.tables == 1


@pytest.mark.parametrize(
    ("sql", "key", "record"),
    [
        (
            "UPDATE events SET payload = REPLACE(payload, :old, :new) "
            "WHERE table_id = 't1' AND seq = 3",
            "store.verify_hash_mismatch",
            "t1#3",
        ),
        (
            "UPDATE events SET hash = :fake WHERE table_id = 't1' AND seq = 2",
            "store.verify_hash_mismatch",
            "t1#2",
        ),
        ("DELETE FROM events WHERE table_id = 't1' AND seq = 2", "store.verify_seq_gap", "t1#2"),
        (
            "UPDATE events SET prev_hash = :fake WHERE table_id = 't1' AND seq = 3",
            "store.verify_chain_broken",
            "t1#3",
        ),
        (
            "UPDATE events SET type = 'storetest.ToyOpened' WHERE table_id = 't1' AND seq = 4",
            "store.verify_type_mismatch",
            "t1#4",
        ),
    ],
)
def test_a_tampered_event_fails_verify_at_that_record(
    store: Store, sql: str, key: str, record: str
) -> None:
    setup(store)
    store.run(lambda tx: tx.append_events("t1", events(5), round_id="r1"))
    assert verify(store).ok
    params = {"fake": "f" * 64, "old": '"n":2', "new": '"n":7'}
    assert behind_the_back(store, sql, **{k: v for k, v in params.items() if f":{k}" in sql}) == 1
    failure = verify(store).failure
    assert failure is not None
    assert (failure.check, failure.relation, failure.record, failure.table_id, failure.key) == (
        Check.CHAIN,
        "events",
        record,
        "t1",
        key,
    )
    assert "t1" in failure.message


def test_an_event_rewritten_with_a_recomputed_hash_breaks_the_next_link(store: Store) -> None:
    setup(store)
    records = store.run(lambda tx: tx.append_events("t1", events(4), round_id="r1"))
    forged = codec.canonical_bytes(ToyDealt("r1", "c9", 9)).decode()
    behind_the_back(
        store,
        "UPDATE events SET payload = :p, hash = :h WHERE table_id = 't1' AND seq = 2",
        p=forged,
        h=chain_hash(records[0].hash, forged.encode()),
    )
    failure = verify(store).failure
    assert failure is not None and failure.record == "t1#3"
    assert failure.key == "store.verify_chain_broken"


def test_an_event_naming_rules_not_stored_with_that_hash_fails_verify(store: Store) -> None:
    setup(store)
    store.run(lambda tx: tx.append_events("t1", events(2), round_id="r1"))
    opened = store.read(lambda tx: tx.read_events("t1"))[0]
    data = json.loads(opened.payload)
    data["rules"]["sha256"] = "0" * 64
    forged = codec.canonical_bytes(data).decode()
    # A forger who even recomputes the chain is caught by the configuration reference.
    h1 = chain_hash(GENESIS, forged.encode())
    second = store.read(lambda tx: tx.read_events("t1"))[1]
    h2 = chain_hash(h1, second.payload.encode())
    behind_the_back(
        store,
        "UPDATE events SET payload = :p, hash = :h WHERE table_id = 't1' AND seq = 1",
        p=forged,
        h=h1,
    )
    behind_the_back(
        store,
        "UPDATE events SET prev_hash = :p, hash = :h WHERE table_id = 't1' AND seq = 2",
        p=h1,
        h=h2,
    )
    failure = verify(store).failure
    assert failure is not None
    assert (failure.key, failure.record, failure.params["config_id"]) == (
        "store.verify_rules_ref",
        "t1#1",
        "cfg-1",
    )


def test_store_has_no_update_or_delete_of_events() -> None:
    """Append-only: no code path of the store changes or removes an event."""
    from pathlib import Path

    import macau_tables.store as pkg

    for path in Path(pkg.__file__).parent.glob("*.py"):
        source = path.read_text(encoding="utf-8")
        assert "update(s.events)" not in source and "delete(s.events)" not in source, path
        assert "UPDATE events" not in source and "DELETE FROM events" not in source, path


def test_rules_stored_once_per_config_id(store: Store) -> None:
    setup(store)
    digest = store.run(lambda tx: tx.put_config("caribbean", "cfg-1", RULES))
    assert digest == codec.sha256(RULES)
    with pytest.raises(StoreError) as err:
        store.run(lambda tx: tx.put_config("caribbean", "cfg-1", RULES.__class__("other", 5)))
    assert err.value.key == "store.config_conflict"
    assert store.read(lambda tx: tx.get_config("cfg-1")) == RULES
    _ = ToyOpened  # the event type that references it


def test_an_append_built_from_a_stale_state_is_refused(store: Store) -> None:
    setup(store)
    store.run(lambda tx: tx.append_events("t1", events(2), expected_seq=0))
    with pytest.raises(StoreError) as err:
        store.run(lambda tx: tx.append_events("t1", events(1, "r2"), expected_seq=1))
    assert err.value.key == "store.chain_conflict"
    assert err.value.params == {"table_id": "t1", "expected": 1, "found": 2}
    assert store.run(lambda tx: tx.append_events("t1", events(1, "r2"), expected_seq=2))
    assert count(store, "events") == 3


def test_two_processes_racing_on_one_table_cannot_both_append(pg_store: Store) -> None:
    """Both read the same chain head; the key (table_id, seq) lets only the first commit."""
    import threading

    from macau_tables.store import Tx

    setup(pg_store)
    first_appended = threading.Event()
    second_tried = threading.Event()
    outcome: list[object] = []

    def first(tx: Tx) -> None:
        tx.append_events("t1", events(2))
        first_appended.set()
        second_tried.wait(0.5)  # the second append waits on our uncommitted rows

    def second() -> None:
        first_appended.wait(5)
        try:
            pg_store.run(lambda tx: tx.append_events("t1", events(1, "r2")), retries=0)
            outcome.append("appended")
        except StoreError as exc:
            outcome.append(exc.key)

    thread = threading.Thread(target=second)
    thread.start()
    threading.Timer(0.2, second_tried.set).start()
    pg_store.run(first)
    thread.join(10)
    assert outcome == ["store.chain_race"]
    assert [r.seq for r in pg_store.read(lambda tx: tx.read_events("t1"))] == [1, 2]
    assert verify(pg_store).ok
