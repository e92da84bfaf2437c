"""PostgreSQL: taking a table's lease waits for any transaction still writing the table's log
(the table's fence, ``store.catalog_ops.FENCE_CLASS``). A process killed just after sending
its ``COMMIT`` leaves a backend that may still commit that request: whoever takes the table
next must read the table after that commit, never before it (the recovery of a round found
open at start-up, CSP-11.4 / BAC-10, reads what the dead process really left). On SQLite a
writer's transaction ends with its process, so there is nothing to wait for."""

from __future__ import annotations

import threading
import time
from datetime import timedelta
from typing import Any

from macau_tables.store import Store, Tx
from tests.store.support import events, setup


def _waiting_on_an_advisory_lock(store: Store) -> int:
    with store.engine.connect() as look:
        return int(
            look.exec_driver_sql(
                "SELECT count(*) FROM pg_stat_activity WHERE datname = current_database() "
                "AND wait_event_type = 'Lock' AND wait_event = 'advisory'"
            ).scalar_one()
        )


def test_taking_a_table_waits_for_a_request_still_writing_its_log_CSP_11_4_BAC_10(
    pg_store: Store,
) -> None:
    setup(pg_store)
    soon = pg_store.read(lambda tx: tx.now()) + timedelta(seconds=30)
    appended, commit = threading.Event(), threading.Event()
    seen: dict[str, Any] = {}
    errors: list[BaseException] = []

    def writing(tx: Tx) -> None:  # the dead process's request, its COMMIT still to come
        tx.append_events("t1", events(3), round_id="r1")
        appended.set()
        assert commit.wait(30)

    def taking() -> None:  # the next process takes the table, then reads it
        seen["taken"] = pg_store.run(lambda tx: tx.acquire_lease("t1", "next", until=soon))
        seen["head"] = pg_store.read(lambda tx: tx.chain_head("t1").seq)

    def guarded(target: Any) -> None:
        try:
            target()
        except BaseException as exc:
            errors.append(exc)

    writer = threading.Thread(target=guarded, args=(lambda: pg_store.run(writing),))
    writer.start()
    assert appended.wait(30)
    taker = threading.Thread(target=guarded, args=(taking,))
    taker.start()
    waiting = 0
    deadline = time.monotonic() + 30  # generous: a wait, not a measurement
    while not waiting and time.monotonic() < deadline:
        waiting = _waiting_on_an_advisory_lock(pg_store)
        time.sleep(0.01)
    assert waiting == 1 and seen == {}  # the taker waits for the fence, nothing read yet
    commit.set()
    writer.join(30)
    taker.join(30)
    assert errors == []
    assert seen == {"taken": True, "head": 3}  # taken after the commit, which it sees
