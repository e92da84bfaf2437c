"""Browser tests of the pages (issue 11): Debian's Chromium driven by Playwright (sync API).
The helpers named below live in tests/browser/support.py (test files import them from there).

* ``live`` (session) — one real server for the whole session: uvicorn on a free loopback port
  in a thread, serving ``create_app`` on a scratch SQLite database holding the demonstration
  casino (``bac-1``, ``bac-live``, ``csp-1``; meters ``m-baccarat``, ``m-caribbean``) and the
  five one-time users with the passwords :data:`PASSWORD` (cheap argon2, as the server tests).
  Its clock is the real one and its tick thread runs (time-outs, CSP-6.4, BAC-16, and the round
  cycle: the virtual tables open and close their rounds themselves, with the timings
  :data:`CYCLE` given them as a new configuration version before the server starts). ``live.url``,
  ``live.runtime``, ``live.store``, ``live.token(name)`` (bearer headers for API calls made by
  the test itself, with ``live.api``, an ``httpx.Client`` on the server); ``live.shown(table)``
  the table as a user's API answers it, ``live.betting(table)`` waits until the cycle's round
  takes wagers, ``live.closed(table)`` until the cycle closed its betting.
* ``browser`` (session) — ``/usr/bin/chromium`` headless (``executable_path``: never
  ``playwright install``). Missing, it skips — and FAILS under ``MACAU_TABLES_REQUIRE_ALL=1``.
* ``page`` — a fresh context (1366×768, English browser) and page; the test FAILS on any console
  error, uncaught page error or failed request (a network failure, a 5xx, a 4xx for anything but
  an API refusal the page shows — a refused bet or card is the page's business, a missing
  script is not). ``page_of(viewport=…, locale=…)`` opens more (another user, a phone).
* ``login(page, name)`` signs in through the login page; ``shot(page, name)`` saves a full-page
  screenshot to ``tests/browser/artifacts/<name>.png`` (git-ignored; with
  ``MACAU_TABLES_DOCS_SCREENSHOTS=1`` also to ``docs/screenshots/<name>.jpg``, shown by
  ``docs/pages.md``); ``axe_check(page)`` fails on serious or critical accessibility
  violations (axe-playwright-python).
"""

from __future__ import annotations

import shutil
import threading
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from argon2 import PasswordHasher

from macau_tables.server import auth
from macau_tables.server.app import create_app
from macau_tables.server.runtime import Runtime, prepare
from macau_tables.server.settings import Settings
from macau_tables.store import Store
from tests.browser.support import (  # noqa: F401 (CYCLE … wait_until re-exported for older imports)
    CHROMIUM,
    CYCLE,
    PASSWORD,
    ROUND_WAIT,
    WAIT_SECONDS,
    Live,
    Watch,
    _cycle_timings,
    _free_port,
    axe_check,
    login,
    shot,
    wait_until,
    watch,
)
from tests.support import REQUIRE_ALL


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    here = Path(__file__).resolve().parent
    for item in items:
        if here in Path(str(item.fspath)).resolve().parents:
            item.add_marker(pytest.mark.browser)


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line("markers", "browser: drives Chromium against a live server")


@pytest.fixture(scope="session")
def live(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Live]:
    import uvicorn

    saved = auth.PASSWORD_HASHER
    auth.PASSWORD_HASHER = PasswordHasher(time_cost=1, memory_cost=8, parallelism=1)
    path = tmp_path_factory.mktemp("browser") / "casino.db"
    store = Store.open(f"sqlite:///{path}")
    prepare(store, password=PASSWORD.__getitem__)
    store.run(_cycle_timings)
    settings = Settings.of({"tick_seconds": 0.2, "log_requests": False, "login_attempts": 1000})
    runtime = Runtime(settings, store)
    runtime.start()
    port = _free_port()
    config = uvicorn.Config(
        create_app(runtime),
        host="127.0.0.1",
        port=port,
        log_level="warning",
        lifespan="on",
        ws_ping_interval=None,
    )
    server = uvicorn.Server(config)
    thread = threading.Thread(target=server.run, name="browser-live-server", daemon=True)
    thread.start()
    wait_until("the live server", lambda: server.started)
    url = f"http://127.0.0.1:{port}"
    client = httpx.Client(base_url=url, timeout=WAIT_SECONDS)
    try:
        yield Live(url, runtime, store, client)
    finally:
        client.close()
        server.should_exit = True
        thread.join(WAIT_SECONDS)
        runtime.stop()
        store.close()
        auth.PASSWORD_HASHER = saved


@pytest.fixture(scope="session")
def browser() -> Iterator[Any]:
    if not CHROMIUM.exists() and not shutil.which(str(CHROMIUM)):
        message = f"Chromium is not installed at {CHROMIUM} (.ci/run installs it)"
        if REQUIRE_ALL:
            pytest.fail(f"{message}: required in CI (MACAU_TABLES_REQUIRE_ALL=1)")
        pytest.skip(message)
    try:
        from playwright.sync_api import sync_playwright
    except ImportError as exc:  # pragma: no cover - a dependency of the tests
        if REQUIRE_ALL:
            pytest.fail(f"playwright is required in CI: {exc}")
        pytest.skip("playwright is not installed")
    with sync_playwright() as playwright:
        chromium = playwright.chromium.launch(
            executable_path=str(CHROMIUM),
            headless=True,
            args=["--no-sandbox", "--disable-dev-shm-usage", "--disable-gpu"],
        )
        try:
            yield chromium
        finally:
            chromium.close()


@pytest.fixture
def page_of(browser: Any, live: Live) -> Iterator[Callable[..., Any]]:
    """Open a new page in its own context: ``page_of(viewport=(w, h), locale="en-US")``. Every
    page opened is watched; the test fails on what went wrong in any of them."""
    contexts: list[Any] = []
    watches: list[Watch] = []

    def open_page(viewport: tuple[int, int] = (1366, 768), locale: str = "en-US") -> Any:
        context = browser.new_context(
            base_url=live.url,
            viewport={"width": viewport[0], "height": viewport[1]},
            locale=locale,  # also the browser's Accept-Language
        )
        context.set_default_timeout(WAIT_SECONDS * 1000)
        contexts.append(context)
        page = context.new_page()
        seen = watch(page, live.url)
        page.watch = seen
        watches.append(seen)
        return page

    yield open_page
    for context in contexts:
        context.close()
    problems = [p for w in watches for p in w.problems]
    assert not problems, "the pages went wrong:\n" + "\n".join(problems)


@pytest.fixture
def page(page_of: Callable[..., Any]) -> Any:
    """A watched page at 1366×768 in English (module docstring)."""
    return page_of()
