"""The electronic table's round cycle in a real browser (tables/cycle.py): a player alone at a
virtual table (``bac-1``, ``csp-1``) sees the betting countdown run down on the player's page,
and the round closes, is dealt and settles by itself — nobody is at the dealer console — then
the next one opens; a table nobody bets at idles (its notice on the page) and wakes when a
player's page opens; a supervisor pauses and resumes the cycle from the supervisor page (the
paused notice on the player's page). Unlike the other browser tests, these run on a server of
their own whose cycle runs on the wall clock: :data:`RUNNING_CYCLE` (the session's server holds
its cycle, conftest ``CYCLE``)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from tests.browser.support import (
    ROUND_WAIT,
    RUNNING_CYCLE,
    Live,
    login,
    serve_live,
    shot,
    wait_until,
)


@pytest.fixture(scope="module")
def live(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Live]:
    """This module's server (conftest's ``live``, whose pages ``page`` opens), its virtual
    tables' round cycle :data:`RUNNING_CYCLE`, on the wall clock."""
    with serve_live(tmp_path_factory.mktemp("cycle") / "casino.db", RUNNING_CYCLE) as server:
        yield server


def _seconds(page: Any) -> int | None:
    value = page.locator("#countdown").get_attribute("data-seconds")
    return int(value) if value else None


def _ring_on_countdown(page: Any) -> tuple[int, float] | None:
    """The countdown ring's seconds and fraction, when it shows the countdown's seconds (both
    read at one moment)."""
    left, fraction, seconds = page.evaluate(
        """() => {
            const ring = document.querySelector('[data-countdown-ring]');
            const seconds = document.getElementById('countdown').dataset.seconds;
            return [ring.dataset.left || '', ring.dataset.fraction || '', seconds || ''];
        }"""
    )
    if not left or left != seconds:
        return None
    return int(left), float(fraction)


def _step(page: Any) -> str:
    return str(page.locator("#countdown-label").get_attribute("data-step") or "")


@pytest.mark.parametrize("table", ["bac-1", "csp-1"])
def test_a_player_alone_sees_the_countdown_and_the_round_runs_by_itself(
    page: Any, live: Live, table: str
) -> None:
    baccarat = table.startswith("bac")
    first = live.betting(table)["round_id"]
    login(page, "alice", then=f"/tables/{table}?lang=en")
    page.wait_for_selector("#wallet[data-balance]")
    # the betting countdown, labelled as such, runs down
    wait_until("the betting countdown", lambda: _step(page) == "close" and _seconds(page))
    assert page.locator("#countdown-label").inner_text().strip() == "Betting closes in"
    start = _seconds(page)
    assert start is not None and 0 < start <= RUNNING_CYCLE["betting_seconds"]
    wait_until(
        "the countdown to go down",
        lambda: (s := _seconds(page)) is not None and _step(page) == "close" and s < start,
    )
    assert page.locator("#cycle-state").is_hidden()  # neither idle nor paused
    # the countdown ring (felt.js) shows the same seconds as the share of the betting time
    # left, and goes down with them
    ring = wait_until("the ring on the countdown", lambda: _ring_on_countdown(page))
    assert ring[1] == round(ring[0] / RUNNING_CYCLE["betting_seconds"], 3), ring
    # (a countdown that ran out with no wager starts again: a slow page may first read the
    # ring at its last second; the ring then goes down within the next countdown)
    last = [ring]

    def went_down() -> bool:
        now = _ring_on_countdown(page)
        if now is None:
            return False
        if now[1] > last[0][1]:  # a new countdown began: compare with its own start
            last[0] = now
            return False
        return now[1] < last[0][1]

    wait_until("the ring to go down", went_down)
    shot(page, f"{'baccarat' if baccarat else 'caribbean'}-countdown-en")
    # alice bets; nobody at the dealer console: the cycle closes, deals and settles
    if baccarat:
        page.locator(".spot[data-area='standing:3'][data-kind='player']").click()
        wait_until("the wager", lambda: page.locator("#my-wagers tbody tr").count() >= 1)
        wait_until(
            "the result",
            lambda: page.locator("#outcome").get_attribute("data-winner"),
            timeout=ROUND_WAIT,
        )
        assert page.locator("#cards-player .card").count() >= 2
    else:
        page.locator("#box").select_option("1")
        page.locator("#place-ante").click()
        wait_until("the ante placed", lambda: "1" in page.locator("#my-box").inner_text())
        wait_until(
            "five cards",
            lambda: page.locator("#my-cards .card:not(.card-back)").count() == 5,
            timeout=ROUND_WAIT,
        )
        page.locator("#fold").click()
        wait_until(
            "the showdown",
            lambda: page.locator("#dealer-cards .card:not(.card-back)").count() == 5,
        )
    wait_until("my result", lambda: page.locator("#results tbody tr").count() >= 1)
    # the result pause, then the next round opens by itself with its countdown
    wait_until("the next round's countdown", lambda: _step(page) == "open", timeout=ROUND_WAIT)
    assert page.locator("#countdown-label").inner_text().strip() == "Next round in"
    wait_until(
        "the next round open",
        lambda: (
            page.locator("#round-id").inner_text() not in ("", "—", first)
            and _step(page) == "close"
        ),
        timeout=ROUND_WAIT,
    )


def test_a_table_nobody_bets_at_idles_and_wakes_when_a_players_page_opens(
    page_of: Any, live: Live
) -> None:
    """After ``idle_after_rounds`` countdowns with no wager the table idles: the open page says
    so and shows no countdown; a player opening the table's page wakes it. The countdowns' ends
    are stepped (the tick's own step at the deadline, :meth:`Live.step`), not waited for: the
    test above shows a countdown running out on the wall clock."""
    live.betting("csp-1")
    alice = page_of()
    login(alice, "alice", then="/tables/csp-1?lang=en")
    notice = alice.locator("#cycle-state")

    def idle() -> bool:
        shown = notice.evaluate(
            "n => [n.dataset.cycle, !n.hidden && n.offsetParent !== null, n.textContent]"
        )
        if shown[0] == "idle":
            assert shown[1] and "Waiting for players" in shown[2], shown
            return True
        if not live.shown("csp-1")["cycle"]["idle"]:
            live.step("csp-1")  # a countdown's end with no wager
        return False

    wait_until("the table idle", idle)
    assert live.shown("csp-1")["cycle"]["idle"] is True
    wait_until("no countdown", lambda: _seconds(alice) is None)
    shot(alice, "caribbean-idle-en")
    bruno = page_of()
    login(bruno, "bruno", then="/tables/csp-1?lang=en")
    for page in (alice, bruno):
        wait_until(
            "the table awake", lambda page=page: notice.is_hidden() and _step(page) == "close"
        )
    assert live.shown("csp-1")["cycle"]["idle"] is False


def test_a_supervisor_pauses_and_resumes_the_cycle_from_the_supervisor_page(
    page_of: Any, live: Live
) -> None:
    """The pause (with its reason, audited) stops the cycle: the player's page says the table
    is paused and shows no countdown; the resume starts it again."""
    live.betting("bac-1")
    player = page_of()
    login(player, "alice", then="/tables/bac-1?lang=en")
    notice = player.locator("#cycle-state")
    wait_until("the countdown", lambda: _step(player) == "close")
    supervisor = page_of()
    login(supervisor, "supervisor", then="/supervisor?lang=en")
    form = supervisor.locator("form[data-cycle-form='bac-1']")
    form.wait_for()
    assert form.get_attribute("data-paused") == "0"
    form.locator("input").fill("camera check at the table")
    form.locator("button").click()
    wait_until("the paused notice", lambda: notice.get_attribute("data-cycle") == "paused")
    assert notice.is_visible() and "paused by a supervisor" in notice.inner_text()
    assert live.shown("bac-1")["cycle"]["paused"] is True
    wait_until("no countdown", lambda: _seconds(player) is None)
    shot(player, "baccarat-paused-en")
    form = supervisor.locator("form[data-cycle-form='bac-1'][data-paused='1']")
    form.wait_for()
    form.locator("input").fill("camera checked")
    form.locator("button").click()
    try:
        wait_until(
            "the countdown again",
            lambda: notice.is_hidden() and _step(player) == "close" and _seconds(player),
        )
    except AssertionError as exc:  # what the page and the table showed instead
        shown = (notice.get_attribute("data-cycle"), _step(player), live.shown("bac-1")["cycle"])
        raise AssertionError(
            f"{exc}; the page's notice, step and the table's cycle: {shown}"
        ) from exc
    assert live.shown("bac-1")["cycle"]["paused"] is False
    audit = live.api.get("/api/audit/log?limit=50", headers=live.token("admin")).json()
    reasons = [e.get("reason") for e in audit["entries"]]
    assert "camera check at the table" in reasons and "camera checked" in reasons, reasons
