"""Helpers for the casino command tests (no tests here): run a command on the one app, play a
short session on a database, and change rows behind the service's back (the tampering an
audit must find)."""

from __future__ import annotations

import json
import secrets
import sqlite3
from collections.abc import Callable, Iterator
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest
import sqlalchemy
from typer.testing import CliRunner

from macau_tables.cli.app import app
from macau_tables.store.chain import chain_hash, iso, transaction_digest
from macau_tables.tables.clock import opening_date
from tests.db_fixtures import BACKENDS, PG_ADMIN_URL, _pg_unavailable


def run(*args: str, env: dict[str, str] | None = None) -> Any:
    """Invoke ``macau-tables args`` (stdout and stderr kept apart)."""
    return CliRunner().invoke(app, list(args), env=env)


def today() -> str:
    """Today's gaming day (Macau), as the commands take it."""
    return opening_date(datetime.now(UTC)).isoformat()


def play_session(url: str, *, baccarat: int = 3, caribbean: int = 3) -> None:
    """``db upgrade``, ``casino init`` and a few rounds of bots at both virtual tables."""
    for args in (
        ("db", "upgrade"),
        ("casino", "init"),
        ("autoplay", "--table", "bac-1", "--rounds", str(baccarat), "--seed", "1"),
        ("autoplay", "--table", "csp-1", "--rounds", str(caribbean), "--players", "4"),
    ):
        result = run(*args, "--database", url)
        assert result.exit_code == 0, (args, result.output)


@pytest.fixture(scope="module", params=BACKENDS)
def session(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[str]:
    """One database per test module and backend after :func:`play_session` (for the tests
    that only read it): a SQLite file, or a scratch PostgreSQL database dropped afterwards."""
    if request.param == "sqlite":
        url = f"sqlite:///{tmp_path_factory.mktemp('session') / 'macau-tables.db'}"
        play_session(url)
        yield url
        return
    admin = sqlalchemy.engine.make_url(PG_ADMIN_URL)
    name = f"mt_{secrets.token_hex(6)}"
    try:
        engine = sqlalchemy.create_engine(admin, isolation_level="AUTOCOMMIT")
        with engine.connect() as conn:
            conn.exec_driver_sql(f'CREATE DATABASE "{name}"')
    except Exception as exc:  # unreachable server, no driver, no rights
        _pg_unavailable(str(exc).splitlines()[0])
    try:
        url = admin.set(database=name).render_as_string(hide_password=False)
        play_session(url)
        yield url
    finally:
        with engine.connect() as conn:
            conn.exec_driver_sql(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
        engine.dispose()


@pytest.fixture
def played(session: str, tmp_path: Path) -> Iterator[str]:
    """A database of its own (each backend) holding what :func:`play_session` leaves, for a
    test that writes to it: a copy of the module's ``session`` (playing the session again for
    every such test took most of their time). Its URL."""
    if session.startswith("sqlite"):
        target = tmp_path / "macau-tables.db"
        source = sqlite3.connect(session.removeprefix("sqlite:///"))
        copy = sqlite3.connect(target)
        try:
            source.backup(copy)
        finally:
            copy.close()
            source.close()
        yield f"sqlite:///{target}"
        return
    url = sqlalchemy.engine.make_url(session)
    name = f"mt_{secrets.token_hex(6)}"
    engine = sqlalchemy.create_engine(
        sqlalchemy.engine.make_url(PG_ADMIN_URL), isolation_level="AUTOCOMMIT"
    )
    try:
        with engine.connect() as conn:
            # A template must have no other connection (the commands' are closed; this ends
            # any the server still counts).
            conn.execute(
                sqlalchemy.text(
                    "SELECT pg_terminate_backend(pid) FROM pg_stat_activity "
                    "WHERE datname = :d AND pid <> pg_backend_pid()"
                ),
                {"d": url.database},
            )
            conn.exec_driver_sql(f'CREATE DATABASE "{name}" TEMPLATE "{url.database}"')
        yield url.set(database=name).render_as_string(hide_password=False)
    finally:
        with engine.connect() as conn:
            conn.exec_driver_sql(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
        engine.dispose()


def sql(url: str, fn: Callable[[sqlalchemy.Connection], Any]) -> Any:
    """Run ``fn`` on a raw connection to the database, committed (behind the store's back)."""
    engine = sqlalchemy.create_engine(url.replace("postgresql://", "postgresql+psycopg://"))
    try:
        with engine.begin() as conn:
            return fn(conn)
    finally:
        engine.dispose()


def canonical(value: Any) -> str:
    """The codec's canonical JSON text."""
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False)


def rewrite_events(url: str, table_id: str, change: Callable[[int, dict[str, Any]], bool]) -> int:
    """Change events of ``table_id`` in place (``change(seq, payload)`` edits the payload and
    says whether it did) and recompute the hash chain from the first change to the end, as an
    insider rewriting the log would; returns the first seq changed."""

    def go(conn: sqlalchemy.Connection) -> int:
        rows = conn.execute(
            sqlalchemy.text(
                "SELECT seq, payload, prev_hash FROM events WHERE table_id = :t ORDER BY seq"
            ),
            {"t": table_id},
        ).all()
        first, prev = 0, None
        for seq, payload, prev_hash in rows:
            data = json.loads(payload)
            changed = change(seq, data)
            if changed and not first:
                first = seq
            if not first:
                continue
            text = canonical(data) if changed else payload
            before = prev if prev is not None else prev_hash
            new_hash = chain_hash(before, text.encode("utf-8"))
            conn.execute(
                sqlalchemy.text(
                    "UPDATE events SET payload = :p, prev_hash = :h0, hash = :h "
                    "WHERE table_id = :t AND seq = :s"
                ),
                {"p": text, "h0": before, "h": new_hash, "t": table_id, "s": seq},
            )
            prev = new_hash
        return first

    result: int = sql(url, go)
    return result


def rewrite_transaction(url: str, tx_id: int, deltas: dict[str, int]) -> None:
    """Move ``deltas`` (account → amount) into transaction ``tx_id``'s postings, its digest
    and the accounts' balances, consistently: the store's own checks then pass."""

    def go(conn: sqlalchemy.Connection) -> None:
        t = conn.execute(
            sqlalchemy.text("SELECT * FROM transactions WHERE tx_id = :i"), {"i": tx_id}
        ).one()
        for account, delta in deltas.items():
            conn.execute(
                sqlalchemy.text(
                    "UPDATE postings SET amount = amount + :d WHERE tx_id = :i AND account_id = :a"
                ),
                {"d": delta, "i": tx_id, "a": account},
            )
            conn.execute(
                sqlalchemy.text("UPDATE accounts SET balance = balance + :d WHERE account_id = :a"),
                {"d": delta, "a": account},
            )
        lines = conn.execute(
            sqlalchemy.text(
                "SELECT line, account_id, amount, reason FROM postings "
                "WHERE tx_id = :i ORDER BY line"
            ),
            {"i": tx_id},
        ).all()
        created = t.created_at
        if isinstance(created, str):
            created = datetime.fromisoformat(created)
        if created.tzinfo is None:
            created = created.replace(tzinfo=UTC)
        fields = {
            "table_id": t.table_id,
            "event_seq": t.event_seq,
            "kind": t.kind,
            "actor": t.actor,
            "reason": t.reason,
            "corrects": t.corrects,
            "created_at": iso(created),
        }
        digest = transaction_digest(fields, [tuple(r) for r in lines])
        conn.execute(
            sqlalchemy.text("UPDATE transactions SET digest = :d WHERE tx_id = :i"),
            {"d": digest, "i": tx_id},
        )

    sql(url, go)
