"""The public pages in a real browser (issue 11): the lobby, the login page, the jackpot display
(CSP-1: it follows a contribution made at another table) and the shoe check (the browser's
SHA-256 agrees with ``rng.commitment_digest``); the language: the first visit follows the
browser, the switch changes every visible text and is remembered; a page opened with an ended
session goes to the login page and says why. Every page passes axe and is photographed in both
languages."""

from __future__ import annotations

import json
import re
import secrets
import uuid
from typing import Any
from urllib.parse import parse_qs, urlsplit

from macau_tables.cards import Card
from macau_tables.caribbean.commands import Fold, PlaceAnte, PlaceJackpotWager, Raise
from macau_tables.rng import SystemRandom, commit_leaves, commitment_digest, prove_all
from macau_tables.server.auth import SESSION_COOKIE
from macau_tables.tables.casino import UNIT
from tests.browser.support import (
    AXE_WORDS_RULES,
    PASSWORD,
    Live,
    axe_check,
    axe_in,
    english_left,
    login,
    shot,
    table_names,
    wait_until,
)

LANGS = ("en", "zh-Hant")


def test_the_lobby_shows_the_tables_and_the_meters_in_both_languages(
    page_of: Any, live: Live
) -> None:
    page = page_of()
    page.goto("/")
    assert page.locator("html").get_attribute("lang") == "en"  # an English browser
    page.locator("[data-table='bac-1']").wait_for()
    assert page.locator("[data-table]").count() == len(table_names(live))
    page.locator("[data-meter='m-caribbean'] [data-amount]").wait_for()
    wait_until(
        "the live indicator",
        lambda: page.locator("[data-live]").get_attribute("data-state") == "open",
    )
    assert page.locator("[data-table='csp-1'] a[href^='/login']").count() == 1  # sign in to play
    # the words' rules: the crawl checks this lobby (nobody signed in, English) with every rule
    axe_check(page, what="lobby en", rules=AXE_WORDS_RULES)
    shot(page, "lobby-en")
    page.locator(".lang-switch a[data-lang='zh-Hant']").click()
    page.wait_for_url("**/?lang=zh-Hant")
    page.locator("[data-table='bac-1']").wait_for()
    assert page.locator("html").get_attribute("lang") == "zh-Hant"
    assert "百家樂" in page.locator("[data-table='bac-1']").inner_text()
    assert english_left(page, *table_names(live)) == []
    axe_in(page, "zh-Hant", whole="en", what="lobby zh-Hant")  # the same lobby
    shot(page, "lobby-zh-Hant")
    page.goto("/jackpot")  # the choice is remembered in a cookie
    assert page.locator("html").get_attribute("lang") == "zh-Hant"
    phone = page_of(viewport=(390, 844), locale="zh-HK")  # a first visit follows the browser
    phone.goto("/")
    assert phone.locator("html").get_attribute("lang") == "zh-Hant"
    phone.locator("[data-table='csp-1']").wait_for()
    width = phone.evaluate("document.documentElement.scrollWidth")
    assert width <= 390, f"the lobby scrolls sideways on a phone ({width} px)"
    shot(phone, "lobby-phone-zh-Hant")


def _play_caribbean_round(live: Live) -> None:
    """alice (box 1, with the jackpot wager) and bruno (box 2) play one round of ``csp-1``
    through the table service, as another table's players would (CSP-10: alice's jackpot wager
    contributes to the linked meter); the table's round cycle opens the round and closes its
    betting at the countdown's end."""
    svc = live.runtime.service("csp-1")
    tag = uuid.uuid4().hex[:8]

    def submit(command: object, key: str, actor: str) -> None:
        svc.submit(command, idempotency_key=f"{key}-{tag}", actor=actor)

    round_id = live.betting("csp-1")["round_id"]
    submit(PlaceAnte(1, "alice", UNIT), "a", "alice")
    submit(PlaceJackpotWager(1, "alice"), "j", "alice")
    submit(PlaceAnte(2, "bruno", UNIT), "b", "bruno")
    live.closed("csp-1", round_id)
    wait_until("the deal", lambda: svc.round.is_over or svc.expected().due)  # type: ignore[union-attr]
    while not svc.round.is_over:  # the decisions (CSP-6.5): alice raises, bruno folds
        due = svc.expected().due[0]  # type: ignore[union-attr]
        box, player = due.position, due.player
        assert isinstance(box, int) and player is not None
        command: object = Raise(box, player, 2 * UNIT) if box == 1 else Fold(box, player)
        submit(command, f"d{box}", player)


def test_the_jackpot_display_follows_a_contribution_at_another_table_CSP_1(
    page: Any, live: Live
) -> None:
    page.goto("/jackpot?lang=en")
    amount = page.locator("[data-meter='m-caribbean'] .jackpot-amount")
    amount.wait_for()
    wait_until(
        "the live stream", lambda: page.locator("[data-live]").get_attribute("data-state") == "open"
    )
    before = int(amount.get_attribute("data-amount") or 0)
    # both games' fixed awards (CSP-10.3), drawn when /api/meters answers — which may be after
    # the stream opened: waited for, not assumed
    linked = sum(len(m["tables"]) for m in live.api.get("/api/meters").json()["meters"])
    wait_until(  # each linked table's own awards (CSP-10.3)
        "the fixed awards", lambda: page.locator("#jackpot-awards table").count() == linked
    )
    assert "Royal flush" in page.locator("#jackpot-awards").inner_text()
    # the words' rules: the crawl checks the display with every rule (in Chinese: the other
    # rules read its structure and styles, the same in every language)
    axe_check(page, what="jackpot en", rules=AXE_WORDS_RULES)
    shot(page, "jackpot-en")
    _play_caribbean_round(live)
    now = live.store.read(lambda tx: tx.meter_amount("m-caribbean"))
    assert now > before
    wait_until(
        "the display to show the new amount",
        lambda: int(amount.get_attribute("data-amount") or 0) == now,
    )
    page.goto("/jackpot?lang=zh-Hant")
    page.locator("[data-meter='m-caribbean'] .jackpot-amount").wait_for()
    assert "黃袍麒" in page.locator("#jackpot-awards").inner_text()
    assert english_left(page, *table_names(live)) == []
    axe_in(page, "zh-Hant", whole="en", what="jackpot zh-Hant")  # the same display
    shot(page, "jackpot-zh-Hant")


def test_the_jackpot_display_recovers_by_itself_after_a_lost_connection(
    page: Any, live: Live
) -> None:
    page.watch.allow("WebSocket")  # the retries while the network is down
    # Keep a hand on the page's sockets, to cut them as a lost network would; while
    # ``__cut`` holds, every new socket fails as it opens (as on a lost network, whatever the
    # browser's offline emulation does to WebSockets), so the page stays cut off, retrying,
    # until the test gives the network back: nothing here races the page's retry pause.
    page.add_init_script(
        "window.__sockets = []; window.__cut = false; const Native = window.WebSocket;"
        "window.WebSocket = class extends Native {"
        "  constructor(...a) { super(...a); window.__sockets.push(this);"
        "    if (window.__cut) this.close(); } };"
    )
    page.goto("/jackpot?lang=en")
    live_state = page.locator("[data-live]")
    wait_until("the live stream", lambda: live_state.get_attribute("data-state") == "open")
    # The sockets are cut before the browser goes offline: a socket closed while offline may
    # wait for its closing handshake until Chromium's own time-out (a minute) before the page
    # hears of it.
    page.evaluate("window.__cut = true; window.__sockets.forEach((s) => s.close(4000))")
    page.context.set_offline(True)
    try:
        wait_until("the lost connection", lambda: live_state.get_attribute("data-state") != "open")
        assert "Reconnecting" in live_state.inner_text()
        _play_caribbean_round(live)  # a contribution while the display is cut off
        assert live_state.get_attribute("data-state") != "open"  # it missed the contribution
    finally:
        page.context.set_offline(False)
        page.evaluate("window.__cut = false")
    now = live.store.read(lambda tx: tx.meter_amount("m-caribbean"))
    amount = page.locator("[data-meter='m-caribbean'] .jackpot-amount")
    wait_until(
        "the display to catch up after reconnecting",
        lambda: int(amount.get_attribute("data-amount") or 0) == now,
    )
    assert live_state.get_attribute("data-state") == "open"


def test_the_shoe_check_agrees_with_python_commitment_digest(page: Any, live: Live) -> None:
    order = [Card.from_index(i) for i in range(52)] * 8
    rng = secrets.SystemRandom()
    rng.shuffle(order)
    salt = secrets.token_bytes(32)
    digest = commitment_digest(order, salt)
    page.goto("/shoe-check?lang=en")
    page.get_by_label("Commitment").fill(digest)
    page.get_by_label("Order of the cards").fill(" ".join(str(c) for c in order))
    page.get_by_label("Salt").fill(salt.hex())
    page.locator("#shoe-verify").click()
    result = page.locator("#shoe-result")
    wait_until("the check", lambda: result.get_attribute("data-result"))
    assert result.get_attribute("data-result") == "ok", result.inner_text()
    assert page.locator("#shoe-digest").inner_text() == digest
    # every rule on what the check showed (the crawl checks the page whole, in Portuguese)
    axe_check(page, what="shoe check en", within="#shoe-form, #shoe-result, #shoe-digest")
    shot(page, "shoe-check-en")
    # Symbols, "10", lower case and a JSON list read as Card.parse reads them.
    spelled = [
        f"{'10' if c.rank == 10 else str(c)[0]}{'♦♣♥♠'[c.suit]}" if i % 3 == 0 else str(c).lower()
        for i, c in enumerate(order)
    ]
    page.get_by_label("Order of the cards").fill(json.dumps(spelled, ensure_ascii=False))
    page.evaluate("document.getElementById('shoe-result').dataset.result = ''")
    page.locator("#shoe-verify").click()
    wait_until("the check", lambda: result.get_attribute("data-result"))
    assert result.get_attribute("data-result") == "ok", result.inner_text()
    swapped = [*order]
    swapped[0], swapped[1] = swapped[1], swapped[0]
    if swapped != order:
        page.get_by_label("Order of the cards").fill(" ".join(str(c) for c in swapped))
        page.evaluate("document.getElementById('shoe-result').dataset.result = ''")
        page.locator("#shoe-verify").click()
        wait_until("the check", lambda: result.get_attribute("data-result"))
        assert result.get_attribute("data-result") == "mismatch"
        assert page.locator("#shoe-digest").inner_text() == commitment_digest(swapped, salt)
    page.get_by_label("Order of the cards").fill("As Kx")
    page.locator("#shoe-verify").click()
    wait_until("the refusal", lambda: "Kx" in result.inner_text())
    assert result.get_attribute("data-result") == "bad"


def test_the_shoe_check_picks_a_whole_shoe_of_before(page: Any, live: Live) -> None:
    """A shoe committed whole (scheme sha256-v1): its commitment is filled in; its order and
    salt (from the audit archive) are checked by the form as before."""
    assert live.api.get("/api/shoes").json().keys() == {"shoes", "next"}
    order = [Card.from_index(i) for i in reversed(range(52))]
    salt = bytes(range(32))
    shoe = {
        "table_id": "bac-1",
        "shoe_no": 7,
        "scheme": "sha256-v1",
        "commitment": commitment_digest(order, salt),
        "size": None,
        "proofs": [],
        "verified": True,
        "revealed_at": "2026-12-03T10:00:00+00:00",
    }
    older = {**shoe, "shoe_no": 6, "revealed_at": "2026-12-02T10:00:00+00:00"}
    pages = {None: {"shoes": [shoe], "next": "c1"}, "c1": {"shoes": [older], "next": None}}

    def answer(route: Any) -> None:  # a page, then the older one after its cursor
        before = parse_qs(urlsplit(route.request.url).query).get("before", [None])[0]
        route.fulfill(json=pages[before])

    page.route(re.compile(r".*/api/shoes(\?.*)?$"), answer)
    page.goto("/shoe-check?lang=zh-Hant")
    picker = page.locator("#shoe-pick")
    wait_until("the shoes", lambda: picker.locator("option").count() == 2)
    page.locator("#shoe-older").click()  # the older page, added below the first
    wait_until("the older shoes", lambda: picker.locator("option").count() == 3)
    assert page.locator("#shoe-older").is_hidden()  # no page after it
    picker.select_option(index=1)
    assert page.locator("#shoe-commitment").input_value() == shoe["commitment"]
    page.get_by_label("牌序（未切牌）").fill(" ".join(str(c) for c in order))
    page.locator("#shoe-salt").fill(salt.hex())
    page.locator("#shoe-verify").click()
    result = page.locator("#shoe-result")
    wait_until("the check", lambda: result.get_attribute("data-result"))
    assert result.get_attribute("data-result") == "ok"
    assert "核對無誤" in result.inner_text()
    assert english_left(page, "As", "Kd", "10h") == []


def _merkle_shoe(public: list[int], size: int = 52) -> tuple[dict[str, Any], Any]:
    """A shoe committed card by card in Python (rng.commit_leaves) and its /api/shoes entry
    with the proofs of the cards at ``public``."""
    committed = commit_leaves([Card.from_index(i % 52) for i in range(size)], SystemRandom())
    wanted = [(i, committed.order[i], committed.salts[i]) for i in public]
    proofs = [
        {"position": p.position, "card": str(p.card), "salt": p.salt, "path": list(p.path)}
        for p in prove_all(committed.leaves, wanted)
    ]
    entry = {
        "table_id": "bac-1",
        "shoe_no": 9,
        "scheme": "merkle-v2",
        "commitment": committed.commitment,
        "size": size,
        "proofs": proofs,
        "verified": True,
        "revealed_at": "2026-12-04T10:00:00+00:00",
    }
    return entry, committed


def test_the_shoe_check_verifies_the_public_cards_proofs_in_the_browser(
    page: Any, live: Live
) -> None:
    """Common rules "Randomness": a card-by-card shoe's public cards are verified in the
    browser (WebCrypto) against the Merkle root Python computed (RFC 6962, a salt per
    position); a changed card or salt does not verify. Shoes of 416 and 5 cards."""
    good, _ = _merkle_shoe([0, 1, 17, 200, 415], size=416)
    bad, committed = _merkle_shoe([0, 3, 4], size=5)
    bad["shoe_no"] = 10
    bad["proofs"][1]["card"] = str(Card.from_index((committed.order[3].index + 1) % 52))
    bad["proofs"][2]["salt"] = "00" * 32
    page.route(
        "**/api/shoes", lambda route: route.fulfill(json={"shoes": [good, bad], "next": None})
    )
    page.goto("/shoe-check?lang=en")
    picker = page.locator("#shoe-pick")
    wait_until("the shoes", lambda: picker.locator("option").count() == 3)
    picker.select_option(index=1)
    result = page.locator("#shoe-proofs-result")
    wait_until("the proofs checked", lambda: result.get_attribute("data-result") == "ok")
    rows = page.locator("#shoe-proof-table tbody tr")
    assert rows.count() == 5
    assert page.locator('#shoe-proof-table tbody tr[data-verified="yes"]').count() == 5
    assert page.locator("#shoe-root").inner_text() == good["commitment"]
    assert page.locator("#shoe-form").is_hidden()
    axe_check(page, what="shoe check proofs en", within="#shoe-proofs")  # as above
    shot(page, "shoe-check-proofs-en")
    picker.select_option(index=2)
    wait_until("the forged proofs", lambda: result.get_attribute("data-result") == "mismatch")
    verdicts = [
        rows.nth(i).get_attribute("data-verified")
        for i in range(page.locator("#shoe-proof-table tbody tr").count())
    ]
    assert verdicts == ["yes", "no", "no"]
    page.goto("/shoe-check?lang=zh-Hant")
    wait_until("the shoes", lambda: picker.locator("option").count() == 3)
    picker.select_option(index=1)
    wait_until("the proofs checked", lambda: result.get_attribute("data-result") == "ok")
    assert english_left(page, "As", "Kd", "10h") == []
    shot(page, "shoe-check-proofs-zh-Hant")


def test_login_refusals_are_shown_in_the_page_language_then_the_user_gets_in(
    page: Any, live: Live
) -> None:
    page.goto("/login?lang=zh-Hant")
    assert english_left(page) == []
    # the words' rules here and below: the crawl checks the login page with every rule
    axe_check(page, what="login zh-Hant", rules=AXE_WORDS_RULES)
    shot(page, "login-zh-Hant")
    page.get_by_label("用戶名稱").fill("alice")
    page.get_by_label("密碼").fill("not her password")
    page.locator("#login-submit").click()
    error = page.locator("#login-error")
    error.wait_for()
    assert re.search(r"[\u3400-\u9fff]", error.inner_text()), error.inner_text()
    assert page.watch.refusals, "the refusal came from the API"
    login(page, "alice", then="/", through_page=True)
    assert page.locator("[data-testid='who']").inner_text().startswith("已登入：alice")
    page.goto("/login?lang=en")
    axe_check(page, what="login en", rules=AXE_WORDS_RULES)
    shot(page, "login-en")
    page.locator("#logout").click()
    page.wait_for_url(re.compile(r"/$"))
    assert page.locator("#login-link").is_visible()


def test_a_page_opened_with_an_ended_session_asks_to_sign_in_again(page: Any, live: Live) -> None:
    page.context.add_cookies(
        [{"name": SESSION_COOKIE, "value": "ended-or-forged", "url": live.url}]
    )
    page.goto("/supervisor?lang=en")
    page.wait_for_url(re.compile(r"/login\?"))
    assert "session has ended" in page.locator("main").inner_text()
    login(page, "supervisor", then="/supervisor", through_page=True)
    assert page.url.endswith("/supervisor")
    page.watch.allow("/admin?lang=en")  # the 403 page is the point
    page.goto("/admin?lang=en")  # a supervisor is not an administrator: said in a page
    assert "Not for this account" in page.locator("h1").inner_text()
    # the words' rules: the crawl checks this page (a player's /admin) with every rule in English
    axe_check(page, what="403 en", rules=AXE_WORDS_RULES)
    shot(page, "forbidden-en")
    page.watch.allow("/admin?lang=zh-Hant")
    page.goto("/admin?lang=zh-Hant")
    assert english_left(page, "supervisor") == []
    shot(page, "forbidden-zh-Hant")


def test_api_clients_are_refused_as_json_not_redirected(live: Live) -> None:
    response = live.api.get("/supervisor", follow_redirects=False)
    assert response.status_code == 401
    assert response.json()["error"]["key"] == "auth.unauthenticated"
    html = live.api.get("/supervisor", headers={"Accept": "text/html"}, follow_redirects=False)
    assert html.status_code == 303
    assert html.headers["location"].startswith("/login?next=%2Fsupervisor")


def test_the_login_page_never_leaves_its_origin_after_signing_in(page: Any, live: Live) -> None:
    """``login.js`` resolves ``next`` against the page's origin and keeps it only when it stays
    there, whatever the server sent (a backslash, a tab, a scheme, another host)."""
    page.goto("/login")
    targets = page.evaluate(
        """async (inputs) => {
            const { localTarget } = await import("/static/js/login.js");
            return inputs.map((after) => localTarget(after));
        }""",
        [
            "/\\evil.example/phish",
            "/\t/evil.example/phish",
            "/\n/evil.example",
            "//evil.example",
            "/\\/evil.example",
            "javascript:alert(1)",
            "https://evil.example/",
            "/tables/bac-1?lang=en",
        ],
    )
    assert targets == [None] * 7 + ["/tables/bac-1?lang=en"]
    # A forged hidden field (as if the server had let it through): the page stays home.
    page.goto("/login")
    page.locator("input[name='next']").evaluate("(el) => { el.value = '/\\\\evil.example/phish'; }")
    page.get_by_label("Name").fill("alice")
    page.get_by_label("Password").fill(PASSWORD["alice"])
    with page.expect_navigation():
        page.locator("#login-submit").click()
    page.wait_for_load_state("domcontentloaded")
    assert page.url.startswith(live.url + "/"), page.url


def test_the_jackpot_display_names_the_winning_box_or_seat_CSP_10_4_BAC_17(
    page: Any, live: Live
) -> None:
    """A hit shows its winning place in the page's language (``第 3 號座位`` for ``"seat 3"``),
    never the award's key (at baccarat a wager id); a hit recorded before places were shows
    ``—``."""
    round_id = f"bac-live-{uuid.uuid4().hex[:6]}"
    live.store.run(
        lambda tx: tx.record_hit(
            "m-baccarat",
            table_id="bac-live",
            round_id=round_id,
            box=8,
            combination="royal_flush",
            amount=0,
            place="seat 3",
        )
    )
    live.store.run(
        lambda tx: tx.record_hit(
            "m-baccarat",
            table_id="bac-live",
            round_id=f"{round_id}-old",
            box=9,
            combination="royal_flush",
            amount=0,
        )
    )
    page.goto("/jackpot?lang=zh-Hant")
    seat = page.locator("#jackpot-hits td[data-place='seat 3']")
    seat.first.wait_for()
    assert seat.first.inner_text() == "第 3 號座位"
    assert page.locator("#jackpot-hits td[data-place='']").first.inner_text() == "—"
    assert "8" not in [c.strip() for c in page.locator("#jackpot-hits td").all_inner_texts()]


def _add_table_with_awards_of_its_own(live: Live) -> None:
    """``csp-own``: a live Caribbean Stud table on the demonstration meter whose fixed awards
    differ from ``csp-1``'s (created once for the session)."""
    from dataclasses import replace

    from macau_tables.caribbean.demo import demo_rules as demo_caribbean_rules
    from macau_tables.caribbean.rules import JackpotFixedAwards
    from macau_tables.rounds import TableMode
    from macau_tables.store import TableStatus

    rules = replace(
        demo_caribbean_rules(),
        jackpot_fixed_awards=JackpotFixedAwards(7_777_700, 777_700, 77_700, 17_700, 7_700),
    )

    def build(tx: Any) -> None:
        if any(t.table_id == "csp-own" for t in tx.tables()):
            return
        tx.put_config("caribbean", "csp-own-v1", rules)
        tx.create_table(
            "csp-own",
            name="Caribbean Stud (own awards)",
            game="caribbean",
            mode=TableMode.LIVE,
            demo=True,
            config_id="csp-own-v1",
            meter_id="m-caribbean",
        )
        tx.set_table_status("csp-own", TableStatus.OPEN, actor="test", reason="CSP-10.3")

    live.store.run(build)


def test_the_jackpot_display_shows_each_linked_tables_own_awards_CSP_10_3(
    page: Any, live: Live
) -> None:
    """CSP-10.3: two tables on one meter with different fixed awards: the display shows each
    table's own awards (not the first table's), each line with its article, and the note of
    CSP-10.8 on who funds a fixed award above the meter's share."""
    _add_table_with_awards_of_its_own(live)
    page.goto("/jackpot?lang=en")
    own = page.locator("[data-table='csp-own']")
    demo = page.locator("[data-table='csp-1']")
    own.wait_for()
    demo.wait_for()
    assert "77,777.00" in own.locator("tr[data-term='royal_flush']").inner_text()
    assert "50,000.00" in demo.locator("tr[data-term='royal_flush']").inner_text()
    assert "77,777.00" not in demo.inner_text()
    assert own.locator("tr[data-article='CSP-10.2(5)']").inner_text().count("77.00") == 1
    note = own.locator("[data-note='house_funds_difference']")
    assert note.get_attribute("data-article") == "CSP-10.8"
    assert "house pays the difference" in note.inner_text()
    assert "CSP-10.8" in note.inner_text()
    axe_check(page, what="jackpot per table", within="[data-table='csp-own']")  # what it added
    page.goto("/jackpot?lang=zh-Hant")
    page.locator("[data-table='csp-own']").wait_for()
    assert "差額由場方支付" in page.locator("#jackpot-awards").inner_text()
    assert english_left(page, *table_names(live), within="#jackpot-awards") == []
