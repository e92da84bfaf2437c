"""The role × endpoint matrix (issue 10, "Every endpoint has an explicit role rule, and one test
walks the whole role × endpoint matrix"), on SQLite and PostgreSQL.

Every HTTP route of ``create_app(...)`` — whoever added it, now or later — must carry exactly
one rule (``require(...)`` or ``public``, read by :func:`auth.endpoint_rules`). Then, for each
route and each role and anonymous:

* anonymous on a route that is not public: 401;
* a role the rule does not name: 403 (``auth.forbidden``);
* a role it names (and anyone on a public route): neither 401 nor 403 (whatever the endpoint
  then says about the placeholder request: 404, 422, …);
* a cookie session of a role it names, on a state-changing route, without the CSRF token: 403
  (``auth.csrf_missing``), nothing done; with it but not from this site's pages (no
  same-origin ``Origin`` or ``Sec-Fetch-Site``): 403 (``auth.cross_site``), nothing done.

The requests carry ``{}`` as their JSON body and placeholder path parameters; each uses a fresh
token or session (a ``logout`` in the walk must not sign the next request out).
"""

from __future__ import annotations

import hashlib
import re
import secrets
from datetime import timedelta
from typing import Any

import pytest
from fastapi.testclient import TestClient

from macau_tables.server import auth
from macau_tables.server.principal import UserRole
from macau_tables.server.runtime import Runtime
from macau_tables.store import users_ops as ops

USER_OF: dict[UserRole, str] = {
    UserRole.PLAYER: "alice",
    UserRole.DEALER: "dealer",
    UserRole.SUPERVISOR: "supervisor",
    UserRole.ADMIN: "admin",
}
"""A one-time user of each role (tests/server/support.py)."""

PLACEHOLDER: dict[str, str] = {
    "table_id": "bac-1",
    "meter_id": "m-baccarat",
    "name": "bruno",
    "player_id": "bruno",
}
PARAM = re.compile(r"\{(\w+)(?::(\w+))?\}")


@pytest.fixture
def served_tables() -> tuple[str, ...]:
    """The tables these tests use (the others need no loading at each start)."""
    return ("bac-1",)


def _path(template: str) -> str:
    def fill(match: re.Match[str]) -> str:
        name, convertor = match.group(1), match.group(2)
        if convertor in ("int", "float"):
            return "1"
        return PLACEHOLDER.get(name, "x")

    return PARAM.sub(fill, template)


def _secret(runtime: Runtime, role: UserRole, kind: str = "token") -> str:
    """A fresh token (or cookie session) of ``role``'s user, straight into the store."""
    secret = secrets.token_urlsafe(32)
    now = runtime.clock.now()
    digest = hashlib.sha256(secret.encode()).hexdigest()
    runtime.store.run(
        lambda tx: ops.put_session(
            tx, digest, USER_OF[role], kind, expires_at=now + timedelta(hours=1), now=now
        )
    )
    return secret


def _send(client: TestClient, method: str, path: str, **kwargs: Any) -> Any:
    body = {} if method not in ("GET", "HEAD", "DELETE", "OPTIONS") else None
    return client.request(method, _path(path), json=body, follow_redirects=False, **kwargs)


def test_every_route_carries_exactly_one_role_rule(client: TestClient) -> None:
    problems = auth.rule_problems(client.app)  # type: ignore[arg-type]
    assert not problems, "\n".join(problems)
    rules = auth.endpoint_rules(client.app)  # type: ignore[arg-type]
    assert rules[("POST", "/api/auth/token")] is None
    assert rules[("GET", "/api/admin/users")] == {UserRole.ADMIN}
    assert rules[("POST", "/api/admin/users/{name}/unlock")] == {UserRole.ADMIN}


def test_the_role_matrix(client: TestClient, runtime: Runtime) -> None:
    rules = auth.endpoint_rules(client.app)  # type: ignore[arg-type]
    failures: list[str] = []
    for (method, path), allowed in sorted(rules.items()):
        if method == "HEAD":
            continue  # the GET's twin
        anonymous = _send(client, method, path)
        if allowed is None:
            if anonymous.status_code in (401, 403):
                failures.append(f"{method} {path} public, anonymous: {anonymous.status_code}")
        elif anonymous.status_code != 401:
            failures.append(f"{method} {path} anonymous: {anonymous.status_code}, not 401")
        for role in UserRole:
            headers = {"Authorization": f"Bearer {_secret(runtime, role)}"}
            response = _send(client, method, path, headers=headers)
            status = response.status_code
            if allowed is not None and role not in allowed:
                key = response.json().get("error", {}).get("key") if status == 403 else None
                if key != "auth.forbidden":
                    failures.append(f"{method} {path} {role}: {status} {key}, not 403 forbidden")
            elif status in (401, 403) or status >= 500:
                failures.append(f"{method} {path} {role} (allowed): {status} {response.text}")
    assert not failures, "\n".join(failures)


def test_cookie_sessions_need_the_csrf_token_on_every_state_changing_route(
    client: TestClient, runtime: Runtime
) -> None:
    rules = auth.endpoint_rules(client.app)  # type: ignore[arg-type]
    unsafe = {
        (m, p): allowed
        for (m, p), allowed in rules.items()
        if allowed is not None and m not in ("GET", "HEAD", "OPTIONS")
    }
    assert ("POST", "/api/auth/logout") in unsafe
    failures: list[str] = []
    for (method, path), allowed in sorted(unsafe.items()):
        role = min(allowed, key=list(UserRole).index)
        client.cookies.set(auth.SESSION_COOKIE, _secret(runtime, role, "cookie"))
        response = _send(client, method, path)
        key = response.json().get("error", {}).get("key") if response.status_code == 403 else None
        if key != "auth.csrf_missing":
            failures.append(f"{method} {path} {role}: {response.status_code} {key}")
    client.cookies.clear()
    assert not failures, "\n".join(failures)


def test_cookie_sessions_from_elsewhere_are_refused_on_every_state_changing_route(
    client: TestClient, runtime: Runtime
) -> None:
    """With its CSRF token but without a same-origin ``Origin`` or ``Sec-Fetch-Site`` (another
    site's page, or a client that tells nothing), a cookie session changes nothing: 403
    ``auth.cross_site`` on every state-changing route (a bearer request needs neither)."""
    rules = auth.endpoint_rules(client.app)  # type: ignore[arg-type]
    unsafe = {
        (m, p): allowed
        for (m, p), allowed in rules.items()
        if allowed is not None and m not in ("GET", "HEAD", "OPTIONS")
    }
    failures: list[str] = []
    with TestClient(client.app, raise_server_exceptions=False) as elsewhere:
        for (method, path), allowed in sorted(unsafe.items()):
            role = min(allowed, key=list(UserRole).index)
            secret = _secret(runtime, role, "cookie")
            elsewhere.cookies.set(auth.SESSION_COOKIE, secret)
            for origin in ({}, {"Origin": "https://evil.example"}):
                headers = {auth.CSRF_HEADER: auth.csrf_token(secret), **origin}
                response = _send(elsewhere, method, path, headers=headers)
                status = response.status_code
                key = response.json().get("error", {}).get("key") if status == 403 else None
                if key != "auth.cross_site":
                    failures.append(f"{method} {path} {role} {origin}: {status} {key}")
    assert not failures, "\n".join(failures)
