"""Benchmark: two costs of the table server's command path, in process (issue 21, continued).

Usage::

    PYTHONPATH=src .venv/bin/python bench/command_path.py [--backend sqlite postgresql]
        [--checks 200] [--tables 100] [--rounds 3]

* **Session checks at once.** ``--checks`` threads, released together, each check a socket
  command's session as the server does (:meth:`~macau_tables.server.session_watch.SessionWatch.now`:
  the checks that arrive while a read is in flight share the next read), beside a read each
  (:func:`macau_tables.server.auth.session_refusal`, what a command did before): process CPU a
  check, and how many reads the shared way made.
* **The idle tick.** A casino of ``--tables`` virtual tables (``bench/server_load.py``'s, 10
  players a table), their first rounds open: CPU of every service's ``tick()`` with nothing
  due, and of one read of the tables and leases (``Runtime._refresh_tables`` and the
  take-over); then what the tick thread spends a second at ``tick_seconds`` 0.5 (it reads the
  tables every ``REFRESH_EVERY_SECONDS`` while it serves them all).

Process CPU (``time.process_time``), not wall time: the figures hold on a loaded machine
better than latencies. PostgreSQL: a scratch database ``macau_bench_cmd`` on
``MACAU_TABLES_BENCH_PG`` (default ``postgresql://postgres@127.0.0.1:5432``), dropped after.
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).parent))

from macau_tables.server import auth
from macau_tables.server import runtime as runtime_module
from macau_tables.server.principal import Principal, UserRole
from macau_tables.server.runtime import Runtime, prepare
from macau_tables.server.session_watch import watch_of
from macau_tables.server.settings import Settings
from macau_tables.store import Store
from server_load import set_up

PG = os.environ.get("MACAU_TABLES_BENCH_PG", "postgresql://postgres@127.0.0.1:5432")
SCRATCH = "macau_bench_cmd"


def _scratch_url(backend: str, folder: str) -> str:
    if backend == "sqlite":
        return f"sqlite:///{folder}/bench.db"
    from sqlalchemy import create_engine, text

    admin = create_engine(f"{PG}/postgres", isolation_level="AUTOCOMMIT")
    with admin.connect() as conn:
        conn.execute(text(f"DROP DATABASE IF EXISTS {SCRATCH}"))
        conn.execute(text(f"CREATE DATABASE {SCRATCH}"))
    admin.dispose()
    return f"{PG}/{SCRATCH}"


def _per_call(calls: int, fn: Callable[[], object]) -> float:
    """CPU milliseconds a call of ``fn`` (``calls`` of them)."""
    started = time.process_time()
    for _ in range(calls):
        fn()
    return (time.process_time() - started) / calls * 1e3


def _at_once(threads: int, check: Callable[[], object]) -> float:
    """CPU milliseconds a check, ``threads`` checks released together."""
    go = threading.Event()

    def one() -> None:
        go.wait()
        assert check() is None

    workers = [threading.Thread(target=one) for _ in range(threads)]
    for w in workers:
        w.start()
    started = time.process_time()
    go.set()
    for w in workers:
        w.join()
    return (time.process_time() - started) / threads * 1e3


def session_checks(url: str, checks: int, rounds: int) -> None:
    store = Store.open(url)
    store.upgrade()
    prepare(store, password=lambda name: f"pw-{name}-long-enough-1234", upgrade=False)
    runtime = Runtime(Settings(tick_seconds=0), store)
    signed = auth.sign_in(store, "admin", "pw-admin-long-enough-1234", address="bench")
    session = auth.SocketSession(
        Principal("admin", UserRole.ADMIN), signed.expires, signed.secret, "token"
    )
    reads: list[int] = []
    real = auth.session_refusals

    def counted(*args: Any, **kwargs: Any) -> Any:
        reads.append(1)
        return real(*args, **kwargs)

    auth.session_refusals = counted  # type: ignore[assignment]
    try:
        for _ in range(rounds):
            alone = _at_once(checks, lambda: auth.session_refusal(store, session))
            reads.clear()
            shared = _at_once(checks, lambda: watch_of(runtime).now(session))
            print(
                f"  {checks} session checks at once: a read each {alone:.3f} ms CPU a check;"
                f" shared reads {shared:.3f} ms a check ({len(reads)} reads)"
            )
    finally:
        auth.session_refusals = real  # type: ignore[assignment]
        store.engine.dispose()


def idle_tick(url: str, tables: int) -> None:
    set_up(url, tables * 10, 10)
    store = Store.open(url)
    runtime = Runtime(Settings(tick_seconds=0), store)
    runtime.start()
    try:
        for _ in range(3):  # the first rounds open, their countdowns run
            runtime.tick()
        services = list(runtime._services.values())
        ticks = _per_call(50, lambda: [s.tick() for s in services])
        refresh = _per_call(50, lambda: (runtime._refresh_tables(), runtime._take_tables()))
        every = runtime_module.REFRESH_EVERY_SECONDS
        per_second = 2 * ticks + refresh / every
        print(
            f"  {len(services)} tables, nothing due: the services' ticks {ticks:.2f} ms CPU,"
            f" a read of the tables and leases {refresh:.2f} ms; the tick thread at 0.5 s"
            f" (tables read every {every:g} s): {per_second:.1f} ms CPU a second"
        )
    finally:
        runtime.stop()
        store.engine.dispose()


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument(
        "--backend", nargs="+", choices=["sqlite", "postgresql"], default=["sqlite"]
    )
    parser.add_argument("--checks", type=int, default=200)
    parser.add_argument("--tables", type=int, default=100)
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()
    print(f"load average {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    for backend in args.backend:
        print(backend)
        with tempfile.TemporaryDirectory() as folder:
            session_checks(_scratch_url(backend, folder), args.checks, args.rounds)
        with tempfile.TemporaryDirectory() as folder:
            idle_tick(_scratch_url(backend, folder), args.tables)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
