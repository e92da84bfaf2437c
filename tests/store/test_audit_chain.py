"""The audit log hash-chained (schema v6; STANDARDS "Logs and access": privileged actions and
faults logged with time, table, user and reason, in storage the actor cannot alter): every
entry chained to the one before in id order; ``verify`` finds an entry changed, removed or
slipped in behind the store's back at that entry; writers of several connections append one
after the other; a database of schema v5 is chained by the upgrade. On SQLite and PostgreSQL."""

from __future__ import annotations

import threading

import pytest
from alembic import command
from alembic.config import Config
from sqlalchemy import text

from macau_tables.store import SCHEMA_VERSION, Store
from macau_tables.store.chain import GENESIS, audit_payload, chain_hash
from macau_tables.store.store import MIGRATIONS
from macau_tables.store.verify import Check, verify
from tests.store.support import behind_the_back


def log_three(store: Store) -> list[int]:
    ids = [
        store.run(lambda tx: tx.audit("table_open", actor="manager", table_id="t1", reason="a")),
        store.run(lambda tx: tx.audit("program.approve", actor="lab", detail={"digest": "ab"})),
        store.run(lambda tx: tx.audit("user_disable", actor="admin", reason="left the casino")),
    ]
    return ids


def test_entries_are_chained_in_id_order_and_verify(store: Store) -> None:
    ids = log_three(store)
    entries = store.read(lambda tx: tx.audit_entries())
    assert [e.id for e in entries] == ids
    rows = store.read(
        lambda tx: list(tx.connection.execute(text("SELECT * FROM audit_log ORDER BY id")))
    )
    prev = GENESIS
    for row, entry in zip(rows, entries, strict=True):
        payload = audit_payload(
            entry.at, row.actor, row.action, row.table_id, row.reason, row.detail
        )
        assert row.prev_hash == prev and row.hash == chain_hash(prev, payload)
        prev = row.hash
    checked = verify(store)
    assert checked.ok and checked.audit == 3


@pytest.mark.parametrize(
    ("sql", "broken"),
    [
        ("UPDATE audit_log SET reason = 'routine' WHERE id = :second", 1),
        ('UPDATE audit_log SET detail = \'{"digest":"cd"}\' WHERE id = :second', 1),
        ("UPDATE audit_log SET actor = 'someone else' WHERE id = :first", 0),
        ("DELETE FROM audit_log WHERE id = :second", 2),  # the next one no longer links
    ],
)
def test_an_entry_changed_or_removed_behind_the_back_fails_verify_there(
    store: Store, sql: str, broken: int
) -> None:
    ids = log_three(store)
    assert verify(store).ok
    assert behind_the_back(store, sql, first=ids[0], second=ids[1]) == 1
    failure = verify(store).failure
    assert failure is not None
    assert (failure.check, failure.relation, failure.record) == (
        Check.AUDIT,
        "audit_log",
        f"audit {ids[broken]}",
    )
    assert failure.key == "store.verify_audit_log"


def test_an_approval_slipped_in_behind_the_back_fails_verify(store: Store) -> None:
    ids = log_three(store)
    forged = (
        "INSERT INTO audit_log (at, actor, action, table_id, reason, detail, prev_hash, hash) "
        "SELECT at, 'lab', 'program.approve', NULL, 'forged', NULL, hash, :fake "
        "FROM audit_log WHERE id = :last"
    )
    assert behind_the_back(store, forged, fake="f" * 64, last=ids[-1]) == 1
    failure = verify(store).failure
    assert failure is not None and failure.check == Check.AUDIT
    assert failure.record == f"audit {ids[-1] + 1}"


def test_writers_on_several_connections_append_one_chain(store: Store) -> None:
    errors: list[BaseException] = []

    def write(n: int) -> None:
        try:
            for i in range(10):
                store.run(lambda tx, i=i: tx.audit("fault", actor=f"w{n}", reason=str(i)))
        except BaseException as exc:  # reported below
            errors.append(exc)

    threads = [threading.Thread(target=write, args=(n,)) for n in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(60)
    assert not errors, errors
    checked = verify(store)
    assert checked.ok, checked.failure
    assert checked.audit == 40


def test_a_schema_5_database_is_chained_by_the_upgrade(database_url: str) -> None:
    with Store.open(database_url) as store:
        config = Config()
        config.set_main_option("script_location", str(MIGRATIONS))
        with store.engine.begin() as conn:
            config.attributes["connection"] = conn
            command.upgrade(config, "0005")
            for n in range(3):
                conn.execute(
                    text(
                        "INSERT INTO audit_log (at, actor, action, table_id, reason, detail) "
                        "VALUES (:at, 'admin', 'user_add', NULL, :reason, '{\"name\":\"x\"}')"
                    ),
                    {"at": f"2026-12-0{n + 1} 10:00:00.000001", "reason": f"hire {n}"},
                )
        assert store.upgrade() == SCHEMA_VERSION  # 6 chained the log; later ones came after
        checked = verify(store)
        assert checked.ok and checked.audit == 3, checked.failure
        store.run(lambda tx: tx.audit("user_add", actor="admin", reason="after the upgrade"))
        assert verify(store).ok
