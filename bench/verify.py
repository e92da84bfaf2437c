"""Benchmark: ``macau-tables verify`` throughput in events per second, beside raw SHA-256 of the
same bytes (issue 9, "Benchmarks").

Usage::

    .venv/bin/python bench/verify.py [--rounds 2000] [--backend sqlite postgresql] [--trials 3]
        [--jobs 1 2] [--cache-dir /tmp/macau-tables-bench] [--rebuild] [--json PATH]

**The database.** The demonstration casino; bots play ``--rounds`` rounds at each virtual
table (``bac-1``, ``csp-1``) through the table service, built with the bounded bulk path of
``bench/startup.py`` and cached as ``<cache-dir>/verify-<rounds>-s<schema>-<version>.db``.
PostgreSQL: its rows are copied into a scratch database (not timed).

**Measured**, best of ``--trials``, in one run:

* ``verify`` — :func:`macau_tables.tables.audit.verify_database`, what the command runs: the
  store's checks (configurations, every event's hash recomputed along its chain, meters,
  shoes against their commitments, every transaction's digest and sum, every balance) and every
  round re-derived through its rules — once per ``--jobs`` value (``verify --jobs N``: N
  processes, each table's log split into parts between them, the pool's start included; the
  CPU seconds of all processes are printed too, a figure the other users of a shared machine
  change less than the wall time); also the store's checks alone
  (:func:`macau_tables.store.verify.verify`);
* the reference — ``hashlib.sha256(prev_hash + payload)`` over every event's stored bytes,
  already in memory (the least a chain check must do).

Printed: events per second of each, the ratio verify / SHA-256 and, for each ``--jobs``
value after the first, its speed-up over the first. Goal (issue 21, item 5): ``verify`` with
2 processes at ≥ 0.02 of raw SHA-256; the verdict is printed. The exit status is 0 when
verify passes (a missed goal is reported, not an error).
"""

from __future__ import annotations

import argparse
import hashlib
import json
import resource
import shutil
import sys
import time
from pathlib import Path
from typing import Any

from sqlalchemy import select

import macau_tables
from macau_tables.store import SCHEMA_VERSION, Store
from macau_tables.store import schema as s
from macau_tables.store.verify import verify as store_verify
from macau_tables.tables import Bots, TableService
from macau_tables.tables.audit import verify_database
from service_db import cached_database_arguments, demo_casino, machine, open_store, scratch_url
from startup import BulkStore, copy_to


def build(path: Path, rounds: int, commit_every: int = 500) -> None:
    """Play ``rounds`` rounds at each virtual demo table into a new file at ``path``."""
    tmp = path.with_suffix(".building")
    for leftover in tmp.parent.glob(tmp.name + "*"):
        leftover.unlink()
    store = open_store(f"sqlite:///{tmp}")
    try:
        players = demo_casino(store)
        bulk = BulkStore(store, commit_every)
        for table_id in ("bac-1", "csp-1"):
            service = TableService(bulk, table_id, owner="bench-build")  # type: ignore[arg-type]
            Bots(service, players[:4], seed=2, batched=True).play(rounds)
            service.close()
            bulk.commit()
            print(f"  built {table_id}: {rounds} rounds", flush=True)
    finally:
        store.close()
    check = Store.open(f"sqlite:///{tmp}")
    check.check()
    check.close()
    tmp.rename(path)


def raw_sha256(url: str) -> tuple[int, int, float]:
    """(events, bytes, seconds) of SHA-256 over every event's prev hash + payload, the rows
    read beforehand."""
    store = Store.open(url)
    try:
        with store.engine.connect() as conn:
            rows = [
                (bytes.fromhex(r.prev_hash), r.payload.encode("utf-8"))
                for r in conn.execute(select(s.events.c.prev_hash, s.events.c.payload))
            ]
    finally:
        store.close()
    sha = hashlib.sha256
    started = time.perf_counter()
    for prev, payload in rows:
        sha(prev + payload).hexdigest()
    seconds = time.perf_counter() - started
    return len(rows), sum(len(p) for _, p in rows), seconds


GOAL = 0.02


CPU: dict[float, float] = {}
"""Wall seconds of a timed run → its CPU seconds (this process and its finished children)."""


def cpu_seconds() -> float:
    """CPU time of this process and of its children that have ended (``verify --jobs``'s
    workers): a figure the other users of a shared machine do not change much."""
    children = resource.getrusage(resource.RUSAGE_CHILDREN)
    return time.process_time() + children.ru_utime + children.ru_stime


def timed(url: str, check: Any) -> tuple[Any, float]:
    store = Store.open(url)
    try:
        started, cpu = time.perf_counter(), cpu_seconds()
        result = check(store)
        seconds = time.perf_counter() - started
        CPU[seconds] = cpu_seconds() - cpu
        return result, seconds
    finally:
        store.close()


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    cached_database_arguments(parser)
    parser.add_argument("--jobs", type=int, nargs="+", default=[1, 2])
    args = parser.parse_args()
    print(f"machine: {machine()}")
    path = Path(args.cache_dir) / (
        f"verify-{args.rounds}-s{SCHEMA_VERSION}-{macau_tables.__version__}.db"
    )
    path.parent.mkdir(parents=True, exist_ok=True)
    if args.rebuild or not path.exists():
        print(f"building {path} (once; cached for reruns)", flush=True)
        build(path, args.rounds)
    results: dict[str, Any] = {}
    ok = True
    for backend in args.backend:
        with scratch_url(backend, workdir=args.workdir) as url:
            if backend == "sqlite":
                shutil.copyfile(path, Path(url.removeprefix("sqlite:///")))
            else:
                copy_to(url, path)
            events, size, sha_seconds = min(
                (raw_sha256(url) for _ in range(args.trials)), key=lambda r: r[2]
            )
            fulls = {
                jobs: min(
                    (
                        timed(url, lambda st, j=jobs: verify_database(st, jobs=j))
                        for _ in range(args.trials)
                    ),
                    key=lambda r: r[1],
                )
                for jobs in args.jobs
            }
            part, part_seconds = min(
                (timed(url, store_verify) for _ in range(args.trials)), key=lambda r: r[1]
            )
        full = fulls[args.jobs[0]][0]
        ok &= all(f.ok for f, _ in fulls.values()) and part.ok
        sha_rate = events / sha_seconds
        rates = {f"verify --jobs {j}": events / sec for j, (_, sec) in fulls.items()}
        for j, (_, sec) in fulls.items():
            results.setdefault("cpu_s", {})[f"{backend} --jobs {j}"] = CPU[sec]
        rates["store checks"] = events / part_seconds
        results[backend] = {
            "events": events,
            "bytes": size,
            "sha256_per_s": sha_rate,
            **{f"{k}_per_s": v for k, v in rates.items()},
            "ok": full.ok,
            "rounds": full.rounds,
            "transactions": full.transactions,
        }
        print(
            f"{backend:<11}{events} events ({size / events:.0f} bytes each), {full.rounds} "
            f"rounds, {full.transactions} transactions: verify {'OK' if full.ok else 'FAILED'}"
        )
        print(f"{'':<11}raw SHA-256          {sha_rate:>12,.0f} events/s")
        for name, rate in rates.items():
            print(f"{'':<11}{name:<21}{rate:>12,.0f} events/s  ratio {rate / sha_rate:.4f}")
        for j, (_, sec) in fulls.items():
            print(f"{'':<11}--jobs {j}: {sec:.2f} s wall, {CPU[sec]:.2f} s CPU (all processes)")
        first = rates[f"verify --jobs {args.jobs[0]}"]
        for jobs in args.jobs[1:]:
            rate = rates[f"verify --jobs {jobs}"]
            print(f"{'':<11}--jobs {jobs} / --jobs {args.jobs[0]}: {rate / first:.2f}×")
        best = max(rate for name, rate in rates.items() if name.startswith("verify"))
        verdict = "met" if best / sha_rate >= GOAL else "MISSED"
        print(f"{'':<11}goal verify ≥ {GOAL} of SHA-256: {verdict} ({best / sha_rate:.4f})")
        results[backend]["goal_met"] = best / sha_rate >= GOAL
    if args.json is not None:
        args.json.write_text(json.dumps(results, indent=2))
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
