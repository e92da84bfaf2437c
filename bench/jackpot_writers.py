"""Benchmark: jackpot contributions per second with 8 writers on one PostgreSQL meter, beside 8
writers writing the same rows as ONE plain SQL round trip each (issue 21, item 7; issue 9).

Usage::

    .venv/bin/python bench/jackpot_writers.py [--writers 8] [--each 400] [--repeat 3]
        [--references] [--json PATH]

In one run, on one scratch PostgreSQL database (``synchronous_commit=on``: every commit
durable), ``--writers`` processes started together each make ``--each`` commits, and each
round (``--repeat`` of them) races, one after the other:

* **store** — one contribution per transaction through the store's ledger, as a table's
  request posts its settlement: ``store.run(tx.post_deferred([wallet −x, jackpot_meter +x],
  meter_id=…))``, i.e. the ledger's checks and digest in Python, then ONE round trip (schema
  v4's server functions): ``BEGIN``, ``macau_post`` (the wallet, debited, locked and checked,
  the accounts' existence read, a ledger transaction with its two postings, the wallet's balance
  moved), ``macau_move_meter`` (the meter's ``balance = balance + x`` with its ``NOTIFY``) and
  ``COMMIT`` (the meter's row held only for those two); each writer posts from its own wallet,
  all to the one meter;
* **rows-1rt** — the reference: the store's rows for one contribution (the wallet locked, the
  ledger transaction and its two postings, both balances, the meter's update and its
  ``NOTIFY`` last) as ONE simple query per contribution, ``BEGIN`` to ``COMMIT``, made once per
  writer: a driver's call and nothing else in Python — no check, no digest (a constant), no
  SQLAlchemy. That is the floor of a client writing a double-entry contribution in one round
  trip: the server's work for those rows alone.

``--references`` also races, each round, **bare** (``UPDATE bench_meter SET amount = amount + x
WHERE id = 1`` and the commit, one row, nothing else: the old reference, which is not a
double-entry contribution) and **ledger-sql** (the store's rows in plain SQL, five statements
and the commit).

Prints contributions per second of each race, the ratio store / rows-1rt of each round (the
two raced back to back) and its median over the rounds — the goal: at least 0.7 — and the
ratio of the bests; and checks the meter's amount is exactly the sum of what was contributed.
Each race also prints the CPU time per contribution of the writers and of their PostgreSQL
backends (read from ``/proc`` when the server is local): on a small machine the eight writers
and their backends share the CPUs, so that is what the store's rate is made of. Exit status 0
when the goal is met.
"""

from __future__ import annotations

import argparse
import json
import multiprocessing
import os
import statistics
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from sqlalchemy import create_engine, make_url, text

from macau_tables.ledger import Account, AccountKind, Posting, Reason
from macau_tables.store import LedgerEntry, Store, TxKind
from service_db import machine, open_store, scratch_url

GOAL = 0.7
"""The goal: store / rows-1rt, median of the rounds' ratios."""
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
    parser.add_argument(
        "--references",
        action="store_true",
        help="also race bare UPDATEs and the ledger's rows in plain SQL each round",
    )
    parser.add_argument("--json", type=Path, default=None)
    args = parser.parse_args()
    ctx = multiprocessing.get_context("forkserver")
    ctx.set_forkserver_preload(["macau_tables.store", "sqlalchemy", "psycopg"])
    print(f"machine: {machine()}")
    races: list[tuple[str, Any]] = [("store", store_writer), ("rows-1rt", rows_1rt_writer)]
    if args.references:
        races += [("bare", bare_writer), ("ledger-sql", ledger_sql_writer)]
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
        rates: dict[str, list[float]] = {name: [] for name, _ in races}
        for _ in range(args.repeat):
            for name, target in races:
                r = race(ctx, target, url, args.writers, args.each)
                rates[name].append(r.rate)
                server = "?" if r.server_ms is None else f"{r.server_ms:.3f}"
                print(
                    f"  {name:<11}{r.rate:>9.1f} contributions/s   CPU per contribution: "
                    f"writer {r.client_ms:.3f} ms, its backend {server} ms   "
                    f"(load {os.getloadavg()[0]:.1f})",
                    flush=True,
                )
            last = rates["store"][-1] / rates["rows-1rt"][-1]
            print(f"  round ratio store / rows-1rt: {last:.2f}")
        each = args.writers * args.each * args.repeat
        meter_writers = 3 if args.references else 2  # store, rows-1rt (, ledger-sql)
        contributed = AMOUNT * each * meter_writers
        meter = store.read(lambda tx: tx.meter_amount(METER))
        with engine.connect() as conn:
            bare_total = conn.execute(text("SELECT amount FROM bench_meter")).scalar_one()
        store.close()
        engine.dispose()
    if meter != 1_000_000 + contributed or bare_total != (AMOUNT * each if args.references else 0):
        raise SystemExit(f"lost contributions: meter {meter}, bare {bare_total}")
    best = {name: max(values) for name, values in rates.items()}
    ratios = [a / b for a, b in zip(rates["store"], rates["rows-1rt"], strict=True)]
    ratio = statistics.median(ratios)
    print(
        f"{args.writers} writers × {args.each}, {args.repeat} rounds: store / rows-1rt "
        f"{' / '.join(f'{x:.2f}' for x in ratios)} (median {ratio:.2f}; of the bests, "
        f"{best['store']:.1f}/s and {best['rows-1rt']:.1f}/s: "
        f"{best['store'] / best['rows-1rt']:.2f}); goal >= {GOAL}: "
        f"{'met' if ratio >= GOAL else 'MISSED'}"
    )
    print(
        f"meter exact: {meter} = seed 1000000 + {contributed} contributed "
        f"({meter_writers} × {args.writers} × {args.each} × {args.repeat} × {AMOUNT})"
    )
    if args.references:
        print(
            f"references (bests): bare UPDATE {best['bare']:.1f}/s (store / bare "
            f"{best['store'] / best['bare']:.2f}, rows-1rt / bare "
            f"{best['rows-1rt'] / best['bare']:.2f}); ledger rows in plain SQL, five statements "
            f"{best['ledger-sql']:.1f}/s"
        )
    if args.json is not None:
        args.json.write_text(
            json.dumps(
                {"rates": rates, "ratios": ratios, "ratio": ratio, "args": vars(args)},
                default=str,
            )
        )
    return 0 if ratio >= GOAL else 1


if __name__ == "__main__":
    sys.exit(main())
