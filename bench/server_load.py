"""Benchmark: the table server under load — N WebSocket + HTTP clients betting over loopback,
beside the table service's own in-process rate in the same run (issue 10, item 6).

Usage::

    .venv/bin/python bench/server_load.py [--clients 200] [--per-table 10] [--seconds 60]
        [--think-ms 10000] [--backend sqlite|postgresql] [--workdir DIR] [--json PATH]
        [--profile PATH]

1. **Set-up** (not measured): a scratch database (``bench/service_db.scratch_url``: a SQLite file
   on disk, or a scratch PostgreSQL database), the demonstration casino, and enough virtual
   baccarat tables for ``--clients`` players at ``--per-table`` each (``bac-1`` and ``bench-NN``
   on the same configuration and meter); a user and a wallet per player (and a dealer user,
   unused: the tables run their round cycle themselves).
2. **Server**: ``macau-tables serve`` (uvicorn) in a subprocess on 127.0.0.1, as shipped (request
   log on); every client signs in through ``POST /api/auth/token``.
3. **Load** (``--seconds``, bounded in clients and time): ONE asyncio process runs every client.
   Each player holds a WebSocket on its table (``/ws/tables/{id}``, its own audience) and, when
   a view shows a new round taking bets, sends its wager with ``POST
   /api/tables/{id}/commands`` (a banker or player bet of one unit in a standing area).
   **Arrival model** (``--think-ms``, the betting window, default 10 s, shorter than the
   table's betting countdown): each player bets once per round at a uniformly random moment
   of the window, as people at a table do. Nobody deals: each table runs its round cycle on
   the server's clock (``tables/cycle.py``: the countdown of ``betting_seconds``, the close,
   the deal and settlement, the result pause, the next round), so a round lasts the countdown
   plus the pause (15 + 5 s at the demonstration configuration) and 200 players bet ~10 times
   a second in all. ``--think-ms 0`` is the **burst** variant: every player of a table bets
   the instant its round opens.
   Measured: bets accepted per second, the p50 / p99 latency of a bet's acceptance (request
   sent → answer read, on the client), every error (a 5xx, a refusal, a transport error, a
   closed socket), the server process's CPU time (per accepted bet: all its work — the
   HTTP requests, the tables' cycles, the views pushed to every socket) and its threads'
   voluntary context switches per accepted bet (each a thread that waited: for another
   thread's answer, the interpreter, a lock, I/O — the hand-overs a bet costs).
4. **In process**: the same database reopened after the server stopped; the same tables run
   the same rounds (the cycle's open, the players' bets, the cycle's close:
   ``TableService.cycle_step`` runs each step at once) with no HTTP, no sockets; bets per
   second of the bets' ``submit`` calls alone, one after the other (serial: a transaction
   each); then **grouped**: every round's bets of every table sent at once from a thread per
   player, as the burst sends them to the server, so that they are committed together
   (``tables/group.py``): bets per second of the bursts' wall time, and how many write
   transactions they took.

``--profile PATH``: py-spy (``pip install py-spy``) samples the server over the measured phase
(only threads holding the interpreter: where its CPU goes) into PATH, collapsed stacks.

It prints both rates and their ratio (HTTP / in-process), the latencies and the errors. Goal:
200 clients, p99 under 50 ms, no errors. Exit status 0 when met.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx
import websockets

from macau_tables import codec
from macau_tables.baccarat.bets import standing
from macau_tables.baccarat.commands import PlaceWager
from macau_tables.baccarat.rules import WagerKind
from macau_tables.server import auth
from macau_tables.store import Store, TableMode, TableStatus, Tx, users_ops
from macau_tables.tables.casino import UNIT, create_demo_casino
from macau_tables.tables.service import TableService
from service_db import machine, scratch_url

GOAL_P99_MS = 50.0
GOAL_CLIENTS = 200
PASSWORD = "bench-password-1234"
DEALER = "bench-dealer"
STANDING = 4
BALANCE = 100_000_000
VENV_BIN = Path(sys.executable).parent
WINDOW_MS = 10_000.0
"""The betting window (``--think-ms``): each player bets once per round at a uniformly random
moment of it."""


# -- set-up ---------------------------------------------------------------------------------


@dataclass
class Table:
    table_id: str
    players: list[str]
    pending: set[str] = field(default_factory=set)
    all_in: asyncio.Event = field(default_factory=asyncio.Event)
    rounds: int = 0
    waited_out: int = 0

    def area(self, player: str) -> Any:
        """A standing area (the round cycle seats nobody: BAC-15's seats are for seated
        players)."""
        return standing(self.players.index(player) % STANDING + 1)


def set_up(url: str, clients: int, per_table: int) -> list[Table]:
    """The casino, its tables, the players' users and wallets, the dealer (one transaction
    each; one password hash shared: argon2 is not what is measured)."""
    store = Store.open(url)
    try:
        store.upgrade()
        create_demo_casino(store)
        count = -(-clients // per_table)
        ids = ["bac-1", *(f"bench-{n:02d}" for n in range(2, count + 1))]
        names = [f"p{n:03d}" for n in range(1, clients + 1)]
        hashed = auth.hash_password(PASSWORD)

        def build(tx: Tx) -> None:
            for table_id in ids[1:]:
                tx.create_table(
                    table_id,
                    name=f"Bench {table_id}",
                    game="baccarat",
                    mode=TableMode.VIRTUAL,
                    demo=True,
                    config_id="bac-8d-v1",
                    meter_id="m-baccarat",
                )
                tx.set_table_status(table_id, TableStatus.OPEN, actor="bench", reason="bench")
            users_ops.add_user(tx, DEALER, "dealer", hashed, actor="bench")
            for name in names:
                users_ops.add_user(tx, name, "player", hashed, actor="bench")
                tx.add_player(name, name)
                tx.deposit(name, BALANCE, actor="bench", reason="bench float")

        store.run(build)
    finally:
        store.close()
    return [Table(t, names[i * per_table : (i + 1) * per_table]) for i, t in enumerate(ids)]


# -- the server -----------------------------------------------------------------------------


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


def start_server(url: str, port: int, log: Path, clients: int) -> subprocess.Popen[bytes]:
    env = {
        **os.environ,
        "MACAU_TABLES_DEMO_USERS": "false",
        "MACAU_TABLES_MAX_WEBSOCKETS": str(max(1000, 2 * clients)),
    }
    command = [str(VENV_BIN / "macau-tables"), "serve", "--database", url, "--port", str(port)]
    with log.open("wb") as out:
        proc = subprocess.Popen(command, stdout=out, stderr=subprocess.STDOUT, env=env)
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise SystemExit(f"the server exited ({proc.returncode}): see {log}")
        try:
            if httpx.get(f"http://127.0.0.1:{port}/readyz", timeout=1).status_code == 200:
                return proc
        except httpx.HTTPError:
            pass
        time.sleep(0.2)
    proc.kill()
    raise SystemExit(f"the server did not become ready: see {log}")


def cpu_seconds(pid: int) -> float:
    """User + system CPU time of process ``pid`` so far (Linux ``/proc``; NaN elsewhere)."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return float("nan")
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def switches(pid: int) -> dict[str, int]:
    """Voluntary context switches so far of each live thread of process ``pid`` (by thread
    id) — each a thread that waited: for a lock, the interpreter, I/O, another thread's answer
    (Linux ``/proc``; nothing elsewhere)."""
    out: dict[str, int] = {}
    for status in Path(f"/proc/{pid}/task").glob("*/status"):
        try:
            lines = status.read_text().splitlines()
        except OSError:
            continue
        counts = [int(x.split()[1]) for x in lines if x.startswith("voluntary_ctxt_switches")]
        out[status.parent.name] = sum(counts)
    return out


def switches_since(before: dict[str, int], after: dict[str, int]) -> int:
    """The switches made between two readings by the threads alive at the second (a thread
    that ended meanwhile is not counted: a floor, never negative; a thread id the system gave
    again to a new thread counts from that thread's start)."""
    return sum(n - before.get(tid, 0) if n >= before.get(tid, 0) else n for tid, n in after.items())


def stop_server(proc: subprocess.Popen[bytes]) -> None:
    proc.send_signal(signal.SIGINT)  # graceful: leases released, nothing half-written
    try:
        proc.wait(timeout=30)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait()


# -- the load -------------------------------------------------------------------------------


@dataclass
class Load:
    base: str
    http: httpx.AsyncClient
    tokens: dict[str, str]
    stop_at: float
    latencies: list[float] = field(default_factory=list)
    errors: Counter[str] = field(default_factory=Counter)
    think: float = 0.0
    messages: int = 0
    keys: int = 0
    server_cpu: float = 0.0
    server_switches: int = 0

    def running(self) -> bool:
        return time.monotonic() < self.stop_at

    async def post(self, table: str, who: str, command: object) -> tuple[bool, float]:
        self.keys += 1
        started = time.perf_counter()
        try:
            response = await self.http.post(
                f"{self.base}/api/tables/{table}/commands",
                json={"idempotency_key": f"b{self.keys}", "command": codec.encode(command)},
                headers={"Authorization": f"Bearer {self.tokens[who]}"},
            )
        except httpx.HTTPError as exc:
            self.errors[f"transport {type(exc).__name__}"] += 1
            return False, 0.0
        elapsed = time.perf_counter() - started
        if response.status_code != 200:
            try:
                key = response.json()["error"]["key"]
            except (ValueError, KeyError, TypeError):
                key = "?"
            self.errors[f"{response.status_code} {key}"] += 1
            return False, elapsed
        return True, elapsed


async def sign_in(base: str, http: httpx.AsyncClient, names: list[str]) -> dict[str, str]:
    tokens: dict[str, str] = {}
    gate = asyncio.Semaphore(8)

    async def one(name: str) -> None:
        async with gate:
            r = await http.post(f"{base}/api/auth/token", json={"name": name, "password": PASSWORD})
            r.raise_for_status()
            tokens[name] = r.json()["token"]

    await asyncio.gather(*(one(n) for n in names))
    return tokens


async def player(load: Load, table: Table, name: str, rnd: random.Random) -> None:
    url = f"{load.base.replace('http', 'ws', 1)}/ws/tables/{table.table_id}"
    last_round: str | None = None
    try:
        async with websockets.connect(f"{url}?token={load.tokens[name]}") as ws:
            while load.running():
                try:
                    text = await asyncio.wait_for(ws.recv(), timeout=1.0)
                except TimeoutError:
                    continue
                load.messages += 1
                if '"phase":"betting"' not in text:
                    continue  # no round taking bets: not parsed (the load generator's own CPU)
                message = json.loads(text)
                view = message.get("view") if message.get("type") == "table" else None
                if view is None or view.get("phase") != "betting":
                    continue
                if message["round_id"] == last_round:
                    continue
                last_round = message["round_id"]
                if name == table.players[0]:
                    table.rounds += 1  # a round the table's cycle opened
                if not view.get("demo") and load.running():
                    if load.think:
                        await asyncio.sleep(rnd.uniform(0, load.think))
                    kind = WagerKind.BANKER if rnd.random() < 0.5 else WagerKind.PLAYER
                    wager = PlaceWager(name, table.area(name), kind, UNIT)
                    ok, elapsed = await load.post(table.table_id, name, wager)
                    if ok:
                        load.latencies.append(elapsed)
                table.pending.discard(name)
                if not table.pending:
                    table.all_in.set()
    except websockets.ConnectionClosed as exc:
        if load.running():
            load.errors[f"socket closed {exc.rcvd.code if exc.rcvd else '-'}"] += 1
    except OSError as exc:
        load.errors[f"socket {type(exc).__name__}"] += 1


def start_profile(pid: int, seconds: float, path: str) -> subprocess.Popen[bytes]:
    """py-spy (``pip install py-spy``) sampling the server over the measured phase, its
    collapsed stacks written to ``path`` (``--profile``; not part of the figures)."""
    command = [
        str(VENV_BIN / "py-spy"),
        "record",
        "-p",
        str(pid),
        "-d",
        str(int(seconds)),
        "-r",
        "200",
        "-f",
        "raw",
        "-o",
        path,
        "--nonblocking",
        "--gil",
    ]
    return subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)


async def run_load(
    port: int,
    pid: int,
    tables: list[Table],
    seconds: float,
    think: float,
    profile: str | None = None,
) -> tuple[Load, float]:
    base = f"http://127.0.0.1:{port}"
    clients = sum(len(t.players) for t in tables)
    # idle connections closed before uvicorn closes them (5 s), so none is reused as it closes
    limits = httpx.Limits(max_connections=clients + len(tables) + 8, keepalive_expiry=2.0)
    async with httpx.AsyncClient(limits=limits, timeout=30) as http:
        names = [DEALER, *(p for t in tables for p in t.players)]
        tokens = await sign_in(base, http, names)
        load = Load(base, http, tokens, stop_at=float("inf"), think=think)
        rnd = random.Random(2026)
        players = [
            asyncio.create_task(player(load, t, p, random.Random(rnd.random())))
            for t in tables
            for p in t.players
        ]
        await asyncio.sleep(1.0)  # every socket connected and holding its first view
        spy = None if profile is None else start_profile(pid, seconds, profile)
        started, cpu, switched = time.monotonic(), cpu_seconds(pid), switches(pid)
        load.stop_at = started + seconds
        await asyncio.sleep(seconds)  # the tables cycle by themselves meanwhile
        elapsed = time.monotonic() - started
        load.server_cpu = cpu_seconds(pid) - cpu
        load.server_switches = switches_since(switched, switches(pid))
        if spy is not None:
            await asyncio.to_thread(spy.wait)
        await asyncio.gather(*players)
    return load, elapsed


def server_side(log: Path) -> list[float]:
    """The players' bets as the server timed them: the request log's ``ms`` of each ``POST
    …/commands`` not sent by the dealer (from the ASGI app's start to its answer)."""
    found: list[float] = []
    for line in log.read_text(encoding="utf-8", errors="replace").splitlines():
        if "/commands" not in line:
            continue
        try:
            record = json.loads(line)
        except ValueError:
            continue
        if (
            record.get("method") == "POST"
            and str(record.get("path", "")).endswith("/commands")
            and record.get("user") not in (None, DEALER)
            and record.get("status") == 200
        ):
            found.append(float(record["ms"]) / 1000)
    return found


# -- in process -----------------------------------------------------------------------------


def in_process(url: str, tables: list[Table], bets: int, seconds: float) -> tuple[int, float]:
    """The same rounds through ``TableService.submit`` (no HTTP); returns (bets, seconds spent
    in the bets' ``submit`` calls)."""
    store = Store.open(url)
    services = [TableService(store, t.table_id) for t in tables]
    rnd = random.Random(7)
    done, spent, n = 0, 0.0, 0
    deadline = time.monotonic() + seconds
    try:
        while done < bets and time.monotonic() < deadline:
            for table, svc in zip(tables, services, strict=True):
                n += 1
                opened = svc.state.rounds
                while svc.state.rounds == opened:  # the cycle's opening, run at once
                    if svc.cycle_step() is None:
                        raise RuntimeError(f"{table.table_id}: the cycle opened no round")
                demo = bool(getattr(svc.round, "demo", False))
                for name in table.players:
                    if demo:
                        break
                    kind = WagerKind.BANKER if rnd.random() < 0.5 else WagerKind.PLAYER
                    started = time.perf_counter()
                    svc.submit(
                        PlaceWager(name, table.area(name), kind, UNIT),
                        idempotency_key=f"w{n}{name}",
                        actor=name,
                    )
                    spent += time.perf_counter() - started
                    done += 1
                svc.cycle_step()  # the cycle's close: dealt and settled
    finally:
        for svc in services:
            svc.close()
        store.close()
    return done, spent


def in_process_grouped(
    url: str, tables: list[Table], bets: int, seconds: float
) -> tuple[int, float, int]:
    """The same rounds with every table's bets sent at once, one thread per player (the
    burst), so that they go through the group commit (``tables/group.py``) as the server's
    do; returns (bets, seconds of the bursts' wall time, write transactions the bursts
    took)."""
    from concurrent.futures import ThreadPoolExecutor

    store = Store.open(url)
    services = [TableService(store, t.table_id) for t in tables]
    commits = [0]
    run = store.run

    def counted(fn: Any, **kw: Any) -> Any:
        out = run(fn, **kw)
        if not kw.get("readonly"):
            commits[0] += 1
        return out

    rnd = random.Random(7)
    done, spent, n, took = 0, 0.0, 0, 0
    deadline = time.monotonic() + seconds
    players = sum(len(t.players) for t in tables)
    try:
        with ThreadPoolExecutor(max_workers=players) as pool:
            while done < bets and time.monotonic() < deadline:
                n += 1
                calls = []
                for table, svc in zip(tables, services, strict=True):
                    opened = svc.state.rounds
                    while svc.state.rounds == opened:
                        if svc.cycle_step() is None:
                            raise RuntimeError(f"{table.table_id}: the cycle opened no round")
                    if getattr(svc.round, "demo", False):
                        continue
                    for name in table.players:
                        kind = WagerKind.BANKER if rnd.random() < 0.5 else WagerKind.PLAYER
                        wager = PlaceWager(name, table.area(name), kind, UNIT)
                        calls.append((svc, wager, f"g{n}{name}", name))
                store.run = counted  # type: ignore[method-assign]
                started = time.perf_counter()
                list(pool.map(lambda c: c[0].submit(c[1], idempotency_key=c[2], actor=c[3]), calls))
                spent += time.perf_counter() - started
                store.run = run  # type: ignore[method-assign]
                took += commits[0]
                commits[0] = 0
                done += len(calls)
                for svc in services:
                    svc.cycle_step()
    finally:
        store.run = run  # type: ignore[method-assign]
        for svc in services:
            svc.close()
        store.close()
    return done, spent, took


# -- main -----------------------------------------------------------------------------------


def percentile(values: list[float], q: float) -> float:
    if not values:
        return float("nan")
    return statistics.quantiles(values, n=100, method="inclusive")[int(q) - 1]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--clients", type=int, default=GOAL_CLIENTS)
    parser.add_argument("--per-table", type=int, default=10)
    parser.add_argument("--seconds", type=float, default=60.0)
    parser.add_argument(
        "--think-ms",
        type=float,
        default=WINDOW_MS,
        help="the betting window: each player bets once per round at a uniformly random "
        "moment 0..THINK ms after it sees the round open (default 10000); 0: every player "
        "bets the instant its round opens (the burst, a stress variant)",
    )
    parser.add_argument("--backend", choices=("sqlite", "postgresql"), default="sqlite")
    parser.add_argument("--workdir", default=None)
    parser.add_argument("--json", default=None)
    parser.add_argument("--profile", default=None, help="py-spy's collapsed stacks to PATH")
    args = parser.parse_args()
    if not 1 <= args.clients <= 1000 or not 1 <= args.per_table <= 11:
        parser.error("--clients 1..1000, --per-table 1..11 (a table's players)")
    if not 1 <= args.seconds <= 600:
        parser.error("--seconds 1..600")
    load_before = os.getloadavg()
    print(f"# server under load: {machine()}")
    with scratch_url(args.backend, workdir=args.workdir) as url:
        tables = set_up(url, args.clients, args.per_table)
        log = Path(tempfile.mkdtemp(prefix="mt-serve-")) / "serve.log"
        port = free_port()
        proc = start_server(url, port, log, args.clients)
        try:
            load, elapsed = asyncio.run(
                run_load(port, proc.pid, tables, args.seconds, args.think_ms / 1000, args.profile)
            )
        finally:
            stop_server(proc)
        served = server_side(log)
        accepted = len(load.latencies)
        http_rate = accepted / elapsed
        bets, spent = in_process(url, tables, accepted, args.seconds)
        local_rate = bets / spent if spent else float("nan")
        g_bets, g_spent, g_commits = in_process_grouped(url, tables, accepted, args.seconds)
        grouped_rate = g_bets / g_spent if g_spent else float("nan")
    load_after = os.getloadavg()
    p50 = percentile(load.latencies, 50) * 1000
    p99 = percentile(load.latencies, 99) * 1000
    rounds = sum(t.rounds for t in tables)
    waited = sum(t.waited_out for t in tables)
    result = {
        "backend": args.backend,
        "clients": args.clients,
        "think_ms": args.think_ms,
        "tables": len(tables),
        "seconds": round(elapsed, 1),
        "rounds": rounds,
        "bets_accepted": accepted,
        "bets_per_second": round(http_rate, 1),
        "p50_ms": round(p50, 1),
        "p99_ms": round(p99, 1),
        "max_ms": round(max(load.latencies, default=0) * 1000, 1),
        "server_side_p50_ms": round(percentile(served, 50) * 1000, 1),
        "server_side_p99_ms": round(percentile(served, 99) * 1000, 1),
        "errors": dict(load.errors),
        "rounds_closed_before_every_bet": waited,
        "messages_received": load.messages,
        "server_cpu_seconds": round(load.server_cpu, 1),
        "server_cpu_ms_per_bet": round(1000 * load.server_cpu / accepted, 2) if accepted else None,
        "server_switches_per_bet": round(load.server_switches / accepted, 1) if accepted else None,
        "in_process_bets": bets,
        "in_process_bets_per_second": round(local_rate, 1),
        "ratio_http_to_in_process": round(http_rate / local_rate, 3) if local_rate else None,
        "in_process_grouped_bets": g_bets,
        "in_process_grouped_bets_per_second": round(grouped_rate, 1),
        "in_process_grouped_transactions": g_commits,
        "ratio_http_to_in_process_grouped": (
            round(http_rate / grouped_rate, 3) if grouped_rate else None
        ),
        "load_average_before": [round(x, 2) for x in load_before],
        "load_average_after": [round(x, 2) for x in load_after],
    }
    print(json.dumps(result, indent=2))
    arrivals = (
        f"bets over a {args.think_ms / 1000:g} s window"
        if args.think_ms
        else "burst (--think-ms 0)"
    )
    met = args.clients >= GOAL_CLIENTS and p99 < GOAL_P99_MS and not load.errors
    print(
        f"{args.backend}, {arrivals}: {args.clients} clients on {len(tables)} tables, "
        f"{elapsed:.1f} s: "
        f"{http_rate:.0f} bets/s over HTTP (p50 {p50:.1f} ms, p99 {p99:.1f} ms, "
        f"errors {sum(load.errors.values())}), {local_rate:.0f} bets/s in process, "
        f"ratio {http_rate / local_rate:.3f}; {grouped_rate:.0f} bets/s in process grouped "
        f"(all of a round's bets at once: {g_bets} bets in {g_commits} transactions), ratio "
        f"{http_rate / grouped_rate:.3f}; server CPU {result['server_cpu_ms_per_bet']} ms "
        f"and {result['server_switches_per_bet']} context switches a bet; "
        f"goal (200 clients, p99 < 50 ms, no errors) "
        f"{'met' if met else 'MISSED'}"
    )
    if args.json:
        Path(args.json).write_text(json.dumps(result, indent=2) + "\n", encoding="utf-8")
    return 0 if met else 1


if __name__ == "__main__":
    sys.exit(main())
