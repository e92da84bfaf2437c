"""The jackpot display's words: every award says what it pays as
the table's rules say it — "50,000.00 or 100 % of the meter, whichever is higher" for the
Caribbean royal flush (CSP-10.2(1)), 10 % for the straight flush (CSP-10.2(2)) and the baccarat
heavenly straight (BAC-17.5), the whole meter for the baccarat royal flush (BAC-17.4) — in every
language, the amounts from the rules' data. Its axe check at desktop and phone sizes, and that
it never scrolls sideways, in every language: tests/browser/test_every_page_words.py (/jackpot)."""

from __future__ import annotations

from typing import Any

import pytest

from macau_tables.messages import LANGUAGES, render
from tests.browser.support import Live, wait_until


def _lines(live: Live) -> dict[tuple[str, str], dict[str, Any]]:
    """Every linked table's jackpot lines from ``GET /api/meters``, by (table, combination)."""
    out = {}
    for meter in live.api.get("/api/meters").json()["meters"]:
        for table in meter["tables_awards"]:
            for line in table["paytable"]["lines"]:
                out[(table["table"], line["term"])] = line
    return out


def _open(page: Any, live: Live, lang: str) -> None:
    page.goto(f"/jackpot?lang={lang}")
    linked = sum(len(m["tables"]) for m in live.api.get("/api/meters").json()["meters"])
    wait_until(
        "every linked table's awards",
        lambda: page.locator("#jackpot-awards table").count() == linked,
    )


@pytest.mark.parametrize("lang", LANGUAGES)
def test_every_award_says_what_it_pays_from_the_rules(page: Any, live: Live, lang: str) -> None:
    _open(page, live, lang)
    lines = _lines(live)
    expected = {
        ("csp-1", "royal_flush"): ("pages.pay_fixed_or_meter", 100),  # CSP-10.2(1)
        ("csp-1", "straight_flush"): ("pages.pay_fixed_or_meter", 10),  # CSP-10.2(2)
        ("bac-1", "heavenly_straight"): ("pages.pay_fixed_or_meter_shared", 10),  # BAC-17.5
        ("bac-1", "royal_flush"): ("pages.pay_meter_shared", 0),  # BAC-17.4: the whole meter
    }
    for (table, term), (key, percent) in expected.items():
        line = lines[(table, term)]
        assert (line["payout_key"], line["percent"]) == (key, percent), line
        params = {"amount": line["amount"], "percent": line["percent"], "odds": line["odds"]}
        row = page.locator(
            f"#jackpot-awards [data-table='{table}'] tr[data-term='{term}'] td[data-amount]"
        )
        assert row.inner_text() == render(key, params, lang), (table, term)
    if lang == "en":
        csp = page.locator("#jackpot-awards [data-table='csp-1'] tr[data-term='royal_flush']")
        assert "or 100 % of the meter, whichever is higher" in csp.inner_text()
        bac = page.locator("#jackpot-awards [data-table='bac-1'] tr[data-term='royal_flush']")
        assert "the whole meter" in bac.inner_text()
    # the fixed awards read as money in major units: no minor-unit amount anywhere
    for (table, term), line in lines.items():
        if line["amount"] >= 100_000:
            cell = page.locator(
                f"#jackpot-awards [data-table='{table}'] tr[data-term='{term}'] td[data-amount]"
            )
            assert str(line["amount"]) not in cell.inner_text(), (table, term)
