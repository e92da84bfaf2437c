"""``serve --workers 2`` (issue 21, "Serve on both cores"): two worker processes on one port and
one scratch PostgreSQL database, the tables spread between them by lease.

* Each worker holds some tables; a REST command (a supervisor closes and opens the table,
  audited) and a socket's view for EVERY table succeed at EITHER worker — reached through its
  own private socket, so each worker is asked for the tables the other holds, and through the
  shared port on several connections — never a 409 for a table the other worker holds: the
  request or socket is forwarded to the holder, the view of the close comes back through it.
* A worker killed: the other takes its tables once their lease ran out, and serves them all.
* SQLite with ``--workers 2`` is refused, naming why.

PostgreSQL only (the SQLite case aside); skipped without it, failed under
``MACAU_TABLES_REQUIRE_ALL=1``. Real subprocesses on loopback; every wait is bounded, polled on
the store or the servers; no timing is asserted.
"""

from __future__ import annotations

import json
import os
import signal
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from tests.server.serving import HTTP_SECONDS, TLS, WAIT_SECONDS, Server, wait_for
from typer.testing import CliRunner
from websockets.sync.client import ClientConnection, connect, unix_connect

from macau_tables.cli.app import app
from macau_tables.server.workers import address_of
from macau_tables.store import Store

FAST = {"MACAU_TABLES_LEASE_SECONDS": "5", "MACAU_TABLES_TICK_SECONDS": "0.1"}
"""A short lease (renewed every ~2.5 s by the tick) so that a take-over comes within seconds,
long enough that a busy machine does not let a live holder's lease run out."""
TABLES = ("bac-1", "bac-live", "bac-squeeze", "csp-1")


def _owners(url: str) -> dict[str, str | None]:
    store = Store.open(url)
    try:
        return {t.table_id: t.lease_owner for t in store.read(lambda tx: tx.tables())}
    finally:
        store.close()


def _spread(url: str) -> dict[str, str] | None:
    """``{table: private socket path}`` once every table is held by a worker and both workers
    hold some; else ``None``."""
    owners = _owners(url)
    paths = {t: None if o is None else address_of(o) for t, o in owners.items()}
    if sorted(paths) != list(TABLES) or any(p is None for p in paths.values()):
        return None
    if len(set(paths.values())) != 2:
        return None
    return {t: str(p) for t, p in paths.items()}


def _pid(owner: str) -> int:
    return int(owner.split(":")[1])


@pytest.fixture
def group(pg_module_database: str, tmp_path: Path) -> Iterator[tuple[Server, str]]:
    """``serve --workers 2`` on the module's scratch database (fresh: one test uses it),
    both workers holding tables."""
    url = pg_module_database
    with Server(
        tmp_path, url, args=("--workers", "2"), env=FAST, name="workers", cheap_hashes=True
    ) as server:
        server.wait_healthy()
        wait_for("both workers hold tables", lambda: _spread(url))
        yield server, url


def _token(server: Server, name: str, password: str) -> str:
    signed = server.post("/api/auth/token", json={"name": name, "password": password})
    assert signed.status_code == 200, signed.text
    return str(signed.json()["token"])


def _set_status(
    client: httpx.Client, base: str, table: str, token: str, action: str, n: int
) -> None:
    answer = client.post(
        f"{base}/api/tables/{table}/{action}",
        headers={"Authorization": f"Bearer {token}"},
        json={"reason": f"test_workers {action} {n}"},
    )
    assert answer.status_code == 200, (table, answer.status_code, answer.text)
    assert answer.json() == {
        "table_id": table,
        "status": "open" if action == "open" else "closed",
    }


def _view(ws: ClientConnection, table: str, status: str | None = None) -> dict[str, Any]:
    """The shared part of the next ``table`` message of ``table`` (with ``status``, when
    given), with the table's id."""
    while True:
        message = json.loads(ws.recv(timeout=WAIT_SECONDS))
        assert message["type"] != "error", message
        # version 3: the table's shared part (docs/server.md), when it changed, holds its status
        ours = message["type"] == "table" and message["table_id"] == table and "shared" in message
        if ours and (status is None or message["shared"]["status"] == status):
            return {**message["shared"], "table_id": message["table_id"]}


def _at_worker(path: str) -> httpx.Client:
    """A client talking to one worker through its private socket (no secret: an ordinary
    request, forwarded as any request landing there)."""
    return httpx.Client(transport=httpx.HTTPTransport(uds=path, verify=TLS), timeout=HTTP_SECONDS)


def test_every_table_answers_at_either_worker_and_a_killed_workers_tables_move(
    group: tuple[Server, str],
) -> None:
    server, url = group
    credentials = server.credentials()
    token = _token(server, "supervisor", credentials["supervisor"])
    held = _spread(url)
    assert held is not None
    workers = sorted(set(held.values()))
    assert len(workers) == 2  # both hold some tables

    n = 0
    # Each worker, asked directly, serves every table: its own, and the other's by forwarding.
    for path in workers:
        with _at_worker(path) as client:
            for table in TABLES:
                uri = f"ws://127.0.0.1:{server.port}/ws/tables/{table}?token={token}"
                with unix_connect(path, uri, open_timeout=WAIT_SECONDS) as ws:
                    assert _view(ws, table)["table_id"] == table  # the view at once
                    n += 1
                    _set_status(client, "http://worker", table, token, "close", n)
                    assert _view(ws, table, "closed")["status"] == "closed"
                    _set_status(client, "http://worker", table, token, "open", n)
                    assert _view(ws, table, "open")["status"] == "open"
                read = client.get(f"http://worker/api/tables/{table}")
                assert read.status_code == 200, read.text
                assert read.json()["table_id"] == table

    # Through the shared port, on several fresh connections: whichever worker takes each.
    for _ in range(4):
        for table in TABLES:
            with httpx.Client(timeout=HTTP_SECONDS, verify=TLS) as client:
                n += 1
                _set_status(client, server.url, table, token, "close", n)
                _set_status(client, server.url, table, token, "open", n)
            ws_url = server.url.replace("http", "ws") + f"/ws/tables/{table}"
            with connect(ws_url, subprotocols=["bearer", token], open_timeout=WAIT_SECONDS) as ws:
                assert ws.subprotocol == "bearer"
                assert _view(ws, table)["status"] == "open"

    # A worker killed: the other takes its tables once their lease ran out, and serves them.
    owners = _owners(url)
    victim = owners[TABLES[0]]
    assert victim is not None
    survivor = next(o for o in owners.values() if o is not None and o != victim)
    os.kill(_pid(victim), signal.SIGKILL)
    wait_for(
        "the surviving worker holds every table",
        lambda: set(_owners(url).values()) == {survivor},
    )
    for table in TABLES:
        with httpx.Client(timeout=HTTP_SECONDS, verify=TLS) as client:
            n += 1
            _set_status(client, server.url, table, token, "close", n)
            _set_status(client, server.url, table, token, "open", n)
    assert server.stop(signal.SIGTERM) == 1  # a worker had died: the group says so
    assert set(_owners(url).values()) == {None}  # the survivor released every table


def test_sqlite_with_several_workers_is_refused_naming_why(tmp_path: Path) -> None:
    result = CliRunner().invoke(
        app,
        ["serve", "--workers", "2", "--database", f"sqlite:///{tmp_path / 'casino.db'}"],
    )
    assert result.exit_code == 2, result.output
    assert "--workers 2 needs PostgreSQL" in result.output
    assert "one writer" in result.output and "Traceback" not in result.output
    assert not (tmp_path / "casino.db").exists()  # nothing created
