"""Where the table service spends its time: a profile of bots playing through it.

Usage::

    .venv/bin/python bench/service_profile.py [--backend sqlite] [--game caribbean]
        [--rounds 100] [--mode single|batched] [--html out.html]

Plays like ``bench/service_rounds.py`` under pyinstrument (``pip install pyinstrument`` into
the venv: it is not a dependency of the project) and prints the call tree of the timed part,
then the SQL statements the store sent, per round, by kind and table.

``--cpu``: no profiler; the service's own CPU per round instead (``time.process_time()`` of
this process around ``--rounds`` rounds, after two warm-up rounds), once per ``--repeat``, and
their median — what a change of the service's CPU is measured by beside the durable rates of
``bench/service_rounds.py``, whose ratio also moves with the cost of a commit.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from collections import Counter
from pathlib import Path
from typing import Any

from sqlalchemy import event

from macau_tables.store._base import TxBase
from macau_tables.tables import Bots, TableService
from service_db import demo_casino, open_store, scratch_url

TABLES = {"caribbean": "csp-1", "baccarat": "bac-1"}
TARGETS = {"FROM", "INTO", "UPDATE"}  # the word before a statement's table


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--backend", default="sqlite")
    parser.add_argument("--game", default="caribbean")
    parser.add_argument("--mode", default="single")
    parser.add_argument("--rounds", type=int, default=100)
    parser.add_argument("--players", type=int, default=4)
    parser.add_argument("--html", type=Path, default=None)
    parser.add_argument("--workdir", default=None)
    parser.add_argument("--cpu", action="store_true", help="CPU per round only, no profiler")
    parser.add_argument("--repeat", type=int, default=5, help="with --cpu: runs (median)")
    args = parser.parse_args()
    if args.cpu:
        return cpu_per_round(args)
    from pyinstrument import Profiler

    with scratch_url(args.backend, workdir=args.workdir) as url:
        store = open_store(url)
        players = demo_casino(store)
        service = TableService(store, TABLES[args.game], owner="bench")
        bots = Bots(service, players[: args.players], seed=1, batched=args.mode == "batched")
        bots.play(2)
        statements: Counter[str] = Counter()

        def count(conn: Any, cursor: Any, statement: str, *rest: Any) -> None:
            words = statement.split()
            verb = words[0].upper()
            table = next(
                (
                    w.strip('"')
                    for w, v in zip(words[1:], words[:-1], strict=True)
                    if v.upper() in TARGETS
                ),
                "",
            )
            statements[f"{verb} {table}".strip()] += 1

        event.listen(store.engine, "before_cursor_execute", count)
        # The hottest statements go to the driver itself (TxBase.driver_rows / driver_many,
        # on both databases), past SQLAlchemy's events: counted here.
        rows, many = TxBase.driver_rows, TxBase.driver_many

        def driver_rows(tx: TxBase, sql: str, params: Any) -> Any:
            count(None, None, sql)
            return rows(tx, sql, params)

        def driver_many(tx: TxBase, sql: str, params: Any) -> None:
            count(None, None, sql)
            many(tx, sql, params)

        TxBase.driver_rows, TxBase.driver_many = driver_rows, driver_many  # type: ignore[method-assign]
        requests = bots.commands
        profiler = Profiler(interval=0.0005)
        profiler.start()
        bots.play(args.rounds)
        profiler.stop()
        requests = bots.commands - requests
        event.remove(store.engine, "before_cursor_execute", count)
        TxBase.driver_rows, TxBase.driver_many = rows, many  # type: ignore[method-assign]
        service.close()
        store.close()
    print(profiler.output_text(unicode=True, color=False, show_all=False))
    total = sum(statements.values())
    print(
        f"SQL statements: {total} for {args.rounds} rounds, {requests} requests "
        f"({total / requests:.1f} per request, {total / args.rounds:.1f} per round):"
    )
    for what, n in statements.most_common():
        print(f"  {n / args.rounds:8.2f} per round  {what}")
    if args.html is not None:
        args.html.write_text(profiler.output_html())
    return 0


def cpu_per_round(args: argparse.Namespace) -> int:
    """Print the service's CPU per round of each run and their median (ms)."""
    runs = []
    for _ in range(args.repeat):
        with scratch_url(args.backend, workdir=args.workdir) as url:
            store = open_store(url)
            players = demo_casino(store)
            service = TableService(store, TABLES[args.game], owner="bench")
            batched = args.mode == "batched"
            bots = Bots(service, players[: args.players], seed=1, batched=batched)
            bots.play(2)
            started = time.process_time()
            bots.play(args.rounds)
            runs.append((time.process_time() - started) / args.rounds * 1000)
            service.close()
            store.close()
        print(
            f"{args.backend} {args.game} {args.mode}: {runs[-1]:.3f} ms CPU per round", flush=True
        )
    print(f"median of {len(runs)}: {statistics.median(runs):.3f} ms CPU per round")
    return 0


if __name__ == "__main__":
    sys.exit(main())
