"""Benchmark: jackpot contributions per second with 8 writers on one PostgreSQL meter, beside 8
writers doing bare ``UPDATE … SET amount = amount + x`` (issue 9, "Benchmarks").

Usage::

    .venv/bin/python bench/jackpot_writers.py [--writers 8] [--each 400] [--repeat 3] [--json PATH]

In one run, on one scratch PostgreSQL database (``synchronous_commit=on``: every commit
durable), ``--writers`` processes started together each make ``--each`` commits:

* **store** — one contribution per transaction through the store's ledger, as a table's
  request posts its settlement: ``store.run(tx.post_deferred([wallet −x, jackpot_meter +x],
  meter_id=…))``, i.e. the ledger's checks and digest in Python, then in one round trip (schema
  v4's server functions): ``BEGIN``, ``macau_post`` (the wallet, debited, locked and checked,
  the accounts' existence read, a ledger transaction with its two postings, the wallet's balance
  moved), ``macau_move_meter`` (the meter's ``balance = balance + x`` with its ``NOTIFY``) and
  ``COMMIT`` (the meter's row held only for those two); each writer posts from its own wallet,
  all to the one meter;
* **bare** — ``UPDATE bench_meter SET amount = amount + x WHERE id = 1`` and the commit, on
  one row, nothing else.

Also raced, as references for what the store could reach: **ledger-sql**, the store's rows
(ledger transaction, two postings, both balances, the meter's row last) in plain SQL, five
statements and the commit; and **rows-1rt**, the same rows as ONE simple query per contribution,
``BEGIN`` to ``COMMIT`` (the wallet locked first, the meter's update and its ``NOTIFY`` last),
made once per writer: a driver's call and nothing else in Python — no check, no digest (a
constant), no SQLAlchemy. That is the floor of a client writing a double-entry contribution in
one round trip: the server's work for those rows alone.

Prints contributions per second of each (best of ``--repeat``), the ratio store / bare (goal:
at least 0.5) and the references' ratios, and checks the meter's amount is exactly the sum of
what was contributed. Each
race also prints the CPU time per contribution of the writers and of their PostgreSQL backends
(read from ``/proc`` when the server is local): on a small machine the eight writers and their
backends share the CPUs, so that is what the store's rate is made of.
Exit status 0 when the goal is met.
"""

from __future__ import annotations

import argparse
import json
import multiprocessing
import os
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from sqlalchemy import create_engine, make_url, text

from macau_tables.ledger import Account, AccountKind, Posting, Reason
from macau_tables.store import LedgerEntry, Store, TxKind
from service_db import machine, open_store, scratch_url

GOAL = 0.5
METER = "m-bench"
AMOUNT = 7  # a 10.00 jackpot wager's 70 % share would be 700: any int will do


def contribution(writer: int) -> tuple[Posting, ...]:
    """``writer``'s contribution: from its wallet to the meter."""
    return (
        Posting(Account.wallet(f"w{writer}"), -AMOUNT, Reason.CONTRIBUTION),
        Posting(Account(AccountKind.JACKPOT_METER), AMOUNT, Reason.CONTRIBUTION),
    )


def cpu_seconds(pid: int) -> float | None:
    """CPU time (user + system) of the local process ``pid`` — a writer's PostgreSQL backend —
    or ``None`` when it cannot be read (a server on another machine)."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return None
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


class Clock:
    """A writer's clock: its end, its own CPU and its backend's CPU over the race."""

    def __init__(self, backend_pid: int) -> None:
        self.pid = backend_pid
        self.cpu = time.process_time()
        self.server = cpu_seconds(backend_pid)

    def done(self, queue: Any) -> None:
        end = time.perf_counter()
        server = cpu_seconds(self.pid)
        used = None if server is None or self.server is None else server - self.server
        queue.put((end, time.process_time() - self.cpu, used))


def store_writer(url: str, writer: int, each: int, start: Any, done: Any) -> None:
    """In a child: ``each`` contributions through the store, one transaction each."""
    store = Store.open(url)
    postings = contribution(writer)
    query = "SELECT pg_backend_pid()"
    pid = store.run(lambda tx: tx.connection.exec_driver_sql(query).scalar_one())
    start.wait()
    clock = Clock(int(pid))
    entry = (LedgerEntry(postings, TxKind.ROUND, meter_id=METER),)
    for _ in range(each):
        store.run(lambda tx: tx.post_deferred(entry))
    clock.done(done)
    store.close()


def bare_writer(url: str, writer: int, each: int, start: Any, done: Any) -> None:
    """In a child: ``each`` bare ``UPDATE … SET amount = amount + x``, one commit each."""
    engine = create_engine(url, isolation_level="AUTOCOMMIT")
    statement = text("UPDATE bench_meter SET amount = amount + :x WHERE id = 1")
    with engine.connect() as conn:
        pid = conn.execute(text("SELECT pg_backend_pid()")).scalar_one()  # connected before
        start.wait()
        clock = Clock(int(pid))
        for _ in range(each):
            conn.execute(statement, {"x": AMOUNT})
    clock.done(done)
    engine.dispose()


LEDGER_SQL = (
    "INSERT INTO transactions (table_id, event_seq, kind, actor, reason, corrects, digest, "
    "created_at) VALUES (NULL, NULL, 'round', NULL, NULL, NULL, :digest, now()) "
    "RETURNING tx_id",
    "INSERT INTO postings (tx_id, line, account_id, amount, reason) VALUES "
    "(:tx, 0, :wallet, :minus, 'contribution'), (:tx, 1, :meter, :x, 'contribution')",
    "UPDATE accounts SET balance = balance + :minus WHERE account_id = :wallet",
    "UPDATE accounts SET balance = balance + :x WHERE account_id = :meter",
    "SELECT pg_notify('macau_meters', :meter)",
)


def ledger_sql_writer(url: str, writer: int, each: int, start: Any, done: Any) -> None:
    """In a child: the rows the store writes for one contribution (transaction, postings, both
    balances) in plain SQL, the meter's row updated last (locked only for the update and the
    commit, as commuting deltas allow), one commit each: what the store could reach."""
    engine = create_engine(url)
    insert_tx, insert_postings, wallet, meter, notify = (text(q) for q in LEDGER_SQL)
    args = {"wallet": f"wallet:w{writer}", "meter": f"jackpot_meter:{METER}", "x": AMOUNT}
    args["minus"] = -AMOUNT
    with engine.connect() as conn:
        pid = conn.execute(text("SELECT pg_backend_pid()")).scalar_one()
        conn.commit()
        start.wait()
        clock = Clock(int(pid))
        for _ in range(each):
            tx = conn.execute(insert_tx, {"digest": "0" * 64}).scalar_one()
            conn.execute(insert_postings, {**args, "tx": tx})
            conn.execute(wallet, args)
            conn.execute(meter, args)
            conn.execute(notify, args)
            conn.commit()
    clock.done(done)
    engine.dispose()


def rows_1rt_writer(url: str, writer: int, each: int, start: Any, done: Any) -> None:
    """In a child: the store's rows for one contribution as ONE simple query made once (no
    client work but the driver's call), one commit each: the floor of a double-entry
    contribution in one round trip (see the module's text)."""
    import psycopg
    from psycopg import sql

    from macau_tables.store._base import METER_CHANNEL

    wallet = sql.Literal(f"wallet:w{writer}")
    meter = sql.Literal(f"jackpot_meter:{METER}")
    statement = sql.SQL(
        "BEGIN; SELECT balance FROM accounts WHERE account_id = {wallet} FOR UPDATE; "
        "WITH t AS (INSERT INTO transactions (table_id, event_seq, kind, actor, reason, "
        "corrects, digest, created_at) VALUES (NULL, NULL, 'round', NULL, NULL, NULL, {digest}, "
        "now()) RETURNING tx_id) INSERT INTO postings (tx_id, line, account_id, amount, reason) "
        "SELECT tx_id, 0, {wallet}, {minus}, 'contribution' FROM t UNION ALL "
        "SELECT tx_id, 1, {meter}, {x}, 'contribution' FROM t; "
        "UPDATE accounts SET balance = balance + {minus} WHERE account_id = {wallet}; "
        "UPDATE accounts SET balance = balance + {x} WHERE account_id = {meter} "
        "RETURNING balance; SELECT pg_notify({channel}, {meter_id}); COMMIT"
    ).format(
        wallet=wallet,
        meter=meter,
        digest=sql.Literal("0" * 64),
        minus=sql.Literal(-AMOUNT),
        x=sql.Literal(AMOUNT),
        channel=sql.Literal(METER_CHANNEL),
        meter_id=sql.Literal(METER),
    )
    dsn = make_url(url).set(drivername="postgresql").render_as_string(hide_password=False)
    with psycopg.connect(dsn, autocommit=True) as conn:
        query = statement.as_bytes(conn)
        pid = conn.execute("SELECT pg_backend_pid()").fetchone()
        start.wait()
        clock = Clock(int(pid[0]) if pid else 0)
        for _ in range(each):
            conn.execute(query, prepare=False)  # no parameters: the simple protocol
        clock.done(done)


@dataclass(frozen=True, slots=True)
class Race:
    """One race: commits per second from the common start to the last writer's end, and the
    CPU milliseconds per commit of the writers (client) and of their backends (server; ``None``
    when the server is not local)."""

    rate: float
    client_ms: float
    server_ms: float | None


def race(ctx: Any, target: Any, url: str, writers: int, each: int) -> Race:
    """Run ``writers`` processes of ``target`` started together."""
    start = ctx.Barrier(writers + 1)
    done = ctx.Queue()
    procs = [ctx.Process(target=target, args=(url, w, each, start, done)) for w in range(writers)]
    for p in procs:
        p.start()
    start.wait()
    began = time.perf_counter()
    results = [done.get(timeout=600) for _ in procs]
    for p in procs:
        p.join()
        if p.exitcode != 0:
            raise SystemExit(f"a writer failed ({p.exitcode})")
    n = writers * each
    servers = [r[2] for r in results]
    return Race(
        n / (max(r[0] for r in results) - began),
        1000 * sum(r[1] for r in results) / n,
        None if None in servers else 1000 * sum(servers) / n,
    )


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--writers", type=int, default=8)
    parser.add_argument("--each", type=int, default=400)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--json", type=Path, default=None)
    args = parser.parse_args()
    ctx = multiprocessing.get_context("forkserver")
    ctx.set_forkserver_preload(["macau_tables.store", "sqlalchemy", "psycopg"])
    print(f"machine: {machine()}")
    with scratch_url("postgresql") as url:
        store = open_store(url)

        def setup(tx: Any) -> None:
            tx.create_meter(METER, game="caribbean", seed=1_000_000, params={}, actor="bench")
            for w in range(args.writers):
                tx.add_player(f"w{w}", f"Writer {w}")
                tx.deposit(f"w{w}", 10**12, actor="bench", reason="benchmark float")

        store.run(setup)
        engine = create_engine(url)
        with engine.begin() as conn:
            conn.execute(text("CREATE TABLE bench_meter (id int PRIMARY KEY, amount bigint)"))
            conn.execute(text("INSERT INTO bench_meter VALUES (1, 0)"))
        best = {"store": 0.0, "bare": 0.0, "ledger-sql": 0.0, "rows-1rt": 0.0}
        for _ in range(args.repeat):
            for name, target in (
                ("store", store_writer),
                ("bare", bare_writer),
                ("ledger-sql", ledger_sql_writer),
                ("rows-1rt", rows_1rt_writer),
            ):
                r = race(ctx, target, url, args.writers, args.each)
                best[name] = max(best[name], r.rate)
                server = "?" if r.server_ms is None else f"{r.server_ms:.3f}"
                print(
                    f"  {name:<11}{r.rate:>9.1f} contributions/s   CPU per contribution: "
                    f"writer {r.client_ms:.3f} ms, its backend {server} ms   "
                    f"(load {os.getloadavg()[0]:.1f})",
                    flush=True,
                )
        contributed = AMOUNT * args.writers * args.each * args.repeat
        meter = store.read(lambda tx: tx.meter_amount(METER))
        with engine.connect() as conn:
            bare_total = conn.execute(text("SELECT amount FROM bench_meter")).scalar_one()
        store.close()
        engine.dispose()
    if meter != 1_000_000 + 3 * contributed or bare_total != contributed:
        raise SystemExit(f"lost contributions: meter {meter}, bare {bare_total}")
    ratio = best["store"] / best["bare"]
    print(
        f"{args.writers} writers, best of {args.repeat}: store {best['store']:.1f}/s, "
        f"bare {best['bare']:.1f}/s, ratio {ratio:.2f}  {'OK' if ratio >= GOAL else 'MISSED'}"
    )
    print(
        f"meter exact: {meter} = seed 1000000 + 3 × {contributed} contributed (store, "
        f"ledger-sql, rows-1rt); ledger rows in plain SQL, meter row last: "
        f"{best['ledger-sql']:.1f}/s, {best['ledger-sql'] / best['bare']:.2f} of bare; "
        f"the same rows in one round trip, no client work (the floor): "
        f"{best['rows-1rt']:.1f}/s, {best['rows-1rt'] / best['bare']:.2f} of bare"
    )
    if args.json is not None:
        args.json.write_text(
            json.dumps({"best": best, "ratio": ratio, "args": vars(args)}, default=str)
        )
    return 0 if ratio >= GOAL else 1


if __name__ == "__main__":
    sys.exit(main())
