"""The player tables in a real browser (issue 11): a player logs in, bets on baccarat, sees the
round settle and the wallet and the roadmaps change; a Caribbean Stud hand from the ante to the
showdown; what a player's browser receives carries no card the law has not revealed to them.

The virtual tables (``bac-1``, ``csp-1``) run their own round cycle, held (conftest ``CYCLE``):
the tests step it to open a round, bet in its countdown and step it to close the betting (the
step its tick takes at the countdown's end); nobody sends the dealer's open or close there."""

from __future__ import annotations

import contextlib
from typing import Any

from tests.browser.support import (
    AXE_WORDS_RULES,
    Live,
    axe_check,
    cycle_to_a_seated_round,
    english_left,
    held_table,
    login,
    shot,
    table_names,
    wait_until,
)


def _send(live: Live, table: str, name: str, command: dict[str, Any], key: str) -> Any:
    response = live.api.post(
        f"/api/tables/{table}/commands",
        json={"idempotency_key": key, "command": command},
        headers=live.token(name),
    )
    assert response.status_code == 200, response.text
    return response.json()


def _shown(live: Live, table: str, name: str) -> Any:
    response = live.api.get(f"/api/tables/{table}", headers=live.token(name))
    assert response.status_code == 200, response.text
    return response.json()


def _open_betting(live: Live, table: str, key: str, **command: Any) -> None:
    """Have the dealer open a round for betting unless one takes wagers already."""
    shown = _shown(live, table, "dealer")
    expected = shown["expected"] or {"commands": []}
    if any(c.endswith("PlaceWager") or c.endswith("PlaceAnte") for c in expected["commands"]):
        return
    _send(live, table, "dealer", {"type": "tables.OpenRound", **command}, key)


def _code(shown: str) -> str:
    """A recalled card ("10♥") as the codec writes it ("Th")."""
    suits = {"♠": "s", "♥": "h", "♦": "d", "♣": "c"}
    rank = shown[:-1]
    return ("T" if rank == "10" else rank) + suits[shown[-1]]


def _record(page: Any, received: list[str]) -> None:
    """Keep in ``received`` every WebSocket message and API answer ``page`` is sent."""

    def answer(response: Any) -> None:
        if "/api/" in response.url:
            # a body gone with a navigation was never shown: nothing to record
            with contextlib.suppress(Exception):
                received.append(response.text())

    page.on("websocket", lambda ws: ws.on("framereceived", lambda f: received.append(str(f))))
    page.on("response", answer)


def _balance(page: Any) -> int:
    return int(page.locator("#wallet").get_attribute("data-balance") or "0")


def _fresh_countdown(page: Any) -> None:
    """Wait until the page shows the betting countdown (the session's cycle is held, conftest
    ``CYCLE``: the betting closes when the test steps the cycle, never on the wall clock)."""
    label = page.locator("#countdown-label")
    countdown = page.locator("#countdown")
    wait_until(
        "the betting countdown",
        lambda: (
            label.get_attribute("data-step") == "close" and countdown.get_attribute("data-seconds")
        ),
    )


def test_a_player_bets_on_baccarat_and_sees_the_round_settle(page: Any, live: Live) -> None:
    """alice bets in the cycle's countdown; the cycle closes the betting at its end and the
    round is dealt and settled with nobody at the dealer console."""
    shown = live.betting("bac-1")
    round_id = shown["round_id"]
    # alice's wagers an earlier round's tie carried into this one (BAC-12: another test of the
    # worker's server may have left one) are hers in this round too: listed, then settled
    carried = len(shown["view"]["wagers"])
    here = sum(
        w["amount"]
        for w in shown["view"]["wagers"]
        if w["kind"] == "banker" and not w["area"]["seated"] and w["area"]["number"] == 1
    )
    login(page, "alice", then="/tables/bac-1")
    page.wait_for_selector("#wallet[data-balance]")
    # the bet areas open while the round takes wagers (expected.commands)
    banker = page.locator(".spot[data-area='standing:1'][data-kind='banker']")
    wait_until("betting open", banker.is_enabled)
    _fresh_countdown(page)
    mine = page.locator("#my-wagers tbody tr")
    wait_until("the carried wagers listed", lambda: mine.count() == carried)
    before = _balance(page)
    rounds_before = int(page.locator("#roads").get_attribute("data-rounds") or "0")
    banker.click()
    wait_until("the wager on the layout", lambda: mine.count() == carried + 1)
    wait_until("the stake left the wallet", lambda: _balance(page) == before - 1_000)
    # the spot shows alice's stake on it: her 10.00, with what a tie carried onto it
    assert banker.get_attribute("data-mine") == str(here + 1_000)
    assert f"{(here + 1_000) / 100:,.2f}" in banker.locator("[data-mine]").inner_text()
    shot(page, "baccarat-betting-en")
    # the socket's messages carry the view with expected / can_issue: no GET of the table per
    # event (only /board, when the round's phase or awaited step changes)
    reads: list[str] = []
    page.on("request", lambda r: reads.append(r.url.split("?")[0]) if r.method == "GET" else None)
    # the cycle closes the betting (the countdown's end); the round settles: cards as
    # revealed, the outcome, my result, the wallet and the roads
    live.closed("bac-1", round_id)
    wait_until("the result", lambda: page.locator("#outcome").get_attribute("data-winner"))
    wait_until("my results", lambda: page.locator("#results tbody tr").count() == carried + 1)
    assert not [u for u in reads if u.endswith("/api/tables/bac-1")], reads
    assert page.locator("#cards-player .card").count() >= 2
    assert page.locator("#cards-banker .card").count() >= 2
    paid = live.api.get("/api/wallets/me", headers=live.token("alice")).json()["balance"]
    wait_until("the wallet after the round", lambda: _balance(page) == paid)
    wait_until(
        "the roads grew by the round",
        lambda: (
            int(page.locator("#roads").get_attribute("data-rounds") or "0") == rounds_before + 1
        ),
    )
    assert page.locator(".road-bead_plate .road-bead").count() == rounds_before + 1
    # ask banker / ask player show what each derived road would add
    page.locator("button.ask-banker").click()
    assert page.locator(".ask-result .ask-item").count() == 3
    assert page.locator("#shoe-commitment").inner_text().strip()
    # every rule on what the round and the question added (the crawl checks the page whole)
    axe_check(page, what="baccarat player table", within="#results, .ask-result")
    shot(page, "baccarat-settled-en")
    page.goto("/tables/bac-1?lang=zh-Hant")
    page.wait_for_selector("#roads[data-rounds]")
    assert page.locator("html").get_attribute("lang") == "zh-Hant"
    assert "路紙" in page.locator("#roads-title").inner_text()
    page.wait_for_selector("#results tbody tr")
    assert not english_left(page, *table_names(live), "alice"), english_left(page, "alice")
    shot(page, "baccarat-settled-zh-Hant")
    page.goto("/tables/bac-1?lang=en")


def test_a_bet_after_the_close_is_refused_in_the_page_language(page_of: Any, live: Live) -> None:
    """A stale page (betting closed meanwhile): the refusal in the page's language, nothing
    changed, and the page recovers by itself."""
    live.betting("bac-1")
    page = page_of(locale="zh-TW")  # a first visit in Chinese: Accept-Language decides
    login(page, "alice", then="/tables/bac-1")
    assert page.locator("html").get_attribute("lang") == "zh-Hant"
    page.wait_for_selector("#wallet[data-balance]")
    banker = page.locator(".spot[data-area='standing:1'][data-kind='banker']")
    wait_until("betting open", banker.is_enabled)
    # bruno bets, so the cycle closes the betting at the countdown's end; a stale page sends
    # its bet after that
    shown = live.betting("bac-1", "bruno")
    _send(
        live,
        "bac-1",
        "bruno",
        {
            "type": "baccarat.PlaceWager",
            "player": "bruno",
            "area": {"type": "baccarat.Area", "seated": False, "number": 2},
            "kind": "player",
            "amount": 1000,
        },
        f"bp-bet-2-{shown['round_id']}",
    )
    live.closed("bac-1", shown["round_id"])
    page.locator("#page-error").wait_for(state="hidden")
    # (alice's wallet as the closed round left it: a wager of hers carried over from a tie
    # was played in it)
    before = live.api.get("/api/wallets/me", headers=live.token("alice")).json()["balance"]
    wait_until("the page's wallet", lambda: _balance(page) == before)
    shown = _shown(live, "bac-1", "alice")
    command = {
        "type": "baccarat.PlaceWager",
        "player": "alice",
        "area": {"type": "baccarat.Area", "seated": False, "number": 1},
        "kind": "banker",
        "amount": 1000,
    }
    page.evaluate(
        """async (command) => {
            const api = await import('/static/js/api.js');
            try { await api.send('/api/tables/bac-1/commands', {command}); }
            catch (err) { api.showError(err); }
        }""",
        command,
    )
    error = page.locator("#page-error")
    error.wait_for(state="visible")
    assert any("\u4e00" <= ch <= "\u9fff" for ch in error.inner_text()), error.inner_text()
    # the game words in refusals a page renders itself ({kind:term}) are the page's too
    words = page.evaluate(
        """async () => {
            const i18n = await import('/static/js/i18n.js');
            return [i18n.term('banker_pair'), i18n.term('box 3'), i18n.term('bob')];
        }"""
    )
    assert words == ["莊對子", "第 3 門", "bob"], words
    wait_until("the bet areas closed", lambda: not banker.is_enabled())
    assert _shown(live, "bac-1", "alice")["seq"] >= shown["seq"]
    wait_until("nothing taken from the wallet", lambda: _balance(page) == before)
    assert live.api.get("/api/wallets/me", headers=live.token("alice")).json()["balance"] == before


def test_a_caribbean_hand_from_ante_to_showdown(page: Any, live: Live) -> None:
    round_id = live.betting("csp-1")["round_id"]
    login(page, "bruno", then="/tables/csp-1")
    page.wait_for_selector("#wallet[data-balance]")
    ante = page.locator("#place-ante")
    wait_until("betting open", ante.is_enabled)
    _fresh_countdown(page)
    page.locator("#box").select_option("3")
    page.locator("#ante").fill("10.00")
    ante.click()
    wait_until("the ante placed", lambda: "3" in (page.locator("#my-box").inner_text() or ""))
    shot(page, "caribbean-betting-en")
    # the cycle closes the betting (the countdown's end): the player's own five cards and
    # the dealer's up card; raise / fold with a timer
    live.closed("csp-1", round_id)
    wait_until("five cards", lambda: page.locator("#my-cards .card:not(.card-back)").count() == 5)
    assert page.locator("#dealer-cards .card:not(.card-back)").count() == 1
    raise_button = page.locator("#raise")
    wait_until("the decision open", raise_button.is_enabled)
    wait_until("the timer", lambda: page.locator("#countdown").get_attribute("data-seconds"))
    # CSP-12: no hint, odds or strategy aid anywhere on the page
    text = page.locator("main").inner_text().lower()
    for word in ("odds", "hint", "strategy", "recommend", "advice", "suggest"):
        assert word not in text
    # the words' rules: test_caribbean_felt checks the felt deciding with every rule (Chinese)
    axe_check(page, what="caribbean player table", rules=AXE_WORDS_RULES)
    shot(page, "caribbean-deciding-en")
    raise_button.click()
    # the showdown: the dealer's five cards and the payouts (the service settles at once)
    wait_until(
        "the showdown", lambda: page.locator("#dealer-cards .card:not(.card-back)").count() == 5
    )
    wait_until("the results", lambda: page.locator("#results tbody tr").count() >= 2)
    assert page.locator("#box-outcome").inner_text().strip()
    shot(page, "caribbean-settled-en")
    page.goto("/tables/csp-1?lang=zh-Hant")
    page.wait_for_selector("#results tbody tr")
    assert not english_left(page, *table_names(live), "bruno"), english_left(page, "bruno")
    shot(page, "caribbean-settled-zh-Hant")
    page.goto("/tables/csp-1?lang=en")


def test_a_player_verifies_their_own_cards_against_the_published_root(
    page: Any, live: Live
) -> None:
    """Common rules "Randomness": "verify my cards" proves, in the browser, exactly the cards
    the player's view shows — during the decision their five cards and the dealer's up card,
    after the showdown the dealer's whole hand too — each against the shoe's Merkle root."""
    round_id = live.betting("csp-1")["round_id"]
    login(page, "alice", then="/tables/csp-1?lang=zh-Hant")
    ante = page.locator("#place-ante")
    wait_until("betting open", ante.is_enabled)
    _fresh_countdown(page)
    page.locator("#box").select_option("4")
    page.locator("#ante").fill("10.00")
    ante.click()
    wait_until("the ante placed", lambda: "4" in (page.locator("#my-box").inner_text() or ""))
    # the cycle closes the betting (the countdown's end)
    live.closed("csp-1", round_id)
    wait_until("five cards", lambda: page.locator("#my-cards .card:not(.card-back)").count() == 5)
    mine = {page.locator("#my-cards .card").nth(i).get_attribute("data-card") for i in range(5)}
    page.locator("#my-proofs summary").click()
    result = page.locator("#card-proofs-result")
    page.locator("#verify-cards").click()
    wait_until("the cards verified", lambda: result.get_attribute("data-result") == "ok")
    proved = page.locator('#card-proofs li[data-verified="yes"]')
    assert proved.count() == 6 and page.locator("#card-proofs li").count() == 6
    cards = {proved.nth(i).get_attribute("data-card") for i in range(6)}
    up = page.locator("#dealer-cards .card:not(.card-back)").first.get_attribute("data-card")
    assert cards == mine | {up}
    assert "✓" in page.locator("#card-proofs").inner_text()
    assert not english_left(page, *table_names(live), "alice", *mine, str(up))
    shot(page, "caribbean-verify-cards-zh-Hant")
    page.locator("#raise").click()
    wait_until(
        "the showdown", lambda: page.locator("#dealer-cards .card:not(.card-back)").count() == 5
    )
    page.evaluate("document.getElementById('card-proofs-result').dataset.result = ''")
    page.locator("#verify-cards").click()
    wait_until("the cards verified", lambda: result.get_attribute("data-result") == "ok")
    assert page.locator('#card-proofs li[data-verified="yes"]').count() == 10
    axe_check(page, what="caribbean verify my cards", within="#card-proofs, #card-proofs-result")


def test_a_player_page_carries_no_card_the_law_has_not_revealed(page_of: Any, live: Live) -> None:
    """Caribbean Stud (CSP-6.5): until the showdown, alice's page source and every message her
    browser receives hold her five cards and the dealer's up card — never a card of another
    box nor the dealer's four face-down cards (read afterwards from the round's recall)."""
    live.betting("csp-1")
    page = page_of()
    received: list[str] = []
    _record(page, received)
    login(page, "alice", then="/tables/csp-1")
    ante = page.locator("#place-ante")
    wait_until("betting open", ante.is_enabled)
    _fresh_countdown(page)
    page.locator("#box").select_option("2")
    ante.click()
    wait_until("the ante placed", lambda: "2" in page.locator("#my-box").inner_text())
    round_id = live.shown("csp-1")["round_id"]
    _send(
        live,
        "csp-1",
        "bruno",
        {"type": "caribbean.PlaceAnte", "box": 5, "player": "bruno", "amount": 1_000},
        f"leak-ante-bruno-{round_id}",
    )
    # the cycle closes the betting (the countdown's end)
    live.closed("csp-1", round_id)
    wait_until("five cards", lambda: page.locator("#my-cards .card:not(.card-back)").count() == 5)
    wait_until("the decision open", page.locator("#fold").is_enabled)
    before_showdown = "\n".join([page.content(), *received])
    up_card = page.locator("#dealer-cards .card:not(.card-back)").get_attribute("data-card")
    mine = {page.locator("#my-cards .card").nth(i).get_attribute("data-card") for i in range(5)}
    page.locator("#fold").click()
    _send(
        live,
        "csp-1",
        "bruno",
        {"type": "caribbean.Fold", "box": 5, "player": "bruno"},
        f"lf-b-{round_id}",
    )
    wait_until("the showdown", lambda: page.locator("#results tbody tr").count() >= 1)
    recalled = live.api.get(
        "/api/tables/csp-1/recall", params={"last": 1}, headers=live.token("supervisor")
    ).json()[-1]
    hidden = {_code(c["card"]) for c in recalled["cards"] if c["to"] in ("box 5", "dealer")}
    hidden.discard(up_card)
    assert len(hidden) == 9, recalled["cards"]
    assert all(f'"{card}"' in before_showdown for card in mine)
    leaked = sorted(card for card in hidden if f'"{card}"' in before_showdown)
    assert not leaked, f"{leaked} reached alice's browser before the law showed them"


def test_the_game_pages_fit_a_phone(page_of: Any, live: Live) -> None:
    """A phone-sized screen: one column, nothing wider than the screen, still accessible (the
    rules a page's words change here: each of these pages is checked with every axe rule on a
    phone by the page crawl, and the felts by their own phone tests). One phone, each user
    signing in after the last one's cookies are cleared."""
    page = page_of(viewport=(390, 844))
    for name, path, ready in (
        ("alice", "/tables/bac-1", "#roads[data-rounds]"),
        ("bruno", "/tables/csp-1", "#wallet[data-balance]"),
        ("dealer", "/dealer/bac-live", "#due"),
    ):
        page.context.clear_cookies()
        login(page, name, then=path)
        page.wait_for_selector(ready)
        width = page.evaluate("document.documentElement.scrollWidth")
        assert width <= 390, f"{path} is {width}px wide on a 390px screen"
        axe_check(page, what=f"{path} on a phone", rules=AXE_WORDS_RULES)
        shot(page, f"phone{path.replace('/', '-')}-en")


def test_the_card_holder_squeezes_and_turns_the_cards_BAC_16(page_of: Any, live: Live) -> None:
    """alice takes seat 1 on her page at the virtual table (BAC-15: from the next round the
    cycle opens); seated with the largest player wager, she holds the player's cards (BAC-16):
    her page shows them to her and offers to turn them; bruno's page shows them face down
    until she does."""
    held_table(live)
    alice = page_of(motion="no-preference")  # the squeeze's motion is the subject
    login(alice, "alice", then="/tables/bac-hold")
    bruno = page_of()
    received: list[str] = []  # everything bruno's browser is sent
    _record(bruno, received)
    login(bruno, "bruno", then="/tables/bac-hold")
    seat_controls = alice.locator("#seat-controls")
    seat_controls.wait_for(state="visible")
    take, leave = alice.locator("#seat-take"), alice.locator("#seat-leave")
    wait_until("alice's seat controls", lambda: take.is_visible() or leave.is_visible())
    if take.is_visible():  # (another test of the session's server may have seated her at 1)
        alice.locator("#seat-number").select_option("1")
        assert take.inner_text() == "Take seat 1"
        take.click()
    leave.wait_for(state="visible")
    axe_check(alice, what="baccarat seat controls", within="#seat-controls")
    cycle_to_a_seated_round(live, "bac-hold", "alice", "bruno")
    wait_until(
        "alice's seat", lambda: alice.locator("#my-seat").inner_text() == "You sit at seat 1"
    )
    for page in (alice, bruno):
        wait_until("betting open", page.locator(".spot[data-kind='player']").first.is_enabled)
    # From here on, this round: the rounds cycled through before it dealt (and showed
    # everyone) cards of the same eight decks, and a held card's value may be among them.
    received.clear()
    alice_rows = alice.locator("#my-wagers tbody tr")
    alice_before = alice_rows.count()  # (a wager carried from a tie, BAC-12)
    alice.locator(".spot[data-area='seat:1'][data-kind='player']").click()
    wait_until("alice's wager", lambda: alice_rows.count() == alice_before + 1)
    bruno_rows = bruno.locator("#my-wagers tbody tr")
    bruno_before = bruno_rows.count()  # (a wager carried from a tie, BAC-12)
    bruno.locator(".spot[data-area='standing:2'][data-kind='banker']").click()
    wait_until("bruno's wager", lambda: bruno_rows.count() == bruno_before + 1)
    live.runtime.service("bac-hold").cycle_step()  # the countdown's end, now: betting closes
    squeeze = alice.locator("#squeeze")
    squeeze.wait_for(state="visible")
    # alice sees the player's two cards, bruno sees them face down (BAC-16)
    alice_cards = alice.locator("#cards-player .card:not(.card-back)")
    wait_until("alice's cards", lambda: alice_cards.count() == 2)
    wait_until(
        "bruno's face-down cards", lambda: bruno.locator("#cards-player .card-back").count() == 2
    )
    assert bruno.locator("#squeeze").is_hidden()
    wait_until("the timer", lambda: alice.locator("#countdown").get_attribute("data-seconds"))
    shot(alice, "baccarat-squeeze-en")
    held = [alice_cards.nth(i).get_attribute("data-card") for i in range(2)]
    before_turn = "\n".join([bruno.locator("#cards-player").inner_html(), *received])
    leaked = [card for card in held if f'"{card}"' in before_turn]
    assert not leaked, f"{leaked} (held by alice) reached bruno's browser before she turned them"
    # She turns what she is offered (the first two cards, then a third card if one is drawn)
    # until the round settles. Each step waits for her page to offer the next part instead of
    # guessing from a count, so a page still showing the part just turned is never clicked again.
    from playwright.sync_api import TimeoutError as PlaywrightTimeout  # the page_of fixture has it

    turn = alice.locator("#squeeze-turn")
    turned: list[str] = []

    def turn_what_is_due() -> str | None:
        if squeeze.is_visible() and turn.is_enabled():
            part = turn.get_attribute("data-part") or ""
            if part not in turned:
                with contextlib.suppress(PlaywrightTimeout):  # hidden as it was clicked: look again
                    turn.click(timeout=2_000)
                    turned.append(part)
        return bruno.locator("#outcome").get_attribute("data-winner")

    wait_until("the cards turned and the result", turn_what_is_due)
    assert turned[:1] == ["first_two"], turned
    wait_until("the result", lambda: bruno.locator("#outcome").get_attribute("data-winner"))
    assert bruno.locator("#cards-player .card-back").count() == 0


def test_the_player_page_shows_the_paytable_with_its_articles_CSP_10_3(
    page: Any, live: Live
) -> None:
    """CSP-10.3 (the fixed awards at the table), CSP-9.5 (the raise paytable with its cap per
    box per round), BAC-17 / BAC-18 (the baccarat wagers and commission): the player's page
    shows the table's paytable, each line with its article, in both languages."""
    login(page, "alice", then="/tables/csp-1?lang=en")
    table = page.locator("#paytable")
    table.wait_for()
    royal = table.locator("[data-section='jackpot'] tr[data-term='royal_flush']")
    assert "50,000.00" in royal.inner_text() and "CSP-10.2(1)" in royal.inner_text()
    capped = table.locator("tr[data-article='CSP-9.5(9)']").inner_text()
    assert "100:1" in capped and "per box per round" in capped
    assert table.locator("[data-note='raise_cap']").get_attribute("data-article") == "CSP-9.5"
    # the words' rules: test_caribbean_felt checks the paytable with every rule (Portuguese)
    axe_check(page, what="caribbean paytable", rules=AXE_WORDS_RULES)
    shot(page, "caribbean-paytable-en")
    page.goto("/tables/csp-1?lang=zh-Hant")
    page.locator("#paytable").wait_for()
    assert "賠率表" in page.locator("#paytable").inner_text()
    assert english_left(page, *table_names(live), within="#paytable") == []
    page.goto("/tables/bac-1?lang=en")
    banker = page.locator("#paytable tr[data-term='banker']")
    banker.wait_for()
    assert "5% commission" in banker.inner_text() and "BAC-18.1" in banker.inner_text()
    heavenly = page.locator("#paytable tr[data-term='heavenly_straight']").inner_text()
    assert "BAC-17.5" in heavenly and "or 10 % of the meter, whichever is higher" in heavenly
