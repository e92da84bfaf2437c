"""``macau-tables serve`` as a user runs it (issue 10, "Deliver" 1): first start on an empty
SQLite database, the printed one-time credentials, health, readiness, metrics, a graceful stop
that releases every table, and a second start that creates nothing again."""

from __future__ import annotations

import json
import signal
from pathlib import Path

import pytest
from argon2 import PasswordHasher
from tests.server.serving import Server
from typer.testing import CliRunner
from websockets.exceptions import ConnectionClosed
from websockets.sync.client import connect

from macau_tables.cli.app import app
from macau_tables.store import Store, users_ops


def _hashes(url: str) -> list[str]:
    store = Store.open(url)
    try:
        return [u.password_hash for u in store.read(users_ops.users)]
    finally:
        store.close()


def _leases(url: str) -> dict[str, str | None]:
    store = Store.open(url)
    try:
        return {t.table_id: t.lease_owner for t in store.read(lambda tx: tx.tables())}
    finally:
        store.close()


def test_first_start_prints_credentials_that_sign_in_and_a_second_start_creates_nothing(
    tmp_path: Path,
) -> None:
    url = f"sqlite:///{tmp_path / 'casino.db'}"
    with Server(tmp_path, url, name="first") as first:
        first.wait_healthy()
        assert f"at {first.url}" in first.stdout
        credentials = first.credentials()
        assert sorted(credentials) == ["admin", "alice", "bruno", "dealer", "supervisor"]
        assert len(set(credentials.values())) == 5  # random, one each

        ready = first.ready()
        assert ready["status"] == "ready" and ready["tables"] == [
            "bac-1",
            "bac-live",
            "bac-squeeze",
            "csp-1",
        ]
        assert first.meter("m-baccarat") == 1_000_000  # the demonstration seed (BAC-17)
        for name, password in credentials.items():
            signed = first.post("/api/auth/token", json={"name": name, "password": password})
            assert signed.status_code == 200, signed.text
        wrong = first.post("/api/auth/token", json={"name": "admin", "password": "nope-nope"})
        assert wrong.status_code == 401
        # Stopping with a jackpot display connected: the socket is closed, the process exits 0.
        with connect(first.url.replace("http", "ws") + "/ws/jackpot", open_timeout=10) as ws:
            assert json.loads(ws.recv(timeout=10))["type"] == "meters"
            assert first.stop(signal.SIGTERM) == 0
            with pytest.raises(ConnectionClosed) as closed:
                ws.recv(timeout=10)
        assert closed.value.rcvd is not None and closed.value.rcvd.code in (1001, 1012)
    # The passwords are hashed with the production parameters (argon2-cffi's defaults; the
    # other tests' servers use the smallest, tests/server/serving.py).
    hashes = _hashes(url)
    assert len(hashes) == 5 and not any(map(PasswordHasher().check_needs_rehash, hashes))
    # Graceful: every table's lease is released; the request log is JSON lines.
    assert _leases(url) == {"bac-1": None, "bac-live": None, "bac-squeeze": None, "csp-1": None}
    lines = [json.loads(line) for line in first.stderr.splitlines() if line.startswith("{")]
    requests = [line for line in lines if line.get("path") == "/readyz"]
    assert requests and {"method", "path", "status", "ms", "user"} <= set(requests[0])

    with Server(tmp_path, url, name="second") as second:
        second.wait_healthy()
        assert "Users exist already" in second.stdout
        assert second.credentials() == {}
        assert "casino created" not in second.stdout
        again = second.post(
            "/api/auth/token", json={"name": "alice", "password": credentials["alice"]}
        )
        assert again.status_code == 200
        assert second.stop(signal.SIGINT) == 0


def test_a_bad_setting_stops_serve_before_anything_starts(tmp_path: Path) -> None:
    config = tmp_path / "server.toml"
    config.write_text("prot = 8000\n")
    result = CliRunner().invoke(
        app, ["serve", "--config", str(config), "--database", f"sqlite:///{tmp_path / 'x.db'}"]
    )
    assert result.exit_code == 2
    assert "unknown server setting prot" in result.output
    assert not (tmp_path / "x.db").exists()  # nothing created


def test_an_audit_sign_key_that_is_no_key_stops_serve_before_anything_starts(
    tmp_path: Path,
) -> None:
    (tmp_path / "archive.key").write_text("not a key\n")
    config = tmp_path / "server.toml"
    config.write_text(f'audit_sign_key = "{tmp_path / "archive.key"}"\n')
    result = CliRunner().invoke(
        app, ["serve", "--config", str(config), "--database", f"sqlite:///{tmp_path / 'x.db'}"]
    )
    assert result.exit_code == 2, result.output
    assert "as a signing key" in result.output and "Traceback" not in result.output
    assert not (tmp_path / "x.db").exists()  # nothing created
