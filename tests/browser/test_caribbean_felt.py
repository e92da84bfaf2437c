"""The Caribbean Stud table on the felt, in every language of the catalog (a third language is
tested as soon as it is added): chips placed on a box's jackpot, ante and raise spots (CSP-2),
by mouse and by keyboard; the dealer's up card and the player's five cards (CSP-7); at the
showdown each hand named — the dealer's with whether it qualifies (CSP-9.1), the player's own —
as the cards shown say (CSP-8); the paytable with its fixed awards in major units, "or 100 % /
10 % of the meter, whichever is higher" (CSP-10.2, CSP-10.3); the decision timer's fold told as
such (CSP-6.4), never "Your decision is in"; the last command's "Done" gone when the next round
opens; axe at desktop and phone sizes (every rule in one language, the rules words change in
the others: support.axe_in); no console error or failed request (the ``page_of``
fixture fails the test on any).

The session's virtual tables hold their round cycle (conftest ``CYCLE``): a test steps it, and
the decision time-out is the tick's at the recorded deadline (``TableService.tick(now=…)``),
never a wait on the wall clock."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

import pytest

from macau_tables.cards import parse_cards
from macau_tables.caribbean.hands import dealer_qualifies
from macau_tables.caribbean.view import NamedHand, named_hand
from macau_tables.messages import LANGUAGES, render
from tests.browser.support import (
    Live,
    axe_in,
    english_left,
    login,
    shot,
    table_names,
    wait_until,
)

TABLE = "csp-1"

# How the catalog names a hand (play.hand_<category>): its placeholders in the order of the
# named ranks, each read as one rank ("ace-king high") or many ("pair of queens").
PLACES: dict[str, tuple[tuple[str, str], ...]] = {
    "high_card": (("high", "rank"), ("next", "rank")),
    "one_pair": (("rank", "ranks"),),
    "two_pair": (("high", "ranks"), ("low", "ranks")),
    "three_of_a_kind": (("rank", "ranks"),),
    "straight": (("rank", "rank"),),
    "flush": (("rank", "rank"),),
    "full_house": (("high", "ranks"), ("low", "ranks")),
    "four_of_a_kind": (("rank", "ranks"),),
    "straight_flush": (("rank", "rank"),),
    "royal_flush": (),
}


def _hand_text(hand: NamedHand, lang: str) -> str:
    category = hand.category.name.lower()
    params = {
        name: render(f"play.hand_{form}_{rank.lower()}", {}, lang)
        for (name, form), rank in zip(PLACES[category], hand.ranks, strict=True)
    }
    return render(f"play.hand_{category}", params, lang)


def _cards(page: Any, where: str) -> list[str]:
    boxes = page.locator(f"{where} .card")
    return [str(boxes.nth(i).get_attribute("data-card")) for i in range(boxes.count())]


def _spot(page: Any, box: int, which: str) -> Any:
    return page.locator(f".csp-spot[data-box='{box}'][data-spot='{which}']")


def _staked(spot: Any) -> int:
    return int(spot.get_attribute("data-amount") or "0")


def _to_betting(page: Any, live: Live, lang: str, name: str) -> str:
    round_id = str(live.betting(TABLE, name)["round_id"])
    login(page, name, then=f"/tables/{TABLE}?lang={lang}")
    page.wait_for_selector("#wallet[data-balance]")
    return round_id


@pytest.mark.parametrize("lang", LANGUAGES)
def test_a_hand_on_the_felt_names_both_hands_and_pays_per_spot_CSP_8_CSP_9(
    page_of: Any, live: Live, lang: str
) -> None:
    page = page_of()
    round_id = _to_betting(page, live, lang, "bruno")
    ante, jackpot, raise_ = (_spot(page, 2, w) for w in ("ante", "jackpot", "raise"))
    wait_until("the ante spots open", ante.is_enabled)
    # chips from the rack make the ante: 10.00 + 50.00, then the box's ante spot takes it
    chips = page.locator("#chip-rack .csp-chip")
    values = [int(chips.nth(i).get_attribute("data-value") or "0") for i in range(chips.count())]
    chips.nth(0).click()
    chips.nth(1).click()
    wanted = values[0] + values[1]
    assert page.locator("#ante").input_value() == f"{wanted // 100:,}.{wanted % 100:02d}"
    ante.click()
    wait_until("the ante on the spot", lambda: _staked(ante) == wanted)
    assert page.locator(".csp-box[data-box='2']").get_attribute("data-mine") == "1"
    assert ante.locator(".chip-stack").count() == 1
    # the jackpot wager by keyboard: the spot nearest the dealer (CSP-2)
    wait_until("the jackpot spot open", jackpot.is_enabled)
    jackpot.focus()
    page.keyboard.press("Enter")
    wait_until("the jackpot wager on its spot", lambda: _staked(jackpot) > 0)
    assert page.locator("#page-status").is_visible()  # the last command's "Done"
    shot(page, f"caribbean-felt-betting-{lang}")
    # another player at box 5: their wager and name never reach this page (CSP-12)
    other = live.api.post(
        f"/api/tables/{TABLE}/commands",
        json={
            "idempotency_key": f"felt-other-{round_id}",
            "command": {
                "type": "caribbean.PlaceAnte",
                "box": 5,
                "player": "alice",
                "amount": 1_000,
            },
        },
        headers=live.token("alice"),
    )
    assert other.status_code == 200, other.text
    # the cycle closes the betting: five cards of the player's, the dealer's up card (CSP-7)
    live.closed(TABLE, round_id)
    wait_until("five cards", lambda: page.locator("#my-cards .card:not(.card-back)").count() == 5)
    assert page.locator("#dealer-cards .card:not(.card-back)").count() == 1
    assert page.locator("#dealer-cards .card-back").count() == 4
    # dealt with motion, and without it under prefers-reduced-motion
    dealt = page.locator("#my-cards .card.card-deal")
    assert dealt.count() == 5
    page.emulate_media(reduced_motion="no-preference")  # (the context asks for less: conftest)
    assert dealt.first.evaluate("(e) => getComputedStyle(e).animationName") == "card-deal"
    page.emulate_media(reduced_motion="reduce")
    assert dealt.first.evaluate("(e) => getComputedStyle(e).animationName") == "none"
    wait_until("the raise spot open", raise_.is_enabled)
    # CSP-12: nothing named while the player decides
    assert page.locator("#dealer-hand").inner_text() == ""
    assert page.locator("#my-hand").inner_text() == ""
    axe_in(page, lang, whole="zh-Hant", what=f"caribbean felt deciding ({lang})")
    shot(page, f"caribbean-felt-deciding-{lang}")
    raise_.focus()
    page.keyboard.press("Space")  # the raise at the box, by keyboard
    wait_until("the raise on its spot", lambda: _staked(raise_) > 0)
    folded = live.api.post(
        f"/api/tables/{TABLE}/commands",
        json={
            "idempotency_key": f"felt-other-fold-{round_id}",
            "command": {"type": "caribbean.Fold", "box": 5, "player": "alice"},
        },
        headers=live.token("alice"),
    )
    assert folded.status_code == 200, folded.text
    wait_until("the showdown", lambda: page.locator("#dealer-hand").inner_text())
    dealer, mine = _cards(page, "#dealer-cards"), _cards(page, "#my-cards")
    # the dealer's four face-down cards are turned over (the up card stays as it was)
    assert page.locator("#dealer-cards .card.card-turn").count() == 4
    assert len(dealer) == 5 and len(mine) == 5 and "" not in dealer
    qualifies = dealer_qualifies(parse_cards(" ".join(dealer)))  # CSP-9.1, from the cards shown
    key = "play.dealer_hand_qualifies" if qualifies else "play.dealer_hand_not_qualified"
    named = _hand_text(named_hand(parse_cards(" ".join(dealer))), lang)
    assert page.locator("#dealer-hand").inner_text() == render(key, {"hand": named}, lang)
    assert page.locator("#dealer-hand").get_attribute("data-qualifies") == str(qualifies).lower()
    own = _hand_text(named_hand(parse_cards(" ".join(mine))), lang)
    assert page.locator("#my-hand").inner_text() == render("play.your_hand", {"hand": own}, lang)
    # each wager's outcome at its spot and in the results, amounts in major units
    wait_until("the results", lambda: page.locator("#results tbody tr").count() == 3)
    for spot in (ante, jackpot, raise_):
        assert spot.get_attribute("data-outcome") in ("won", "lost", "returned"), spot
    assert _staked(raise_) == 2 * wanted
    assert page.locator("#box-outcome").inner_text().strip()
    assert "alice" not in page.locator("main").inner_text()
    assert all(_staked(_spot(page, 5, w)) == 0 for w in ("jackpot", "ante", "raise"))
    if lang != "en":
        assert not english_left(page, *table_names(live), "bruno", within="main"), english_left(
            page, *table_names(live), "bruno", within="main"
        )
    axe_in(page, lang, whole="en", what=f"caribbean felt settled ({lang})")
    shot(page, f"caribbean-felt-settled-{lang}")
    # the next round opens: the last command's "Done" is gone
    live.betting(TABLE, "bruno")
    wait_until("the banner cleared", lambda: not page.locator("#page-status").is_visible())


@pytest.mark.parametrize("lang", LANGUAGES)
def test_the_paytable_shows_the_fixed_awards_in_major_units_CSP_10_3(
    page_of: Any, live: Live, lang: str
) -> None:
    page = page_of()
    login(page, "alice", then=f"/tables/{TABLE}?lang={lang}")
    table = page.locator("#paytable")
    table.wait_for()
    royal = table.locator("[data-section='jackpot'] tr[data-term='royal_flush'] [data-pays]")
    straight = table.locator("[data-section='jackpot'] tr[data-term='straight_flush'] [data-pays]")
    fixed = table.locator("[data-section='jackpot'] tr[data-term='four_of_a_kind'] [data-pays]")
    # csp-1's rules: 50,000.00 / 5,000.00 / 500.00 (minor units 5,000,000 / 500,000 / 50,000)
    pays = "pages.pay_fixed_or_meter"
    assert royal.inner_text() == render(pays, {"amount": 5_000_000, "percent": 100}, lang)
    assert straight.inner_text() == render(pays, {"amount": 500_000, "percent": 10}, lang)
    assert fixed.inner_text() == render("pages.pay_fixed", {"amount": 50_000}, lang)
    assert "50,000.00" in royal.inner_text() and "5,000.00" in straight.inner_text()
    text = table.inner_text()
    for minor in ("5000000", "500000", "100000000"):
        assert minor not in text.replace(",", "").replace(".00", ""), minor
    # the raise: the royal flush's odds are the table's option (CSP-9.5(9), CSP-13), capped
    note = table.locator("[data-note='royal_flush_option']")
    assert note.get_attribute("data-article") == "CSP-13"
    capped = table.locator("[data-section='raise'] tr[data-term='royal_flush'] [data-pays]")
    assert capped.inner_text() == render(
        "pages.pay_odds_capped", {"odds": 100, "amount": 100_000_000}, lang
    )
    if lang != "en":
        assert english_left(page, *table_names(live), within="#paytable") == []
    axe_in(page, lang, whole="pt", what=f"caribbean paytable ({lang})")


@pytest.mark.parametrize("lang", LANGUAGES)
def test_a_box_the_decision_timer_folded_is_told_so_CSP_6_4(
    page_of: Any, live: Live, lang: str
) -> None:
    page = page_of()
    round_id = _to_betting(page, live, lang, "alice")
    # record whether "Your decision is in" is ever shown on this page
    page.evaluate(
        """() => {
            const node = document.getElementById('decided');
            window.decidedShown = false;
            new MutationObserver(() => { if (!node.hidden) window.decidedShown = true; })
                .observe(node, { attributes: true });
        }"""
    )
    ante = _spot(page, 6, "ante")
    wait_until("the ante spot open", ante.is_enabled)
    ante.click()
    wait_until("the ante placed", lambda: _staked(ante) > 0)
    live.closed(TABLE, round_id)
    wait_until("the decision open", page.locator("#fold").is_enabled)
    # the decision time runs out (the tick at the recorded deadline, without the wait)
    service = live.runtime.service(TABLE)
    timeout = int(service.state.rules.decision_timeout_seconds)
    service.tick(service.clock.now() + timedelta(seconds=timeout + 1))
    notice = page.locator("#timed-out")
    wait_until("the time-out notice", notice.is_visible)
    assert notice.inner_text() == render("play.timed_out_notice", {"number": 6}, lang)
    wait_until("the settlement", lambda: page.locator("#box-outcome").get_attribute("data-outcome"))
    assert page.locator("#box-outcome").get_attribute("data-outcome") == "timed_out"
    # the dealer's hand is named; what a non-qualifying dealer pays is not said to a folded box
    dealer = parse_cards(" ".join(_cards(page, "#dealer-cards")))
    key = (
        "play.dealer_hand_qualifies"
        if dealer_qualifies(dealer)
        else "play.dealer_hand_not_qualified_folded"
    )
    named = _hand_text(named_hand(dealer), lang)
    assert page.locator("#dealer-hand").inner_text() == render(key, {"hand": named}, lang)
    assert page.locator("#decided").is_hidden()
    assert page.evaluate("window.decidedShown") is False
    assert render("play.decided", {}, lang) not in page.locator("main").inner_text()
    assert page.locator("#my-hand").inner_text() == ""  # a folded hand is collected unseen
    shot(page, f"caribbean-felt-timed-out-{lang}")


@pytest.mark.parametrize("lang", LANGUAGES)
def test_the_felt_fits_a_phone(page_of: Any, live: Live, lang: str) -> None:
    page = page_of(viewport=(390, 844))
    _to_betting(page, live, lang, "bruno")
    wait_until("the ante spots", _spot(page, 1, "ante").is_enabled)
    width = page.evaluate("document.documentElement.scrollWidth")
    assert width <= 390, f"the felt is {width}px wide on a 390px screen"
    assert page.locator(".csp-spot[data-spot='ante']").count() == 7
    axe_in(page, lang, whole="zh-Hant", what=f"caribbean felt on a phone ({lang})")
    shot(page, f"phone-caribbean-felt-{lang}")
