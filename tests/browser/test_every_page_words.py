"""Every page in every language reads in words.

After a baccarat round at ``bac-1``, a Caribbean Stud hand at ``csp-1`` and a live baccarat
round dealt from the console at ``bac-live`` (so that recall, results, reports and the audit log
have content: the module's ``played`` fixture, once per pytest worker), the test of each
language visits EVERY page — the lobby, both player tables, the dealer console
live and virtual, the supervisor's page with the recall of each table, the reports (verify and
the daily report shown), the admin page, the jackpot display, the shoe check, the login page and
the forbidden page — in its language (one test per language of ``messages.LANGUAGES``, so that the
languages spread over the workers), each as the role that uses it,
once the page's scripts have drawn it (its "Loading…" gone, its network quiet), and fails on
what ``tests/raw_text.py`` finds in ``document.body.innerText``: a raw catalog key, a class or
stored type name, a ``snake_case`` glossary value, a JSON path, or an amount of the session in
minor units; on a page in another language than English, on an English word that is not data
(names, ids, reasons as typed) — but for those :data:`ENGLISH_LEFT_ELSEWHERE` names, still to
fix in other files — and (the ``page_of`` fixture) on any console error or failed request.
Each page is also checked by axe (no serious or critical violation) with every rule at desktop
and phone sizes in one language (:func:`_axe_language`: the languages in turn, page by page),
and with the rules a language can change (``AXE_WORDS_RULES``: its ``lang``, the names, labels
and titles its words make) in every other language; it must not scroll sideways, on a desktop
nor on a phone, in any language (these are the axe and width checks of the jackpot display and
the dealer consoles too); with
``MACAU_TABLES_DOCS_SCREENSHOTS=1`` each is saved as ``docs/screenshots/every-<page>-<role>-
<language>.jpg``, the gallery of docs/pages.md.

One server (the worker's session ``live``), one page per language (its cookies cleared before
each role signs in); no sleep: every wait is on what the page or the server shows.
``MACAU_TABLES_WORDS_DUMP=<file>`` writes the texts read, one file per language
(``<file stem>-<language><suffix>``).
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from macau_tables import messages
from macau_tables.messages import terms
from tests.browser.support import (
    AXE_WORDS_RULES,
    DECK,
    DOCS_SCREENSHOTS,
    Contexts,
    Live,
    _deal_until_settled,
    _due,
    _open_round,
    axe_check,
    login,
    network_quiet,
    shot,
    table_names,
    wait_until,
    watch,
)
from tests.raw_text import english_words, raw_left

BACCARAT_STAKE = 7_000
"""alice's banker wager at ``bac-1``: it must read 70.00, never 7000."""
ANTE = 3_000
"""alice's ante at ``csp-1`` (her raise doubles it): 30.00, never 3000."""
LIVE_STAKE = 4_000
"""bruno's player wager at ``bac-live``: 40.00, never 4000."""

DATA = (
    *("Alice", "Bruno", "Carmen", "Daniel", "Elaine", "Fong", "Grace"),
    *("admin", "supervisor", "dealer", "alice", "bruno", "carmen", "daniel", "elaine", "fong"),
    "grace",
    *("bac-1", "bac-live", "csp-1", "m-baccarat", "m-caribbean"),
)
"""What the pages show as it is stored: names and ids."""

REASONS = (
    "browser tests: the round cycle of the tests",  # tests/browser/support.py's configuration
    "words: a pause",
    "words: resumed",
    "words: close",
    "words: open",
    "casino init",  # the actors of the demonstration's own entries
    "serve",
)
"""Reasons and actors the audit log shows as they were recorded."""

ENGLISH_LEFT_ELSEWHERE: dict[str, str] = {
    # English words a page in another language still shows, each with the file it comes from
    # (none left: a word added here must be removed once its file is fixed — a word gone from
    # the pages fails the test below)
}
"""English words a page in another language still shows, and where they come from."""

RAW_LEFT_ELSEWHERE: dict[str, str] = {}
"""Raw values a page still shows (the hand dealt decides which), and where they come from."""

DEALT = frozenset({"won", "lost", "folded", "timed", "out", "not", "qualified", "tied"})
"""The words of a Caribbean box's outcome: which one a page shows depends on the cards."""

PAGES: dict[str | None, tuple[str, ...]] = {
    None: ("/", "/jackpot", "/shoe-check", "/login"),
    "alice": ("/tables/bac-1", "/tables/csp-1", "/admin"),  # /admin: the forbidden page
    "dealer": ("/dealer/bac-live", "/dealer/csp-1"),
    "supervisor": ("/supervisor", "/supervisor/reports"),
    "admin": ("/admin", "/"),
}
"""Every page, by the user who opens it (``None``: nobody signed in)."""

PHONE = (390, 844)
"""A phone's screen: every page is checked by axe at this size too, in every language."""


_WIDEST = """() => [...document.querySelectorAll("body *")]
  .filter((e) => e.getBoundingClientRect().right > window.innerWidth + 1)
  .filter((e) => !e.closest(".table-wrap, .roads, [data-scroll]"))
  .slice(-3)
  .map((e) => `${e.tagName.toLowerCase()}#${e.id}.${e.className}: ${e.textContent.slice(0, 40)}`)
"""
"""What sticks out of a phone's screen (outside the regions that scroll by design)."""


def _axe_language(index: int) -> str:
    """The language in which the ``index``-th page of :data:`PAGES` is checked with every axe
    rule, at desktop and phone sizes: the languages in turn, so that each page is checked
    whole once and each language whole on a third of the pages."""
    return messages.LANGUAGES[index % len(messages.LANGUAGES)]


def _shot_name(who: str | None, path: str, language: str) -> str:
    """``every-<page>-<who>-<language>``: the docs' screenshot of a page (docs/pages.md)."""
    where = path.strip("/").replace("/", "-") or "lobby"
    return f"every-{where}-{who or 'public'}-{language}"


def _send(live: Live, table: str, name: str, command: dict[str, Any], key: str) -> None:
    sent = live.api.post(
        f"/api/tables/{table}/commands",
        json={"idempotency_key": key, "command": command},
        headers=live.token(name),
    )
    assert sent.status_code == 200, sent.text


def _play_baccarat(live: Live) -> None:
    shown = live.betting("bac-1")
    round_id = shown["round_id"]
    wager = {
        "type": "baccarat.PlaceWager",
        "player": "alice",
        "area": {"type": "baccarat.Area", "seated": False, "number": 3},
        "kind": "banker",
        "amount": BACCARAT_STAKE,
    }
    _send(live, "bac-1", "alice", wager, f"words-bac-{round_id}")
    live.closed("bac-1", round_id)
    svc = live.runtime.service("bac-1")
    wait_until(
        "the baccarat round settled", lambda: svc.round.round_id != round_id or svc.round.is_over
    )


def _play_caribbean(live: Live) -> None:
    shown = live.betting("csp-1")
    round_id = shown["round_id"]
    ante = {"type": "caribbean.PlaceAnte", "box": 5, "player": "alice", "amount": ANTE}
    _send(live, "csp-1", "alice", ante, f"words-ante-{round_id}")
    live.closed("csp-1", round_id)
    svc = live.runtime.service("csp-1")
    wait_until("alice's decision", lambda: svc.round.is_over or live.shown("csp-1")["expected"])
    if not svc.round.is_over:
        raised = {"type": "caribbean.Raise", "box": 5, "player": "alice", "amount": 2 * ANTE}
        _send(live, "csp-1", "alice", raised, f"words-raise-{round_id}")
    wait_until("the hand settled", lambda: svc.round.is_over)


def _play_live(dealer: Any, live: Live) -> None:
    """A live round at ``bac-live`` dealt from the console by keyboard on the page ``dealer``
    (the shoe opened, cut and burnt there first when it waits for one)."""
    login(dealer, "dealer", then="/dealer/bac-live")
    dealer.wait_for_selector("#due")
    cards = list(DECK)
    _open_round(dealer, cards)
    round_id = live.shown("bac-live")["round_id"]
    wager = {
        "type": "baccarat.PlaceWager",
        "player": "bruno",
        "area": {"type": "baccarat.Area", "seated": False, "number": 4},
        "kind": "player",
        "amount": LIVE_STAKE,
    }
    _send(live, "bac-live", "bruno", wager, f"words-live-{round_id}")
    dealer.locator("#close-betting").click()
    wait_until("the first card due", lambda: _due(dealer)[0] == "card")
    _deal_until_settled(dealer, cards)
    wait_until(
        "the live round settled",
        lambda: dealer.locator("#phase").get_attribute("data-phase") == "settled",
    )


def _audited(live: Live) -> None:
    """A supervisor's command (the cycle of ``bac-1`` paused and resumed) and a table closed and
    reopened (``bac-live``, between rounds): the audit log the admin page lists has them."""
    for kind, why in (("PauseCycle", "words: a pause"), ("ResumeCycle", "words: resumed")):
        command = {"type": f"tables.{kind}", "supervisor": "supervisor", "reason": why}
        _send(live, "bac-1", "supervisor", command, f"words-{kind}")
    for action in ("close", "open"):
        done = live.api.post(
            f"/api/tables/bac-live/{action}",
            json={"reason": f"words: {action}"},
            headers=live.token("supervisor"),
        )
        assert done.status_code == 200, done.text


def _drawn(page: Any, loading: str) -> str:
    """The page's text once its scripts drew it: the network quiet and no "Loading…" left."""
    network_quiet(page)
    return str(
        wait_until(
            f"{page.url} drawn",
            lambda: (lambda text: text if loading not in text else "")(
                page.evaluate("document.body.innerText")
            ),
        )
    )


def _supervisor_extras(page: Any, loading: str) -> list[str]:
    """The recall of every table on the supervisor's page, as the supervisor shows it."""
    texts = []
    select = page.locator("#recall-table")
    wait_until("the tables to recall", lambda: select.locator("option").count() >= 3)
    for table in ("bac-1", "bac-live", "csp-1"):
        select.select_option(table)
        page.locator("#recall-show").click()
        page.locator(f"[data-recall='{table}']").wait_for()
        texts.append(_drawn(page, loading))
    return texts


def _reports_extras(page: Any, loading: str) -> list[str]:
    """Verify's counts and the daily report (by table and by position) shown."""
    page.locator("#verify-run").click()
    page.locator("[data-verified]").wait_for()
    page.locator("#report-show").click()
    page.locator("[data-positions]").wait_for()
    return [_drawn(page, loading)]


@dataclass(frozen=True)
class Played:
    """What the pages of the session's server show as data once the rounds are played: the
    amounts of the session in minor units and the names, ids and reasons stored as typed."""

    minor: tuple[int, ...]
    data: tuple[str, ...]


@pytest.fixture(scope="module")
def played(contexts: Contexts, live: Live) -> Played:
    """The rounds and the supervisor's entries every language's pages show, played once per
    worker on its session's server (a language's test reads what its worker's server holds)."""
    key = (live.url, (1366, 768), "en-US", "reduce")  # (conftest page_of's page)
    dealer = contexts.take(*key)
    try:
        seen = watch(dealer, live.url)
        dealer.watch = seen
        contexts.record(dealer)
        _play_baccarat(live)
        _play_caribbean(live)
        _play_live(dealer, live)
        _audited(live)
        assert not seen.problems, "the dealer's console went wrong:\n" + "\n".join(seen.problems)
    finally:
        contexts.give_back(dealer, *key)
    wallets = live.api.get("/api/wallets", headers=live.token("admin"))
    assert wallets.status_code == 200, wallets.text
    balances = [w["balance"] for w in wallets.json()["wallets"]]
    minor = (BACCARAT_STAKE, ANTE, 2 * ANTE, LIVE_STAKE, *(b for b in balances if b >= 1_000))
    return Played(minor=minor, data=_data_of(live))


def _data_of(live: Live) -> tuple[str, ...]:
    """Names, ids and reasons as stored, now: a table an administrator added, a user's name and
    a reason a person typed (another test of the session's server) are shown as typed — data,
    not words of the catalog."""
    typed = tuple(n for n in table_names(live) if n not in terms.TERMS[messages.DEFAULT_LANGUAGE])
    audit = live.api.get("/api/audit/log", params={"limit": 100}, headers=live.token("admin"))
    assert audit.status_code == 200, audit.text
    entries = audit.json()["entries"]
    said = tuple({e[k] for e in entries for k in ("reason", "actor") if e.get(k)})
    users = live.api.get("/api/admin/users", headers=live.token("admin"))
    assert users.status_code == 200, users.text
    names = tuple(u["name"] for u in users.json())  # a user another test added: "pit3fa2c1"
    return (
        *DATA,
        *typed,
        *names,
        *(r for r in said if r not in terms.TERMS[messages.DEFAULT_LANGUAGE]),
    )


@pytest.mark.parametrize("language", messages.LANGUAGES)
def test_every_page_in_every_language_reads_in_words(
    page_of: Any, live: Live, played: Played, language: str
) -> None:
    """Every page in ``language`` (one test per language: the three spread over the workers)."""
    minor = list(played.minor)
    # what other tests of the worker's server typed since the rounds were played is data too
    data = (*played.data, *_data_of(live))
    problems: list[str] = []
    seen: dict[tuple[str | None, str, str], str] = {}
    english_seen: set[str] = set()
    loading = messages.render("pages.loading", {}, language)
    page = page_of()  # one page for the language: each role signs in over the last one
    forbidden = f"/admin?lang={language}"
    for who, paths in PAGES.items():
        page.context.clear_cookies()  # (nobody signed in, no language remembered)
        if who == "alice":  # a player's /admin is the forbidden page, on purpose
            page.watch.allow(forbidden)
        elif forbidden in page.watch.allowed:
            page.watch.allowed.remove(forbidden)
        for index, path in enumerate(paths):
            if index == 0 and who is not None:  # signed in straight onto the role's first page
                login(page, who, then=f"{path}?lang={language}")
            else:
                page.goto(f"{path}?lang={language}")
            assert page.locator("html").get_attribute("lang") == language, path
            texts = [_drawn(page, loading)]
            if path == "/supervisor":
                texts += _supervisor_extras(page, loading)
            elif path == "/supervisor/reports":
                texts += _reports_extras(page, loading)
            seen[(who, path, language)] = "\n".join(texts)
            # accessibility at desktop and phone sizes (serious or critical violations fail):
            # every rule in the page's own language of the three, the rules words change in
            # every language; and the docs' screenshot of every page
            everything = _axe_language(len(seen) - 1) == language
            what = f"{path} as {who or 'nobody'} [{language}]"
            axe_check(page, what=what, rules=None if everything else AXE_WORDS_RULES)
            width = page.evaluate("document.documentElement.scrollWidth")
            if width > 1366:
                wide = page.evaluate(_WIDEST)
                problems.append(f"{path} as {who or 'nobody'} [{language}]: {width} px: {wide}")
            if DOCS_SCREENSHOTS:
                shot(page, _shot_name(who, path, language))
            page.set_viewport_size({"width": PHONE[0], "height": PHONE[1]})
            if everything:
                axe_check(page, what=f"{what}, phone")
            width = page.evaluate("document.documentElement.scrollWidth")
            if width > PHONE[0]:
                wide = page.evaluate(_WIDEST)
                problems.append(f"{path} as {who or 'nobody'} [{language}]: {width} px: {wide}")
            page.set_viewport_size({"width": 1366, "height": 768})
            for text in texts:
                left = [
                    w for w in raw_left(text, minor=minor, data=data) if w not in RAW_LEFT_ELSEWHERE
                ]
                if language != messages.DEFAULT_LANGUAGE:
                    english = english_words(text, data=(*data, *REASONS), language=language)
                    english_seen.update(english)
                    left += [f"English {w}" for w in english if w not in ENGLISH_LEFT_ELSEWHERE]
                if left:
                    problems.append(f"{path} as {who or 'nobody'} [{language}]: {left}")
    assert not problems, "raw text on the pages:\n" + "\n".join(sorted(set(problems)))
    # (a word gone from this language's pages is fixed: remove it from the list; an outcome
    # is as dealt)
    if language != messages.DEFAULT_LANGUAGE:
        fixed = sorted(set(ENGLISH_LEFT_ELSEWHERE) - english_seen - DEALT)
        assert not fixed, f"fixed, remove from the list: {fixed}"
    # the check read what it should: every page drawn, the rounds played in the recall
    assert len(seen) == sum(len(p) for p in PAGES.values())
    if language == "en":
        recall = seen[("supervisor", "/supervisor", "en")]
        assert "70.00" in recall and "40.00" in recall and "30.00" in recall, recall
    if language == "zh-Hant":
        audit = seen[("admin", "/admin", "zh-Hant")]  # each once, in words (the glossary's places)
        assert audit.count("關台 · bac-live") == 1 and "指令：恢復自動開局 · bac-1" in audit, audit
    if os.environ.get("MACAU_TABLES_WORDS_DUMP"):  # the pages' texts, to read them (debugging)
        dump = Path(os.environ["MACAU_TABLES_WORDS_DUMP"])
        dump.with_name(f"{dump.stem}-{language}{dump.suffix}").write_text(
            "\n\n".join(f"== {k}\n{v}" for k, v in seen.items()), encoding="utf-8"
        )
