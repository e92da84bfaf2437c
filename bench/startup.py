"""Benchmark: start-up of a table with 100,000 rounds in its log (issue 9, "Benchmarks": goal
under 1 s, thanks to snapshots).

Usage::

    .venv/bin/python bench/startup.py [--rounds 100000] [--small 1000] [--game baccarat]
        [--backend sqlite postgresql] [--trials 5] [--cache-dir /tmp/macau-tables-bench]
        [--rebuild] [--json PATH]

**The log.** The demonstration casino (``casino init``) with a second virtual table of the
same game, ``<table>-small``; bots play ``--rounds`` rounds at the big table and ``--small``
at the small one, through :class:`~macau_tables.tables.TableService` itself — the same rules,
events, hash chain, postings, idempotency records and snapshots (every
:data:`~macau_tables.tables.SNAPSHOT_EVERY` events) as real play. Only the commits differ:
this *bounded bulk path* gives the service a store whose ``run`` shares one open SQLite
transaction, committed every ``--commit-every`` requests, with ``synchronous=OFF`` while
building (a crash while building just means building again). That takes minutes instead of
hours; the file is then checked (``PRAGMA quick_check``, the store's start-up check) and cached
as ``<cache-dir>/startup-<game>-<rounds>-<small>-s<schema>-<version>.db`` for reruns.

**Measured.** Opening each table as a new process does — :class:`TableService` construction:
its row, configuration, latest snapshot and the events after it replayed, the chain head, the
meter, the lease, recovery (none needed) — best and median of ``--trials``, each on a freshly
opened store. The reference, in the same run: the same start-up of the small table. Printed:
seconds of both and the ratio big / small (1.0 means start-up does not grow with history);
then, for scale, the small table's start-up once its snapshots are deleted (the whole log
replayed) and what that would be for the big table's log.
PostgreSQL: the cached file's rows are copied into a scratch database first (not timed).
Exit status 0 when the big table starts in under 1 s on every backend.
"""

from __future__ import annotations

import argparse
import json
import shutil
import sqlite3
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar

from sqlalchemy import func, insert, select

import macau_tables
from macau_tables.store import SCHEMA_VERSION, Store, TableMode, TableStatus, Tx
from macau_tables.store import schema as s
from macau_tables.tables import Bots, TableService
from service_db import demo_casino, machine, open_store, scratch_url

GOAL_SECONDS = 1.0
TABLES = {"caribbean": "csp-1", "baccarat": "bac-1"}
T = TypeVar("T")


class BulkStore:
    """A stand-in for :class:`Store` while building: ``run``/``read`` share one open write
    transaction (each call in a savepoint, so a refused command leaves nothing), committed
    every ``every`` calls. The service sees a store as usual; only the commits are fewer."""

    def __init__(self, store: Store, every: int) -> None:
        self.store = store
        self.every = every
        self.calls = 0
        self.conn: Any = None
        self.dialect = store.dialect

    def _open(self) -> Any:
        if self.conn is None:
            self.conn = self.store.engine.connect()
            # outside any transaction, on the driver's own connection (building only)
            self.conn.connection.driver_connection.execute("PRAGMA synchronous=OFF")
            self.conn.begin()
        return self.conn

    def run(self, fn: Callable[[Tx], T], **_: Any) -> T:
        conn = self._open()
        with conn.begin_nested():
            tx = Tx(conn, clock=self.store.clock, readonly=False)
            result = fn(tx)
        tx.run_after_commit()
        self.calls += 1
        if self.calls % self.every == 0:
            self.commit()
        return result

    def read(self, fn: Callable[[Tx], T]) -> T:
        return self.run(fn)

    def listen_meters(self, callback: Any) -> Any:
        return self.store.listen_meters(callback)

    def commit(self) -> None:
        if self.conn is not None:
            self.conn.commit()
            self.conn.close()
            self.conn = None


def cache_path(args: argparse.Namespace) -> Path:
    name = (
        f"startup-{args.game}-{args.rounds}-{args.small}-s{SCHEMA_VERSION}-"
        f"{macau_tables.__version__}.db"
    )
    return Path(args.cache_dir) / name


def build(path: Path, args: argparse.Namespace) -> None:
    """Build the cached database file at ``path`` (see the module docstring)."""
    tmp = path.with_suffix(".building")
    for leftover in tmp.parent.glob(tmp.name + "*"):
        leftover.unlink()
    store = open_store(f"sqlite:///{tmp}")
    try:
        players = demo_casino(store)
        big = TABLES[args.game]
        small = f"{big}-small"

        def add_small(tx: Tx) -> None:
            rec = tx.table(big)
            tx.create_table(
                small,
                name=f"{rec.name} (small log)",
                game=rec.game,
                mode=TableMode.VIRTUAL,
                demo=rec.demo,
                config_id=rec.config_id,
                meter_id=rec.meter_id,
            )
            tx.set_table_status(small, TableStatus.OPEN, actor="bench", reason="bench")

        store.run(add_small)
        bulk = BulkStore(store, args.commit_every)
        started = time.perf_counter()
        for table_id, rounds in ((small, args.small), (big, args.rounds)):
            service = TableService(bulk, table_id, owner="bench-build")  # type: ignore[arg-type]
            bots = Bots(service, players[: args.players], seed=1, batched=True)
            step = max(1, rounds // 20)
            done = 0
            while done < rounds:
                n = min(step, rounds - done)
                bots.play(n)
                done += n
                rate = done / (time.perf_counter() - started)
                print(f"  building {table_id}: {done}/{rounds} rounds ({rate:.0f}/s)", flush=True)
            service.close()
            bulk.commit()
            started = time.perf_counter()
        store.check()
    finally:
        store.close()
    with sqlite3.connect(tmp) as conn:  # fold the WAL into the file and check it
        if conn.execute("PRAGMA quick_check").fetchone()[0] != "ok":
            raise SystemExit("the built database fails its integrity check")
        conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    tmp.rename(path)
    for leftover in tmp.parent.glob(tmp.name + "-*"):  # the emptied -wal / -shm files
        leftover.unlink()


def copy_to(url: str, path: Path) -> None:
    """Copy every row of the cached SQLite file into the migrated database at ``url``."""
    src = Store.open(f"sqlite:///{path}")
    dst = open_store(url)
    try:
        with src.engine.connect() as a, dst.engine.begin() as b:
            for table in s.metadata.sorted_tables:
                if table.name == "schema_info":
                    continue
                result = a.execution_options(stream_results=True).execute(select(table))
                while chunk := result.fetchmany(20_000):
                    b.execute(insert(table), [dict(r._mapping) for r in chunk])
            if dst.dialect == "postgresql":  # the serial columns go on after the copied ids
                for table, column in (("transactions", "tx_id"), ("audit_log", "id")):
                    b.exec_driver_sql(
                        f"SELECT setval(pg_get_serial_sequence('{table}', '{column}'), "
                        f"(SELECT COALESCE(MAX({column}), 1) FROM {table}))"
                    )
    finally:
        src.close()
        dst.close()


def start_up(url: str, table_id: str, trials: int) -> list[float]:
    """Seconds each start-up of ``table_id`` took (a store opened afresh each time)."""
    times = []
    for _ in range(trials):
        store = Store.open(url)
        try:
            started = time.perf_counter()
            service = TableService(store, table_id, owner="bench-startup")
            times.append(time.perf_counter() - started)
            service.close()
        finally:
            store.close()
    return times


def full_replay(url: str, table_id: str) -> float:
    """Seconds a start-up of ``table_id`` takes once its snapshots are deleted (this scratch
    copy only): the whole log replayed, what the snapshots save."""
    store = Store.open(url)
    try:
        with store.engine.begin() as conn:
            conn.execute(s.snapshots.delete().where(s.snapshots.c.table_id == table_id))
    finally:
        store.close()
    return start_up(url, table_id, 1)[0]


def log_size(url: str, table_id: str) -> tuple[int, int, int]:
    """(events, rounds, events after the latest snapshot) of ``table_id``."""
    store = Store.open(url)
    try:
        with store.engine.connect() as conn:
            events = conn.execute(
                select(func.count()).select_from(s.events).where(s.events.c.table_id == table_id)
            ).scalar_one()
        rounds = len(store.read(lambda tx: tx.round_ids(table_id)))
        snap = store.read(lambda tx: tx.snapshot_latest(table_id))
        return int(events), rounds, int(events) - (snap.seq if snap is not None else 0)
    finally:
        store.close()


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rounds", type=int, default=100_000)
    parser.add_argument("--small", type=int, default=1_000)
    parser.add_argument("--game", choices=sorted(TABLES), default="baccarat")
    parser.add_argument("--players", type=int, default=2)
    parser.add_argument("--backend", nargs="+", default=["sqlite", "postgresql"])
    parser.add_argument("--trials", type=int, default=5)
    parser.add_argument("--commit-every", type=int, default=500)
    parser.add_argument("--cache-dir", default="/tmp/macau-tables-bench")
    parser.add_argument("--workdir", default=None)
    parser.add_argument("--rebuild", action="store_true")
    parser.add_argument("--json", type=Path, default=None)
    args = parser.parse_args()
    print(f"machine: {machine()}")
    path = cache_path(args)
    path.parent.mkdir(parents=True, exist_ok=True)
    if args.rebuild or not path.exists():
        print(f"building {path} (once; cached for reruns)", flush=True)
        started = time.perf_counter()
        build(path, args)
        print(f"built in {time.perf_counter() - started:.0f} s", flush=True)
    else:
        print(f"cached: {path}")
    big, small = TABLES[args.game], f"{TABLES[args.game]}-small"
    results: dict[str, Any] = {}
    ok = True
    for backend in args.backend:
        with scratch_url(backend, workdir=args.workdir) as url:
            if backend == "sqlite":
                target = Path(url.removeprefix("sqlite:///"))
                shutil.copyfile(path, target)
            else:
                print("copying the log into PostgreSQL (not timed) …", flush=True)
                copy_to(url, path)
            sizes = {t: log_size(url, t) for t in (big, small)}
            start_up(url, small, 1)  # warm the file cache / the server's buffers
            timed = {t: start_up(url, t, args.trials) for t in (big, small)}
            replay = full_replay(url, small)
        best = {t: min(x) for t, x in timed.items()}
        median = {t: statistics.median(x) for t, x in timed.items()}
        ratio = median[big] / median[small]
        met = median[big] < GOAL_SECONDS
        ok &= met
        results[backend] = {
            "sizes": sizes,
            "best": best,
            "median": median,
            "ratio": ratio,
            "small_without_snapshots": replay,
        }
        for t in (big, small):
            events, rounds, after = sizes[t]
            print(
                f"{backend:<11}{t:<12}{rounds:>8} rounds {events:>9} events ({after:>3} after "
                f"the snapshot)  start-up best {best[t] * 1000:7.1f} ms  median "
                f"{median[t] * 1000:7.1f} ms"
            )
        per_event = replay / sizes[small][0]
        print(
            f"{backend:<11}{small:<12}without its snapshots (the whole log replayed): "
            f"{replay * 1000:.0f} ms, {per_event * 1e6:.0f} µs per event — for {big}'s log "
            f"that would be about {per_event * sizes[big][0]:.0f} s"
        )
        print(
            f"{backend:<11}ratio big / small (median) {ratio:.2f}; goal under "
            f"{GOAL_SECONDS:.0f} s: {'OK' if met else 'MISSED'}",
            flush=True,
        )
    if args.json is not None:
        args.json.write_text(json.dumps(results, indent=2))
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
