"""The dealer console in a real browser (issue 11): a dealer opens a live shoe and deals live
baccarat rounds by keyboard, a card the law refuses is shown at once (BAC-7, BAC-10) and the
round waits for a supervisor, who corrects it or voids it from the console; at a virtual table
the console offers no open or close (its round cycle opens and closes) and follows the round.

The tables are the session's live server's (``bac-live``: live mode, card entry by the dealer;
``csp-1``: virtual), shared with the other browser tests: each test starts from whatever state
the table is in and brings it where it needs it through the console itself. The console's
axe check at desktop and phone sizes, and that it never scrolls sideways, in every language:
tests/browser/test_every_page_words.py (/dealer/bac-live and /dealer/csp-1).
"""

from __future__ import annotations

import uuid
from typing import Any

from macau_tables.caribbean.commands import Fold, PlaceAnte, PlaceJackpotWager, Raise
from macau_tables.messages import LANGUAGES, render
from macau_tables.money import format_minor
from macau_tables.tables.casino import UNIT
from tests.browser.support import (
    DECK,
    Live,
    _deal_until_settled,
    _due,
    _open_round,
    _type_card,
    axe_check,
    english_left,
    login,
    shot,
    table_names,
    wait_until,
)


def test_a_dealer_deals_a_live_round_by_keyboard_and_a_wrong_card_is_refused(
    page_of: Any, live: Live
) -> None:
    dealer = page_of()
    login(dealer, "dealer", then="/dealer/bac-live")
    dealer.wait_for_selector("#due")
    cards = list(DECK)
    _open_round(dealer, cards)
    assert dealer.locator("#open-round").is_disabled()  # a round is open: no next one yet
    shot(dealer, "dealer-console-betting-en")
    dealer.locator("#close-betting").click()
    wait_until("the first card due", lambda: _due(dealer) == ("card", "P1"))
    assert "Player 1st card" in dealer.locator("#due").inner_text()
    # a wrong card: the dealer puts it at the banker's first slot while the player's is due
    dealer.locator("#card-slot").select_option("B1")
    assert _type_card(dealer, "9s") == "refused"
    refusal = dealer.locator("#card-result").inner_text()
    assert "BAC-7" in refusal, refusal
    wait_until("the round waits for a supervisor", lambda: _due(dealer)[0] == "supervisor")
    assert dealer.locator("#refusal").is_visible()
    assert dealer.locator("#ask-supervisor").is_visible()
    assert dealer.locator("#supervisor-buttons button").count() == 0  # dealers move cards only
    shot(dealer, "dealer-console-refused-en")
    axe_check(dealer, what="dealer console")
    # the supervisor corrects it from the console: the card goes to the slot due (BAC-10)
    supervisor = page_of()
    login(supervisor, "supervisor", then="/dealer/bac-live")
    reassign = supervisor.locator("#supervisor-buttons button[data-action='reassign']")
    reassign.wait_for()
    supervisor.locator("#reason").fill("the 9s was the player's first card")
    reassign.click()
    wait_until("the next card due", lambda: _due(dealer) == ("card", "B1"))
    # the dealer finishes the round by keyboard ("10h" as typed at a table)
    assert _type_card(dealer, "10h") == "accepted"
    _deal_until_settled(dealer, cards)
    wait_until(
        "the round settled",
        lambda: dealer.locator("#phase").get_attribute("data-phase") == "settled",
    )
    assert dealer.locator("#console-outcome").get_attribute("data-winner")
    shot(dealer, "dealer-console-settled-en")
    dealer.goto("/dealer/bac-live?lang=zh-Hant")
    dealer.wait_for_selector("#due")
    assert "莊荷控制台" in dealer.locator("h1").inner_text()
    wait_until(
        "the state", lambda: dealer.locator("#phase").get_attribute("data-phase") == "settled"
    )
    # (the hint names the Enter key as its keycap reads; the card field stays at a live table)
    left = english_left(dealer, *table_names(live), "dealer", "alice", "bruno", "Enter")
    assert not left, left
    shot(dealer, "dealer-console-settled-zh-Hant")
    dealer.goto("/dealer/bac-live?lang=en")


def test_a_supervisor_voids_a_round_waiting_for_them(page_of: Any, live: Live) -> None:
    dealer = page_of()
    login(dealer, "dealer", then="/dealer/bac-live")
    dealer.wait_for_selector("#due")
    cards = list(DECK)
    _open_round(dealer, cards)
    stake = live.api.post(
        "/api/tables/bac-live/commands",
        json={
            "idempotency_key": f"void-bet-{dealer.locator('#round-id').inner_text()}",
            "command": {
                "type": "baccarat.PlaceWager",
                "player": "bruno",
                "area": {"type": "baccarat.Area", "seated": False, "number": 1},
                "kind": "player",
                "amount": 2_000,
            },
        },
        headers=live.token("bruno"),
    )
    assert stake.status_code == 200, stake.text
    before = live.api.get("/api/wallets/me", headers=live.token("bruno")).json()["balance"]
    # bruno's wagers in play: this one, and a wager of his carried from a tied round before
    # (BAC-12: another test's round at bac-live may have tied; the cards dealt here all count 0)
    played = live.runtime.service("bac-live").round
    assert played is not None
    in_play = sum(w.amount for w in played.wagers if w.player == "bruno")
    assert in_play >= 2_000, played.wagers
    dealer.locator("#close-betting").click()
    wait_until("the first card due", lambda: _due(dealer) == ("card", "P1"))
    dealer.locator("#card-slot").select_option("P3")
    assert _type_card(dealer, "Kd") == "refused"
    wait_until("the round waits for a supervisor", lambda: _due(dealer)[0] == "supervisor")
    supervisor = page_of()
    login(supervisor, "supervisor", then="/dealer/bac-live")
    void = supervisor.locator("#supervisor-buttons button[data-command='baccarat.Void']")
    void.wait_for()
    void.click()  # no reason yet: refused in the page, nothing sent
    assert supervisor.locator("#page-error").is_visible()
    supervisor.locator("#reason").fill("card dealt out of order; round voided")
    void.click()
    wait_until(
        "the round void", lambda: dealer.locator("#phase").get_attribute("data-phase") == "void"
    )
    after = live.api.get("/api/wallets/me", headers=live.token("bruno")).json()["balance"]
    assert after == before + in_play  # BAC-10: every wager in play returned
    shot(supervisor, "dealer-console-void-supervisor-en")


def test_a_virtual_round_is_opened_and_closed_by_the_cycle_not_the_console(
    page: Any, live: Live
) -> None:
    """At a virtual table (``csp-1``) the round cycle opens and closes the rounds: the console
    has no open or close button; it follows the round the cycle opened, closed and dealt."""
    login(page, "dealer", then="/dealer/csp-1")
    phase = page.locator("#phase")
    shown = live.betting("csp-1")
    wait_until("betting open", lambda: phase.get_attribute("data-phase") == "betting")
    assert page.locator("#open-round").is_hidden()
    assert page.locator("#close-betting").is_hidden()
    assert page.locator("#card-panel").is_hidden()  # a virtual table deals itself
    round_id = shown["round_id"]
    ante = live.api.post(
        "/api/tables/csp-1/commands",
        json={
            "idempotency_key": f"console-ante-{round_id}",
            "command": {
                "type": "caribbean.PlaceAnte",
                "box": 4,
                "player": "alice",
                "amount": 1_000,
            },
        },
        headers=live.token("alice"),
    )
    assert ante.status_code == 200, ante.text
    wait_until("the ante on the console", lambda: page.locator("#wagers tbody tr").count() >= 1)
    # the cycle closes the betting at the countdown's end (CSP: a box has an ante)
    live.closed("csp-1", round_id)
    wait_until("the decision due", lambda: _due(page)[0] == "decision")
    # the page shows the view at once and reads the board (the countdown) after it
    wait_until(
        "the decision's countdown",
        lambda: bool(page.locator("#countdown").get_attribute("data-seconds")),
    )
    assert page.locator("#close-betting").is_hidden()
    shot(page, "dealer-console-caribbean-en")
    fold = live.api.post(
        "/api/tables/csp-1/commands",
        json={
            "idempotency_key": f"console-fold-{round_id}",
            "command": {"type": "caribbean.Fold", "box": 4, "player": "alice"},
        },
        headers=live.token("alice"),
    )
    assert fold.status_code == 200, fold.text
    wait_until("settled", lambda: page.locator("#phase").get_attribute("data-phase") == "settled")


def _focused(page: Any) -> str:
    return str(page.evaluate("document.activeElement ? document.activeElement.id : ''"))


def _press_card(page: Any, card: str) -> str:
    """Type ``card`` where the cursor is — no click, as a dealer types at the table — and press
    Enter; returns the console's answer (``accepted``, ``refused``, ``not-due``)."""
    page.evaluate("document.getElementById('card-result').dataset.outcome = ''")
    page.keyboard.type(card)
    page.keyboard.press("Enter")
    result = page.locator("#card-result")
    return str(wait_until(f"the answer to {card}", lambda: result.get_attribute("data-outcome")))


def _not_due_in(dealer: Any, lang: str, entered: str) -> None:
    """Between rounds no card is due: a card typed now is answered in the page's language
    ``lang``, nothing is entered, and the last card's line (``entered``) does not stay."""
    result = dealer.locator("#card-result")
    field = dealer.locator("#card-input")
    assert _press_card(dealer, "Qs") == "not-due"
    due = render("play.due_none", {}, lang)
    assert result.inner_text() == render("play.card_not_due", {"card": "Qs", "due": due}, lang)
    assert not entered or entered not in result.inner_text()
    assert field.input_value() == ""  # not entered, not kept
    assert dealer.locator("#phase").get_attribute("data-phase") == "settled"  # nothing dealt
    shot(dealer, f"dealer-console-no-card-due-{lang}")


def test_the_card_field_follows_the_dealer_typo_no_card_due_and_focus(
    page_of: Any, live: Live
) -> None:
    """Issue 22 ("Dealer console"): the cursor is in the card field once the betting is closed;
    a card the server cannot read leaves the field selected, so the right card typed next
    replaces the typo (the field holds 4 characters: typed after it, it would be cut off) and is
    accepted without clearing by hand; a card typed while none is due is answered in the page's
    language — in every language: the console opened again in each between the rounds — and
    nothing is entered, and the last round's "entered" line does not stay. (The cursor and the
    selection are the console's script, the same in every language: shown in English.)"""
    lang = LANGUAGES[0]
    dealer = page_of()
    login(dealer, "dealer", then=f"/dealer/bac-live?lang={lang}")
    dealer.wait_for_selector("#due")
    cards = list(DECK)
    _open_round(dealer, cards)
    result = dealer.locator("#card-result")
    field = dealer.locator("#card-input")
    dealer.locator("#close-betting").click()
    wait_until("the first card due", lambda: _due(dealer) == ("card", "P1"))
    wait_until("the cursor in the card field", lambda: _focused(dealer) == "card-input")
    # a typo of 4 characters the server cannot read as a card: refused, the field selected
    # as soon as the refusal shows — while the page still reads the table again (that read is
    # held here until the selection is checked: a card typed meanwhile replaces the typo)
    held: list[Any] = []
    table_read = f"{live.url}/api/tables/bac-live"

    def is_read(url: str) -> bool:
        return url == table_read

    def hold(route: Any) -> None:
        held.append(route)

    dealer.route(is_read, hold)
    assert _press_card(dealer, "10xs") == "refused"
    selection = dealer.evaluate(
        "(() => { const f = document.getElementById('card-input');"
        " return [f.value, f.selectionStart, f.selectionEnd, document.activeElement === f]; })()"
    )
    assert selection == ["10xs", 0, 4, True], selection
    # (each check asks the page something: the sync API takes the held request meanwhile)
    wait_until("the page's read of the table", lambda: dealer.evaluate("true") and held)
    for route in held:
        route.continue_()
    dealer.unroute(is_read)
    assert _due(dealer) == ("card", "P1")  # nothing dealt
    wait_until("the button back", lambda: dealer.locator("#card-submit").is_enabled())
    selection = dealer.evaluate(
        "(() => { const f = document.getElementById('card-input');"
        " return [f.value, f.selectionStart, f.selectionEnd, document.activeElement === f]; })()"
    )
    assert selection == ["10xs", 0, 4, True], selection
    # the right card typed at once replaces the typo and is accepted
    card = cards.pop(0)
    assert _press_card(dealer, card) == "accepted"
    assert field.input_value() == ""
    wait_until("the next card due", lambda: _due(dealer) != ("card", "P1"))
    _deal_until_settled(dealer, cards)
    wait_until(
        "the round settled",
        lambda: dealer.locator("#phase").get_attribute("data-phase") == "settled",
    )
    entered = result.inner_text()
    assert entered  # the last card's line
    # between rounds no card is due: a card typed now is answered, nothing is entered
    _not_due_in(dealer, lang, entered)
    for other in LANGUAGES[1:]:  # the same answer in the reader's language
        dealer.goto(f"/dealer/bac-live?lang={other}")
        wait_until(
            f"the settled round [{other}]",
            lambda: dealer.locator("#phase").get_attribute("data-phase") == "settled",
        )
        field.focus()  # (a console just opened: the dealer puts the cursor in the field)
        _not_due_in(dealer, other, "")
    # the next round: a card is due again, the old line goes; closing the betting leaves the
    # cursor in the card field
    _open_round(dealer, cards)
    wait_until("the old line cleared", lambda: result.inner_text() == "")
    dealer.locator("#close-betting").click()
    wait_until("the first card due", lambda: _due(dealer) == ("card", "P1"))
    wait_until("the cursor in the card field", lambda: _focused(dealer) == "card-input")
    assert _press_card(dealer, cards.pop(0)) == "accepted"
    _deal_until_settled(dealer, cards)


def test_the_caribbean_console_shows_every_wager_its_outcome_and_what_it_paid(
    page: Any, live: Live
) -> None:
    """Issue 22: each box's ante, jackpot wager (CSP-10.1) and raise, and once settled each
    one's outcome and Paid — the raise's included (CSP-9)."""
    login(page, "dealer", then="/dealer/csp-1")
    svc = live.runtime.service("csp-1")
    tag = uuid.uuid4().hex[:8]
    round_id = live.betting("csp-1")["round_id"]
    for n, (command, actor) in enumerate(
        (
            (PlaceAnte(1, "alice", UNIT), "alice"),
            (PlaceJackpotWager(1, "alice"), "alice"),
            (PlaceAnte(2, "bruno", UNIT), "bruno"),
        )
    ):
        svc.submit(command, idempotency_key=f"console-{tag}-{n}", actor=actor)
    jackpot = page.locator("#wagers tbody tr[data-spot='box 1'][data-kind='jackpot']")
    jackpot.wait_for()
    assert format_minor(UNIT) in jackpot.inner_text()
    live.closed("csp-1", round_id)
    wait_until("the deal", lambda: svc.round.is_over or svc.expected().due)  # type: ignore[union-attr]
    while not svc.round.is_over:  # the decisions (CSP-6.5): alice raises, bruno folds
        due = svc.expected().due[0]  # type: ignore[union-attr]
        box, player = due.position, due.player
        assert isinstance(box, int) and player is not None
        decision: object = Raise(box, player, 2 * UNIT) if box == 1 else Fold(box, player)
        svc.submit(decision, idempotency_key=f"console-{tag}-d{box}", actor=player)
    wait_until("settled", lambda: page.locator("#phase").get_attribute("data-phase") == "settled")
    results = {(r["spot"], r["kind"]): r for r in live.shown("csp-1", "dealer")["view"]["results"]}
    rows = page.locator("#wagers tbody tr")
    wait_until(
        "every wager's outcome",
        lambda: all(rows.nth(i).get_attribute("data-outcome") for i in range(rows.count())),
    )
    seen = {}
    for i in range(rows.count()):
        row = rows.nth(i)
        spot, kind = row.get_attribute("data-spot"), row.get_attribute("data-kind")
        seen[(spot, kind)] = (
            row.get_attribute("data-outcome"),
            row.locator("td").nth(5).inner_text(),
        )
    assert {("box 1", "ante"), ("box 1", "jackpot"), ("box 1", "raise"), ("box 2", "ante")} <= set(
        seen
    )
    for (spot, kind), (outcome, paid) in seen.items():
        if (spot, kind) in results:
            settled = results[(spot, kind)]
            assert outcome == settled["outcome"], (spot, kind)
            assert paid == format_minor(settled["paid"]), (spot, kind)
    assert seen[("box 1", "raise")][1] != ""  # the raise's Paid is shown
    shot(page, "dealer-console-caribbean-settled-en")
