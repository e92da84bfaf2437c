"""The server's users, sessions and failed logins, inside one store transaction.

Functions of an open :class:`~macau_tables.store.Tx` (``store.run(lambda tx: add_user(tx,
...))``), kept beside the ``Tx`` mix-ins rather than in them: only the server uses them. Secrets
never reach the database: a password is stored as its argon2 hash (made by the caller,
:mod:`macau_tables.server.auth`), a session or token as the SHA-256 of its random secret.

Refusals are :class:`~macau_tables.errors.AuthError` with ``auth.*`` keys.
"""

from __future__ import annotations

import functools
import json
import re
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import datetime
from typing import Any, Final

from sqlalchemy import String, and_, any_, bindparam, delete, func, insert, select, update
from sqlalchemy.dialects.postgresql import ARRAY
from sqlalchemy.exc import IntegrityError

from ..errors import AuthError
from . import schema as s
from .tx import Tx

__all__ = [
    "NAME_PATTERN",
    "SESSION_KINDS",
    "Failures",
    "SessionRecord",
    "UserRecord",
    "add_user",
    "check_name_free",
    "check_user_name",
    "collisions",
    "delete_session",
    "delete_sessions",
    "failures_since",
    "forget_failures",
    "lookalike",
    "name_key",
    "put_session",
    "record_failure",
    "session",
    "sessions",
    "set_password_hash",
    "set_user_disabled",
    "unlock",
    "user",
    "user_signing_in",
    "users",
]

NAME_PATTERN: Final = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.@-]{0,99}")
"""A user's name: 1 to 100 letters, digits, ``_ . @ -``, starting with a letter or digit (it is
also a player's id and appears in URLs and account ids)."""


def name_key(name: str) -> str:
    """The form under which user names are unique and signed in: case folded, punctuation
    removed (``Alice``, ``alice.`` and ``a-lice`` are all ``alice``), so no one can pass for
    another user with a look-alike name. Kept in ``users.name_key`` under a unique index
    (schema v7), so two server processes cannot both create look-alikes."""
    return "".join(c for c in name.casefold() if c.isalnum())


SESSION_KINDS: Final = ("cookie", "token")


@dataclass(frozen=True, slots=True)
class UserRecord:
    """A user as stored (``role`` as its text: the server maps it to ``UserRole``)."""

    name: str
    role: str
    password_hash: str
    disabled: bool
    created_by: str
    created_at: datetime


@dataclass(frozen=True, slots=True)
class SessionRecord:
    """A session or bearer token: whose, which kind, when it expires; ``disabled`` is the
    user's."""

    user_name: str
    role: str
    kind: str
    created_at: datetime
    expires_at: datetime
    disabled: bool


def check_user_name(name: object) -> str:
    """``name`` if it is a valid user name (:data:`NAME_PATTERN`), else ``auth.bad_name``."""
    if not isinstance(name, str) or not NAME_PATTERN.fullmatch(name):
        raise AuthError("auth.bad_name", name=repr(name)[:120])
    return name


def add_user(tx: Tx, name: str, role: str, password_hash: str, *, actor: str) -> None:
    """Store a new user (enabled). Refuses a bad name (``auth.bad_name``), one already used
    (``auth.user_exists``) or one that is another user's but for case and punctuation
    (``auth.name_lookalike``: :func:`name_key`). The unique index on ``name_key`` refuses a
    look-alike another process stores at the same moment (the same refusal)."""
    tx.writable()
    check_name_free(tx, name)
    key = name_key(name)
    try:
        tx.connection.execute(
            insert(s.users).values(
                name=name,
                name_key=key,
                role=role,
                password_hash=password_hash,
                disabled=False,
                created_by=actor,
                created_at=tx.now(),
            )
        )
    except IntegrityError:  # the transaction is rolled back: nothing written
        raise AuthError("auth.name_lookalike", name=name, existing=key) from None


def check_name_free(tx: Tx, name: str) -> None:
    """Refuse a bad name (``auth.bad_name``), a name already used (``auth.user_exists``) or
    one that is another user's but for case and punctuation (``auth.name_lookalike``)."""
    check_user_name(name)
    if user(tx, name) is not None:
        raise AuthError("auth.user_exists", name=name)
    like = lookalike(tx, name)
    if like is not None:
        raise AuthError("auth.name_lookalike", name=name, existing=like)


def lookalike(tx: Tx, name: str) -> str | None:
    """The name of a user whose name is ``name``'s but for case and punctuation (the one that
    holds its :func:`name_key`), or ``None``."""
    row = tx.connection.execute(
        select(s.users.c.name).where(s.users.c.name_key == name_key(name)).limit(1)
    ).first()
    return None if row is None else str(row.name)


def user_signing_in(tx: Tx, name: str) -> UserRecord | None:
    """The user signing in as ``name``: the user of exactly that name, else the one whose
    :func:`name_key` is ``name``'s (sign-in ignores case and punctuation); ``None``."""
    exact = user(tx, name)
    if exact is not None:
        return exact
    row = tx.connection.execute(select(s.users).where(s.users.c.name_key == name_key(name))).first()
    return None if row is None else _user(row)


def collisions(tx: Tx) -> list[list[str]]:
    """The groups of users whose names are the same but for case and punctuation (created
    before schema v7 made that impossible; each group's oldest holds the name's key), each
    sorted by name, the groups by their key."""
    groups: dict[str, list[str]] = {}
    for found in users(tx):
        groups.setdefault(name_key(found.name), []).append(found.name)
    return [sorted(names) for _, names in sorted(groups.items()) if len(names) > 1]


def user(tx: Tx, name: str) -> UserRecord | None:
    """The user ``name``, or ``None``."""
    row = tx.connection.execute(select(s.users).where(s.users.c.name == name)).first()
    return None if row is None else _user(row)


def users(tx: Tx) -> list[UserRecord]:
    """Every user, by name."""
    rows = tx.connection.execute(select(s.users).order_by(s.users.c.name))
    return [_user(r) for r in rows]


def _user(r: Any) -> UserRecord:
    return UserRecord(
        str(r.name),
        str(r.role),
        str(r.password_hash),
        bool(r.disabled),
        str(r.created_by),
        r.created_at,
    )


def set_user_disabled(tx: Tx, name: str, disabled: bool) -> None:
    """Disable (or enable again) ``name``; disabling ends every session and token of theirs.
    Refuses an unknown user (``auth.user_unknown``)."""
    tx.writable()
    found = tx.connection.execute(
        update(s.users).where(s.users.c.name == name).values(disabled=disabled)
    )
    if found.rowcount != 1:
        raise AuthError("auth.user_unknown", name=name)
    if disabled:
        delete_sessions(tx, name)


def set_password_hash(tx: Tx, name: str, password_hash: str) -> None:
    """Replace ``name``'s password hash (a re-hash with stronger parameters, a new password)."""
    tx.writable()
    found = tx.connection.execute(
        update(s.users).where(s.users.c.name == name).values(password_hash=password_hash)
    )
    if found.rowcount != 1:
        raise AuthError("auth.user_unknown", name=name)


# -- sessions and tokens --------------------------------------------------------------------------


def put_session(
    tx: Tx,
    token_sha256: str,
    name: str,
    kind: str,
    *,
    expires_at: datetime,
    now: datetime | None = None,
) -> None:
    """Store a session (``kind`` ``"cookie"``) or bearer token (``"token"``) of ``name`` by the
    SHA-256 of its secret, opened ``now`` (default ``tx.now()``); expired ones of anyone are
    deleted on the way."""
    tx.writable()
    if kind not in SESSION_KINDS:
        raise ValueError(f"session kind {kind!r}")
    now = now or tx.now()
    tx.connection.execute(delete(s.auth_sessions).where(s.auth_sessions.c.expires_at <= now))
    tx.connection.execute(
        insert(s.auth_sessions).values(
            token_sha256=token_sha256,
            user_name=name,
            kind=kind,
            created_at=now,
            expires_at=expires_at,
        )
    )


def session(tx: Tx, token_sha256: str) -> SessionRecord | None:
    """The session or token whose secret hashes to ``token_sha256`` (expired or not), with
    its user's role and whether they are disabled; ``None`` when there is none."""
    return _sessions(tx, (token_sha256,)).get(token_sha256)


def sessions(tx: Tx, tokens_sha256: Iterable[str]) -> dict[str, SessionRecord]:
    """:func:`session` of many at once: the sessions or tokens whose secrets hash to
    ``tokens_sha256`` (expired or not) by that hash; one absent there has none. ONE statement
    with ONE parameter however many are asked (the table sockets' session check asks for all
    the process's sockets in one read: :mod:`macau_tables.server.session_watch`): the hashes
    travel as one array on PostgreSQL and as one JSON array on SQLite (``json_each``), not as a
    parameter each — a thousand expanded parameters cost the driver and SQLAlchemy tens of
    milliseconds of the interpreter per read."""
    return _sessions(tx, tokens_sha256)


def _sessions(tx: Tx, tokens_sha256: Iterable[str]) -> dict[str, SessionRecord]:
    wanted = sorted(set(tokens_sha256))
    if not wanted:
        return {}
    postgresql = tx.connection.dialect.name == "postgresql"
    rows = tx.connection.execute(
        _sessions_statement(postgresql), {"tokens": wanted if postgresql else json.dumps(wanted)}
    )
    return {
        token: SessionRecord(name, role, kind, created_at, expires_at, bool(disabled))
        for token, name, role, kind, created_at, expires_at, disabled in rows
    }


@functools.cache
def _sessions_statement(postgresql: bool) -> Any:
    """The sessions' read of :func:`sessions`, built once per dialect."""
    sess, u = s.auth_sessions, s.users
    if postgresql:
        wanted = sess.c.token_sha256 == any_(bindparam("tokens", type_=ARRAY(String)))
    else:
        listed = func.json_each(bindparam("tokens", type_=String)).table_valued("value")
        wanted = sess.c.token_sha256.in_(select(listed.c.value))
    return (
        select(
            sess.c.token_sha256,
            sess.c.user_name,
            u.c.role,
            sess.c.kind,
            sess.c.created_at,
            sess.c.expires_at,
            u.c.disabled,
        )
        .join(u, u.c.name == sess.c.user_name)
        .where(wanted)
    )


def delete_session(tx: Tx, token_sha256: str) -> bool:
    """End one session or token; whether there was one."""
    tx.writable()
    result = tx.connection.execute(
        delete(s.auth_sessions).where(s.auth_sessions.c.token_sha256 == token_sha256)
    )
    return bool(result.rowcount)


def delete_sessions(tx: Tx, name: str) -> int:
    """End every session and token of ``name``; how many."""
    tx.writable()
    result = tx.connection.execute(
        delete(s.auth_sessions).where(s.auth_sessions.c.user_name == name)
    )
    return int(result.rowcount)


# -- failed logins --------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Failures:
    """Failed logins since a time: of one name from one address (``pair``), from one address
    for any name (``address``) — each with its latest — and of one name from every address
    (``name``)."""

    pair: int
    pair_latest: datetime | None
    address: int
    address_latest: datetime | None
    name: int


def record_failure(tx: Tx, name: str, address: str, *, at: datetime | None = None) -> None:
    """Remember a failed login of ``name`` from ``address`` at ``at`` (default ``tx.now()``)."""
    tx.writable()
    tx.connection.execute(
        insert(s.login_failures).values(
            at=at or tx.now(), user_name=name[:200], address=address[:100]
        )
    )


def failures_since(tx: Tx, *, name: str, address: str, since: datetime) -> Failures:
    """The failed logins after ``since`` of ``name`` from ``address``, from ``address``, and of
    ``name`` (three indexed reads)."""
    f = s.login_failures
    name, address = name[:200], address[:100]
    recent = f.c.at > since

    def read(*where: Any) -> tuple[int, datetime | None]:
        row = tx.connection.execute(
            select(func.count(), func.max(f.c.at)).where(and_(recent, *where))
        ).one()
        return int(row[0]), row[1]  # max() keeps the column type: aware UTC

    pair, pair_latest = read(f.c.user_name == name, f.c.address == address)
    by_address, address_latest = read(f.c.address == address)
    by_name, _ = read(f.c.user_name == name)
    return Failures(pair, pair_latest, by_address, address_latest, by_name)


def forget_failures(tx: Tx, *, name: str, address: str, before: datetime) -> None:
    """Forget ``name``'s failed logins from ``address`` (after a successful one from there) and
    everyone's older than ``before`` (they no longer count)."""
    tx.writable()
    f = s.login_failures
    tx.connection.execute(
        delete(f).where(and_(f.c.user_name == name[:200], f.c.address == address[:100]))
    )
    tx.connection.execute(delete(f).where(f.c.at <= before))


def unlock(tx: Tx, name: str) -> int:
    """Forget every failed login of ``name`` from every address (an administrator's unlock);
    how many there were."""
    tx.writable()
    f = s.login_failures
    result = tx.connection.execute(delete(f).where(f.c.user_name == name[:200]))
    return int(result.rowcount)
