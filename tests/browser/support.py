"""Helpers shared by the browser tests (tests/browser/conftest.py has the fixtures that use
them; see its docstring): the live server's handle :class:`Live`, bounded waits on what a page
or the server shows (:func:`wait_until`), signing in, screenshots, axe, what a page watches for,
the words a translated page may still show in English, and the live dealer console's steps.
Test files import these from here, never from another test file."""

from __future__ import annotations

import os
import socket
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx
from argon2 import PasswordHasher

from macau_tables import messages
from macau_tables.rounds import TableMode
from macau_tables.server import auth
from macau_tables.server.app import create_app
from macau_tables.server.runtime import Runtime, demo_users, prepare
from macau_tables.server.settings import Settings
from macau_tables.store import Store
from macau_tables.tables.reconfigure import change_table_config
from macau_tables.timings import MAX_SECONDS
from tests.raw_text import english_words
from tests.server.support import add_held_table

CHROMIUM = Path(os.environ.get("MACAU_TABLES_CHROMIUM", "/usr/bin/chromium"))

ARTIFACTS = Path(__file__).resolve().parent / "artifacts"

DOCS = Path(__file__).resolve().parents[2] / "docs" / "screenshots"

DOCS_SCREENSHOTS = os.environ.get("MACAU_TABLES_DOCS_SCREENSHOTS") == "1"

ARTIFACT_SCREENSHOTS = os.environ.get("MACAU_TABLES_BROWSER_ARTIFACTS") == "1"
"""Whether :func:`shot` saves its full-page PNG to ``tests/browser/artifacts/`` (opt-in: a
screenshot nobody asked for costs a page's layout, paint and a ~1 MB file, dozens a run)."""

PASSWORD: dict[str, str] = {name: f"{name}-password-1234" for name, _ in demo_users()}

WAIT_SECONDS = 60.0
"""The longest any wait of these tests lasts (a bound, never an assertion on timing)."""

CYCLE: dict[str, int] = {
    "betting_seconds": MAX_SECONDS,
    "result_seconds": MAX_SECONDS,
    "idle_after_rounds": 1_000,
}
"""The *held* round cycle of the session's virtual tables (``bac-1``, ``csp-1``; tables/cycle.py):
no countdown nor result pause runs out on the wall clock while a test is at the table; the
test moves the cycle itself (:meth:`Live.betting`, :meth:`Live.closed`: the step the tick
takes at the recorded deadline, without the wait), so a busy machine makes a test slower,
never wrong."""

RUNNING_CYCLE: dict[str, int] = {"betting_seconds": 8, "result_seconds": 4, "idle_after_rounds": 8}
"""The round cycle of tests/browser/test_round_cycle.py's own server, run by the wall clock (the
round running by itself is what those tests show): a countdown long enough to bet in on a busy
machine, a short result pause, idling after eight quiet countdowns — the idle test steps its
countdowns' ends, and the countdown and pause tests' tables must not idle while a busy machine
draws their pages (a CI run with the browser crawls beside them: several countdowns may run
out while a page waits)."""

ROUND_WAIT = WAIT_SECONDS + RUNNING_CYCLE["result_seconds"] + RUNNING_CYCLE["betting_seconds"]
"""The bound of a wait that may span a result pause and a countdown of :data:`RUNNING_CYCLE`."""

WAGERS = ("PlaceWager", "PlaceAnte")
"""The commands (by name) a round takes while it takes wagers."""


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


def wait_until(what: str, check: Callable[[], Any], timeout: float = WAIT_SECONDS) -> Any:
    """Call ``check`` until it returns something true (returned), at most ``timeout`` s: at
    once, then after a pause that grows from 0.05 s to at most 0.25 s (most waits end within
    a few checks; a long one — a countdown, the exact math — asks the page a quarter as often,
    each check a round trip through the Playwright driver and Chromium)."""
    deadline = time.monotonic() + timeout
    last: Any = None
    pause = 0.05
    while time.monotonic() < deadline:
        last = check()
        if last:
            return last
        time.sleep(pause)
        pause = min(pause * 1.25, 0.25)
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

    def step(self, table: str) -> None:
        """Take ``table``'s next round-cycle step now (:meth:`TableService.cycle_step`: what the
        tick does at the recorded deadline): open the next round, or close the betting."""
        self.runtime.service(table).cycle_step()

    def betting(self, table: str, name: str = "alice") -> Any:
        """Step the round cycle of virtual ``table`` until it has a round taking wagers (the
        next round opens at once, without its result pause); returns the table as ``name``
        sees it."""

        def ready() -> Any:
            shown = self.takes_wagers(table, name)
            if not shown:
                self.step(table)
            return shown

        return wait_until(f"a round of {table} taking wagers", ready, timeout=ROUND_WAIT)

    def closed(self, table: str, round_id: str) -> Any:
        """Step the round cycle until the betting of ``round_id`` at ``table`` is closed (the
        countdown's end without its wait: a round with a wager closes, is dealt and played);
        returns the table as seen then."""

        def done() -> Any:
            shown = self.shown(table)
            if shown["round_id"] != round_id or not self.takes_wagers(table):
                return shown
            self.step(table)
            return None

        return wait_until(f"the cycle to close {round_id}", done, timeout=ROUND_WAIT)


def _cycle_timings(cycle: dict[str, int]) -> Callable[[Any], None]:
    """Give every virtual table of the casino the round cycle ``cycle`` (a new configuration
    version, as ``POST /api/admin/tables/{id}/config`` makes; before the server starts, so
    between rounds)."""

    def change(tx: Any) -> None:
        for table in tx.tables():
            if table.mode is TableMode.VIRTUAL:
                change_table_config(
                    tx,
                    table.table_id,
                    changes=cycle,
                    actor="admin",
                    reason="browser tests: the round cycle of the tests",
                )

    return change


@contextmanager
def serve_live(path: Path, cycle: dict[str, int]) -> Iterator[Live]:
    """A real server (conftest's ``live``) on a new SQLite database at ``path``, the virtual
    tables' round cycle ``cycle``."""
    import uvicorn

    saved = auth.PASSWORD_HASHER
    auth.PASSWORD_HASHER = PasswordHasher(time_cost=1, memory_cost=8, parallelism=1)
    store = Store.open(f"sqlite:///{path}")
    prepare(store, password=PASSWORD.__getitem__)
    store.run(_cycle_timings(cycle))
    settings = Settings.of(
        {
            "tick_seconds": 0.2,
            "log_requests": False,
            "login_attempts": 1000,
            "spread_openings": False,
        }
    )
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
        # a connection kept alive stays open for the session: with uvicorn's 5 s, a request
        # Playwright sends on a connection the server is closing that moment is reset
        # (ECONNRESET: a POST is not retried), as a busy machine's slow crawl met
        timeout_keep_alive=3600,
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


@dataclass
class Watch:
    """What went wrong in a page: console errors, page errors, failed requests."""

    base_url: str = ""  # the live server the page is watched against
    started: int = 0  # requests the page started (a WebSocket's frames are none)
    under_way: dict[int, str] = field(default_factory=dict)  # neither finished nor failed yet
    problems: list[str] = field(default_factory=list)
    refusals: list[str] = field(default_factory=list)  # API refusals the page showed
    allowed: list[str] = field(default_factory=list)
    handlers: list[tuple[str, Any]] = field(default_factory=list)  # the page's listeners

    def allow(self, text: str) -> None:
        """Accept a console error or failed request containing ``text`` (a test that provokes
        it on purpose)."""
        self.allowed.append(text)

    def add(self, problem: str) -> None:
        if not any(a in problem for a in self.allowed):
            self.problems.append(problem)


_SETTINGS = (
    *("route", "route_from_har", "route_web_socket", "add_init_script", "add_locator_handler"),
    *("expose_function", "expose_binding", "on", "once", "set_extra_http_headers"),
    *("emulate_media", "set_default_timeout", "set_default_navigation_timeout"),
)
"""What a test may set on a page that outlives a navigation (its routes, init scripts,
listeners, headers, emulated media, time-outs): a page a test set any of these on is closed
after the test, never handed to another."""


class Contexts:
    """The browser contexts of a pytest worker and a page of each, kept for the next test
    (conftest's ``contexts`` and ``page_of``): Chromium spends about a third of a second of CPU
    on a new page (a renderer process started) and more on a new context, against a few
    hundredths for a page's next load — and a run opens about 80.

    Once the test is done, its context's cookies are cleared (nobody signed in, no language
    remembered) and it is online; one of its pages is kept, if the test set nothing on it that
    outlives a navigation (:data:`_SETTINGS`, recorded as it calls them) and nothing went wrong
    in it: its watch's listeners are removed, it is taken to ``about:blank`` (its scripts and
    sockets end with the document) at the context's screen size; the others are closed. The
    next test asking for a page with the same server, screen, locale and motion gets that page
    (else a new page of a kept context, else a new context). The pages keep nothing in the
    browser's storage but cookies (no ``localStorage``, no service worker); the HTTP cache of
    the static files is kept, as a returning visitor's browser keeps it."""

    def __init__(self, browser: Any) -> None:
        self.browser = browser
        self.free: dict[tuple[Any, ...], list[tuple[Any, Any]]] = {}

    def take(self, base_url: str, viewport: tuple[int, int], locale: str, motion: str) -> Any:
        """A page of a context of its own on ``base_url`` at ``viewport``, ``locale`` (also
        the browser's ``Accept-Language``) and ``motion`` (``prefers-reduced-motion``): a kept
        one, else a new page of a kept context, else a new context's."""
        free = self.free.get((base_url, viewport, locale, motion))
        if free:
            context, page = free.pop()
        else:
            context = self.browser.new_context(
                base_url=base_url,
                viewport={"width": viewport[0], "height": viewport[1]},
                locale=locale,
                reduced_motion=motion,
            )
            context.set_default_timeout(WAIT_SECONDS * 1000)
            page = None
        return page if page is not None else context.new_page()

    @staticmethod
    def record(page: Any) -> None:
        """From now on, record on ``page`` whether the test sets on it anything that outlives a
        navigation (:data:`_SETTINGS`)."""
        page.settings_made = False
        for name in _SETTINGS:
            setattr(page, name, _recorded(page, getattr(type(page), name).__get__(page)))

    def give_back(
        self, page: Any, base_url: str, viewport: tuple[int, int], locale: str, motion: str
    ) -> None:
        """Keep ``page``'s context, and ``page`` when it can be made as new, for the next test
        (the context closed instead when it cannot be made so)."""
        context = page.context
        seen: Watch | None = getattr(page, "watch", None)
        kept = None
        try:
            if seen is not None:
                for event, handler in seen.handlers:
                    type(page).remove_listener(page, event, handler)
            for other in context.pages:
                reusable = not getattr(page, "settings_made", True) and seen and not seen.problems
                if other is page and reusable:
                    for name in _SETTINGS:
                        delattr(page, name)
                    page.goto("about:blank")
                    page.set_viewport_size({"width": viewport[0], "height": viewport[1]})
                    kept = page
                else:
                    other.close()
            context.clear_cookies()
            context.set_offline(False)
            assert context.pages == ([kept] if kept else []) and not context.cookies()
        except Exception:
            context.close()
            return
        self.free.setdefault((base_url, viewport, locale, motion), []).append((context, kept))

    def close(self) -> None:
        for free in self.free.values():
            for context, _page in free:
                context.close()
        self.free.clear()


def _recorded(page: Any, method: Callable[..., Any]) -> Callable[..., Any]:
    """``method`` of ``page``, recording that the test set something on the page (a page so
    set is not handed to another test: :class:`Contexts`)."""

    def call(*args: Any, **kwargs: Any) -> Any:
        page.settings_made = True
        return method(*args, **kwargs)

    return call


def watch(page: Any, base_url: str) -> Watch:
    """Record ``page``'s console errors, page errors and failed requests (module docstring)."""
    seen = Watch(base_url)
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

    def on_request(request: Any) -> None:
        seen.started += 1
        seen.under_way[id(request)] = request.url

    def on_finished(request: Any) -> None:
        seen.under_way.pop(id(request), None)

    def on_failed(request: Any) -> None:
        seen.under_way.pop(id(request), None)
        if not (request.failure or "").endswith("ERR_ABORTED"):  # navigation cut a request
            seen.add(f"failed: {request.method} {request.url} {request.failure}")

    def on_error(error: Any) -> None:
        seen.add(f"page error: {error}")

    seen.handlers = [
        ("request", on_request),
        ("requestfinished", on_finished),
        ("response", on_response),
        ("console", on_console),
        ("pageerror", on_error),
        ("requestfailed", on_failed),
    ]
    for event, handler in seen.handlers:
        page.on(event, handler)
    return seen


_NEXT_FRAME = "() => new Promise((done) => requestAnimationFrame(() => setTimeout(done, 0)))"
"""A frame of the page and a task after it: what its scripts queued meanwhile has run."""


def network_quiet(page: Any) -> None:
    """Wait until ``page`` (watched: conftest's ``page_of``) has no request under way, and none
    started while it drew a frame and ran a task after it (a script that reads one answer and
    then asks for the next has asked by then). Playwright's ``networkidle`` waits for 500 ms
    without a request instead: a fixed half second per page."""
    seen: Watch = page.watch

    def quiet() -> bool:
        before = seen.started
        page.evaluate(_NEXT_FRAME)  # (the sync API takes the page's events in its calls only)
        return not seen.under_way and seen.started == before

    wait_until(f"{page.url}: the network quiet", quiet)


def login(
    page: Any,
    name: str,
    *,
    password: str | None = None,
    then: str = "/",
    through_page: bool = False,
) -> None:
    """Sign ``name`` in and open ``then``. The session is asked for as the login page asks for it
    (``POST /api/auth/login`` from this site, through the page's context: the session cookie
    lands in its cookie jar), one request instead of the login page's load, form and redirect;
    ``through_page=True`` signs in through the login page itself (the tests whose subject is
    the login; every_page_words and test_public_pages also check the page). A page opened by
    conftest's ``page_of`` (or given ``page.watch``) knows the server's address."""
    base = getattr(getattr(page, "watch", None), "base_url", "")
    if through_page or not base:
        _login_through_page(page, name, password=password, then=then)
        return
    answer = page.context.request.post(
        f"{base}/api/auth/login",
        data={"name": name, "password": password or PASSWORD[name]},
        headers={"Origin": base},
    )
    assert answer.status == 200, answer.text()
    page.goto(then)


def _login_through_page(page: Any, name: str, *, password: str | None, then: str) -> None:
    page.goto(f"/login?next={then}")
    page.get_by_label(_label(page, "name")).fill(name)
    page.get_by_label(_label(page, "password")).fill(password or PASSWORD[name])
    with page.expect_navigation():
        page.locator("#login-submit").click()
    page.wait_for_load_state("domcontentloaded")


def _label(page: Any, which: str) -> str:
    return str(page.locator(f"label[for='login-{which}']").inner_text())


def shot(page: Any, name: str) -> Path | None:
    """Save a full-page screenshot of ``page`` as ``artifacts/<name>.png`` when
    ``MACAU_TABLES_BROWSER_ARTIFACTS=1`` (returned; else ``None``) — and, when
    ``MACAU_TABLES_DOCS_SCREENSHOTS=1``, as ``docs/screenshots/<name>.jpg`` for docs/pages.md."""
    target = None
    if ARTIFACT_SCREENSHOTS:
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


AXE_WORDS_RULES: tuple[str, ...] = (
    *("html-has-lang", "html-lang-valid", "html-xml-lang-mismatch", "valid-lang"),
    *("document-title", "empty-heading", "empty-table-header", "p-as-heading"),
    *("button-name", "input-button-name", "link-name", "label", "select-name", "summary-name"),
    *("label-title-only", "form-field-multiple-labels", "table-duplicate-name"),
    *("image-alt", "input-image-alt", "svg-img-alt", "role-img-alt", "object-alt", "area-alt"),
    *("aria-command-name", "aria-dialog-name", "aria-input-field-name", "aria-meter-name"),
    *("aria-progressbar-name", "aria-toggle-field-name", "aria-tooltip-name", "aria-text"),
    *("aria-treeitem-name", "aria-tab-name", "frame-title", "identical-links-same-purpose"),
)
"""The axe rules whose outcome the page's language can change: its ``lang``, and the names,
labels, titles and headings its words make (an empty or missing translation is an empty
name). ``axe_check(page, rules=AXE_WORDS_RULES)`` runs only these — a page already checked
with every rule in one language, at the same size, is checked with these in the others: the
rest (colour contrast, landmarks, ARIA structure, focus, sizes) read the page's structure and
styles, the same in every language."""


def axe_check(
    page: Any, *, what: str = "", rules: tuple[str, ...] | None = None, within: str = ""
) -> list[dict[str, Any]]:
    """Run axe on ``page`` (every rule, or only ``rules``); fail on serious or critical
    violations (returns the minor ones). ``within`` (a CSS selector) checks only the part of
    the page it selects: the part a test changed, on a page another test checks whole in the
    same language and size (the document-wide rules — its ``lang``, title, landmarks — need the
    whole page)."""
    from axe_playwright_python.base import AXE_SCRIPT

    # axe-core is injected once per document (the library's ``Axe().run`` injects its 500 KB
    # script at every call: twice on a page checked at two sizes), then run as the library
    # runs it: the whole document, violations only.
    if not page.evaluate("() => typeof window.axe === 'object' && !!window.axe.run"):
        page.evaluate(AXE_SCRIPT)
    options: dict[str, Any] = {"resultTypes": ["violations"]}
    if rules is not None:
        options["runOnly"] = {"type": "rule", "values": list(rules)}
    if within:
        assert page.locator(within).count() >= 1, f"{what or page.url}: nothing at {within}"
    response = page.evaluate(
        "([within, options]) => axe.run(within ? {include: [[within]]} : document, options)",
        [within, options],
    )
    violations: list[dict[str, Any]] = response.get("violations", [])
    bad = [v for v in violations if v.get("impact") in ("serious", "critical")]
    assert not bad, f"{what or page.url}: accessibility violations:\n" + "\n".join(
        f"{v['id']} ({v['impact']}): {v['help']} — "
        + "; ".join(str(n.get("target")) for n in v.get("nodes", [])[:5])
        for v in bad
    )
    return [v for v in violations if v not in bad]


def axe_in(
    page: Any, language: str, *, whole: str, what: str, within: str = ""
) -> list[dict[str, Any]]:
    """:func:`axe_check` of a page that a test checks in every language, in the same state:
    every rule in ``whole``, one of the languages (each such check names its own, so that the
    languages share the whole checks) — only on the part ``within`` selects when given (the part
    the test changed, on a page checked whole elsewhere) — :data:`AXE_WORDS_RULES` on the whole
    page in the others."""
    assert whole in messages.LANGUAGES, whole
    if language == whole:
        return axe_check(page, what=what, within=within)
    return axe_check(page, what=what, rules=AXE_WORDS_RULES)


DATA_WORDS = {
    "English",  # the switch names each language in itself
    "SHA",  # SHA-256, CSV, JSON, the rules' ids: the same in both languages
    "CSV",
    "JSON",
    "BAC",
    "CSP",
    "MOP",
    "verify",  # a command's name: macau-tables verify
}


def english_left(page: Any, *data: str, within: str = "body") -> list[str]:
    """The English words still visible on ``page`` (in the elements ``within`` selects) once
    the data it shows (names of tables and users, ids — stored as they are) is set aside, in
    the page's language (``tests.raw_text.english_words``: any Latin word on a Chinese page,
    a word only the English catalog writes on a Portuguese one)."""
    text = "\n".join(page.locator(within).all_inner_texts())
    language = page.locator("html").get_attribute("lang") or messages.DEFAULT_LANGUAGE
    found = english_words(text, data=data, language=language)
    return [w for w in found if w not in DATA_WORDS]


def table_names(live: Live) -> list[str]:
    return [t["name"] for t in live.api.get("/api/tables").json()]


class _LiveCards:
    """Cards to type in turn at a live table until the round needs none: tens and faces (0
    points) make both hands draw a third card, so a round takes six of them. ``list(DECK)``
    gives 32 of them, each list starting 7 further on in the 16 such cards than the one
    before: the live rounds of a session (every test on the session's server deals from the
    same shoe) use every one of the shoe's 8 × 16 = 128 alike, never the 8 of one card up
    (a ninth K♠ is a card the shoe does not hold: refused)."""

    ZERO = tuple(f"{rank}{suit}" for rank in ("K", "Q", "J", "10") for suit in "shdc")

    def __init__(self) -> None:
        self.start = 0

    def __iter__(self) -> Iterator[str]:
        start, self.start = self.start, (self.start + 7) % len(self.ZERO)
        return iter([self.ZERO[(start + i) % len(self.ZERO)] for i in range(32)])


DECK = _LiveCards()


def _due(page: Any) -> tuple[str, str]:
    due = page.locator("#due")
    return (due.get_attribute("data-kind") or "", due.get_attribute("data-slot") or "")


def _type_card(page: Any, card: str) -> str:
    """Type ``card`` in the card field and press Enter (the keyboard path); returns the
    outcome the console shows (``accepted`` / ``refused``)."""
    result = page.locator("#card-result")
    page.evaluate("document.getElementById('card-result').dataset.outcome = ''")
    field = page.locator("#card-input")
    field.click()
    field.press_sequentially(card)
    field.press("Enter")
    return str(
        wait_until(f"the console's answer to {card}", lambda: result.get_attribute("data-outcome"))
    )


def _ready_shoe(page: Any) -> None:
    """Open, cut and burn a shoe from the console while the table waits for it (BAC-2.1)."""
    waits = page.locator("#shoe-waits")
    for _ in range(4):
        if not page.locator("#shoe-controls").is_visible():
            return
        before = waits.inner_text()
        for button in ("#open-shoe", "#cut", "#burn"):
            if page.locator(button).is_visible():
                page.locator(button).click()
                break
        wait_until("the shoe's next step", lambda before=before: waits.inner_text() != before)


def _deal_until_settled(page: Any, cards: list[str]) -> None:
    for _ in range(8):
        kind, _slot = _due(page)
        if kind != "card":
            return
        assert _type_card(page, cards.pop(0)) == "accepted"
        wait_until("the next due", lambda due=(kind, _slot): _due(page) != due)


def _open_round(page: Any, cards: list[str]) -> None:
    """Open betting on the live table for wagers: ready the shoe, deal any demonstration round
    (BAC-2.2) or unfinished round by keyboard, then open the next round."""
    opened = page.locator("#open-round")
    close = page.locator("#close-betting")
    shoe = page.locator("#shoe-controls")
    for _ in range(8):
        wait_until(
            "the console ready",
            lambda: (
                shoe.is_visible()
                or opened.is_enabled()
                or close.is_enabled()
                or _due(page)[0] == "card"
            ),
        )
        if close.is_enabled() and page.locator("#demo-note").is_visible():
            # the shoe's demonstration round (BAC-2.2) takes no wager: deal it first
            close.click()
            wait_until("the first card due", lambda: _due(page)[0] == "card")
            _deal_until_settled(page, cards)
            continue
        if close.is_enabled():
            return
        if shoe.is_visible():
            _ready_shoe(page)
        elif _due(page)[0] == "card":
            _deal_until_settled(page, cards)
        else:
            before = page.locator("#round-id").inner_text()
            opened.click()
            wait_until(
                "the round open",
                lambda before=before: page.locator("#round-id").inner_text() != before,
            )
    raise AssertionError("the live table never opened for betting")


HELD_CYCLE = {"betting_seconds": MAX_SECONDS, "result_seconds": CYCLE["result_seconds"]}
"""The round cycle of ``bac-hold`` (its rules): the test moves it itself
(:meth:`TableService.cycle_step`), so its countdown must never run out on the real clock while
the pages are still betting (the demonstration's 15 s did on a busy machine)."""


def held_table(live: Live) -> None:
    """``bac-hold``: the demonstration baccarat table with card holding on (BAC-16.1) and the
    round cycle :data:`HELD_CYCLE`, added to the live casino once (as
    tests/server/test_leaks.py does)."""
    if "bac-hold" in live.runtime.known_table_ids():
        return
    add_held_table(live.store, reason="squeeze test", **HELD_CYCLE)
    wait_until("the runtime serves bac-hold", lambda: "bac-hold" in live.runtime.table_ids())


def cycle_to_a_seated_round(live: Live, table: str, player: str, bettor: str) -> None:
    """Run ``table``'s round cycle at once (:meth:`TableService.cycle_step`: the step its tick
    takes at the recorded deadline, without the wait) until a round that seats ``player``
    takes wagers (BAC-15: the seating is fixed when the round opens). A round still taking
    bets without ``player`` seated is played out: ``bettor`` bets in a standing area (a
    countdown with no wager only starts again) and the cycle closes it."""
    service = live.runtime.service(table)
    keys = iter(range(1, 100))

    def step() -> bool:
        r = service.round
        offered = live.shown(table, bettor)["expected"] or {"commands": []}
        if r is None or "baccarat.PlaceWager" not in offered["commands"]:
            service.cycle_step()  # (the next round opens, or the betting of a round taking none)
            return False
        if player in dict(r.seated).values():
            return True
        if not any(w.player == bettor for w in r.wagers):
            wager = {
                "type": "baccarat.PlaceWager",
                "player": bettor,
                "area": {"type": "baccarat.Area", "seated": False, "number": 2},
                "kind": "banker",
                "amount": 1_000,
            }
            response = live.api.post(
                f"/api/tables/{table}/commands",
                json={
                    "idempotency_key": f"seat-filler-{r.round_id}-{next(keys)}",
                    "command": wager,
                },
                headers=live.token(bettor),
            )
            assert response.status_code == 200, response.text
        service.cycle_step()
        return False

    wait_until(f"a round of {table} seating {player}", step)
