"""Benchmark: ``macau-tables report --day … --by-position`` beside the plain ``report`` of the
same day on the same database (issue 21: goal ≤ 1.5 × plain ``report``, for 100,000 rounds too).

Usage::

    .venv/bin/python bench/reports.py [--rounds 2000] [--backend sqlite postgresql] [--trials 3]
        [--cache-dir /tmp/macau-tables-bench] [--rebuild] [--replay] [--json PATH]

**The database.** The demonstration casino; bots play ``--rounds`` rounds at each virtual
table (``bac-1``, ``csp-1``) through the table service (``bench/verify.py``'s build), cached as
``<cache-dir>/reports-<rounds>-s<schema>-<version>.db``. When that file is missing but
``bench/verify.py``'s cache of the previous schema (``verify-<rounds>-s9-<version>.db``) is
there, a copy of it is upgraded instead (``db upgrade``: the settlement facts of its rounds
derived once) and the upgrade's time printed. Building takes about a minute per thousand rounds
per table on a quiet machine: ``--rounds 100000`` builds for well over an hour (once; cached).
PostgreSQL: the rows are copied into a scratch database (not timed).

**Measured**, best of ``--trials``, on the gaming day holding most settlements, each run as the
command runs it (a store opened, one read-only transaction, the text rendered):

* ``report`` — :func:`macau_tables.tables.reports.day_report` (the ledger's sums per table);
* ``report --by-position`` — the same, then :func:`~macau_tables.tables.reports.day_positions`
  (the stored settlement facts summed per position);
* with ``--replay``: the per-position figures as computed before settlement facts (every round
  settled that day replayed and closed again through its rules), for comparison.

Printed: each time and the ratio by-position / plain (goal ≤ 1.5). Exit status 0 when the ratio
meets the goal on every backend.
"""

from __future__ import annotations

import argparse
import json
import shutil
import sys
import time
from collections import Counter
from collections.abc import Callable
from datetime import date
from pathlib import Path
from typing import Any

from sqlalchemy import select

import macau_tables
from macau_tables.cli.audit_cli import positions_text, report_text
from macau_tables.store import SCHEMA_VERSION, Store
from macau_tables.store import schema as s
from macau_tables.store.history import settled_round_ids
from macau_tables.tables.clock import MACAU
from macau_tables.tables.recall import settled_wagers
from macau_tables.tables.reports import day_bounds, day_positions, day_report
from service_db import cached_database_arguments, machine, scratch_url
from startup import copy_to
from verify import build

GOAL = 1.5


def prepare(cache: Path, rounds: int, rebuild: bool) -> Path:
    """The cached database of ``rounds`` rounds a table, built or upgraded once."""
    path = cache / f"reports-{rounds}-s{SCHEMA_VERSION}-{macau_tables.__version__}.db"
    cache.mkdir(parents=True, exist_ok=True)
    if path.exists() and not rebuild:
        return path
    older = cache / f"verify-{rounds}-s9-{macau_tables.__version__}.db"
    if older.exists() and not rebuild:
        tmp = path.with_suffix(".upgrading")
        shutil.copyfile(older, tmp)
        store = Store.open(f"sqlite:///{tmp}")
        try:
            started = time.perf_counter()
            store.upgrade()
            took = time.perf_counter() - started
            facts = store.read(
                lambda tx: tx.connection.execute(
                    select(s.settlement_facts.c.table_id, s.settlement_facts.c.round_id).distinct()
                ).all()
            )
        finally:
            store.close()
        print(
            f"upgraded a copy of {older.name} to schema {SCHEMA_VERSION} in {took:.1f} s "
            f"(facts derived for {len(facts)} rounds)",
            flush=True,
        )
        tmp.rename(path)
        return path
    print(f"building {path} (once; cached for reruns)", flush=True)
    build(path, rounds)
    return path


def busiest_day(url: str) -> date:
    """The gaming day (Macau) on which most rounds settled."""
    store = Store.open(url)
    try:
        ats = store.read(
            lambda tx: tx.connection.execute(select(s.settlement_facts.c.at)).scalars().all()
        )
    finally:
        store.close()
    days = Counter(at.astimezone(MACAU).date() for at in ats)
    if not days:
        raise SystemExit("no settled round in the database")
    return days.most_common(1)[0][0]


def plain(tx: Any, day: date) -> str:
    return report_text(day_report(tx, day))


def by_position(tx: Any, day: date) -> str:
    return positions_text(day_report(tx, day), day_positions(tx, day))


def replayed(tx: Any, day: date) -> int:
    """The per-position figures' input as computed before settlement facts (every round
    settled that day replayed): the number of wagers summed."""
    start, end = day_bounds(day)
    return sum(
        len(settled_wagers(tx, table, rid))
        for table in tx.tables()
        for rid in settled_round_ids(tx, table.table_id, start, end)
    )


def timed(url: str, run: Callable[[Any, date], Any], day: date) -> float:
    store = Store.open(url)
    try:
        started = time.perf_counter()
        store.read(lambda tx: run(tx, day))
        return time.perf_counter() - started
    finally:
        store.close()


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    cached_database_arguments(parser)
    parser.add_argument("--replay", action="store_true")
    args = parser.parse_args()
    print(f"machine: {machine()}")
    path = prepare(Path(args.cache_dir), args.rounds, args.rebuild)
    results: dict[str, Any] = {}
    ok = True
    for backend in args.backend:
        with scratch_url(backend, workdir=args.workdir) as url:
            if backend == "sqlite":
                shutil.copyfile(path, Path(url.removeprefix("sqlite:///")))
            else:
                copy_to(url, path)
            day = busiest_day(url)
            times = {
                "report": min(timed(url, plain, day) for _ in range(args.trials)),
                "report --by-position": min(
                    timed(url, by_position, day) for _ in range(args.trials)
                ),
            }
            if args.replay:
                times["by position, replaying every round (before)"] = timed(url, replayed, day)
        ratio = times["report --by-position"] / times["report"]
        ok &= ratio <= GOAL
        results[backend] = {"day": day.isoformat(), "rounds": args.rounds, "ratio": ratio, **times}
        print(f"{backend:<11}day {day.isoformat()}, {args.rounds} rounds a table (2 tables)")
        for name, seconds in times.items():
            print(f"{'':<11}{name:<46}{seconds:>9.3f} s")
        verdict = "meets" if ratio <= GOAL else "MISSES"
        print(f"{'':<11}ratio by-position / plain {ratio:.2f} ({verdict} the goal ≤ {GOAL})")
    if args.json is not None:
        args.json.write_text(json.dumps(results, indent=2))
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
