"""Benchmark: durable settled rounds per second through the table service, beside the same
database's bare durable inserts of the same rows (issue 9, "Benchmarks").

Usage::

    .venv/bin/python bench/service_rounds.py [--backend sqlite postgresql]
        [--game caribbean baccarat] [--rounds 200] [--players 4] [--mode single batched]
        [--workdir DIR] [--json PATH]

For each backend, game and mode, in one run:

1. **service** — bots (:class:`macau_tables.tables.Bots`, as ``macau-tables autoplay``) play
   ``--rounds`` rounds of the demonstration casino's virtual table through
   :class:`~macau_tables.tables.TableService`: every request checked by the rules, its events
   hash-chained, its postings checked and posted, the idempotency record written, ONE durable
   commit per request (SQLite WAL ``synchronous=FULL``; PostgreSQL ``synchronous_commit=on``).
   ``single``: one request per command, as clients send them; ``batched``: a round's opening,
   wagers and close as one request (a bet slip, ``TableService.submit_all``), the decisions as
   another.
2. **bare** — the very rows the service wrote (events, transactions, postings, the accounts'
   balance updates ``UPDATE … SET balance = balance + x``, idempotency records, shoes,
   snapshots, audit entries), read back and inserted again into a fresh database of the same
   schema, with plain SQLAlchemy Core executemany statements, grouped into the SAME commits
   (one per request) — no reads, no checks, no hashing, no rules.

It prints rounds per second of both and the ratio service / bare (goal: at least 0.5), and
checks that the bare database ends with the same balances (the same work was done). Exit
status 0 when every goal is met.
"""

from __future__ import annotations

import argparse
import bisect
import json
import sys
import time
from collections import Counter, defaultdict
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from sqlalchemy import Engine, bindparam, func, insert, select, update

from macau_tables.store import schema as s
from macau_tables.tables import Bots, TableService
from service_db import copy_all, demo_casino, machine, open_store, rows, scratch_url

GOAL = 0.5
TABLES = {"caribbean": "csp-1", "baccarat": "bac-1"}
COPIED = [t for t in s.metadata.sorted_tables if t.name != "schema_info"]


@dataclass
class Group:
    """The rows one request (one commit) wrote."""

    events: list[dict[str, Any]] = field(default_factory=list)
    transactions: list[dict[str, Any]] = field(default_factory=list)
    postings: list[dict[str, Any]] = field(default_factory=list)
    balances: Counter[str] = field(default_factory=Counter)
    idempotency: list[dict[str, Any]] = field(default_factory=list)
    shoes: list[dict[str, Any]] = field(default_factory=list)
    snapshots: list[dict[str, Any]] = field(default_factory=list)
    audit: list[dict[str, Any]] = field(default_factory=list)
    meter_hits: list[dict[str, Any]] = field(default_factory=list)

    def count(self) -> int:
        """Rows written (the balance updates counted as rows)."""
        return sum(
            len(x)
            for x in (
                self.events,
                self.transactions,
                self.postings,
                self.balances,
                self.idempotency,
                self.shoes,
                self.snapshots,
                self.audit,
                self.meter_hits,
            )
        )


@dataclass
class Result:
    backend: str
    game: str
    mode: str
    rounds: int
    requests: int
    rows: int
    service_seconds: float
    bare_seconds: float

    @property
    def service_rate(self) -> float:
        return self.rounds / self.service_seconds

    @property
    def bare_rate(self) -> float:
        return self.rounds / self.bare_seconds

    @property
    def ratio(self) -> float:
        return self.service_rate / self.bare_rate


def high_water(engine: Engine) -> dict[str, Any]:
    """Where each table stood before the run."""
    with engine.connect() as conn:
        return {
            "tx": conn.execute(select(func.coalesce(func.max(s.transactions.c.tx_id), 0))).scalar(),
            "audit": conn.execute(select(func.coalesce(func.max(s.audit_log.c.id), 0))).scalar(),
            "keys": set(conn.execute(select(s.idempotency.c.key)).scalars()),
            "shoes": {(r.table_id, r.shoe_no) for r in conn.execute(select(s.shoes))},
            "snapshots": {(r.table_id, r.seq) for r in conn.execute(select(s.snapshots))},
            "hits": {(r.meter_id, r.seq) for r in conn.execute(select(s.meter_hits))},
            "events": {(r.table_id, r.seq) for r in conn.execute(select(s.events))},
        }


def request_groups(engine: Engine, before: dict[str, Any]) -> list[Group]:
    """The rows written since ``before``, grouped by the request (commit) that wrote them:
    each request's idempotency record names the events it appended; transactions follow
    their event; the other rows go to the first request that committed at or after them."""
    idem = sorted(
        (r for r in rows(engine, s.idempotency) if r["key"] not in before["keys"]),
        key=lambda r: r["created_at"],
    )
    groups = [Group() for _ in idem]
    by_event: dict[tuple[str, int], int] = {}
    for i, r in enumerate(idem):
        groups[i].idempotency.append(r)
        answer = json.loads(r["response"])
        for seq in range(answer["first_seq"], answer["last_seq"] + 1):
            by_event[(answer["table_id"], seq)] = i
    times = [r["created_at"] for r in idem]

    def at(when: Any) -> int:
        return min(bisect.bisect_left(times, when), len(groups) - 1)

    for e in rows(engine, s.events):
        key = (e["table_id"], e["seq"])
        if key not in before["events"]:
            groups[by_event.get(key, at(e["recorded_at"]))].events.append(e)
    postings = defaultdict(list)
    for p in rows(engine, s.postings, s.postings.c.tx_id > before["tx"]):
        postings[p["tx_id"]].append(p)
    for t in rows(engine, s.transactions, s.transactions.c.tx_id > before["tx"]):
        key = (t["table_id"], t["event_seq"])
        g = groups[by_event[key]] if key in by_event else groups[at(t["created_at"])]
        g.transactions.append(t)
        g.postings += postings[t["tx_id"]]
        for p in postings[t["tx_id"]]:
            g.balances[p["account_id"]] += p["amount"]
    for r in rows(engine, s.shoes):
        if (r["table_id"], r["shoe_no"]) not in before["shoes"]:
            groups[at(r["created_at"])].shoes.append(r)
    for r in rows(engine, s.snapshots):
        if (r["table_id"], r["seq"]) not in before["snapshots"]:
            groups[by_event.get((r["table_id"], r["seq"]), at(r["created_at"]))].snapshots.append(r)
    for r in rows(engine, s.audit_log, s.audit_log.c.id > before["audit"]):
        groups[at(r["at"])].audit.append(r)
    for r in rows(engine, s.meter_hits):
        if (r["meter_id"], r["seq"]) not in before["hits"]:
            groups[at(r["at"])].meter_hits.append(r)
    return groups


BALANCE = (
    update(s.accounts)
    .where(s.accounts.c.account_id == bindparam("a"))
    .values(balance=s.accounts.c.balance + bindparam("d"))
)


def bare_inserts(engine: Engine, groups: list[Group]) -> float:
    """Insert every group's rows, one commit per group; returns the seconds taken."""
    started = time.perf_counter()
    for g in groups:
        with engine.begin() as conn:
            for table, data in (
                (s.events, g.events),
                (s.transactions, g.transactions),
                (s.postings, g.postings),
                (s.shoes, g.shoes),
                (s.snapshots, g.snapshots),
                (s.audit_log, g.audit),
                (s.meter_hits, g.meter_hits),
                (s.idempotency, g.idempotency),
            ):
                if data:
                    conn.execute(insert(table), data)
            if g.balances:
                conn.execute(BALANCE, [{"a": a, "d": d} for a, d in sorted(g.balances.items())])
    return time.perf_counter() - started


def run_one(backend: str, game: str, mode: str, args: argparse.Namespace) -> Result:
    with (
        scratch_url(backend, workdir=args.workdir) as url_a,
        scratch_url(backend, workdir=args.workdir) as url_b,
    ):
        store = open_store(url_a)
        bare = open_store(url_b)
        try:
            players = demo_casino(store)
            table_id = TABLES[game]
            service = TableService(store, table_id, owner="bench")
            bots = Bots(service, players[: args.players], seed=1, batched=mode == "batched")
            bots.play(2)  # warm-up: first shoe, first snapshot-free reads, caches
            copy_all(store.engine, bare.engine, COPIED)
            # accounts the run will open (carried wagers, …) exist in the copy, at zero
            before = high_water(store.engine)
            started = time.perf_counter()
            bots.play(args.rounds)
            service_seconds = time.perf_counter() - started
            service.close()
            groups = request_groups(store.engine, before)
            new_accounts = [
                a
                for a in rows(store.engine, s.accounts)
                if a["account_id"] not in {b["account_id"] for b in rows(bare.engine, s.accounts)}
            ]
            if new_accounts:
                with bare.engine.begin() as conn:
                    conn.execute(insert(s.accounts), [dict(a, balance=0) for a in new_accounts])
            bare_seconds = bare_inserts(bare.engine, groups)
            same = {a["account_id"]: a["balance"] for a in rows(store.engine, s.accounts)}
            again = {a["account_id"]: a["balance"] for a in rows(bare.engine, s.accounts)}
            if same != again:
                raise SystemExit("the bare inserts did not reach the service's balances")
            return Result(
                backend,
                game,
                mode,
                args.rounds,
                len(groups),
                sum(g.count() for g in groups),
                service_seconds,
                bare_seconds,
            )
        finally:
            store.close()
            bare.close()


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--backend", nargs="+", default=["sqlite", "postgresql"])
    parser.add_argument("--game", nargs="+", default=["caribbean", "baccarat"])
    parser.add_argument("--mode", nargs="+", default=["single", "batched"])
    parser.add_argument("--rounds", type=int, default=200)
    parser.add_argument("--players", type=int, default=4)
    parser.add_argument("--workdir", default=None)
    parser.add_argument("--json", type=Path, default=None)
    args = parser.parse_args()
    print(f"machine: {machine()}")
    results = []
    header = (
        f"{'backend':<11}{'game':<10}{'mode':<8}{'requests/round':>15}{'rows/round':>11}"
        f"{'service r/s':>12}{'bare r/s':>10}{'ratio':>7}"
    )
    print(header)
    for backend in args.backend:
        for game in args.game:
            for mode in args.mode:
                r = run_one(backend, game, mode, args)
                results.append(r)
                print(
                    f"{r.backend:<11}{r.game:<10}{r.mode:<8}{r.requests / r.rounds:>15.1f}"
                    f"{r.rows / r.rounds:>11.1f}{r.service_rate:>12.1f}{r.bare_rate:>10.1f}"
                    f"{r.ratio:>7.2f}  {'OK' if r.ratio >= GOAL else 'MISSED'}",
                    flush=True,
                )
    if args.json is not None:
        args.json.write_text(
            json.dumps([asdict(r) | {"ratio": r.ratio} for r in results], indent=2, default=str)
        )
    return 0 if all(r.ratio >= GOAL for r in results) else 1


if __name__ == "__main__":
    sys.exit(main())
