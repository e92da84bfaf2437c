"""Many writers on one meter: contributions are commuting deltas that sum exactly; awards read
the meter under its lock and are paid one after the other in a recorded order (CSP-1 linked
"system", CSP-10.6/10.8, BAC-17), on SQLite threads and on PostgreSQL threads and processes."""

from __future__ import annotations

import multiprocessing
import random
import threading
import time

from macau_tables.store import Store
from macau_tables.store.verify import verify
from tests.store.support import setup
from tests.store.workers import award_worker, contribute, contribute_worker, pay_tenth

WRITERS = 8


def run_threads(target: object, args: list[tuple[object, ...]]) -> None:
    errors: list[BaseException] = []

    def guarded(*a: object) -> None:
        try:
            target(*a)  # type: ignore[operator]
        except BaseException as exc:
            errors.append(exc)

    threads = [threading.Thread(target=guarded, args=a) for a in args]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert errors == []


def test_threads_adding_meter_deltas_sum_exactly_CSP_1(store: Store) -> None:
    setup(store, seed=5_000)
    rng = random.Random(9)
    amounts = [[rng.randint(1, 999) for _ in range(25)] for _ in range(WRITERS)]
    start = threading.Barrier(WRITERS)

    def writer(mine: list[int]) -> None:
        start.wait()
        for amount in mine:
            contribute(store, amount)

    run_threads(writer, [(a,) for a in amounts])
    assert store.read(lambda tx: tx.meter_amount("m-1")) == 5_000 + sum(map(sum, amounts))
    assert store.read(lambda tx: tx.ledger_total()) == 0
    assert verify(store).ok


def test_processes_adding_meter_deltas_on_postgresql_sum_exactly_CSP_1(pg_store: Store) -> None:
    setup(pg_store, seed=5_000)
    url = pg_store.raw_url.render_as_string(hide_password=False)
    ctx = multiprocessing.get_context("forkserver")
    ctx.set_forkserver_preload(["tests.store.workers"])
    start = ctx.Barrier(WRITERS)
    procs = [
        ctx.Process(target=contribute_worker, args=(url, 30, 7 + i, start)) for i in range(WRITERS)
    ]
    for p in procs:
        p.start()
    for p in procs:
        p.join(120)
    assert [p.exitcode for p in procs] == [0] * WRITERS
    expected = 5_000 + sum(30 * (7 + i) for i in range(WRITERS))
    assert pg_store.read(lambda tx: tx.meter_amount("m-1")) == expected
    assert verify(pg_store).ok


def simulate(meter: int, hits: int) -> list[int]:
    """Awards of 10 % paid one after the other from ``meter``."""
    out = []
    for _ in range(hits):
        out.append(meter // 10)
        meter -= meter // 10
    return out


def test_simultaneous_awards_are_paid_one_after_the_other_in_a_recorded_order(
    store: Store,
) -> None:
    setup(store, seed=1_000_000)
    start = threading.Barrier(WRITERS)

    def hit(box: int) -> None:
        start.wait()
        store.run(lambda tx: pay_tenth(tx, box))

    run_threads(hit, [(box,) for box in range(1, WRITERS + 1)])
    hits = sorted(store.read(lambda tx: tx.hits("m-1")), key=lambda h: h.seq)
    assert [h.seq for h in hits] == list(range(1, WRITERS + 1))
    assert sorted(h.box for h in hits) == list(range(1, WRITERS + 1))
    assert [h.amount for h in hits] == simulate(1_000_000, WRITERS)
    assert store.read(lambda tx: tx.meter_amount("m-1")) == 1_000_000 - sum(h.amount for h in hits)
    assert verify(store).ok


def test_eight_processes_hitting_one_postgresql_meter_at_once(pg_store: Store) -> None:
    setup(pg_store, seed=1_000_000)
    url = pg_store.raw_url.render_as_string(hide_password=False)
    ctx = multiprocessing.get_context("forkserver")
    ctx.set_forkserver_preload(["tests.store.workers"])
    start = ctx.Barrier(WRITERS)
    procs = [
        ctx.Process(target=award_worker, args=(url, box, start)) for box in range(1, WRITERS + 1)
    ]
    for p in procs:
        p.start()
    for p in procs:
        p.join(120)
    assert [p.exitcode for p in procs] == [0] * WRITERS
    hits = sorted(pg_store.read(lambda tx: tx.hits("m-1")), key=lambda h: h.seq)
    assert [h.amount for h in hits] == simulate(1_000_000, WRITERS)
    assert sorted(h.box for h in hits) == list(range(1, WRITERS + 1))
    paid = sum(h.amount for h in hits)
    assert pg_store.read(lambda tx: tx.wallet_balance("alice")) == 1_000 + paid
    assert pg_store.read(lambda tx: tx.meter_amount("m-1")) == 1_000_000 - paid
    assert verify(pg_store).ok


def test_a_contribution_adds_no_lock_to_a_meter_row_another_writer_holds(pg_store: Store) -> None:
    """PostgreSQL: while another transaction holds the meter's row (as a writer does for its
    update and commit), a contribution's statements add no lock of their own to that row — its
    posting line naming the meter is checked at the commit (schema v3), after its own update
    of the row — so no MultiXact is made: the row's xmax stays the holder's transaction. The
    contribution then commits after the holder, exactly."""
    setup(pg_store, seed=1_000)
    meter = "jackpot_meter:m-1"
    errors: list[BaseException] = []

    def contribute_now() -> None:
        try:
            contribute(pg_store, 7)
        except BaseException as exc:
            errors.append(exc)

    with pg_store.engine.connect() as holder, pg_store.engine.connect() as look:
        holder.exec_driver_sql(
            "SELECT 1 FROM accounts WHERE account_id = %s FOR NO KEY UPDATE", (meter,)
        )
        held_by = holder.exec_driver_sql("SELECT pg_current_xact_id()::text").scalar_one()
        writer = threading.Thread(target=contribute_now)
        writer.start()
        waiting = 0
        deadline = time.monotonic() + 30  # generous: a wait, not a measurement
        while not waiting and time.monotonic() < deadline:
            waiting = look.exec_driver_sql(
                "SELECT count(*) FROM pg_stat_activity "
                "WHERE datname = current_database() AND wait_event_type = 'Lock'"
            ).scalar_one()
            look.rollback()
            time.sleep(0.01)
        xmax = look.exec_driver_sql(
            "SELECT xmax::text FROM accounts WHERE account_id = %s", (meter,)
        ).scalar_one()
        look.rollback()
        holder.rollback()
        writer.join()
    assert errors == []
    assert waiting == 1  # the contribution waits for the row only at its commit's update
    assert int(xmax) == int(held_by) % 2**32  # the holder's lock alone, not a MultiXact
    assert pg_store.read(lambda tx: tx.meter_amount("m-1")) == 1_007
    assert verify(pg_store).ok
