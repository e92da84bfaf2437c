"""The supervisor's and the administrator's pages in a real browser (issue 11): a supervisor
voids a round the dealer's refused card left waiting (BAC-10) from the supervisor page; closes
and reopens a table with a reason; recalls a table's last rounds; verifies the records and reads
the daily report; the cashier deposits once however often the button is clicked, and an
overdraft is refused in the page's language with nothing paid; users are added and disabled;
the options and their approvals are listed. Every page passes axe and is photographed in both
languages, with no English left in the Chinese pages but the data they show."""

from __future__ import annotations

import re
import uuid
from fractions import Fraction
from typing import Any

import pytest

from macau_tables.messages import LANGUAGES
from tests.browser.support import (
    AXE_WORDS_RULES,
    DECK,
    Live,
    _deal_until_settled,
    _due,
    _open_round,
    _type_card,
    axe_check,
    axe_in,
    english_left,
    login,
    network_quiet,
    shot,
    table_names,
    wait_until,
)

STAFF_DATA = (
    *("Alice", "Bruno", "Carmen", "Daniel", "Elaine", "Fong", "Grace"),
    *("admin", "supervisor", "dealer", "alice", "bruno"),
)
"""Names as stored: the players' and the signed-in user's."""


CASHIER = "section[aria-labelledby='cashier-heading'], #page-status"
"""The admin page's cashier and the page's status line: what a deposit or a refusal changes.
The tests of the admin page's forms check with every axe rule the part the form changed
(``axe_check(within=…)``); the whole page is checked with every rule by the page crawl
(tests/browser/test_every_page_words.py, desktop and phone: the rules other than the words'
read the page's structure and styles, the same in every language)."""

EDITORS = "[data-options='csp-1'], [data-options='bac-1']"
"""The options of both tables with their editors open (the options editor's test)."""


def _closed_between_rounds(live: Live, table: str) -> Any:
    """Close virtual Caribbean ``table`` (supervisor) and let the round its cycle holds open
    end: alice antes in box 6, the cycle closes the betting at the countdown's end and she
    folds; a closed table opens no next round, so its configuration and meter may change then.
    Returns the answer to the close (reopen the table when it was 200)."""
    closed = live.api.post(
        f"/api/tables/{table}/close",
        json={"reason": "a change between rounds"},
        headers=live.token("supervisor"),
    )
    svc = live.runtime.service(table)
    if svc.round is None or svc.round.is_over:
        return closed
    round_id = str(svc.round.round_id)

    def send(command: dict[str, Any], key: str) -> None:
        sent = live.api.post(
            f"/api/tables/{table}/commands",
            json={"idempotency_key": f"{key}-{round_id}", "command": command},
            headers=live.token("alice"),
        )
        assert sent.status_code == 200, sent.text

    if live.takes_wagers(table):
        send({"type": "caribbean.PlaceAnte", "box": 6, "player": "alice", "amount": 1_000}, "ba")
        live.closed(table, round_id)
    wait_until("alice's decision", lambda: svc.round.is_over or live.shown(table)["expected"])
    if not svc.round.is_over:
        send({"type": "caribbean.Fold", "box": 6, "player": "alice"}, "bf")
    wait_until("the round over", lambda: svc.round.is_over)
    return closed


def _balance(live: Live, name: str) -> int:
    found = live.api.get("/api/wallets/me", headers=live.token(name))
    assert found.status_code == 200, found.text
    balance: int = found.json()["balance"]
    return balance


def test_a_supervisor_voids_a_waiting_round_from_the_supervisor_page_BAC_10(
    page_of: Any, live: Live
) -> None:
    dealer = page_of()
    login(dealer, "dealer", then="/dealer/bac-live")
    dealer.wait_for_selector("#due")
    cards = list(DECK)
    for _ in range(3):
        _open_round(dealer, cards)
        stake = live.api.post(
            "/api/tables/bac-live/commands",
            json={
                "idempotency_key": f"sup-void-{uuid.uuid4().hex}",
                "command": {
                    "type": "baccarat.PlaceWager",
                    "player": "alice",
                    "area": {"type": "baccarat.Area", "seated": False, "number": 2},
                    "kind": "banker",
                    "amount": 3_000,
                },
            },
            headers=live.token("alice"),
        )
        if stake.status_code == 200:
            break
        # the shoe's demonstration round takes no wager (BAC-2.2): the dealer deals it first
        assert stake.json()["error"]["key"] == "baccarat.demo_no_wagers", stake.text
        dealer.locator("#close-betting").click()
        wait_until("the first card due", lambda: _due(dealer) == ("card", "P1"))
        _deal_until_settled(dealer, cards)
    assert stake.status_code == 200, stake.text
    before = _balance(live, "alice")
    supervisor = page_of()
    login(supervisor, "supervisor", then="/supervisor")
    waiting = supervisor.locator("#sup-waiting")
    wait_until("the supervisor page", lambda: waiting.locator("[data-empty]").count() == 1)
    dealer.locator("#close-betting").click()
    wait_until("the first card due", lambda: _due(dealer) == ("card", "P1"))
    dealer.locator("#card-slot").select_option("B2")
    assert _type_card(dealer, "Qd") == "refused"
    # the page follows the table live: the round appears without a reload
    item = supervisor.locator("[data-waiting='bac-live']")
    item.wait_for()
    void = item.locator("form[data-command='baccarat.Void']")
    assert item.locator("form[data-command='baccarat.Correct']").count() == 1
    assert "Q♦" in item.inner_text() or "Qd" in item.inner_text()  # the refused card, its rule
    assert item.locator("[data-refusal^='BAC-']").count() == 1
    axe_check(supervisor, what="supervisor en", within="#sup-waiting")  # the round waiting
    shot(supervisor, "supervisor-waiting-en")
    void.locator("button").click()  # no reason: refused in the page, nothing sent
    assert void.locator("[role='alert']").is_visible()
    assert _balance(live, "alice") == before
    void.get_by_label("Reason").fill("a card dealt to the wrong slot; round voided")
    void.locator("button").dblclick()  # a double click voids once
    wait_until("the list to empty", lambda: waiting.locator("[data-empty]").count() == 1)
    assert _balance(live, "alice") == before + 3_000  # BAC-10: every wager in play returned
    wait_until(
        "the console", lambda: dealer.locator("#phase").get_attribute("data-phase") == "void"
    )
    assert "Void the round" in supervisor.locator("#page-status").inner_text()
    # the recall shows the void round
    supervisor.locator("#recall-table").select_option("bac-live")
    supervisor.locator("#recall-show").click()
    supervisor.locator("[data-recall='bac-live']").wait_for()
    recalled = supervisor.locator("[data-recall='bac-live']")
    assert "Q♦" in recalled.inner_text()  # the refused card, as recorded
    assert recalled.locator("[data-state='void']").count() >= 1
    shot(supervisor, "supervisor-recall-en")


SETTLED_ROUND = {
    "table_id": "bac-1",
    "game": "baccarat",
    "round_id": "bac-1-7",
    "state": "settled",
    "first_seq": 40,
    "last_seq": 52,
    "hash": "ab" * 32,
    "started": "2026-01-05T10:00:00+00:00",
    "ended": "2026-01-05T10:01:00+00:00",
    "cards": [
        {"seq": 41, "card": "Q♦", "to": "P1", "event": "CardRefused"},
        {"seq": 42, "card": "9♠", "to": "P1", "event": "CardDealt"},
        {"seq": 43, "card": "2♥", "to": "B1", "event": "CardDealt"},
    ],
    "wagers": [
        *(
            {
                "player": "alice",
                "spot": "box 1",
                "kind": kind,
                "stake": 10_000,
                "outcome": outcome,
                "paid": paid,
                "award": 0,
                "carried_in": False,
            }
            for kind, outcome, paid in (
                ("player", "won", 20_000),
                ("banker_pair", "lost", 0),
                ("tie", "carried_over", 0),
                ("lucky_6", "returned", 10_000),
            )
        ),
    ],
    "players": [{"player": "alice", "before": 100_000, "after": 110_000, "net": 10_000}],
    "awards": [],
    "notes": [],
    "holds": [],
}
"""A settled round as GET /api/tables/{id}/recall gives it (machine values: kinds, outcomes)."""


def test_the_recall_of_a_settled_round_has_no_english_but_data_in_chinese(
    page: Any, live: Live
) -> None:
    # the recall's JSON stays machine values; the page shows them in its words (messages.terms)
    page.route("**/api/tables/bac-1/recall*", lambda route: route.fulfill(json=[SETTLED_ROUND]))
    login(page, "supervisor", then="/supervisor?lang=zh-Hant")
    page.locator("#recall-table option[value='bac-1']").wait_for(state="attached")
    page.locator("#recall-table").select_option("bac-1")
    page.locator("#recall-show").click()
    recalled = page.locator("[data-recall='bac-1']")
    recalled.wait_for()
    text = recalled.inner_text()
    for word in ("閒", "莊對子", "贏", "輸", "退回", "保留至下一局", "拒收的牌", "已結算"):
        assert word in text, (word, text)
    assert english_left(page, "alice", within="[data-recall='bac-1']") == [], text


def test_a_supervisor_closes_and_reopens_a_table_with_a_reason(page: Any, live: Live) -> None:
    login(page, "supervisor", then="/supervisor?lang=zh-Hant")
    row = page.locator("#sup-tables tr[data-table='csp-1']")
    row.wait_for()
    form = row.locator("form[data-status-form='csp-1']")
    form.locator("button").click()  # no reason
    assert page.locator("#page-error").is_visible()
    form.locator("input").fill("收銀盤點")
    form.locator("button").click()
    wait_until(
        "closed", lambda: row.locator("[data-status]").get_attribute("data-status") == "closed"
    )
    tables = {t["table_id"]: t for t in live.api.get("/api/tables").json()}
    assert tables["csp-1"]["status"] == "closed"
    shot(page, "supervisor-zh-Hant")
    assert english_left(page, *table_names(live), "supervisor") == []  # the user's name
    # every rule on the tables' list (the crawl checks the page whole)
    axe_check(page, what="supervisor zh-Hant", within="#sup-tables, #page-status, #page-error")
    form = page.locator("form[data-status-form='csp-1']")
    form.locator("input").fill("盤點完成")
    form.locator("button").click()
    wait_until(
        "open",
        lambda: (
            page.locator("tr[data-table='csp-1'] [data-status]").get_attribute("data-status")
            == "open"
        ),
    )
    audit = live.api.get("/api/audit/log?action=table_closed", headers=live.token("admin"))
    assert any(e["reason"] == "收銀盤點" for e in audit.json()["entries"]), audit.text


def test_the_supervisor_is_told_why_a_table_is_closed_on_this_server(
    page: Any, live: Live, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A table this server keeps closed (here: a changed program, STANDARDS "a changed program
    keeps the tables closed") says why on the supervisor's page, in the page's language; the
    public listing does not say (the reason names the approver and the files)."""
    served = live.runtime.table_ids()
    monkeypatch.setattr(live.runtime, "table_ids", lambda: [t for t in served if t != "csp-1"])
    params = {
        "digest": "0123456789abcdef",
        "approved": "fedcba9876543210",
        "actor": "lab",
        "files": "~tables/service.py",
    }
    monkeypatch.setattr(
        live.runtime, "not_served", lambda: {"csp-1": ("tables.program_changed", params)}
    )
    login(page, "supervisor", then="/supervisor?lang=zh-Hant")
    note = page.locator("#sup-tables tr[data-table='csp-1'] [data-not-served]")
    note.wait_for()
    text = note.inner_text()
    assert "本伺服器不開此枱" in text and "~tables/service.py" in text and "lab" in text, text
    assert page.locator("#sup-tables [data-not-served]").count() == 1
    public = {t["table_id"]: t for t in live.api.get("/api/tables").json()}
    assert public["csp-1"]["not_served"] is None
    told = live.api.get("/api/tables", headers=live.token("supervisor")).json()
    assert {t["table_id"]: t for t in told}["csp-1"]["not_served"]["key"] == (
        "tables.program_changed"
    )


def test_verify_and_the_daily_report(page: Any, live: Live) -> None:
    login(page, "supervisor", then="/supervisor/reports")
    page.locator("#verify-run").click()
    page.locator("[data-verified]").wait_for()
    assert page.locator("[data-verified]").get_attribute("data-verified") == "ok"
    page.locator("#report-show").click()
    page.locator("[data-report] tbody tr").first.wait_for()
    rows = page.locator("[data-report] tbody tr")
    assert rows.count() == len(table_names(live)) + 1  # every table and the total
    # per betting position: a row per box or seat played that day, as the API gives them
    positions = page.locator("[data-positions]")
    positions.wait_for()
    day = positions.get_attribute("data-positions")
    api = live.api.get(f"/api/reports/positions?day={day}", headers=live.token("supervisor"))
    assert positions.locator("tbody tr").count() == len(api.json()["positions"])
    with page.expect_download() as download:
        page.locator("#report-csv").click()
    assert download.value.suggested_filename.startswith("report-")
    with page.expect_download() as download:
        page.locator("#positions-csv").click()
    assert download.value.suggested_filename.startswith("positions-")
    assert page.locator("#archive-download").count() == 0  # the archive is the admin's
    # the words' rules: the crawl checks the reports with verify and the report shown, with
    # every rule (in Chinese)
    axe_check(page, what="reports en", rules=AXE_WORDS_RULES)
    shot(page, "reports-en")
    page.goto("/supervisor/reports?lang=zh-Hant")
    page.locator("#verify-run").click()
    page.locator("[data-verified]").wait_for()
    page.locator("#report-show").click()
    page.locator("[data-report] tbody tr").first.wait_for()
    page.locator("[data-positions]").wait_for()
    assert english_left(page, *table_names(live), "supervisor") == []
    axe_in(page, "zh-Hant", whole="en", what="reports zh-Hant")  # as shown in English
    shot(page, "reports-zh-Hant")


def test_the_cashier_pays_once_and_refuses_an_overdraft_in_the_page_language(
    page: Any, live: Live
) -> None:
    login(page, "admin", then="/admin")
    page.locator("[data-wallet='grace']").wait_for()
    before = live.api.get("/api/wallets", headers=live.token("admin")).json()["wallets"]
    grace = next(w["balance"] for w in before if w["player"] == "grace")
    page.get_by_label("Player").select_option("grace")
    page.get_by_label("Amount").fill("1,250.50")
    page.locator("#cash-reason").fill("cash at the cage")
    page.locator("#cash-deposit").dblclick()  # one deposit, whatever the clicks
    balance = page.locator("[data-wallet='grace'] [data-balance]")
    wait_until("the wallet", lambda: balance.get_attribute("data-balance") == str(grace + 125_050))
    page.locator("#cash-deposit").click()  # the amount was cleared: refused in the page
    assert page.locator("#cash-error").is_visible()
    after = live.api.get("/api/wallets", headers=live.token("admin")).json()["wallets"]
    assert next(w["balance"] for w in after if w["player"] == "grace") == grace + 125_050
    # every rule on what the cashier changed (the whole page: the crawl, every rule in Portuguese)
    axe_check(page, what="admin en", within=CASHIER)
    shot(page, "admin-en")
    page.goto("/admin?lang=zh-Hant")
    page.locator("[data-wallet='grace']").wait_for()
    page.get_by_label("玩家").select_option("grace")
    page.get_by_label("金額").fill("99999999")
    page.locator("#cash-reason").fill("提款")
    page.locator("#cash-withdraw").click()
    error = page.locator("#cash-error")
    wait_until("the refusal", lambda: error.is_visible() and error.inner_text())
    assert re.search(r"[\u3400-\u9fff]", error.inner_text()), error.inner_text()
    assert page.watch.refusals  # 409 ledger.insufficient_funds, nothing paid
    again = live.api.get("/api/wallets", headers=live.token("admin")).json()["wallets"]
    assert next(w["balance"] for w in again if w["player"] == "grace") == grace + 125_050
    page.locator("[data-options='csp-1'] table").wait_for()
    assert "DEMO-ONLY" in page.locator("[data-options='bac-1']").inner_text()  # approvals
    # the page's own words (the tables below it show stored data: names, options, reasons)
    chrome = "header, footer, h1, h2, h3, label, button, thead th, caption, p.muted, .notice"
    assert english_left(page, *table_names(live), *STAFF_DATA, within=chrome) == []
    assert english_left(page, within="[data-options] tbody th") == []  # the options' names
    axe_check(page, what="admin zh-Hant", within=CASHIER)
    shot(page, "admin-zh-Hant")


def test_an_admin_records_an_approval_for_a_closed_tables_option_CSP_13(
    page: Any, live: Live
) -> None:
    supervisor = live.token("supervisor")
    listed = live.api.get("/api/admin/tables", headers=live.token("admin")).json()["tables"]
    csp = next(t for t in listed if t["table_id"] == "csp-1")
    option = next(o for o in csp["options"] if not isinstance(o["value"], (dict, list)))
    closed = _closed_between_rounds(live, "csp-1")  # a configuration changes between rounds
    login(page, "admin", then="/admin")
    form = page.locator("[data-approval-form='csp-1']")
    form.wait_for()
    form.get_by_label("Option needing approval").select_option(option["option"])
    reference = f"DICJ-B-{uuid.uuid4().hex[:6]}"
    form.get_by_label("Regulator's reference").fill(reference)
    form.get_by_label("Applied on").fill("2025-12-05")
    form.get_by_label("Effective on").fill("2025-12-01")  # before it was applied for: refused
    form.get_by_label("Reason").fill("paytable approved by the regulator")
    form.locator("button").click()
    error = form.locator("[role='alert']")
    wait_until("the refusal", lambda: error.is_visible() and error.inner_text())
    assert page.watch.refusals  # 422, nothing recorded
    form.get_by_label("Applied on").fill("2025-12-01")
    form.get_by_label("Effective on").fill("2025-12-05")  # three working days later (CSP-13)
    form.locator("button").dblclick()  # one approval, whatever the clicks
    wrap = page.locator("[data-options='csp-1']")
    wait_until("the approval listed", lambda: reference in wrap.inner_text())
    again = live.api.get("/api/admin/tables", headers=live.token("admin")).json()["tables"]
    refs = [a["reference"] for t in again if t["table_id"] == "csp-1" for a in t["approvals"]]
    assert refs.count(reference) == 1
    axe_check(page, what="admin approval form", within="[data-options='csp-1']")
    if closed.status_code == 200:
        opened = live.api.post("/api/tables/csp-1/open", json={"reason": "x"}, headers=supervisor)
        assert opened.status_code == 200, opened.text


def test_an_admin_changes_a_meters_seed_from_its_next_hit_CSP_10_8(page: Any, live: Live) -> None:
    meters = live.api.get("/api/meters").json()["meters"]
    meter = next(m for m in meters if m["id"] == "m-caribbean")
    # a meter's parameters change while no linked table has a round open (CSP-10.8)
    closed = _closed_between_rounds(live, "csp-1")
    login(page, "admin", then="/admin")
    page.locator("#seed-meter option[value='m-caribbean']").wait_for(state="attached")
    page.get_by_label("Meter", exact=True).select_option("m-caribbean")
    page.get_by_label("New seed").fill("")
    page.locator("#seed-reason").fill("seed confirmed by the regulator")
    page.locator("#seed-change").click()  # no seed: refused in the page, nothing sent
    assert page.locator("#seed-error").is_visible()
    # the seed it has (so the other tests' hits pay as before), pending from the next hit
    page.get_by_label("New seed").fill(f"{meter['seed'] // 100}.{meter['seed'] % 100:02d}")
    page.locator("#seed-change").dblclick()
    pending = page.locator("#meters [data-seed-pending]").filter(has_text="next hit")
    wait_until("the pending seed", lambda: pending.count() >= 1)
    again = live.api.get("/api/meters/m-caribbean").json()
    assert again["seed_pending"] == meter["seed"]
    axe_check(page, what="admin seed form", within="section[aria-labelledby='meters-heading']")
    if closed.status_code == 200:
        opened = live.api.post(
            "/api/tables/csp-1/open", json={"reason": "seed set"}, headers=live.token("supervisor")
        )
        assert opened.status_code == 200, opened.text


def test_an_admin_adds_and_disables_a_user(page_of: Any, live: Live) -> None:
    page = page_of()
    login(page, "admin", then="/admin")
    name = f"pit{uuid.uuid4().hex[:6]}"
    page.get_by_label("Name", exact=True).fill(name)
    page.get_by_label("Role").select_option("dealer")
    page.get_by_label("Password (8 characters or more)").fill("a long enough password")
    page.locator("#user-reason").fill("new dealer on the day shift")
    page.locator("#user-add").click()
    row = page.locator(f"[data-user='{name}']")
    row.wait_for()
    other = page_of()
    login(other, name, password="a long enough password", then="/")
    assert other.locator("[data-testid='who']").inner_text().startswith(f"Signed in: {name}")
    row.locator("[data-user-form] input").fill("left the casino")
    row.locator("[data-user-form] button").click()
    wait_until(
        "disabled",
        lambda: page.locator(f"[data-user='{name}']").get_attribute("data-disabled") == "1",
    )
    other.reload()  # their session ended at once: the page is a visitor's again
    assert other.locator("#login-link").is_visible()


def test_an_admin_unlocks_a_user_s_sign_in(page: Any, live: Live) -> None:
    """Each user's row has **Unlock sign-in** (with a reason): the user's failed logins are
    forgotten (``POST /api/admin/users/{name}/unlock``), audited."""
    from macau_tables.store import users_ops as ops

    for _ in range(3):
        live.store.run(lambda tx: ops.record_failure(tx, "bruno", "203.0.113.9"))
    login(page, "admin", then="/admin")
    row = page.locator("[data-user='bruno']")
    row.wait_for()
    row.get_by_label("Reason to unlock bruno").fill("he asked at the cage")
    row.get_by_role("button", name="Unlock sign-in").click()
    status = page.locator("#page-status")
    wait_until("unlocked", lambda: "3 failed logins forgotten" in status.inner_text())
    entries = live.store.read(lambda tx: tx.audit_entries(action="user_unlock"))
    assert [(e.actor, e.reason) for e in entries][-1] == ("admin", "he asked at the cage")
    axe_check(
        page,
        what="admin users with unlock",
        within="section[aria-labelledby='users-heading'], #page-status",
    )


def test_a_held_jackpot_award_is_released_from_the_supervisor_page(page: Any, live: Live) -> None:
    """A large award held for a supervisor (``kind`` ``award``) is shown with its winner and
    amount, and released with ``tables.ReleaseAward`` naming its hold, the supervisor and the
    reason (the list, the table's view and the answer are the test's: a held award needs a rare
    hand)."""
    award = {
        "hold_id": "csp-1-9:1",
        "player": "alice",
        "spot": "box 1",
        "combination": "royal_flush",
        "amount": 50_000_000,
    }
    item = {
        "table": "csp-1",
        "kind": "award",
        "round_id": "csp-1-9",
        "phase": "complete",
        "reason": None,
        "commands": ["ReleaseAward"],
        "award": award,
    }
    released: list[dict[str, Any]] = []
    state = {"waiting": [item]}
    page.route(
        "**/api/authorisations",
        lambda route: route.fulfill(json={"waiting": state["waiting"], "elsewhere": []}),
    )

    def command(route: Any) -> None:
        if route.request.method != "POST":
            route.continue_()
            return
        released.append(route.request.post_data_json)
        state["waiting"] = []
        route.fulfill(json={"accepted": True})

    def table(route: Any) -> None:
        # the table's view as it is while the award is held: ReleaseAward is what it expects
        # (the real csp-1 may be taking antes: the page resolves the command among those)
        answer = route.fetch()
        view = answer.json()
        view["expected"] = {"phase": "complete", "due": [], "commands": ["tables.ReleaseAward"]}
        route.fulfill(response=answer, json=view)

    page.route("**/api/tables/csp-1/commands", command)
    page.route("**/api/tables/csp-1", table)
    login(page, "supervisor", then="/supervisor?lang=zh-Hant")
    held = page.locator("[data-waiting='csp-1']")
    held.wait_for()
    assert "黃袍麒" in held.inner_text() and "500,000.00" in held.inner_text()
    assert "第 1 門" in held.inner_text()  # the award's place ("box 1") in the page's words
    assert english_left(page, "alice", within="[data-waiting='csp-1'] .award") == []
    form = held.locator("form[data-command='tables.ReleaseAward']")
    form.get_by_label("原因").fill("已核對監控錄影")
    form.locator("button").click()
    # (the check asks the page something: the sync API runs the route's handler only inside a
    # call of its own, never while the test sleeps between checks)
    wait_until("the release", lambda: page.evaluate("true") and released)
    (body,) = released
    assert body["command"] == {
        "type": "tables.ReleaseAward",
        "hold_id": "csp-1-9:1",
        "supervisor": "supervisor",
        "reason": "已核對監控錄影",
    }
    assert body["idempotency_key"]
    shot(page, "supervisor-award-zh-Hant")


PAGES = ("/", "/jackpot", "/shoe-check", "/supervisor", "/supervisor/reports", "/admin")


def test_every_page_fits_a_phone_and_passes_axe_there(page_of: Any, live: Live) -> None:
    """Every page the administrator opens, on a phone in Chinese: no sideways scroll, and the
    axe rules its words change (support.AXE_WORDS_RULES). tests/browser/test_every_page_words.py
    checks each of them on a phone with every rule, as the role that uses it (the administrator:
    ``/``, ``/admin``; nobody: ``/jackpot``, ``/shoe-check``; the supervisor: ``/supervisor``,
    ``/supervisor/reports`` — the same templates, the administrator's header that of ``/`` and
    ``/admin``)."""
    phone = page_of(viewport=(390, 844), locale="zh-HK")
    login(phone, "admin", then=PAGES[0])
    for path in PAGES:
        if path != PAGES[0]:
            phone.goto(path)
        phone.locator("main").wait_for()
        network_quiet(phone)
        width = phone.evaluate("document.documentElement.scrollWidth")
        assert width <= 390, f"{path} scrolls sideways on a phone ({width} px)"
        axe_check(phone, what=f"{path} on a phone", rules=AXE_WORDS_RULES)
        name = path.strip("/").replace("/", "-") or "lobby"
        shot(phone, f"phone-{name}-zh-Hant")


ANALYSIS_WAIT = 600.0
"""The bound of the wait for the admin page's exact math: the analysis worker's first sweeps
(a process started, every Caribbean deal counted twice) on a machine the whole suite keeps busy
(tests/server/test_admin_analysis.py waits as long)."""


def test_an_admin_sees_the_exact_math_of_an_option_before_saving_it_CSP_13(
    page_of: Any, live: Live
) -> None:
    """Issue 22 item 4: the royal flush's odds 100 → 50 at csp-1 (CSP-9.5, CSP-13) show, before
    anything is saved, the exact house edge of the ante under both and their difference, as
    the analysis package computes them (docs/methods.md, the law's ranking), with the
    jackpot's return at the meter; then the change is saved with its approval record — in
    every language in turn, on one server: the worker computes the two sweeps once, the
    languages after the first are shown the figures it keeps (the same answer, at once). One
    page, the administrator signing in again for each language."""
    page = page_of()
    for language in LANGUAGES:
        _exact_math_before_saving(page, live, language)


def _exact_math_before_saving(page: Any, live: Live, language: str) -> None:
    admin = live.token("admin")
    closed = _closed_between_rounds(live, "csp-1")  # a configuration changes between rounds
    page.watch.refusals.clear()  # (the language before's)
    login(page, "admin", then=f"/admin?lang={language}")
    editor = page.locator("[data-edit='csp-1']")
    editor.locator("summary").click()
    odds = page.locator("#opt-csp-1-royal_flush_odds")
    assert odds.input_value() == "100"
    odds.fill("120")  # outside 50..100: refused in the page, nothing asked
    editor.locator("button[type='button']").click()
    error = editor.locator("[data-edit-error]")
    wait_until("the refusal", lambda: error.is_visible() and error.inner_text())
    assert page.locator("label[for='opt-csp-1-royal_flush_odds']").inner_text() in (
        error.inner_text()
    )
    odds.fill("100")
    unit = page.locator("#opt-csp-1-bet_unit")
    assert unit.input_value() == "10.00"  # money in major units, not 1000
    unit.fill("10.005")  # a third decimal: refused in the page, naming the field
    editor.locator("button[type='button']").click()
    label = page.locator("label[for='opt-csp-1-bet_unit']").inner_text()
    wait_until("the refusal", lambda: label in error.inner_text())
    assert not page.watch.refusals  # nothing was sent
    unit.fill("10.00")
    odds.fill("50")
    odds.press("Tab")  # a changed option shows its math by itself
    row = editor.locator("[data-results='csp-1'] tr[data-wager='ante']")
    row.wait_for(timeout=ANALYSIS_WAIT * 1000)
    now, new, change, back = (
        row.locator("td").nth(i).get_attribute("data-exact") for i in range(4)
    )
    assert Fraction(now or "") == Fraction(3337606931, 63888559350)  # 100:1 (CSP-9.5)
    assert Fraction(new or "") == Fraction(7243120413, 138425211925)  # 50:1
    assert Fraction(change or "") == Fraction(new or "") - Fraction(now or "")
    assert Fraction(back or "") == 1 - Fraction(new or "")
    assert row.locator("td").nth(1).inner_text() == "5.2325 %"  # exact, rounded to 4 places
    progress = editor.locator("[data-progress='csp-1']")
    assert progress.get_attribute("aria-live") == "polite"
    assert progress.locator("progress").get_attribute("value") == (
        progress.locator("progress").get_attribute("max")
    )
    jackpot = editor.locator("[data-results='csp-1'] tr[data-wager='jackpot']")
    assert jackpot.locator("td").nth(2).get_attribute("data-exact")
    assert int(editor.locator("[data-break-even]").get_attribute("data-break-even") or 0) > 0
    rules = live.api.get("/api/admin/tables", headers=admin).json()["tables"]
    before = next(t for t in rules if t["table_id"] == "csp-1")
    assert before["rules"]["royal_flush_odds"] == 100  # nothing saved yet
    approved = [(a["option"], a["value"]) for a in before["approvals"]]
    needs = ("royal_flush_odds", 50) not in approved  # (an earlier run may have approved it)
    needed = editor.locator("[data-approvals-needed]").inner_text()
    assert (page.locator("[data-option='royal_flush_odds']").inner_text() in needed) is needs
    # Every rules field has its control: at baccarat too, card holding (BAC-16) among them.
    page.locator("[data-edit='bac-1'] summary").click()
    holding = page.locator("#opt-bac-1-card_holding")
    assert holding.get_attribute("type") == "checkbox"
    assert page.locator("#opt-bac-1-commission").get_attribute("id")  # BAC-18's option
    if language == "zh-Hant":  # the page's own words, in the reader's language
        for table in ("csp-1", "bac-1"):
            within = f"[data-edit='{table}']"
            assert english_left(page, *table_names(live), within=within) == []
    axe_in(page, language, whole="en", what=f"admin options editor {language}", within=EDITORS)
    shot(page, f"admin-options-{language}")
    page.set_viewport_size({"width": 390, "height": 844})
    assert page.evaluate("document.documentElement.scrollWidth") <= 390
    axe_in(
        page,
        language,
        whole="pt",
        what=f"admin options editor {language} on a phone",
        within=EDITORS,
    )
    page.set_viewport_size({"width": 1366, "height": 768})
    # Saved with the approval record the new value needs (CSP-13).
    reference = f"DICJ-M-{uuid.uuid4().hex[:6]}"
    page.locator("#edit-csp-1-reference").fill(reference)
    page.locator("#edit-csp-1-applied").fill("2025-12-01")
    page.locator("#edit-csp-1-effective").fill("2025-12-05")
    page.locator("#edit-csp-1-reason").fill("royal flush 50:1 approved")
    editor.locator("button[type='submit']").dblclick()  # one change, whatever the clicks
    saved = page.locator("[data-options='csp-1'] [data-value='50']")
    wait_until("the new odds listed", lambda: saved.count() == 1)
    listed = live.api.get("/api/admin/tables", headers=admin).json()["tables"]
    csp = next(t for t in listed if t["table_id"] == "csp-1")
    assert csp["rules"]["royal_flush_odds"] == 50
    recorded = [a["value"] for a in csp["approvals"] if a["reference"] == reference]
    assert recorded == ([50] if needs else [])
    # The other tests find the table as it was: back to 100:1 (approved before).
    back_to = live.api.post(
        "/api/admin/tables/csp-1/config",
        json={
            "changes": {"royal_flush_odds": 100},
            "reason": "the tests' table as it was",
            "idempotency_key": uuid.uuid4().hex,
        },
        headers=admin,
    )
    assert back_to.status_code == 200, back_to.text
    if closed.status_code == 200:
        opened = live.api.post(
            "/api/tables/csp-1/open", json={"reason": "x"}, headers=live.token("supervisor")
        )
        assert opened.status_code == 200, opened.text
