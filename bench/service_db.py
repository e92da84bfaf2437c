"""Shared by the table-service benchmarks (``bench/service_rounds.py``,
``bench/jackpot_writers.py``, ``bench/startup.py``, ``bench/verify.py``): scratch databases, the
demonstration casino with rich wallets, and copying rows between databases. Not a benchmark
itself.

Scratch databases: SQLite files in a temporary directory on disk (``--workdir``, default the
system's temporary directory: durable writes must reach a real disk, not a RAM file system),
PostgreSQL databases ``mt_bench_<random>`` created on the server of ``--pg`` (default
``$MACAU_TABLES_TEST_PG`` or ``postgresql+psycopg://postgres@127.0.0.1:5432/test``) and dropped
afterwards.
"""

from __future__ import annotations

import argparse
import os
import platform
import secrets
import shutil
import tempfile
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import sqlalchemy
from sqlalchemy import Engine, insert, select
from sqlalchemy.engine import make_url

from macau_tables.store import Store, Tx
from macau_tables.tables.casino import create_demo_casino

PG_ADMIN = os.environ.get(
    "MACAU_TABLES_TEST_PG", "postgresql+psycopg://postgres@127.0.0.1:5432/test"
)
RICH = 10**12  # minor units deposited to every demo player: no wager refused for money


def machine() -> str:
    """One line naming the machine and the software measured on."""
    return (
        f"{platform.python_implementation()} {platform.python_version()}, "
        f"SQLAlchemy {sqlalchemy.__version__}, {os.cpu_count()} CPUs, "
        f"load average {' '.join(f'{x:.2f}' for x in os.getloadavg())}"
    )


@contextmanager
def scratch_url(backend: str, *, workdir: str | None = None, pg: str = PG_ADMIN) -> Iterator[str]:
    """An empty database of ``backend`` (``sqlite`` or ``postgresql``); removed afterwards."""
    if backend == "sqlite":
        folder = tempfile.mkdtemp(prefix="mt-bench-", dir=workdir)
        try:
            yield f"sqlite:///{Path(folder) / 'bench.db'}"
        finally:
            shutil.rmtree(folder, ignore_errors=True)
        return
    if backend != "postgresql":
        raise SystemExit(f"unknown backend {backend!r} (sqlite or postgresql)")
    admin = make_url(pg)
    name = f"mt_bench_{secrets.token_hex(5)}"
    engine = sqlalchemy.create_engine(admin, isolation_level="AUTOCOMMIT")
    with engine.connect() as conn:
        conn.exec_driver_sql(f'CREATE DATABASE "{name}"')
    try:
        yield admin.set(database=name).render_as_string(hide_password=False)
    finally:
        with engine.connect() as conn:
            conn.exec_driver_sql(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
        engine.dispose()


def cached_database_arguments(parser: argparse.ArgumentParser) -> None:
    """The options of a benchmark that builds a database of played rounds once, caches it and
    copies it to a scratch database per backend (``bench/verify.py``, ``bench/reports.py``)."""
    parser.add_argument("--rounds", type=int, default=2_000)
    parser.add_argument("--backend", nargs="+", default=["sqlite", "postgresql"])
    parser.add_argument("--trials", type=int, default=3)
    parser.add_argument("--cache-dir", default="/tmp/macau-tables-bench")
    parser.add_argument("--workdir", default=None)
    parser.add_argument("--rebuild", action="store_true")
    parser.add_argument("--json", type=Path, default=None)


def open_store(url: str) -> Store:
    """The store on ``url``, migrated."""
    store = Store.open(url)
    store.upgrade()
    return store


def demo_casino(store: Store) -> list[str]:
    """``casino init``'s demonstration casino with every player made rich; returns the
    players' ids."""
    create_demo_casino(store, actor="bench")

    def enrich(tx: Tx) -> list[str]:
        ids = sorted(p.player_id for p in tx.players())
        for player in ids:
            tx.deposit(player, RICH, actor="bench", reason="benchmark float")
        return ids

    return store.run(enrich)


def rows(engine: Engine, table: sqlalchemy.Table, *where: Any) -> list[dict[str, Any]]:
    """Every row of ``table`` (matching ``where``) as dicts."""
    with engine.connect() as conn:
        query = select(table).where(*where) if where else select(table)
        return [dict(r._mapping) for r in conn.execute(query)]


def copy_all(src: Engine, dst: Engine, tables: Sequence[sqlalchemy.Table]) -> None:
    """Copy every row of ``tables`` (in dependency order) from ``src`` to ``dst``."""
    with dst.begin() as conn:
        for table in tables:
            data = rows(src, table)
            if data:
                conn.execute(insert(table), data)
