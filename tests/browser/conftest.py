"""Browser tests of the pages (issue 11): Debian's Chromium driven by Playwright (sync API).
The helpers named below live in tests/browser/support.py (test files import them from there).

* ``live`` (session) — one real server for the whole session: uvicorn on a free loopback port
  in a thread, serving ``create_app`` on a scratch SQLite database holding the demonstration
  casino (``bac-1``, ``bac-live``, ``bac-squeeze``, ``csp-1``; meters ``m-baccarat``,
  ``m-caribbean``) and the five one-time users with the passwords :data:`PASSWORD` (cheap
  argon2, as the server tests).
  Its clock is the real one and its tick thread runs (time-outs, CSP-6.4, BAC-16, and the round
  cycle), but the virtual tables' round cycle is *held* (:data:`CYCLE`: countdowns and result
  pauses of an hour, given them as a new configuration version before the server starts): a
  test moves it itself, with the step the tick takes at a deadline
  (:meth:`TableService.cycle_step`), so nothing a test does races a countdown on the wall
  clock. ``live.url``, ``live.runtime``, ``live.store``, ``live.token(name)`` (bearer headers
  for API calls made by the test itself, with ``live.api``, an ``httpx.Client`` on the server);
  ``live.shown(table)`` the table as a user's API answers it, ``live.betting(table)`` steps the
  cycle until a round takes wagers, ``live.closed(table, round_id)`` until its betting is
  closed. tests/browser/test_round_cycle.py has a server of its own whose cycle runs on the
  wall clock (:data:`RUNNING_CYCLE`): the round running by itself is what it shows.
* ``browser`` (session) — ``/usr/bin/chromium`` headless (``executable_path``: never
  ``playwright install``). Missing, it skips — and FAILS under ``MACAU_TABLES_REQUIRE_ALL=1``.
* ``page`` — a context of its own (1366×768, English browser, a reader who asks for less motion:
  ``prefers-reduced-motion: reduce``) and page; the test FAILS on any console
  error, uncaught page error or failed request (a network failure, a 5xx, a 4xx for anything but
  an API refusal the page shows — a refused bet or card is the page's business, a missing
  script is not). ``page_of(viewport=…, locale=…, motion=…)`` opens more (another user, a
  phone; ``motion="no-preference"`` where the motion is what the test looks at: the pages'
  transitions — the countdown ring's, every half second — repaint the page at every frame,
  about a seventh of a core per table page open).
* ``contexts`` (session) — the worker's browser contexts and a page of each (support.Contexts):
  ``page_of`` takes one per page and hands it back after the test, its cookies cleared and the
  page at ``about:blank`` (closed instead when the test set on it routes, init scripts,
  listeners or emulated media), for the next test that asks for the same screen, locale and
  motion (a new page costs Chromium a few tenths of a second of CPU, a load in a kept one a few
  hundredths).
* ``login(page, name, then=…)`` signs in as the login page does (``POST /api/auth/login`` from
  the page's context: the session cookie lands in its cookie jar) and opens ``then``;
  ``through_page=True`` types the name and password into the login page instead (the tests
  whose subject is the login). ``shot(page, name)`` saves a full-page screenshot to
  ``tests/browser/artifacts/<name>.png`` only when ``MACAU_TABLES_BROWSER_ARTIFACTS=1`` (opt-in,
  git-ignored: to look at the pages of a run), and with ``MACAU_TABLES_DOCS_SCREENSHOTS=1`` to
  ``docs/screenshots/<name>.jpg``, shown by ``docs/pages.md``; ``axe_check(page)`` fails on
  serious or critical accessibility violations (axe-playwright-python).
"""

from __future__ import annotations

import shutil
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.browser.support import (  # noqa: F401 (axe_check … wait_until re-exported for older imports)
    CHROMIUM,
    CYCLE,
    PASSWORD,
    Contexts,
    Live,
    Watch,
    axe_check,
    login,
    serve_live,
    shot,
    wait_until,
    watch,
)
from tests.support import REQUIRE_ALL


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    # Every item of the session passes here (a conftest's hook sees them all): each file's
    # path is resolved once, not once per item (8,000 resolutions took seconds per worker).
    here = Path(__file__).resolve().parent
    inside: dict[Path, bool] = {}
    for item in items:
        if item.path not in inside:
            inside[item.path] = here in item.path.resolve().parents
        if inside[item.path]:
            item.add_marker(pytest.mark.browser)


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line("markers", "browser: drives Chromium against a live server")


@pytest.fixture(scope="session")
def live(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Live]:
    with serve_live(tmp_path_factory.mktemp("browser") / "casino.db", CYCLE) as server:
        yield server


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


@pytest.fixture(scope="session")
def contexts(browser: Any) -> Iterator[Contexts]:
    """The worker's browser contexts, each kept for the next test once a test is done with it
    (support.Contexts: its pages closed, its cookies cleared)."""
    kept = Contexts(browser)
    try:
        yield kept
    finally:
        kept.close()


@pytest.fixture
def page_of(contexts: Contexts, live: Live) -> Iterator[Callable[..., Any]]:
    """Open a new page in a context of its own: ``page_of(viewport=(w, h), locale="en-US",
    motion="reduce")`` (a context no other page of the test uses: another test's, its pages
    closed and its cookies cleared, or a new one). Every page opened is watched; the test fails
    on what went wrong in any of them."""
    taken: list[tuple[Any, tuple[Any, ...]]] = []
    watches: list[Watch] = []

    def open_page(
        viewport: tuple[int, int] = (1366, 768), locale: str = "en-US", motion: str = "reduce"
    ) -> Any:
        key = (live.url, viewport, locale, motion)
        page = contexts.take(*key)
        taken.append((page, key))
        seen = watch(page, live.url)
        page.watch = seen
        watches.append(seen)
        contexts.record(page)  # (what the test sets on it decides whether it is kept)
        return page

    yield open_page
    for page, key in taken:
        contexts.give_back(page, *key)
    problems = [p for w in watches for p in w.problems]
    assert not problems, "the pages went wrong:\n" + "\n".join(problems)


@pytest.fixture
def page(page_of: Callable[..., Any]) -> Any:
    """A watched page at 1366×768 in English (module docstring)."""
    return page_of()
