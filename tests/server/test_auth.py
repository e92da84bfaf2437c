"""Users and security (issue 10, item 2 and the security tests of item 5), on SQLite and
PostgreSQL: argon2 passwords, bearer tokens and cookie sessions (HttpOnly, SameSite=Strict,
Secure over TLS), CSRF on every state-changing request of a cookie session, expiry, login
throttling held in the store, disabled users, users' administration audited with who and why,
``authenticate_websocket`` and ``record_action``."""

from __future__ import annotations

import hashlib
import operator
import string
import threading
from datetime import UTC, datetime, timedelta
from typing import Any
from urllib.parse import urlsplit

import pytest
from argon2 import PasswordHasher
from fastapi import Depends, FastAPI, WebSocket
from fastapi.testclient import TestClient
from hypothesis import given, settings
from hypothesis import strategies as st
from tests.db_fixtures import on_sqlite_first_on_both
from tests.server.support import PASSWORD, SAME_ORIGIN, login

from macau_tables.errors import AuthError
from macau_tables.server import auth
from macau_tables.server.app import create_app
from macau_tables.server.principal import Principal, UserRole
from macau_tables.server.runtime import Runtime
from macau_tables.store import Store
from macau_tables.store import users_ops as ops


@pytest.fixture
def served_tables() -> tuple[str, ...]:
    """The one table these tests act at (the others need no loading)."""
    return ("bac-1",)


def _token(client: TestClient, name: str) -> str:
    response = client.post("/api/auth/token", json={"name": name, "password": PASSWORD[name]})
    assert response.status_code == 200, response.text
    token: str = response.json()["token"]
    return token


def _key(response: Any) -> str:
    key: str = response.json()["error"]["key"]
    return key


def _cookie_login(client: TestClient, name: str) -> str:
    response = client.post("/api/auth/login", json={"name": name, "password": PASSWORD[name]})
    assert response.status_code == 200, response.text
    csrf: str = response.json()["csrf_token"]
    return csrf


# -- bearer tokens --------------------------------------------------------------------------------


def test_a_token_names_its_user_role_and_expiry(client: TestClient, runtime: Runtime) -> None:
    response = client.post(
        "/api/auth/token", json={"name": "dealer", "password": PASSWORD["dealer"]}
    )
    assert response.status_code == 200, response.text
    body = response.json()
    assert body["role"] == "dealer"
    expected = runtime.clock.now() + timedelta(seconds=runtime.settings.session_seconds)
    assert body["expires"].startswith(expected.strftime("%Y-%m-%dT%H:%M:%S"))
    me = client.get("/api/auth/me", headers={"Authorization": f"Bearer {body['token']}"})
    assert me.json() == {"name": "dealer", "role": "dealer", "via": "token", "csrf_token": None}


def test_the_store_keeps_no_secret(client: TestClient, store: Store) -> None:
    token = _token(client, "alice")
    record = store.read(lambda tx: ops.user(tx, "alice"))
    assert record is not None
    assert record.password_hash.startswith("$argon2id$")
    assert PASSWORD["alice"] not in record.password_hash
    digest = hashlib.sha256(token.encode()).hexdigest()
    session = store.read(lambda tx: ops.session(tx, digest))
    assert session is not None and session.kind == "token"
    assert store.read(lambda tx: ops.session(tx, token)) is None  # only its hash is a key


def test_a_wrong_password_and_an_unknown_user_are_refused_alike(client: TestClient) -> None:
    wrong = client.post("/api/auth/token", json={"name": "alice", "password": "not-hers-1234"})
    nobody = client.post("/api/auth/token", json={"name": "nobody", "password": "whatever-123"})
    for response in (wrong, nobody):
        assert response.status_code == 401
        assert _key(response) == "auth.bad_credentials"
        assert response.headers["www-authenticate"].startswith("Bearer")


@on_sqlite_first_on_both(
    "header",
    ["Basic YWxpY2U6eA==", "Bearer", "Bearer not-a-token", "bearer  "],
)
def test_bad_authorization_headers_are_401(client: TestClient, header: str) -> None:
    response = client.get("/api/auth/me", headers={"Authorization": header})
    assert response.status_code == 401
    assert _key(response) in {"auth.unauthenticated", "auth.session_unknown"}


def test_no_credentials_is_401(client: TestClient) -> None:
    response = client.get("/api/auth/me")
    assert response.status_code == 401
    assert _key(response) == "auth.unauthenticated"


def test_sessions_expire(client: TestClient, runtime: Runtime) -> None:
    headers = login(client, "supervisor")
    assert client.get("/api/auth/me", headers=headers).status_code == 200
    runtime.clock.advance(runtime.settings.session_seconds - 1)  # type: ignore[attr-defined]
    assert client.get("/api/auth/me", headers=headers).status_code == 200
    runtime.clock.advance(1)  # type: ignore[attr-defined]
    response = client.get("/api/auth/me", headers=headers)
    assert response.status_code == 401
    assert _key(response) == "auth.session_expired"
    assert "expired" in response.json()["error"]["params"]


def test_logout_ends_a_token(client: TestClient) -> None:
    headers = login(client, "bruno")
    assert client.post("/api/auth/logout", headers=headers).status_code == 200
    response = client.get("/api/auth/me", headers=headers)
    assert response.status_code == 401
    assert _key(response) == "auth.session_unknown"


# -- cookie sessions and CSRF ---------------------------------------------------------------------


def test_the_session_cookie_is_httponly_and_samesite_strict(client: TestClient) -> None:
    response = client.post("/api/auth/login", json={"name": "alice", "password": PASSWORD["alice"]})
    assert response.status_code == 200, response.text
    cookie = response.headers["set-cookie"].lower()
    assert cookie.startswith(auth.SESSION_COOKIE + "=")
    assert "httponly" in cookie and "samesite=strict" in cookie and "path=/" in cookie
    assert "secure" not in cookie  # plain HTTP (the test client's)
    body = response.json()
    assert body["name"] == "alice" and body["role"] == "player" and len(body["csrf_token"]) == 64
    me = client.get("/api/auth/me")
    assert me.json()["via"] == "cookie" and me.json()["csrf_token"] == body["csrf_token"]


def test_the_session_cookie_is_secure_over_tls(runtime: Runtime) -> None:
    from macau_tables.server.app import create_app

    with TestClient(
        create_app(runtime), base_url="https://testserver", headers={"Origin": "https://testserver"}
    ) as tls:
        response = tls.post(
            "/api/auth/login", json={"name": "bruno", "password": PASSWORD["bruno"]}
        )
        assert response.status_code == 200, response.text
        assert "secure" in response.headers["set-cookie"].lower()


def test_a_cookie_session_s_state_changes_need_the_csrf_token(client: TestClient) -> None:
    csrf = _cookie_login(client, "alice")
    missing = client.post("/api/auth/logout")
    assert missing.status_code == 403 and _key(missing) == "auth.csrf_missing"
    wrong = client.post("/api/auth/logout", headers={auth.CSRF_HEADER: "0" * 64})
    assert wrong.status_code == 403 and _key(wrong) == "auth.csrf_mismatch"
    latin = "ü".encode("latin-1")  # not ASCII
    other = client.post("/api/auth/logout", headers={auth.CSRF_HEADER: latin})  # type: ignore[dict-item]
    assert other.status_code == 403 and _key(other) == "auth.csrf_mismatch"
    assert client.get("/api/auth/me").status_code == 200  # reads need no token; nothing changed
    ok = client.post("/api/auth/logout", headers={auth.CSRF_HEADER: csrf})
    assert ok.status_code == 200, ok.text
    after = client.get("/api/auth/me")
    assert after.status_code == 401  # the cookie is cleared (and the session ended)


def test_the_csrf_token_may_come_as_a_form_field(client: TestClient, store: Store) -> None:
    csrf = _cookie_login(client, "alice")
    secret = client.cookies[auth.SESSION_COOKIE]
    ok = client.post("/api/auth/logout", data={auth.CSRF_FIELD: csrf})
    assert ok.status_code == 200, ok.text
    digest = hashlib.sha256(secret.encode()).hexdigest()
    assert store.read(lambda tx: ops.session(tx, digest)) is None


def test_a_session_cookie_is_not_a_bearer_token_nor_the_reverse(client: TestClient) -> None:
    _cookie_login(client, "alice")
    secret = client.cookies[auth.SESSION_COOKIE]
    client.cookies.clear()
    as_bearer = client.get("/api/auth/me", headers={"Authorization": f"Bearer {secret}"})
    assert as_bearer.status_code == 401 and _key(as_bearer) == "auth.session_unknown"
    token = _token(client, "bruno")
    client.cookies.set(auth.SESSION_COOKIE, token)
    as_cookie = client.get("/api/auth/me")
    assert as_cookie.status_code == 401 and _key(as_cookie) == "auth.session_unknown"


def _bare(runtime: Runtime, **options: Any) -> TestClient:
    """A client that sends no ``Origin`` by itself (as a non-browser, or a page elsewhere)."""
    return TestClient(create_app(runtime), raise_server_exceptions=False, **options)


CROSS_SITE: tuple[dict[str, str], ...] = (
    {},  # neither header (a client that tells nothing)
    {"Origin": "https://evil.example"},
    {"Origin": "http://testserver.evil.example"},
    {"Origin": "https://testserver"},  # another scheme is another origin
    {"Origin": "http://testserver:8080"},
    {"Origin": "null"},
    {"Origin": "garbage"},
    {"Sec-Fetch-Site": "cross-site"},
    {"Sec-Fetch-Site": "same-site", "Origin": "http://testserver"},
    {"Sec-Fetch-Site": "none"},
)


@on_sqlite_first_on_both("headers", CROSS_SITE)
def test_a_login_not_from_this_site_s_pages_signs_no_one_in(
    runtime: Runtime, store: Store, headers: dict[str, str]
) -> None:
    """Login CSRF: another site's form posting the attacker's name and password to
    ``/api/auth/login`` must not sign the visitor's browser in (403 ``auth.cross_site``, no
    cookie, no session)."""
    form = {"name": "bruno", "password": PASSWORD["bruno"], "next": "/"}
    with _bare(runtime) as browser:
        refused = browser.post("/api/auth/login", data=form, headers=headers)
        assert refused.status_code == 403 and _key(refused) == "auth.cross_site"
        assert "this site" in refused.json()["error"]["text"]
        assert "set-cookie" not in refused.headers
        assert auth.SESSION_COOKIE not in browser.cookies
    assert store.run(lambda tx: ops.delete_sessions(tx, "bruno")) == 0  # none was opened


@pytest.mark.parametrize(
    "headers",
    [SAME_ORIGIN, {"Sec-Fetch-Site": "same-origin"}, {"Origin": "HTTP://TestServer:80"}],
)
def test_a_login_from_this_site_s_pages_signs_in(runtime: Runtime, headers: dict[str, str]) -> None:
    with _bare(runtime) as browser:
        response = browser.post(
            "/api/auth/login",
            json={"name": "bruno", "password": PASSWORD["bruno"]},
            headers=headers,
        )
        assert response.status_code == 200, response.text


@on_sqlite_first_on_both("headers", CROSS_SITE)
def test_a_cookie_session_s_change_from_elsewhere_is_refused_even_with_its_csrf_token(
    client: TestClient, runtime: Runtime, headers: dict[str, str]
) -> None:
    csrf = _cookie_login(client, "alice")
    cookie = client.cookies[auth.SESSION_COOKIE]
    with _bare(runtime, cookies={auth.SESSION_COOKIE: cookie}) as browser:
        refused = browser.post("/api/auth/logout", headers={auth.CSRF_HEADER: csrf, **headers})
        assert refused.status_code == 403 and _key(refused) == "auth.cross_site"
        assert browser.get("/api/auth/me").status_code == 200  # still signed in: nothing done
        same = browser.post(
            "/api/auth/logout", headers={auth.CSRF_HEADER: csrf, "Sec-Fetch-Site": "same-origin"}
        )
        assert same.status_code == 200, same.text


def test_a_bearer_request_needs_no_origin(runtime: Runtime) -> None:
    with _bare(runtime) as api_client:
        token = api_client.post(
            "/api/auth/token", json={"name": "bruno", "password": PASSWORD["bruno"]}
        )
        assert token.status_code == 200, token.text
        bearer = {"Authorization": f"Bearer {token.json()['token']}"}
        done = api_client.post(
            "/api/auth/logout", headers={**bearer, "Origin": "https://evil.example"}
        )
        assert done.status_code == 200, done.text


@pytest.mark.parametrize(
    ("forwarded", "origin", "status"),
    [
        ("https", "https://casino.example", 200),
        ("https", "http://casino.example", 403),
        ("http", "https://casino.example", 403),
    ],
)
def test_behind_a_trusted_proxy_the_origin_is_the_forwarded_scheme_s(
    runtime: Runtime, forwarded: str, origin: str, status: int
) -> None:
    """Behind a proxy named in ``trusted_proxies`` that ends TLS, this server's origin is
    ``https://`` + its host: the scheme comes from ``X-Forwarded-Proto``."""
    runtime.settings = runtime.settings.replace(trusted_proxies=("10.0.0.0/24",))
    with _bare(runtime, client=("10.0.0.5", 40000), base_url="http://casino.example") as proxy:
        response = proxy.post(
            "/api/auth/login",
            json={"name": "bruno", "password": PASSWORD["bruno"]},
            headers={"Origin": origin, "X-Forwarded-Proto": forwarded},
        )
        assert response.status_code == status, response.text


def test_a_login_form_may_redirect_to_a_page_of_this_site_only(client: TestClient) -> None:
    form = {"name": "alice", "password": PASSWORD["alice"], "next": "/tables/bac-1"}
    response = client.post("/api/auth/login", data=form, follow_redirects=False)
    assert response.status_code == 303
    assert response.headers["location"] == "/tables/bac-1"
    assert auth.SESSION_COOKIE in response.headers["set-cookie"]
    for elsewhere in ("//evil.example/x", "https://evil.example/", "javascript:alert(1)"):
        form["next"] = elsewhere
        response = client.post("/api/auth/login", data=form, follow_redirects=False)
        assert response.status_code == 200, elsewhere  # the JSON answer, no redirect


OFF_SITE_NEXT: tuple[str, ...] = (
    "/\\evil.example/phish",  # what /login?next=/%5Cevil.example/phish decodes to
    "/\tevil.example",
    "/\t/evil.example/phish",  # /%09/…: the browser drops the tab, leaving //evil.example
    "/\n/evil.example",
    "/\r/evil.example",
    " //evil.example",
    "//evil.example/x",
    "///evil.example",
    "/\\/evil.example",
    "\\\\evil.example",
    "https://evil.example/",
    "HTTPS://evil.example",
    "http:evil.example",
    "javascript:alert(1)",
    " javascript:alert(1)",
    "/\x00/evil.example",
    "/\x7f/evil.example",
    "evil.example",
    "",
)


@on_sqlite_first_on_both("after", OFF_SITE_NEXT)
def test_a_next_that_a_browser_would_resolve_off_site_is_dropped(
    client: TestClient, after: str
) -> None:
    """A login's ``next`` is kept only when it stays on this origin however a browser
    resolves it (tabs and newlines dropped, a backslash read as a slash)."""
    assert auth.safe_next(after) is None
    form = {"name": "alice", "password": PASSWORD["alice"], "next": after}
    response = client.post("/api/auth/login", data=form, follow_redirects=False)
    assert response.status_code == 200, response.text  # the JSON answer, no redirect
    page = client.get("/login", params={"next": after})
    assert page.status_code == 200
    assert 'name="next" value="/"' in page.text  # the page carries no off-site next either


def test_the_login_page_keeps_a_path_of_this_site(client: TestClient) -> None:
    for after in ("/tables/bac-1", "/supervisor?lang=en", "/reports#today", "/a%5Cb"):
        assert auth.safe_next(after) == after
        page = client.get("/login", params={"next": after})
        assert f'name="next" value="{after}"' in page.text.replace("&amp;", "&")
    raw = client.get("/login?next=/%5Cevil.example/phish")  # the reproduction, as typed
    assert 'name="next" value="/"' in raw.text
    tab = client.get("/login?next=/%09/evil.example/phish")
    assert 'name="next" value="/"' in tab.text


@on_sqlite_first_on_both(
    "content,content_type",
    [
        (b"{not json", "application/json"),
        (b"[1, 2]", "application/json"),
        (b'{"name": "alice"}', "application/json"),
        (b'{"name": 5, "password": "x"}', "application/json"),
        (b"name=alice", "application/x-www-form-urlencoded"),
    ],
)
def test_an_unreadable_login_is_422(client: TestClient, content: bytes, content_type: str) -> None:
    response = client.post(
        "/api/auth/login", content=content, headers={"Content-Type": content_type}
    )
    assert response.status_code == 422
    assert _key(response) == "auth.login_unreadable"


# -- throttling -----------------------------------------------------------------------------------


def _from(runtime: Runtime, address: str) -> TestClient:
    """A client of the app whose requests come from ``address`` (from the site's pages)."""
    return TestClient(
        create_app(runtime),
        raise_server_exceptions=False,
        client=(address, 50000),
        headers=SAME_ORIGIN,
    )


def test_a_name_failing_from_everywhere_never_locks_its_owner_out(runtime: Runtime) -> None:
    """The reproduction: wrong passwords for alice from another address, as many as anyone
    likes, must not refuse her correct password from her own address (before: 429 for five
    minutes, renewed by every new failure)."""
    alice = {"name": "alice", "password": PASSWORD["alice"]}
    guess = {"name": "alice", "password": "guessing-123"}
    with _from(runtime, "203.0.113.7") as attacker, _from(runtime, "198.51.100.20") as owner:
        for _ in range(3):  # three rounds of guesses
            for _ in range(runtime.settings.login_attempts):
                assert attacker.post("/api/auth/token", json=guess).status_code in (401, 429)
            ok = owner.post("/api/auth/login", json=alice)
            assert ok.status_code == 200, ok.text
            refused = attacker.post("/api/auth/token", json=alice)  # the address that failed
            assert refused.status_code == 429 and _key(refused) == "auth.throttled"
            assert "unlock" in refused.json()["error"]["text"]
            wait = refused.json()["error"]["params"]["retry_after"]
            assert refused.headers["retry-after"] == str(wait)
            runtime.clock.advance(60)  # type: ignore[attr-defined]
    slept: list[float] = runtime.clock.slept  # type: ignore[attr-defined]
    assert slept and max(slept) <= auth.SLOW_DOWN_MAX  # slowed down, a few seconds at most


def test_an_address_failing_for_a_name_waits_1_2_4_up_to_300_seconds(
    runtime: Runtime, store: Store
) -> None:
    """From the address that keeps failing, each further try waits twice as long after the
    latest failure (1, 2, 4 … 300 s), told in ``Retry-After``; the name is slowed down (never
    refused) by at most a few seconds, asked of the injected sleep — no real wait."""
    clock = runtime.clock
    slept: list[float] = []

    def sign_in(password: str, address: str = "10.0.0.1") -> auth.SignedIn:
        return auth.sign_in(
            store, "bruno", password, address=address, clock=clock.now, sleep=slept.append
        )

    for _ in range(5):
        with pytest.raises(AuthError) as failed:
            sign_in("wrong-password")
        assert failed.value.key == "auth.bad_credentials"
    assert slept == []  # not slowed below login_attempts failures
    waits = []
    for _ in range(11):
        with pytest.raises(AuthError) as refused:
            sign_in(PASSWORD["bruno"])  # the right password, from the address that failed
        assert refused.value.key == "auth.throttled"
        wait = refused.value.params["retry_after"]
        waits.append(wait)
        clock.advance(wait - 1)  # type: ignore[attr-defined]
        with pytest.raises(AuthError) as early:
            sign_in(PASSWORD["bruno"])
        assert early.value.params["retry_after"] == 1
        clock.advance(1)  # type: ignore[attr-defined]
        with pytest.raises(AuthError) as failed:
            sign_in("wrong-password")
        assert failed.value.key == "auth.bad_credentials"
    assert waits == [1, 2, 4, 8, 16, 32, 64, 128, 256, 300, 300]
    assert slept == [0.25, 0.5, 1.0, 2.0, 3.0, 3.0, 3.0, 3.0, 3.0, 3.0, 3.0]
    assert sign_in(PASSWORD["bruno"], address="10.0.0.2").name == "bruno"  # never refused
    assert slept[-1] == auth.SLOW_DOWN_MAX
    clock.advance(auth.LOGIN_DELAY_MAX)  # type: ignore[attr-defined]
    assert sign_in(PASSWORD["bruno"]).name == "bruno"  # the wait is over: in


def test_a_name_failing_from_many_addresses_is_slowed_never_refused(
    client: TestClient, runtime: Runtime, store: Store
) -> None:
    """The failures are in the store: another server process (here the bare ``sign_in`` on the
    same database) sees them, and the name's logins over HTTP are slowed down — the pause
    asked of the runtime's clock — but answered."""
    now = runtime.clock.now
    paused: list[float] = []  # the other process's own pauses (recorded, not waited)
    for i in range(8):
        with pytest.raises(AuthError) as failed:
            auth.sign_in(
                store,
                "bruno",
                "wrong-password",
                address=f"10.0.0.{i}",
                clock=now,
                sleep=paused.append,
            )
        assert failed.value.key == "auth.bad_credentials"
    assert paused == [auth.slow_down(n, auth.DEFAULT_LOGIN_ATTEMPTS) for n in range(5, 8)]
    slept: list[float] = runtime.clock.slept  # type: ignore[attr-defined]
    del slept[:]
    assert _token(client, "bruno")
    assert slept == [auth.slow_down(8, runtime.settings.login_attempts)] == [2.0]


def test_throttling_counts_an_address_across_names(client: TestClient, runtime: Runtime) -> None:
    for name in ("ann", "ben", "cat", "dan", "eve"):
        bad = client.post("/api/auth/token", json={"name": name, "password": "guessing-123"})
        assert bad.status_code == 401
    refused = client.post("/api/auth/login", json={"name": "alice", "password": PASSWORD["alice"]})
    assert refused.status_code == 429 and _key(refused) == "auth.throttled"


@pytest.mark.parametrize("trusted", [False, True])
def test_behind_a_trusted_proxy_each_forwarded_client_has_its_own_limit(
    runtime: Runtime, trusted: bool
) -> None:
    """Behind a reverse proxy every request comes from the proxy's address. Named in
    ``trusted_proxies``, the proxy's ``X-Forwarded-For`` is believed: one client's failed
    logins throttle that client, not another one behind the same proxy. Not named (the
    default), the header is ignored — anyone could forge it — and the TCP peer is the client."""
    proxy = ("10.0.0.5", 40000)
    if trusted:
        runtime.settings = runtime.settings.replace(trusted_proxies=("10.0.0.0/24",))
    with TestClient(create_app(runtime), raise_server_exceptions=False, client=proxy) as c:
        guesser = {"X-Forwarded-For": "203.0.113.7"}
        for name in ("ann", "ben", "cat", "dan", "eve"):
            bad = c.post(
                "/api/auth/token", json={"name": name, "password": "guessing-123"}, headers=guesser
            )
            assert bad.status_code == 401
        alice = {"name": "alice", "password": PASSWORD["alice"]}
        again = c.post("/api/auth/token", json=alice, headers=guesser)
        assert again.status_code == 429 and _key(again) == "auth.throttled"
        other = c.post("/api/auth/token", json=alice, headers={"X-Forwarded-For": "198.51.100.20"})
        if trusted:
            assert other.status_code == 200, other.text  # another client: its own limit
        else:
            assert other.status_code == 429 and _key(other) == "auth.throttled"


def test_an_admin_unlocks_a_user_audited(
    client: TestClient, runtime: Runtime, store: Store
) -> None:
    with _from(runtime, "203.0.113.7") as attacker:
        for _ in range(7):  # five failures, then two refused (not counted)
            attacker.post("/api/auth/token", json={"name": "alice", "password": "guessing-1"})
        alice = {"name": "alice", "password": PASSWORD["alice"]}
        assert attacker.post("/api/auth/token", json=alice).status_code == 429
        admin = login(client, "admin")
        no_reason = client.post("/api/admin/users/alice/unlock", json={}, headers=admin)
        assert no_reason.status_code == 422
        done = client.post(
            "/api/admin/users/alice/unlock", json={"reason": "her own typing"}, headers=admin
        )
        assert done.status_code == 200, done.text
        assert done.json() == {"name": "alice", "forgotten": 5}
        assert attacker.post("/api/auth/token", json=alice).status_code == 200
    entry = store.read(lambda tx: tx.audit_entries(action="user_unlock"))[-1]
    assert (entry.actor, entry.reason) == ("admin", "her own typing")
    assert entry.detail == {"role": "admin", "via": "token", "name": "alice", "forgotten": 5}
    unknown = client.post("/api/admin/users/nobody/unlock", json={"reason": "x"}, headers=admin)
    assert unknown.status_code == 404 and _key(unknown) == "auth.user_unknown"
    for name in ("supervisor", "alice"):
        other = client.post(
            "/api/admin/users/alice/unlock", json={"reason": "x"}, headers=login(client, name)
        )
        assert other.status_code == 403 and _key(other) == "auth.forbidden"


def test_a_success_forgets_the_name_s_failures(client: TestClient) -> None:
    for _ in range(4):
        client.post("/api/auth/token", json={"name": "dealer", "password": "wrong-password"})
    assert _token(client, "dealer")
    for _ in range(4):
        client.post("/api/auth/token", json={"name": "dealer", "password": "wrong-password"})
    assert _token(client, "dealer")  # 8 failures, but never 5 since the last success


# -- users' administration ------------------------------------------------------------------------


def test_an_admin_creates_a_user_with_a_reason_audited(client: TestClient, store: Store) -> None:
    admin = login(client, "admin")
    new = {"name": "carol", "role": "player", "password": "carol-secret-1", "reason": "new member"}
    created = client.post("/api/admin/users", json=new, headers=admin)
    assert created.status_code == 201, created.text
    assert created.json()["role"] == "player" and created.json()["created_by"] == "admin"
    assert store.read(lambda tx: tx.player("carol")) is not None  # her wallet
    entry = store.read(lambda tx: tx.audit_entries(action="user_add"))[-1]
    assert (entry.actor, entry.reason) == ("admin", "new member")
    assert entry.detail == {"name": "carol", "role": "player"}
    token = client.post("/api/auth/token", json={"name": "carol", "password": "carol-secret-1"})
    assert token.status_code == 200 and token.json()["role"] == "player"
    listed = client.get("/api/admin/users", headers=admin).json()
    assert "carol" in [u["name"] for u in listed]
    assert all("password" not in str(u) for u in listed)


@pytest.mark.parametrize(
    ("body", "status", "key"),
    [
        ({"name": "alice", "role": "player", "password": "long-enough-1"}, 409, "auth.user_exists"),
        ({"name": "bad name", "role": "dealer", "password": "long-enough-1"}, 422, "auth.bad_name"),
        ({"name": "dave", "role": "dealer", "password": "short"}, 422, "auth.password_too_short"),
        ({"name": "dave", "role": "owner", "password": "long-enough-1"}, 422, None),
    ],
)
def test_bad_users_are_refused_and_nothing_is_written(
    client: TestClient, store: Store, body: dict[str, str], status: int, key: str | None
) -> None:
    admin = login(client, "admin")
    before = store.read(ops.users)
    response = client.post("/api/admin/users", json={**body, "reason": "x"}, headers=admin)
    assert response.status_code == status, response.text
    if key is not None:
        assert _key(response) == key
    assert store.read(ops.users) == before


def test_a_disabled_user_is_refused_and_signed_out(client: TestClient, store: Store) -> None:
    admin = login(client, "admin")
    alice = login(client, "alice")
    no_reason = client.post("/api/admin/users/alice/disable", json={}, headers=admin)
    assert no_reason.status_code == 422
    done = client.post(
        "/api/admin/users/alice/disable", json={"reason": "self-exclusion"}, headers=admin
    )
    assert done.status_code == 200 and done.json()["disabled"] is True
    assert client.get("/api/auth/me", headers=alice).status_code == 401
    again = client.post("/api/auth/token", json={"name": "alice", "password": PASSWORD["alice"]})
    assert again.status_code == 403 and _key(again) == "auth.user_disabled"
    entry = store.read(lambda tx: tx.audit_entries(action="user_disable"))[-1]
    assert (entry.actor, entry.reason, entry.detail["name"]) == ("admin", "self-exclusion", "alice")
    assert entry.detail["role"] == "admin"
    enabled = client.post("/api/admin/users/alice/enable", json={"reason": "ended"}, headers=admin)
    assert enabled.status_code == 200
    assert _token(client, "alice")
    unknown = client.post("/api/admin/users/nobody/disable", json={"reason": "x"}, headers=admin)
    assert unknown.status_code == 404 and _key(unknown) == "auth.user_unknown"


def test_only_an_admin_administers_users(client: TestClient) -> None:
    for name in ("supervisor", "dealer", "alice"):
        response = client.get("/api/admin/users", headers=login(client, name))
        assert response.status_code == 403 and _key(response) == "auth.forbidden"


def test_create_user_refuses_bad_input(store: Store) -> None:
    for name, role, password, key in (
        ("", UserRole.DEALER, "long-enough-1", "auth.bad_name"),
        ("x" * 101, UserRole.DEALER, "long-enough-1", "auth.bad_name"),
        ("erin", "croupier", "long-enough-1", "auth.bad_role"),
        ("erin", UserRole.DEALER, "1234567", "auth.password_too_short"),
    ):
        with pytest.raises(AuthError) as refused:
            auth.create_user(store, name, role, password)  # type: ignore[arg-type]
        assert refused.value.key == key
    assert store.read(ops.users) == []


def test_a_password_hashed_with_old_parameters_is_rehashed_at_login(
    client: TestClient, store: Store, monkeypatch: pytest.MonkeyPatch
) -> None:
    weak = PasswordHasher(time_cost=1, memory_cost=8, parallelism=1)
    monkeypatch.setattr(auth, "PASSWORD_HASHER", weak)
    auth.create_user(store, "frank", UserRole.DEALER, "frank-secret-1", actor="admin")
    old = store.read(lambda tx: ops.user(tx, "frank"))
    stronger = PasswordHasher(time_cost=2, memory_cost=16, parallelism=1)
    monkeypatch.setattr(auth, "PASSWORD_HASHER", stronger)
    response = client.post("/api/auth/token", json={"name": "frank", "password": "frank-secret-1"})
    assert response.status_code == 200
    new = store.read(lambda tx: ops.user(tx, "frank"))
    assert old is not None and new is not None and old.password_hash != new.password_hash
    assert not auth.PASSWORD_HASHER.check_needs_rehash(new.password_hash)


# -- the audit log --------------------------------------------------------------------------------


def test_record_action_logs_who_when_why_and_details(store: Store, runtime: Runtime) -> None:
    boss = Principal("supervisor", UserRole.SUPERVISOR, via="cookie")
    first = auth.record_action(
        runtime, boss, "void_round", "dealer misdeal", table_id="bac-1", round_id="r7", amount=500
    )
    second = store.run(
        lambda tx: auth.record_action(
            tx, boss, "correction", "wrong payout", role_hint=UserRole.ADMIN
        )
    )
    assert second > first
    entries = {e.id: e for e in store.read(lambda tx: tx.audit_entries())}
    one, two = entries[first], entries[second]
    assert (one.actor, one.action, one.table_id, one.reason) == (
        "supervisor",
        "void_round",
        "bac-1",
        "dealer misdeal",
    )
    assert one.detail == {"role": "supervisor", "via": "cookie", "round_id": "r7", "amount": 500}
    assert one.at.tzinfo is not None
    assert two.detail["role_hint"] == "admin" and two.table_id is None


# -- WebSockets -----------------------------------------------------------------------------------


def _socket_app(runtime: Runtime) -> FastAPI:
    app = FastAPI()
    app.state.runtime = runtime

    @app.websocket("/ws/who")
    async def who(websocket: WebSocket) -> None:
        principal = await auth.authenticate_websocket(websocket)
        await websocket.accept()
        await websocket.send_json(None if principal is None else [principal.name, principal.via])
        await websocket.close()

    return app


def test_a_websocket_is_authenticated_by_token_or_same_origin_cookie(
    client: TestClient, runtime: Runtime
) -> None:
    token = _token(client, "dealer")
    with TestClient(_socket_app(runtime)) as sockets:

        def who(url: str = "/ws/who", **headers: str) -> Any:
            with sockets.websocket_connect(url, headers=headers) as ws:
                return ws.receive_json()

        assert who() is None
        assert who(authorization=f"Bearer {token}") == ["dealer", "token"]
        assert who(f"/ws/who?token={token}") == ["dealer", "token"]
        assert who("/ws/who?token=forged") is None
        _cookie_login(client, "alice")
        cookie = f"{auth.SESSION_COOKIE}={client.cookies[auth.SESSION_COOKIE]}"
        assert who(cookie=cookie) == ["alice", "cookie"]
        assert who(cookie=cookie, origin="http://testserver") == ["alice", "cookie"]
        assert who(cookie=cookie, origin="https://evil.example") is None  # cross-site
        assert who(cookie=cookie, **{"sec-fetch-site": "cross-site"}) is None
        assert who(cookie=cookie, **{"sec-fetch-site": "same-origin"}) == ["alice", "cookie"]


# -- the role rules -------------------------------------------------------------------------------


def test_require_of_the_same_roles_is_one_dependency() -> None:
    assert auth.require(UserRole.ADMIN, UserRole.SUPERVISOR) is auth.require(
        UserRole.SUPERVISOR, UserRole.ADMIN
    )
    assert auth.current_principal is auth.require(*UserRole)
    with pytest.raises(ValueError):
        auth.require()


def test_endpoint_rules_refuse_a_route_without_a_rule_or_with_two() -> None:
    app = FastAPI()

    @app.get("/open", dependencies=[Depends(auth.public)])
    def open_() -> None: ...

    @app.get("/staff")
    def staff(p: Principal = Depends(auth.require(UserRole.DEALER))) -> None: ...  # noqa: B008

    assert auth.endpoint_rules(app)[("GET", "/open")] is None
    assert auth.endpoint_rules(app)[("GET", "/staff")] == {UserRole.DEALER}

    @app.get("/forgotten")
    def forgotten() -> None: ...

    @app.post("/both", dependencies=[Depends(auth.public)])
    def both(p: Principal = Depends(auth.current_principal)) -> None: ...  # noqa: B008

    problems = auth.rule_problems(app)
    assert len(problems) == 2
    assert "GET /forgotten: no role rule" in problems[0]
    assert "POST /both: 2 role rules" in problems[1]
    with pytest.raises(ValueError, match="forgotten"):
        auth.endpoint_rules(app)


def test_text_the_database_cannot_keep_is_refused_never_a_5xx(client: TestClient) -> None:
    """PostgreSQL refuses NUL in text: such a name or reason is bad input (4xx), not a
    database error (issue 10, "the server never answers 500")."""
    for name in ("\x00", "a\x00b", "x" * 100):
        response = client.post("/api/auth/token", json={"name": name, "password": "whatever-1"})
        assert response.status_code == 401, (name, response.text)
    admin = login(client, "admin")
    nul = client.post("/api/admin/users/alice/disable", json={"reason": "a\x00"}, headers=admin)
    assert nul.status_code == 422
    bad = client.post("/api/admin/users/a%00b/disable", json={"reason": "x"}, headers=admin)
    assert bad.status_code == 422 and _key(bad) == "auth.bad_name"


def test_an_admin_cannot_disable_themselves(client: TestClient) -> None:
    admin = login(client, "admin")
    response = client.post("/api/admin/users/admin/disable", json={"reason": "x"}, headers=admin)
    assert response.status_code == 409 and _key(response) == "auth.disable_self"
    assert client.get("/api/auth/me", headers=admin).status_code == 200


def test_a_schema_v1_database_is_migrated_to_v2_with_its_data(database_url: str) -> None:
    """A casino's database of issue 9 (schema 1) is refused at start-up until upgraded, then
    has the users' tables, and its data is kept."""
    from alembic import command
    from alembic.config import Config

    from macau_tables.errors import StoreError
    from macau_tables.store import SCHEMA_VERSION
    from macau_tables.store.store import MIGRATIONS

    with Store.open(database_url) as old:
        with old.engine.begin() as conn:
            config = Config()
            config.set_main_option("script_location", str(MIGRATIONS))
            config.attributes["connection"] = conn
            command.upgrade(config, "0001")
        assert old.schema_version() == 1
        old.run(lambda tx: tx.add_player("ines", "Ines"))
        with pytest.raises(StoreError) as refused:
            old.check()
        assert refused.value.key == "store.schema_older"
        assert old.upgrade() == SCHEMA_VERSION  # 2 added the users; 3 (store) came later
        old.check()
        assert old.read(lambda tx: tx.player("ines")) is not None
        auth.create_user(old, "ines", UserRole.PLAYER, "ines-secret-1")  # her wallet exists
        assert [u.name for u in old.read(ops.users)] == ["ines"]


def test_static_files_are_public_and_a_bare_route_has_no_rule(tmp_path: Any) -> None:
    from starlette.responses import PlainTextResponse
    from starlette.staticfiles import StaticFiles

    app = FastAPI()
    app.mount("/static", StaticFiles(directory=tmp_path), name="static")
    assert auth.endpoint_rules(app)[("GET", "/static/{path}")] is None
    app.add_route("/bare", lambda request: PlainTextResponse("x"))
    assert auth.rule_problems(app) == ["'/bare': a route without a role rule"]


# -- passwords hard to guess, names that cannot pass for another's --------------------------------


@pytest.mark.parametrize(
    ("name", "role", "password"),
    [
        ("carla", "player", "aaaaaaaa"),
        ("carla", "player", "12345678"),
        ("carla", "player", "password"),
        ("dave", "dealer", "12345678"),
        ("dave", "dealer", "aaaaaaaa"),
        ("dave", "dealer", "carla2026!"),  # good enough for a player (below), not for staff
        ("sam", "supervisor", "baccarat"),
        ("ada", "admin", "macaucasino"),
    ],
)
def test_a_guessable_password_is_refused_saying_what_to_do(
    client: TestClient, store: Store, name: str, role: str, password: str
) -> None:
    admin = login(client, "admin")
    before = store.read(ops.users)
    body = {"name": name, "role": role, "password": password, "reason": "new"}
    refused = client.post("/api/admin/users", json=body, headers=admin)
    assert refused.status_code == 422 and _key(refused) == "auth.password_weak"
    assert "longer" in refused.json()["error"]["text"]
    params = refused.json()["error"]["params"]
    assert params["needed"] == (2 if role == "player" else 3) > params["score"]
    zh = client.post("/api/admin/users?lang=zh-Hant", json=body, headers=admin)
    assert "更長" in zh.json()["error"]["text"]
    assert store.read(ops.users) == before  # nothing written


def test_a_player_needs_score_2_and_staff_score_3(store: Store) -> None:
    auth.create_user(store, "carla", UserRole.PLAYER, "carla2026!")  # zxcvbn score 2
    with pytest.raises(AuthError) as refused:
        auth.create_user(store, "dave", UserRole.DEALER, "carla2026!")
    assert refused.value.key == "auth.password_weak"
    auth.create_user(store, "dave", UserRole.DEALER, "tulip-harbor7")  # score 4


def test_the_user_s_name_and_the_casino_s_words_are_guessed_first(store: Store) -> None:
    """A password built on the user's own name, on the casino's words or on a table's name is
    guessed first: ``Zorvathine77`` is strong (4) for ellen, weak (1) for Zorvathine."""
    auth.check_password("Zorvathine77", name="ellen", role=UserRole.ADMIN)
    for name, password, words in (
        ("Zorvathine", "Zorvathine77", ()),
        ("ellen", "Baccarat2026", ()),  # 3 without the casino's words
        ("ellen", "XandrelioQuorvan", ("Xandrelio", "Quorvan")),  # a table's name's words
    ):
        with pytest.raises(AuthError) as weak:
            auth.check_password(password, name=name, role=UserRole.DEALER, words=words)
        assert weak.value.key == "auth.password_weak", password
    auth.check_password("XandrelioQuorvan", name="ellen", role=UserRole.ADMIN)


def test_zxcvbn_scores_a_bounded_length(monkeypatch: pytest.MonkeyPatch) -> None:
    seen: list[int] = []

    def score(password: str, user_inputs: list[str]) -> dict[str, int]:
        seen.append(len(password))
        seen.extend(len(w) for w in user_inputs)
        return {"score": 4}

    monkeypatch.setattr(auth, "zxcvbn", score)
    auth.check_password("x" * auth.MAX_PASSWORD, name="y" * 100, role=UserRole.ADMIN)
    assert max(seen) == auth.SCORED_LENGTH


def test_the_one_time_passwords_of_a_first_start_pass(database_url: str) -> None:
    """The demonstration's users get random passwords at a first start: each is strong enough
    for its role (an admin's among them)."""
    from macau_tables.server.runtime import prepare

    with Store.open(database_url) as fresh:
        made = prepare(fresh).users
        assert {role for _, role, _ in made} == {"player", "dealer", "supervisor", "admin"}
        for name, role, password in made:
            auth.check_password(password, name=name, role=UserRole(role))
            assert auth.sign_in(fresh, name, password, address="127.0.0.1").name == name


@pytest.mark.parametrize("name", ["Alice", "alice.", "ALICE", "a.l.i.c.e", "Alice-", "al_ice"])
def test_a_name_like_another_user_s_is_refused(client: TestClient, store: Store, name: str) -> None:
    admin = login(client, "admin")
    before = store.read(ops.users)
    body = {"name": name, "role": "player", "password": "tulip-harbor7", "reason": "x"}
    refused = client.post("/api/admin/users", json=body, headers=admin)
    assert refused.status_code == 409 and _key(refused) == "auth.name_lookalike"
    assert refused.json()["error"]["params"]["existing"] == "alice"
    assert store.read(ops.users) == before


def test_the_store_refuses_a_look_alike_that_raced_past_the_check(
    store: Store, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Two processes creating ``Bob`` and ``bob.`` at once both pass the look-up; the unique
    index on the normalised name refuses the second (a 4xx, nothing written)."""
    auth.create_user(store, "Bob", UserRole.PLAYER, "tulip-harbor7")
    monkeypatch.setattr(ops, "lookalike", lambda tx, name: None)  # the race: nothing seen
    with pytest.raises(AuthError) as refused:
        auth.create_user(store, "bob.", UserRole.PLAYER, "tulip-harbor7")
    assert refused.value.key == "auth.name_lookalike"
    assert [u.name for u in store.read(ops.users)] == ["Bob"]
    assert store.read(lambda tx: tx.player("bob.")) is None


def test_look_alikes_created_at_once_leave_exactly_one(store: Store) -> None:
    names = ["carl", "Carl", "carl.", "C-A-R-L", "carl_"]
    barrier = threading.Barrier(len(names))
    outcomes: dict[str, str] = {}

    def create(name: str) -> None:
        barrier.wait()
        try:
            auth.create_user(store, name, UserRole.PLAYER, "tulip-harbor7")
            outcomes[name] = "created"
        except AuthError as refused:
            outcomes[name] = refused.key

    threads = [threading.Thread(target=create, args=(n,)) for n in names]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert sorted(outcomes.values()).count("created") == 1, outcomes
    assert set(outcomes.values()) <= {"created", "auth.name_lookalike"}
    assert len(store.read(ops.users)) == 1


def test_sign_in_ignores_case_and_punctuation(client: TestClient) -> None:
    for typed in ("ALICE", "Alice", "alice."):
        response = client.post(
            "/api/auth/token", json={"name": typed, "password": PASSWORD["alice"]}
        )
        assert response.status_code == 200, response.text
        me = client.get(
            "/api/auth/me", headers={"Authorization": f"Bearer {response.json()['token']}"}
        )
        assert me.json()["name"] == "alice"  # the user's own spelling


def test_failures_count_under_the_name_as_sign_in_reads_it(runtime: Runtime, store: Store) -> None:
    """``ALICE``, ``Alice`` and ``alice.`` are one name to the throttle too: five failures
    spelt five ways, from five addresses, slow alice's next login down."""
    now = runtime.clock.now
    for i, typed in enumerate(("ALICE", "Alice", "alice.", "aLiCe", "a-lice")):
        with pytest.raises(AuthError):
            auth.sign_in(store, typed, "wrong-password", address=f"10.0.0.{i}", clock=now)
    slept: list[float] = []
    signed = auth.sign_in(
        store, "alice", PASSWORD["alice"], address="10.0.9.9", clock=now, sleep=slept.append
    )
    assert signed.name == "alice" and slept == [auth.slow_down(5, 5)] == [0.25]


# -- properties -----------------------------------------------------------------------------------


def _as_a_browser_resolves(after: str, page: str = "http://testserver/login") -> Any:
    """``after`` resolved against ``page`` the WHATWG way, as far as leaving the origin goes:
    leading and trailing C0 controls and spaces trimmed, tabs and newlines removed, and a
    backslash read as a slash (http and https)."""
    from urllib.parse import urljoin

    cleaned = after.strip("".join(map(chr, range(0x21)))).translate(
        {0x09: None, 0x0A: None, 0x0D: None}
    )
    return urlsplit(urljoin(page, cleaned.replace("\\", "/")))


PIECES = ("/", "\\", "\t", "\n", " ", "\x00", "evil.example", "a", ":", "%5C", "@", "?#")


@given(st.lists(st.sampled_from(PIECES), min_size=1, max_size=6).map("".join))
@settings(max_examples=500, deadline=None)
def test_a_kept_next_never_leaves_the_origin(after: str) -> None:
    kept = auth.safe_next(after)
    if kept is not None:
        resolved = _as_a_browser_resolves(kept)
        assert (resolved.scheme, resolved.netloc) == ("http", "testserver"), kept


@given(st.integers(min_value=0, max_value=10_000), st.integers(min_value=1, max_value=50))
def test_waits_and_pauses_are_bounded_and_grow(failures: int, attempts: int) -> None:
    now = datetime(2026, 1, 5, tzinfo=UTC)
    wait = auth.login_wait(failures, now, attempts, now)
    assert 0 <= wait <= auth.LOGIN_DELAY_MAX
    assert (wait == 0) == (failures < attempts)
    assert wait <= auth.login_wait(failures + 1, now, attempts, now)
    pause = auth.slow_down(failures, attempts)
    assert 0 <= pause <= auth.SLOW_DOWN_MAX
    assert pause <= auth.slow_down(failures + 1, attempts)


_NAME_FIRST = string.ascii_letters + string.digits
NAMES = st.builds(
    operator.add, st.sampled_from(_NAME_FIRST), st.text(_NAME_FIRST + "_.@-", max_size=99)
)
"""Every user name ``ops.NAME_PATTERN`` takes, written out: Hypothesis's ``from_regex`` of the
pattern takes seconds to build its strategy (the bounded repeat)."""


@given(NAMES)
def test_a_name_s_key_is_its_letters_and_digits_lower_cased(name: str) -> None:
    assert ops.NAME_PATTERN.fullmatch(name)
    key = ops.name_key(name)
    assert key == ops.name_key(key) == ops.name_key(name.upper() + ".")
    assert key.isalnum() and key == key.lower() and key
