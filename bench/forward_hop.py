"""Benchmark: the cost of ``serve --workers``'s extra hop — a request or socket for a table
another worker holds, forwarded to it (issue 21, "Serve on both cores").

Usage::

    .venv/bin/python bench/forward_hop.py [--requests 1000] [--events 100]

On a scratch PostgreSQL database (``bench/service_db.scratch_url``), ``macau-tables serve
--workers 2`` as shipped; once both workers hold tables, table ``T`` is one worker A holds. Each
worker is reached through its own private socket (no secret: an ordinary request, as any that
lands on it through the shared port):

1. **HTTP** — ``GET /api/tables/T`` (public) ``--requests`` times at A (served there: the
   reference) then as many times at the other worker B (forwarded to A), one at a time on one
   kept-alive connection: the latency of each (p50, p99) and the CPU time of both workers per
   request, in each phase.
2. **WebSocket** — one socket on T at A, one at B (relayed from A), each read by its own
   thread; a supervisor closes and opens T ``--events`` times each (at A): for each change, the
   time from the command's sending to the view's arrival on each socket (p50, p99): B's minus
   A's is the relay's.

Prints both phases and the ratios forwarded / direct. No goal: the figures say what one hop
costs (docs/server.md, "Several workers"; docs/benchmarks.md).
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import re
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

import httpx
from websockets.sync.client import ClientConnection, unix_connect

from macau_tables.errors import MacauTablesError
from macau_tables.server.workers import address_of
from macau_tables.store import Store
from server_load import cpu_seconds
from service_db import machine, scratch_url

VENV_BIN = Path(sys.executable).parent


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


def owners(url: str) -> dict[str, str | None]:
    store = Store.open(url)
    try:
        return {t.table_id: t.lease_owner for t in store.read(lambda tx: tx.tables())}
    finally:
        store.close()


def spread(url: str, deadline: float) -> dict[str, str]:
    """``{table: private socket}`` once both workers hold tables (bounded wait)."""
    while time.monotonic() < deadline:
        try:
            found = owners(url)
        except MacauTablesError:  # serve has not made the schema yet
            found = {}
        paths = {t: address_of(o) if o else None for t, o in found.items()}
        if paths and all(paths.values()) and len(set(paths.values())) == 2:
            return {t: str(p) for t, p in paths.items()}
        time.sleep(0.2)
    raise SystemExit("the workers did not take their tables")


def pct(values: list[float], q: int) -> float:
    return statistics.quantiles(values, n=100, method="inclusive")[q - 1] * 1000


def http_phase(path: str, table: str, requests: int, pid: int) -> dict[str, float]:
    with httpx.Client(transport=httpx.HTTPTransport(uds=path), timeout=30) as client:
        for _ in range(50):  # warm-up: connections, caches
            client.get(f"http://worker/api/tables/{table}").raise_for_status()
        times: list[float] = []
        cpu = cpu_seconds(pid)
        for _ in range(requests):
            started = time.perf_counter()
            client.get(f"http://worker/api/tables/{table}").raise_for_status()
            times.append(time.perf_counter() - started)
        spent = cpu_seconds(pid) - cpu
    return {
        "p50_ms": round(pct(times, 50), 3),
        "p99_ms": round(pct(times, 99), 3),
        "cpu_ms_per_request": round(1000 * spent / requests, 3),
    }


class Arrivals:
    """A thread receiving one socket's messages, noting when each table status arrived."""

    def __init__(self, ws: ClientConnection) -> None:
        self.ws = ws
        self.seen: list[tuple[float, str]] = []
        self.changed = threading.Condition()
        self.thread = threading.Thread(target=self._run, daemon=True)
        self.thread.start()

    def _run(self) -> None:
        with contextlib.suppress(Exception):
            for text in self.ws:
                message = json.loads(text)
                if message.get("type") == "table":
                    with self.changed:
                        self.seen.append((time.perf_counter(), message["status"]))
                        self.changed.notify_all()

    def after(self, since: float, status: str) -> float:
        """When ``status`` first arrived after ``since`` (bounded wait)."""
        with self.changed:
            while True:
                for at, seen in self.seen:
                    if at >= since and seen == status:
                        return at - since
                if not self.changed.wait(timeout=30):
                    raise SystemExit(f"no view with status {status} came")


def ws_phase(
    paths: tuple[str, str], table: str, port: int, token: str, events: int
) -> dict[str, float]:
    uri = f"ws://127.0.0.1:{port}/ws/tables/{table}"
    direct, relayed = (unix_connect(p, uri, open_timeout=30) for p in paths)
    at: dict[str, list[float]] = {"direct": [], "relayed": []}
    with (
        direct,
        relayed,
        httpx.Client(transport=httpx.HTTPTransport(uds=paths[0]), timeout=30) as client,
    ):
        for ws in (direct, relayed):
            json.loads(ws.recv(timeout=30))  # the view at once
        arrivals = {"direct": Arrivals(direct), "relayed": Arrivals(relayed)}
        for n in range(events):
            for action, status in (("close", "closed"), ("open", "open")):
                sent = time.perf_counter()
                answer = client.post(
                    f"http://worker/api/tables/{table}/{action}",
                    headers={"Authorization": f"Bearer {token}"},
                    json={"reason": f"forward_hop {n}"},
                )
                answer.raise_for_status()
                for side, seen in arrivals.items():
                    at[side].append(seen.after(sent, status))
    return {
        f"{side}_{q}_ms": round(pct(values, int(q[1:])), 3)
        for side, values in at.items()
        for q in ("p50", "p99")
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--requests", type=int, default=1000)
    parser.add_argument("--events", type=int, default=100)
    args = parser.parse_args()
    print(f"# forward hop: {machine()}; load average {os.getloadavg()}")
    with scratch_url("postgresql") as url:
        log = Path(tempfile.mkdtemp(prefix="mt-hop-")) / "serve.log"
        port = free_port()
        command = [str(VENV_BIN / "macau-tables"), "serve", "--database", url]
        command += ["--port", str(port), "--workers", "2"]
        env = {**os.environ, "MACAU_TABLES_LOG_REQUESTS": "false"}
        with log.open("wb") as out:
            proc = subprocess.Popen(command, stdout=out, stderr=subprocess.STDOUT, env=env)
        try:
            held = spread(url, time.monotonic() + 90)
            table = "bac-live"  # a dealer-driven table: no round cycle moves it meanwhile
            here = held[table]
            there = next(p for p in set(held.values()) if p != here)
            pids = {str(p): int(str(o).split(":")[1]) for o, p in _paths(url).items()}
            password = re.search(r"supervisor\s+supervisor\s+(\S+)", log.read_text())
            if password is None:
                raise SystemExit(f"no supervisor credentials printed: see {log}")
            signed = httpx.post(
                f"http://127.0.0.1:{port}/api/auth/token",
                json={"name": "supervisor", "password": password.group(1)},
            )
            token = signed.json()["token"]
            direct = http_phase(here, table, args.requests, proc.pid)
            forwarded = http_phase(there, table, args.requests, proc.pid)
            sockets = ws_phase((here, there), table, port, token, args.events)
        finally:
            proc.send_signal(signal.SIGINT)
            proc.wait(timeout=60)
    result: dict[str, Any] = {
        "table": table,
        "workers": {p: pid for p, pid in pids.items()},
        "http_direct": direct,
        "http_forwarded": forwarded,
        "http_p50_ratio": round(forwarded["p50_ms"] / direct["p50_ms"], 2),
        "http_cpu_ratio": round(forwarded["cpu_ms_per_request"] / direct["cpu_ms_per_request"], 2),
        "websocket": sockets,
        "load_average_after": [round(x, 2) for x in os.getloadavg()],
    }
    print(json.dumps(result, indent=2))
    print(
        f"GET /api/tables/{table}: direct p50 {direct['p50_ms']} ms, forwarded p50 "
        f"{forwarded['p50_ms']} ms (x{result['http_p50_ratio']}); server CPU "
        f"{direct['cpu_ms_per_request']} -> {forwarded['cpu_ms_per_request']} ms a request "
        f"(x{result['http_cpu_ratio']}); a view after a command: direct p50 "
        f"{sockets['direct_p50_ms']} ms, relayed p50 {sockets['relayed_p50_ms']} ms"
    )
    return 0


def _paths(url: str) -> dict[str, str]:
    return {str(o): str(address_of(o)) for o in owners(url).values() if o}


if __name__ == "__main__":
    sys.exit(main())
