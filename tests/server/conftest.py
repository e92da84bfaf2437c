"""Shared fixtures of the server's tests (issue 10); their helpers are in tests/server/support.py
(re-exported here for older imports: test files import them from the support module).

* ``runtime`` — a started :class:`~macau_tables.server.runtime.Runtime` on the ``store``
  fixture (SQLite and PostgreSQL) holding the demonstration casino (tables ``bac-1``,
  ``bac-live``, ``csp-1``; players ``alice`` … ``grace``) and the five one-time users of a
  first start, each with the password :data:`PASSWORD` ``[name]``. Its clock is a
  :class:`~macau_tables.tables.clock.FakeClock` (``runtime.clock.advance(s)``); no tick thread
  runs: call ``runtime.tick()`` to run the clock's work (time-outs CSP-6.4, BAC-16). It serves
  every table, or those of ``served_tables`` (a module overrides that fixture to serve only
  the tables its tests use: each one served is loaded and leased at every start).
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
from typing import Any

import pytest
from argon2 import PasswordHasher
from fastapi.testclient import TestClient
from tests.server.support import (  # noqa: F401 (re-exported for older imports)
    PASSWORD,
    ROLE,
    SAME_ORIGIN,
    add_demo_table,
    add_held_table,
    audit,
    cycle_step,
    demo_casino,
    login,
    refused,
    server_settings,
)

from macau_tables.server import auth
from macau_tables.server.analysis_worker import jobs
from macau_tables.server.app import create_app
from macau_tables.server.runtime import Runtime
from macau_tables.tables.clock import FakeClock


@pytest.fixture(scope="module", autouse=True)
def analysis_worker_stopped_after() -> Iterator[None]:
    """The analysis worker, if a test of the module started one (an admin's analysis request:
    the role matrix's walk too), stopped at the module's end, as a server stops it: its pool's
    threads would otherwise stay in this test process for the rest of the run (the worker's
    later ``verify --jobs`` then asks the fork server instead of forking)."""
    yield
    jobs.shutdown()


@pytest.fixture(autouse=True)
def cheap_password_hashes(monkeypatch: pytest.MonkeyPatch) -> None:
    """argon2 with the smallest parameters: the tests hash and verify many passwords (the
    production parameters are the auth module's; a hash records its own parameters)."""
    monkeypatch.setattr(
        auth, "PASSWORD_HASHER", PasswordHasher(time_cost=1, memory_cost=8, parallelism=1)
    )


@pytest.fixture
def served_tables() -> tuple[str, ...] | None:
    """The tables the ``runtime`` fixture serves (its ``tables`` setting): every table of the
    casino. A module whose tests use fewer overrides it with those (each table served is
    loaded and leased at every start)."""
    return None


@pytest.fixture
def runtime(store: Any, served_tables: tuple[str, ...] | None) -> Iterator[Runtime]:
    """A started runtime on the demonstration casino with the five users (module docstring),
    serving :func:`served_tables`."""
    demo_casino(store)
    rt = Runtime(server_settings(tables=served_tables), store, clock=FakeClock())
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
