"""Benchmark: ``macau-tables report --day … --by-position`` beside the plain ``report`` of the
same day on the same database (issue 21: goal ≤ 1.5 × plain ``report``, for 100,000 rounds too).

Usage::

    .venv/bin/python bench/reports.py [--rounds 2000] [--backend sqlite postgresql] [--trials 3]
        [--cache-dir /tmp/macau-tables-bench] [--rebuild] [--replay] [--startup-log]
        [--json PATH]

**The database.** The demonstration casino; bots play ``--rounds`` rounds at each virtual table
(``bac-1``, ``csp-1``) through the table service (``bench/verify.py``'s build), cached as
``<cache-dir>/reports-<rounds>-s<schema>-<version>.db``. When that file is missing but a cache of
an older schema is there (this benchmark's, else ``bench/verify.py``'s
``verify-<rounds>-s<n>-<version>.db``), a copy of it is upgraded instead (``db upgrade``: from v9
the settlement facts of its rounds derived once; from v10 the index of the rounds' ends built) and
the upgrade's time printed; so is ``--startup-log``'s. Building takes about a minute per thousand
rounds per table on a quiet machine. With ``--startup-log`` the database is ``bench/startup.py``'s
cached log instead — ``--rounds`` rounds at ``bac-1`` and 1,000 at ``bac-1-small``, every
settlement's facts recorded as in play — built by that benchmark's bounded bulk path when missing
(100,000 rounds: about 6 minutes on a quiet machine, about 45 under a load average of 10);
``--rounds 100000 --startup-log`` is the issue's 100,000-round measurement.
PostgreSQL: the rows are copied into a scratch database (not timed).

**Measured**, best of ``--trials``, on the gaming day holding most settlements, each run as the
command runs it (a store opened, one read-only transaction, the text rendered):

* ``report`` — :func:`macau_tables.tables.reports.day_report` (the ledger's sums per table);
* ``report --by-position`` — the same, then :func:`~macau_tables.tables.reports.day_positions`
  (the stored settlement facts summed per position);
* the per-position part alone (:func:`~macau_tables.tables.reports.day_positions`): what
  ``--by-position`` adds, measured apart because on a large log the plain report's own time
  varies by more than that part takes;
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
from macau_tables.tables.clock import opening_date
from macau_tables.tables.recall import settled_wagers
from macau_tables.tables.reports import day_bounds, day_positions, day_report
from service_db import cached_database_arguments, machine, scratch_url
from startup import build as startup_build
from startup import cache_path as startup_cache_path
from startup import copy_to
from verify import build

GOAL = 1.5


def prepare(cache: Path, rounds: int, rebuild: bool, startup_log: bool = False) -> Path:
    """The cached database of ``rounds`` rounds a table, built or upgraded once; with
    ``startup_log``, ``bench/startup.py``'s log instead (``rounds`` at ``bac-1``, 1,000 at
    ``bac-1-small``), built by its bounded bulk path when it is not cached. A cache of an
    older schema is upgraded (a copy of it) rather than rebuilt."""
    cache.mkdir(parents=True, exist_ok=True)
    if startup_log:
        options = argparse.Namespace(
            game="baccarat",
            rounds=rounds,
            small=1_000,
            players=2,
            commit_every=500,
            cache_dir=str(cache),
        )
        path = startup_cache_path(options)
        if not rebuild and not path.exists() and (older := _older(path)) is not None:
            return upgraded_copy(older, path)
        if rebuild or not path.exists():
            print(f"building {path} (bench/startup.py's log; once, cached)", flush=True)
            started = time.perf_counter()
            startup_build(path, options)
            print(f"built in {time.perf_counter() - started:.0f} s", flush=True)
        return path
    path = cache / f"reports-{rounds}-s{SCHEMA_VERSION}-{macau_tables.__version__}.db"
    if path.exists() and not rebuild:
        return path
    older = _older(path) or _older(
        cache / f"verify-{rounds}-s{SCHEMA_VERSION}-{macau_tables.__version__}.db"
    )
    if older is not None and not rebuild:
        return upgraded_copy(older, path)
    print(f"building {path} (once; cached for reruns)", flush=True)
    build(path, rounds)
    return path


def _older(path: Path) -> Path | None:
    """The newest cache of an older schema beside ``path`` (its name with ``-s<n>-`` for a
    smaller ``n``, down to 9), if any."""
    for version in range(SCHEMA_VERSION - 1, 8, -1):
        older = path.with_name(path.name.replace(f"-s{SCHEMA_VERSION}-", f"-s{version}-"))
        if older.exists():
            return older
    return None


def upgraded_copy(older: Path, path: Path) -> Path:
    """``path``: a copy of ``older`` upgraded to this schema (``db upgrade``: e.g. the
    settlement facts of its rounds derived once, v10; the index of the rounds' ends, v11)."""
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
        f"({len(facts)} rounds with settlement facts)",
        flush=True,
    )
    tmp.rename(path)
    return path


def busiest_day(url: str) -> tuple[date, int, int]:
    """The gaming day (Macau) on which most rounds settled, how many rounds settled (with
    settlement facts) that day and how many facts rows they have."""
    store = Store.open(url)
    try:
        rows = store.read(
            lambda tx: tx.connection.execute(
                select(s.settlement_facts.c.round_id, s.settlement_facts.c.at)
            ).all()
        )
    finally:
        store.close()
    days = Counter(opening_date(at) for _, at in rows)
    if not days:
        raise SystemExit("no settled round in the database")
    day = days.most_common(1)[0][0]
    settled = {rid for rid, at in rows if opening_date(at) == day}
    return day, len(settled), days[day]


def plain(tx: Any, day: date) -> str:
    return report_text(day_report(tx, day))


def by_position(tx: Any, day: date) -> str:
    return positions_text(day_report(tx, day), day_positions(tx, day))


def positions_only(tx: Any, day: date) -> str:
    """The part ``--by-position`` adds to ``report``: the day's facts summed, rendered."""
    return str(day_positions(tx, day))


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
    parser.add_argument(
        "--startup-log",
        action="store_true",
        help="measure on bench/startup.py's cached log (--rounds rounds at bac-1)",
    )
    args = parser.parse_args()
    print(f"machine: {machine()}")
    path = prepare(Path(args.cache_dir), args.rounds, args.rebuild, args.startup_log)
    results: dict[str, Any] = {}
    ok = True
    for backend in args.backend:
        with scratch_url(backend, workdir=args.workdir) as url:
            if backend == "sqlite":
                shutil.copyfile(path, Path(url.removeprefix("sqlite:///")))
            else:
                copy_to(url, path)
            day, settled, facts = busiest_day(url)
            times = {
                "report": min(timed(url, plain, day) for _ in range(args.trials)),
                "report --by-position": min(
                    timed(url, by_position, day) for _ in range(args.trials)
                ),
            }
            times["the per-position part alone"] = min(
                timed(url, positions_only, day) for _ in range(args.trials)
            )
            if args.replay:
                times["by position, replaying every round (before)"] = timed(url, replayed, day)
        ratio = times["report --by-position"] / times["report"]
        ok &= ratio <= GOAL
        results[backend] = {
            "day": day.isoformat(),
            "rounds": args.rounds,
            "settled_rounds": settled,
            "facts_rows": facts,
            "ratio": ratio,
            **times,
        }
        print(
            f"{backend:<11}day {day.isoformat()}: {settled} rounds settled, {facts} facts rows "
            f"({args.rounds} rounds a table built)"
        )
        for name, seconds in times.items():
            print(f"{'':<11}{name:<46}{seconds:>9.3f} s")
        verdict = "meets" if ratio <= GOAL else "MISSES"
        print(f"{'':<11}ratio by-position / plain {ratio:.2f} ({verdict} the goal ≤ {GOAL})")
    if args.json is not None:
        args.json.write_text(json.dumps(results, indent=2))
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
