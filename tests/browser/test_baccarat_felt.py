"""The baccarat table on the felt in a real browser, in every language of the catalog:
chips placed on a betting area's spot (BAC-15) stack there with the amount in major units, the
countdown ring follows the table's round cycle, the hands are dealt with their cards named in
the page's language and the winner is named with each hand's total, the shoe's statistics
(results only) sit beside the roads; the card holder peels the held cards by dragging them and
the server records the reveal (BAC-16), and nobody's page names another player; axe at desktop
and phone sizes (every rule in one language, the rules words change in the others:
support.axe_in). The session's cycle is held (conftest ``CYCLE``): the tests step it."""

from __future__ import annotations

from typing import Any

import pytest

from macau_tables import messages
from macau_tables.baccarat.bets import TIE_ODDS
from macau_tables.money import format_minor
from tests.browser.support import (
    DECK,
    Live,
    _deal_until_settled,
    _due,
    _open_round,
    _type_card,
    axe_check,
    axe_in,
    cycle_to_a_seated_round,
    held_table,
    login,
    network_quiet,
    shot,
    wait_until,
)

RANKS = {"A": "play.rank_ace", "J": "play.rank_jack", "Q": "play.rank_queen", "K": "play.rank_king"}
SUITS = {
    "s": "play.card_spades",
    "h": "play.card_hearts",
    "d": "play.card_diamonds",
    "c": "play.card_clubs",
}


def _card_name(card: str, language: str) -> str:
    """A card's name ("Ace of spades") as the catalog writes it in ``language``."""
    rank = "10" if card[0] == "T" else card[0]
    if rank in RANKS:
        rank = messages.render(RANKS[rank], {}, language)
    return messages.render(SUITS[card[1]], {"rank": rank}, language)


def _ring(page: Any) -> dict[str, str]:
    """The felt's countdown ring and the countdown's seconds, read at one moment."""
    result: dict[str, str] = page.evaluate(
        """() => {
            const ring = document.querySelector('.felt [data-countdown-ring]');
            return {left: ring.dataset.left || '', fraction: ring.dataset.fraction || '',
                    seconds: document.getElementById('countdown').dataset.seconds || ''};
        }"""
    )
    return result


@pytest.mark.parametrize("language", messages.LANGUAGES)
def test_a_baccarat_round_on_the_felt(page_of: Any, live: Live, language: str) -> None:
    """alice puts two chips on the banker spot of standing area 1: the spot shows the stack and
    the amount; the ring runs with the cycle's countdown; the cycle closes the betting and the
    round is dealt: cards named in the page's language, the winner with both totals, the
    statistics beside the roads; the next round clears the "Done" notice."""
    page = page_of()
    round_id = live.betting("bac-1")["round_id"]
    login(page, "alice", then=f"/tables/bac-1?lang={language}")
    page.wait_for_selector("#wallet[data-balance]")
    spot = page.locator(".spot[data-area='standing:1'][data-kind='banker']")
    wait_until("betting open", spot.is_enabled)
    chips = [
        int(v) for v in page.locator("#chips input").evaluate_all("(es) => es.map((e) => e.value)")
    ]
    assert len(chips) >= 2
    # the countdown ring shows the countdown's seconds
    wait_until(
        "the ring on the countdown",
        lambda: (r := _ring(page))["left"] and r["left"] == r["seconds"],
    )
    first = int(_ring(page)["left"])
    wait_until(
        "the ring to move", lambda: (left := _ring(page)["left"]) != "" and int(left) < first
    )
    # two chips on the spot: the first chip, then the second (keyboard: the rack's radios)
    # (a banker wager of the last round's tie may lie there already, carried over: BAC-12)
    before = int(spot.get_attribute("data-amount") or "0")
    mine_before = int(spot.get_attribute("data-mine") or "0")
    spot.click()
    page.locator("#chips input").nth(1).check()
    spot.click()
    staked = chips[0] + chips[1]
    wait_until(
        "the chips on the spot",
        lambda: int(spot.get_attribute("data-amount") or "0") == before + staked,
    )
    assert spot.locator("[data-amount]").inner_text() == format_minor(before + staked)
    assert int(spot.locator("svg.chip-stack").get_attribute("data-chips") or "0") >= 2
    mine = messages.render("play.stake_mine", {"amount": mine_before + staked}, language)
    assert spot.locator("[data-mine]").inner_text() == mine
    assert mine in (spot.get_attribute("aria-label") or "")
    assert page.locator("#page-status").is_visible()  # "Done"
    # each spot says what it pays, from the table's paytable (BAC-17.2 for the tie)
    tie = page.locator(".spot[data-area='seat:1'][data-kind='tie'] [data-pays]")
    assert tie.inner_text() == messages.render("play.spot_pays", {"odds": TIE_ODDS}, language)
    axe_in(page, language, whole="en", what=f"the baccarat felt ({language})")
    shot(page, f"baccarat-felt-betting-{language}")
    # the cycle closes the betting; the round is dealt and settled
    live.closed("bac-1", round_id)
    outcome = page.locator("#outcome")
    wait_until("the result", lambda: outcome.get_attribute("data-winner"))
    result = live.shown("bac-1")["view"]["result"]
    named = messages.render(
        f"play.winner_{result['winner']}_totals",
        {"banker": result["banker_total"], "player": result["player_total"]},
        language,
    )
    assert outcome.inner_text().startswith(named), (outcome.inner_text(), named)
    for side in ("player", "banker"):
        cards = page.locator(f"#cards-{side} .card")
        assert cards.count() >= 2
        card = cards.first.get_attribute("data-card") or ""
        assert cards.first.get_attribute("aria-label") == _card_name(card, language)
        assert cards.first.locator("svg").count() == 1
    # the cards came onto the felt with the deal's motion; none when the reader asks for less
    # motion (prefers-reduced-motion: the page's context asks for less, conftest)
    dealt = page.locator("#cards-banker .card.card-deal").first
    page.emulate_media(reduced_motion="no-preference")
    assert dealt.evaluate("(e) => getComputedStyle(e).animationName") == "card-deal"
    page.emulate_media(reduced_motion="reduce")
    assert dealt.evaluate("(e) => getComputedStyle(e).animationName") == "none"
    # the shoe's statistics beside the roads: as the roads' read-model counts them
    roads = live.api.get("/api/tables/bac-1/read/roads").json()
    wait_until(
        "the statistics", lambda: page.locator("#last-results li").count() == len(roads["last"])
    )
    for side in ("banker", "player"):
        row = page.locator(f"#stats-streaks tr[data-side='{side}']")
        assert row.locator("[data-longest]").inner_text() == str(roads["streaks"][side]["longest"])
    shot(page, f"baccarat-felt-settled-{language}")
    # the next round opens: the "Done" of the last round's bet is gone, the ring runs again
    live.betting("bac-1")
    wait_until(
        "the next round", lambda: page.locator("#round-id").inner_text() not in ("—", round_id)
    )
    wait_until("the notice cleared", page.locator("#page-status").is_hidden)
    wait_until("the ring again", lambda: _ring(page)["left"] != "")
    # a phone: no horizontal scroll, still accessible (the same page on a phone's screen, as
    # the crawl checks every page; test_player_pages's phone test opens the felt on a phone)
    page.set_viewport_size({"width": 390, "height": 844})
    page.wait_for_selector("#roads[data-rounds]")
    network_quiet(page)
    width = page.evaluate("document.documentElement.scrollWidth")
    assert width <= 390, f"the felt is {width}px wide on a 390px screen"
    axe_in(page, language, whole="pt", what=f"the baccarat felt on a phone ({language})")
    shot(page, f"phone-baccarat-felt-{language}")


def _drag(page: Any, target: Any) -> None:
    """Press on ``target``, drag down by its height, let go (a peel by mouse)."""
    box = target.bounding_box()
    assert box is not None
    x, y = box["x"] + box["width"] / 2, box["y"] + box["height"] * 0.1
    page.mouse.move(x, y)
    page.mouse.down()
    for step in range(1, 6):
        page.mouse.move(x, y + box["height"] * 0.18 * step)
    page.mouse.up()


def test_the_card_holder_peels_the_held_cards_by_drag_BAC_16(page_of: Any, live: Live) -> None:
    """alice, seated with the player's largest wager, holds the player's cards: dragging each
    held card peels it; once both are peeled the page sends the reveal and the server records
    it (bruno's page shows the cards). Nobody's page names the other player."""
    held_table(live)
    alice = page_of(motion="no-preference")  # the peel's motion is the subject
    login(alice, "alice", then="/tables/bac-hold")
    bruno = page_of()
    login(bruno, "bruno", then="/tables/bac-hold")
    alice.locator("#seat-controls").wait_for(state="visible")
    if alice.locator("#seat-take").is_visible():
        alice.locator("#seat-number").select_option("1")
        alice.locator("#seat-take").click()
        alice.locator("#seat-leave").wait_for(state="visible")
    cycle_to_a_seated_round(live, "bac-hold", "alice", "bruno")
    seat = live.runtime.service("bac-hold").round
    assert seat is not None
    number = next(n for n, p in seat.seated if p == "alice")
    for page in (alice, bruno):
        wait_until("betting open", page.locator(".spot[data-kind='player']").first.is_enabled)
    alice_rows = alice.locator("#my-wagers tbody tr")
    alice_before = alice_rows.count()  # (a wager carried from a tie, BAC-12)
    alice.locator(f".spot[data-area='seat:{number}'][data-kind='player']").click()
    wait_until("alice's wager", lambda: alice_rows.count() == alice_before + 1)
    bruno_rows = bruno.locator("#my-wagers tbody tr")
    bruno_before = bruno_rows.count()  # (a wager carried from a tie, BAC-12)
    bruno.locator(".spot[data-area='standing:2'][data-kind='banker']").click()
    wait_until("bruno's wager", lambda: bruno_rows.count() == bruno_before + 1)
    live.runtime.service("bac-hold").cycle_step()  # the countdown's end: betting closes
    alice.locator("#squeeze").wait_for(state="visible")
    peels = alice.locator("#peel-cards .peel")
    wait_until("the held cards to peel", lambda: peels.count() == 2)
    # who holds the cards: "you" on alice's page, "another player" on bruno's — no name
    you = messages.render("play.holder_you", {"side": messages.render("play.hand_player", {})})
    other = messages.render("play.holder_other", {"side": messages.render("play.hand_player", {})})
    wait_until("alice told she holds", lambda: you in alice.locator("#holders").inner_text())
    wait_until("bruno told another holds", lambda: other in bruno.locator("#holders").inner_text())
    assert "alice" not in bruno.locator("#holders").inner_text()
    # (the player's cards are dealt after the betting closed: face down on bruno's page)
    wait_until(
        "the held cards face down", lambda: bruno.locator("#cards-player .card-back").count() == 2
    )
    axe_check(alice, what="the squeeze")
    shot(alice, "baccarat-peel-en")
    service = live.runtime.service("bac-hold")
    round_id = service.round.round_id

    def revealed() -> bool:
        """The server recorded the reveal of the player's first two cards (BAC-16)."""
        events = live.store.read(lambda tx: tx.read_events("bac-hold"))
        return any(
            e.type == "baccarat.CardsRevealed"
            and e.round_id == str(round_id)
            and e.data()["step"]["side"] == "player"
            and e.data()["by"] == "alice"  # she turned them, not the dealer's time-out
            for e in events
        )

    _drag(alice, peels.nth(0))
    wait_until(
        "the first card peeled", lambda: "peeled" in (peels.nth(0).get_attribute("class") or "")
    )
    assert not revealed()  # one card of two: nothing is sent yet
    _drag(alice, peels.nth(1))
    # the page sends the reveal: the server records it, bruno's page shows the cards
    wait_until("the reveal recorded", revealed)
    # (the two turned: a third card of the player's, dealt face down once they were, is
    # alice's to turn next — the rest below)
    faces = bruno.locator("#cards-player .card:not(.card-back)")
    wait_until("bruno sees the cards", lambda: faces.count() >= 2)
    # the rest with the button (keyboards), by whoever holds what is due (bruno the banker's
    # cards, his the largest banker wager), until the result — not the holding time-out's 30 s
    turned: dict[str, list[str]] = {"alice": ["player:first_two"], "bruno": []}

    def turn_what_is_due() -> str | None:
        for name, page in (("alice", alice), ("bruno", bruno)):
            turn = page.locator("#squeeze-turn")
            if page.locator("#squeeze").is_visible() and turn.is_enabled():
                due = f"{turn.get_attribute('data-side')}:{turn.get_attribute('data-part')}"
                if due not in turned[name]:
                    turn.press("Enter")
                    turned[name].append(due)
        return bruno.locator("#outcome").get_attribute("data-winner")

    wait_until("the result", turn_what_is_due)


def test_a_round_held_for_the_supervisor_says_so_on_the_player_s_page_BAC_10(
    page_of: Any, live: Live
) -> None:
    """A card refused at the live table stops the round for a supervisor (BAC-10): the player's
    page says the round is held for the supervisor, not "No more bets: dealing"; once the
    supervisor has corrected it the round goes on."""
    dealer = page_of()
    login(dealer, "dealer", then="/dealer/bac-live")
    dealer.wait_for_selector("#due")
    cards = list(DECK)
    _open_round(dealer, cards)
    alice = page_of()
    login(alice, "alice", then="/tables/bac-live?lang=en")
    phase = alice.locator("#phase")
    wait_until("betting on alice's page", lambda: phase.get_attribute("data-phase") == "betting")
    dealer.locator("#close-betting").click()
    wait_until("the first card due", lambda: _due(dealer) == ("card", "P1"))
    wait_until("dealing on alice's page", lambda: phase.get_attribute("data-phase") == "dealing")
    dealer.locator("#card-slot").select_option("B1")  # the banker's slot while the player's is due
    assert _type_card(dealer, "9s") == "refused"
    wait_until("held on alice's page", lambda: phase.get_attribute("data-phase") == "held")
    assert phase.inner_text() == messages.render("play.phase_held", {}, "en")
    assert phase.inner_text() != messages.render("play.phase_dealing", {}, "en")
    shot(alice, "baccarat-held-for-supervisor-en")
    supervisor = page_of()
    login(supervisor, "supervisor", then="/dealer/bac-live")
    reassign = supervisor.locator("#supervisor-buttons button[data-action='reassign']")
    reassign.wait_for()
    supervisor.locator("#reason").fill("the 9s was the player's first card")
    reassign.click()
    wait_until("dealing again", lambda: phase.get_attribute("data-phase") == "dealing")
    wait_until("the next card due", lambda: _due(dealer) == ("card", "B1"))
    _deal_until_settled(dealer, cards)
    wait_until("settled on alice's page", lambda: phase.get_attribute("data-phase") == "settled")
