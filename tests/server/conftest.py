"""Shared fixtures of the server's tests (issue 10).

* ``runtime`` — a started :class:`~macau_tables.server.runtime.Runtime` on the ``store``
  fixture (SQLite and PostgreSQL) holding the demonstration casino (tables ``bac-1``,
  ``bac-live``, ``csp-1``; players ``alice`` … ``grace``) and the five one-time users of a
  first start, each with the password :data:`PASSWORD` ``[name]``. Its clock is a
  :class:`~macau_tables.tables.clock.FakeClock` (``runtime.clock.advance(s)``); no tick thread
  runs: call ``runtime.tick()`` to run the clock's work (time-outs CSP-6.4, BAC-16).
* ``client`` — a FastAPI ``TestClient`` on ``create_app(runtime)``; its requests carry
  :data:`SAME_ORIGIN` (``Origin: http://testserver``), as a browser's from the site's own
  pages do, so its cookie logins and cookie state changes pass the same-origin rule (a test of
  that rule uses a client without it).
* ``login(client, name) -> headers`` — the ``Authorization: Bearer …`` headers of user
  ``name`` (``admin``, ``supervisor``, ``dealer``, ``alice``, ``bruno``), from
  ``POST /api/auth/token``.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import replace
from typing import Any

import pytest
from argon2 import PasswordHasher
from fastapi.testclient import TestClient

from macau_tables.baccarat.demo import demo_rules as demo_baccarat_rules
from macau_tables.server import auth
from macau_tables.server.app import create_app
from macau_tables.server.runtime import Runtime, demo_users, prepare
from macau_tables.server.settings import Settings
from macau_tables.store import Store, TableMode, TableStatus
from macau_tables.tables.clock import FakeClock

PASSWORD: dict[str, str] = {name: f"{name}-password-1234" for name, _ in demo_users()}
"""The test password of each one-time user."""

ROLE: dict[str, str] = dict(demo_users())
"""Each one-time user's role."""

SAME_ORIGIN: dict[str, str] = {"Origin": "http://testserver"}
"""The ``Origin`` a browser sends from the test client's own pages."""


@pytest.fixture(autouse=True)
def cheap_password_hashes(monkeypatch: pytest.MonkeyPatch) -> None:
    """argon2 with the smallest parameters: the tests hash and verify many passwords (the
    production parameters are the auth module's; a hash records its own parameters)."""
    monkeypatch.setattr(
        auth, "PASSWORD_HASHER", PasswordHasher(time_cost=1, memory_cost=8, parallelism=1)
    )


def server_settings(**changes: Any) -> Settings:
    """Settings for an in-process test: no tick thread, no request log."""
    return Settings.of({"tick_seconds": 0.0, "log_requests": False, **changes})


@pytest.fixture
def runtime(store: Any) -> Iterator[Runtime]:
    """A started runtime on the demonstration casino with the five users (module docstring)."""
    prepare(store, password=PASSWORD.__getitem__, upgrade=False)  # the fixture's is migrated
    rt = Runtime(server_settings(), store, clock=FakeClock())
    rt.start()
    try:
        yield rt
    finally:
        rt.stop()


@pytest.fixture
def client(runtime: Runtime) -> Iterator[TestClient]:
    """A test client of the app serving ``runtime`` (refusals come back as responses)."""
    with TestClient(create_app(runtime), raise_server_exceptions=False, headers=SAME_ORIGIN) as c:
        yield c


def cycle_step(client: TestClient, table_id: str, command: dict[str, Any]) -> dict[str, Any]:
    """What the dealer's ``command`` (``tables.OpenRound`` or a game's ``CloseBetting``, as a
    codec payload) did at a virtual table before its round cycle: there the cycle opens and
    closes (a client's is refused, ``tables.cycle_owns``), so the cycle's step is run at once
    in-process (:meth:`TableService.cycle_step`, not reachable over the server), opening with
    the command's seating. Returns the encoded :class:`~macau_tables.tables.Submitted`."""
    from tests.tables.support import close_betting, open_round

    from macau_tables import codec

    service = client.app.state.runtime.service(table_id)  # type: ignore[attr-defined]
    if command["type"] == "tables.OpenRound":
        seated = tuple((int(n), str(p)) for n, p in command.get("seated", ()))
        done = open_round(service, seated)
    else:
        done = close_betting(service, None)
    return codec.encode(done)


def login(client: TestClient, name: str) -> dict[str, str]:
    """The bearer-token headers of one-time user ``name``."""
    response = client.post("/api/auth/token", json={"name": name, "password": PASSWORD[name]})
    assert response.status_code == 200, response.text
    token = response.json()["token"]
    return {"Authorization": f"Bearer {token}"}


def add_demo_table(
    store: Store,
    table_id: str,
    *,
    name: str,
    game: str,
    mode: TableMode,
    config_id: str,
    rules: Any,
    meter_id: str,
    reason: str,
) -> None:
    """One more open demonstration table ``table_id`` of ``game`` in ``mode`` on its own
    configuration ``config_id`` (``rules``) and the demonstration meter ``meter_id``."""

    def build(tx: Any) -> None:
        tx.put_config(game, config_id, rules)
        tx.create_table(
            table_id,
            name=name,
            game=game,
            mode=mode,
            demo=True,
            config_id=config_id,
            meter_id=meter_id,
        )
        tx.set_table_status(table_id, TableStatus.OPEN, actor="test", reason=reason)

    store.run(build)


def add_held_table(store: Store, *, reason: str) -> None:
    """``bac-hold``: the demonstration baccarat table with card holding on (BAC-16.1), open
    (the leak session and the squeeze's browser test play it)."""
    add_demo_table(
        store,
        "bac-hold",
        name="Baccarat (card holding)",
        game="baccarat",
        mode=TableMode.VIRTUAL,
        config_id="bac-8d-hold",
        rules=replace(demo_baccarat_rules(), card_holding=True),
        meter_id="m-baccarat",
        reason=reason,
    )
