"""Browser tests of the pages (issue 11): Debian's Chromium driven by Playwright (sync API).

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

import os
import shutil
import socket
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx
import pytest
from argon2 import PasswordHasher

from macau_tables.rounds import TableMode
from macau_tables.server import auth
from macau_tables.server.app import create_app
from macau_tables.server.runtime import Runtime, demo_users, prepare
from macau_tables.server.settings import Settings
from macau_tables.store import Store
from macau_tables.tables.reconfigure import change_table_config
from tests.conftest import REQUIRE_ALL

CHROMIUM = Path(os.environ.get("MACAU_TABLES_CHROMIUM", "/usr/bin/chromium"))
ARTIFACTS = Path(__file__).resolve().parent / "artifacts"
DOCS = Path(__file__).resolve().parents[2] / "docs" / "screenshots"
DOCS_SCREENSHOTS = os.environ.get("MACAU_TABLES_DOCS_SCREENSHOTS") == "1"
PASSWORD: dict[str, str] = {name: f"{name}-password-1234" for name, _ in demo_users()}
WAIT_SECONDS = 20.0
"""The longest any wait of these tests lasts (a bound, never an assertion on timing)."""
CYCLE: dict[str, int] = {"betting_seconds": 8, "result_seconds": 12, "idle_after_rounds": 3}
"""The round cycle of the session's virtual tables (``bac-1``, ``csp-1``; tables/cycle.py): a
shorter countdown than the demonstration's, so a round a test bets in closes soon, and a longer
result pause, so a test reads a settled round (its cards, results, roads) before the next one
opens. A wait for the next round lasts up to :data:`ROUND_WAIT`."""
ROUND_WAIT = WAIT_SECONDS + CYCLE["result_seconds"] + CYCLE["betting_seconds"]
"""The bound of a wait that may span a result pause and a countdown."""
WAGERS = ("PlaceWager", "PlaceAnte")
"""The commands (by name) a round takes while it takes wagers."""


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    here = Path(__file__).resolve().parent
    for item in items:
        if here in Path(str(item.fspath)).resolve().parents:
            item.add_marker(pytest.mark.browser)


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line("markers", "browser: drives Chromium against a live server")


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


def wait_until(what: str, check: Callable[[], Any], timeout: float = WAIT_SECONDS) -> Any:
    """Call ``check`` until it returns something true (returned), at most ``timeout`` s."""
    deadline = time.monotonic() + timeout
    last: Any = None
    while time.monotonic() < deadline:
        last = check()
        if last:
            return last
        time.sleep(0.05)
    raise AssertionError(f"gave up waiting for {what} after {timeout} s (last: {last!r})")


@dataclass
class Live:
    """The live server of the session (module docstring)."""

    url: str
    runtime: Runtime
    store: Store
    api: httpx.Client
    tokens: dict[str, dict[str, str]] = field(default_factory=dict)

    def token(self, name: str) -> dict[str, str]:
        """Bearer headers of one-time user ``name`` (cached for the session)."""
        if name not in self.tokens:
            response = self.api.post(
                "/api/auth/token", json={"name": name, "password": PASSWORD[name]}
            )
            assert response.status_code == 200, response.text
            self.tokens[name] = {"Authorization": f"Bearer {response.json()['token']}"}
        return self.tokens[name]

    def shown(self, table: str, name: str = "alice") -> Any:
        """``GET /api/tables/{table}`` as ``name`` sees it."""
        response = self.api.get(f"/api/tables/{table}", headers=self.token(name))
        assert response.status_code == 200, response.text
        return response.json()

    def takes_wagers(self, table: str, name: str = "alice") -> Any:
        """The table as ``name`` sees it when its round takes wagers now, else ``None``."""
        shown = self.shown(table, name)
        commands = (shown["expected"] or {}).get("commands", [])
        return shown if any(c.endswith(WAGERS) for c in commands) else None

    def betting(self, table: str, name: str = "alice") -> Any:
        """Wait until the round cycle of virtual ``table`` has a round taking wagers (it opens
        the next one after the result pause); returns the table as ``name`` sees it."""
        return wait_until(
            f"a round of {table} taking wagers",
            lambda: self.takes_wagers(table, name),
            timeout=ROUND_WAIT,
        )

    def closed(self, table: str, round_id: str) -> Any:
        """Wait until the round cycle closed the betting of ``round_id`` at ``table`` (at the end
        of its countdown: a round with a wager closes); returns the table as seen then."""

        def done() -> Any:
            shown = self.shown(table)
            return shown if shown["round_id"] != round_id or not self.takes_wagers(table) else None

        return wait_until(f"the cycle to close {round_id}", done, timeout=ROUND_WAIT)


def _cycle_timings(tx: Any) -> None:
    """Give every virtual table of the casino the round cycle :data:`CYCLE` (a new
    configuration version, as ``POST /api/admin/tables/{id}/config`` makes; before the server
    starts, so between rounds)."""
    for table in tx.tables():
        if table.mode is TableMode.VIRTUAL:
            change_table_config(
                tx,
                table.table_id,
                changes=CYCLE,
                actor="admin",
                reason="browser tests: a short round cycle",
            )


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


@dataclass
class Watch:
    """What went wrong in a page: console errors, page errors, failed requests."""

    problems: list[str] = field(default_factory=list)
    refusals: list[str] = field(default_factory=list)  # API refusals the page showed
    allowed: list[str] = field(default_factory=list)

    def allow(self, text: str) -> None:
        """Accept a console error or failed request containing ``text`` (a test that provokes
        it on purpose)."""
        self.allowed.append(text)

    def add(self, problem: str) -> None:
        if not any(a in problem for a in self.allowed):
            self.problems.append(problem)


def watch(page: Any, base_url: str) -> Watch:
    """Record ``page``'s console errors, page errors and failed requests (module docstring)."""
    seen = Watch()
    refused: set[str] = set()

    def on_response(response: Any) -> None:
        status = response.status
        url = response.url
        if status >= 500:
            seen.add(f"{status} {response.request.method} {url}")
        elif status >= 400:
            api = url.startswith(f"{base_url}/api/")
            if api and "application/json" in (response.headers.get("content-type") or ""):
                refused.add(url)
                seen.refusals.append(f"{status} {url}")
            else:
                seen.add(f"{status} {response.request.method} {url}")

    def on_console(message: Any) -> None:
        if message.type != "error":
            return
        text = message.text
        where = (message.location or {}).get("url", "")
        if text.startswith("Failed to load resource") and where in refused:
            return  # an API refusal: the page shows it in its language
        seen.add(f"console: {text} ({where})")

    page.on("response", on_response)
    page.on("console", on_console)
    page.on("pageerror", lambda error: seen.add(f"page error: {error}"))
    page.on(
        "requestfailed",
        lambda request: (
            None
            if (request.failure or "").endswith("ERR_ABORTED")  # navigation cut a request
            else seen.add(f"failed: {request.method} {request.url} {request.failure}")
        ),
    )
    return seen


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


def login(page: Any, name: str, *, password: str | None = None, then: str = "/") -> None:
    """Sign ``name`` in through the login page and open ``then``."""
    page.goto(f"/login?next={then}")
    page.get_by_label(_label(page, "name")).fill(name)
    page.get_by_label(_label(page, "password")).fill(password or PASSWORD[name])
    with page.expect_navigation():
        page.locator("#login-submit").click()
    page.wait_for_load_state("domcontentloaded")


def _label(page: Any, which: str) -> str:
    return str(page.locator(f"label[for='login-{which}']").inner_text())


def shot(page: Any, name: str) -> Path:
    """Save a full-page screenshot of ``page`` as ``artifacts/<name>.png`` — and, when
    ``MACAU_TABLES_DOCS_SCREENSHOTS=1``, as ``docs/screenshots/<name>.jpg`` for docs/pages.md."""
    ARTIFACTS.mkdir(exist_ok=True)
    target = ARTIFACTS / f"{name}.png"
    page.screenshot(path=str(target), full_page=True, animations="disabled")
    if DOCS_SCREENSHOTS:
        DOCS.mkdir(exist_ok=True)
        page.screenshot(
            path=str(DOCS / f"{name}.jpg"),
            full_page=True,
            animations="disabled",
            type="jpeg",
            quality=70,
        )
    return target


def axe_check(page: Any, *, what: str = "") -> list[dict[str, Any]]:
    """Run axe on ``page``; fail on serious or critical violations (returns the minor ones)."""
    from axe_playwright_python.sync_playwright import Axe

    results = Axe().run(page)
    violations: list[dict[str, Any]] = results.response.get("violations", [])
    bad = [v for v in violations if v.get("impact") in ("serious", "critical")]
    assert not bad, f"{what or page.url}: accessibility violations:\n" + "\n".join(
        f"{v['id']} ({v['impact']}): {v['help']} — "
        + "; ".join(str(n.get("target")) for n in v.get("nodes", [])[:5])
        for v in bad
    )
    return [v for v in violations if v not in bad]
