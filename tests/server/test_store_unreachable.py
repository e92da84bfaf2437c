"""The store unreachable (a PostgreSQL restart, a lost SQLite volume): a client is told the
casino's records cannot be reached — 503 ``server.store_unavailable`` with no parameters — and
never where the database is (its URL: user, host, port, name; the driver's message); the
server's log keeps that for the operator. On SQLite and PostgreSQL."""

from __future__ import annotations

import logging
import socket
from pathlib import Path

import pytest
from fastapi.testclient import TestClient
from sqlalchemy.engine import make_url
from tests.server.support import cycle_step, login

from macau_tables.errors import StoreError
from macau_tables.server import errors
from macau_tables.server.runtime import Runtime
from macau_tables.store.engine import make_engine

USER, DATABASE = "macau_owner", "casino_records_db"


@pytest.fixture
def served_tables() -> tuple[str, ...]:
    """The tables these tests use (the others need no loading at each start)."""
    return ("bac-1",)


def _closed_port() -> int:
    """A port nothing listens on (bound, then let go)."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
    return port


def _unreachable(runtime: Runtime, monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> list[str]:
    """Point ``runtime``'s store at a database that cannot be reached; the parts of its URL."""
    if runtime.store.dialect == "postgresql":
        port = _closed_port()
        url = f"postgresql+psycopg://{USER}:secret-pw@127.0.0.1:{port}/{DATABASE}"
        parts = [USER, "127.0.0.1", str(port), DATABASE, "secret-pw", "postgresql"]
    else:
        missing = tmp_path / "lost-volume" / f"{DATABASE}.db"
        url = f"sqlite:///{missing}"
        parts = [str(missing), "lost-volume", DATABASE, "sqlite"]
    runtime.store.engine.dispose()
    monkeypatch.setattr(runtime.store, "engine", make_engine(make_url(url)))
    return parts


def _bet(client: TestClient, headers: dict[str, str], key: str) -> object:
    wager = {
        "type": "baccarat.PlaceWager",
        "player": "alice",
        "area": {"type": "baccarat.Area", "seated": True, "number": 1},
        "kind": "banker",
        "amount": 1_000,
    }
    body = {"idempotency_key": key, "command": wager}
    return client.post("/api/tables/bac-1/commands", json=body, headers=headers)


def test_a_bet_while_the_store_is_unreachable_is_told_so_without_the_database_url(
    client: TestClient,
    runtime: Runtime,
    monkeypatch: pytest.MonkeyPatch,
    tmp_path: Path,
    caplog: pytest.LogCaptureFixture,
) -> None:
    alice = login(client, "alice")
    cycle_step(client, "bac-1", {"type": "tables.OpenRound", "seated": [[1, "alice"]]})
    parts = _unreachable(runtime, monkeypatch, tmp_path)
    caplog.set_level(logging.WARNING, logger="macau_tables.server")
    for language in ("en", "zh-Hant"):
        caplog.clear()
        response = _bet(client, {**alice, "Accept-Language": language}, f"bet-{language}")
        assert response.status_code == 503, response.text  # type: ignore[attr-defined]
        error = response.json()["error"]  # type: ignore[attr-defined]
        assert (error["key"], error["params"], error["rule"]) == (
            "server.store_unavailable",
            {},
            None,
        )
        assert error["text"]
        for part in parts:
            assert part not in response.text, part  # type: ignore[attr-defined]
        logged = "\n".join(r.getMessage() for r in caplog.records)
        assert "store.unavailable" in logged and "server.store_unavailable" in logged
        # the operator's log names the database (its URL, never its password)
        assert all(p in logged for p in parts if p != "secret-pw"), logged
        assert "secret-pw" not in logged


def test_a_store_failure_closing_a_socket_carries_no_url() -> None:
    """The streams close with a refusal told through the same :func:`errors.for_client`."""
    failure = StoreError(
        "store.unavailable",
        url=f"postgresql+psycopg://{USER}@db.internal:5432/{DATABASE}",
        error='connection to server at "db.internal", port 5432 failed',
    )
    told = errors.for_client(failure)
    assert (told.key, told.params) == ("server.store_unavailable", {})
    body = str(errors.error_body(told, "zh-Hant")) + str(errors.error_body(told))
    assert "db.internal" not in body and USER not in body and DATABASE not in body
    other = StoreError("store.database_error", url="sqlite:////srv/x.db", error="disk I/O error")
    assert errors.for_client(other).key == "server.store_failed"
    assert errors.status_for(errors.for_client(other)) == 503
