"""Requests at once under one idempotency key (docs/server.md "Idempotency"): every identical
request gets the first one's answer, a different one ``tables.idempotency_mismatch`` — never
``store.idempotency_exists`` — with the work done once. Real threads released together by a
barrier (bounded waits, no sleeps), on SQLite and PostgreSQL."""

from __future__ import annotations

import threading
import uuid
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import pytest
from fastapi.testclient import TestClient
from tests.server.support import login

from macau_tables.server.runtime import Runtime
from macau_tables.store import ChainHead, IdempotencyRecord, Tx

PARALLEL = 20
WAIT = 30.0  # seconds: the most a barrier waits (a test that hangs fails instead)

PAUSE = {"type": "tables.PauseCycle", "supervisor": "supervisor", "reason": "screen check"}
"""A command every table takes once (a virtual table's round cycle opens its rounds itself)."""


@pytest.fixture
def served_tables() -> tuple[str, ...]:
    """The tables these tests use (the others need no loading at each start)."""
    return ("bac-1", "csp-1")


def _at_once(send: Callable[[int], Any], n: int = PARALLEL) -> list[Any]:
    """``send(i)`` for ``i`` in ``range(n)``, each in its thread, released together."""
    barrier = threading.Barrier(n, timeout=WAIT)

    def run(i: int) -> Any:
        barrier.wait()
        return send(i)

    with ThreadPoolExecutor(n) as pool:
        return list(pool.map(run, range(n), timeout=4 * WAIT))


def _keys(answers: list[Any]) -> list[tuple[int, str | None]]:
    return [(a.status_code, a.json().get("error", {}).get("key")) for a in answers]


def _events(runtime: Runtime, table_id: str) -> int:
    return runtime.store.read(lambda tx: tx.chain_head(table_id).seq)


def test_twenty_identical_commands_at_once_get_the_first_answer(
    client: TestClient, runtime: Runtime
) -> None:
    supervisor = login(client, "supervisor")
    before = _events(runtime, "bac-1")
    body = {"idempotency_key": "pause-1", "command": PAUSE}
    answers = _at_once(
        lambda _: client.post("/api/tables/bac-1/commands", json=body, headers=supervisor)
    )
    assert _keys(answers) == [(200, None)] * PARALLEL
    assert len({a.text for a in answers}) == 1
    done = answers[0].json()
    assert done["first_seq"] == before + 1
    assert _events(runtime, "bac-1") == done["last_seq"]  # paused once
    other = {"idempotency_key": "pause-1", "command": {**PAUSE, "reason": "another"}}
    refused = client.post("/api/tables/bac-1/commands", json=other, headers=supervisor)
    assert _keys([refused]) == [(409, "tables.idempotency_mismatch")]


def test_twenty_identical_deposits_at_once_get_the_first_answer(
    client: TestClient, runtime: Runtime
) -> None:
    admin = login(client, "admin")
    balance = runtime.store.read(lambda tx: tx.wallet_balance("alice"))
    key = uuid.uuid4().hex
    body = {"player": "alice", "amount": 500, "reason": "at the cage", "idempotency_key": key}
    answers = _at_once(lambda _: client.post("/api/cashier/deposit", json=body, headers=admin))
    assert _keys(answers) == [(200, None)] * PARALLEL
    assert len({a.text for a in answers}) == 1
    assert runtime.store.read(lambda tx: tx.wallet_balance("alice")) == balance + 500


def test_twenty_identical_configuration_changes_at_once_get_the_first_answer(
    client: TestClient, runtime: Runtime
) -> None:
    admin, supervisor = login(client, "admin"), login(client, "supervisor")
    close = client.post("/api/tables/csp-1/close", json={"reason": "paytable"}, headers=supervisor)
    assert close.status_code == 200, close.text
    body = {
        "changes": {"royal_flush_odds": 80},
        "reason": "new paytable",
        "idempotency_key": uuid.uuid4().hex,
    }
    answers = _at_once(
        lambda _: client.post("/api/admin/tables/csp-1/config", json=body, headers=admin)
    )
    assert _keys(answers) == [(200, None)] * PARALLEL
    assert len({a.text for a in answers}) == 1


def test_one_key_racing_at_two_tables_is_the_first_answer_or_a_mismatch(
    client: TestClient, runtime: Runtime, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Twenty requests under one key, ten at each of two tables (each table's service takes
    them one at a time, the two tables at once): the first request at each table reads no
    record under the key, and they wait for each other there before writing theirs, so both
    write — one commits first. Every request at its table gets its answer; every one at the
    other table, a different request under the key, ``tables.idempotency_mismatch``. (SQLite
    has one writer at a time: the two cannot overlap, and do not wait for each other.)"""
    key = f"api:supervisor:{uuid.uuid4().hex}"
    parties = 2 if runtime.store.dialect == "postgresql" else 1
    barrier = threading.Barrier(parties, timeout=WAIT)
    waited: set[str] = set()
    lock = threading.Lock()
    real = Tx.request_start

    def request_start(
        tx: Tx, table_id: str, asked: str
    ) -> tuple[ChainHead, IdempotencyRecord | None]:
        found = real(tx, table_id, asked)
        with lock:
            first = asked == key and table_id not in waited
            waited.add(table_id)
        if first:
            barrier.wait()  # both tables' first requests have read "no record"
        return found

    monkeypatch.setattr(Tx, "request_start", request_start)
    supervisor = login(client, "supervisor")
    body = {"idempotency_key": key.removeprefix("api:supervisor:"), "command": PAUSE}
    tables = ("bac-1", "csp-1")
    answers = _at_once(
        lambda i: client.post(
            f"/api/tables/{tables[i % 2]}/commands", json=body, headers=supervisor
        )
    )
    by_table = {t: _keys(answers[i::2]) for i, t in enumerate(tables)}
    winner = next(t for t in tables if by_table[t][0] == (200, None))
    loser = next(t for t in tables if t != winner)
    assert by_table[winner] == [(200, None)] * (PARALLEL // 2), by_table
    assert by_table[loser] == [(409, "tables.idempotency_mismatch")] * (PARALLEL // 2), by_table
    assert len({a.text for a in answers[tables.index(winner) :: 2]}) == 1
    assert waited == set(tables)
