"""``macau-tables user add NAME --role ROLE`` (issue 10, "Roles"): the password from standard
input, hashed with argon2, audited; bad input refused with exit code 2 and nothing written; on
SQLite and PostgreSQL."""

from __future__ import annotations

import json
from datetime import UTC, datetime
from typing import Any

import pytest
from argon2 import PasswordHasher
from typer.testing import CliRunner

from macau_tables.cli.app import app
from macau_tables.errors import AuthError
from macau_tables.server import auth
from macau_tables.server.principal import UserRole
from macau_tables.store import Store
from macau_tables.store import users_ops as ops

STAFF_PW = "Quartz-lantern-ferry-92"
"""A password strong enough for staff."""


@pytest.fixture(autouse=True)
def cheap_password_hashes(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(
        auth, "PASSWORD_HASHER", PasswordHasher(time_cost=1, memory_cost=8, parallelism=1)
    )


@pytest.fixture
def url(migrated_url: str) -> str:
    """A migrated, empty database's URL."""
    return migrated_url


def run(*args: str, password: str | None = None) -> Any:
    return CliRunner().invoke(app, list(args), input=password)


def _users(url: str) -> list[ops.UserRecord]:
    with Store.open(url) as store:
        return store.read(ops.users)


def test_user_add_reads_the_password_from_stdin(url: str) -> None:
    done = run(
        "user", "add", "dora", "--role", "dealer", "--database", url, password=STAFF_PW + "\n"
    )
    assert done.exit_code == 0, done.output
    assert "dora (dealer) added" in done.stdout
    (dora,) = _users(url)
    assert (dora.name, dora.role, dora.disabled) == ("dora", "dealer", False)
    assert dora.password_hash.startswith("$argon2") and STAFF_PW not in dora.password_hash
    assert auth.PASSWORD_HASHER.verify(dora.password_hash, STAFF_PW)
    with Store.open(url) as store:
        (entry,) = store.read(lambda tx: tx.audit_entries(action="user_add"))
        signed = auth.sign_in(store, "dora", STAFF_PW, address="127.0.0.1")
    assert entry.actor.startswith("cli") and entry.reason == "macau-tables user add"
    assert signed.role == "dealer"


def test_a_player_user_gets_a_wallet(url: str) -> None:
    done = run("user", "add", "pat", "--role", "player", "--database", url, password="pat-pw-123")
    assert done.exit_code == 0, done.output
    with Store.open(url) as store:
        assert store.read(lambda tx: tx.player("pat")) is not None


@pytest.mark.parametrize(
    ("args", "password", "says"),
    [
        (("eve", "--role", "owner"), "long-enough-1", "is not a role"),
        (("bad name", "--role", "dealer"), "long-enough-1", "is not a user name"),
        (("eve", "--role", "dealer"), "short\n", "at least 8 characters"),
        (("eve", "--role", "dealer"), "", "at least 8 characters"),
        (("eve", "--role", "dealer"), "12345678\n", "too easy to guess"),
        (("eve", "--role", "player"), "aaaaaaaa\n", "too easy to guess"),
    ],
)
def test_bad_input_is_refused_with_exit_2_and_nothing_written(
    url: str, args: tuple[str, ...], password: str, says: str
) -> None:
    refused = run("user", "add", *args, "--database", url, password=password)
    assert refused.exit_code == 2, refused.output
    assert refused.stderr.startswith("error: ") and says in refused.stderr
    assert "Traceback" not in refused.output
    assert _users(url) == []


def test_a_name_already_used_is_refused(url: str) -> None:
    added = run("user", "add", "dora", "--role", "admin", "--database", url, password=STAFF_PW)
    assert added.exit_code == 0, added.output
    again = run("user", "add", "dora", "--role", "player", "--database", url, password="x" * 12)
    assert again.exit_code == 2 and "already a user dora" in again.stderr
    assert [u.role for u in _users(url)] == ["admin"]
    alike = run("user", "add", "Dora.", "--role", "player", "--database", url, password=STAFF_PW)
    assert alike.exit_code == 2 and "too like the user dora" in alike.stderr
    assert [u.name for u in _users(url)] == ["dora"]


def test_a_database_not_migrated_is_refused(database_url: str) -> None:
    refused = run(
        "user", "add", "dora", "--role", "dealer", "--database", database_url, password="pw-1234567"
    )
    assert refused.exit_code == 2
    assert "error: " in refused.stderr and "Traceback" not in refused.output


def test_user_list_and_disable(url: str) -> None:
    run("user", "add", "dora", "--role", "dealer", "--database", url, password=STAFF_PW)
    disabled = run("user", "disable", "dora", "--reason", "left", "--database", url)
    assert disabled.exit_code == 0, disabled.output
    listed = run("user", "list", "--format", "json", "--database", url)
    assert json.loads(listed.stdout)[0] | {"created_at": None} == {
        "name": "dora",
        "role": "dealer",
        "disabled": True,
        "created_by": json.loads(listed.stdout)[0]["created_by"],
        "created_at": None,
    }
    text = run("user", "list", "--database", url)
    assert "dora" in text.stdout and "disabled" in text.stdout
    with Store.open(url) as store:
        (entry,) = store.read(lambda tx: tx.audit_entries(action="user_disable"))
    assert entry.reason == "left" and entry.detail is not None and entry.detail["name"] == "dora"
    unknown = run("user", "disable", "nobody", "--reason", "x", "--database", url)
    assert unknown.exit_code == 2 and "no user nobody" in unknown.stderr


def test_user_unlock_forgets_the_failed_logins_audited(url: str) -> None:
    added = run("user", "add", "dora", "--role", "dealer", "--database", url, password=STAFF_PW)
    assert added.exit_code == 0, added.output
    with Store.open(url) as store:
        for _ in range(5):
            with pytest.raises(AuthError):
                auth.sign_in(store, "dora", "not-her-password", address="203.0.113.7")
        with pytest.raises(AuthError) as refused:
            auth.sign_in(store, "dora", STAFF_PW, address="203.0.113.7")
        assert refused.value.key == "auth.throttled"
    no_reason = run("user", "unlock", "dora", "--database", url)
    assert no_reason.exit_code == 2
    done = run("user", "unlock", "dora", "--reason", "she mistyped", "--database", url)
    assert done.exit_code == 0, done.output
    assert "dora unlocked (5 failed logins forgotten)" in done.stdout
    with Store.open(url) as store:
        assert auth.sign_in(store, "dora", STAFF_PW, address="203.0.113.7").name == "dora"
        (entry,) = store.read(lambda tx: tx.audit_entries(action="user_unlock"))
    assert entry.actor.startswith("cli") and entry.reason == "she mistyped"
    assert entry.detail is not None and entry.detail["forgotten"] == 5
    unknown = run("user", "unlock", "nobody", "--reason", "x", "--database", url)
    assert unknown.exit_code == 2 and "no user nobody" in unknown.stderr


def test_the_upgrade_to_v7_leaves_look_alikes_alone_and_lists_them(database_url: str) -> None:
    """Users made before schema v7 whose names collide once case folded and punctuation
    removed are kept as they are (the upgrade does not fail on them), still sign in with their
    own names, and ``user list --collisions`` lists them; a new look-alike is refused."""
    import sqlalchemy as sa
    from alembic import command
    from alembic.config import Config

    from macau_tables.store import SCHEMA_VERSION
    from macau_tables.store.store import MIGRATIONS

    hashed = auth.PASSWORD_HASHER.hash(STAFF_PW)
    with Store.open(database_url) as old:
        with old.engine.begin() as conn:
            config = Config()
            config.set_main_option("script_location", str(MIGRATIONS))
            config.attributes["connection"] = conn
            command.upgrade(config, "0006")
            users = sa.table(
                "users",
                *(sa.column(c) for c in ("name", "role", "password_hash", "disabled")),
                *(sa.column(c) for c in ("created_by", "created_at")),
            )
            for minute, name in enumerate(["alice", "Alice", "alice.", "bob", "B-O-B"]):
                conn.execute(
                    sa.insert(users).values(
                        name=name,
                        role="dealer",
                        password_hash=hashed,
                        disabled=False,
                        created_by="test",
                        created_at=datetime(2026, 1, 5, 2, minute, tzinfo=UTC),
                    )
                )
        assert old.upgrade() == SCHEMA_VERSION
        old.check()
        for typed, found in (("Alice", "Alice"), ("alice.", "alice."), ("ALICE", "alice")):
            assert auth.sign_in(old, typed, STAFF_PW, address="127.0.0.1").name == found
        with pytest.raises(AuthError) as refused:
            auth.create_user(old, "A.lice", UserRole.DEALER, STAFF_PW)
        assert refused.value.key == "auth.name_lookalike"
    listed = run("user", "list", "--collisions", "--database", database_url)
    assert listed.exit_code == 0, listed.output
    assert listed.stdout.splitlines() == ["alice: Alice alice alice.", "bob: B-O-B bob"]
    as_json = run("user", "list", "--collisions", "--format", "json", "--database", database_url)
    assert json.loads(as_json.stdout) == [
        {"key": "alice", "names": ["Alice", "alice", "alice."]},
        {"key": "bob", "names": ["B-O-B", "bob"]},
    ]


def test_user_list_collisions_says_when_there_are_none(url: str) -> None:
    run("user", "add", "dora", "--role", "dealer", "--database", url, password=STAFF_PW)
    listed = run("user", "list", "--collisions", "--database", url)
    assert listed.exit_code == 0 and listed.stdout == "no user names collide\n"
