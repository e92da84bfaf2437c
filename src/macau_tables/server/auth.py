"""Users, passwords, sessions and bearer tokens, CSRF, login throttling, and the role rule of
every endpoint.

Who is asking
-------------
* API clients send ``Authorization: Bearer TOKEN`` (``POST /api/auth/token`` with ``{"name",
  "password"}`` gives ``{"token", "expires", "role"}``).
* Pages sign in with ``POST /api/auth/login`` (a form or JSON, from this site's pages only:
  :func:`same_origin`): the answer sets the session cookie (:data:`SESSION_COOKIE`:
  ``HttpOnly``, ``SameSite=Strict``, ``Secure`` when the request came over TLS or the setting
  ``secure_cookies`` says so) and returns the session's CSRF token.
  Every state-changing request (not ``GET``/``HEAD``/``OPTIONS``) of a cookie session must come
  from this site's pages (``Origin`` or ``Sec-Fetch-Site: same-origin``: :func:`same_origin`,
  else ``auth.cross_site``) and carry the token, in the header ``X-CSRF-Token`` or the form
  field ``csrf_token`` (compared in constant time; :func:`csrf_token_of` gives it to a page's
  template). A bearer-token request needs neither.
* Tokens and sessions are random secrets (256 bits); the store keeps only their SHA-256
  (:mod:`macau_tables.store.users_ops`) with the expiry (setting ``session_seconds``). An expired
  one is refused ``auth.session_expired`` (401), an unknown one ``auth.session_unknown`` (401).
* Passwords are kept as argon2 hashes (:data:`PASSWORD_HASHER`, re-hashed at login when the
  parameters grew); at least :data:`MIN_PASSWORD` characters and hard enough to guess
  (:func:`check_password`: zxcvbn, by role).
* User names are unique under case folding with punctuation removed
  (:func:`~macau_tables.store.users_ops.name_key`); sign-in ignores case and punctuation.
* Login throttling (:func:`sign_in`): an address that failed ``login_attempts`` times for a
  name (or for any names) waits 1, 2, 4 … up to :data:`LOGIN_DELAY_MAX` seconds before each
  further try (``auth.throttled``, 429 with ``Retry-After``); a name failing from everywhere is
  slowed down (:func:`slow_down`, a few seconds at most), never refused, so no one can lock its
  owner out; an administrator's :func:`unlock_user` forgets its failures. The failures are in
  the store (for ``login_window_seconds``), so every server process on the database counts
  them; time is the store's clock and the pause the runtime's (tests inject both). A disabled
  user is refused (``auth.user_disabled``) and their sessions are ended.

The role rule of every endpoint
-------------------------------
Every route carries exactly one rule among its dependencies: ``Depends(require(UserRole.ADMIN,
...))`` (returns the :class:`Principal`; 401 without a valid session, 403 for another role),
``Depends(current_principal)`` (any signed-in user: it is ``require`` of every role) or
``Depends(public)`` (anyone) — or, on a plain-function endpoint that wants its token looked up
in its own worker thread, ``Depends(require_in_thread(...))`` (the same rule, the lookup put
off until the endpoint calls what it returns). :func:`optional_principal` (the principal or
``None``) is not a rule: a public route that uses it also carries ``public``.
:func:`endpoint_rules` reads the rule of each ``(method, path)``;
``tests/server/test_role_matrix.py`` walks them all. ``require`` of the same roles is the same
dependency, so a helper dependency and its route may both use it.

WebSockets authenticate with :func:`authenticate_websocket` (bearer header, ``?token=``, or the
session cookie from the same origin). The open sockets of a process ask again whether their
sessions still stand (:func:`session_refusals`: signed out, the user disabled, expired — on any
server process) in one read every ``session_check_seconds`` (:mod:`.session_watch`); a command
sent on a socket checks its session as a request does — a read begun after it arrived, in the
transaction that would commit it, one statement for the commands committed together
(:func:`sessions_refused`, :meth:`.session_watch.SessionWatch.guard`: the same answer as
:func:`session_refusal`'s read of one).

Privileged actions are recorded with :func:`record_action` (who, their role, when by the store's
clock, why, details) in the store's audit log.

Users are created with :func:`create_user` (``macau-tables user add``, the demonstration
casino, ``POST /api/admin/users``: :mod:`.auth_users`).
"""

from __future__ import annotations

import asyncio
import hashlib
import hmac
import math
import secrets
import time
from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from functools import partial
from typing import Annotated, Any, Final
from urllib.parse import urlsplit

from argon2 import PasswordHasher
from argon2.exceptions import InvalidHashError, VerificationError
from fastapi import APIRouter, Depends, FastAPI, Request, Response
from fastapi.responses import JSONResponse, RedirectResponse
from fastapi.routing import APIRoute, APIWebSocketRoute, iter_route_contexts
from pydantic import BaseModel, Field
from starlette.concurrency import run_in_threadpool
from starlette.requests import HTTPConnection
from starlette.routing import Mount, Route, WebSocketRoute
from starlette.staticfiles import StaticFiles
from starlette.websockets import WebSocket
from zxcvbn import zxcvbn

from ..errors import AuthError, MacauTablesError
from ..games import GAMES
from ..store import Store, Tx
from ..store import users_ops as ops
from .errors import register_status
from .principal import Principal, UserRole

__all__ = [
    "CSRF_FIELD",
    "CSRF_HEADER",
    "MIN_PASSWORD",
    "PASSWORD_HASHER",
    "SESSION_COOKIE",
    "Deferred",
    "SignedIn",
    "SocketSession",
    "authenticate_websocket",
    "check_password",
    "create_user",
    "csrf_token",
    "csrf_token_of",
    "current_principal",
    "endpoint_rules",
    "hash_password",
    "issue",
    "login_wait",
    "optional_principal",
    "own_origin",
    "parse_role",
    "public",
    "record_action",
    "require",
    "require_in_thread",
    "router",
    "rule_problems",
    "safe_next",
    "same_origin",
    "session_refusal",
    "session_refusals",
    "sessions_refused",
    "sign_in",
    "slow_down",
    "unlock_user",
    "websocket_session",
]

SESSION_COOKIE: Final = "macau_session"
CSRF_HEADER: Final = "X-CSRF-Token"
CSRF_FIELD: Final = "csrf_token"
MIN_PASSWORD: Final = 8
MAX_PASSWORD: Final = 1024
SAFE_METHODS: Final = frozenset({"GET", "HEAD", "OPTIONS"})

DEFAULT_SESSION_SECONDS: Final = 8 * 3600
DEFAULT_LOGIN_ATTEMPTS: Final = 5
DEFAULT_LOGIN_WINDOW_SECONDS: Final = 3600

PASSWORD_HASHER = PasswordHasher()
"""The argon2id hasher (argon2-cffi's defaults, RFC 9106 low-memory). Tests may swap in a cheaper
one; hashes made with other parameters still verify and are re-hashed at the next login."""

for _key, _status in (
    ("auth.unauthenticated", 401),
    ("auth.session_expired", 401),
    ("auth.session_unknown", 401),
    ("auth.bad_credentials", 401),
    ("auth.csrf_missing", 403),
    ("auth.csrf_mismatch", 403),
    ("auth.cross_site", 403),
    ("auth.forbidden", 403),
    ("auth.user_disabled", 403),
    ("auth.throttled", 429),
    ("auth.login_unreadable", 422),
    ("auth.bad_name", 422),
    ("auth.bad_role", 422),
    ("auth.password_too_short", 422),
    ("auth.password_weak", 422),
    ("auth.name_lookalike", 409),
    ("auth.user_exists", 409),
    ("auth.disable_self", 409),
    ("auth.user_unknown", 404),
):
    register_status(_key, _status)


class AuthRefused(AuthError):
    """An :class:`AuthError` with HTTP headers for its answer (``WWW-Authenticate``,
    ``Retry-After``)."""

    def __init__(self, key: str, /, *, headers: Mapping[str, str], **params: Any) -> None:
        super().__init__(key, **params)
        self.http_headers = dict(headers)


_BEARER: Final = {"WWW-Authenticate": 'Bearer realm="macau-tables"'}


# -- passwords and users --------------------------------------------------------------------------


CASINO_WORDS: Final = (
    "macau",
    "macao",
    "casino",
    "table",
    "tables",
    "jackpot",
    "progressive",
    "dealer",
    "supervisor",
    "admin",
    "cashier",
    "croupier",
    "shoe",
    "macau-tables",
)
"""Words a password must not lean on: the casino's; with each game's (its name and its
plug-in's ``words``), the user's name and the tables' ids and names, they are zxcvbn's "user
inputs", guessed first."""

MIN_SCORE: Final = {
    UserRole.PLAYER: 2,
    UserRole.DEALER: 3,
    UserRole.SUPERVISOR: 3,
    UserRole.ADMIN: 3,
}
"""The zxcvbn score (0 to 4) a password needs, by role: staff need a stronger one."""

SCORED_LENGTH: Final = 64
"""How many characters of a password zxcvbn scores (it is slow on very long strings; a
password longer than this is at least as strong as its start)."""


def check_password(
    password: object, *, name: str, role: UserRole, words: tuple[str, ...] = ()
) -> str:
    """``password`` if it may be the password of user ``name`` with ``role``: at least
    :data:`MIN_PASSWORD` characters (``auth.password_too_short``) and a zxcvbn score of at
    least :data:`MIN_SCORE` for the role, guessed with the user's name, :data:`CASINO_WORDS`
    and ``words`` (the tables' names) as known words (``auth.password_weak``, saying what to
    do)."""
    if not isinstance(password, str) or len(password) < MIN_PASSWORD:
        raise AuthError("auth.password_too_short", minimum=MIN_PASSWORD)
    games = [w for plugin in GAMES.values() for w in (plugin.name, *plugin.words)]
    inputs = [name, ops.name_key(name), *CASINO_WORDS, *games, *words]
    result = zxcvbn(password[:SCORED_LENGTH], user_inputs=[w[:SCORED_LENGTH] for w in inputs])
    score, needed = int(result["score"]), MIN_SCORE[role]
    if score < needed:
        raise AuthError("auth.password_weak", role=role.value, score=score, needed=needed)
    return password


def _table_words(tx: Tx) -> tuple[str, ...]:
    words: list[str] = []
    for table in tx.tables():
        words += [table.table_id, table.name, *table.name.split()]
    return tuple(words)


def hash_password(password: str) -> str:
    """The argon2 hash of ``password``; refuses one shorter than :data:`MIN_PASSWORD`
    (``auth.password_too_short``)."""
    if not isinstance(password, str) or len(password) < MIN_PASSWORD:
        raise AuthError("auth.password_too_short", minimum=MIN_PASSWORD)
    return PASSWORD_HASHER.hash(password[:MAX_PASSWORD])


def parse_role(role: object) -> UserRole:
    """``role`` as a :class:`UserRole` (its value or the enum); else ``auth.bad_role``."""
    if isinstance(role, UserRole):
        return role
    if isinstance(role, str) and role in {r.value for r in UserRole}:
        return UserRole(role)
    raise AuthError("auth.bad_role", role=repr(role)[:60])


def create_user(
    store: Store,
    name: str,
    role: UserRole,
    password: str,
    *,
    actor: str = "system",
    reason: str | None = None,
) -> None:
    """Create user ``name`` with ``role`` and ``password`` (argon2-hashed), audited
    (``user_add``, by ``actor``). A player's name is their player id: their player and wallet
    are created too when the casino has none yet. Refuses a bad name (``auth.bad_name``), a name
    already used (``auth.user_exists``) or passing for another user's but for case and
    punctuation (``auth.name_lookalike``), a bad role (``auth.bad_role``), a short or
    guessable password (``auth.password_too_short``, ``auth.password_weak``:
    :func:`check_password`), with nothing written."""
    ops.check_user_name(name)
    checked = parse_role(role)
    store.read(lambda tx: ops.check_name_free(tx, name))  # before judging the password
    check_password(password, name=name, role=checked, words=store.read(_table_words))
    hashed = hash_password(password)

    def add(tx: Tx) -> None:
        ops.add_user(tx, name, checked.value, hashed, actor=actor)
        if checked is UserRole.PLAYER and tx.player(name) is None:
            tx.add_player(name, name)
        tx.audit(
            "user_add", actor=actor, reason=reason, detail={"name": name, "role": checked.value}
        )

    store.run(add)


def unlock_user(store: Store, name: str, principal: Principal, reason: str | None) -> int:
    """Forget every failed login of user ``name`` (from every address), so that no address
    waits before trying it again; audited ``user_unlock`` (by ``principal``, with ``reason``
    and how many failures were forgotten). Returns that number. Refuses a bad name
    (``auth.bad_name``) or an unknown user (``auth.user_unknown``), nothing written."""
    ops.check_user_name(name)

    def forget(tx: Tx) -> int:
        if ops.user(tx, name) is None:
            raise AuthError("auth.user_unknown", name=name)
        forgotten = ops.unlock(tx, ops.name_key(name))
        record_action(tx, principal, "user_unlock", reason, name=name, forgotten=forgotten)
        return forgotten

    result: int = store.run(forget)
    return result


def _verify(stored: str, password: str) -> bool:
    try:
        return PASSWORD_HASHER.verify(stored, password[:MAX_PASSWORD])
    except (VerificationError, InvalidHashError):
        return False


_DUMMY: list[str] = []


def _dummy_hash() -> str:
    # An unknown user costs the same hash verification as a known one (no timing oracle).
    if not _DUMMY:
        _DUMMY.append(PASSWORD_HASHER.hash(secrets.token_urlsafe(16)))
    return _DUMMY[0]


# -- settings and the store -----------------------------------------------------------------------


def _runtime(conn: HTTPConnection) -> Any:
    return conn.app.state.runtime


def _store(conn: HTTPConnection) -> Store:
    store: Store = _runtime(conn).store
    return store


def _setting(conn: HTTPConnection, name: str, default: Any) -> Any:
    settings = getattr(_runtime(conn), "settings", None)
    value = getattr(settings, name, None)
    return default if value is None else value


def _clock(conn: HTTPConnection) -> Callable[[], datetime] | None:
    """The runtime's clock (tests move it), else ``None``: the store's."""
    clock = getattr(_runtime(conn), "clock", None)
    now = getattr(clock, "now", None)
    return now if callable(now) else None


def _digest(secret: str) -> str:
    return hashlib.sha256(secret.encode("utf-8", "surrogateescape")).hexdigest()


def csrf_token(secret: str) -> str:
    """The CSRF token of the cookie session whose secret is ``secret`` (derived one-way: only
    who holds the cookie can know it, and the store need not keep it)."""
    return hashlib.sha256(
        b"macau-tables csrf\0" + secret.encode("utf-8", "surrogateescape")
    ).hexdigest()


def csrf_token_of(conn: HTTPConnection) -> str | None:
    """The CSRF token a page must send back with its forms (``None`` without a session
    cookie)."""
    secret = conn.cookies.get(SESSION_COOKIE)
    return csrf_token(secret) if secret else None


# -- signing in -----------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class SignedIn:
    """A new session or token: its secret (shown once), whose, until when."""

    secret: str
    name: str
    role: UserRole
    expires: datetime


LOGIN_DELAY_MAX: Final = 300
"""The longest wait (seconds) before a name may be tried again from an address that keeps
failing (the waits grow 1, 2, 4 … up to this)."""
SLOW_DOWN_MAX: Final = 3.0
"""The longest pause (seconds) before answering a login of a name that fails from many
addresses (the pauses grow 0.25, 0.5, 1, 2 … up to this); such a login is never refused."""


def login_wait(failures: int, latest: datetime | None, attempts: int, now: datetime) -> int:
    """Whole seconds still to wait after ``failures`` failed logins, the latest at ``latest``:
    none below ``attempts``, then 1, 2, 4 … up to :data:`LOGIN_DELAY_MAX` after the latest."""
    if failures < attempts or latest is None:
        return 0
    delay: int = min(LOGIN_DELAY_MAX, 1 << min(failures - attempts, 16))
    return max(0, math.ceil(delay - (now - latest).total_seconds()))


def slow_down(failures: int, attempts: int) -> float:
    """The pause (seconds) before answering a login of a name with ``failures`` failed logins
    from every address: none below ``attempts``, then 0.25, 0.5, 1, 2 … up to
    :data:`SLOW_DOWN_MAX`."""
    if failures < attempts:
        return 0.0
    return min(SLOW_DOWN_MAX, 0.25 * float(1 << min(failures - attempts, 8)))


def sign_in(
    store: Store,
    name: str,
    password: str,
    *,
    address: str,
    kind: str = "token",
    lifetime: timedelta = timedelta(seconds=DEFAULT_SESSION_SECONDS),
    attempts: int = DEFAULT_LOGIN_ATTEMPTS,
    window: timedelta = timedelta(seconds=DEFAULT_LOGIN_WINDOW_SECONDS),
    clock: Callable[[], datetime] | None = None,
    sleep: Callable[[float], None] | None = None,
) -> SignedIn:
    """Check ``name``'s ``password`` and open a session (``kind="cookie"``) or bearer token
    (``"token"``). Failed logins count for ``window`` (the store keeps them, so every server
    process counts them):

    * from one address, ``attempts`` failures of the name — or of any names — make each
      further try from that address wait 1, 2, 4 … up to :data:`LOGIN_DELAY_MAX` seconds after
      the latest failure: ``auth.throttled`` (429) with ``retry_after`` seconds. Only an
      address that has failed is ever refused; a success from it forgets its failures of the
      name, and an administrator's unlock (:func:`unlock_user`) forgets the name's failures;
    * from every address, ``attempts`` failures of the name slow its logins down —
      ``sleep(seconds)`` (default ``time.sleep``) of :func:`slow_down` before the password is
      checked — but never refuse them: no one elsewhere can lock its owner out.

    Also refused (nothing opened): an unknown name or a wrong password
    (``auth.bad_credentials``, and the failure is counted), a disabled user
    (``auth.user_disabled``). Time is ``clock()`` (default: the store's clock)."""
    if not ops.NAME_PATTERN.fullmatch(name):
        name = "?"  # no such user; never sent to the database as given (NUL, 10 kB, …)
    address = address.replace("\x00", "")[:100] or "unknown"
    key = ops.name_key(name) or "?"  # failures count by the name as sign-in reads it

    def check(tx: Tx) -> tuple[ops.UserRecord | None, ops.Failures, datetime]:
        now = clock() if clock else tx.now()
        failures = ops.failures_since(tx, name=key, address=address, since=now - window)
        found = ops.user_signing_in(tx, name) if name != "?" else None
        return found, failures, now

    found, failures, now = store.read(check)
    wait = max(
        login_wait(failures.pair, failures.pair_latest, attempts, now),
        login_wait(failures.address, failures.address_latest, attempts, now),
    )
    if wait:
        raise AuthRefused("auth.throttled", headers={"Retry-After": str(wait)}, retry_after=wait)
    pause = slow_down(failures.name, attempts)
    if pause:
        (sleep or time.sleep)(pause)
    ok = _verify(found.password_hash if found else _dummy_hash(), password)
    if found is None or not ok:
        at = clock() if clock else None
        store.run(lambda tx: ops.record_failure(tx, key, address, at=at))
        raise AuthRefused("auth.bad_credentials", headers=_BEARER)
    name = found.name  # the user's own spelling
    if found.disabled:
        raise AuthError("auth.user_disabled", name=name)
    rehashed = (
        PASSWORD_HASHER.hash(password)
        if PASSWORD_HASHER.check_needs_rehash(found.password_hash)
        else None
    )
    secret = secrets.token_urlsafe(32)

    def open_session(tx: Tx) -> datetime:
        now = clock() if clock else tx.now()
        expires = now + lifetime
        ops.put_session(tx, _digest(secret), name, kind, expires_at=expires, now=now)
        ops.forget_failures(tx, name=key, address=address, before=now - window)
        if rehashed is not None:
            ops.set_password_hash(tx, name, rehashed)
        return expires

    expires = store.run(open_session)
    return SignedIn(secret, name, UserRole(found.role), expires)


async def issue(conn: HTTPConnection, name: str, password: str, kind: str) -> SignedIn:
    """:func:`sign_in` with the request's store, settings and client address; a slow-down is
    waited on the event loop (no worker thread is held by it), or — a test's clock that has a
    ``sleep`` — asked of the runtime's clock."""
    address = conn.client.host if conn.client is not None else "unknown"
    asked: list[float] = []
    try:
        return await run_in_threadpool(
            partial(
                sign_in,
                _store(conn),
                name,
                password,
                address=address,
                kind=kind,
                lifetime=timedelta(
                    seconds=int(_setting(conn, "session_seconds", DEFAULT_SESSION_SECONDS))
                ),
                attempts=int(_setting(conn, "login_attempts", DEFAULT_LOGIN_ATTEMPTS)),
                window=timedelta(
                    seconds=int(
                        _setting(conn, "login_window_seconds", DEFAULT_LOGIN_WINDOW_SECONDS)
                    )
                ),
                clock=_clock(conn),
                sleep=asked.append,
            )
        )
    finally:
        if asked:
            await _pause(conn, sum(asked))


async def _pause(conn: HTTPConnection, seconds: float) -> None:
    sleep = getattr(getattr(_runtime(conn), "clock", None), "sleep", None)
    if callable(sleep):
        sleep(seconds)  # a test's clock: it records what it was asked to wait
    else:
        await asyncio.sleep(seconds)


# -- who is asking --------------------------------------------------------------------------------


def _lookup(
    store: Store, secret: str, kind: str, clock: Callable[[], datetime] | None = None
) -> Principal:
    return _lookup_session(store, secret, kind, clock)[0]


def _lookup_session(
    store: Store, secret: str, kind: str, clock: Callable[[], datetime] | None = None
) -> tuple[Principal, datetime]:
    """Who holds session or token ``secret`` and when it expires (refused: unknown, disabled,
    expired)."""
    digest = _digest(secret)

    def read(tx: Tx) -> tuple[ops.SessionRecord | None, datetime]:
        return ops.session(tx, digest), clock() if clock else tx.now()

    found, now = store.read(read)
    refusal = _refusal(found, kind, now)
    if refusal is not None:
        raise refusal
    assert found is not None
    return Principal(found.user_name, UserRole(found.role), via=kind), found.expires_at


def _refusal(found: ops.SessionRecord | None, kind: str, now: datetime) -> AuthRefused | None:
    """Why session ``found`` (of ``kind``, asked ``now``) does not stand: unknown (none, of
    another kind, its user disabled), expired; ``None`` when it stands."""
    if found is None or found.kind != kind or found.disabled:
        return AuthRefused("auth.session_unknown", headers=_BEARER)
    if found.expires_at <= now:
        return AuthRefused(
            "auth.session_expired",
            headers=_BEARER,
            expired=found.expires_at.isoformat(timespec="seconds"),
        )
    return None


_DEFAULT_PORTS: Final = {"http": "80", "https": "443"}


def _origin(scheme: str, netloc: str) -> str:
    scheme = scheme.lower()
    host, colon, port = netloc.lower().rpartition(":")
    if not colon or "]" in port:  # no port (or the end of an IPv6 address)
        host, port = netloc.lower(), ""
    if port == _DEFAULT_PORTS.get(scheme):
        port = ""
    return f"{scheme}://{host}{':' + port if port else ''}"


def own_origin(conn: HTTPConnection) -> str:
    """This server's origin as the browser sees it: the request's scheme — the one a proxy
    named in ``trusted_proxies`` forwarded (``X-Forwarded-Proto``, applied to the request by
    the app's proxy-headers middleware); ``ws``/``wss`` read as ``http``/``https`` — and its
    ``Host``, default ports left out."""
    scheme = {"ws": "http", "wss": "https"}.get(conn.url.scheme, conn.url.scheme)
    return _origin(scheme, conn.headers.get("host", ""))


def same_origin(conn: HTTPConnection) -> bool | None:
    """Whether a request or socket comes from this site's own pages, by what the browser says:
    ``True`` for ``Sec-Fetch-Site: same-origin`` or an ``Origin`` equal to :func:`own_origin`;
    ``False`` for any other ``Sec-Fetch-Site`` or ``Origin`` (another site, ``null``);
    ``None`` when it carries neither (not a browser, or a browser that tells nothing)."""
    fetch_site = conn.headers.get("sec-fetch-site")
    if fetch_site is not None:
        return fetch_site.strip().lower() == "same-origin"
    origin = conn.headers.get("origin")
    if origin is None:
        return None
    parts = urlsplit(origin.strip())
    if not parts.scheme or not parts.netloc:
        return False  # "null" (a sandboxed page, a redirect across sites), garbage
    return _origin(parts.scheme, parts.netloc) == own_origin(conn)


def _check_origin(request: Request) -> None:
    """Refuse (``auth.cross_site``, 403) a cookie login or a state change of a cookie session
    that does not say it comes from this site's pages (:func:`same_origin` ``True``): a form
    another site makes the victim's browser post, which ``SameSite`` alone does not stop for a
    login (there is no cookie yet) nor on a sibling site."""
    if same_origin(request) is not True:
        raise AuthError("auth.cross_site")


async def _check_csrf(request: Request, secret: str) -> None:
    presented: object = request.headers.get(CSRF_HEADER)
    if presented is None:
        content_type = request.headers.get("content-type", "")
        if content_type.startswith(("application/x-www-form-urlencoded", "multipart/form-data")):
            form = await request.form()
            presented = form.get(CSRF_FIELD)
    if not isinstance(presented, str) or not presented:
        raise AuthError("auth.csrf_missing")
    expected = csrf_token(secret).encode()
    if not hmac.compare_digest(presented.encode("utf-8", "surrogateescape"), expected):
        raise AuthError("auth.csrf_mismatch")


def _credentials(request: Request) -> tuple[str, str] | None:
    """The request's secret and its kind (``"token"``: a bearer token in ``Authorization``;
    ``"cookie"``: the session cookie); ``None``: no credentials at all. Refuses a malformed
    ``Authorization`` header."""
    header = request.headers.get("authorization")
    if header is not None:
        scheme, _, secret = header.strip().partition(" ")
        secret = secret.strip()
        if scheme.lower() != "bearer" or not secret:
            raise AuthRefused("auth.unauthenticated", headers=_BEARER)
        return secret, "token"
    secret = request.cookies.get(SESSION_COOKIE, "")
    return (secret, "cookie") if secret else None


def _signed_in(request: Request, principal: Principal, secret: str) -> None:
    """Remember who the request is from (the request log names them; a second rule of the
    same request does not look them up again)."""
    request.state.principal = principal
    request.state.auth_secret = secret


async def _authenticate(request: Request) -> Principal | None:
    """The request's principal (``None``: no credentials at all); refuses bad ones."""
    cached = getattr(request.state, "principal", None)
    if isinstance(cached, Principal):
        return cached
    found = _credentials(request)
    if found is None:
        return None
    secret, kind = found
    principal = await run_in_threadpool(_lookup, _store(request), secret, kind, _clock(request))
    if kind == "cookie" and request.method.upper() not in SAFE_METHODS:
        _check_origin(request)
        await _check_csrf(request, secret)
    _signed_in(request, principal, secret)
    return principal


def _admitted(principal: Principal, allowed: frozenset[UserRole], names: str) -> Principal:
    """``principal`` if their role is one of ``allowed`` (named ``names``), else
    ``auth.forbidden`` (403)."""
    if principal.role not in allowed:
        raise AuthError("auth.forbidden", name=principal.name, role=principal.role, allowed=names)
    return principal


RuleDependency = Callable[[Request], Awaitable[Principal]]
_RULES: dict[frozenset[UserRole], RuleDependency] = {}
_ROLES_OF: dict[Callable[..., Any], frozenset[UserRole]] = {}


def _allowed_roles(roles: tuple[UserRole | str, ...]) -> tuple[frozenset[UserRole], str]:
    allowed = frozenset(parse_role(r) for r in roles)
    if not allowed:
        raise ValueError("a role rule needs at least one role (use `public` for anyone)")
    return allowed, ", ".join(r.value for r in UserRole if r in allowed)


def _rule_name(prefix: str, allowed: frozenset[UserRole]) -> str:
    return prefix + "_".join(r.value for r in UserRole if r in allowed)


def require(*roles: UserRole) -> RuleDependency:
    """The dependency that lets in a signed-in user whose role is one of ``roles`` and returns
    their :class:`Principal`: 401 (``auth.unauthenticated``, ``auth.session_*``) without a valid
    session or token, 403 (``auth.forbidden``) for another role. The same roles give the same
    dependency."""
    allowed, names = _allowed_roles(roles)
    known = _RULES.get(allowed)
    if known is not None:
        return known

    async def rule(request: Request) -> Principal:
        principal = await _authenticate(request)
        if principal is None:
            raise AuthRefused("auth.unauthenticated", headers=_BEARER)
        return _admitted(principal, allowed, names)

    rule.__name__ = rule.__qualname__ = _rule_name("require_", allowed)
    _RULES[allowed] = rule
    _ROLES_OF[rule] = allowed
    return rule


Deferred = Callable[[], Principal]
"""What :func:`require_in_thread` gives an endpoint: call it (in the endpoint's own worker
thread) for the :class:`Principal`, or the refusal."""

_THREAD_RULES: dict[frozenset[UserRole], Callable[[Request], Awaitable[Deferred]]] = {}


def require_in_thread(*roles: UserRole) -> Callable[[Request], Awaitable[Deferred]]:
    """The rule of :func:`require` for a plain-function endpoint, whose bearer token is looked
    up in the worker thread that runs the endpoint: the dependency returns a
    :data:`Deferred` the endpoint calls first, before it does anything, and that returns the
    :class:`Principal` or raises the same refusals as :func:`require` (401, 403). A request
    costs one hand-over to a worker thread instead of two (the lookup, then the endpoint);
    every request still reads its token from the store — a token revoked, expired or of a
    disabled user is refused at its next request on every server process.

    Refused at once, with no lookup: a request with no credentials, or a malformed
    ``Authorization`` header (401). A cookie session is looked up and its CSRF token checked
    before the body is read, as :func:`require` does. A bearer request whose body the
    endpoint cannot take is answered so (400, 422) before its token is looked up: the answer
    says nothing but what the published API document says, and nothing is done. The same
    roles give the same dependency; :func:`endpoint_rules` reads it as :func:`require`'s."""
    allowed, names = _allowed_roles(roles)
    known = _THREAD_RULES.get(allowed)
    if known is not None:
        return known

    async def rule(request: Request) -> Deferred:
        cached = getattr(request.state, "principal", None)
        found = None if isinstance(cached, Principal) else _credentials(request)
        if found is None or found[1] == "cookie":
            principal = await _authenticate(request)
            if principal is None:
                raise AuthRefused("auth.unauthenticated", headers=_BEARER)
            checked = _admitted(principal, allowed, names)
            return lambda: checked
        secret = found[0]
        store, clock = _store(request), _clock(request)

        def signed_in() -> Principal:
            principal = _admitted(_lookup(store, secret, "token", clock), allowed, names)
            _signed_in(request, principal, secret)
            return principal

        return signed_in

    rule.__name__ = rule.__qualname__ = _rule_name("require_in_thread_", allowed)
    _THREAD_RULES[allowed] = rule
    _ROLES_OF[rule] = allowed
    return rule


current_principal: Final = require(*UserRole)
"""Any signed-in user (the rule "every role"); returns the :class:`Principal`."""


async def optional_principal(request: Request) -> Principal | None:
    """The signed-in user, or ``None`` (no credentials, or credentials no longer valid). Not a
    role rule: a route using it also carries ``public`` or ``require``."""
    try:
        return await _authenticate(request)
    except MacauTablesError:
        return None


async def public() -> None:
    """The rule "anyone, signed in or not" (``dependencies=[Depends(public)]``; a coroutine,
    so FastAPI calls it on the event loop, not in a worker thread)."""
    return None


# -- the rules of an app --------------------------------------------------------------------------


def _rules_of(dependant: Any, found: dict[Callable[..., Any], frozenset[UserRole] | None]) -> None:
    for sub in dependant.dependencies:
        call = sub.call
        if call is public:
            found[call] = None
        elif call in _ROLES_OF:
            found[call] = _ROLES_OF[call]
        _rules_of(sub, found)


def _walk(app: FastAPI) -> tuple[dict[tuple[str, str], frozenset[UserRole] | None], list[str]]:
    rules: dict[tuple[str, str], frozenset[UserRole] | None] = {}
    problems: list[str] = []
    framework = {app.openapi_url, app.docs_url, app.redoc_url, app.swagger_ui_oauth2_redirect_url}
    for context in iter_route_contexts(app.routes):
        route = context.original_route
        path = str(context.path)
        if isinstance(route, APIRoute):
            found: dict[Callable[..., Any], frozenset[UserRole] | None] = {}
            _rules_of(context.dependant, found)
            methods = sorted(context.methods or ())
            where = f"{'/'.join(methods)} {path}"
            if not found:
                problems.append(f"{where}: no role rule (add require(...) or public)")
                continue
            if len(found) > 1:
                names = sorted(getattr(c, "__name__", repr(c)) for c in found)
                problems.append(f"{where}: {len(found)} role rules ({', '.join(names)})")
                continue
            (value,) = found.values()
            for method in methods:
                rules[(method, path)] = value
        elif isinstance(route, APIWebSocketRoute | WebSocketRoute):
            continue  # sockets authenticate themselves (authenticate_websocket)
        elif isinstance(route, Route) and path in framework:
            for method in sorted(context.methods or {"GET"}):
                rules[(method, path)] = None  # the OpenAPI schema and its viewers
        elif isinstance(route, Mount) and isinstance(route.app, StaticFiles):
            rules[("GET", path + "/{path}")] = None  # static assets
        else:
            problems.append(f"{path!r}: a route without a role rule")
    return rules, problems


def rule_problems(app: FastAPI) -> list[str]:
    """The routes of ``app`` without exactly one role rule (empty when all is well)."""
    return _walk(app)[1]


def endpoint_rules(app: FastAPI) -> dict[tuple[str, str], frozenset[UserRole] | None]:
    """``(method, path) -> roles`` (``None``: public) for every HTTP route of ``app``, read
    from the routes' dependencies. Raises ``ValueError`` naming every route without exactly
    one rule."""
    rules, problems = _walk(app)
    if problems:
        raise ValueError("routes without exactly one role rule:\n" + "\n".join(problems))
    return rules


# -- WebSockets -----------------------------------------------------------------------------------


async def authenticate_websocket(websocket: WebSocket) -> Principal | None:
    """Who opens ``websocket`` (before ``accept``): a bearer token (``Authorization`` header, or
    the ``token`` query parameter for browsers), else the session cookie when the socket comes
    from the page's own origin (no cross-site socket rides a session). ``None`` when there are
    no valid credentials (the caller serves the public audience or closes the socket)."""
    signed = await websocket_session(websocket)
    return None if signed is None else signed.principal


@dataclass(frozen=True, slots=True)
class SocketSession:
    """The session or token a socket was opened with: who, until when, and (for
    :func:`session_refusal`) the secret and how it came (``token`` or ``cookie``)."""

    principal: Principal
    expires: datetime
    secret: str = field(repr=False)
    kind: str


async def websocket_session(websocket: WebSocket) -> SocketSession | None:
    """:func:`authenticate_websocket` with the session or token it found (an open socket is
    closed after its expiry, or once it no longer stands: :mod:`.streams`)."""
    store = _store(websocket)
    header = websocket.headers.get("authorization", "")
    scheme, _, secret = header.strip().partition(" ")
    token = secret.strip() if scheme.lower() == "bearer" else ""
    token = token or websocket.query_params.get("token", "")
    cookie = websocket.cookies.get(SESSION_COOKIE, "")
    if token:
        secret, kind = token, "token"
    elif cookie and same_origin(websocket) is not False:  # None: not a browser
        secret, kind = cookie, "cookie"
    else:
        return None
    try:
        principal, expires = await run_in_threadpool(
            _lookup_session, store, secret, kind, _clock(websocket)
        )
    except MacauTablesError:
        return None
    return SocketSession(principal, expires, secret, kind)


def session_refusal(
    store: Store, session: SocketSession, clock: Callable[[], datetime] | None = None
) -> MacauTablesError | None:
    """Why ``session`` no longer stands — signed out (``auth.session_unknown``), its user
    disabled (the same: disabling ends the user's sessions), expired (``auth.session_expired``)
    — read from the store, so whichever server process ended it; ``None`` while it stands.
    One read (called from a worker thread)."""
    try:
        _lookup_session(store, session.secret, session.kind, clock)
    except AuthRefused as refusal:
        return refusal
    return None


def session_refusals(
    store: Store,
    sessions: Sequence[SocketSession],
    clock: Callable[[], datetime] | None = None,
) -> list[MacauTablesError | None]:
    """:func:`session_refusal` of many sessions in ONE read of the store
    (:func:`~macau_tables.store.users_ops.sessions`): for each of ``sessions``, in order, why it
    no longer stands, or ``None``. The table sockets of a process are checked so, all at once,
    every ``session_check_seconds`` (:mod:`.session_watch`)."""
    return store.read(lambda tx: sessions_refused(tx, sessions, clock() if clock else tx.now()))


def sessions_refused(
    tx: Tx, sessions: Sequence[SocketSession], now: datetime
) -> list[MacauTablesError | None]:
    """:func:`session_refusals` read in ``tx`` at ``now`` (one statement): a table socket's
    commands check their sessions so in the transaction that commits them
    (:meth:`.session_watch.SessionWatch.guard`)."""
    digests = [_digest(s.secret) for s in sessions]
    found = ops.sessions(tx, digests)
    return [_refusal(found.get(d), s.kind, now) for d, s in zip(digests, sessions, strict=True)]


# -- the audit log --------------------------------------------------------------------------------


def _json_ready(value: object) -> object:
    if value is None or isinstance(value, str | int | bool):
        return value
    if isinstance(value, Mapping):
        return {str(k): _json_ready(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_json_ready(v) for v in value]
    inner = getattr(value, "value", None)
    if isinstance(inner, str | int):
        return inner
    return str(value)


def record_action(
    target: Any, principal: Principal, action: str, reason: str | None, **details: object
) -> int:
    """Record privileged ``action`` by ``principal`` in the store's audit log: who (name, role,
    how signed in), when (the store's clock), why (``reason``) and ``details`` (JSON-ready; a
    ``table_id`` detail also fills the entry's table). ``target`` is a store, a runtime (its
    store) or an open ``Tx`` (the entry commits with the caller's own writes). Returns the entry's
    id."""
    table_id = details.pop("table_id", None)
    detail = {
        "role": principal.role.value,
        "via": principal.via,
        **{k: _json_ready(v) for k, v in details.items()},
    }

    def write(tx: Tx) -> int:
        return tx.audit(
            action,
            actor=principal.name,
            table_id=None if table_id is None else str(table_id),
            reason=reason,
            detail=detail,
        )

    if isinstance(target, Tx):
        return write(target)
    store = target if isinstance(target, Store) else target.store
    result: int = store.run(write)
    return result


# -- the routes -----------------------------------------------------------------------------------

router = APIRouter(tags=["auth"])


class Credentials(BaseModel):
    """A user's name and password."""

    name: str = Field(min_length=1, max_length=100)
    password: str = Field(min_length=1, max_length=MAX_PASSWORD)


class TokenOut(BaseModel):
    """A bearer token (shown once), its expiry and the user's role."""

    token: str
    expires: datetime
    role: UserRole


class SessionOut(BaseModel):
    """A signed-in session: whose, their role, its expiry and its CSRF token."""

    name: str
    role: UserRole
    expires: datetime
    csrf_token: str


class Me(BaseModel):
    """Who is asking."""

    name: str
    role: UserRole
    via: str
    csrf_token: str | None = None


@router.post(
    "/api/auth/token",
    response_model=TokenOut,
    dependencies=[Depends(public)],
    summary="A bearer token for an API client",
)
async def create_token(request: Request, credentials: Credentials) -> TokenOut:
    """Check the name and password; return a new bearer token (send it as ``Authorization:
    Bearer TOKEN``), valid for ``session_seconds``."""
    signed = await issue(request, credentials.name, credentials.password, "token")
    return TokenOut(token=signed.secret, expires=signed.expires, role=signed.role)


_LOGIN_BODY: Final = {
    "required": True,
    "content": {
        "application/json": {"schema": Credentials.model_json_schema()},
        "application/x-www-form-urlencoded": {
            "schema": {
                "type": "object",
                "required": ["name", "password"],
                "properties": {
                    "name": {"type": "string", "maxLength": 100},
                    "password": {"type": "string", "maxLength": MAX_PASSWORD},
                    "next": {"type": "string"},
                },
            }
        },
    },
}


async def _login_fields(request: Request) -> tuple[str, str, str | None]:
    content_type = request.headers.get("content-type", "")
    data: Mapping[str, Any]
    try:
        if content_type.startswith(("application/x-www-form-urlencoded", "multipart/form-data")):
            data = await request.form()
        else:
            data = await request.json()
    except Exception:  # malformed JSON or form: a refusal, never a 500
        raise AuthError("auth.login_unreadable") from None
    if not isinstance(data, Mapping):
        raise AuthError("auth.login_unreadable")
    name, password, after = data.get("name"), data.get("password"), data.get("next")
    if not isinstance(name, str) or not isinstance(password, str) or not name or not password:
        raise AuthError("auth.login_unreadable")
    if len(name) > 100 or len(password) > MAX_PASSWORD:
        raise AuthError("auth.login_unreadable")
    return name, password, safe_next(after)


def safe_next(after: object) -> str | None:
    """``after`` if it is a path on this site to go to after signing in, else ``None``.

    A browser resolves a link against the page's origin after dropping tabs and newlines,
    trimming control characters and spaces, and reading ``\\`` as ``/``: ``/\\evil.example``
    and ``/<TAB>/evil.example`` are ``//evil.example``, another site. So a path is kept only
    when it starts with one ``/`` and holds none of those characters, no scheme and no host —
    what stays on this origin however it is resolved (``login.js`` checks the same in the
    browser by resolving it)."""
    if not isinstance(after, str) or not after.startswith("/") or after.startswith("//"):
        return None
    if any(c <= " " or c in "\\\x7f" for c in after):
        return None
    parts = urlsplit(after)
    if parts.scheme or parts.netloc or len(after) > 2000:
        return None
    return after


def _secure(request: Request) -> bool:
    setting = _setting(request, "secure_cookies", None)
    return bool(setting) if setting is not None else request.url.scheme == "https"


@router.post(
    "/api/auth/login",
    response_model=SessionOut,
    dependencies=[Depends(public)],
    summary="Sign in a page: a session cookie and its CSRF token",
    openapi_extra={"requestBody": _LOGIN_BODY},
    responses={303: {"description": "A form's redirect to its next page"}},
)
async def login(request: Request) -> Response:
    """Check the name and password (a form or JSON); set the session cookie (HttpOnly,
    SameSite=Strict, Secure over TLS) and return the session's CSRF token. A form with a
    ``next`` path (on this site) is answered with a redirect there instead. Only from this
    site's pages (``Origin`` or ``Sec-Fetch-Site``, else ``auth.cross_site``): another site's
    form must not sign the visitor's browser in to someone else's account."""
    _check_origin(request)
    name, password, after = await _login_fields(request)
    signed = await issue(request, name, password, "cookie")
    body = SessionOut(
        name=signed.name,
        role=signed.role,
        expires=signed.expires,
        csrf_token=csrf_token(signed.secret),
    )
    response: Response
    if after is not None:
        response = RedirectResponse(after, status_code=303)
    else:
        response = JSONResponse(body.model_dump(mode="json"))
    response.set_cookie(
        SESSION_COOKIE,
        signed.secret,
        max_age=int(_setting(request, "session_seconds", DEFAULT_SESSION_SECONDS)),
        path="/",
        httponly=True,
        secure=_secure(request),
        samesite="strict",
    )
    return response


@router.post(
    "/api/auth/logout",
    summary="End this session or token",
)
def logout(
    request: Request, principal: Annotated[Principal, Depends(current_principal)]
) -> JSONResponse:
    """End the session or bearer token this request came with (and clear the cookie)."""
    secret = str(request.state.auth_secret)
    _store(request).run(lambda tx: ops.delete_session(tx, _digest(secret)))
    response = JSONResponse({"signed_out": principal.name})
    response.delete_cookie(
        SESSION_COOKIE, path="/", httponly=True, secure=_secure(request), samesite="strict"
    )
    return response


@router.get("/api/auth/me", response_model=Me, summary="Who is asking")
def me(request: Request, principal: Annotated[Principal, Depends(current_principal)]) -> Me:
    """The signed-in user, their role, how they signed in (and a page's CSRF token)."""
    token = csrf_token_of(request) if principal.via == "cookie" else None
    return Me(name=principal.name, role=principal.role, via=principal.via, csrf_token=token)


def _include_users() -> None:
    from .auth_users import router as users_router  # its routes join this router

    router.include_router(users_router)


_include_users()
