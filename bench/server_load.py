"""Benchmark: the table server under load — N WebSocket + HTTP clients betting over loopback,
beside the table service's own in-process rate in the same run (issue 10, item 6; issue 21).

Usage::

    .venv/bin/python bench/server_load.py [--scenario window|burst|thousand]
        [--tables virtual|live] [--clients N] [--per-table N] [--seconds 60] [--think-ms MS]
        [--backend sqlite|postgresql] [--workdir DIR] [--json PATH] [--profile PATH]
        [--workers N] [--bets-over socket|rest] [--openings spread|together]
        [--no-in-process] [--spans PATH]

**Scenarios** (``--scenario``: the numbers, which ``--clients``, ``--per-table`` and
``--think-ms`` still override, and the goal whose verdict is printed check by check):

* ``window`` (default; issue 10): 200 players, 10 a table, each bets once per round at a random
  moment of a 10 s window — p99 < 50 ms, no errors;
* ``burst`` (issue 21): 200 players on 20 tables all bet the instant betting opens
  (``--think-ms 0``) — p99 < 250 ms, no errors, bets/s over HTTP >= 0.5 of the in-process rate;
* ``thousand`` (issue 21): 1,000 players on 100 tables over a 10 s window — p99 < 50 ms, no
  errors. One load process runs the 1,000 clients: it raises its open-files limit (a socket and
  an HTTP connection each; the server it starts inherits the limit) and the server is started
  with ``MACAU_TABLES_MAX_WEBSOCKETS`` = max(1000, 2 × clients) (the per-client cap,
  ``max_websockets_per_client``, counts a signed-in user's sockets, one each here).

1. **Set-up** (not measured): a scratch database (``bench/service_db.scratch_url``: a SQLite file
   on disk, or a scratch PostgreSQL database), the demonstration casino, and enough baccarat
   tables for the clients at ``--per-table`` each (``bac-1``, or ``bac-live`` with
   ``--tables live``, and ``bench-NN`` on the same configuration and meter, of that mode); a
   user and a wallet per player, and a dealer user.
2. **Server**: ``macau-tables serve`` (uvicorn) in a subprocess on 127.0.0.1, as shipped (request
   log on); the players' bearer tokens are stored at set-up as a sign-in stores them (argon2
   for 1,000 sign-ins is not what is measured); the dealer signs in through ``POST
   /api/auth/token``.
3. **Load** (``--seconds``, bounded in clients and time): ONE asyncio process runs every client.
   Each player holds a WebSocket on its table (``/ws/tables/{id}``, its own audience) and, when
   a view shows a new round taking bets, sends its wager (a banker or player bet of one unit in
   a standing area) as a command message on that socket, answered by its ``ack``
   (``--bets-over socket``, the default: docs/server.md "Commands over the socket"), or with
   ``POST /api/tables/{id}/commands`` (``--bets-over rest``).
   **Arrival model** (``--think-ms``, the betting window, 10 s but in the burst): each player
   bets once per round at a uniformly random moment of the window, as people at a table do;
   ``--think-ms 0``: every player of a table bets the instant its round opens.
   **Tables** (``--tables``): ``virtual`` (default) — nobody deals: each table runs its round
   cycle on the server's clock (``tables/cycle.py``: the countdown of ``betting_seconds``, the
   close, the deal and settlement, the result pause, the next round; 15 + 5 s at the
   demonstration configuration; their first openings spread over a round's cycle, as the
   server spreads them by default — ``spread_openings`` —, or all at one instant with
   ``--openings together``, the burst's default; a player who first sees a round too late in
   its countdown for its window waits for the next). ``live`` — a dealer client per table
   (REST, as the dealer's console) changes the shoe when there is none or it is finished
   (``OpenShoe``, the cut, one card burnt per deck, the demonstration round's cards), then
   each round opens it, closes the betting once every player of the table has been answered
   (at most the window + 10 s), feeds
   the round's cards from its shoe (eight decks in a seeded order, dealt as the tableau draws
   them: the round settles with its last card) and pauses 5 s; its first round at a random
   moment of the first window (the burst: all at once). A dealer's refusal counts as an error.
   **The measured phase** begins once every client's socket is open and holds its first view
   (1,000 connect in a few seconds; ``connect_seconds`` in the JSON) and a second more: a bet
   sent before is not counted. The load generator's own cyclic garbage collector is off while
   it measures (its pauses of 10-300 ms with 1,000 clients' objects would count as the
   server's), and its clients run on uvloop when it is installed, as the server does
   (:func:`client_loop_run`). Measured: bets accepted per second, the p50 / p99 latency of a
   bet's acceptance (request sent → answer read, on the client), every error (a 5xx, a
   refusal, a transport error, a closed socket), the server process's CPU time (per accepted
   bet: all its work — the HTTP requests, the tables' cycles or dealers, the views pushed to
   every socket) and its threads' voluntary context switches per accepted bet (each a thread
   that waited: for another thread's answer, the interpreter, a lock, I/O — the hand-overs a
   bet costs).
4. **In process**: the same database reopened after the server stopped; the same tables run
   the same rounds (virtual: the cycle's open, the players' bets, the cycle's close, each
   ``TableService.cycle_step`` run at once; live: the dealer's open, the bets, the close and
   the cards through ``TableService.submit``) with no HTTP, no sockets; bets per second of the
   bets' ``submit`` calls alone, one after the other (serial: a transaction each); then
   **grouped** (virtual tables): every round's bets of every table sent at once from a thread
   per player, as the burst sends them to the server, so that they are committed together
   (``tables/group.py``): bets per second of the bursts' wall time, and how many write
   transactions they took.

``--profile PATH``: py-spy (``pip install py-spy``) samples the server over the measured phase
(only threads holding the interpreter: where its CPU goes) into PATH, collapsed stacks.

``--workers N`` (PostgreSQL): ``serve --workers N`` — N server processes on the port, the tables
spread among them by lease, each forwarding what names another's table to it; the server's CPU
time and context switches are then those of every process of the group.

It prints both rates and their ratio (HTTP / in-process), the latencies and the errors, and
the scenario's goal check by check. Over the run the HTTP rate is the players' offered load
(one bet per player per round), not the server's capacity; so the burst's ratio goal is judged
on the rate **while bets waited**: the bets accepted over the time at least one bet was waiting
for its answer (the union of the bets' send → answer spans: how long the server took to answer
the bursts). Exit status 0 when the goal is met.
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import hashlib
import json
import os
import random
import resource
import secrets
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from collections import Counter
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

import httpx
import websockets

from macau_tables import codec
from macau_tables.baccarat.bets import standing
from macau_tables.baccarat.commands import CloseBetting, DealCard, PlaceWager
from macau_tables.baccarat.rules import WagerKind
from macau_tables.baccarat.shoe_commands import Burn, Cut, Cutter
from macau_tables.baccarat.tableau import deal_round
from macau_tables.cards import Card, new_shoe
from macau_tables.server import auth
from macau_tables.store import Store, TableMode, TableStatus, Tx, users_ops
from macau_tables.tables.casino import UNIT, create_demo_casino
from macau_tables.tables.model import OpenRound, OpenShoe
from macau_tables.tables.service import TableService
from service_db import machine, scratch_url


@dataclass(frozen=True)
class Scenario:
    """A documented run (``--scenario``): its numbers (each may still be given on the command
    line) and its goal (issue 10's window; issue 21's burst and thousand)."""

    clients: int
    per_table: int
    think_ms: float
    p99_ms: float
    min_ratio: float | None = None
    """The rate over HTTP at least this share of the in-process rate (``None``: no such goal)."""
    together: bool = False
    """The tables' first openings at one instant (``--openings together``: the server's
    ``spread_openings`` off) rather than spread over a round's cycle (the server's default)."""


SCENARIOS: dict[str, Scenario] = {
    # issue 10: 200 players over a 10 s window, p99 < 50 ms, no errors
    "window": Scenario(clients=200, per_table=10, think_ms=10_000, p99_ms=50.0),
    # issue 21: 200 players on 20 tables all bet the instant betting opens
    # (every table opens at the same instant: 200 bets at once, the worst case)
    "burst": Scenario(
        clients=200, per_table=10, think_ms=0, p99_ms=250.0, min_ratio=0.5, together=True
    ),
    # issue 21: 1,000 players on 100 tables, bets over a 10 s window
    "thousand": Scenario(clients=1000, per_table=10, think_ms=10_000, p99_ms=50.0),
}
PASSWORD = "bench-password-1234"
DEALER = "bench-dealer"
STANDING = 4
BALANCE = 100_000_000
VENV_BIN = Path(sys.executable).parent
WINDOW_MS = 10_000.0
"""The betting window (``--think-ms``): each player bets once per round at a uniformly random
moment of it."""
GRACE = 10.0
CONNECT_SECONDS = 60.0
"""The longest the load waits for every client's socket and first view before it measures."""
"""Live tables: how long after the window a dealer still waits for its players' bets before
closing (a bet after the close is refused, and counted as an error)."""
RESULT_PAUSE = 5.0
"""Live tables: the dealer's pause after a round settles before opening the next (as the
demonstration configuration's cycle pauses at a virtual table)."""
CUT_POSITION = 90
"""Live tables: where the dealer cuts each shoe (``baccarat.Cut``)."""
NOFILE = 8192
"""The open files this process (and the server it starts) asks for: a socket and an HTTP
connection per client (1,000 clients: over 2,000), beyond a shell's usual 1,024."""


# -- set-up ---------------------------------------------------------------------------------


@dataclass
class Table:
    table_id: str
    players: list[str]
    pending: set[str] = field(default_factory=set)
    all_in: asyncio.Event = field(default_factory=asyncio.Event)
    rounds: int = 0
    waited_out: int = 0
    shoe: LiveShoe | None = None
    """Live tables: the dealer's shoe (the cards it deals, in order)."""

    def area(self, player: str) -> Any:
        """A standing area (the round cycle seats nobody: BAC-15's seats are for seated
        players)."""
        return standing(self.players.index(player) % STANDING + 1)


class LiveShoe:
    """A live table's physical shoe as its dealer sees it: eight decks in a seeded random
    order, the next card's place, and the commands a dealer sends for a new shoe (BAC-2.1: the
    cut, one card burnt per deck) and for each round's cards (the tableau's order, BAC-7/9)."""

    def __init__(self, seed: int) -> None:
        self.rnd = random.Random(seed)
        self.order: list[Card] = []
        self.at = 0

    def change(self) -> list[object]:
        """A new shoe: its commands (then the demonstration round, BAC-2.2: :meth:`deal`)."""
        self.order = list(new_shoe(8))
        self.rnd.shuffle(self.order)
        self.at = 0
        return [OpenShoe(), Cut(Cutter.DEALER, DEALER, CUT_POSITION), Burn((None,) * 8)]

    def deal(self) -> list[DealCard]:
        """The next round's cards from the shoe, in the order the tableau deals them."""
        cards = deal_round(self.order[self.at :]).cards_in_order
        self.at += len(cards)
        return [DealCard(c) for c in cards]


def set_up(url: str, clients: int, per_table: int, live: bool = False) -> list[Table]:
    """The casino, its tables, the players' users and wallets, the dealer (one transaction
    each; one password hash shared: argon2 is not what is measured)."""
    store = Store.open(url)
    try:
        store.upgrade()
        create_demo_casino(store)
        count = -(-clients // per_table)
        first = "bac-live" if live else "bac-1"  # the demonstration casino's table of that mode
        ids = [first, *(f"bench-{n:02d}" for n in range(2, count + 1))]
        names = [f"p{n:03d}" for n in range(1, clients + 1)]
        hashed = auth.hash_password(PASSWORD)

        def build(tx: Tx) -> None:
            for table_id in ids[1:]:
                tx.create_table(
                    table_id,
                    name=f"Bench {table_id}",
                    game="baccarat",
                    mode=TableMode.LIVE if live else TableMode.VIRTUAL,
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
    tables = [Table(t, names[i * per_table : (i + 1) * per_table]) for i, t in enumerate(ids)]
    if live:
        for n, table in enumerate(tables):
            table.shoe = LiveShoe(n)
    return tables


def issue_tokens(url: str, names: list[str]) -> dict[str, str]:
    """A bearer token for each of ``names``, stored as a sign-in stores it (the SHA-256 of its
    secret, ``users_ops.put_session``), in one transaction: 1,000 sign-ins through ``POST
    /api/auth/token`` would spend minutes in argon2, which is not what is measured (the
    endpoint is still used once, by the dealer)."""
    tokens = {name: secrets.token_urlsafe(32) for name in names}
    store = Store.open(url)
    try:

        def put(tx: Tx) -> None:
            now = tx.now()
            for name, secret in tokens.items():
                digest = hashlib.sha256(secret.encode()).hexdigest()
                users_ops.put_session(
                    tx, digest, name, "token", expires_at=now + timedelta(hours=2), now=now
                )

        store.run(put)
    finally:
        store.close()
    return tokens


# -- the server -----------------------------------------------------------------------------


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


def start_server(
    url: str, port: int, log: Path, clients: int, workers: int = 1, together: bool = False
) -> subprocess.Popen[bytes]:
    env = {
        **os.environ,
        "MACAU_TABLES_DEMO_USERS": "false",
        "MACAU_TABLES_MAX_WEBSOCKETS": str(max(1000, 2 * clients)),
        "MACAU_TABLES_SPREAD_OPENINGS": "false" if together else "true",
    }
    command = [str(VENV_BIN / "macau-tables"), "serve", "--database", url, "--port", str(port)]
    if workers > 1:
        command += ["--workers", str(workers)]
    with log.open("wb") as out:
        proc = subprocess.Popen(command, stdout=out, stderr=subprocess.STDOUT, env=env)
    deadline = time.monotonic() + 60
    seen: set[tuple[str, ...]] = set()  # the tables each ready answer named (each worker's)
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise SystemExit(f"the server exited ({proc.returncode}): see {log}")
        try:
            ready = httpx.get(f"http://127.0.0.1:{port}/readyz", timeout=1)
            if ready.status_code == 200:
                body = ready.json()
                seen.add(tuple(body["tables"]))
                everywhere = {t for tables in seen for t in tables} >= set(body["elsewhere"])
                if workers == 1 or (len(seen) >= workers and everywhere):
                    return proc  # with workers: each answered, every table is served
        except httpx.HTTPError:
            pass
        time.sleep(0.2)
    proc.kill()
    raise SystemExit(f"the server did not become ready: see {log}")


def family(pid: int) -> list[int]:
    """Process ``pid`` and its descendants (``serve --workers``: the workers) — Linux."""
    found = [pid]
    for children in Path(f"/proc/{pid}/task").glob("*/children"):
        try:
            found += [p for c in children.read_text().split() for p in family(int(c))]
        except OSError:
            continue
    return found


def cpu_seconds(pid: int) -> float:
    """User + system CPU time so far of process ``pid`` and its descendants (Linux ``/proc``;
    NaN elsewhere)."""
    total = 0.0
    for one in family(pid):
        try:
            fields = Path(f"/proc/{one}/stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            return float("nan")
        total += (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
    return total


def switches(pid: int) -> dict[str, int]:
    """Voluntary context switches so far of each live thread of process ``pid`` (by thread
    id) — each a thread that waited: for a lock, the interpreter, I/O, another thread's answer
    (Linux ``/proc``; nothing elsewhere)."""
    out: dict[str, int] = {}
    statuses = [s for one in family(pid) for s in Path(f"/proc/{one}/task").glob("*/status")]
    for status in statuses:
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
    spans: list[tuple[float, float]] = field(default_factory=list)
    """Each accepted bet's (sent, answered), ``time.perf_counter``: the busy time."""
    errors: Counter[str] = field(default_factory=Counter)
    think: float = 0.0
    messages: int = 0
    message_bytes: int = 0
    keys: int = 0
    server_cpu: float = 0.0
    server_switches: int = 0
    bets_over: str = "socket"
    measured_from: float = float("inf")
    """``time.perf_counter`` when the measured phase began: a bet sent before (while the other
    clients still connected) is not counted."""
    connected: int = 0
    all_connected: asyncio.Event = field(default_factory=asyncio.Event)
    clients: int = 0
    connect_seconds: float = 0.0

    def holds_first_view(self) -> None:
        """A client's socket is open and its first view read."""
        self.connected += 1
        if self.connected >= self.clients:
            self.all_connected.set()

    def counted(self, started: float, elapsed: float) -> None:
        """An accepted bet sent at ``started`` that took ``elapsed`` seconds, counted when it
        was sent in the measured phase."""
        if started >= self.measured_from:
            self.latencies.append(elapsed)
            self.spans.append((started, started + elapsed))

    def running(self) -> bool:
        return time.monotonic() < self.stop_at

    async def bet(self, ws: Any, table: str, who: str, command: object) -> tuple[bool, float]:
        """``command`` sent as ``--bets-over`` says: on the player's table socket (sent →
        its ``ack`` read; the views meanwhile are read as they come) or ``POST …/commands``."""
        if self.bets_over == "rest":
            return await self.post(table, who, command)
        self.keys += 1
        key = f"b{self.keys}"
        started = time.perf_counter()
        message = {"type": "command", "idempotency_key": key, "command": codec.encode(command)}
        await ws.send(json.dumps(message))
        while True:
            text = await ws.recv()
            self.messages += 1
            if f'"idempotency_key":"{key}"' not in text:
                continue  # a view: not parsed
            answer = json.loads(text)
            if answer.get("type") in ("ack", "refused") and answer["idempotency_key"] == key:
                break
        elapsed = time.perf_counter() - started
        if answer["type"] == "refused":
            self.errors[f"{answer['status']} {answer['error']['key']}"] += 1
            return False, elapsed
        self.counted(started, elapsed)
        return True, elapsed

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
        self.counted(started, elapsed)
        return True, elapsed

    async def command(self, table: str, command: object) -> str | None:
        """The dealer's ``command`` at a live table: ``None`` when accepted, else the refusal's
        key (counted as an error, but for a finished shoe: the dealer changes it)."""
        self.keys += 1
        try:
            response = await self.http.post(
                f"{self.base}/api/tables/{table}/commands",
                json={"idempotency_key": f"d{self.keys}", "command": codec.encode(command)},
                headers={"Authorization": f"Bearer {self.tokens[DEALER]}"},
            )
        except httpx.HTTPError as exc:
            self.errors[f"dealer transport {type(exc).__name__}"] += 1
            return "transport"
        if response.status_code == 200:
            return None
        try:
            key = str(response.json()["error"]["key"])
        except (ValueError, KeyError, TypeError):
            key = "?"
        if key != "shoe.finished":
            self.errors[f"dealer {response.status_code} {key}"] += 1
        return key


def busy_seconds(spans: list[tuple[float, float]]) -> float:
    """How long at least one bet was waiting for its answer (the union of the spans): over a
    burst, the time the server took to answer it."""
    total, end = 0.0, float("-inf")
    for a, b in sorted(spans):
        if b <= end:
            continue
        total += b - max(a, end)
        end = b
    return total


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


def too_late(cycle: dict[str, Any] | None, load: Load) -> bool:
    """Whether a round a player first sees (it connected while the round took bets: the
    tables' openings are spread) closes before the player's betting window, with a second to
    spare, could end: such a player waits for the next round, as a person coming to a table
    late in a countdown does, rather than bet after the close."""
    at = None if cycle is None or cycle.get("step") != "close" else cycle.get("at")
    if not isinstance(at, str):
        return False
    left = datetime.fromisoformat(at).timestamp() - time.time()
    return left < load.think + 1.0


async def player(load: Load, table: Table, name: str, rnd: random.Random) -> None:
    url = f"{load.base.replace('http', 'ws', 1)}/ws/tables/{table.table_id}"
    last_round: str | None = None
    first = True
    try:
        async with websockets.connect(f"{url}?token={load.tokens[name]}") as ws:
            while load.running():
                try:
                    text = await asyncio.wait_for(ws.recv(), timeout=1.0)
                except TimeoutError:
                    continue
                if first:
                    first = False
                    load.holds_first_view()
                load.messages += 1
                load.message_bytes += len(text)
                if '"phase":"betting"' not in text:
                    continue  # no round taking bets: not parsed (the load generator's own CPU)
                message = json.loads(text)
                # the shared section (streams.py, "v": 3; left out when unchanged): the public view
                shared = message.get("shared") if message.get("type") == "table" else None
                view = None if shared is None else shared.get("view")
                if view is None or view.get("phase") != "betting":
                    continue
                if shared["round_id"] == last_round:
                    continue
                if last_round is None and load.think and too_late(shared.get("cycle"), load):
                    continue  # came in late in its countdown: the window is not all there
                last_round = shared["round_id"]
                if name == table.players[0] and table.shoe is None:
                    table.rounds += 1  # a round the table's cycle opened (live: its dealer's)
                if not view.get("demo") and load.running():
                    if load.think:
                        await asyncio.sleep(rnd.uniform(0, load.think))
                    kind = WagerKind.BANKER if rnd.random() < 0.5 else WagerKind.PLAYER
                    wager = PlaceWager(name, table.area(name), kind, UNIT)
                    await load.bet(ws, table.table_id, name, wager)
                table.pending.discard(name)
                if not table.pending:
                    table.all_in.set()
    except websockets.ConnectionClosed as exc:
        if load.running():
            load.errors[f"socket closed {exc.rcvd.code if exc.rcvd else '-'}"] += 1
    except OSError as exc:
        load.errors[f"socket {type(exc).__name__}"] += 1


async def live_dealer(load: Load, table: Table, start: float) -> None:
    """A live table's dealer console: a new shoe (cut, burn, the demonstration round) when the
    table has none or it is finished; then, while the load runs, each round: open it, close the
    betting once every player of the table has been answered (at most the window + ``GRACE``),
    feed the round's cards from the shoe (the round settles with its last card), pause
    ``RESULT_PAUSE``. A round opened is finished even after the load's end."""
    shoe = table.shoe
    assert shoe is not None
    await asyncio.sleep(start)  # tables run independently: their rounds are not in step
    fresh = True
    while load.running():
        if fresh:
            for command in shoe.change():
                if await load.command(table.table_id, command) is not None:
                    return
            if await load.command(table.table_id, OpenRound()) is not None:
                return
            for card in shoe.deal():  # the demonstration round (BAC-2.2): cards, no wagers
                if await load.command(table.table_id, card) is not None:
                    return
            fresh = False
        table.pending = set(table.players)
        table.all_in = asyncio.Event()
        refused = await load.command(table.table_id, OpenRound())
        if refused == "shoe.finished":
            fresh = True
            continue
        if refused is not None:
            return
        table.rounds += 1
        # once the load has stopped, the players still thinking bet within the window; the
        # others have stopped reading their sockets: not waited for
        after_stop = max(0.0, load.stop_at - time.monotonic()) + load.think + 1.0
        try:
            await asyncio.wait_for(table.all_in.wait(), timeout=min(load.think + GRACE, after_stop))
        except TimeoutError:
            if load.running():
                table.waited_out += 1
        if await load.command(table.table_id, CloseBetting()) is not None:
            return
        for card in shoe.deal():
            if await load.command(table.table_id, card) is not None:
                return
        await asyncio.sleep(RESULT_PAUSE if load.running() else 0)


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
    issued: dict[str, str],
    profile: str | None = None,
    bets_over: str = "socket",
) -> tuple[Load, float]:
    base = f"http://127.0.0.1:{port}"
    clients = sum(len(t.players) for t in tables)
    # idle connections closed before uvicorn closes them (5 s), so none is reused as it closes
    limits = httpx.Limits(max_connections=clients + len(tables) + 8, keepalive_expiry=2.0)
    async with httpx.AsyncClient(limits=limits, timeout=30) as http:
        tokens = {**issued, **(await sign_in(base, http, [DEALER]))}
        load = Load(base, http, tokens, stop_at=float("inf"), think=think, bets_over=bets_over)
        load.clients = clients
        rnd = random.Random(2026)
        connecting = time.monotonic()
        players = [
            asyncio.create_task(player(load, t, p, random.Random(rnd.random())))
            for t in tables
            for p in t.players
        ]
        # The measured phase begins once every socket is connected and holds its first view
        # (1,000 connect in several seconds; a client that does not within the bound is
        # measured anyway and its missing bets show), and a second more.
        try:
            await asyncio.wait_for(load.all_connected.wait(), timeout=CONNECT_SECONDS)
        except TimeoutError:
            print(f"warning: {load.connected} of {clients} clients connected", file=sys.stderr)
        load.connect_seconds = time.monotonic() - connecting
        await asyncio.sleep(1.0)
        # The load generator's own cyclic garbage collector is off while it measures (as
        # ``timeit`` does): its pauses, 10-300 ms with 1,000 clients' objects, would be counted
        # as the server's latency. What the connections made is frozen first.
        gc.collect()
        gc.freeze()
        gc.disable()
        spy = None if profile is None else start_profile(pid, seconds, profile)
        started, cpu, switched = time.monotonic(), cpu_seconds(pid), switches(pid)
        load.measured_from = time.perf_counter()
        load.stop_at = started + seconds
        # virtual tables cycle by themselves; a live table's dealer opens, closes and deals
        # (its first round at a random moment of the first window; the burst: all at once)
        dealers = [
            asyncio.create_task(live_dealer(load, t, rnd.uniform(0, think)))
            for t in tables
            if t.shoe is not None
        ]
        await asyncio.sleep(seconds)
        elapsed = time.monotonic() - started
        load.server_cpu = cpu_seconds(pid) - cpu
        load.server_switches = switches_since(switched, switches(pid))
        gc.enable()
        if spy is not None:
            await asyncio.to_thread(spy.wait)
        await asyncio.gather(*players, *dealers)
    return load, elapsed


def server_side(log: Path) -> list[float]:
    """The players' bets as the server timed them: the request log's ``ms`` of each ``POST
    …/commands`` not sent by the dealer (from the ASGI app's start to its answer) or socket
    command (``WS-COMMAND``: from the message read to its answer queued)."""
    found: list[float] = []
    for line in log.read_text(encoding="utf-8", errors="replace").splitlines():
        if "/commands" not in line and "WS-COMMAND" not in line:
            continue
        try:
            record = json.loads(line)
        except ValueError:
            continue
        posted = record.get("method") == "POST" and str(record.get("path", "")).endswith(
            "/commands"
        )
        if (
            (posted or record.get("method") == "WS-COMMAND")
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
                if table.shoe is not None:  # live: the dealer's open (a new shoe if needed)
                    live_open(svc, table.shoe, f"{n}")
                    demo = False
                else:
                    opened = svc.state.rounds
                    while svc.state.rounds == opened:  # the cycle's opening, run at once
                        if svc.cycle_step() is None and not svc.wake(table.players[0]):
                            # (an idle table — its rounds went by without a bet — is woken
                            # as a player opening its page wakes it)
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
                if table.shoe is not None:  # live: the dealer's close and the round's cards
                    steps: list[object] = [CloseBetting(), *table.shoe.deal()]
                    for step, command in enumerate(steps):
                        svc.submit(command, idempotency_key=f"d{n}.{step}", actor=DEALER)
                else:
                    svc.cycle_step()  # the cycle's close: dealt and settled
    finally:
        for svc in services:
            svc.close()
        store.close()
    return done, spent


def live_open(svc: TableService, shoe: LiveShoe, key: str) -> None:
    """In process, a live table's dealer opens a round; a finished shoe (or none) is changed
    first (cut, burn, the demonstration round), as :func:`live_dealer` does."""
    from macau_tables.errors import MacauTablesError

    try:
        svc.submit(OpenRound(), idempotency_key=f"o{key}", actor=DEALER)
        return
    except MacauTablesError as exc:
        if exc.key != "shoe.finished" and "shoe" not in exc.key:
            raise
    steps = [*shoe.change(), OpenRound(), *shoe.deal(), OpenRound()]
    for step, command in enumerate(steps):
        svc.submit(command, idempotency_key=f"s{key}.{step}", actor=DEALER)


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


def client_loop_run(main: Any) -> Any:
    """``asyncio.run(main)`` on uvloop when it is installed (as the server's uvicorn runs): the
    load generator's clients read every view the server pushes to their sockets (about ten a
    bet) on the same two cores as the server, and an ack waits in their loop behind them; the
    cheaper that loop, the less the generator takes from the server and adds to a bet's
    measured time."""
    try:
        import uvloop
    except ImportError:
        return asyncio.run(main)
    return uvloop.run(main)


def percentile(values: list[float], q: float) -> float:
    if not values:
        return float("nan")
    return statistics.quantiles(values, n=100, method="inclusive")[int(q) - 1]


def raise_open_files(wanted: int = NOFILE) -> int:
    """Raise this process's soft limit of open files towards ``wanted`` (at most the hard
    limit); the server started afterwards inherits it. Returns the limit now in force."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    target = wanted if hard == resource.RLIM_INFINITY else min(wanted, hard)
    if soft != resource.RLIM_INFINITY and soft < target:
        resource.setrlimit(resource.RLIMIT_NOFILE, (target, hard))
        soft = target
    return int(soft)


def verdicts(
    scenario: Scenario, clients: int, p99: float, errors: int, ratio: float
) -> list[tuple[str, bool]]:
    """The scenario's goal, one check at a time: (what, met)."""
    checks = [
        (f"{scenario.clients} clients (ran {clients})", clients >= scenario.clients),
        (f"p99 {p99:.1f} ms < {scenario.p99_ms:g} ms", p99 < scenario.p99_ms),
        (f"errors {errors} = 0", errors == 0),
    ]
    if scenario.min_ratio is not None:
        checks.append(
            (
                f"HTTP rate while bets waited / in-process (grouped) rate {ratio:.3f} >= "
                f"{scenario.min_ratio:g}",
                ratio >= scenario.min_ratio,
            )
        )
    return checks


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "--scenario",
        choices=sorted(SCENARIOS),
        default="window",
        help="the numbers and the goal: window (200 clients, 10 s window, p99 < 50 ms), "
        "burst (200 clients, --think-ms 0, p99 < 250 ms, HTTP >= 0.5 of in process), "
        "thousand (1,000 clients on 100 tables, 10 s window, p99 < 50 ms); the options below "
        "override its numbers",
    )
    parser.add_argument("--clients", type=int, default=None)
    parser.add_argument("--per-table", type=int, default=None)
    parser.add_argument("--seconds", type=float, default=60.0)
    parser.add_argument(
        "--think-ms",
        type=float,
        default=None,
        help="the betting window: each player bets once per round at a uniformly random "
        "moment 0..THINK ms after it sees the round open (default: the scenario's); 0: every "
        "player bets the instant its round opens (the burst)",
    )
    parser.add_argument(
        "--tables",
        choices=("virtual", "live"),
        default="virtual",
        help="virtual: the tables cycle by themselves (default); live: a dealer client per "
        "table opens each round, closes the betting and feeds the shoe's cards",
    )
    parser.add_argument("--backend", choices=("sqlite", "postgresql"), default="sqlite")
    parser.add_argument("--workdir", default=None)
    parser.add_argument("--json", default=None)
    parser.add_argument("--profile", default=None, help="py-spy's collapsed stacks to PATH")
    parser.add_argument("--workers", type=int, default=1, help="serve --workers N (PostgreSQL)")
    parser.add_argument(
        "--openings",
        choices=("spread", "together"),
        default=None,
        help="virtual tables: their first openings spread over a round's cycle, as the server "
        "does by default (spread_openings), or all at one instant (together: every table's "
        "rounds open, close and settle at the same moments); default: the scenario's (the "
        "burst: together)",
    )
    parser.add_argument(
        "--no-in-process",
        action="store_true",
        help="skip the in-process reference (its rates and ratios are then missing; the "
        "thousand's goal does not use them)",
    )
    parser.add_argument(
        "--spans",
        default=None,
        help="write each accepted bet's send time (seconds from the first bet) and latency "
        "(ms) to PATH, one 'sent ms' line each: when the slow bets happened",
    )
    parser.add_argument(
        "--bets-over",
        choices=("socket", "rest"),
        default="socket",
        help="how a player sends a bet: a command message on its table socket (default) or "
        "POST /api/tables/{id}/commands",
    )
    args = parser.parse_args()
    scenario = SCENARIOS[args.scenario]
    clients = scenario.clients if args.clients is None else args.clients
    per_table = scenario.per_table if args.per_table is None else args.per_table
    think_ms = scenario.think_ms if args.think_ms is None else args.think_ms
    live = args.tables == "live"
    together = scenario.together if args.openings is None else args.openings == "together"
    if not 1 <= clients <= 1000 or not 1 <= per_table <= 11:
        parser.error("--clients 1..1000, --per-table 1..11 (a table's players)")
    if not 1 <= args.seconds <= 600:
        parser.error("--seconds 1..600")
    files = raise_open_files()
    if files < 2 * clients + 64:
        print(f"# warning: {files} open files allowed; {clients} clients need about {2 * clients}")
    load_before = os.getloadavg()
    print(f"# server under load: {machine()}")
    with scratch_url(args.backend, workdir=args.workdir) as url:
        tables = set_up(url, clients, per_table, live=live)
        issued = issue_tokens(url, [p for t in tables for p in t.players])
        log = Path(tempfile.mkdtemp(prefix="mt-serve-")) / "serve.log"
        port = free_port()
        proc = start_server(url, port, log, clients, args.workers, together)
        try:
            load, elapsed = client_loop_run(
                run_load(
                    port,
                    proc.pid,
                    tables,
                    args.seconds,
                    think_ms / 1000,
                    issued,
                    args.profile,
                    args.bets_over,
                )
            )
        finally:
            stop_server(proc)
        served = server_side(log)
        accepted = len(load.latencies)
        http_rate = accepted / elapsed
        busy = busy_seconds(load.spans)
        busy_rate = accepted / busy if busy else float("nan")
        try:
            bets, spent = (
                (0, 0.0) if args.no_in_process else in_process(url, tables, accepted, args.seconds)
            )
        except Exception as exc:  # the figures over HTTP still stand; the ratio is missing
            print(f"# in process: {exc!r}")
            bets, spent = 0, 0.0
        local_rate = bets / spent if spent else float("nan")
        g_bets, g_spent, g_commits = (
            (0, 0.0, 0)
            if live or args.no_in_process
            else in_process_grouped(url, tables, accepted, args.seconds)
        )
        grouped_rate = g_bets / g_spent if g_spent else float("nan")
    load_after = os.getloadavg()
    p50 = percentile(load.latencies, 50) * 1000
    p99 = percentile(load.latencies, 99) * 1000
    rounds = sum(t.rounds for t in tables)
    waited = sum(t.waited_out for t in tables)
    ratio = http_rate / local_rate if local_rate else float("nan")
    busy_ratio = busy_rate / local_rate if local_rate else float("nan")
    # The burst's ratio goal is against the in-process rate on the same (grouped) path: the
    # bets of a round sent at once, committed together; a live table's (dealer-paced) serial.
    grouped_ratio = busy_rate / grouped_rate if grouped_rate == grouped_rate else busy_ratio
    errors = sum(load.errors.values())
    checks = verdicts(scenario, clients, p99, errors, grouped_ratio)
    met = all(ok for _, ok in checks)
    result = {
        "scenario": args.scenario,
        "tables_mode": args.tables,
        "backend": args.backend,
        "workers": args.workers,
        "clients": clients,
        "think_ms": think_ms,
        "bets_over": args.bets_over,
        "openings": "together" if together else "spread",
        "tables": len(tables),
        "seconds": round(elapsed, 1),
        "connect_seconds": round(load.connect_seconds, 1),
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
        "message_bytes_received": load.message_bytes,
        "messages_per_bet": round(load.messages / accepted, 2) if accepted else None,
        "message_bytes_per_bet": round(load.message_bytes / accepted) if accepted else None,
        "server_cpu_seconds": round(load.server_cpu, 1),
        "server_cpu_ms_per_bet": round(1000 * load.server_cpu / accepted, 2) if accepted else None,
        "server_switches_per_bet": round(load.server_switches / accepted, 1) if accepted else None,
        "in_process_bets": bets,
        "in_process_bets_per_second": round(local_rate, 1),
        "ratio_http_to_in_process": round(ratio, 3) if local_rate else None,
        "busy_seconds": round(busy, 2),
        "bets_per_busy_second": round(busy_rate, 1),
        "ratio_busy_http_to_in_process": round(busy_ratio, 3) if local_rate else None,
        "open_files_limit": files,
        "goal": {what: ok for what, ok in checks},
        "goal_met": met,
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
    arrivals = f"bets over a {think_ms / 1000:g} s window" if think_ms else "burst (--think-ms 0)"
    print(
        f"{args.backend}, {args.tables} tables, {arrivals}: {clients} clients on "
        f"{len(tables)} tables, {elapsed:.1f} s, {rounds} rounds: "
        f"{http_rate:.0f} bets/s over HTTP (p50 {p50:.1f} ms, p99 {p99:.1f} ms, "
        f"errors {errors}), {local_rate:.0f} bets/s in process, "
        f"ratio {ratio:.3f} (while bets waited, {busy:.1f} s: {busy_rate:.0f} bets/s, "
        f"ratio {busy_ratio:.3f}); {grouped_rate:.0f} bets/s in process grouped "
        f"({g_bets} bets in {g_commits} transactions, ratio while bets waited "
        f"{grouped_ratio:.3f}); server CPU {result['server_cpu_ms_per_bet']} ms "
        f"and {result['server_switches_per_bet']} context switches a bet"
    )
    for what, ok in checks:
        print(f"  goal ({args.scenario}): {what}: {'met' if ok else 'MISSED'}")
    print(f"goal ({args.scenario}): {'met' if met else 'MISSED'}")
    if args.json:
        Path(args.json).write_text(json.dumps(result, indent=2) + "\n", encoding="utf-8")
    if args.spans and load.spans:
        first = min(a for a, _ in load.spans)
        lines = (f"{a - first:.3f} {1000 * (b - a):.1f}" for a, b in sorted(load.spans))
        head = f"# first bet sent at time.perf_counter() = {first:.3f} (the monotonic clock)"
        Path(args.spans).write_text("\n".join([head, *lines]) + "\n", encoding="utf-8")
    return 0 if met else 1


if __name__ == "__main__":
    sys.exit(main())
